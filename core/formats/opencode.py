"""OpenCode sessions: the SQLite store ``opencode.db``, ``opencode export <id>`` JSON, and the older
JSON storage tree (``storage/session/<project>/<id>.json``, ``storage/message/<session>/<id>.json``,
``storage/part/<message>/<id>.json``).

The store has ``session``, ``message`` and ``part`` tables whose ``data`` column holds the JSON
OpenCode keeps for each (its message ``info`` or part); it is opened read-only and never written.
Messages are ordered by creation time then id, parts by id, as OpenCode reads them; the messages
and parts are turned into canonical messages by :mod:`core.formats.opencode_parts`. Every session
of a store or storage tree is listed in ``Conversation.sessions`` (subagent sessions, which have a
parent, with ``kind="sidechain"``) and loads with ``load(..., session=id)``; the default is the
most recently updated top-level session. Messages after the point a session was reverted to are
skipped with a warning (OpenCode deletes them with the next prompt).

The load report counts the message and part rows (or files, or export items) of the loaded
session; the other sessions' rows are counted as other sessions. A single message or part file of
the storage tree is refused: it is one piece of a session, and the session is its folder.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from core.formats.fields import is_object, is_text, list_or_empty
from core.formats.messages import Builder, FieldProblem, kind_of
from core.formats.model import Conversation, FormatError, SessionInfo
from core.formats.opencode_parts import Message, SessionConverter
from core.formats.session_pick import pick_session
from core.formats.source import (
    DEFAULT_MAX_BYTES,
    InputSource,
    JsonProblem,
    decode_all,
    open_input,
    parse_json_problem,
)
from core.formats.spec import FormatSpec

NAME = "opencode"
REVERTED = "messages after the point the session was reverted to (OpenCode deletes them with the next prompt)"
PIECE = (
    "this is one {what} of an OpenCode session (from storage/{folder}/); a session is read whole: give the "
    "storage folder, or the session's own file storage/session/<project>/<session id>.json"
)


def _has_id(doc: Any, prefix: str) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("id"), str) and doc["id"].startswith(prefix)


def _is_session_info(doc: Any) -> bool:
    return _has_id(doc, "ses") and isinstance(doc.get("time"), dict) and ("projectID" in doc or "directory" in doc)


def _is_message_info(doc: Any) -> bool:
    return _has_id(doc, "msg") and "sessionID" in doc and doc.get("role") in ("user", "assistant")


def _is_part(doc: Any) -> bool:
    return _has_id(doc, "prt") and "messageID" in doc and isinstance(doc.get("type"), str)


def _is_export(doc: Any) -> bool:
    if not (isinstance(doc, dict) and _is_session_info(doc.get("info")) and isinstance(doc.get("messages"), list)):
        return False
    return all(isinstance(m, dict) and isinstance(m.get("info"), dict) and isinstance(m.get("parts"), list)
               for m in doc["messages"][:20])


def looks_like(doc: Any) -> bool:
    return _is_export(doc) or _is_session_info(doc) or _is_message_info(doc) or _is_part(doc)


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def looks_like_store(conn: sqlite3.Connection) -> bool:
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"session", "message", "part"} <= tables:
            return False
        return {"id", "message_id", "data"} <= set(_columns(conn, "part")) and "data" in _columns(conn, "message")
    except sqlite3.DatabaseError:
        return False


# ---------------------------------------------------------------------------------------------
# One session, whatever it was read from


def _time(info: dict[str, Any], key: str) -> float | None:
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    value = time.get(key)
    return value / 1000 if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _convert(messages: list[Message], session: dict[str, Any], builder: Builder) -> SessionConverter:
    converter = SessionConverter(builder)
    revert = converter.aside.keep(session.get("revert"), is_object, "revert", "revert", "the point the session was "
                                  "reverted to (an object)", "no messages are skipped as reverted") or {}
    reverted = False
    for message in messages:
        reverted = reverted or message.info.get("id") == revert.get("messageID")
        if reverted:
            builder.tally.skip(message.key, REVERTED, message.where)
            for key, where in zip(message.part_keys, message.part_wheres, strict=True):
                builder.tally.skip(key, f"parts of {REVERTED}", where)
            continue
        converter.add(message)
    # The session's own fields: one of the wrong type is said, not silently dropped.
    aside = converter.aside
    aside.keep(session.get("title"), is_text, "title", "title", "the session's title as text", "the session has no title")
    aside.keep(session.get("parentID"), is_text, "parentID", "parentID", "the parent session's id",
               "the session is listed as a top-level one")
    aside.keep(session.get("time"), is_object, "time", "time", "an object of times", "the session has no times")
    converter.finish()
    return converter


def _info(session: dict[str, Any], count: int, model: str | None) -> SessionInfo:
    parent = session.get("parentID") if isinstance(session.get("parentID"), str) else None
    return SessionInfo(
        id=str(session["id"]),
        title=session.get("title") if isinstance(session.get("title"), str) else None,  # checked in _convert
        message_count=count,
        parent_id=str(parent) if parent else None,
        is_sidechain=bool(parent),
        started_at=_time(session, "created"),
        model=model,
        kind="sidechain" if parent else "session",
    )


def _default(sessions: list[dict[str, Any]]) -> str:
    """The most recently updated top-level session (a subagent's only when there is nothing else)."""
    top = [s for s in sessions if not s.get("parentID")] or sessions
    return str(max(top, key=lambda s: (_time(s, "updated") or _time(s, "created") or 0.0))["id"])


def _build(
    src_name: str,
    unit: str,
    sessions: list[dict[str, Any]],
    read: Any,
    session: str | None,
    other_rows: Any,
) -> Conversation:
    """Every session converted once for its count, the chosen one kept; ``read(id, builder)`` gives a
    session's messages and ``other_rows(id)`` how many rows the other sessions hold."""
    counts: dict[str, tuple[int, str | None]] = {}
    for item in sessions:
        if len(sessions) > 1:
            scratch = Builder(NAME, src_name, unit=unit)
            converter = _convert(read(str(item["id"]), scratch), item, scratch)
            counts[str(item["id"])] = (len(scratch), converter.model)
    infos = [_info(item, *counts.get(str(item["id"]), (0, None))) for item in sessions]
    chosen = pick_session(infos, session, InputSource(src_name), default=_default(sessions))
    record = next(item for item in sessions if str(item["id"]) == chosen)
    builder = Builder(NAME, src_name, unit=unit)
    converter = _convert(read(chosen, builder), record, builder)
    info = next(i for i in infos if i.id == chosen)
    info.message_count, info.model = len(builder), converter.model
    builder.metadata["session"] = {k: record[k] for k in ("directory", "projectID", "version", "share", "summary")
                                   if k in record}
    conv = builder.build(model=converter.model, sessions=infos, session_id=chosen, system_prompt=converter.system)
    conv.report.add_other_sessions(other_rows(chosen))
    return conv


def _message(info: Any, parts: Iterable[tuple[Any, Any, str]], key: Any, where: str, builder: Builder) -> Message | None:
    """A message from its info and ``(key, part, where)`` rows; a row that is not an object is skipped."""
    if not isinstance(info, dict):
        builder.tally.skip(key, f"messages that are not objects ({kind_of(info)})", where)
        for part_key, _, part_where in parts:
            builder.tally.skip(part_key, "parts of messages that are not objects", part_where)
        return None
    message = Message(info, [], key, where)
    for part_key, part, part_where in parts:
        if isinstance(part, dict):
            message.parts.append(part)
            message.part_keys.append(part_key)
            message.part_wheres.append(part_where)
        else:
            builder.tally.skip(part_key, f"parts that are not objects ({kind_of(part)})", part_where)
    return message


# ---------------------------------------------------------------------------------------------
# opencode export <id>


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if _is_message_info(doc):
        raise FieldProblem(None, PIECE.format(what="message", folder="message/<session id>"))
    if _is_part(doc):
        raise FieldProblem(None, PIECE.format(what="part of a message", folder="part/<message id>"))
    if _is_session_info(doc):
        return _session_file(doc, src, session)
    if not _is_export(doc):
        raise FieldProblem(None, "expected an OpenCode export: an object with the session's 'info' and 'messages' "
                                 "(each with 'info' and 'parts')")
    entries = doc["messages"]

    def read(_: str, builder: Builder) -> list[Message]:
        found = []
        for index, entry in enumerate(entries):
            parts = list_or_empty(entry.get("parts"), f"messages[{index}].parts", "the message's parts") \
                if isinstance(entry, dict) else []
            rows = [((index, position), part, f"messages[{index}].parts[{position}]") for position, part in enumerate(parts)]
            info = entry.get("info") if isinstance(entry, dict) else entry
            message = _message(info, rows, (index,), f"messages[{index}]", builder)
            if message is not None:
                found.append(message)
        return found

    return _build(src.name, "item", [doc["info"]], read, session, lambda _: 0)


# ---------------------------------------------------------------------------------------------
# opencode.db


def parse_sqlite(conn: sqlite3.Connection, src: InputSource, session: str | None) -> Conversation:
    try:
        return _parse_sqlite(conn, src, session)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged pages yield undecodable error text
        raise FormatError(f"{src.name}: reading the OpenCode store failed ({exc}); the file may be damaged") from None
    finally:
        conn.close()


def _row_json(text: Any, key: Any, where: str, builder: Builder) -> Any:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    try:
        return parse_json_problem(text) if isinstance(text, str) else None
    except JsonProblem as exc:
        builder.warnings.append(f"{where}: its data is not valid JSON ({exc.what}); row skipped")
        builder.tally.skip(key, "rows whose data is not valid JSON", where, announced=True)
        return None


def _parse_sqlite(conn: sqlite3.Connection, src: InputSource, session: str | None) -> Conversation:
    if not looks_like_store(conn):
        raise FormatError(f"{src.name}: a SQLite database, but not an OpenCode store: expected 'session', 'message' "
                          "and 'part' tables with 'data' columns")
    session_cols = set(_columns(conn, "session"))
    order = "time_created, id" if "time_created" in session_cols else "rowid"
    sessions = []
    for row in conn.execute(f"SELECT * FROM session ORDER BY {order}"):
        row = dict(row)
        created, updated = row.get("time_created"), row.get("time_updated")
        sessions.append({"id": row["id"], "title": row.get("title"), "parentID": row.get("parent_id"),
                         "directory": row.get("directory"), "version": row.get("version"),
                         "time": {"created": created, "updated": updated},
                         "revert": _plain_json(row.get("revert"))})
    if not sessions:
        raise FormatError(f"{src.name}: the OpenCode store holds no sessions")
    message_order = "time_created, id" if "time_created" in _columns(conn, "message") else "rowid"

    def read(session_id: str, builder: Builder) -> list[Message]:
        parts: dict[str, list[tuple[Any, Any, str]]] = {}
        for part_id, message_id, data in conn.execute(
            "SELECT id, message_id, data FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?) "
            "ORDER BY message_id, id", (session_id,)
        ):
            where = f"part {part_id}"
            part = _row_json(data, ("part", part_id), where, builder)
            if part is not None:
                part = {**part, "id": part_id, "messageID": message_id} if isinstance(part, dict) else part
                parts.setdefault(message_id, []).append((("part", part_id), part, where))
        found = []
        for message_id, data in conn.execute(
            f"SELECT id, data FROM message WHERE session_id = ? ORDER BY {message_order}", (session_id,)
        ):
            where = f"message {message_id}"
            info = _row_json(data, ("message", message_id), where, builder)
            rows = parts.pop(message_id, [])
            if info is None:
                for key, _, part_where in rows:
                    builder.tally.skip(key, "parts of rows whose data is not valid JSON", part_where)
                continue
            info = {**info, "id": message_id, "sessionID": session_id} if isinstance(info, dict) else info
            message = _message(info, rows, ("message", message_id), where, builder)
            if message is not None:
                found.append(message)
        return found

    def other_rows(chosen: str) -> int:
        (messages,) = conn.execute("SELECT COUNT(*) FROM message WHERE session_id != ?", (chosen,)).fetchone()
        (parts,) = conn.execute("SELECT COUNT(*) FROM part WHERE message_id NOT IN "
                                "(SELECT id FROM message WHERE session_id = ?)", (chosen,)).fetchone()
        return int(messages) + int(parts)

    conv = _build(src.name, "row", sessions, read, session, other_rows)
    conv.metadata["store"] = {"tables": [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]}
    return conv


def _plain_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


# ---------------------------------------------------------------------------------------------
# The storage tree


def _storage_root(path: Path) -> Path | None:
    for candidate in (path / "storage", path):
        if (candidate / "session").is_dir() and (candidate / "message").is_dir():
            return candidate
    return None


def looks_like_folder(path: Path) -> bool:
    return _storage_root(path) is not None


class _Tree:
    """Reading the JSON files of a storage tree; a damaged file is skipped with a warning."""

    def __init__(self, root: Path, name: str, max_bytes: int) -> None:
        self.root = root
        self.name = name
        self.max_bytes = max_bytes
        self.warnings: list[str] = []

    def read(self, path: Path) -> Any:
        relative = path.relative_to(self.root).as_posix()
        try:
            src = open_input(path, relative, self.max_bytes)
            text = decode_all(src)
            return parse_json_problem(text[1:] if text.startswith("\ufeff") else text)
        except FormatError as exc:
            self.warnings.append(f"{exc}; file skipped")
        except JsonProblem as exc:
            self.warnings.append(f"{relative}: {exc}; file skipped")
        return None

    def files(self, folder: Path) -> list[Path]:
        return sorted(folder.glob("*.json")) if folder.is_dir() else []


def parse_folder(folder: Path, name: str, session: str | None, max_bytes: int) -> Conversation:
    root = _storage_root(folder)
    if root is None:
        raise FormatError(f"{name}: not an OpenCode storage folder (expected session/ and message/ folders in it)")
    return _parse_tree(root, name, session, max_bytes)


def _parse_tree(root: Path, name: str, session: str | None, max_bytes: int) -> Conversation:
    tree = _Tree(root, name, max_bytes)
    sessions = []
    for path in sorted((root / "session").glob("*/*.json")):
        doc = tree.read(path)
        if _is_session_info(doc):
            sessions.append(doc)
    if not sessions:
        raise FormatError(f"{name}: the OpenCode storage folder holds no session files (session/<project>/<id>.json)")

    def message_files(session_id: str) -> list[tuple[Path, Any]]:
        files = [(path, tree.read(path)) for path in tree.files(root / "message" / session_id)]
        # OpenCode orders by creation time, then id.
        return sorted(files, key=lambda item: (_time(item[1], "created") or 0.0 if isinstance(item[1], dict) else 0.0,
                                               item[0].stem))

    def read(session_id: str, builder: Builder) -> list[Message]:
        found = []
        for path, info in message_files(session_id):
            key = path.relative_to(root).as_posix()
            part_paths = tree.files(root / "part" / path.stem)
            rows = []
            for part_path in part_paths:
                part_key = part_path.relative_to(root).as_posix()
                part = tree.read(part_path)
                if part is None:
                    builder.tally.skip(part_key, "files that are not valid JSON", part_key, announced=True)
                else:
                    rows.append((part_key, part, part_key))
            if info is None:
                builder.tally.skip(key, "files that are not valid JSON", key, announced=True)
                for part_key, _, _ in rows:
                    builder.tally.skip(part_key, "parts of files that are not valid JSON", part_key)
                continue
            message = _message(info, rows, key, key, builder)
            if message is not None:
                found.append(message)
        return found

    def other_rows(chosen: str) -> int:
        count = 0
        for item in sessions:
            if str(item["id"]) != chosen:
                for path in tree.files(root / "message" / str(item["id"])):
                    count += 1 + len(tree.files(root / "part" / path.stem))
        return count

    conv = _build(name, "file", sessions, read, session, other_rows)
    conv.warnings[:0] = list(dict.fromkeys(tree.warnings))
    return conv


def _session_file(doc: dict[str, Any], src: InputSource, session: str | None) -> Conversation:
    """A session's own file: its messages are in the storage tree it sits in."""
    path = src.path
    if path is None or len(path.resolve().parents) < 3 or path.resolve().parents[1].name != "session":
        raise FieldProblem(None, "this is an OpenCode session file: it holds the session's title and times, its "
                                 "messages are in the storage folder around it; give that folder (or the file in it)")
    root = path.resolve().parents[2]
    if _storage_root(root) is None:
        raise FieldProblem(None, f"this OpenCode session file's messages should be in {root / 'message'}, which is "
                                 "missing; give the whole storage folder")
    return _parse_tree(root, src.name, session or str(doc["id"]), DEFAULT_MAX_BYTES)


FORMAT = FormatSpec(
    name=NAME,
    description="OpenCode sessions (opencode.db, opencode export JSON, the storage/ folder)",
    detect_document=looks_like,
    parse_document=parse_document,
    parse_sqlite=parse_sqlite,
    detect_sqlite=looks_like_store,
    detect_directory=looks_like_folder,
    parse_directory=parse_folder,
)
