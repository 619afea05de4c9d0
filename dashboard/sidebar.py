"""What every page of the dashboard shares: the sidebar controls, the settings, and (re-exported from
their own modules) the loaded conversation (``dashboard.loading``), the summarizer and the shared
compressions (``dashboard.runs``), and the kept widget values (``dashboard.state``).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import streamlit as st

from core.config import DEFAULTS as CONFIG_DEFAULTS
from core.inspections.what_if import NOT_HERMES, WINDOW_SCALES, TriggerOption, scale_label, what_if_words
from core.profiles import DEFAULT_PROFILE, PROFILES
from dashboard import ahead
from dashboard.loading import (  # noqa: F401  (re-exported: the pages import them from here)
    ANALYSIS_BUDGET,
    AUTO_FORMAT,
    COUNT_PROGRESS_CHARS,
    FULL_HISTORY_KEY,
    READ_BUDGET,
    SAMPLE_PREFIX,
    UPLOAD_PREFIX,
    conversation_options,
    count_with_progress,
    current_transcript,
    default_choice,
    empty_state,
    format_override,
    message_table,
    rejected_uploads,
    require_transcript,
    samples,
    selected_source,
    session_override,
    transcript_cache,
)
from dashboard.memo import Settings, Transcript, default_sample
from dashboard.model_picker import (  # noqa: F401  (re-exported)
    CUSTOM_MODEL,
    DEFAULT_CONTEXT,
    DEFAULT_MODEL,
    apply_model_window,
    conversation_model,
    listed_model,
    model_output_limit,
    model_picker,
    model_window,
    use_transcript_model,
)
from dashboard.runs import (  # noqa: F401  (re-exported)
    FAILING_SUMMARIZER,
    LOCAL_SUMMARIZER,
    NO_SUMMARIZER,
    OFFLINE_SUMMARIZER,
    REMOTE_SUMMARIZER,
    SUMMARIZER_OPTIONS,
    fact_index,
    last_run_for,
    new_run_id,
    offline_compression,
    replay_run,
    run_view,
    strict_redaction_default,
    strict_redaction_for,
    strict_redaction_switch,
    summarizer_choice,
    whole_request,
)
from dashboard.state import _KEPT_PREFIX, escape_markdown, keep, kept, set_kept  # noqa: F401  (re-exported)

# Hermes' defaults for the sidebar controls (the reset button restores these), from CompressorConfig.
DEFAULTS: dict[str, Any] = {
    name: getattr(CONFIG_DEFAULTS, name)
    for name in ("threshold_percent", "protect_first_n", "protect_last_n", "summary_target_ratio", "profile",
                 "token_estimator")
}
# The what-ifs for short sessions (not Hermes parameters; the reset button turns them off too).
WHAT_IF_DEFAULTS: dict[str, Any] = {"window_scale": 1.0, "what_if_no_floor": False}
# Releases newest first, as the picker lists them.
RELEASES = list(reversed(PROFILES))

def _reset_parameters() -> None:
    for key, value in {**DEFAULTS, **WHAT_IF_DEFAULTS}.items():
        set_kept(key, value)


def apply_option(option: TriggerOption) -> None:
    """Set the controls an advice names (a callback for its button)."""
    for key, value in option.changes.items():
        set_kept(key, value)


def trigger_advice(peak: int, settings: Settings, key: str) -> bool:
    """The changes that make a prompt of ``peak`` tokens reach the threshold, each with a button that
    makes it; False when the controls offer none (the caller then says so)."""
    from core.inspections.what_if import trigger_options

    options = trigger_options(peak, settings.config(), settings.context_length, settings.window_scale)
    for number, option in enumerate(options):
        text_col, button_col = st.columns([4, 1], vertical_alignment="center")
        text_col.markdown(escape_markdown(option.text))
        button_col.button("Apply", key=f"{key}_{number}", on_click=apply_option, args=(option,),
                          help="Sets these controls in the sidebar.")
    return bool(options)


def init_state() -> None:
    """Defaults for the shared controls, set once per browser session (a shared link's first)."""
    state = st.session_state
    if "_query_applied" not in state:
        state["_query_applied"] = True
        _apply_query()
    if kept("model") is None:
        set_kept("model", DEFAULT_MODEL if listed_model(DEFAULT_MODEL) else CUSTOM_MODEL)
    if kept("context_length") is None:
        set_kept("context_length", model_window(kept("model")) or DEFAULT_CONTEXT)
    if kept("max_tokens") is None:
        set_kept("max_tokens", model_output_limit(kept("model")) or 0)
    for key, value in {**DEFAULTS, **WHAT_IF_DEFAULTS}.items():
        if kept(key) is None:
            set_kept(key, value)
    state.setdefault("uploaded_files", [])


# The settings of the sidebar ``app.py`` drew for the page running now (None: no sidebar drawn yet).
_DRAWN: ContextVar[Settings | None] = ContextVar("context_lens_sidebar_settings", default=None)


@contextlib.contextmanager
def shared_sidebar(*, charts_page: bool = False) -> Iterator[Settings]:
    """Around a page's run in ``app.py``: the sidebar drawn once, before the page, for every page.

    Drawn by a page, the sidebar belonged to that page's run: a page switch removed it and the browser
    built it again (its style, its scripts, two dozen widgets), on the processor the next page's
    analyses need (``make bench``, Strategies clicked at once after an upload). Drawn here, it stays
    in place from page to page; a page's :func:`page_setup` then only returns its settings.
    ``charts_page``: the page about to run draws Plotly charts (``dashboard.ui.page_style``)."""
    settings = _draw_setup(charts_page=charts_page)
    token = _DRAWN.set(settings)
    try:
        yield settings
    finally:
        _DRAWN.reset(token)


def page_setup() -> Settings:
    """Every page starts here: the shared sidebar's parameters (the sidebar itself drawn here when
    ``app.py`` did not draw it for this run: a page run on its own)."""
    drawn = _DRAWN.get()
    return drawn if drawn is not None else _draw_setup()


def _draw_setup(*, charts_page: bool = False) -> Settings:
    """Draw the sidebar and return its parameters. They are also written to the URL, so the address
    bar is always a link to this view."""
    from dashboard.ui import page_style

    _leave_directory_navigation()
    with st.sidebar:
        page_style(charts_page=charts_page)
    settings = sidebar_controls()
    _write_query()
    ahead.note_settings(settings)
    return settings


def _leave_directory_navigation() -> None:
    """Run the page through ``app.py`` when Streamlit ran it straight from ``pages/``.

    Until a run has called ``st.navigation``, Streamlit takes an app with a ``pages/`` folder for an
    old-style multipage app: a link to a page opened as the server's first request runs that file
    alone (without ``app.py``'s navigation and defaults). Telling it otherwise and rerunning lets
    ``app.py`` route the same address. A session ``app.py`` has set up (``init_state``) is left alone.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and "_query_applied" not in st.session_state:
        PagesManager.uses_pages_directory = False
        st.rerun()


# --- the settings in the URL ---------------------------------------------------------------------


def _query_defaults() -> dict[str, Any]:
    """What a parameter left out of a link means: the defaults, and the model's own window and reserve."""
    model = kept("model", CUSTOM_MODEL)
    return {
        **DEFAULTS,
        **WHAT_IF_DEFAULTS,
        "model": DEFAULT_MODEL,
        "context_length": model_window(model) or DEFAULT_CONTEXT,
        "max_tokens": model_output_limit(model) or 0,
        "sample": default_sample_name(),
    }


def _kept_query_values() -> dict[str, Any]:
    from dashboard.share import QUERY_FIELDS

    values = {field.setting: kept(field.setting) for field in QUERY_FIELDS if field.setting != "sample"}
    choice = str(kept("conversation_choice") or "")
    values["sample"] = choice[len(SAMPLE_PREFIX):] if choice.startswith(SAMPLE_PREFIX) else None
    return values


def _apply_query() -> None:
    """Take the parameters of a shared link (once per session); what cannot be used is a warning."""
    from dashboard.share import parse_query

    try:
        params = st.query_params.to_dict()
    except Exception:  # no URL (the test harness without query parameters)
        return
    if not params:
        return
    values, problems = parse_query(params)
    model = values.pop("model", None)
    if model is not None:
        if listed_model(model):
            set_kept("model", model)
            apply_model_window()
        else:
            problems.append(f"model={model!r} was ignored: it is not in litellm's model table")
    sample = values.pop("sample", None)
    if sample is not None:
        if sample in {path.name for path in samples()}:
            set_kept("conversation_choice", SAMPLE_PREFIX + sample)
        else:
            problems.append(f"sample={sample!r} was ignored: no bundled sample has that name")
    for key, value in values.items():
        set_kept(key, value)
    st.session_state["_query_problems"] = problems


def _write_query() -> None:
    from dashboard.share import QUERY_FIELDS, settings_query

    wanted = settings_query(_kept_query_values(), _query_defaults())
    try:
        current = st.query_params.to_dict()
        for field in QUERY_FIELDS:
            if field.name in wanted:
                if current.get(field.name) != wanted[field.name]:
                    st.query_params[field.name] = wanted[field.name]
            elif field.name in current:
                del st.query_params[field.name]
    except Exception:  # a harness without a URL: nothing to write
        return


def default_sample_name() -> str | None:
    choice = default_sample(samples())
    return choice.name if choice else None


def sidebar_controls() -> Settings:
    """The compressor parameters, shown in the sidebar of every page (below its style and scripts)."""
    with st.sidebar:
        st.markdown("**Compressor parameters**")
        for problem in st.session_state.pop("_query_problems", None) or []:
            st.warning("From the link: " + escape_markdown(problem))
        model_picker()
        st.number_input(
            "Context length (tokens)",
            min_value=1_000,
            max_value=10_000_000,
            step=1_000,
            **keep("context_length"),
            help="The model's input window. Picking a model fills it in; edit it to try another window.",
        )
        st.number_input(
            "Output reserve (max_tokens)",
            min_value=0,
            max_value=10_000_000,
            step=1_024,
            **keep("max_tokens"),
            help=(
                "Tokens kept free for the model's reply (Hermes' model.max_tokens). From v0.18.0 the threshold is "
                "taken from the window minus this reserve; earlier releases ignore it. Picking a model fills in "
                "its output limit from litellm's table; 0 means no reserve (Hermes' default config.yaml)."
            ),
        )
        st.slider(
            "Threshold (share of the window)",
            min_value=0.05,
            max_value=1.0,
            step=0.05,
            **keep("threshold_percent"),
            help=(
                "Compression triggers when the prompt reaches this share of the window, never below 64,000 tokens; "
                "from v0.18.0 a window that floor cannot serve triggers at 85 % of itself instead."
            ),
        )
        _threshold_caption(current_settings())
        st.slider(
            "Protect first N messages",
            min_value=0,
            max_value=20,
            **keep("protect_first_n"),
            help=(
                "Messages after the system prompt that are never summarised. From v0.18.0 only on the first "
                "compaction: after it, only the system prompt is protected."
            ),
        )
        st.slider(
            "Protect last N messages",
            min_value=0,
            max_value=100,
            **keep("protect_last_n"),
            help=(
                "Phase 1 never shortens the last N messages (or more, when they fit in the tail budget). From "
                "v0.17.0 the tail also keeps at least min(N, 8) messages (3 at least)."
            ),
        )
        st.slider(
            "Summary target ratio",
            min_value=0.10,
            max_value=0.80,
            step=0.05,
            **keep("summary_target_ratio"),
            help="Share of the threshold kept verbatim as the tail budget.",
        )
        st.selectbox(
            "Hermes release",
            RELEASES,
            format_func=lambda name: f"{name} ({PROFILES[name].released})",
            **keep("profile"),
            help="Which Hermes release to reproduce. What each one changed:\n\n" + "\n\n".join(
                f"**{name}** — {PROFILES[name].what_changed}" for name in RELEASES
            ),
        )
        _what_if_controls()
        st.radio(
            "Token estimator",
            ["hermes", "tiktoken"],
            **keep("token_estimator"),
            horizontal=True,
            help="hermes: the reference heuristics (decisions match Hermes). tiktoken: decide with exact counts.",
        )
        st.button("Reset to Hermes defaults", on_click=_reset_parameters, width="stretch")
    return current_settings()


def _what_if_controls() -> None:
    """The what-ifs for sessions too short to ever reach Hermes' threshold."""
    active = kept("window_scale", 1.0) != 1.0 or bool(kept("what_if_no_floor", False))
    with st.expander("What-if for short sessions" + (" (on)" if active else ""), expanded=active):
        st.select_slider(
            "Window the analyses use",
            options=list(WINDOW_SCALES),
            format_func=lambda scale: "100 % (the context length)" if scale == 1 else scale_label(scale),
            **keep("window_scale"),
            help=(
                "Run every analysis as if the model's window were this share of the context length: the "
                "threshold, the tail budget and the summary budget follow, exactly as Hermes computes them for "
                "that window. Up to v0.17.0 the threshold never goes below 64,000 tokens; from v0.18.0 a window "
                "the floor cannot serve triggers at 85 % of itself."
            ),
        )
        st.checkbox(
            f"Drop the 64K floor ({NOT_HERMES})",
            **keep("what_if_no_floor"),
            help=(
                "The threshold becomes the release's percentage alone (of the window left after the output "
                "reserve from v0.18.0), without the 64,000-token floor and the small-window rule. Hermes never "
                "does this; it lets a short session be seen compressing."
            ),
        )


def _threshold_caption(settings: Settings) -> None:
    """The threshold these settings give, and what the output reserve does to it."""
    config = settings.config()
    line = f"Threshold: **{config.threshold_tokens:,}** tokens, tail budget {config.tail_token_budget:,}."
    if settings.max_tokens:
        without = dataclasses.replace(config, max_tokens=None).threshold_tokens
        if not config.threshold_rule.uses_output_reserve:
            line += f" {config.profile} ignores the output reserve."
        elif without != config.threshold_tokens:
            line += f" Without the {settings.max_tokens:,}-token reserve: {without:,}."
        else:
            line += " The reserve does not move it here."
    st.caption(line)


def current_settings() -> Settings:
    model = kept("model", CUSTOM_MODEL) or CUSTOM_MODEL
    return Settings(
        context_length=int(kept("context_length", DEFAULT_CONTEXT)),
        threshold_percent=round(float(kept("threshold_percent", 0.5)), 4),
        protect_first_n=int(kept("protect_first_n", 3)),
        protect_last_n=int(kept("protect_last_n", 20)),
        summary_target_ratio=round(float(kept("summary_target_ratio", 0.2)), 4),
        profile=str(kept("profile", DEFAULT_PROFILE)),
        max_tokens=int(kept("max_tokens", 0) or 0) or None,
        token_estimator=str(kept("token_estimator", "hermes")),
        model="" if model == CUSTOM_MODEL else str(model),
        abort_on_summary_failure=bool(kept("abort_on_summary_failure", False)),
        window_scale=float(kept("window_scale", 1.0) or 1.0),
        what_if_no_floor=bool(kept("what_if_no_floor", False)),
        # The analyses' summaries are the offline summary's: its strict switch is part of every key.
        strict_redaction=strict_redaction_for(OFFLINE_SUMMARIZER),
    )


def window_source(settings: Settings, transcript: Transcript | None = None) -> str:
    """Which window the analyses use and where it came from, in one line of Markdown."""
    model = settings.model
    table_window = model_window(model) if model else None
    if model and table_window == settings.context_length:
        where = f"{escape_markdown(model)}'s input window in litellm's model table"
    elif model and table_window:
        where = f"entered by hand (litellm's table gives {escape_markdown(model)} {table_window:,})"
    elif model:
        where = f"entered by hand ({escape_markdown(model)} is not in litellm's model table)"
    else:
        where = "entered by hand"
    config = settings.config()
    line = f"Window **{settings.context_length:,}** tokens, {where}."
    reserve = settings.max_tokens or 0
    table_reserve = model_output_limit(model) if model else None
    if reserve:
        source = "its output limit in litellm's table" if table_reserve == reserve else "entered by hand"
        line += f" Output reserve {reserve:,} ({source})."
    else:
        line += " No output reserve."
    recorded = (getattr(transcript.conversation, "metadata", None) or {}).get("model_context_window") if transcript else None
    if isinstance(recorded, int) and recorded != settings.context_length:
        line += f" The log records a window of {recorded:,}."
    words = what_if_words(settings.window_scale, settings.what_if_no_floor, settings.context_length,
                          config.context_length)
    line += f" Threshold {config.threshold_tokens:,} ({escape_markdown(config.profile)})."
    if words:
        line += f" **{escape_markdown(words)}**"
    return line


def source_line(transcript: Transcript, settings: Settings) -> str:
    """The conversation and the window in use, in one short line of Markdown (details in its help)."""
    config = settings.config()
    line = (f"{escape_markdown(transcript.filename)} · {escape_markdown(transcript.format)} · "
            f"{len(transcript.messages):,} messages · {escape_markdown(settings.model or 'custom window')} · "
            f"window {settings.context_length:,} · threshold {config.threshold_tokens:,} "
            f"({escape_markdown(config.profile)})")
    words = what_if_words(settings.window_scale, settings.what_if_no_floor, settings.context_length,
                          config.context_length)
    return line + (f" · **{escape_markdown(words)}**" if words else "")


def source_caption(transcript: Transcript) -> None:
    """One line: the conversation being analysed (file name as plain text) and the window in use, with
    where it came from in its help; a small button when the log names another model."""
    settings = current_settings()
    suggested = conversation_model(transcript)
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key="source-line"):
        st.caption(source_line(transcript, settings), width="content",
                   help=window_source(settings, transcript) + "\n\nChange the conversation on the Upload & overview page.")
        if suggested:
            named = str(getattr(transcript.conversation, "model", None) or "").strip()
            st.button(f"Use {suggested}", on_click=use_transcript_model, args=(suggested,), key="use_log_model",
                      type="tertiary", icon=":material/swap_horiz:",
                      help=f"The log was written with {named}: analyse with its window from litellm's table and no "
                           "output reserve (Hermes' default config.yaml sets none).")
    context_caption(transcript)


def context_caption(transcript: Transcript) -> None:
    """Which part of a log the agent compacted is shown (the context the model last saw, by default, or
    the full history), with the switch between them; for a Hermes log, that its handoff is already the
    live context; nothing for a log without any compaction."""
    conversation = transcript.conversation
    cut = conversation.last_compaction() if hasattr(conversation, "last_compaction") else None
    if cut is None:
        if any(event.kind.startswith("hermes-") for event in conversation.compaction_events):
            st.caption(escape_markdown(conversation.context_description()))
        return
    st.caption(escape_markdown(conversation.context_description()))
    st.toggle(
        f"Full history (before the agent's compaction at message {cut.position:,})",
        **keep(FULL_HISTORY_KEY, False),
        help="Off: every page analyses what the agent last sent, its summary and what followed (savings and costs "
             "start there). On: every message of the log, as if the agent had never compacted it.",
    )
