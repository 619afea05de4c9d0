"""One place that builds a summarizer from a choice: the dashboard, the command line and the batch use it.

Kinds: ``extractive`` (the offline summary, the default wherever no model is configured),
``litellm`` (a model through litellm, with an optional separate summary model), ``server`` (an
OpenAI-compatible server on 127.0.0.1, e.g. the local model the caller started: capped output, no
key needed), ``failing`` (a provider that fails every call in one of ``FAILURE_MODES``' ways, to see
what each release does then) and ``none`` (no summarizer: the profile's fallback path). Heavy modules
(litellm) are imported only when a kind needs them.
"""

from __future__ import annotations

from typing import Any

from core.summarizers.local import LOCAL_MAX_TOKENS_CAP

__all__ = ["DEFAULT_SUMMARIZER", "LOCAL_MAX_TOKENS_CAP", "SUMMARIZER_KINDS", "make_summarizer", "resolve_summarizer"]

SUMMARIZER_KINDS: tuple[str, ...] = ("extractive", "litellm", "server", "failing", "none")
# The local server checks no key, but litellm's OpenAI client insists on one.
_LOCAL_KEY = "local-no-key"
_LOCAL_CAP: Any = object()  # "the local model's cap"

#: "The offline extractive summary": the default of the analyses wherever no model is configured
#: (``None`` already means "no summarizer", the profile's fallback path).
DEFAULT_SUMMARIZER: Any = object()


def resolve_summarizer(summarizer: Any) -> Any:
    """``summarizer`` itself, or a fresh extractive summarizer for ``DEFAULT_SUMMARIZER``."""
    return make_summarizer("extractive") if summarizer is DEFAULT_SUMMARIZER else summarizer


def make_summarizer(
    kind: str,
    *,
    model: str | None = None,
    summary_model: str | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    max_tokens_cap: Any = _LOCAL_CAP,
    failure: str = "timeout",
) -> Any:
    """The summarizer of ``kind`` (``None`` for ``"none"``).

    Args:
        model: The main model (litellm name); for ``server``, the server's model alias.
        summary_model: A separate model for summaries (``litellm`` only); the main one on failure.
        api_base: The endpoint (``server``: required).
        api_key: The key, held in memory only.
        timeout: The deadline of one summary call, retries included (seconds).
        max_retries: Retries within that deadline (``server``: 0 unless given).
        max_tokens_cap: ``server`` only: the completion length requested at most (the local model's cap
            unless given; None for none).
        failure: ``failing`` only: how every call fails (a key of ``core.summarizers.failing.FAILURE_MODES``).
    """
    if kind == "none":
        return None
    if kind == "extractive":
        from core.summarizers.extractive import ExtractiveSummarizer

        return ExtractiveSummarizer()
    if kind == "failing":
        from core.summarizers.failing import FailingSummarizer

        return FailingSummarizer(failure)
    if kind not in ("litellm", "server"):
        raise ValueError(f"unknown summarizer {kind!r}; expected one of {', '.join(SUMMARIZER_KINDS)}")
    from core.summarizers.llm import DEFAULT_TIMEOUT_S, LiteLLMSummarizer

    deadline = DEFAULT_TIMEOUT_S if timeout is None else timeout
    if kind == "server":
        # A server that timed out is not faster the second time, and the bundled CPU model takes
        # minutes to fill the compressor's max_tokens: no retries unless asked, output capped.
        return LiteLLMSummarizer(
            model, api_base=api_base, api_key=api_key or _LOCAL_KEY, timeout=deadline, max_retries=max_retries or 0,
            max_tokens_cap=LOCAL_MAX_TOKENS_CAP if max_tokens_cap is _LOCAL_CAP else max_tokens_cap,
        )
    options: dict[str, Any] = {"timeout": deadline}
    if max_retries is not None:
        options["max_retries"] = max_retries
    return LiteLLMSummarizer(model or None, summary_model=summary_model or None, api_base=api_base or None,
                             api_key=api_key, **options)
