"""Resumable readers: one transcript on disk, read again only as far as it changed.

Each source keeps what it read and gives, poll after poll, the conversation of the file as it is
now (``core.formats`` readers do the conversion, so it is what ``load`` gives for the same state):

* :class:`LinesSource`, JSON Lines logs (Claude Code, Codex rollouts and ``exec`` streams, Gemini
  CLI ``.jsonl``, Copilot CLI events, pi / OpenClaw, Hermes gateway and export files, Goose, and any
  JSONL format registered later): a :class:`~core.live.tail.FileTail` reads the appended bytes; each
  complete line is decoded and parsed once and kept; a half-written last line is held until its
  newline arrives (and read as ``load`` reads it meanwhile); the format's reader then runs over the
  kept lines (``core.formats.load_lines``), without reading the file again.
* :class:`DocumentSource`, one JSON document rewritten whole by its tool (Gemini CLI
  ``session-*.json``, Copilot's older history files, Continue sessions, ...): a ``stat`` per poll;
  the file is read again only when its size, modification time or inode moved; a document caught
  half-written is retried at the next polls, the last good conversation kept meanwhile.
* :class:`StoreSource`, SQLite stores (Hermes ``state.db``, OpenCode, Goose): the database and its
  ``-wal`` file are looked at; a change reloads the followed session read-only, and a Hermes
  compression that continued the session in a new one is followed (and reported).
* :class:`FolderSource`, folders a tool writes (a Cline task folder, an OpenCode storage tree): the
  sizes and times of their files.

No source writes anything: files are opened read-only and SQLite stores through the importer's
read-only connection.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from core.formats import Conversation, FormatError
from core.formats.loader import load, load_lines
from core.formats.source import (
    DEFAULT_MAX_BYTES,
    HEAD_BYTES,
    SQLITE_MAGIC,
    InputSource,
    JsonLines,
    LineRead,
    open_input,
    read_line,
    sniff_layout,
)
from core.live.tail import APPENDED, MISSING, RESET, UNCHANGED, FileTail, describe_os_error

__all__ = [
    "DocumentSource",
    "FolderSource",
    "LinesSource",
    "LiveSource",
    "SourceUpdate",
    "StoreSource",
    "open_source",
]

# Update states (see LiveStatus.state).
CHANGED = "changed"
SAME = "same"
WAITING = "waiting"
GONE = "missing"
UNREADABLE = "unreadable"
INVALID = "invalid"
# Polls a half-written document is retried although its size and time did not move.
HALF_WRITTEN_RETRIES = 3
# Folder signatures look at no more files than this.
MAX_FOLDER_FILES = 20_000


@dataclass
class SourceUpdate:
    """What a poll of a source found: ``state`` is ``changed`` (``conversation`` is the new one),
    ``same``, ``waiting``, ``missing``, ``unreadable`` or ``invalid``; ``event`` names what happened
    (``start``, ``appended``, ``rewritten``, ``reset``, ``session``) and ``note`` says it in words."""

    state: str
    event: str = ""
    note: str = ""
    conversation: Conversation | None = None
    lines: int = 0
    bytes: int = 0
    more: bool = False
    size: int | None = None  # how much of the file the conversation was read from (bytes)


class LiveSource:
    """The interface of the sources below: ``poll()`` after each look at the file."""

    kind = "source"
    path: str

    def poll(self) -> SourceUpdate:  # pragma: no cover - overridden
        raise NotImplementedError


def _error_text(exc: Exception) -> str:
    return " ".join(str(exc).split())


# --- JSON Lines ----------------------------------------------------------------------------------


@dataclass
class _HeldLines(JsonLines):
    """The lines a :class:`LinesSource` holds, given to the format's reader as if read from the file."""

    held: list[LineRead] = field(default_factory=list)
    last: LineRead | None = None

    def line_reads(self) -> Iterator[LineRead]:
        yield from self.held
        if self.last is not None:
            yield self.last


