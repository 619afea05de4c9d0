"""The sidebar's model: litellm's model table read through ``core.models`` (cached per server), the
two boxes that pick a model (its provider, then one of that provider's models), and the log's own
model offered in its place.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard.memo import Transcript
from dashboard.state import keep, kept, set_kept

CUSTOM_MODEL = "(custom context length)"
DEFAULT_MODEL = "gpt-4o"
DEFAULT_CONTEXT = 128_000

# The lookups are cached, their failures are not: a failure returned from a cached function would
# stay for every later session of the server (no model list, no window, no reserve) until a restart.


@st.cache_data(show_spinner=False)
def _table_window(model: str) -> int | None:
    from core.models import context_window

    return context_window(model)


@st.cache_data(show_spinner=False)
def _table_output_limit(model: str) -> int | None:
    from core.models import output_limit

    return output_limit(model)


# The model picker is two boxes, the provider and then its models: one box listing all 3,676 chat
# models made every page's browser decode and lay out the whole list before the page was usable
# (about 0.2 s of the browser's work on the first page, in alternating loads), and a name is easier
# to find among one provider's models. Read-only mappings, shared rather than copied per caller.


@st.cache_resource(show_spinner=False)
def _models_by_provider() -> dict[str, list[str]]:
    from core.models import chat_models_by_provider

    # Agents' models (Codex's gpt-5.x-codex) are often Responses-only: they are listed too.
    return chat_models_by_provider(modes=("chat", "responses"))


@st.cache_resource(show_spinner=False)
def _provider_index() -> dict[str, str]:
    return {model: provider for provider, models in _models_by_provider().items() for model in models}


def model_providers() -> list[str]:
    """The providers the model table files chat models under, sorted (none without the table)."""
    try:
        return list(_models_by_provider())
    except Exception:
        return []


def provider_models(provider: str) -> list[str]:
    """The models the Model box lists for ``provider``: the custom window, then the provider's models."""
    try:
        return [CUSTOM_MODEL, *_models_by_provider().get(provider, [])]
    except Exception:
        return [CUSTOM_MODEL]


def provider_of(model: str) -> str | None:
    """The provider the table files ``model`` under (None for the custom window or an unlisted name)."""
    try:
        return _provider_index().get(model)
    except Exception:
        return None


def listed_model(model: str) -> bool:
    """Whether the sidebar can be set to ``model``: the custom window, or a chat model of the table
    (none without the table: then only a custom window is possible)."""
    return model == CUSTOM_MODEL or provider_of(model) is not None


def _show_model_provider(providers: list[str]) -> None:
    """Point the Provider box at the model's provider when code set the model (a link, the log's
    model, a reset), and at one of ``providers`` when it names none."""
    provider = provider_of(kept("model", CUSTOM_MODEL))
    if provider is not None and provider != kept("model_provider"):
        set_kept("model_provider", provider)
    elif kept("model_provider") not in providers and providers:
        default = provider_of(DEFAULT_MODEL)
        set_kept("model_provider", default if default in providers else providers[0])


def _on_provider_change() -> None:
    """Keep the model when the new provider lists it under the same name (``gpt-4o`` is
    ``azure/gpt-4o`` there); otherwise the window stays as it is until a model is picked."""
    provider = kept("model_provider")
    model = kept("model", CUSTOM_MODEL)
    if provider_of(model) == provider:
        return
    bare = model.rsplit("/", 1)[-1]
    listed = provider_models(provider)[1:]
    # The plain name first ("azure/gpt-4o" rather than the regional "azure/eu/gpt-4o").
    same = next((name for name in (f"{provider}/{bare}", bare) if name in listed), None) or next(
        (name for name in listed if name.rsplit("/", 1)[-1] == bare), None)
    set_kept("model", same or CUSTOM_MODEL)
    if same:
        apply_model_window()


def _table_figure(lookup: Callable[[str], int | None], model: str) -> int | None:
    """``lookup(model)``, or None for the custom window or when the table cannot be read."""
    if model == CUSTOM_MODEL:
        return None
    try:
        return lookup(model)
    except Exception:
        return None


def model_window(model: str) -> int | None:
    return _table_figure(_table_window, model)


def model_output_limit(model: str) -> int | None:
    return _table_figure(_table_output_limit, model)


def apply_model_window() -> None:
    """Take the chosen model's window and output limit from the table (nothing for the custom
    window): the Model box's callback, and what a link naming a model does."""
    model = kept("model", CUSTOM_MODEL)
    window = model_window(model)
    if window:
        set_kept("context_length", window)
        set_kept("max_tokens", model_output_limit(model) or 0)


def use_transcript_model(model: str) -> None:
    """Analyse as the agent that wrote the log ran: ``model``'s window and no output reserve.

    Hermes' default config.yaml sets no ``model.max_tokens``, so the agent keeps no reserve; the
    model's output limit (128,000 for gpt-5.2-codex) is what it may write, not what Hermes takes off
    the window. A callback for buttons.
    """
    if listed_model(model):
        set_kept("model", model)
        set_kept("context_length", model_window(model) or kept("context_length", DEFAULT_CONTEXT))
        set_kept("max_tokens", 0)


def table_model_name(named: str) -> str | None:
    """The name litellm's table lists a logged model under (None when it does not list it)."""
    named = named.strip()
    if not named:
        return None
    bare = named.rsplit("/", 1)[-1]
    # Logs write "claude-sonnet-4.6" where litellm's table says "claude-sonnet-4-6"; Claude models the
    # table keeps only under their Bedrock name ("anthropic.claude-sonnet-4-20250514-v1:0") have the
    # same window and output limit there.
    dashed = bare.replace(".", "-")
    for candidate in (named, bare, dashed, f"anthropic.{dashed}-v1:0", f"anthropic.{dashed}"):
        if candidate != CUSTOM_MODEL and listed_model(candidate):
            return candidate
    return None


def conversation_model(transcript: Transcript) -> str | None:
    """The model the log names, as the sidebar lists it, when it differs from the sidebar's choice."""
    listed = table_model_name(str(getattr(transcript.conversation, "model", None) or ""))
    return listed if listed is not None and listed != kept("model") else None


def model_picker() -> None:
    """The Provider box (when the model table is there) and its models."""
    providers = model_providers()
    _show_model_provider(providers)
    provider = kept("model_provider")
    if providers:
        st.selectbox(
            "Provider",
            providers,
            **keep("model_provider", then=_on_provider_change),
            help="The provider litellm's model table lists the model under; the Model box lists its models.",
        )
    st.selectbox(
        "Model",
        provider_models(provider),
        **keep("model", then=apply_model_window),
        help="Sets the context window (from litellm's model table) and the tokenizer for exact counts. "
             f"{CUSTOM_MODEL} keeps the window entered below.",
    )
