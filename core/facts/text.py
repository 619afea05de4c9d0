"""The text of a message that facts are read from, and the checks on what a caller passes in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from core.message_view import call_views, content_text

SUMMARY_MARKERS = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")


def is_summary_text(text: str) -> bool:
    """Whether ``text`` is a handoff summary (either reference prefix)."""
    return text.lstrip().startswith(SUMMARY_MARKERS)


def string_leaves(value: Any) -> Iterator[str]:
    """Every string inside a parsed JSON value, depth first, in document order."""
    if isinstance(value, str):
        yield value
        return
    if isinstance(value, dict) and all(isinstance(item, str) for item in value.values()):
        yield from value.values()  # the common flat object, without the walk
        return
    stack = [value]
    while stack:  # iterative: tool output may nest thousands of levels deep
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, (dict, Mapping)):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def parse_json_container(text: str) -> Any | None:
    """The parsed value when ``text`` is a JSON object or array, else None. The value may be shared
    with another caller that parsed the same text just before: read it, do not change it."""
    if not text or text.lstrip()[:1] not in ("[", "{"):
        return None
    return _parse_container(text)


# Small: the same arguments or result are parsed by the fact extraction and the summarizer's reader in turn.
@lru_cache(maxsize=64)
def _parse_container(text: str) -> Any | None:
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, (dict, list)) else None


def text_pieces(text: str) -> list[str]:
    """The pieces of ``text`` that facts are read from: the decoded string values of a JSON
    document (tool results are often JSON with escaped newlines), else the text itself."""
    if not text:
        return []
    if text.lstrip()[:1] not in ("[", "{"):
        return [text]
    return list(_json_pieces(text))


# Small: one tool result is decoded by the fact extraction and by the summarizer's reader in turn.
@lru_cache(maxsize=64)
def _json_pieces(text: str) -> tuple[str, ...]:
    parsed = parse_json_container(text)
    if parsed is None:
        return (text,)
    return tuple(leaf for leaf in string_leaves(parsed) if leaf)


def tool_call_arguments(message: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(name, arguments string) of each tool call of a message."""
    return [(view.name, view.arguments) for view in call_views(message, missing_name="")]


def message_text(message: Mapping[str, Any]) -> str:
    """Everything of one message a reader could find a fact in: its content text, its tool-call
    names and arguments, and the decoded string values of any JSON among them (so a value read
    out of escaped JSON is found again)."""
    check_message(message, None)
    blocks: list[str] = []
    text = content_text(message.get("content"))
    if text:
        blocks.append(text)
        parsed = parse_json_container(text)
        if parsed is not None:
            blocks.extend(leaf for leaf in string_leaves(parsed) if leaf)
    for name, arguments in tool_call_arguments(message):
        blocks.append(f"{name}({arguments})")
        parsed = parse_json_container(arguments)
        if parsed is not None:
            blocks.extend(leaf for leaf in string_leaves(parsed) if leaf)
    return "\n".join(blocks)


def searchable_text(
    messages: Sequence[Mapping[str, Any]], text_of: Callable[[Mapping[str, Any]], str] | None = None
) -> str:
    """The concatenated ``message_text`` of all messages (``text_of``: a reader that has some of those
    texts already, giving what ``message_text`` gives)."""
    check_messages(messages)
    return "\n".join((text_of or message_text)(message) for message in messages)


def check_message(message: Any, index: int | None) -> None:
    if not isinstance(message, Mapping):
        where = f"message {index}" if index is not None else "a message"
        raise TypeError(f"{where} must be a dict with a 'role', got {type(message).__name__}")


def check_messages(messages: Any) -> None:
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError(f"messages must be a list of message dicts, got {type(messages).__name__}")
    for index, message in enumerate(messages):
        check_message(message, index)
