"""The compaction log the Context Lens Hermes plugin writes (``$HERMES_HOME/context-lens/compactions.jsonl``).

One JSON line per compaction (``"record": "compaction"``; the fields are described in
``core.hermes_plugin.events``). Each line is listed as a session of its own
(``<hermes session id>#<compaction number>``, the latest one loaded by default), so the dashboard's
session picker walks through an agent's compactions one by one.

The loaded conversation is what that compaction received. With ``record_message_text`` on, that is
the real messages; otherwise the log has no text and each message is a placeholder keeping its
role, its size and its tool-call ids and names (so tool pairs still match), e.g.
``[assistant message 12: 4,210 characters, text not recorded]``. The compaction itself becomes a
``CompactionEvent`` at the start of the summarised middle, with the summary, the prompt size before,
and in ``details`` the outcome, zones, token figures, facts kept and lost, settings and timing.
"""

from __future__ import annotations

from typing import Any

from core.formats import openai_chat
from core.formats.messages import Builder, make_message, tool_call
from core.formats.model import CompactionEvent, Conversation, SessionInfo
from core.formats.session_pick import one_session_per_line
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec

NAME = "context-lens-log"
RECORD_KIND = "compaction"
ROLES = ("system", "developer", "user", "assistant", "tool")
# What the event keeps of a record (the messages and raw text are the conversation itself).
DETAIL_KEYS = ("outcome", "aborted", "abort_reason", "failure_reason", "fallback_used", "cooldown_skipped", "error",
               "tokens", "zones", "facts", "settings", "profile", "hermes_release", "call", "timing", "repairs",
               "session_id", "time", "output")


def _dict(record: dict[str, Any], key: str) -> dict[str, Any]:
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def is_record(record: Any) -> bool:
    return (isinstance(record, dict) and record.get("record") == RECORD_KIND
            and isinstance(record.get("version"), int) and isinstance(record.get("messages"), list))


def looks_like(records: list[tuple[int, Any]]) -> bool:
    """Every dict among the first records is a compaction record (and there is one)."""
    dicts = [record for _, record in records if isinstance(record, dict)]
    return bool(dicts) and all(is_record(record) for record in dicts)


def _number(record: dict[str, Any]) -> int:
    count = _int(_dict(record, "call").get("compression_count_before"))
    return count + 1 if count is not None else 0


def session_info(line: int, record: dict[str, Any]) -> SessionInfo:
    session = _text(record.get("session_id")) or "session"
    tokens = _dict(record, "tokens")
    number = _number(record)
    identity = f"{session}#{number}" if number else f"{session}@line {line}"
    title = (f"{record.get('outcome', '?')}: {tokens.get('before', '?')} → {tokens.get('after', '?')} tokens, "
             f"{tokens.get('messages_before', '?')} → {tokens.get('messages_after', '?')} messages")
    return SessionInfo(id=identity, title=title, message_count=len(record["messages"]),
                       started_at=_text(record.get("time")), model=_text(_dict(record, "settings").get("model")),
                       kind="session")


def _placeholder(entry: dict[str, Any]) -> dict[str, Any] | None:
    role = entry.get("role")
    if role not in ROLES or (role == "tool" and _text(entry.get("tool_call_id")) is None):
        return None  # a tool result needs the id of its call
    size, index = _int(entry.get("chars")), _int(entry.get("index"))
    described = f"{size:,} characters" if size is not None else "size unknown"
    text = f"[{role} message {index if index is not None else '?'}: {described}, text not recorded]"
    listed = entry.get("tool_calls") if isinstance(entry.get("tool_calls"), list) else []
    calls = [
        tool_call(_text(call.get("id")) or f"call_{index}_{position}", _text(call.get("name")) or "tool", {})
        for position, call in enumerate(listed) if isinstance(call, dict)
    ]
    return make_message(role, text, tool_calls=calls or None,
                        tool_call_id=_text(entry.get("tool_call_id")))


def convert(line: int, record: dict[str, Any], src: InputSource) -> Conversation:
    raw = record.get("raw") if isinstance(record.get("raw"), dict) else None
    if raw is not None and isinstance(raw.get("input"), list):
        conv = openai_chat.parse_document({"messages": raw["input"]}, src, None)
        conv.format = NAME
        conv.sources = [f"line {line} {where}" for where in conv.sources]
    else:
        builder = Builder(NAME, src.name)
        for entry in record["messages"]:
            message = _placeholder(entry) if isinstance(entry, dict) else None
            where = f"line {line} message {_int(entry.get('index')) if isinstance(entry, dict) else '?'}"
            if message is None:
                builder.tally.skip(where, "messages without a known role (or tool results without a call id)", where)
                continue
            builder.add(message, where)
            builder.tally.place(where)
        conv = builder.build()
        conv.warnings.append(f"line {line}: the log holds no message text (record_message_text was off); "
                             "messages are placeholders with their roles, sizes and tool-call ids")
    start = _int(_dict(record, "zones").get("compress_start"))
    position = start if start is not None and 0 <= start <= len(conv.messages) else len(conv.messages)
    outcome = _text(record.get("outcome")) or ""
    conv.compaction_events.append(CompactionEvent(
        position=position, kind=f"context-lens {outcome}".strip(), summary=_text(_dict(record, "summary").get("text")),
        pre_tokens=_int(_dict(record, "tokens").get("before")), source=f"line {line}",
        details={key: record[key] for key in DETAIL_KEYS if key in record},
    ))
    conv.model = conv.model or _text(_dict(record, "settings").get("model"))
    conv.metadata["hermes_plugin"] = {"profile": record.get("profile"), "hermes_release": record.get("hermes_release"),
                                      "session_id": record.get("session_id"), "text_recorded": raw is not None}
    return conv


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    return one_session_per_line(
        lines, src, session, holds_session=is_record, info_of=session_info,
        rows_of=lambda record: len(record["messages"]), convert=lambda line, record: convert(line, record, src),
        not_a_session="lines that are not compaction records",
        none_found="no compaction records found; expected Context Lens' Hermes plugin log",
    )


FORMAT = FormatSpec(
    name=NAME,
    description="Context Lens' Hermes plugin: one JSON line per compaction the agent made",
    detect_records=looks_like,
    parse_records=parse_records,
    aliases=("context-lens-compactions", "hermes-plugin-log"),
)
