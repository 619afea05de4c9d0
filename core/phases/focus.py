"""v0.17.0+: the focus topic of an automatic compaction, taken from the last real user turns.

When ``compress()`` gets no focus topic, these releases quote the last three user messages that
are not handoff summaries (whitespace collapsed, redacted, each cut to 260 characters, the whole
to 700) as ``Recent user focus:`` lines, and the summary prompt prioritises them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core import profiles as P
from core.message_view import content_text

ELLIPSIS = "…"  # U+2026, one code point


def derive_auto_focus(
    messages: Sequence[Any], is_summary: Callable[[Any], bool], redact: Callable[[Any], Any]
) -> str | None:
    """The focus string, or None when no user message has text.

    ``messages`` is the whole Phase-1 list (head, window and tail); ``is_summary`` the profile's
    handoff detection; ``redact`` the profile's redaction, applied after stripping and before the
    emptiness test.
    """
    candidates: list[str] = []
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if is_summary(content):
            continue
        text = redact(content_text(content).strip())
        if not text:
            continue
        text = " ".join(text.split())
        if len(text) > P.AUTO_FOCUS_TURN_MAX_CHARS:
            text = text[: P.AUTO_FOCUS_TURN_MAX_CHARS - 1].rstrip() + ELLIPSIS
        candidates.append(text)
        if len(candidates) >= P.AUTO_FOCUS_MAX_TURNS:
            break
    if not candidates:
        return None
    focus = P.AUTO_FOCUS_HEADER + "\n" + "\n".join("- " + text for text in reversed(candidates))
    if len(focus) > P.AUTO_FOCUS_MAX_CHARS:
        focus = focus[: P.AUTO_FOCUS_MAX_CHARS - 1].rstrip() + ELLIPSIS
    return focus
