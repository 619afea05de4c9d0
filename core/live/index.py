"""The sessions index: every agent session under some folders, as one sortable, searchable table.

``SessionIndex(roots, config=...)``. :meth:`SessionIndex.refresh` walks the folders (a ``stat`` per
session file), reads only the files whose size or modification time moved since the last refresh
(for a SQLite store, its ``-wal`` file's too; inside a store, only the sessions whose message count
moved), and forgets the files that are gone. What it reads is kept in a small cache outside the
watched folders (``core.live.index_store``), so a rescan of thousands of unchanged sessions costs
their ``stat`` calls. A large first scan runs on the batch engine (``core.batch.map_files``: the
local process pool, or Ray), whose results are stored as each file is done, so that the first rows
are there before the last file is read. :meth:`SessionIndex.rows` lists the sessions (filtered by text, sorted by any column);
``would_compress`` is decided at that moment against the configured threshold, so a change of the
window or the percentage needs no rescan.

Which files are sessions, by folder: ``~/.claude/projects`` its ``*.jsonl`` logs (subagent files
are part of their session), ``~/.codex/sessions`` (and ``archived_sessions``) its ``rollout-*.jsonl``,
``~/.gemini/tmp`` the ``chats/session-*.json`` / ``.jsonl`` files, ``~/.hermes`` its ``state.db``
(one row per session) and the transcripts under ``sessions/`` (``SESSION_FILES``); any other
folder, every file with a transcript extension (``core.batch_files.TRANSCRIPT_EXTENSIONS``).
"""

from __future__ import annotations

import fnmatch
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.config import CompressorConfig
from core.live.index_store import IndexStore, default_cache_dir

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_ROOTS", "RefreshSummary", "SessionIndex", "SessionRow", "default_roots", "discover"]

DEFAULT_ROOTS: tuple[str, ...] = ("~/.claude/projects", "~/.codex/sessions", "~/.gemini/tmp", "~/.hermes")
#: A refresh with at least this many files to read uses the batch engine (below it, starting worker
#: processes costs more than it saves).
ENGINE_MIN_FILES = 48
SORTABLE = ("tool", "project", "title", "started", "last_activity", "messages", "request_tokens", "trigger_tokens",
            "compactions", "would_compress", "file", "size")

ProgressCallback = Callable[[int, int], None]


def default_roots() -> list[Path]:
    """The agents' own folders (``DEFAULT_ROOTS``), expanded."""
    return [Path(root).expanduser() for root in DEFAULT_ROOTS]


@dataclass
class SessionRow:
    """One session of the index. ``last_activity`` is the file's modification time (epoch seconds);
    ``started`` is ISO 8601 as the log wrote it; ``request_tokens`` the whole request in exact tokens
    and ``trigger_tokens`` what Hermes' trigger test sees (as ``analyze --json``'s ``request``);
    ``snippet`` the matching text when the rows were searched."""

    file: str
    session: str
    tool: str | None
    project: str | None
    title: str | None
    started: str | None
    last_activity: float
    messages: int | None
    request_tokens: int | None
    trigger_tokens: int | None
    trigger_source: str | None
    compactions: int | None
    threshold_tokens: int
    would_compress: bool | None
    model: str | None = None
    size: int = 0
    error: str | None = None
    snippet: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RefreshSummary:
    """What a refresh did: files seen, read again, kept from the cache, forgotten, failed."""

    files: int = 0
    indexed: int = 0
    reused: int = 0
    removed: int = 0
    failed: int = 0
    seconds: float = 0.0
    engine: str = "inline"
    missing_roots: list[str] = field(default_factory=list)
    #: Folders and files that could not be looked at (``path: reason``, e.g. permission denied).
    unreadable: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self, *, missing: bool = True) -> str:
        """One line; ``missing=False`` leaves out the folders not found (a page that names them already)."""
        text = (f"{self.files:,} file(s): {self.indexed:,} read ({self.engine}), {self.reused:,} from the cache, "
                f"{self.removed:,} gone, {self.failed:,} unreadable · {self.seconds:.2f} s")
        text += f" · not found: {', '.join(self.missing_roots)}" if missing and self.missing_roots else ""
        return text + (f" · {len(self.unreadable):,} cannot be read" if self.unreadable else "")


