"""Headline figures of a conversation: exact tokens by role, by tool and by category.

Pure functions over OpenAI-chat message dicts; the messages are only read.

Categories split every message's exact tiktoken count into what it is made of:
``system`` (system and developer messages), ``user text``, ``assistant text``, ``tool calls``
(the names and arguments an assistant sends), ``tool results`` and ``images``. The few tokens of
per-message framing go to the message's own text category, so the categories add up to the total.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from core.inspections.usage import context_usage  # noqa: F401  (its home is light: no pandas)
from core.message_view import content_text, strip_ansi
from core.tokens import TokenCounter, counted_texts

CATEGORIES: tuple[str, ...] = (
    "system",
    "user text",
    "assistant text",
    "tool calls",
    "tool results",
    "images",
)

# Column names in the message frame, one per category.
CATEGORY_COLUMNS: dict[str, str] = {
    "system": "system_tokens",
    "user text": "user_text_tokens",
    "assistant text": "assistant_text_tokens",
    "tool calls": "tool_call_tokens",
    "tool results": "tool_result_tokens",
    "images": "image_tokens",
}

PREVIEW_CHARS = 160
NO_TOOL = ""


def _role(message: Any) -> str:
    if isinstance(message, dict):
        role = message.get("role")
        return role if isinstance(role, str) and role else "unknown"
    return "unknown"


def _calls(message: Any) -> list[dict[str, Any]]:
    if not isinstance(message, dict):
        return []
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [call for call in calls if isinstance(call, dict)]


def _call_name(call: dict[str, Any]) -> str:
    function = call.get("function")
    if isinstance(function, dict):
        name = function.get("name")
        if isinstance(name, str) and name:
            return name
    return "unknown"


def _call_arguments(call: dict[str, Any]) -> str:
    function = call.get("function")
    if not isinstance(function, dict):
        return ""
    arguments = function.get("arguments", "")
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(arguments)


def tool_names_by_call_id(messages: Sequence[Any]) -> dict[str, str]:
    """``tool_call_id -> tool name`` over every assistant tool call (later ids win, as in Phase 1)."""
    names: dict[str, str] = {}
    for message in messages:
        for call in _calls(message):
            call_id = call.get("id")
            if isinstance(call_id, str) and call_id:
                names[call_id] = _call_name(call)
    return names


def message_tool(message: Any, call_names: dict[str, str]) -> str:
    """The tool a message is about: the tools an assistant calls, or the tool a result answers."""
    if not isinstance(message, dict):
        return NO_TOOL
    role = _role(message)
    if role == "assistant":
        names = list(dict.fromkeys(_call_name(call) for call in _calls(message)))
        return ", ".join(names)
    if role in ("tool", "function"):
        call_id = message.get("tool_call_id")
        if isinstance(call_id, str) and call_id in call_names:
            return call_names[call_id]
        name = message.get("name")
        return name if isinstance(name, str) and name else "unknown"
    return NO_TOOL


def message_text(message: Any) -> str:
    """Everything readable in one message: its text, then each tool call as ``name(arguments)``.

    Terminal escape codes (colours in tool output) are left out: this is the display text; the
    message itself keeps them.
    """
    if not isinstance(message, dict):
        return str(message)
    pieces = []
    text = content_text(message.get("content"))
    if text:
        pieces.append(text)
    if isinstance(message.get("content"), list):
        images = sum(
            1
            for part in message["content"]
            if isinstance(part, dict) and part.get("type") in ("image", "image_url", "input_image")
        )
        if images:
            pieces.append(f"[{images} image{'s' if images > 1 else ''}]")
    for call in _calls(message):
        pieces.append(f"{_call_name(call)}({_call_arguments(call)})")
    return strip_ansi("\n".join(pieces))


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """One line of at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def text_category(role: str) -> str:
    """The category a message's own text counts under, by its role."""
    if role in ("system", "developer"):
        return "system"
    if role == "assistant":
        return "assistant text"
    if role in ("tool", "function"):
        return "tool results"
    return "user text"


def _warm_counter(messages: Sequence[Any], counter: TokenCounter) -> None:
    """Encode every distinct text once, in one batch (later per-message counts hit the cache)."""
    counter.count_texts(counted_texts(messages))


