"""Goose sessions: the SQLite store ``~/.local/share/goose/sessions/sessions.db`` and the older
per-session JSONL files next to it.

The store (``crates/goose/src/session/session_manager.rs``) has a ``sessions`` table (id, name or
description, working_dir, session_type, token counts, later ``provider_name`` and
``model_config_json``) and a ``messages`` table (``session_id``, ``role``, ``content_json``,
``created_timestamp``, ``metadata_json``, ...). It is opened read-only (a copy without its
``-wal`` / ``-shm`` files reads as it is); every session is listed in ``Conversation.sessions``
(sub-agent sessions as sidechains) and the most recently updated one is loaded by default. A JSONL
session (before the store) is a metadata line (``working_dir``, ``description``, token counts)
followed by one message per line.

A message is ``{role, created, content: [...], metadata: {userVisible, agentVisible}}``; its items
are ``text``, ``image``, ``thinking``, ``toolRequest`` (``toolCall: {status, value: {name,
arguments}}``), ``toolResponse`` (``toolResult: {status, value}``, the value a list of contents or
``{content, isError}``) and what only the app shows (``systemNotification``, ``actionRequired``,
``toolConfirmationRequest``), which is counted in ``metadata["ui_items"]`` and not sent. Tool
responses are user messages in Goose: each becomes a tool message, and the rest of the user
message follows them. Contents addressed to the user only (``annotations.audience``) are left out
of the tool results, as Goose leaves them out of its requests.

**Compaction.** Goose keeps the compacted messages and marks them ``agentVisible: false``, then
adds the summary (a user message for the agent only) and a continuation message. The first
agent-only message after hidden ones is a :class:`CompactionEvent` (``kind="compaction"``); the
hidden messages before it stay in ``messages`` as the history before the compaction, and hidden
messages after the last compaction (shown in the app, never sent) are metadata.

**Usage.** Recent versions record each response's usage in its ``metadata_json`` (``usage``:
``inputTokens``, ``outputTokens``, ``cacheReadTokens``); otherwise the session's own
``input_tokens`` / ``output_tokens`` (those of its latest request) go to the last assistant message.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.formats.messages import (
    Builder,
    FieldProblem,
    IdMaker,
    data_url,
    image_part,
    kind_of,
    make_message,
    simplify_parts,
    text_part,
    tool_call,
)
from core.formats.model import CompactionEvent, Conversation, FormatError, SessionInfo
from core.formats.session_pick import pick_session
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec

NAME = "goose"
METADATA_KEYS = ("working_dir", "description", "schedule_id", "message_count", "total_tokens", "input_tokens",
                 "output_tokens", "accumulated_total_tokens")
ITEM_TYPES = frozenset({"text", "image", "thinking", "redactedThinking", "toolRequest", "toolResponse",
                        "frontendToolRequest", "toolConfirmationRequest", "actionRequired", "systemNotification",
                        "contextLengthExceeded", "summarizationRequested", "conversationCompacted", "reasoning"})
UI_ITEMS = frozenset({"toolConfirmationRequest", "actionRequired", "systemNotification", "contextLengthExceeded",
                      "summarizationRequested", "conversationCompacted"})
LEGACY_REQUEST, LEGACY_RESPONSE = "tool_name", "tool_result"
USER_ONLY = "messages shown in Goose only (agentVisible false after the last compaction; never sent to the model)"
METADATA_LINE = "the session's metadata line (working directory, description, token counts)"


# ---------------------------------------------------------------------------------------------
# Detection


def _item_kind(item: Any) -> str | None:
    """The kind of a content item; the first releases (late 2024) wrote items without a ``type``:
    ``{text}``, ``{tool_name, arguments}`` and ``{id, tool_result}``."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if isinstance(kind, str):
        return kind if kind in ITEM_TYPES else None
    if "tool_name" in item:
        return LEGACY_REQUEST
    if "tool_result" in item:
        return LEGACY_RESPONSE
    return "text" if isinstance(item.get("text"), str) else None


def _is_message(record: Any) -> bool:
    content = record.get("content") if isinstance(record, dict) else None
    if not (isinstance(record, dict) and record.get("role") in ("user", "assistant") and isinstance(content, list)):
        return False
    kinds = [_item_kind(item) for item in content]
    return None not in kinds and ("created" in record or any(
        kind in ("toolRequest", "toolResponse", LEGACY_REQUEST, LEGACY_RESPONSE) for kind in kinds))


def _is_metadata(record: Any) -> bool:
    return isinstance(record, dict) and "role" not in record and "working_dir" in record and any(
        key in record for key in METADATA_KEYS[1:]
    )


