"""Read-only views over OpenAI-chat message dicts, shared by every layer.

One home for the questions every module asks of a message: its role, the text of its content,
whether a content part is an image, and what its tool calls are. The compressor's phases use
``content_text`` and ``is_image_part`` exactly as the reference defines them; the lenient
``call_view`` is for everything that only *describes* a conversation (analyses, importers,
summarizers, pages) and must never raise on malformed input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

IMAGE_PART_TYPES = frozenset({"image", "image_url", "input_image"})

# Terminal escape sequences (colours, cursor moves, window titles) that tool output often carries.
_ANSI_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][A-Za-z0-9]|[@-Z\\-_78=>])")


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences, for display (the message itself keeps them)."""
    return _ANSI_ESCAPE.sub("", text) if "\x1b" in text else text


def role_of(message: Any, default: Any = None) -> Any:
    """``message["role"]`` of a dict message (``default`` when absent or not a dict)."""
    return message.get("role", default) if isinstance(message, Mapping) else default


def is_image_part(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") in IMAGE_PART_TYPES


def content_has_images(content: Any) -> bool:
    return isinstance(content, list) and any(is_image_part(p) for p in content)


def content_text(content: Any) -> str:
    """The reference's text view of a content (summary detection, notes, facts).

    ``None`` is empty, a string is itself, a list keeps its bare strings and the string ``text`` of
    its dict parts (empty ones dropped) joined by newlines; anything else is ``str()``-ed.
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
            elif isinstance(part, Mapping):
                text = part.get("text")
                if isinstance(text, str) and text:
                    pieces.append(text)
        return "\n".join(pieces)
    return str(content)


def iterate_calls(calls: Any) -> list[Any]:
    """A ``tool_calls`` value as the releases loop over it: a list's items, a string's characters, a
    dict's keys (each then a call without fields); a value that cannot be iterated as one item."""
    try:
        return list(calls)
    except TypeError:
        return [calls]


def tool_calls_of(message: Any) -> list[Any]:
    """The ``tool_calls`` list of a message (``[]`` when absent or not a list)."""
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    return calls if isinstance(calls, list) else []


def call_id(call: Any) -> Any:
    """A tool call's id as the pair repair matches it: ``call_id`` (Responses API) before ``id``."""
    if isinstance(call, Mapping):
        return call.get("call_id") or call.get("id")
    return getattr(call, "call_id", None) or getattr(call, "id", None)


@dataclass(frozen=True)
class CallView:
    """A tool call reduced to three strings; ``arguments`` is JSON text when the call held a value."""

    id: str
    name: str
    arguments: str


def _as_arguments(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def call_view(call: Any, *, missing_name: str = "unknown") -> CallView:
    """``(id, name, arguments)`` of a dict or object tool call, never raising.

    The id is ``id`` (else ``call_id``); a missing, empty or non-string name is ``missing_name``;
    arguments given as a dict or list are serialised to JSON.
    """
    if isinstance(call, Mapping):
        function = call.get("function")
        identifier = call.get("id") or call.get("call_id") or ""
        if isinstance(function, Mapping):
            name, arguments = function.get("name"), function.get("arguments")
        else:
            name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    else:
        function = getattr(call, "function", None)
        identifier = getattr(call, "id", None) or getattr(call, "call_id", None) or ""
        name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    return CallView(
        id=str(identifier),
        name=name if isinstance(name, str) and name else missing_name,
        arguments=_as_arguments(arguments),
    )


def call_views(message: Any, *, missing_name: str = "unknown") -> list[CallView]:
    """``call_view`` of every tool call of a message."""
    return [call_view(call, missing_name=missing_name) for call in tool_calls_of(message)]


def counted_texts(messages: Sequence[Any], *, names: bool = True) -> list[str]:
    """Every text ``core.inspections.overview.message_frame`` counts: contents, text parts, tool-call
    arguments and (with ``names``) names (``core.tokens`` re-exports it). Without names: the texts a
    summary request masks (``core.phases.summary.redacted_turns``)."""
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    texts.append(part)
                elif isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            if not isinstance(call, dict):
                continue
            function = call.get("function")
            if isinstance(function, dict):
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    texts.append(arguments)
                name = function.get("name")
                if names and isinstance(name, str):
                    texts.append(name)
    return texts