class LinesSource(LiveSource):
    """A JSON Lines log read incrementally (see the module docstring)."""

    kind = "lines"

    def __init__(self, path: str, name: str, format: str | None = None, session: str | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.path, self.name, self.format, self.session, self.max_bytes = path, name, format, session, max_bytes
        self.tail = FileTail(path, keep_head=HEAD_BYTES)
        self.reads: list[LineRead] = []
        self.records = 0  # complete lines that held a JSON value
        self.last: LineRead | None = None  # the unterminated last line, read as load reads it
        self.src: InputSource | None = None
        self.src_head = -1  # how much of the file's start ``src`` was made from
        self.started = False  # a conversation was read
        self.polled = False

    def poll(self) -> SourceUpdate:
        change = self.tail.poll()
        first, self.polled = not self.polled, True
        if change.kind == MISSING:
            return SourceUpdate(GONE, "missing", change.reason)
        if change.kind not in (APPENDED, RESET, UNCHANGED):
            return SourceUpdate(UNREADABLE, "unreadable", change.reason)
        if change.kind == UNCHANGED:
            return SourceUpdate(WAITING, "start", "the file is empty") if first else SourceUpdate(SAME)
        event, note = ("appended" if self.started else "start"), ""
        last_was_record = self.last is not None and self.last.ok
        if change.kind == RESET:
            self.reads, self.records, self.last, self.src, self.src_head = [], 0, None, None, -1
            event, note = "reset", f"{change.reason}; read again from the start"
        if self.tail.position > self.max_bytes:
            # Refused as load refuses it, before holding more of it.
            self.reads, self.records, self.last = [], 0, None
            return SourceUpdate(INVALID, event, f"the file is {self.tail.position:,} bytes, above the "
                                                f"{self.max_bytes:,}-byte limit (pass a larger limit to follow it anyway)")
        for line_no, raw in change.lines:
            if line_no == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8):]
            read = read_line(line_no, raw)
            self.reads.append(read)
            self.records += read.ok
        partial = change.partial
        if not self.reads and partial.startswith(codecs.BOM_UTF8):
            partial = partial[len(codecs.BOM_UTF8):]
        self.last = read_line(self.tail.lines_read + 1, partial) if partial else None
        if change.more:
            # A long backlog: read on before converting.
            return SourceUpdate(WAITING, event, "reading the file", lines=len(change.lines), bytes=change.bytes_read,
                                more=True)
        if self.started and change.kind == APPENDED and not change.lines and not last_was_record and \
                not (self.last is not None and self.last.ok):
            # Only a piece of a line being written: no record appeared or went, so nothing to convert.
            return SourceUpdate(SAME, lines=0, bytes=change.bytes_read)
        update = self._convert()
        update.event = update.event or event
        update.note = "; ".join(text for text in (note, update.note) if text)
        update.lines, update.bytes = len(change.lines), change.bytes_read
        self.started = self.started or update.state == CHANGED
        return update

    def _source(self) -> InputSource:
        """The input's description for the reader, made from the start of the file the tail kept
        (what ``load`` looks at to choose the encoding), so the file is not read again for it."""
        head = bytes(self.tail.head)
        if self.src is None or self.src_head != len(head):
            src = open_input(head, self.name, max(self.max_bytes, len(head)))
            if src.head_decode_error is not None and len(head) >= HEAD_BYTES:
                # A character cut at the end of the kept start: decide on the file, as load does.
                src = open_input(self.path, self.name, max(self.max_bytes, self.tail.position))
            src.data, src.path = None, Path(self.path)
            self.src, self.src_head = src, len(head)
        self.src.size = self.tail.position
        return self.src

    def _convert(self) -> SourceUpdate:
        position = self.tail.position
        if not self.records and not any(read.problem for read in self.reads) and (self.last is None or not self.last.ok):
            return SourceUpdate(WAITING, "", "no complete line yet")
        try:
            src = self._source()
            if src.encoding not in ("utf-8", "utf-8-sig"):
                raise FormatError(f"{self.name}: a {src.encoding} log cannot be followed line by line")
            lines = _HeldLines(src, held=self.reads, last=self.last)
            conversation = load_lines(lines, self.format, session=self.session)
        except FormatError as exc:
            return SourceUpdate(INVALID, "", _error_text(exc))
        return SourceUpdate(CHANGED, conversation=conversation, size=position)

    @staticmethod
    def suits(path: str, name: str, max_bytes: int) -> bool:
        """Whether ``path`` is JSON Lines in UTF-8 (what this source reads incrementally)."""
        src = open_input(path, name, max_bytes)
        return src.encoding in ("utf-8", "utf-8-sig") and sniff_layout(src) == "jsonl"


# --- whole files: documents, stores, folders ----------------------------------------------------


