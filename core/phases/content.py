"""Small views over message content shared by every phase."""

from __future__ import annotations

from typing import Any

from core import profiles as P

IMAGE_PART_TYPES = frozenset({"image", "image_url", "input_image"})


def is_image_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES


def content_has_images(content: Any) -> bool:
    return isinstance(content, list) and any(is_image_part(p) for p in content)


def content_text(content: Any) -> str:
    """The text view used to recognise summaries and notes.

    Lists keep their bare strings and the string ``text`` of dict parts (empty ones dropped),
    joined by newlines; anything else that is not a string is ``str()``-ed.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                if part:
                    pieces.append(part)
            elif isinstance(part, dict):
                text = part.get("text")
                if isinstance(text, str) and text:
                    pieces.append(text)
        return "\n".join(pieces)
    return str(content)


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


def role_of(message: Any, default: Any = None) -> Any:
    return message.get("role", default) if isinstance(message, dict) else default