# --- which files are sessions --------------------------------------------------------------------


def _root_kind(root: Path) -> str:
    parts = root.resolve().parts if root.exists() else root.parts
    tail = "/".join(parts[-2:])
    if tail == ".claude/projects":
        return "claude"
    if tail in (".codex/sessions", ".codex/archived_sessions"):
        return "codex"
    if tail == ".gemini/tmp":
        return "gemini"
    if parts and parts[-1] == ".hermes":
        return "hermes"
    return "any"


#: Which files under an agent's folder are sessions: patterns of their path below the folder
#: (``fnmatch``: ``*`` crosses folders too); a file whose name matches ``NOT_SESSIONS`` never is one.
#: A new kind of session file (the Hermes plugin's compaction log, say) is one more pattern here;
#: how it is read comes from the format registry, as for every file.
SESSION_FILES: dict[str, tuple[str, ...]] = {
    "claude": ("*/*.jsonl",),  # <project>/<session>.jsonl
    "codex": ("*rollout-*.jsonl",),  # YYYY/MM/DD/rollout-*.jsonl
    "gemini": ("*/chats/session-*.json", "*/chats/session-*.jsonl"),
    "hermes": ("state.db", "sessions/*.jsonl", "sessions/*.json"),
}
# Subagent runs (part of their session's file) and the tools' own indexes.
NOT_SESSIONS: tuple[str, ...] = ("agent-*.jsonl", "sessions.json", "sessions-index.json")


def _wanted(kind: str, relative: str, name: str) -> bool:
    from core.batch_files import TRANSCRIPT_EXTENSIONS

    if name.startswith(".") or any(fnmatch.fnmatchcase(name, pattern) for pattern in NOT_SESSIONS):
        return False
    if kind == "any":
        return name.lower().endswith(TRANSCRIPT_EXTENSIONS)
    return any(fnmatch.fnmatchcase(relative, pattern) for pattern in SESSION_FILES[kind])


def _key(path: str, st: os.stat_result) -> tuple[int, int, str]:
    """What says a file changed: its size and time, and for a SQLite store those of its ``-wal``."""
    extra = ""
    if path.endswith((".db", ".sqlite", ".sqlite3")):
        try:
            wal = os.stat(path + "-wal")
            extra = f"{wal.st_size}:{wal.st_mtime_ns}"
        except OSError:
            pass
    return st.st_size, st.st_mtime_ns, extra


def discover(roots: Sequence[str | os.PathLike[str]], unreadable: list[str] | None = None,
             ) -> tuple[dict[str, tuple[tuple[int, int, str], float]], list[str]]:
    """The session files under ``roots``: ``{path: (key, mtime)}``, and the roots that do not exist.
    Folders and files that cannot be looked at are added to ``unreadable`` (``path: reason``)."""
    from core.live.tail import describe_os_error

    found: dict[str, tuple[tuple[int, int, str], float]] = {}
    missing = []
    problems = unreadable if unreadable is not None else []

    def refused(exc: OSError) -> None:
        problems.append(f"{exc.filename or '?'}: {describe_os_error(exc)}")

    for root in roots:
        base = Path(root).expanduser()
        try:
            if not base.is_dir():
                missing.append(str(root))
                continue
        except OSError as exc:  # a parent folder that cannot be entered
            problems.append(f"{root}: {describe_os_error(exc)}")
            continue
        kind = _root_kind(base)
        for directory, dirs, files in os.walk(base, onerror=refused):
            rel = Path(directory).relative_to(base).as_posix()
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in files:
                if not _wanted(kind, name if rel == "." else f"{rel}/{name}", name):
                    continue
                path = os.path.join(directory, name)
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    continue  # gone since the folder was listed
                except OSError as exc:
                    refused(exc)
                    continue
                found[path] = (_key(path, st), st.st_mtime)
    return found, missing


