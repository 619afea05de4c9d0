"""Following one growing file: the lines appended since the last look, and whether it is the same file.

A :class:`FileTail` keeps a byte offset (the end of the last complete line it read) and the
unterminated last line so far. Each :meth:`FileTail.poll` starts with one ``stat``: when neither
the size nor the modification time moved, nothing is opened. Otherwise the file is opened read-only
(never written: no lock, no temporary file beside it), and before reading on, two small
fingerprints are checked: the first bytes of the file and the bytes just before the offset. A file
that was replaced (another inode: rotated, or rewritten through a rename), that shrank (truncated)
or whose start or last-read bytes changed (rewritten in place) is read again from the start, and the
poll says why. A missing file and a permission error are states, not exceptions.
"""

from __future__ import annotations

import hashlib
import os
import stat as stat_module
from dataclasses import dataclass, field
from typing import BinaryIO

__all__ = [
    "APPENDED",
    "MISSING",
    "RESET",
    "UNCHANGED",
    "UNREADABLE",
    "FileTail",
    "TailChange",
    "describe_os_error",
]

UNCHANGED = "unchanged"
APPENDED = "appended"  # new bytes (possibly only a piece of an unterminated line)
RESET = "reset"  # the file must be read from the start: ``reason`` says why, ``lines`` hold its lines
MISSING = "missing"
UNREADABLE = "unreadable"

# Bytes of the start of the file whose digest tells a rewritten file from the one already read.
HEAD_FINGERPRINT = 4096
# Bytes just before the read position checked on every read (a rewrite that keeps the start).
ANCHOR_BYTES = 256
# At most this much is read per poll, so one poll of a huge backlog does not hold the caller.
READ_LIMIT = 64 * 1024 * 1024


@dataclass
class TailChange:
    """What one poll found. ``lines`` are the new complete lines as ``(line number, bytes)`` (the
    newline kept, line numbers from 1 as an editor counts them); ``partial`` is the unterminated last
    line so far (``b""`` when the file ends with a newline). ``reason`` explains a reset, a missing
    file or a read error in words."""

    kind: str
    lines: list[tuple[int, bytes]] = field(default_factory=list)
    partial: bytes = b""
    reason: str = ""
    bytes_read: int = 0
    size: int = 0
    more: bool = False  # READ_LIMIT stopped the read: poll again at once


def describe_os_error(exc: OSError) -> str:
    """``permission denied`` and the like, without the path (the caller names the file)."""
    return (exc.strerror or type(exc).__name__).lower() if exc.strerror else str(exc)


class FileTail:
    """The appended lines of one file, poll after poll (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str], *, read_limit: int = READ_LIMIT,
                 keep_head: int = HEAD_FINGERPRINT) -> None:
        self.path = os.fspath(path)
        self.read_limit = read_limit
        self.keep_head = max(keep_head, HEAD_FINGERPRINT)  # bytes of the start kept in ``head``
        self._reset_state()

    def _reset_state(self) -> None:
        self.identity: tuple[int, int] | None = None
        self.offset = 0  # end of the last complete line read
        self.partial = b""
        self.lines_read = 0
        self.mtime_ns = -1
        self.size_seen = 0
        self.head_digest: bytes | None = None
        self.head_length = 0
        self.head = bytearray()  # the first ``keep_head`` bytes of the file
        self.last_line = b""  # the last complete line read (with the partial one, the anchor)

    @property
    def position(self) -> int:
        """How far the file has been read (complete lines and the partial one)."""
        return self.offset + len(self.partial)

    def poll(self) -> TailChange:
        """What changed since the last poll (the first poll reads the file from its start)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return TailChange(MISSING, reason="no such file (deleted, moved away, or not created yet)")
        except OSError as exc:
            return TailChange(UNREADABLE, reason=f"cannot look at the file: {describe_os_error(exc)}")
        if not stat_module.S_ISREG(st.st_mode):
            return TailChange(UNREADABLE, reason="not a regular file")
        reason = ""
        if self.identity is not None:
            if (st.st_dev, st.st_ino) != self.identity:
                reason = "the file was replaced (a new file at this path: rotated, or rewritten through a rename)"
            elif st.st_size < self.position:
                reason = f"the file shrank from {self.position:,} to {st.st_size:,} bytes (truncated or rewritten)"
            elif st.st_size == self.size_seen and st.st_mtime_ns == self.mtime_ns:
                return TailChange(UNCHANGED, size=st.st_size)
        try:
            with open(self.path, "rb") as handle:
                opened = os.fstat(handle.fileno())
                if self.identity is not None and not reason and (opened.st_dev, opened.st_ino) != self.identity:
                    reason = "the file was replaced (a new file at this path: rotated, or rewritten through a rename)"
                if not reason and self.identity is not None and not self._same_start(handle):
                    reason = "the file was rewritten in place (its start or the last lines read changed)"
                if reason or self.identity is None:
                    self._reset_state()
                    self.identity = (opened.st_dev, opened.st_ino)
                change = self._read_on(handle, opened)
        except FileNotFoundError:
            return TailChange(MISSING, reason="no such file (deleted, moved away, or not created yet)")
        except OSError as exc:
            return TailChange(UNREADABLE, reason=f"cannot read the file: {describe_os_error(exc)}")
        if reason:
            change.kind, change.reason = RESET, reason
        return change

    def _same_start(self, handle: BinaryIO) -> bool:
        """The first bytes and the bytes before the read position are still those read before."""
        if self.head_length:
            handle.seek(0)
            if hashlib.blake2b(handle.read(self.head_length), digest_size=16).digest() != self.head_digest:
                return False
        anchor = (self.last_line + self.partial)[-ANCHOR_BYTES:]
        if anchor:
            handle.seek(self.position - len(anchor))
            if handle.read(len(anchor)) != anchor:
                return False
        return True

    def _read_on(self, handle: BinaryIO, st: os.stat_result) -> TailChange:
        start = self.position
        handle.seek(start)
        data = handle.read(self.read_limit)
        self.mtime_ns = st.st_mtime_ns
        self.size_seen = start + len(data)
        if len(self.head) < self.keep_head and data:
            self.head += data[: self.keep_head - len(self.head)]
            if self.head_length < HEAD_FINGERPRINT:
                self.head_length = min(len(self.head), HEAD_FINGERPRINT)
                self.head_digest = hashlib.blake2b(bytes(self.head[: self.head_length]), digest_size=16).digest()
        if not data:
            return TailChange(UNCHANGED, partial=self.partial, size=self.size_seen)
        pieces = (self.partial + data).split(b"\n")
        self.partial = pieces.pop()
        lines = []
        for piece in pieces:
            self.lines_read += 1
            lines.append((self.lines_read, piece + b"\n"))
            self.offset += len(piece) + 1
        if lines:
            self.last_line = lines[-1][1]
        return TailChange(APPENDED, lines=lines, partial=self.partial, bytes_read=len(data), size=self.size_seen,
                          more=len(data) >= self.read_limit)
