"""Hermes Agent sessions: the SQLite ``state.db``, ``hermes sessions export`` JSONL, the per-session
JSON snapshots and the legacy gateway JSONL transcripts.

Rows are ordered by ``id``; ``session_meta`` rows are skipped; content stored as
``"\\x00json:" + JSON`` is decoded; ``tool_calls`` may be a JSON string or a list. When the
store has an ``active`` column (in-place compaction), rows with ``active = 0`` are left out of
``messages`` and listed in ``metadata["archived_messages"]``. Sessions chained through
``parent_session_id`` after a split with ``end_reason = "compression"`` give before/after
pairs: see :attr:`SessionInfo.compressed_from` / ``compressed_into``. ``load`` returns the
most recently started session unless ``session=`` names another.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from core.formats.messages import Builder, FieldProblem, is_hermes_summary, kind_of, make_message, text_of
from core.formats.model import CompactionEvent, Conversation, FormatError, SessionInfo
from core.formats.openai_chat import MessageNormalizer, looks_like_message
from core.formats.session_pick import pick_session
from core.formats.source import InputSource, JsonLines, JsonProblem, parse_json_problem
from core.formats.spec import FormatSpec
from core.formats.sqlite_limits import PROMPT_CHARS, LimitedReader

NAME = "hermes"
JSON_CONTENT_PREFIX = "\x00json:"
SESSION_KEYS = ("source", "parent_session_id", "started_at")
_MESSAGE_COLUMNS = ("session_id", "role", "content")
# A title is a label: a longer one is cut (a store may hold megabytes in it).
_TITLE_CHARS = 1_000
# The columns of a store that are read (the others are never computed).
_SESSION_COLUMNS = ("id", "session_id", "title", "parent_session_id", "started_at", "session_start", "end_reason",
                    "model", "source")
_MESSAGE_READ = ("id", "session_id", "role", "content", "tool_calls", "tool_call_id", "reasoning_content", "reasoning",
                 "active", "token_count", "_compressed_summary")
# Keys Hermes' gateway writes on message lines that plain chat logs do not have.
GATEWAY_KEYS = ("tool_name", "message_id", "finish_reason", "reasoning_details", "platform_message_id")
ARCHIVED = "rows archived by an in-place compaction (active = 0; in metadata['archived_messages'])"
SESSION_META = "session_meta rows (the gateway's session header)"


def looks_like_session(record: Any) -> bool:
    """An export line / session object: ``messages`` plus Hermes session columns."""
    return (
        isinstance(record, dict)
        and isinstance(record.get("messages"), list)
        and (any(key in record for key in SESSION_KEYS) or ("session_id" in record and "session_start" in record))
    )


def looks_like(doc: Any) -> bool:
    if looks_like_session(doc):
        return True
    return isinstance(doc, list) and bool(doc) and all(looks_like_session(item) for item in doc[:20])


def _is_gateway_line(record: Any) -> bool:
    return isinstance(record, dict) and (record.get("role") == "session_meta" or looks_like_message(record))


def looks_like_gateway(records: list[tuple[int, Any]]) -> bool:
    """Gateway transcript lines: a ``session_meta`` line anywhere in the head, or message lines carrying
    the gateway's ISO ``timestamp`` and keys of its own (``tool_name``, ``message_id``, ...)."""
    dicts = [record for _, record in records if isinstance(record, dict)]
    if not dicts or not all(_is_gateway_line(record) for record in dicts):
        return False
    if any(record.get("role") == "session_meta" for record in dicts):
        return True
    stamped = sum(1 for record in dicts if isinstance(record.get("timestamp"), str))
    return stamped * 2 >= len(dicts) and any(key in record for record in dicts for key in GATEWAY_KEYS)


