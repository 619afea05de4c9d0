"""One JSON line per compaction the plugin performs: what was decided, kept, summarised and lost.

The log is ``$HERMES_HOME/context-lens/compactions.jsonl``; the dashboard reads it with the
``context-lens-log`` format (``core.formats.context_lens_log``). A record (``"record":
"compaction"``, ``"version": 1``) holds:

* ``session_id``, ``time`` (ISO 8601, UTC), ``hermes_release``, ``context_lens_version``;
* ``profile`` and ``settings``: the parameters in effect (the threshold Hermes compared against,
  the window, the summary route without any key);
* ``call``: ``current_tokens``, ``focus_topic``, ``force``, the memory context's length, the
  compaction count before the call;
* ``outcome`` (``summarized``, ``fallback``, ``aborted``, ``too_small``, ``nothing_to_compress``,
  ``crashed`` or ``error``), ``aborted``, ``abort_reason``, ``failure_reason``, ``fallback_used``,
  ``cooldown_skipped``, ``error`` (an exception inside the plugin: the agent then continued unchanged);
* ``tokens``: before (the estimate the release reports), after, saved share, message counts;
* ``zones``: head size, Phase-1 boundary, the summarised middle ``[compress_start, compress_end)``,
  the tail cut and the steps that moved it;
* ``messages``: one entry per input message — index, role, ``id`` (a hash of the message, so the
  same message is recognised across compactions without its text), tool-call ids and tool names,
  size in characters, zone and fate (``kept``, ``summarised``, ``dropped``, ``pruned``: Phase 1
  shortened it); ``output``: role and origin of each output message;
* ``facts``: the facts (``core.facts``) of the summarised and dropped messages, each ``kept`` when
  its value is still found verbatim in the output (values a redaction would mask are never facts);
* ``summary``: the summary message's text, role and placement;
* ``timing``: seconds for the whole call and for the summary call;
* ``raw`` (only with ``record_message_text``): the input and output messages themselves.

Writing never raises: a full or read-only disk logs one warning and the agent carries on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.compressor import CompressionResult, ContextCompressor

RECORD_KIND = "compaction"
RECORD_VERSION = 1
FACT_LIMIT = 200  # facts listed per record (the counts cover all of them)

logger = logging.getLogger("context_lens.hermes_plugin")


def message_id(message: Any) -> str:
    """A short stable id of a message's content: equal messages get equal ids, the text stays out."""
    try:
        canonical = json.dumps(message, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        canonical = repr(message)
    return hashlib.sha256(canonical.encode("utf-8", "replace")).hexdigest()[:16]


def _size(message: Any) -> int:
    if not isinstance(message, Mapping):
        return len(repr(message))
    content = message.get("content")
    size = len(content) if isinstance(content, str) else len(json.dumps(content, default=repr)) if content else 0
    for call in message.get("tool_calls") or []:
        if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
            size += len(str(call["function"].get("arguments") or ""))
    return size


def describe_message(index: int, message: Any) -> dict[str, Any]:
    """What the log says of one message without its text."""
    entry: dict[str, Any] = {"index": index, "id": message_id(message), "chars": _size(message)}
    if not isinstance(message, Mapping):
        entry["role"] = None
        return entry
    entry["role"] = message.get("role")
    calls = [call for call in message.get("tool_calls") or [] if isinstance(call, Mapping)]
    if calls:
        entry["tool_calls"] = [
            {"id": call.get("id"), "name": (call.get("function") or {}).get("name") if isinstance(call.get("function"), Mapping) else None}
            for call in calls
        ]
    if message.get("tool_call_id") is not None:
        entry["tool_call_id"] = message.get("tool_call_id")
    if message.get("name") is not None and message.get("role") == "tool":
        entry["tool_name"] = message.get("name")
    return entry


def _zone(index: int, result: CompressionResult) -> str:
    start, end = result.plan.compress_start, result.plan.compress_end
    if start is None or end is None:
        return "all"
    if index < start:
        return "head"
    return "middle" if index < end else "tail"


def message_fates(result: CompressionResult) -> list[dict[str, Any]]:
    """Every input message with its zone and fate."""
    kept = {origin.source_index for origin in result.assembly.origins if origin.source_index is not None} if result.assembly else None
    pruned = set(result.plan.phase1_actions) if result.assembly else set()
    entries = []
    for index, message in enumerate(result.input_messages):
        entry = describe_message(index, message)
        zone = _zone(index, result)
        entry["zone"] = zone
        if kept is None:
            entry["fate"] = "kept"  # nothing was assembled: the conversation went on as it was
        elif index in kept:
            entry["fate"] = "pruned" if index in pruned else "kept"
        elif zone == "middle":
            entry["fate"] = "dropped" if result.assembly.fallback_used else "summarised"
        else:
            entry["fate"] = "dropped"  # a repair removed it (an orphaned tool result, ...)
        if index in pruned:
            entry["phase1"] = list(result.plan.phase1_actions[index])
        entries.append(entry)
    return entries


def _facts(result: CompressionResult, fates: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Facts of the messages that left the conversation, and whether the output still has each."""
    from core.facts import fact_rows, searchable_text
    from core.facts.search import found_in

    gone = [entry["index"] for entry in fates if entry["fate"] in ("summarised", "dropped")]
    if not gone:
        return {"total": 0, "kept": 0, "lost": 0, "items": []}
    messages = [result.input_messages[index] for index in gone if isinstance(result.input_messages[index], Mapping)]
    rows = fact_rows(messages)
    flags = found_in([value for _, value, _ in rows], searchable_text(result.messages))
    items = [
        {"kind": kind, "value": value, "message_index": gone[position], "kept": bool(flag)}
        for (kind, value, position), flag in zip(rows, flags, strict=True)
    ]
    kept = sum(1 for item in items if item["kept"])
    return {"total": len(items), "kept": kept, "lost": len(items) - kept, "items": items[:FACT_LIMIT]}


def build_record(
    result: CompressionResult | None,
    compressor: ContextCompressor,
    *,
    session_id: str | None,
    settings: Mapping[str, Any],
    call: Mapping[str, Any],
    timing: Mapping[str, float],
    hermes_release: str | None,
    record_text: bool,
    error: str | None = None,
    input_messages: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """The log record of one ``compress()`` (``result`` None: the plugin itself failed with ``error``)."""
    from core.hermes_plugin.version import __version__

    record: dict[str, Any] = {
        "record": RECORD_KIND, "version": RECORD_VERSION,
        "session_id": session_id, "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "hermes_release": hermes_release, "context_lens_version": __version__,
        "profile": compressor.config.profile, "settings": dict(settings), "call": dict(call),
        "timing": {key: round(value, 4) for key, value in timing.items()},
    }
    if result is None:
        messages = list(input_messages or [])
        record.update(outcome="error", aborted=False, error=error,
                      tokens={"messages_before": len(messages), "messages_after": len(messages)},
                      messages=[{**describe_message(i, m), "zone": "all", "fate": "kept"} for i, m in enumerate(messages)])
        if record_text:
            record["raw"] = {"input": messages, "output": messages}
        return record
    fates = message_fates(result)
    tail_cut = result.plan.tail_cut
    record.update(
        outcome=result.outcome, aborted=result.aborted, abort_reason=result.abort_reason,
        failure_reason=result.failure_reason,
        fallback_used=result.assembly.fallback_used if result.assembly else False,
        cooldown_skipped=result.cooldown_skipped, error=error,
        tokens={
            "before": result.plan.display_tokens,
            "after": result.assembly.tokens_after if result.assembly else result.plan.display_tokens,
            "savings_pct": round(result.assembly.savings_pct, 2) if result.assembly else 0.0,
            "messages_before": len(result.input_messages), "messages_after": len(result.messages),
        },
        zones={
            "head_size": result.plan.head_size, "prune_boundary": result.plan.prune_boundary,
            "compress_start": result.plan.compress_start, "compress_end": result.plan.compress_end,
            "tail_cut": tail_cut.cut if tail_cut is not None else None,
            "tail_steps": list(tail_cut.steps) if tail_cut is not None else [],
        },
        messages=fates,
        output=[
            {"role": message.get("role") if isinstance(message, Mapping) else None,
             "origin": origin.kind, "source_index": origin.source_index}
            for message, origin in zip(result.messages, result.assembly.origins, strict=False)
        ] if result.assembly else [],
        facts=_facts(result, fates),
        summary={"text": result.assembly.summary_text, "role": result.assembly.summary_role,
                 "merged": result.assembly.summary_merged,
                 "focus_topic": result.plan.focus_topic} if result.assembly else None,
        repairs={"orphans_removed": result.assembly.orphans_removed, "stubs_added": result.assembly.stubs_added,
                 "calls_stripped": result.assembly.calls_stripped, "media_stripped": len(result.assembly.media_stripped)}
        if result.assembly else None,
    )
    if result.crash is not None:
        record["crash"] = {"message_index": result.crash.message_index, "reason": result.failure_reason}
    if record_text:
        record["raw"] = {"input": list(result.input_messages), "output": list(result.messages)}
    return record


class EventLog:
    """Appends records to the log file; every failure is a logged warning, never an exception."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._warned = False

    def __deepcopy__(self, memo: dict[int, Any]) -> EventLog:
        return EventLog(self.path)  # a lock cannot be copied; the file is shared on purpose

    def append(self, record: Mapping[str, Any]) -> bool:
        if self.path is None:
            return False
        try:
            # ASCII escapes: a lone surrogate in a message cannot make the line invalid UTF-8.
            data = (json.dumps(record, ensure_ascii=True, default=repr) + "\n").encode("ascii")
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # One write of a whole line in append mode: concurrent agents never interleave lines.
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    while data:
                        data = data[os.write(fd, data):]
                finally:
                    os.close(fd)
            return True
        except Exception as exc:  # disk full, read-only, permissions, an unencodable value: never the agent's problem
            if not self._warned:
                logger.warning("context-lens: could not write the compaction log %s (%s); compaction goes on "
                               "without it", self.path, exc)
                self._warned = True
            return False
