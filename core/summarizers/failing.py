"""A summarizer that fails the way real providers fail, to see what each Hermes release does then.

Each :class:`FailureMode` raises what a provider's client raises for one kind of failure (the class
name, ``status_code`` and message a litellm / OpenAI client error carries), or answers with nothing.
Which cooldown follows, whether the release falls back or aborts, and whether it keeps aborting, is
then decided by the compressor exactly as for a real provider (``core.phases.failures``). Used by the
failure simulation on the Compress, Release comparison and Timeline pages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FAILURE_MODES", "FailingSummarizer", "FailureMode"]


def _error(class_name: str, message: str, status: int | None = None) -> Callable[[], BaseException]:
    """A builder of an exception named like the client's, with its status."""
    def build() -> BaseException:
        kind = type(class_name, (Exception,), {})
        error = kind(message)
        if status is not None:
            error.status_code = status  # type: ignore[attr-defined]
        return error

    return build


@dataclass(frozen=True)
class FailureMode:
    """One way a summary call fails."""

    key: str
    label: str  # for a picker
    raises: Callable[[], BaseException] | None  # None: the provider answers with empty text


FAILURE_MODES: dict[str, FailureMode] = {mode.key: mode for mode in (
    FailureMode("no-provider", "No provider configured",
                lambda: RuntimeError("No LLM provider configured for task=compression provider=auto.")),
    FailureMode("rate-limit", "Rate limited (429)", _error("RateLimitError", "Error code: 429 - rate limited", 429)),
    FailureMode("timeout", "Timed out", _error("APITimeoutError", "Request timed out.")),
    FailureMode("connection", "Connection refused", _error("APIConnectionError", "Connection error: connection refused")),
    FailureMode("quota", "Quota exhausted (insufficient_quota)",
                _error("APIError", "You exceeded your current quota, please check your plan and billing details "
                                   "(insufficient_quota)")),
    FailureMode("payment", "Payment required (402)", _error("APIError", "Error code: 402 - payment required", 402)),
    FailureMode("auth", "Invalid API key (401)", _error("AuthenticationError", "Error code: 401 - invalid api key", 401)),
    FailureMode("server", "Server error (500)", _error("InternalServerError", "Error code: 500 - upstream error", 500)),
    FailureMode("empty", "Empty answer", None),
)}


class FailingSummarizer:
    """``fn(prompt, max_tokens)`` that fails every call as ``mode`` says (``calls`` counts them)."""

    def __init__(self, mode: str) -> None:
        try:
            self.mode = FAILURE_MODES[mode]
        except KeyError:
            raise ValueError(f"unknown failure {mode!r}; expected one of {', '.join(FAILURE_MODES)}") from None
        self.calls = 0

    def __call__(self, prompt: str, max_tokens: int | None) -> str:
        self.calls += 1
        if self.mode.raises is None:
            return ""
        raise self.mode.raises()