def looks_like(records: list[tuple[int, Any]]) -> bool:
    """A metadata line then Goose messages, or (a fragment) Goose messages only: items of Goose's own
    camelCase types (``toolRequest`` ...) and a ``created`` time."""
    dicts = [record for _, record in records if isinstance(record, dict)]
    if not dicts:
        return False
    messages = dicts[1:] if _is_metadata(dicts[0]) else dicts
    if not messages:
        return _is_metadata(dicts[0])
    goose = sum(1 for record in messages if _is_message(record))
    return goose * 2 > len(messages) and (_is_metadata(dicts[0]) or any(
        _item_kind(item) in ("toolRequest", "toolResponse", LEGACY_REQUEST, LEGACY_RESPONSE)
        for r in messages if _is_message(r) for item in r["content"]))


def looks_like_store(conn: sqlite3.Connection) -> bool:
    # A damaged schema page can hold names that are not UTF-8: then this is not a store Goose wrote
    # (the reader the other checks pick says what is wrong with it).
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"sessions", "messages"} <= tables:
            return False
        columns = {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
    except sqlite3.DatabaseError:
        return False
    return "content_json" in columns


# ---------------------------------------------------------------------------------------------
# Messages


@dataclass
class _Row:
    where: str
    key: Any  # the row's key in the load report
    role: Any
    content: Any
    metadata: dict[str, Any] = field(default_factory=dict)
    tokens: Any = None


def _visible(row: _Row, side: str) -> bool:
    value = row.metadata.get(side)
    return value is not False


def _audience_ok(item: dict[str, Any]) -> bool:
    annotations = item.get("annotations")
    audience = annotations.get("audience") if isinstance(annotations, dict) else None
    return not isinstance(audience, list) or "assistant" in audience


def _result_content(result: Any) -> Any:
    """A ``toolResult`` as the tool message's content."""
    if not isinstance(result, dict):
        return ""
    if result.get("status") == "error":
        return str(result.get("error", ""))
    value = result.get("value")
    items = value.get("content") if isinstance(value, dict) else value
    parts = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not _audience_ok(item):
            continue
        if item.get("type") == "text":
            parts.append(text_part(str(item.get("text", ""))))
        elif item.get("type") == "image":
            parts.append(image_part(data_url(str(item.get("mimeType") or "image/png"), str(item.get("data", "")))))
        elif item.get("type") == "resource" and isinstance(item.get("resource"), dict):
            resource = item["resource"]
            parts.append(text_part(str(resource.get("text") or f"[Binary content: {resource.get('blob', '')}]")))
    return simplify_parts(parts, join_texts=True)


def _legacy_result(value: Any) -> str:
    """A result of the first releases: the text of ``[{"Text": {"text": ...}}]`` written as a JSON string."""
    try:
        items = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return str(value)
    texts = [item["Text"].get("text", "") for item in items if isinstance(item, dict) and isinstance(item.get("Text"), dict)] \
        if isinstance(items, list) else []
    return "\n".join(str(text) for text in texts) if texts else str(value)


class _Converter:
    """Goose messages into canonical messages on a Builder (module docstring)."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.ids = IdMaker("goose_call_")
        self.ui_items: Counter[str] = Counter()
        self.model: str | None = None
        self.legacy_calls: list[str] = []  # calls of the first releases waiting for their result

    def add(self, row: _Row) -> None:
        if row.role not in ("user", "assistant"):
            raise FieldProblem(f"{row.where} role", f"expected 'user' or 'assistant', got {row.role!r}")
        if not isinstance(row.content, list):
            raise FieldProblem(f"{row.where} content", f"expected a list of content items, got {kind_of(row.content)}")
        usage = _usage(row)
        inference = row.metadata.get("inference")
        if isinstance(inference, dict):
            model = inference.get("resolvedModel") or inference.get("requestedModel")
            self.model = str(model) if model else self.model
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        thinking: list[str] = []
        for position, item in enumerate(row.content):
            where = f"{row.where} content[{position}]"
            kind = _item_kind(item) or (item.get("type") if isinstance(item, dict) else None)
            if not isinstance(item, dict):
                self.ui_items[f"not an item ({kind_of(item)})"] += 1
                continue
            if kind == "text":
                parts.append(text_part(str(item.get("text", ""))))
            elif kind == "image":
                parts.append(image_part(data_url(str(item.get("mimeType") or "image/png"), str(item.get("data", "")))))
            elif kind in ("thinking", "reasoning"):
                thinking.append(str(item.get("thinking") or item.get("text") or ""))
            elif kind in ("toolRequest", "frontendToolRequest"):
                calls.append(self._call(item))
            elif kind == "toolResponse":
                call_id = self.ids.shared(str(item.get("id") or ""))
                self.builder.add(make_message("tool", _result_content(item.get("toolResult")), tool_call_id=call_id), where)
            elif kind == LEGACY_REQUEST:  # no id: the results answer the calls in order
                call_id = self.ids.new()
                self.legacy_calls.append(call_id)
                calls.append(tool_call(call_id, str(item.get("tool_name", "")), item.get("arguments")))
            elif kind == LEGACY_RESPONSE:
                call_id = self.legacy_calls.pop(0) if self.legacy_calls else self.ids.shared(str(item.get("id") or ""))
                self.builder.add(make_message("tool", _legacy_result(item.get("tool_result")), tool_call_id=call_id), where)
            else:
                self.ui_items[str(kind)] += 1
        if row.role == "assistant" or parts:
            text = simplify_parts(parts, join_texts=True) if parts else ("" if not calls else None)
            self.builder.add(make_message(row.role, text, tool_calls=calls or None), row.where, usage=usage,
                             reasoning="\n".join(t for t in thinking if t) or None)

    def _call(self, item: dict[str, Any]) -> dict[str, Any]:
        call_id = str(item.get("id") or "") or self.ids.new()
        self.ids.reserve(call_id)
        request = item.get("toolCall")
        value = request.get("value") if isinstance(request, dict) else None
        if isinstance(request, dict) and request.get("status") == "error" or not isinstance(value, dict):
            error = request.get("error") if isinstance(request, dict) else None
            return tool_call(call_id, "invalid_tool_call", {"error": str(error or "no tool call")})
        return tool_call(call_id, str(value.get("name", "")), value.get("arguments"))


def _usage(row: _Row) -> dict[str, Any] | None:
    usage = row.metadata.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("inputTokens"), int):
        found: dict[str, Any] = {"prompt_tokens": usage["inputTokens"]}
        if isinstance(usage.get("outputTokens"), int):
            found["completion_tokens"] = usage["outputTokens"]
        if isinstance(usage.get("cacheReadTokens"), int):
            found["prompt_tokens_details"] = {"cached_tokens": usage["cacheReadTokens"]}
        if isinstance(usage.get("cost"), (int, float)):
            found["cost"] = usage["cost"]
        return found
    return None


def convert(rows: list[_Row], builder: Builder) -> _Converter:
    """Every row placed as messages, or as metadata when Goose never sent it (module docstring)."""
    converter = _Converter(builder)
    hidden_seen = False
    last_compaction = -1
    compactions = []
    for index, row in enumerate(rows):
        agent_only = not _visible(row, "userVisible") and _visible(row, "agentVisible")
        if agent_only and hidden_seen:
            compactions.append(index)
            last_compaction = index
            hidden_seen = False
        if not _visible(row, "agentVisible"):
            hidden_seen = True
    for index, row in enumerate(rows):
        if not _visible(row, "agentVisible") and index > last_compaction:
            builder.tally.meta(row.key, USER_ONLY)
            continue
        before = len(builder)
        try:
            converter.add(row)
        except FieldProblem as exc:
            builder.tally.skip(row.key, "messages without a role and a list of content items", row.where, announced=True)
            builder.warnings.append(f"{exc}; message skipped")
            continue
        builder.tally.place(row.key)
        if index in compactions and len(builder) > before:
            text = builder.messages[before].get("content")
            builder.events.append(CompactionEvent(before, "compaction", summary=text if isinstance(text, str) else None,
                                                  source=row.where))
    if converter.ui_items:
        builder.metadata["ui_items"] = dict(converter.ui_items)
    return converter


def _session_usage(builder: Builder, record: dict[str, Any]) -> None:
    """The session's latest request size on the last assistant message, when no message has usage."""
    if any(builder.usage) or not isinstance(record.get("input_tokens"), int) or not record["input_tokens"]:
        return
    for index in range(len(builder.messages) - 1, -1, -1):
        if builder.messages[index]["role"] == "assistant":
            usage = {"prompt_tokens": record["input_tokens"]}
            if isinstance(record.get("output_tokens"), int):
                usage["completion_tokens"] = record["output_tokens"]
            builder.usage[index] = usage
            return


def _json(value: Any, default: Any) -> Any:
    """A JSON column parsed; text that is not JSON stays text (the message is then skipped with a
    warning naming its row, instead of failing the whole store)."""
    if value is None or value == "":
        return default
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value


# ---------------------------------------------------------------------------------------------
# JSONL sessions


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    builder = Builder(NAME, src.name)
    meta: dict[str, Any] = {}
    rows: list[_Row] = []
    first = True
    for line, record in lines.records():
        where = f"line {line}"
        if first and _is_metadata(record):
            meta = record
            builder.tally.meta(line, METADATA_LINE)
        elif isinstance(record, dict) and "role" in record:
            metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
            rows.append(_Row(where, line, record.get("role"), record.get("content"), metadata))
        else:
            builder.tally.skip(line, f"lines that are not Goose messages ({kind_of(record)})", where)
        first = False
    if not rows and not meta:
        raise FieldProblem(None, "no Goose messages found; expected a metadata line and one message per line")
    converter = convert(rows, builder)
    _session_usage(builder, meta)
    builder.warnings[:0] = lines.warnings
    if not meta:
        builder.warnings.append("no metadata line: the file starts with a message (its first line may be missing)")
    info = SessionInfo(id=os.path.basename(src.name).removesuffix(".jsonl"), title=meta.get("description") or None,
                       message_count=len(builder))
    if meta:
        builder.metadata["session_metadata"] = {k: meta[k] for k in METADATA_KEYS if k in meta}
    return builder.build(model=converter.model, sessions=[info], session_id=info.id)


# ---------------------------------------------------------------------------------------------
# The SQLite store


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _rows(conn: sqlite3.Connection, session_id: str, columns: set[str]) -> Iterable[_Row]:
    wanted = ["id", "role", "content_json"] + [c for c in ("metadata_json", "tokens") if c in columns]
    query = f"SELECT {', '.join(wanted)} FROM messages WHERE session_id = ? ORDER BY id"
    for record in conn.execute(query, (session_id,)):
        row = dict(zip(wanted, record, strict=True))
        where = f"message row {row['id']}"
        metadata = _json(row.get("metadata_json"), {})
        yield _Row(where, row["id"], row["role"], _json(row["content_json"], None),
                   metadata if isinstance(metadata, dict) else {}, row.get("tokens"))


def _model(record: dict[str, Any]) -> str | None:
    config = record.get("model_config_json")
    try:
        parsed = json.loads(config) if isinstance(config, str) and config else None
    except ValueError:
        return None
    model = parsed.get("model_name") if isinstance(parsed, dict) else None
    return model if isinstance(model, str) and model else None


def parse_sqlite(conn: sqlite3.Connection, src: InputSource, session: str | None) -> Conversation:
    try:
        return _parse_store(conn, src, session)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise FormatError(f"{src.name}: reading the Goose store failed ({exc}); the file may be damaged") from None
    finally:
        conn.close()


def _parse_store(conn: sqlite3.Connection, src: InputSource, session: str | None) -> Conversation:
    if not looks_like_store(conn):
        tables = ", ".join(sorted(row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")))
        raise FormatError(
            f"{src.name}: a SQLite database, but not a Goose sessions.db: it has the tables {tables or 'none'}; "
            "expected a 'sessions' table and a 'messages' table with 'content_json'"
        )
    columns = _columns(conn, "messages")
    session_columns = _columns(conn, "sessions")
    order = "updated_at, rowid" if "updated_at" in session_columns else "rowid"
    records = [dict(row) for row in conn.execute(f"SELECT * FROM sessions ORDER BY {order}")]
    if not records:
        raise FormatError(f"{src.name}: the Goose store holds no sessions")
    infos: list[SessionInfo] = []
    for record in records:
        counter = Builder(NAME, None)
        convert(list(_rows(conn, str(record["id"]), columns)), counter)  # listed with what it loads to
        sub_agent = record.get("session_type") == "sub_agent"
        infos.append(SessionInfo(
            id=str(record["id"]), title=record.get("name") or record.get("description") or None,
            message_count=len(counter), started_at=record.get("created_at"), model=_model(record),
            is_sidechain=sub_agent, kind="sidechain" if sub_agent else "session",
        ))
    with_messages = [info.id for info in infos if info.message_count]
    chosen = pick_session(infos, session, src, default=(with_messages or [infos[-1].id])[-1])
    record = records[[info.id for info in infos].index(chosen)]
    builder = Builder(NAME, src.name, unit="message row")
    converter = convert(list(_rows(conn, chosen, columns)), builder)
    _session_usage(builder, record)
    builder.metadata["session"] = {k: record[k] for k in ("working_dir", "session_type", "created_at", "updated_at",
                                                          "provider_name", "total_tokens", "input_tokens", "output_tokens",
                                                          "accumulated_total_tokens") if k in record}
    conv = builder.build(model=converter.model or _model(record), sessions=infos, session_id=chosen)
    total = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    orphans = conn.execute("SELECT COUNT(*) FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)").fetchone()[0]
    conv.report.add_other_sessions(max(0, total - conv.report.read - orphans))
    if orphans:
        conv.report.skip("message rows of sessions the sessions table does not list", count=orphans)
    return conv


FORMAT = FormatSpec(
    name=NAME,
    description="Goose sessions (sessions.db, session JSONL)",
    detect_records=looks_like,
    parse_records=parse_records,
    detect_sqlite=looks_like_store,
    parse_sqlite=parse_sqlite,
)
