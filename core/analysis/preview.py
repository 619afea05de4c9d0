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

from core.analysis.overview import message_text, preview
from core.compressor import CompressionResult


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
    if result.origins and len(result.origins) == len(result.messages):
        for position, (message, origin) in enumerate(zip(result.messages, result.origins, strict=True)):
            out.append(
                PreviewMessage(position, _role(message), origin.kind, origin.source_index, list(origin.badges),
                               message_text(message))
            )
        return out
    for position, message in enumerate(result.messages):
        badges = ["KEPT", *result.phase1_actions.get(position, [])]
        out.append(PreviewMessage(position, _role(message), "kept", position, badges, message_text(message)))
    return out


def side_by_side(original: Sequence[Any], result: CompressionResult, width: int = 90) -> pd.DataFrame:
    """One row per input message (and per added message), original on the left, result on the right.

    Columns: ``before #``, ``before role``, ``before``, ``change``, ``after #``, ``after role``, ``after``.
    ``change`` is ``unchanged``, ``changed (<badges>)``, ``summarised``, ``removed (orphan result)``,
    ``added (summary)`` or ``added (stub)``.
    """
    items = preview_messages(result)
    by_source = {item.source_index: item for item in items if item.source_index is not None}
    rows: list[dict[str, Any]] = []
    start = result.compress_start if result.compressed else None
    end = result.compress_end if result.compressed else None
    added = [item for item in items if item.source_index is None]
    added_at_start = [item for item in added if item.kind == "summary"]
    stubs_after: dict[int, list[PreviewMessage]] = {}
    for item in added:
        if item.kind == "stub":
            # A stub follows the assistant whose result went missing: attach it after that row.
            anchor = next((p for p in reversed(items[: item.position]) if p.source_index is not None), None)
            stubs_after.setdefault(anchor.source_index if anchor else -1, []).append(item)

    def after_cells(item: PreviewMessage | None) -> dict[str, Any]:
        if item is None:
            return {"after #": None, "after role": "", "after": ""}
        return {"after #": item.position, "after role": item.role, "after": preview(item.text, width)}

    for index, message in enumerate(original):
        if start is not None and index == start:
            for item in added_at_start:
                rows.append({"before #": None, "before role": "", "before": "", "change": "added (summary)",
                             **after_cells(item)})
        item = by_source.get(index)
        before = {"before #": index, "before role": _role(message), "before": preview(message_text(message), width)}
        if item is None:
            if start is not None and end is not None and start <= index < end:
                change = "summarised"
            else:
                change = "removed (orphan result)"
            rows.append({**before, "change": change, **after_cells(None)})
        else:
            extra = [b for b in item.badges if b not in ("HEAD", "TAIL", "KEPT")]
            same = result.messages[item.position] == message
            change = "unchanged" if same and not extra else "changed" + (f" ({', '.join(extra)})" if extra else "")
            rows.append({**before, "change": change, **after_cells(item)})
        for stub in stubs_after.get(index, []):
            rows.append({"before #": None, "before role": "", "before": "", "change": "added (stub)",
                         **after_cells(stub)})
    columns = ["before #", "before role", "before", "change", "after #", "after role", "after"]
    table = pd.DataFrame(rows, columns=columns)
    for column in ("before #", "after #"):
        table[column] = table[column].astype("Int64")
    return table


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