def message_frame(
    messages: Sequence[Any],
    counter: TokenCounter,
    *,
    sources: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One row per message: index, role, tool, exact tokens (total and per category), preview.

    Columns: ``index``, ``role``, ``tool``, ``tokens``, one ``*_tokens`` column per category
    (see ``CATEGORY_COLUMNS``), ``preview``, ``text`` (the full readable text, for searching)
    and ``source`` (where the message sits in the uploaded file, when the importer said so).
    """
    _warm_counter(messages, counter)
    call_names = tool_names_by_call_id(messages)
    rows = []
    for index, message in enumerate(messages):
        role = _role(message)
        parts = counter.message_parts(message)
        by_category = dict.fromkeys(CATEGORIES, 0)
        by_category[text_category(role)] += parts["text"] + parts["overhead"]
        by_category["tool calls"] += parts["tool_calls"]
        by_category["images"] += parts["images"]
        text = message_text(message)
        row: dict[str, Any] = {
            "index": index,
            "role": role,
            "tool": message_tool(message, call_names),
            "tokens": sum(parts.values()),
        }
        for category, column in CATEGORY_COLUMNS.items():
            row[column] = by_category[category]
        row["preview"] = preview(text)
        row["text"] = text
        row["source"] = sources[index] if sources is not None and index < len(sources) else ""
        rows.append(row)
    columns = ["index", "role", "tool", "tokens", *CATEGORY_COLUMNS.values(), "preview", "text", "source"]
    frame = pd.DataFrame(rows, columns=columns)
    int_columns = ["index", "tokens", *CATEGORY_COLUMNS.values()]
    frame[int_columns] = frame[int_columns].astype("int64")
    return frame


def tokens_by_role(frame: pd.DataFrame) -> pd.DataFrame:
    """``role, messages, tokens, share`` sorted by tokens (largest first)."""
    grouped = frame.groupby("role", sort=False).agg(messages=("index", "size"), tokens=("tokens", "sum"))
    return _with_share(grouped.reset_index().sort_values("tokens", ascending=False, kind="stable"))


def tokens_by_category(frame: pd.DataFrame) -> pd.DataFrame:
    """``category, tokens, share`` in the fixed category order (zero rows kept, so charts stay stable)."""
    rows = [{"category": c, "tokens": int(frame[CATEGORY_COLUMNS[c]].sum())} for c in CATEGORIES]
    return _with_share(pd.DataFrame(rows, columns=["category", "tokens"]))


def tokens_by_tool(messages: Sequence[Any], counter: TokenCounter) -> pd.DataFrame:
    """``tool, calls, call_tokens, result_tokens, tokens, share`` per tool name, largest first.

    Call tokens are each call's name and arguments (a message calling two tools is split
    between them); result tokens are the whole tool message answering the call.
    """
    call_names = tool_names_by_call_id(messages)
    stats: dict[str, dict[str, int]] = {}

    def entry(name: str) -> dict[str, int]:
        return stats.setdefault(name, {"calls": 0, "call_tokens": 0, "result_tokens": 0})

    for message in messages:
        role = _role(message)
        if role == "assistant":
            for call in _calls(message):
                item = entry(_call_name(call))
                item["calls"] += 1
                item["call_tokens"] += counter.count_text(_call_arguments(call)) + counter.count_text(
                    _call_name(call)
                )
        elif role in ("tool", "function"):
            item = entry(message_tool(message, call_names) or "unknown")
            item["result_tokens"] += counter.count_message(message)
    rows = [
        {"tool": name, **values, "tokens": values["call_tokens"] + values["result_tokens"]}
        for name, values in stats.items()
    ]
    table = pd.DataFrame(rows, columns=["tool", "calls", "call_tokens", "result_tokens", "tokens"])
    table = table.sort_values(["tokens", "tool"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return _with_share(table)


def _with_share(table: pd.DataFrame) -> pd.DataFrame:
    table = table.reset_index(drop=True)
    total = int(table["tokens"].sum()) if len(table) else 0
    table["share"] = table["tokens"] / total if total else 0.0
    return table


def filter_messages(frame: pd.DataFrame, query: str, roles: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows whose text, tool or role contains ``query`` (case-insensitive), optionally of given roles."""
    result = frame
    if roles:
        result = result[result["role"].isin(list(roles))]
    needle = (query or "").strip().lower()
    if needle:
        haystack = (result["text"] + "\n" + result["tool"] + "\n" + result["role"]).str.lower()
        result = result[haystack.str.contains(needle, regex=False)]
    return result
