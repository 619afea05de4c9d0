"""The reference's per-message weight in the budget walks (Phase 1's prune boundary, Phase 2's tail)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core import profiles as P
from core.message_view import IMAGE_PART_TYPES
from core.repr_length import repr_len

__all__ = [
    "BUDGET_WEIGHTS",
    "content_length_for_budget",
    "message_budget_tokens",
    "message_envelope_tokens",
    "message_envelope_replay_tokens",
    "tool_call_arguments",
]


def _safe_len(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        # The reference raises here (e.g. a numeric ``text``); count the printed form instead.
        return len(str(value))


def content_length_for_budget(content: Any) -> int:
    """Characters a message's content weighs in the tail walks (images count 6,400)."""
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        total = 0
        for part in content:
            if isinstance(part, str):
                total += len(part)
            elif not isinstance(part, dict):
                total += len(str(part))
            elif part.get("type") in IMAGE_PART_TYPES:
                total += P.IMAGE_CHAR_EQUIVALENT
            else:
                total += _safe_len(part.get("text", "") or "")
        return total
    return len(str(content or ""))


def tool_call_arguments(call: Any) -> Any:
    """``function.arguments`` of a dict tool call (``""`` when absent)."""
    function = call.get("function", {})
    if not isinstance(function, dict):
        return ""
    return function.get("arguments", "")


def message_budget_tokens(message: Any) -> int:
    """The reference's per-message weight in the prune and tail walks.

    ``content_len // 4 + 10`` plus ``len(arguments) // 4`` for each dict tool call.
    """
    if not isinstance(message, dict):
        return len(str(message)) // P.CHARS_PER_TOKEN + P.MESSAGE_OVERHEAD_TOKENS
    tokens = content_length_for_budget(message.get("content")) // P.CHARS_PER_TOKEN + P.MESSAGE_OVERHEAD_TOKENS
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict):
            tokens += _safe_len(tool_call_arguments(call)) // P.CHARS_PER_TOKEN
    return tokens



def message_envelope_tokens(message: Any) -> int:
    """v0.18.0's weight: ``content_len // 4 + 10`` plus ``len(str(call)) // 4`` for each dict tool call.

    ``str(call)`` is the Python repr of the whole call dict (id, type, function, any extra key),
    floor-divided per call.
    """
    if not isinstance(message, dict):
        return len(str(message)) // P.CHARS_PER_TOKEN + P.MESSAGE_OVERHEAD_TOKENS
    tokens = content_length_for_budget(message.get("content")) // P.CHARS_PER_TOKEN + P.MESSAGE_OVERHEAD_TOKENS
    for call in message.get("tool_calls") or ():
        if isinstance(call, dict):
            tokens += repr_len(call) // P.CHARS_PER_TOKEN
    return tokens


# One encoder for the replay fields (``json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)``).
_REPLAY_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str)


def replay_field_length(value: Any) -> int:
    """v0.18.1: the characters one provider replay field weighs (0 for None and "")."""
    if value is None or (isinstance(value, str) and not value):
        return 0
    if isinstance(value, str):
        return len(value)
    try:
        return len(_REPLAY_ENCODER.encode(value))
    except (TypeError, ValueError):  # e.g. sort_keys on a dict mixing int and str keys
        return len(str(value))
    except RecursionError:  # the reference raises on such depth; weigh the repr it can still print
        return repr_len(value)


def message_envelope_replay_tokens(message: Any) -> int:
    """v0.18.1's weight: the v0.18.0 envelope plus ``len // 4`` of each provider replay field, on every role."""
    tokens = message_envelope_tokens(message)
    if isinstance(message, dict):
        for key in P.REPLAY_FIELDS:
            value = message.get(key)
            if value is not None:
                tokens += replay_field_length(value) // P.CHARS_PER_TOKEN
    return tokens


# A profile's ``budget_weight`` names one of these: the per-message weight of the budget walks.
BUDGET_WEIGHTS: dict[str, Callable[[Any], int]] = {
    "arguments": message_budget_tokens,
    "envelope": message_envelope_tokens,
    "envelope-replay": message_envelope_replay_tokens,
}
# What each weight counts, in words (the release comparison says so when a release changed it).
BUDGET_WEIGHT_SUMMARIES: dict[str, str] = {
    "arguments": "counts each tool call's arguments in the tail budget",
    "envelope": "counts each tool call's whole envelope (id, type, name and arguments) in the tail budget, so the "
                "same budget holds fewer messages",
    "envelope-replay": "counts each tool call's whole envelope and the provider replay fields (reasoning, Codex "
                       "items) in the tail budget, so the same budget holds fewer messages",
}
