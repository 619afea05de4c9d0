"""The compressed conversation next to the original: per-message origins, a side-by-side table and diffs.

Alignment comes from ``CompressionResult.origins`` (which input message each output message came
from), so a kept message lines up with itself even when Phase 1 rewrote it; ``difflib`` then shows
what changed inside it.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from core.compressor import CompressionResult
from core.inspections.overview import message_text, message_tool, preview, tool_names_by_call_id
from core.tokens import TokenCounter


@dataclass
class PreviewMessage:
    position: int  # index in the compressed conversation
    role: str
    kind: str  # head, summary, tail or stub
    source_index: int | None
    badges: list[str]
    text: str


def _role(message: Any) -> str:
    role = message.get("role") if isinstance(message, dict) else None
    return role if isinstance(role, str) and role else "unknown"


def preview_messages(result: CompressionResult) -> list[PreviewMessage]:
    """The compressed conversation, each message with where it came from and its badges.

    When the compressor returned early (too small, nothing to compress, aborted) there are no
    origins: every message is shown as kept, with the Phase-1 actions it went through.
    """
    out: list[PreviewMessage] = []
    origins = result.assembly.origins if result.assembly is not None else []
    if origins and len(origins) == len(result.messages):
        for position, (message, origin) in enumerate(zip(result.messages, origins, strict=True)):
            out.append(
                PreviewMessage(position, _role(message), origin.kind, origin.source_index, list(origin.badges),
                               message_text(message))
            )
        return out
    for position, message in enumerate(result.messages):
        badges = ["KEPT", *result.plan.phase1_actions.get(position, [])]
        out.append(PreviewMessage(position, _role(message), "kept", position, badges, message_text(message)))
    return out


DIFF_COLUMNS = ["before #", "before role", "before tokens", "before", "change", "after #", "after role",
                "after tokens", "after", "zone", "tool", "changed"]


def side_by_side(original: Sequence[Any], result: CompressionResult, width: int | None = None,
                 counter: TokenCounter | None = None) -> pd.DataFrame:
    """One row per input message (and per added message), original on the left, result on the right.

    Columns (``DIFF_COLUMNS``): ``before #``, ``before role``, ``before tokens``, ``before``,
    ``change``, ``after #``, ``after role``, ``after tokens``, ``after``, ``zone`` (HEAD, MIDDLE,
    TAIL, SUMMARY, STUB or KEPT), ``tool`` and ``changed`` (anything but ``unchanged``). The text
    columns hold the whole readable text, or one line of ``width`` characters when given; the token
    columns are exact counts with ``counter`` (empty without one). ``change`` is ``unchanged``,
    ``changed (<badges>)``, ``summarised``, ``removed (orphan result)``, ``added (summary)`` or
    ``added (stub)``.
    """
    items = preview_messages(result)
    by_source = {item.source_index: item for item in items if item.source_index is not None}
    rows: list[dict[str, Any]] = []
    start = result.plan.compress_start if result.compressed else None
    end = result.plan.compress_end if result.compressed else None
    added = [item for item in items if item.source_index is None]
    added_at_start = [item for item in added if item.kind == "summary"]
    stubs_after: dict[int, list[PreviewMessage]] = {}
    for item in added:
        if item.kind == "stub":
            # A stub follows the assistant whose result went missing: attach it after that row.
            anchor = next((p for p in reversed(items[: item.position]) if p.source_index is not None), None)
            stubs_after.setdefault(anchor.source_index if anchor else -1, []).append(item)
    before_tools = _tools(original)
    after_tools = _tools(result.messages)

    def shown(text: str) -> str:
        return text if width is None else preview(text, width)

    def tokens(message: Any) -> int | None:
        return counter.count_message(message) if counter is not None else None

    def after_cells(item: PreviewMessage | None) -> dict[str, Any]:
        if item is None:
            return {"after #": None, "after role": "", "after tokens": None, "after": ""}
        return {"after #": item.position, "after role": item.role,
                "after tokens": tokens(result.messages[item.position]), "after": shown(item.text)}

    def empty_before() -> dict[str, Any]:
        return {"before #": None, "before role": "", "before tokens": None, "before": ""}

    def zone_of(index: int) -> str:
        if start is None or end is None:
            return "KEPT"
        return "HEAD" if index < start else "MIDDLE" if index < end else "TAIL"

    for index, message in enumerate(original):
        if start is not None and index == start:
            for item in added_at_start:
                rows.append({**empty_before(), "change": "added (summary)", **after_cells(item), "zone": "SUMMARY",
                             "tool": ""})
        item = by_source.get(index)
        before = {"before #": index, "before role": _role(message), "before tokens": tokens(message),
                  "before": shown(message_text(message))}
        if item is None:
            if start is not None and end is not None and start <= index < end:
                change = "summarised"
            else:
                change = "removed (orphan result)"
            rows.append({**before, "change": change, **after_cells(None), "zone": zone_of(index),
                         "tool": before_tools[index]})
        else:
            extra = [b for b in item.badges if b not in ("HEAD", "TAIL", "KEPT")]
            same = result.messages[item.position] == message
            change = "unchanged" if same and not extra else "changed" + (f" ({', '.join(extra)})" if extra else "")
            rows.append({**before, "change": change, **after_cells(item), "zone": zone_of(index),
                         "tool": before_tools[index] or after_tools[item.position]})
        for stub in stubs_after.get(index, []):
            rows.append({**empty_before(), "change": "added (stub)", **after_cells(stub), "zone": "STUB",
                         "tool": after_tools[stub.position]})
    table = pd.DataFrame(rows, columns=DIFF_COLUMNS)
    for column in ("before #", "after #", "before tokens", "after tokens"):
        table[column] = table[column].astype("Int64")
    table["changed"] = table["change"] != "unchanged"
    return table


PREVIEW_COLUMNS = ["#", "role", "zone", "badges", "tool", "tokens", "text", "input #", "changed"]


def preview_table(result: CompressionResult, counter: TokenCounter | None = None,
                  original: Sequence[Any] | None = None) -> pd.DataFrame:
    """The compressed conversation as a table: one row per output message.

    Columns (``PREVIEW_COLUMNS``): ``#`` (output position), ``role``, ``zone`` (HEAD, SUMMARY,
    TAIL, STUB or KEPT), ``badges`` (comma-separated), ``tool``, ``tokens`` (exact, with
    ``counter``), ``text`` (the whole readable text), ``input #`` (the input message it came from)
    and ``changed`` (added, or different from that input message; needs ``original``).
    """
    tools = _tools(result.messages)
    rows = []
    for item in preview_messages(result):
        message = result.messages[item.position]
        if item.source_index is None:
            changed = True
        elif original is not None and item.source_index < len(original):
            changed = original[item.source_index] != message
        else:
            changed = any(b not in ("HEAD", "TAIL", "KEPT") for b in item.badges)
        rows.append({
            "#": item.position, "role": item.role, "zone": item.kind.upper(),
            "badges": ", ".join(item.badges), "tool": tools[item.position],
            "tokens": counter.count_message(message) if counter is not None else None,
            "text": item.text, "input #": item.source_index, "changed": changed,
        })
    table = pd.DataFrame(rows, columns=PREVIEW_COLUMNS)
    for column in ("#", "tokens", "input #"):
        table[column] = table[column].astype("Int64")
    return table


def filter_rows(table: pd.DataFrame, *, query: str = "", roles: Sequence[str] = (), zones: Sequence[str] = (),
                tools: Sequence[str] = (), changed_only: bool = False,
                text_columns: Sequence[str] = ("text",), role_columns: Sequence[str] = ("role",)) -> pd.DataFrame:
    """The rows of a preview or diff table that match every filter given.

    ``query`` is a case-insensitive substring of any text column or the tool; ``roles`` match any
    role column; ``tools`` match a tool name in the (comma-separated) ``tool`` column.
    """
    mask = pd.Series(True, index=table.index)
    if roles:
        wanted = set(roles)
        mask &= pd.concat([table[c].isin(wanted) for c in role_columns], axis=1).any(axis=1)
    if zones:
        mask &= table["zone"].isin(list(zones))
    if tools:
        wanted_tools = set(tools)
        mask &= table["tool"].map(lambda value: bool(wanted_tools & set(_split_tools(value))))
    if changed_only:
        mask &= table["changed"].astype(bool)
    needle = (query or "").strip().lower()
    if needle:
        haystack = table["tool"].fillna("").astype(str)
        for column in text_columns:
            haystack = haystack + "\n" + table[column].fillna("").astype(str)
        mask &= haystack.str.lower().str.contains(needle, regex=False)
    return table[mask]


def tool_names(table: pd.DataFrame) -> list[str]:
    """Every tool name in a preview or diff table's ``tool`` column, sorted."""
    return sorted({name for value in table["tool"] for name in _split_tools(value)})


def _split_tools(value: Any) -> list[str]:
    return [name.strip() for name in str(value or "").split(",") if name.strip()]


def _tools(messages: Sequence[Any]) -> list[str]:
    call_names = tool_names_by_call_id(messages)
    return [message_tool(message, call_names) for message in messages]


def message_diff(before: Any, after: Any, *, context: int = 2) -> str:
    """A unified diff of two messages' readable text ("" when they read the same)."""
    lines = difflib.unified_diff(
        message_text(before).splitlines(),
        message_text(after).splitlines(),
        fromfile="before",
        tofile="after",
        lineterm="",
        n=context,
    )
    return "\n".join(lines)


def changed_pairs(original: Sequence[Any], result: CompressionResult) -> list[tuple[int, int]]:
    """``(input index, output position)`` of kept messages whose content differs from the original."""
    pairs = []
    for item in preview_messages(result):
        if item.source_index is None or item.source_index >= len(original):
            continue
        if result.messages[item.position] != original[item.source_index]:
            pairs.append((item.source_index, item.position))
    return pairs
