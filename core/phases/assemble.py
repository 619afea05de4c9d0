"""Phase 4: reassembly — head (with the system note), summary, tail, tool-pair repair, media stripping.

What changed between releases is one function per variant, chosen by the profile: the summary's
role (``ROLE_RULES``; v0.18.0 pins it to ``user`` after a system-only head, v0.18.1 also when no
user message survives), how a summary merges
into the first tail message (``MERGE_RULES``; v0.18.0 puts it after the message's own text) and
how calls whose results are gone are repaired (``ORPHAN_CALL_RULES``; v0.18.0 strips them instead
of adding stub results). ``core.assembly.assemble`` applies them to a compression plan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core import profiles as P
from core.message_view import call_id, content_text, is_image_part, role_of
from core.profiles import Profile

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


# --- the summary's role --------------------------------------------------------------------------


@dataclass
class SummaryPlacement:
    role: str | None  # role of a standalone summary message; None when merged into the tail
    merged: bool
    last_head_role: Any
    first_tail_role: Any
    pinned: bool = False  # v0.18.0: the head ended with a system message, so the role is user


def _neighbour_roles(messages: list[Any], compress_start: int, compress_end: int) -> tuple[Any, Any]:
    last_head_role = messages[compress_start - 1].get("role", "user") if compress_start > 0 else "user"
    first_tail_role = messages[compress_end].get("role", "user") if compress_end < len(messages) else "user"
    return last_head_role, first_tail_role


def _place(last_head_role: Any, first_tail_role: Any, pinned: bool) -> SummaryPlacement:
    role = "user" if last_head_role in ("assistant", "tool") or pinned else "assistant"
    if role == first_tail_role:
        flipped = "assistant" if role == "user" else "user"
        if flipped != last_head_role and not pinned:
            role = flipped
        else:
            return SummaryPlacement(None, True, last_head_role, first_tail_role, pinned)
    return SummaryPlacement(role, False, last_head_role, first_tail_role, pinned)


def flip_role(messages: list[Any], compress_start: int, compress_end: int) -> SummaryPlacement:
    """v0.15.1-v0.17.0: avoid two user or two assistant messages in a row; merge when both neighbours collide."""
    return _place(*_neighbour_roles(messages, compress_start, compress_end), pinned=False)


def pin_user_after_system(messages: list[Any], compress_start: int, compress_end: int) -> SummaryPlacement:
    """v0.18.0: as before, but after a system message the summary is a user message (merged into a user tail)."""
    last_head_role, first_tail_role = _neighbour_roles(messages, compress_start, compress_end)
    return _place(last_head_role, first_tail_role, pinned=last_head_role == "system")


def _is_user(message: Any) -> bool:
    # Exactly role "user": a message without a role is not a survivor, though the neighbour
    # look-ups above read a missing role as "user".
    return isinstance(message, dict) and message.get("role") == "user"


def pin_user_when_no_user_survives(messages: list[Any], compress_start: int, compress_end: int) -> SummaryPlacement:
    """v0.18.1: also pinned to user when no user message survives in the head or the tail (#58753)."""
    last_head_role, first_tail_role = _neighbour_roles(messages, compress_start, compress_end)
    pinned = last_head_role == "system"
    if not pinned:
        survivors = (messages[i] for r in (range(compress_start), range(compress_end, len(messages))) for i in r)
        pinned = not any(_is_user(message) for message in survivors)
    return _place(last_head_role, first_tail_role, pinned=pinned)


ROLE_RULES: dict[str, Callable[[list[Any], int, int], SummaryPlacement]] = {
    "flip": flip_role,
    "pin-after-system": pin_user_after_system,
    "pin-after-system-or-no-user": pin_user_when_no_user_survives,
}


def choose_summary_role(messages: list[Any], compress_start: int, compress_end: int) -> SummaryPlacement:
    """The v0.15.1 role choice."""
    return flip_role(messages, compress_start, compress_end)


def summary_message(summary: str, role: str, profile: Profile) -> dict[str, Any]:
    """A standalone summary message: the END marker on user summaries (v0.17.0+: on every one), the flag from v0.17.0."""
    ends = role == "user" or profile.end_marker_on_every_summary
    message: dict[str, Any] = {"role": role, "content": summary + SUMMARY_END if ends else summary}
    if profile.summary_flag:
        message[P.COMPRESSED_SUMMARY_KEY] = True
    return message


# --- merging into the first tail message ---------------------------------------------------------


def prepend_summary(message: dict[str, Any], summary: str) -> dict[str, Any]:
    """v0.15.1-v0.17.0: summary, END marker, then the message's own content."""
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


def append_after_prior_context(message: dict[str, Any], summary: str) -> dict[str, Any]:
    """v0.18.0: header, the message's own content, the delimiter, the summary, the END marker last."""
    header = P.PRIOR_CONTEXT_HEADER + "\n"
    suffix = "\n\n" + P.PRIOR_CONTEXT_DELIMITER + "\n\n" + summary + SUMMARY_END
    copy = message.copy()
    original = copy.get("content", "")
    if isinstance(original, list):
        copy["content"] = [{"type": "text", "text": header}, *original, {"type": "text", "text": suffix}]
    elif isinstance(original, str):
        copy["content"] = header + original + suffix
    elif original is None:
        copy["content"] = header + suffix
    else:
        copy["content"] = header + str(original) + suffix
    return copy


@dataclass(frozen=True)
class MergeRule:
    """How a release merges a summary into the first tail message, and what that leaves in the text."""

    merge: Callable[[dict[str, Any], str], dict[str, Any]]
    writes_delimiter: bool  # the merged text holds the [PRIOR CONTEXT ...] header and delimiter
    where: str  # where the summary goes, in words

    def __call__(self, message: dict[str, Any], summary: str) -> dict[str, Any]:
        return self.merge(message, summary)


MERGE_RULES: dict[str, MergeRule] = {
    "prepend": MergeRule(prepend_summary, writes_delimiter=False,
                         where="before the first tail message's text"),
    "prior-context": MergeRule(append_after_prior_context, writes_delimiter=True,
                               where="after the first tail message's text, END marker last"),
}


def merge_summary_into(message: dict[str, Any], summary: str, profile: Profile | None = None) -> dict[str, Any]:
    """The first tail message with the summary merged in, as ``profile`` merges it (default: v0.15.1)."""
    if profile is None:
        return prepend_summary(message, summary)
    merged = MERGE_RULES[profile.merge_rule](message, summary)
    if profile.summary_flag:
        merged[P.COMPRESSED_SUMMARY_KEY] = True
    if profile.drops_api_content:
        merged.pop(P.API_CONTENT_KEY, None)  # the bytes last sent no longer match the content
    return merged


def kept_copy(message: Any, profile: Profile) -> Any:
    """A head or tail message as the release copies it into the output (v0.18.1 drops ``_db_persisted``)."""
    if not isinstance(message, dict):
        return message
    copy = message.copy()
    if profile.strips_persistence_marker:
        copy.pop(P.PERSISTENCE_MARKER_KEY, None)
    return copy


# --- tool-pair repair ----------------------------------------------------------------------------


@dataclass
class SanitizeReport:
    orphans_removed: list[int]  # indices (in the assembled list) of removed tool results
    stubs_added: list[int]  # indices (in the sanitised list) of inserted stubs
    calls_stripped: list[tuple[int, list[Any]]] = field(default_factory=list)  # (index, stripped ids), v0.18.0


def _surviving_and_results(messages: list[Any]) -> tuple[set[Any], set[Any]]:
    surviving: set[Any] = set()
    results: set[Any] = set()
    for message in messages:
        role = role_of(message)
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                cid = call_id(call)
                if cid:
                    try:
                        surviving.add(cid)
                    except TypeError:
                        pass
        elif role == "tool":
            cid = message.get("tool_call_id")
            if cid:
                try:
                    results.add(cid)
                except TypeError:
                    pass
    return surviving, results


def _member(value: Any, ids: set[Any]) -> bool:
    try:
        return value in ids
    except TypeError:  # an unhashable id matches nothing
        return False


def _remove_orphan_results(messages: list[Any], orphans: set[Any], report: SanitizeReport) -> list[Any]:
    kept = []
    for i, message in enumerate(messages):
        if role_of(message) == "tool" and _member(message.get("tool_call_id"), orphans):
            report.orphans_removed.append(i)
            continue
        kept.append(message)
    return kept


def stub_missing_results(messages: list[Any], missing: set[Any], report: SanitizeReport) -> list[Any]:
    """v0.15.1-v0.17.0: a stub result right after each call whose result is gone."""
    patched: list[Any] = []
    for message in messages:
        patched.append(message)
        if role_of(message) == "assistant":
            for call in message.get("tool_calls") or ():
                cid = call_id(call)
                if _member(cid, missing):
                    report.stubs_added.append(len(patched))
                    patched.append({"role": "tool", "content": P.STUB_RESULT, "tool_call_id": cid})
    return patched


def strip_orphan_calls(messages: list[Any], missing: set[Any], report: SanitizeReport) -> list[Any]:
    """v0.18.0: calls whose result is gone are removed; an assistant left with nothing says so."""
    out: list[Any] = []
    for index, message in enumerate(messages):
        calls = message.get("tool_calls") if role_of(message) == "assistant" else None
        if not calls:
            out.append(message)
            continue
        kept = [call for call in calls if not _member(call_id(call) or "", missing)]
        if len(kept) == len(calls):
            out.append(message)
            continue
        copy = message.copy()
        report.calls_stripped.append((index, [call_id(call) for call in calls if call not in kept]))
        if kept:
            copy["tool_calls"] = kept
        else:
            del copy["tool_calls"]
            content = copy.get("content")
            if not content or (isinstance(content, str) and not content.strip()):
                copy["content"] = P.TOOL_CALL_REMOVED
        out.append(copy)
    return out


@dataclass(frozen=True)
class OrphanCallRule:
    """How a release repairs a call whose result is gone."""

    repair: Callable[[list[Any], set[Any], SanitizeReport], list[Any]]
    adds_stubs: bool  # True: a stub result is added; False: the call is stripped from its message
    what: str  # what the repair does, in words

    def __call__(self, messages: list[Any], missing: set[Any], report: SanitizeReport) -> list[Any]:
        return self.repair(messages, missing, report)


ORPHAN_CALL_RULES: dict[str, OrphanCallRule] = {
    "stub": OrphanCallRule(stub_missing_results, adds_stubs=True, what="a stub result is added after the call"),
    "strip": OrphanCallRule(strip_orphan_calls, adds_stubs=False, what="the call is stripped from its message"),
}


def sanitize_tool_pairs(messages: list[Any], orphan_call_rule: str = "stub") -> tuple[list[Any], SanitizeReport]:
    """Drop tool results whose call is gone; repair calls whose result is gone (stub or strip)."""
    surviving, results = _surviving_and_results(messages)
    report = SanitizeReport([], [])
    orphans = results - surviving
    if orphans:
        messages = _remove_orphan_results(messages, orphans, report)
    missing = surviving - results
    if missing:
        messages = ORPHAN_CALL_RULES[orphan_call_rule](messages, missing, report)
    return messages, report


# --- media ---------------------------------------------------------------------------------------


def strip_historical_media(messages: list[Any], drop_api_content: bool = False) -> tuple[list[Any], list[int]]:
    """Replace images older than the newest image-bearing user message; returns the touched indices.

    ``drop_api_content`` (v0.19.0): a message whose images are replaced loses its ``api_content``.
    """
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
            if drop_api_content:
                copy.pop(P.API_CONTENT_KEY, None)
            out[i] = copy
            touched.append(i)
    return out, touched
