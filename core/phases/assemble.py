"""Phase 4: reassembly — head (with the system note), summary, tail, tool-pair repair, media stripping."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core import profiles as P
from core.message_view import content_text, is_image_part, role_of

SUMMARY_END = "\n\n" + P.END_MARKER


def add_system_note(message: dict[str, Any]) -> dict[str, Any]:
    """Copy of a system message with the compaction note appended once (idempotent)."""
    copy = message.copy()
    existing = copy.get("content")
    if P.SYSTEM_NOTE in content_text(existing):
        return copy
    if isinstance(existing, str):
        copy["content"] = existing + "\n\n" + P.SYSTEM_NOTE if existing else P.SYSTEM_NOTE
    elif existing is None:
        copy["content"] = P.SYSTEM_NOTE
    elif isinstance(existing, list):
        copy["content"] = [*existing, {"type": "text", "text": P.SYSTEM_NOTE}]
    else:
        copy["content"] = str(existing) + P.SYSTEM_NOTE
    return copy


@dataclass
class SummaryPlacement:
    role: str | None  # role of a standalone summary message; None when merged into the tail
    merged: bool
    last_head_role: Any
    first_tail_role: Any


def choose_summary_role(messages: list[Any], compress_start: int, compress_end: int) -> SummaryPlacement:
    """Avoid two user or two assistant messages in a row; merge into the tail when both neighbours collide."""
    last_head_role = messages[compress_start - 1].get("role", "user") if compress_start > 0 else "user"
    first_tail_role = messages[compress_end].get("role", "user") if compress_end < len(messages) else "user"
    role = "user" if last_head_role in ("assistant", "tool") else "assistant"
    if role == first_tail_role:
        flipped = "assistant" if role == "user" else "user"
        if flipped != last_head_role:
            role = flipped
        else:
            return SummaryPlacement(None, True, last_head_role, first_tail_role)
    return SummaryPlacement(role, False, last_head_role, first_tail_role)


def merge_summary_into(message: dict[str, Any], summary: str) -> dict[str, Any]:
    prefix = summary + SUMMARY_END + "\n\n"
    copy = message.copy()
    original = copy.get("content")
    if isinstance(original, list):
        copy["content"] = [{"type": "text", "text": prefix}, *original]
    elif isinstance(original, str):
        copy["content"] = prefix + original
    elif original is None:
        copy["content"] = prefix
    else:
        copy["content"] = prefix + str(original)
    return copy


def _call_id(call: Any) -> Any:
    if isinstance(call, dict):
        return call.get("call_id") or call.get("id")
    return getattr(call, "call_id", None) or getattr(call, "id", None)


@dataclass
class SanitizeReport:
    orphans_removed: list[int]  # indices (in the assembled list) of removed tool results
    stubs_added: list[int]  # indices (in the sanitised list) of inserted stubs


def sanitize_tool_pairs(messages: list[Any]) -> tuple[list[Any], SanitizeReport]:
    """Drop tool results whose call is gone; add stub results right after calls whose result is gone."""
    surviving: set[Any] = set()
    for message in messages:
        if role_of(message) == "assistant":
            for call in message.get("tool_calls") or ():
                cid = _call_id(call)
                if cid:
                    try:
                        surviving.add(cid)
                    except TypeError:
                        pass
    results: set[Any] = set()
    for message in messages:
        if role_of(message) == "tool":
            cid = message.get("tool_call_id")
            if cid:
                try:
                    results.add(cid)
                except TypeError:
                    pass
    report = SanitizeReport([], [])
    orphans = results - surviving
    if orphans:
        kept = []
        for i, message in enumerate(messages):
            if role_of(message) == "tool":
                cid = message.get("tool_call_id")
                try:
                    orphan = cid in orphans
                except TypeError:
                    orphan = False
                if orphan:
                    report.orphans_removed.append(i)
                    continue
            kept.append(message)
        messages = kept
    missing = surviving - results
    if missing:
        patched: list[Any] = []
        for message in messages:
            patched.append(message)
            if role_of(message) == "assistant":
                for call in message.get("tool_calls") or ():
                    cid = _call_id(call)
                    try:
                        is_missing = cid in missing
                    except TypeError:
                        is_missing = False
                    if is_missing:
                        report.stubs_added.append(len(patched))
                        patched.append({"role": "tool", "content": P.STUB_RESULT, "tool_call_id": cid})
        messages = patched
    return messages, report


def strip_historical_media(messages: list[Any]) -> tuple[list[Any], list[int]]:
    """Replace images older than the newest image-bearing user message; returns the touched indices."""
    anchor = None
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list) and any(is_image_part(p) for p in content):
                anchor = i
                break
    if anchor is None or anchor == 0:
        return messages, []
    out = list(messages)
    touched = []
    for i in range(anchor):
        message = messages[i]
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, list) and any(is_image_part(p) for p in content):
            copy = message.copy()
            copy["content"] = [
                {"type": "text", "text": P.HISTORICAL_IMAGE_PLACEHOLDER} if is_image_part(p) else p for p in content
            ]
            out[i] = copy
            touched.append(i)
    return out, touched
