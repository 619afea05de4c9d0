"""How full the window is: a function the first page reads before any table library is loaded."""

from __future__ import annotations

__all__ = ["context_usage"]


def context_usage(total_tokens: int, context_length: int, threshold_tokens: int) -> dict[str, float | int | bool]:
    """How full the model's window is, and how far the conversation is from the compression threshold."""
    return {
        "tokens": int(total_tokens),
        "context_length": int(context_length),
        "threshold_tokens": int(threshold_tokens),
        "usage_share": total_tokens / context_length if context_length > 0 else 0.0,
        "threshold_share": threshold_tokens / context_length if context_length > 0 else 0.0,
        "over_threshold": total_tokens >= threshold_tokens,
        "over_window": total_tokens > context_length,
    }