# --- the index -----------------------------------------------------------------------------------


class SessionIndex:
    """The sessions under ``roots`` (see the module docstring).

    Args:
        roots: Folders to index (``default_roots()`` when None).
        config: The compressor parameters; the figures kept depend on its token estimator and
            model (each pair has its own cache file), ``would_compress`` on the rest.
        cache_dir: Where the cache is kept (``default_cache_dir()`` when None); never inside a root.
        engine: ``"local"`` (process pool) or ``"ray"`` for a large scan.
        workers: Worker processes (default: all cores).
        address: A Ray cluster to join (with ``engine="ray"``).
    """

    def __init__(self, roots: Sequence[str | os.PathLike[str]] | None = None, *, config: CompressorConfig | None = None,
                 cache_dir: str | os.PathLike[str] | None = None, engine: str = "local", workers: int | None = None,
                 address: str | None = None) -> None:
        from core.tokens import encoding_name_for_model

        self.roots = [Path(root).expanduser() for root in (roots if roots is not None else default_roots())]
        self.config = config or CompressorConfig()
        self.engine, self.workers, self.address = engine, workers, address
        directory = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
        resolved = directory.resolve()
        for root in self.roots:
            if root.exists() and (resolved == root.resolve() or root.resolve() in resolved.parents):
                raise ValueError(f"{directory}: the index cache must not be inside a watched folder ({root})")
        unit = f"{self.config.token_estimator}:{encoding_name_for_model(self.config.model)}"
        self.store = IndexStore(directory, unit)

    def close(self) -> None:
        self.store.close()

    def _settings(self) -> dict[str, Any]:
        from dataclasses import fields

        return {"config": {f.name: getattr(self.config, f.name) for f in fields(self.config)}}

    def refresh(self, progress: bool | ProgressCallback = False) -> RefreshSummary:
        """Bring the cache up to date with the folders (see the module docstring).

        ``progress`` is a callback ``(done, total)`` called as files are read, or True for a
        progress bar on standard error (the batch engine's).
        """
        started = time.perf_counter()
        unreadable: list[str] = []
        found, missing = discover(self.roots, unreadable)
        cached = self.store.file_keys()
        gone = [path for path in cached if path not in found]
        self.store.forget(gone)
        todo = [path for path, (key, _mtime) in found.items() if cached.get(path) != key]
        summary = RefreshSummary(files=len(found), reused=len(found) - len(todo), removed=len(gone),
                                 missing_roots=missing, unreadable=unreadable)
        callback = progress if callable(progress) else None
        bar = progress is True
        settings = self._settings()
        stores = [path for path in todo if path.endswith((".db", ".sqlite", ".sqlite3"))]
        settings["known"] = {path: self.store.known_sessions(path) for path in stores}
        done = 0

        def keep(path: str, rows: list[dict[str, Any]]) -> None:
            nonlocal done
            key, mtime = found[path]
            if any(row.get("error") for row in rows):
                summary.failed += 1
            self.store.put(path, key, mtime, rows)
            done += 1
            if callback is not None:
                callback(done, len(todo))

        from core.live.index_worker import index_file

        pooled = len(todo) >= ENGINE_MIN_FILES and (self.workers or os.cpu_count() or 1) > 1
        if pooled or (self.engine == "ray" and todo):
            from core.batch import map_files

            # One pool for the whole scan; each file's rows are kept as it is done, so the first
            # rows can be listed before the last file is read.
            summary.engine = self.engine
            map_files(index_file, todo, settings, engine=self.engine, workers=self.workers, address=self.address,
                      progress=bar, on_result=keep)
        else:
            for path in todo:
                keep(path, index_file(path, settings))
        summary.indexed = len(todo)
        summary.seconds = time.perf_counter() - started
        return summary

    def rows(self, query: str | None = None, *, sort_by: str = "last_activity", descending: bool = True,
             tool: str | None = None, include_errors: bool = False, snippets: int = 50) -> list[SessionRow]:
        """The indexed sessions: only those whose text holds every word of ``query``, of ``tool``;
        sorted by ``sort_by`` (one of ``SORTABLE``; empty values last). With a query, the first
        ``snippets`` rows carry the text around the match."""
        if sort_by not in SORTABLE:
            raise ValueError(f"cannot sort by {sort_by!r}; expected one of {', '.join(SORTABLE)}")
        matching = set(self.store.matches(query)) if query and query.strip() else None
        rows = [row for row in self._all_rows(include_errors)
                if (tool is None or row.tool == tool) and (matching is None or (row.file, row.session) in matching)]
        present = [row for row in rows if getattr(row, sort_by) is not None]
        empty = [row for row in rows if getattr(row, sort_by) is None]
        present.sort(key=lambda row: getattr(row, sort_by), reverse=descending)
        rows = present + empty
        if query and matching:
            self._add_snippets(query, rows[:snippets])
        return rows

    def search(self, text: str, limit: int = 50) -> list[SessionRow]:
        """The sessions whose text holds every word of ``text``, best match first, with an excerpt."""
        by_key = {(row.file, row.session): row for row in self._all_rows(False)}
        found = [by_key[key] for key in self.store.matches(text) if key in by_key][:limit]
        self._add_snippets(text, found)
        return found

    def _add_snippets(self, text: str, rows: list[SessionRow]) -> None:
        excerpts = self.store.snippets(text, [(row.file, row.session) for row in rows])
        for row in rows:
            row.snippet = excerpts.get((row.file, row.session))

    def _all_rows(self, include_errors: bool) -> list[SessionRow]:
        threshold = self.config.threshold_tokens
        rows = []
        for record in self.store.sessions():
            if record["error"] and not include_errors:
                continue
            trigger = record["trigger_tokens"]
            rows.append(SessionRow(
                file=record["file"], session=record["session"], tool=record["tool"], project=record["project"],
                title=record["title"], started=record["started"], last_activity=record["last_activity"] or 0.0,
                messages=record["messages"], request_tokens=record["request_tokens"], trigger_tokens=trigger,
                trigger_source=record["trigger_source"], compactions=record["compactions"], threshold_tokens=threshold,
                would_compress=None if trigger is None else trigger >= threshold, model=record["model"],
                size=record["size"] or 0, error=record["error"],
            ))
        return rows

    def frame(self, query: str | None = None, **options: Any) -> pd.DataFrame:
        """:meth:`rows` as a pandas table (the page's; ``last_activity`` as a UTC time)."""
        import pandas as pd

        rows = [row.to_dict() for row in self.rows(query, **options)]
        columns = list(SessionRow.__dataclass_fields__)
        frame = pd.DataFrame(rows, columns=columns)
        frame["last_activity"] = pd.to_datetime(frame["last_activity"], unit="s", utc=True).dt.tz_convert(None)
        return frame

    def render(self, rows: Sequence[SessionRow]) -> str:
        """A plain-text table of ``rows`` (the command line's)."""
        header = ("tool", "project", "started", "last activity", "msgs", "tokens", "compactions", "compress?", "title")
        lines = [header]
        for row in rows:
            lines.append((
                row.tool or "-", _short(row.project, 28), (row.started or "-")[:16],
                time.strftime("%Y-%m-%d %H:%M", time.localtime(row.last_activity)) if row.last_activity else "-",
                f"{row.messages:,}" if row.messages is not None else "-",
                f"{row.request_tokens:,}" if row.request_tokens is not None else "-",
                str(row.compactions) if row.compactions is not None else "-",
                {True: "yes", False: "no", None: "-"}[row.would_compress],
                _short(row.snippet or row.title, 48),
            ))
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
                         for line in lines)


def _short(text: str | None, width: int) -> str:
    """``text`` on one line in ``width`` characters: a path keeps its end, other text its start."""
    if not text:
        return "-"
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    return "…" + text[-(width - 1):] if text.startswith("/") else text[: width - 1] + "…"
