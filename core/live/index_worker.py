"""What the sessions index reads from one file: :func:`index_file`, a task for ``core.batch.map_files``.

A plain top-level function of a path and a settings dict (picklable, so the same function runs
in-process, in the batch engine's process pool, or as a Ray task). It never raises: a file that
cannot be read becomes one row with its ``error``. Each row is one session (a SQLite store holds
many; a log file is one, its sidechains and abandoned branches being part of it): the tool, the
project, when it started, its messages, its whole request (``request_report``'s ``total`` and
trigger), its compactions, and its text for the search: what the user and the assistant wrote and
the tool calls (names and arguments), each message cut at ``MESSAGE_TEXT_CHARS`` and the whole at
``SESSION_TEXT_CHARS``. Tool results (file contents, command output) are left out: they are most of
a log's bytes and would make the cache as large as the logs.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import Any

__all__ = ["MESSAGE_TEXT_CHARS", "SESSION_TEXT_CHARS", "TITLE_CHARS", "first_request", "index_file", "session_text"]

MESSAGE_TEXT_CHARS = 2_000
SESSION_TEXT_CHARS = 64_000
# Lines of a JSONL log looked at for its working directory and first time stamp.
PEEK_LINES = 40
PEEK_BYTES = 256 * 1024


# A session without a title of its own is named by its first request, cut to this many characters.
TITLE_CHARS = 80


def first_request(messages: list[Any]) -> str | None:
    """The first line of the first message the user wrote, cut to :data:`TITLE_CHARS`: how an agent's
    own session picker names a session it has no title for (a Codex rollout has none). A handoff
    summary, a continued session's preamble or a wrapper the harness injected is no request."""
    from core.facts import is_user_words
    from core.message_view import content_text, role_of

    for message in messages:
        if role_of(message) != "user":
            continue
        text = content_text(message.get("content"))
        if not is_user_words(text):
            continue
        line = next(line.strip() for line in text.splitlines() if line.strip())
        return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"
    return None


def session_text(messages: list[Any]) -> str:
    """The searchable text of a conversation (see the module docstring)."""
    from core.message_view import content_text

    pieces, total = [], 0
    for message in messages:
        if not isinstance(message, dict) or message.get("role") == "tool":
            continue
        text = content_text(message.get("content"))
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                text += f"\n{function.get('name', '')} {function.get('arguments', '')}"
        text = text.strip()[:MESSAGE_TEXT_CHARS]
        if text:
            pieces.append(text)
            total += len(text) + 1
            if total >= SESSION_TEXT_CHARS:
                break
    return "\n".join(pieces)[:SESSION_TEXT_CHARS]


def _iso(value: Any) -> str | None:
    """A start time as ISO 8601 (UTC): epoch seconds or milliseconds, or a date string as written."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None
    text = str(value).strip()
    return text or None


def _peek(path: str) -> dict[str, Any]:
    """The first ``cwd`` and ``timestamp`` of a JSONL log (Claude Code writes them on every row)."""
    found: dict[str, Any] = {}
    try:
        with open(path, "rb") as handle:
            head = handle.read(PEEK_BYTES)
    except OSError:
        return found
    for raw in head.split(b"\n")[:PEEK_LINES]:
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        for key in ("cwd", "timestamp"):
            if key not in found and isinstance(record.get(key), str) and record[key]:
                found[key] = record[key]
        if len(found) == 2:
            break
    return found


def _project(path: str, conversation: Any, peeked: dict[str, Any]) -> str | None:
    meta = conversation.metadata or {}
    if "store" in meta:
        return None  # a store's sessions share its folder, which names no project
    session_meta = meta.get("session_meta")
    if isinstance(session_meta, dict) and isinstance(session_meta.get("cwd"), str):
        return session_meta["cwd"]  # Codex
    if isinstance(peeked.get("cwd"), str):
        return peeked["cwd"]  # Claude Code
    session = meta.get("session")
    if isinstance(session, dict) and isinstance(session.get("projectHash"), str):
        # Gemini CLI names the project by a hash; its folder under ~/.gemini/tmp is the readable part.
        parts = os.path.normpath(path).split(os.sep)
        return parts[-3] if len(parts) >= 3 and parts[-2] == "chats" else session["projectHash"][:12]
    return os.path.basename(os.path.dirname(os.path.abspath(path))) or None


def _row(path: str, conversation: Any, settings: dict[str, Any], peeked: dict[str, Any]) -> dict[str, Any]:
    from core.config import CompressorConfig
    from core.inspections.request import request_report

    config = CompressorConfig(**settings["config"])
    report = request_report(conversation, config)
    info = next((item for item in conversation.sessions if item.id == conversation.session_id), None)
    return {
        "file": path,
        "session": conversation.session_id,
        "tool": conversation.format,
        "project": _project(path, conversation, peeked),
        "title": (info.title if info is not None else None) or first_request(conversation.messages),
        "started": _iso(info.started_at if info is not None and info.started_at else peeked.get("timestamp")),
        "model": conversation.model,
        "messages": len(conversation.messages),
        "request_tokens": int(report["total"]),
        "trigger_tokens": int(report["trigger"]["tokens"]),
        "trigger_source": str(report["trigger"]["source"]),
        "compactions": len(conversation.compaction_events),
        "text": session_text(conversation.messages),
        "error": None,
    }


def _error_row(path: str, exc: BaseException, session: str | None = None) -> dict[str, Any]:
    from core.batch import error_text

    return {"file": path, "session": session, "error": error_text(exc, path)}


def index_file(path: str, settings: dict[str, Any], data: bytes | None = None) -> list[dict[str, Any]]:
    """The index rows of one file (see the module docstring).

    ``settings["config"]`` are ``CompressorConfig`` fields; ``settings["known"]`` may map a store's
    path to ``{session id: message count}`` of the sessions already indexed: those come back as
    ``{"session": id, "unchanged": True}`` instead of being read again.
    """
    from core.bulk_work import collector_paused
    from core.formats import load

    source: Any = data if data is not None else path
    name = path if data is not None else None
    try:
        with collector_paused():
            conversation = load(source, filename=name)
            peeked = _peek(path) if data is None and path.endswith(".jsonl") else {}
            if len(conversation.sessions) <= 1 or not _is_store(path, data):
                return [_row(path, conversation, settings, peeked)]
            known = (settings.get("known") or {}).get(path, {})
            rows = []
            for info in conversation.sessions:
                if info.kind != "session" or info.is_sidechain:
                    continue
                if known.get(info.id) == info.message_count:
                    rows.append({"file": path, "session": info.id, "unchanged": True})
                    continue
                try:
                    one = conversation if info.id == conversation.session_id else load(source, filename=name,
                                                                                       session=info.id)
                    rows.append(_row(path, one, settings, {}))
                except Exception as exc:  # one damaged session is its row, not the store's
                    rows.append(_error_row(path, exc, info.id))
            return rows
    except Exception as exc:  # a bad file is a row with its error, never a crash
        return [_error_row(path, exc)]


def _is_store(path: str, data: bytes | None) -> bool:
    from core.formats.source import SQLITE_MAGIC

    if data is not None:
        return data.startswith(SQLITE_MAGIC)
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False