class _SnapshotSource(LiveSource):
    """A source read whole whenever its signature (sizes, times, inodes) moves."""

    changed_event = "changed"

    def __init__(self, path: str, name: str, format: str | None = None, session: str | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.path, self.name, self.format, self.session, self.max_bytes = path, name, format, session, max_bytes
        self.signature: object = None
        self.retries = 0
        self.started = False

    def signature_now(self) -> object:
        st = os.stat(self.path)
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def read(self) -> Conversation:
        return load(self.path, filename=self.name, format=self.format, max_bytes=self.max_bytes, session=self.session)

    def poll(self) -> SourceUpdate:
        try:
            signature = self.signature_now()
        except FileNotFoundError:
            self.signature = None
            return SourceUpdate(GONE, "missing", "no such file (deleted, moved away, or not created yet)")
        except OSError as exc:
            return SourceUpdate(UNREADABLE, "unreadable", f"cannot look at the file: {describe_os_error(exc)}")
        if signature == self.signature:
            if self.retries <= 0:
                return SourceUpdate(SAME)
            self.retries -= 1
        else:
            # A writer caught half-way may finish within the same size and time: retry a few polls.
            self.retries = HALF_WRITTEN_RETRIES
        self.signature = signature
        event = self.changed_event if self.started else "start"
        try:
            conversation = self.read()
        except FormatError as exc:
            text = _error_text(exc)
            if "looks truncated" in text or "ends before it is complete" in text:
                return SourceUpdate(WAITING, event, f"the file looks half-written (waiting for its writer): {text}")
            self.retries = 0
            if "the file is empty" in text:
                return SourceUpdate(WAITING, event, "the file is empty")
            return SourceUpdate(INVALID, event, text)
        except OSError as exc:
            self.retries = 0
            return SourceUpdate(UNREADABLE, "unreadable", f"cannot read the file: {describe_os_error(exc)}")
        self.retries = 0
        self.started = True
        size = signature[2] if isinstance(signature, tuple) and len(signature) == 4 else None
        return SourceUpdate(CHANGED, event, conversation=conversation, size=size)


class DocumentSource(_SnapshotSource):
    """One JSON document its tool rewrites whole (see the module docstring)."""

    kind = "document"
    changed_event = "rewritten"


class FolderSource(_SnapshotSource):
    """A folder a tool writes as one transcript (see the module docstring)."""

    kind = "folder"

    def signature_now(self) -> object:
        if not os.path.isdir(self.path):
            raise FileNotFoundError(self.path)
        entries = []
        for root, dirs, files in os.walk(self.path):
            dirs.sort()
            for name in sorted(files):
                try:
                    st = os.stat(os.path.join(root, name))
                except OSError:
                    continue
                entries.append((os.path.relpath(os.path.join(root, name), self.path), st.st_size, st.st_mtime_ns))
                if len(entries) >= MAX_FOLDER_FILES:
                    return tuple(entries)
        return tuple(entries)


class StoreSource(_SnapshotSource):
    """A SQLite store: the followed session, reloaded read-only when the store or its log changes.

    Without a session the store's default one is followed (Hermes: the most recently started). A
    Hermes compression ends a session and continues it in a new one (``compressed_into``): the
    follower moves to the continuation and says so.
    """

    kind = "store"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.followed: str | None = None

    def signature_now(self) -> object:
        st = os.stat(self.path)
        parts: list[object] = [(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)]
        try:
            wal = os.stat(self.path + "-wal")
            parts.append((wal.st_size, wal.st_mtime_ns))
        except OSError:
            parts.append(None)
        return tuple(parts)

    def poll(self) -> SourceUpdate:
        update = super().poll()
        conversation = update.conversation
        if conversation is None:
            return update
        by_id = {info.id: info for info in conversation.sessions}
        if self.session:
            current, hops = self.session, 0
            while by_id.get(current) is not None and by_id[current].compressed_into and hops < 100:
                current, hops = str(by_id[current].compressed_into), hops + 1
            if hops:
                self.session = current
                try:
                    update.conversation = conversation = self.read()
                except (FormatError, OSError) as exc:
                    return SourceUpdate(INVALID, "session", _error_text(exc))
        previous, self.followed = self.followed, conversation.session_id
        if previous is not None and conversation.session_id != previous:
            info = by_id.get(str(conversation.session_id))
            update.event = "session"
            if info is not None and info.compressed_from == previous:
                update.note = f"session {previous} was compressed and continues as {conversation.session_id}"
            else:
                update.note = f"now following session {conversation.session_id} (was {previous})"
        return update


def open_source(path: str | os.PathLike[str], format: str | None = None, session: str | None = None,
                max_bytes: int = DEFAULT_MAX_BYTES, name: str | None = None) -> LiveSource:
    """The source that reads ``path`` best: a folder, a SQLite store, JSON Lines, or a document.

    Raises ``OSError`` when the path cannot be looked at yet (the follower retries) and
    :class:`FormatError` for input that is no transcript at all (empty files are waited for).
    """
    text = os.fspath(path)
    shown = name or text
    if os.path.isdir(text):
        return FolderSource(text, shown, format, session, max_bytes)
    with open(text, "rb") as handle:
        magic = handle.read(len(SQLITE_MAGIC))
    if magic == SQLITE_MAGIC:
        return StoreSource(text, shown, format, session, max_bytes)
    if LinesSource.suits(text, shown, max_bytes):
        return LinesSource(text, shown, format, session, max_bytes)
    return DocumentSource(text, shown, format, session, max_bytes)

