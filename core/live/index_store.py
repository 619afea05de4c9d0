"""The sessions index's cache: a small SQLite file outside the watched folders.

One file per measuring unit (the token estimator and the model's encoding decide the figures it
keeps), under ``~/.cache/context-lens/`` (``$XDG_CACHE_HOME`` and ``$CONTEXT_LENS_CACHE`` move it).
Tables: ``files`` (path, size, modification time, the ``-wal`` file's for a store: the key of an
entry), ``sessions`` (one row per session, the figures that do not depend on the threshold) and
``texts`` (the sessions' text, a full-text index when SQLite has FTS5, a plain table otherwise).
A cache from another version of the index is dropped and built again.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["INDEX_VERSION", "IndexStore", "default_cache_dir"]

#: Bumped when what a row holds changes: older caches are rebuilt.
INDEX_VERSION = 3  # 3: a session without a title is named by its first request
SESSION_COLUMNS = ("file", "session", "tool", "project", "title", "started", "model", "messages", "request_tokens",
                   "trigger_tokens", "trigger_source", "compactions", "error")


def default_cache_dir() -> Path:
    """``$CONTEXT_LENS_CACHE``, else ``$XDG_CACHE_HOME/context-lens``, else ``~/.cache/context-lens``."""
    explicit = os.environ.get("CONTEXT_LENS_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "context-lens"


class IndexStore:
    """The cache file of one measuring unit (see the module docstring). Thread-safe: one connection,
    used under a lock (the page reads while a refresh writes)."""

    def __init__(self, directory: str | os.PathLike[str], unit_key: str) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        digest = hashlib.blake2b(unit_key.encode("utf-8"), digest_size=6).hexdigest()
        self.path = self.directory / f"sessions-{digest}.sqlite"
        self.lock = threading.RLock()
        self.conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.fts = self._create(unit_key)

    def _create(self, unit_key: str) -> bool:
        with self.lock, self.conn:
            self.conn.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
            stored = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
            if stored.get("version") != str(INDEX_VERSION) or stored.get("unit") != unit_key:
                for table in ("files", "sessions", "texts"):
                    self.conn.execute(f"DROP TABLE IF EXISTS {table}")
                self.conn.execute("DELETE FROM meta")
                self.conn.executemany("INSERT INTO meta VALUES (?, ?)",
                                      [("version", str(INDEX_VERSION)), ("unit", unit_key)])
            self.conn.execute("CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER,"
                              " extra TEXT, mtime REAL)")
            columns = ", ".join(f"{name} {'INTEGER' if name in ('messages', 'request_tokens', 'trigger_tokens', 'compactions') else 'TEXT'}"
                                for name in SESSION_COLUMNS)
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS sessions({columns}, PRIMARY KEY(file, session))")
            try:
                self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS texts USING fts5(file UNINDEXED, session UNINDEXED,"
                                  " body, tokenize='unicode61 remove_diacritics 2')")
                return True
            except sqlite3.OperationalError:  # a SQLite without FTS5: search scans the text instead
                self.conn.execute("CREATE TABLE IF NOT EXISTS texts(file TEXT, session TEXT, body TEXT)")
                return False

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock, self.conn:
            yield self.conn

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    # -- files -------------------------------------------------------------------------------------

    def file_keys(self) -> dict[str, tuple[int, int, str]]:
        with self.lock:
            return {path: (size, mtime_ns, extra or "")
                    for path, size, mtime_ns, extra in self.conn.execute("SELECT path, size, mtime_ns, extra FROM files")}

    def known_sessions(self, path: str) -> dict[str, int]:
        """``{session: messages}`` of a file's sessions already indexed."""
        with self.lock:
            return {session: messages for session, messages in self.conn.execute(
                "SELECT session, messages FROM sessions WHERE file = ? AND error IS NULL", (path,))}

    def forget(self, paths: Iterable[str]) -> None:
        with self.transaction() as conn:
            for path in paths:
                for table in ("files", "sessions", "texts"):
                    conn.execute(f"DELETE FROM {table} WHERE {'path' if table == 'files' else 'file'} = ?", (path,))

    def put(self, path: str, key: tuple[int, int, str], mtime: float, rows: list[dict[str, Any]]) -> None:
        """Replace what is kept about ``path`` by ``rows`` (rows marked ``unchanged`` keep theirs)."""
        kept = {row["session"] for row in rows if row.get("unchanged")}
        with self.transaction() as conn:
            for table in ("sessions", "texts"):
                existing = [s for (s,) in conn.execute(f"SELECT session FROM {table} WHERE file = ?", (path,))]
                for session in existing:
                    if session not in kept:
                        conn.execute(f"DELETE FROM {table} WHERE file = ? AND session IS ?", (path, session))
            conn.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)", (path, key[0], key[1], key[2], mtime))
            for row in rows:
                if row.get("unchanged"):
                    continue
                values = [row.get(name) for name in SESSION_COLUMNS]
                values[0] = path
                values[1] = row.get("session") or ""
                conn.execute(f"INSERT OR REPLACE INTO sessions VALUES ({', '.join('?' * len(SESSION_COLUMNS))})", values)
                if row.get("text"):
                    conn.execute("INSERT INTO texts VALUES (?, ?, ?)", (path, values[1], row["text"]))

    # -- reading -----------------------------------------------------------------------------------

    def sessions(self) -> list[dict[str, Any]]:
        with self.lock:
            cursor = self.conn.execute(
                f"SELECT {', '.join('s.' + name for name in SESSION_COLUMNS)}, f.mtime, f.size "
                "FROM sessions s JOIN files f ON f.path = s.file")
            names = [*SESSION_COLUMNS, "last_activity", "size"]
            return [dict(zip(names, row, strict=True)) for row in cursor]

    def matches(self, text: str) -> list[tuple[str, str]]:
        """``(file, session)`` of the sessions whose text holds every word of ``text``, best first."""
        words = _words(text)
        if not words:
            return []
        with self.lock:
            if self.fts:
                try:
                    return [(file, session) for file, session in self.conn.execute(
                        "SELECT file, session FROM texts WHERE texts MATCH ? ORDER BY rank", (_fts_query(words),))]
                except sqlite3.OperationalError:
                    pass  # a query FTS5 cannot parse: scan instead
            clauses = " AND ".join("instr(lower(body), ?) > 0" for _ in words)
            return [(file, session) for file, session in self.conn.execute(
                f"SELECT file, session FROM texts WHERE {clauses}", [word.lower() for word in words])]

    def snippets(self, text: str, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """A short excerpt around the match for each of ``keys`` (only those: excerpts cost)."""
        words = _words(text)
        wanted = set(keys)
        if not words or not wanted:
            return {}
        found: dict[tuple[str, str], str] = {}
        with self.lock:
            for file, session, body in self.conn.execute(
                    f"SELECT file, session, body FROM texts WHERE {' OR '.join(['(file = ? AND session = ?)'] * len(wanted))}",
                    [value for key in wanted for value in key]):
                found[(file, session)] = _excerpt(body, words)
        return found


def _words(text: str) -> list[str]:
    return [word for word in (text or "").split() if word.strip('"')]


def _fts_query(words: list[str]) -> str:
    """Every word as a quoted string: FTS5 operators and quotes in the user's text stay text."""
    return " ".join('"' + word.replace('"', '""') + '"' for word in words)


EXCERPT_CHARS = 60


def _excerpt(body: str, words: list[str]) -> str:
    """The text around the first word found, with the words marked ``**like this**``."""
    lower = body.lower()
    at = min((index for index in (lower.find(word.lower().strip('"')) for word in words) if index >= 0), default=0)
    start, end = max(0, at - EXCERPT_CHARS), at + 2 * EXCERPT_CHARS
    excerpt = " ".join(body[start:end].split())
    for word in {word.strip('"') for word in words}:
        excerpt = _mark(excerpt, word)
    return ("…" if start else "") + excerpt + ("…" if end < len(body) else "")


def _mark(text: str, word: str) -> str:
    return _word_pattern(word).sub(lambda match: f"**{match.group(0)}**", text) if word else text


def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(re.escape(word), re.IGNORECASE)  # a literal: linear whatever the word


def audited_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """The searched word's pattern, built at run time (for ``core.pattern_audit``)."""
    return [("core.live.index_store._word_pattern", _word_pattern("compaction failed: a.b*c"))]