def looks_like_records(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    if not dicts:
        return False
    if dicts[0].get("role") == "session_meta":
        return True
    return all(looks_like_session(record) for record in dicts[:5]) or looks_like_gateway(records)


# ---------------------------------------------------------------------------------------------
# Rows → messages


def _decode_content(content: Any, where: str, builder: Builder) -> Any:
    if isinstance(content, bytes):  # a BLOB in the SQLite store: not JSON-serialisable as it is
        builder.warnings.append(f"{where}: content stored as binary data; decoded as UTF-8")
        content = content.decode("utf-8", errors="replace")
    if isinstance(content, str) and content.startswith(JSON_CONTENT_PREFIX):
        try:
            return parse_json_problem(content[len(JSON_CONTENT_PREFIX) :])
        except JsonProblem:
            builder.warnings.append(f"{where}: content has the JSON marker but is not valid JSON; kept as text")
            return content[len(JSON_CONTENT_PREFIX) :]
    return content


def _is_inactive(row: dict[str, Any]) -> bool:
    return "active" in row and row["active"] is not None and not row["active"]


def convert_rows(
    rows: Any,
    builder: Builder,
    system_prompt: str | None,
    parent: SessionInfo | None = None,
    where_of: Any = None,
) -> None:
    """Append a session's message rows (dicts) to ``builder``."""
    normalizer = MessageNormalizer(builder)
    archived: list[dict[str, Any]] = []
    prepended = False
    for position, row in enumerate(rows):
        where = where_of(position, row) if where_of else f"messages[{position}]"
        if not isinstance(row, dict):
            raise FieldProblem(where, f"expected a message object, got {kind_of(row)}")
        role = row.get("role")
        if role == "session_meta":
            builder.tally.meta(where, SESSION_META, where)
            continue
        if not prepended:
            prepended = True
            if system_prompt and role != "system":
                builder.add(make_message("system", system_prompt), "sessions.system_prompt")
        clean = {
            "role": role,
            "content": _decode_content(row.get("content"), where, builder),
            "tool_calls": row.get("tool_calls"),
        }
        if role == "tool":
            clean["tool_call_id"] = row.get("tool_call_id")
        for key in ("reasoning_content", "reasoning"):
            if row.get(key):
                clean[key] = row[key]
        message, reasoning = normalizer.normalize(clean, where)
        if _is_inactive(row):
            archived.append({"source": where, "message": message})
            builder.tally.meta(where, ARCHIVED, where)
            continue
        builder.tally.place(where, where)
        usage = {"token_count": row["token_count"]} if row.get("token_count") is not None else None
        index = builder.add(message, where, usage=usage, reasoning=reasoning)
        if is_hermes_summary(message.get("content")) or row.get("_compressed_summary"):
            event = CompactionEvent(position=index, kind="hermes-summary", summary=text_of(message.get("content")), source=where)
            if parent is not None and parent.end_reason == "compression":
                event.kind = "hermes-compression-split"
                event.details["before_session"] = parent.id
            builder.events.append(event)
    if not prepended and system_prompt:
        builder.add(make_message("system", system_prompt), "sessions.system_prompt")
    normalizer.finish()
    if archived:
        builder.metadata["archived_messages"] = archived


def _link_chains(infos: list[SessionInfo]) -> None:
    by_id = {info.id: info for info in infos}
    for info in infos:
        parent = by_id.get(info.parent_id) if info.parent_id else None
        if parent is not None and parent.end_reason == "compression":
            info.compressed_from = parent.id
            parent.compressed_into = info.id


def _latest(infos: list[SessionInfo]) -> str:
    def key(pair: tuple[int, SessionInfo]) -> tuple[float, int]:
        position, info = pair
        started = info.started_at if isinstance(info.started_at, (int, float)) else float("-inf")
        return started, position

    return max(enumerate(infos), key=key)[1].id


def _info_from_record(record: dict[str, Any], message_count: int, fallback_id: str) -> SessionInfo:
    started = record.get("started_at", record.get("session_start"))
    return SessionInfo(
        id=str(record.get("id") or record.get("session_id") or fallback_id),
        title=record["title"][:_TITLE_CHARS] if isinstance(record.get("title"), str) else None,
        message_count=message_count,
        parent_id=str(record["parent_session_id"]) if record.get("parent_session_id") else None,
        started_at=started if isinstance(started, (int, float, str)) else None,
        end_reason=record.get("end_reason") if isinstance(record.get("end_reason"), str) else None,
        model=record.get("model") if isinstance(record.get("model"), str) else None,
    )


def _message_count(rows: list[Any], system_prompt: Any) -> int:
    """How many messages ``convert_rows`` makes of a session: its live rows, plus the session's
    system prompt when the rows do not start with a system message."""
    kept = [r for r in rows if not (isinstance(r, dict) and r.get("role") == "session_meta")]
    live = sum(1 for r in kept if not (isinstance(r, dict) and _is_inactive(r)))
    first_role = kept[0].get("role") if kept and isinstance(kept[0], dict) else None
    prompt = isinstance(system_prompt, str) and bool(system_prompt)
    return live + (1 if prompt and first_role != "system" else 0)


def _record_count(record: dict[str, Any]) -> int:
    return _message_count(record["messages"], record.get("system_prompt"))


def _session_conversation(
    record: dict[str, Any], infos: list[SessionInfo], chosen: str, src: InputSource, prefix: str
) -> Conversation:
    builder = Builder(NAME, src.name)
    by_id = {info.id: info for info in infos}
    info = by_id[chosen]
    parent = by_id.get(info.parent_id) if info.parent_id else None
    system_prompt = record.get("system_prompt") if isinstance(record.get("system_prompt"), str) else None
    convert_rows(record["messages"], builder, system_prompt, parent, lambda i, _row: f"{prefix}messages[{i}]")
    tools = record.get("tools") if isinstance(record.get("tools"), list) else None
    builder.tally.unit = "message"
    return builder.build(model=info.model, tools=tools, sessions=infos, session_id=chosen)


# ---------------------------------------------------------------------------------------------
# JSON / JSONL inputs


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    records = doc if isinstance(doc, list) else [doc]
    if not records:
        raise FieldProblem(None, "expected at least one Hermes session object with 'messages', got an empty list")
    for index, record in enumerate(records):
        if not looks_like_session(record):
            raise FieldProblem(f"[{index}]" if isinstance(doc, list) else None, "expected a Hermes session object with 'messages'")
    infos = [_info_from_record(r, _record_count(r), f"session {i}") for i, r in enumerate(records)]
    _link_chains(infos)
    chosen = pick_session(infos, session, src, default=_latest(infos))
    position = [info.id for info in infos].index(chosen)
    prefix = f"[{position}]." if isinstance(doc, list) else ""
    conv = _session_conversation(records[position], infos, chosen, src, prefix)
    conv.report.add_other_sessions(sum(len(r["messages"]) for i, r in enumerate(records) if i != position))
    return conv


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    head = lines.head()
    if (head and isinstance(head[0][1], dict) and head[0][1].get("role") == "session_meta") or (
        head and not any(looks_like_session(record) for _, record in head) and all(_is_gateway_line(r) for _, r in head)
    ):
        return _parse_gateway(lines, src)
    # Export: one session per line. First pass: session infos only (messages are not kept).
    infos: list[SessionInfo] = []
    line_of: dict[str, int] = {}
    rows_of: dict[str, int] = {}
    not_sessions = 0
    for line, record in lines.records():
        if not looks_like_session(record):
            lines.warnings.append(f"line {line}: not a Hermes session object (no 'messages'); skipped")
            not_sessions += 1
            continue
        info = _info_from_record(record, _record_count(record), f"line {line}")
        infos.append(info)
        line_of[info.id] = line
        rows_of[info.id] = len(record["messages"])
    if not infos:
        raise FieldProblem(None, "no Hermes sessions found; expected one session object with 'messages' per line")
    _link_chains(infos)
    chosen = pick_session(infos, session, src, default=_latest(infos))
    warnings = list(lines.warnings)
    target_line = line_of[chosen]
    for line, record in lines.records():
        if line == target_line:
            conv = _session_conversation(record, infos, chosen, src, f"line {line} ")
            conv.warnings[:0] = warnings
            conv.report.add_other_sessions(sum(n for sid, n in rows_of.items() if sid != chosen))
            if not_sessions:
                conv.report.skip("lines that are not Hermes session objects", count=not_sessions, announced=True)
            return conv
    raise FormatError(f"{src.name}: line {target_line}: the session changed while it was being read")


def _parse_gateway(lines: JsonLines, src: InputSource) -> Conversation:
    """The pre-v0.15 gateway transcript: one message per line, a fresh session starting with a
    ``session_meta`` line (a session that was resumed or cut may have none)."""
    builder = Builder(NAME, src.name)
    normalizer = MessageNormalizer(builder)
    tally = builder.tally
    meta: dict[str, Any] = {}
    for line, record in lines.records():
        where = f"line {line}"
        if not isinstance(record, dict):
            lines.warnings.append(f"{where}: expected a message object; skipped")
            tally.skip(line, "lines that are not message objects", where, announced=True)
            continue
        if record.get("role") == "session_meta":
            meta = meta or record
            tally.meta(line, SESSION_META, where)
            continue
        keys = ("role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content", "reasoning")
        clean = {key: record[key] for key in keys if key in record}
        clean["content"] = _decode_content(clean.get("content"), where, builder)
        try:
            index = normalizer.add(clean, where)
        except FieldProblem as exc:
            lines.warnings.append(f"{exc}; line skipped")
            tally.skip(line, "message lines that could not be read", where, announced=True)
            continue
        tally.place(line, where)
        if index is not None and is_hermes_summary(builder.messages[index].get("content")):
            builder.events.append(
                CompactionEvent(position=index, kind="hermes-summary", summary=text_of(builder.messages[index]["content"]), source=where)
            )
    normalizer.finish()
    builder.warnings[:0] = lines.warnings
    tools = meta.get("tools") if isinstance(meta.get("tools"), list) else None
    model = meta.get("model") if isinstance(meta.get("model"), str) else None
    return builder.build(model=model, tools=tools)


# ---------------------------------------------------------------------------------------------
# SQLite store


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    # table_xinfo lists generated columns too (table_info hides them): they are read like the others,
    # within the limits of core.formats.sqlite_limits.
    return [row[1] for row in conn.execute(f"PRAGMA table_xinfo({table})")]


def parse_sqlite(conn: sqlite3.Connection, src: InputSource, session: str | None) -> Conversation:
    try:
        return _parse_sqlite(conn, src, session)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged pages yield undecodable error text
        raise FormatError(f"{src.name}: reading the Hermes store failed ({exc}); the file may be damaged") from None
    finally:
        conn.close()


def _parse_sqlite(conn: sqlite3.Connection, src: InputSource, session: str | None) -> Conversation:
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    session_cols = _columns(conn, "sessions") if "sessions" in tables else []
    message_cols = _columns(conn, "messages") if "messages" in tables else []
    missing = [c for c in _MESSAGE_COLUMNS if c not in message_cols]
    if "id" not in session_cols or missing:
        found = ", ".join(tables[:15]) or "none"
        raise FormatError(
            f"{src.name}: a SQLite database, but not a Hermes state.db: it has the tables {found}; expected "
            "a 'sessions' table (with 'id') and a 'messages' table (with 'session_id', 'role', 'content')"
        )
    has_active = "active" in message_cols
    live_filter = " AND (active IS NULL OR active != 0)" if has_active else ""
    # Every value is read within a limit, and only the columns used are read (a column of the store
    # may compute gigabytes from nothing): see core.formats.sqlite_limits.
    reader = LimitedReader(conn, src.name, src.max_bytes)
    keys = ("session_id", "role", "active") if has_active else ("session_id", "role")
    counts = dict(reader.rows(
        f"SELECT session_id, COUNT(*) FROM messages WHERE role != 'session_meta'{live_filter} GROUP BY session_id",
        table="messages", columns=keys))
    order = "started_at, rowid" if "started_at" in session_cols else "rowid"
    read = [column for column in _SESSION_COLUMNS if column in session_cols]
    has_prompt = ("CASE WHEN system_prompt IS NULL OR system_prompt = '' THEN 0 ELSE 1 END"
                  if "system_prompt" in session_cols else "0")
    session_rows = [dict(row) for row in reader.rows(
        f"SELECT {', '.join(read)}, {has_prompt} AS _has_prompt FROM sessions ORDER BY {order}",
        table="sessions", columns=[*read, *(("system_prompt",) if "system_prompt" in session_cols else ())],
        value_chars=PROMPT_CHARS)]
    if not session_rows:
        raise FormatError(f"{src.name}: the Hermes store holds no sessions")
    first_roles = dict(reader.rows(
        "SELECT m.session_id, m.role FROM messages m JOIN (SELECT session_id, MIN(id) AS first FROM messages "
        "WHERE role IS NOT 'session_meta' GROUP BY session_id) f ON m.id = f.first",
        table="messages", columns=("session_id", "role")))

    def message_count(row: dict[str, Any]) -> int:
        starts_with_system = first_roles.get(row["id"]) == "system"
        return counts.get(row["id"], 0) + (1 if row["_has_prompt"] and not starts_with_system else 0)

    infos = [_info_from_record(row, message_count(row), str(row["id"])) for row in session_rows]
    _link_chains(infos)
    chosen = pick_session(infos, session, src, default=_latest(infos))
    record = session_rows[[info.id for info in infos].index(chosen)]
    if "system_prompt" in session_cols:
        record["system_prompt"] = reader.value("SELECT system_prompt FROM sessions WHERE id = ?", (chosen,),
                                               table="sessions", columns=("system_prompt",))
    wanted = [column for column in _MESSAGE_READ if column in message_cols]
    rows = (dict(row) for row in reader.rows(
        f"SELECT {', '.join(wanted)} FROM messages WHERE session_id = ? ORDER BY id", (chosen,),
        table="messages", columns=wanted, value_chars=src.max_bytes))
    builder = Builder(NAME, src.name)
    by_id = {info.id: info for info in infos}
    info = by_id[chosen]
    parent = by_id.get(info.parent_id) if info.parent_id else None
    system_prompt = record.get("system_prompt") if isinstance(record.get("system_prompt"), str) else None
    convert_rows(rows, builder, system_prompt, parent, lambda _i, row: f"row {row.get('id')}")
    builder.metadata["store"] = {"tables": tables, "has_active_column": has_active}
    builder.tally.unit = "message row"
    conv = builder.build(model=info.model, sessions=infos, session_id=chosen)
    total = reader.value("SELECT COUNT(*) FROM messages", table="messages", columns=())
    orphans = reader.value("SELECT COUNT(*) FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)",
                           table="messages", columns=("session_id",))
    conv.report.add_other_sessions(max(0, total - conv.report.read - orphans))
    if orphans:
        conv.report.skip("message rows of sessions the store's sessions table does not list", count=orphans)
    return conv


FORMAT = FormatSpec(
    name=NAME,
    description="Hermes Agent sessions (state.db, sessions export, snapshots, gateway JSONL)",
    detect_document=looks_like,
    detect_records=looks_like_records,
    parse_document=parse_document,
    parse_records=parse_records,
    parse_sqlite=parse_sqlite,
)
