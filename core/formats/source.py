# Over 600 lines: the input every reader shares (bytes, files, folders, SQLite, limits), read through one object.
"""Reading the raw input: size limit, encodings, JSON / JSONL / SQLite, and clear errors.

Everything here turns low-level failures (bad bytes, truncated JSON, absurd nesting, huge
numbers) into a :class:`FormatError` naming the file, the line and column or field, and
what was expected. JSONL files given by path are read line by line from disk.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
import sqlite3
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from core.formats.model import FormatError

DEFAULT_MAX_BYTES = 200 * 1024 * 1024
SQLITE_MAGIC = b"SQLite format 3\x00"
# How much of the start of the input is decoded to decide what it is.
HEAD_BYTES = 1024 * 1024
# Integers longer than this are refused before Python's own digit limit raises mid-parse.
MAX_INT_DIGITS = 1000

_BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x1f\x8b", "a gzip archive (decompress it first)"),
    (b"\xfd7zXZ\x00", "an xz archive (decompress it first)"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive (decompress it first)"),
    (b"BZh", "a bzip2 archive (decompress it first)"),
    (b"\x7fELF", "an executable"),
)

# BOMs, longest first so UTF-32 LE is not mistaken for UTF-16 LE.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_EXPECTED = (
    "expected a JSON or JSONL transcript (or an aider chat history, or a Hermes, OpenCode or Goose SQLite store)"
)


@dataclass
class InputSource:
    """The user's input, either a file on disk or bytes already in memory."""

    name: str
    path: Path | None = None
    data: bytes | None = None
    size: int = 0
    encoding: str = "utf-8"
    head: bytes = b""
    warnings: list[str] = field(default_factory=list)
    head_decode_error: FormatError | None = None
    # The most a reader may materialise from the input (a store can compute more than its file holds).
    max_bytes: int = DEFAULT_MAX_BYTES

    def error(self, where: str | None, what: str) -> FormatError:
        prefix = f"{self.name}: {where}: " if where else f"{self.name}: "
        return FormatError(prefix + what)

    def read_bytes(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        return self.path.read_bytes()


def open_input(path_or_bytes: Any, filename: str | None, max_bytes: int) -> InputSource:
    """Wrap a path, bytes or binary file object, enforcing the size limit and sniffing the head."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        data = bytes(path_or_bytes)
        src = InputSource(name=filename or "<uploaded data>", data=data, size=len(data))
    elif isinstance(path_or_bytes, (str, os.PathLike)):
        path = Path(path_or_bytes)
        name = filename or str(path)
        src = InputSource(name=name, path=path, size=_regular_file_size(path, name))
    elif hasattr(path_or_bytes, "read"):
        stream: BinaryIO = path_or_bytes
        data = stream.read(max_bytes + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = filename or str(getattr(stream, "name", "") or "<uploaded data>")
        src = InputSource(name=name, data=bytes(data), size=len(data))
    else:
        raise FormatError(
            f"{filename or '<input>'}: cannot read a {type(path_or_bytes).__name__}; "
            "expected a file path, bytes or a binary file object"
        )
    src.max_bytes = max_bytes
    if src.size > max_bytes:
        raise src.error(
            None,
            f"the file is {_human_size(src.size)}, above the {_human_size(max_bytes)} limit "
            f"(pass a larger max_bytes= to load it anyway)",
        )
    if src.data is not None:
        src.head = src.data[:HEAD_BYTES]
    else:
        assert src.path is not None
        src.head = _read_head(src.path, name)
    _check_text_head(src)
    return src


_NOT_REGULAR = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_a_file(mode: int, name: str) -> FormatError:
    if stat.S_ISDIR(mode):
        return FormatError(f"{name}: is a directory, {_EXPECTED}")
    kind = next((what for test, what in _NOT_REGULAR if test(mode)), "not a regular file")
    # Reading a pipe or a device would wait for a writer, or never end (/dev/zero): refused at once.
    return FormatError(f"{name}: is {kind}, not a regular file; expected a transcript file")


def _regular_file_size(path: Path, name: str) -> int:
    """The size of a regular file (symbolic links followed); anything else is refused before it is opened."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise FormatError(f"{name}: no such file") from None
    except OSError as exc:
        raise FormatError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_a_file(info.st_mode, name)
    return info.st_size


def _read_head(path: Path, name: str) -> bytes:
    """The first bytes of a regular file. Opened without blocking and checked again once open, so a
    file swapped for a pipe after the first check cannot make the read wait."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FormatError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    with open(fd, "rb", closefd=True) as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise _not_a_file(mode, name)
        return fh.read(HEAD_BYTES)


def _human_size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n} bytes"


def is_sqlite(src: InputSource) -> bool:
    return src.head.startswith(SQLITE_MAGIC)


def _check_text_head(src: InputSource) -> None:
    """Refuse empty and binary input, pick the text encoding and check the head decodes."""
    head = src.head
    if not head.strip():
        raise src.error(None, f"the file is empty, {_EXPECTED}")
    if head.startswith(SQLITE_MAGIC):
        return
    for signature, kind in _BINARY_SIGNATURES:
        if head.startswith(signature):
            raise src.error(None, f"this is {kind}, not text; {_EXPECTED}")
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            src.encoding = encoding
            break
    else:
        if b"\x00" in head and not head.replace(b"\x00", b"").strip():
            raise src.error(None, f"the file holds only NUL bytes (padding left by a crash), no transcript; {_EXPECTED}")
        if b"\x00" in head and not is_nul_padding(head):
            sample = head[:4096]
            even_nuls = sample[0::2].count(0)
            odd_nuls = sample[1::2].count(0)
            if max(even_nuls, odd_nuls) > len(sample) // 4 and min(even_nuls, odd_nuls) == 0:
                raise src.error(
                    None,
                    "looks like UTF-16 text without a byte-order mark; save it as UTF-8 "
                    "(or UTF-16 with a BOM)",
                )
            raise src.error(
                None, f"contains NUL bytes at byte {head.index(0)}: this is a binary file; {_EXPECTED}"
            )
        src.encoding = "utf-8"
    if src.encoding == "utf-8":
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        try:
            # final=False: a multi-byte character cut by the head boundary is not an error.
            decoder.decode(head, final=len(head) >= src.size)
        except UnicodeDecodeError as exc:
            # Raised later: a JSON document fails as a whole, a JSONL log only when most lines fail.
            src.head_decode_error = _decode_error(src, head, exc)


def is_nul_padding(data: bytes) -> bool:
    """NUL bytes only in runs at the start or end of lines, as a crash leaves them.

    A log file that was preallocated or not flushed when the machine stopped holds runs of zero
    bytes between (or after) complete lines; NULs anywhere else mean a binary file.
    """
    return all(b"\x00" not in line.strip(b"\x00") for line in data.split(b"\n"))


def strip_nul_padding(text: str) -> tuple[str, int]:
    """``text`` without the NUL runs at its start and end, and how many were removed (0 when the
    NULs are not padding: then the text is returned as it is)."""
    stripped = text.strip("\x00")
    if "\x00" in stripped:
        return text, 0
    return stripped, len(text) - len(stripped)


def check_jsonl_encoding(src: InputSource) -> None:
    """Refuse a JSONL input whose lines are mostly not UTF-8 (a wrong encoding, not a few damaged lines)."""
    if src.head_decode_error is None:
        return
    lines = [line for line in src.head.split(b"\n")[:200] if line.strip()]
    bad = 0
    for line in lines:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            bad += 1
    if bad * 4 > len(lines):
        raise src.head_decode_error


def _decode_error(src: InputSource, data: bytes, exc: UnicodeDecodeError, line_offset: int = 0) -> FormatError:
    before = data[: exc.start]
    line = before.count(b"\n") + 1 + line_offset
    column = exc.start - (before.rfind(b"\n") + 1) + 1
    bad = data[exc.start : exc.start + 1]
    return src.error(
        f"line {line}, column {column}",
        f"byte 0x{bad.hex()} is not valid UTF-8; expected UTF-8 text (UTF-8 with BOM and UTF-16 "
        "with BOM are accepted too); re-save the file as UTF-8",
    )


def decode_all(src: InputSource) -> str:
    data = src.read_bytes()
    try:
        return data.decode(src.encoding)
    except UnicodeDecodeError as exc:
        if src.encoding == "utf-8":
            raise _decode_error(src, data, exc) from None
        raise src.error(None, f"cannot be decoded as {src.encoding}: {exc.reason}") from None


# ---------------------------------------------------------------------------------------------
# JSON parsing with precise errors


class _HugeNumber(ValueError):
    pass


def _parse_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise _HugeNumber(f"a number with {len(text):,} digits (at most {MAX_INT_DIGITS} are accepted)")
    return int(text)


class JsonProblem(Exception):
    """A JSON parse failure: ``where`` (line/column, may be None) and ``what`` went wrong."""

    def __init__(self, where: str | None, what: str) -> None:
        super().__init__(f"{where}: {what}" if where else what)
        self.where = where
        self.what = what


# A \uD800-\uDFFF escape, and the low half that may follow a high one. Searched by its literal
# start: a pattern that also matched the backslashes before it was tried at every character
# (50 ms on a 650 KB file whose only escapes were ordinary, nine times json.loads itself).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LOW_SURROGATE_ESCAPE = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _replace_lone_surrogates(text: str) -> str:
    """``text`` with each escaped lone surrogate as ``\\ufffd`` (a high one followed by a low one
    is a proper pair, one character outside the BMP, and stays). A ``\\u`` after an odd run of
    backslashes is not an escape: that backslash is itself escaped."""
    parts: list[str] = []
    kept_to = position = 0
    while (match := _SURROGATE_ESCAPE.search(text, position)) is not None:
        start = match.start()
        backslashes = 0
        while start > backslashes and text[start - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2:
            position = start + 1
            continue
        if text[start + 3] in "89abAB" and (low := _LOW_SURROGATE_ESCAPE.match(text, match.end())) is not None:
            position = low.end()
            continue
        parts += [text[kept_to:start], "\\ufffd"]
        kept_to = position = match.end()
    return "".join(parts) + text[kept_to:] if parts else text


def parse_json_problem(text: str, line_offset: int = 0) -> Any:
    """``json.loads`` whose failures become :class:`JsonProblem` with line and column.

    ``line_offset`` is added to reported line numbers when ``text`` is one line of a bigger file.
    Escaped lone UTF-16 surrogates (``"\\ud800"``) are valid JSON but not text that can be
    encoded; they become U+FFFD (same length, so error positions stay right).
    """
    if "\\u" in text:
        text = _replace_lone_surrogates(text)
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise _json_problem(text, exc, line_offset) from None
    except _HugeNumber as exc:
        raise JsonProblem(_line_label(line_offset), f"{exc}; expected ordinary JSON values") from None
    except RecursionError:
        where = _deep_nesting_position(text)
        label = f"line {where[0] + line_offset}, column {where[1]}" if where else _line_label(line_offset)
        raise JsonProblem(
            label,
            "JSON nested too deeply (hundreds of levels of arrays/objects); expected a transcript "
            "with ordinary nesting",
        ) from None


def _line_label(line_offset: int) -> str | None:
    return f"line {line_offset + 1}" if line_offset else None


def _json_problem(text: str, exc: json.JSONDecodeError, line_offset: int) -> JsonProblem:
    where = f"line {exc.lineno + line_offset}, column {exc.colno}"
    if exc.pos >= len(text.rstrip()) - 1 and exc.msg in (
        "Expecting value",
        "Expecting ',' delimiter",
        "Expecting property name enclosed in double quotes",
        "Expecting ':' delimiter",
    ):
        return JsonProblem(where, f"the JSON ends before it is complete ({exc.msg}); the file looks truncated")
    if exc.msg.startswith("Unterminated string"):
        return JsonProblem(where, f"{exc.msg}; the file looks truncated or a quote is missing")
    return JsonProblem(where, f"invalid JSON: {exc.msg}")


_NESTING_TOKENS = re.compile(r'\\.|"|[\[\]{}]', re.DOTALL)


def _deep_nesting_position(text: str) -> tuple[int, int] | None:
    """Line and column where nesting first gets deeper than Python can parse."""
    limit = max(50, sys.getrecursionlimit() - 200)
    depth = 0
    in_string = False
    for match in _NESTING_TOKENS.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token.startswith("\\"):
            continue
        elif token in "[{":
            depth += 1
            if depth > limit:
                pos = match.start()
                line = text.count("\n", 0, pos) + 1
                return line, pos - (text.rfind("\n", 0, pos) + 1) + 1
        else:
            depth -= 1
    return None


# ---------------------------------------------------------------------------------------------
# Layout: one JSON document or JSON Lines


def _first_lines(src: InputSource, limit: int = 25) -> tuple[list[bytes], bool]:
    """The first few non-empty raw lines, each cut at HEAD_BYTES, and whether the first one was cut.

    A long line is skipped to its end without being kept, so a huge single-line document is
    not read twice just to find out what it is.
    """
    lines: list[bytes] = []
    first_cut = False
    if src.data is not None:
        stream: BinaryIO = io.BytesIO(src.data)
    else:
        assert src.path is not None
        stream = src.path.open("rb")
    with stream:
        while len(lines) < limit:
            raw = stream.readline(HEAD_BYTES)
            if not raw:
                break
            cut = len(raw) >= HEAD_BYTES and not raw.endswith(b"\n")
            while cut:
                rest = stream.readline(HEAD_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
            if raw.strip():
                if not lines:
                    first_cut = cut
                lines.append(raw)
    return lines, first_cut


def sniff_layout(src: InputSource) -> str:
    """``"sqlite"``, ``"json"`` (one document), ``"jsonl"`` (one value per line) or ``"text"`` (a first
    line that is not JSON: only the formats that read plain text, such as aider's Markdown history, may
    take it; :func:`not_json_error` is what every other reader reports)."""
    if is_sqlite(src):
        return "sqlite"
    if src.encoding != "utf-8" and src.encoding != "utf-8-sig":
        text = decode_all(src)
        return _layout_from_text_lines(src, [ln for ln in text.splitlines() if ln.strip()][:25])
    lines, first_cut = _first_lines(src)
    if lines and lines[0].startswith(codecs.BOM_UTF8):
        lines[0] = lines[0][len(codecs.BOM_UTF8) :]
    decoded = [strip_nul_padding(ln.decode("utf-8", errors="replace"))[0] for ln in lines]
    return _layout_from_text_lines(src, [ln for ln in decoded if ln.strip()], first_cut)


def _layout_from_text_lines(src: InputSource, lines: list[str], first_cut: bool = False) -> str:
    if not lines:
        raise src.error(None, f"the file is empty, {_EXPECTED}")
    first = lines[0].lstrip()
    suffix = src.name.lower().rsplit(".", 1)[-1] if "." in src.name else ""
    if first[:1] not in ("{", "["):
        return "text"
    if suffix in ("jsonl", "ndjson"):
        return "jsonl"
    if first.startswith("["):
        return "json"
    if first_cut:
        # A very long first line: one compact document, or the first record of many.
        return "jsonl" if len(lines) > 1 else "json"
    if _parses_alone(first):
        return "jsonl" if len(lines) > 1 else "json"
    # The first line is not a whole value: a pretty-printed document, or JSONL whose first
    # line is damaged. Unindented later lines that are whole objects mean JSONL.
    whole_objects = sum(1 for ln in lines[1:] if ln.startswith("{") and _parses_alone(ln))
    return "jsonl" if whole_objects >= 2 or (whole_objects == 1 and len(lines) == 2) else "json"


def not_json_error(src: InputSource, text: str) -> FormatError:
    """The error for text that is neither JSON nor a text format the importer reads."""
    from core.safe_text import quoted

    first = next((line for line in text.splitlines() if line.strip()), "")
    # A short, redacted start only: the file may be anything (an .env file, /etc/passwd).
    return src.error(
        "line 1", f"starts with {quoted(first.strip().lstrip(chr(0xFEFF)))}, which is not JSON, and the text is not a "
                  f"transcript either; {_EXPECTED}"
    )


def _parses_alone(line: str) -> bool:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict)


@dataclass(frozen=True, slots=True)
class LineRead:
    """One line of a JSONL input: its value (``ok``), nothing (a blank line) or why it is skipped."""

    line: int
    value: Any = None
    ok: bool = False
    problem: str | None = None  # the warning of a line that is not JSON (or not UTF-8)
    padding: int = 0  # NUL bytes of padding stripped from the line


def read_line(line_no: int, raw: bytes | str) -> LineRead:
    """Decode and parse line ``line_no`` (1-based) of a JSONL input, as :class:`JsonLines` reads it."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return LineRead(line_no, problem=f"line {line_no}: byte 0x{raw[exc.start:exc.start + 1].hex()} at column "
                                             f"{exc.start + 1} is not valid UTF-8; line skipped")
    else:
        text = raw
    text = text.rstrip("\r\n")  # so errors point into this line, not at the start of the next
    padding = 0
    if "\x00" in text:
        text, padding = strip_nul_padding(text)
    if not text.strip():
        return LineRead(line_no, padding=padding)
    try:
        value = parse_json_problem(text, line_offset=line_no - 1)
    except JsonProblem as exc:
        return LineRead(line_no, problem=f"{exc.where or f'line {line_no}'}: {exc.what}; line skipped", padding=padding)
    return LineRead(line_no, value, ok=True, padding=padding)


@dataclass
class JsonLines:
    """The records of a JSONL input, read lazily; corrupt lines become warnings."""

    src: InputSource
    warnings: list[str] = field(default_factory=list)
    damaged: list[int] = field(default_factory=list)  # lines skipped because they are not JSON (or not UTF-8)
    padding: dict[int, int] = field(default_factory=dict)  # line → NUL padding bytes skipped on it
    seen: set[int] = field(default_factory=set)  # lines that gave a record
    _head: list[tuple[int, Any]] | None = None
    _reported: set[int] = field(default_factory=set)  # lines already warned about (records() may run twice)

    def head(self, count: int = 40) -> list[tuple[int, Any]]:
        """The first ``count`` valid records, for detection (corrupt lines here are not reported)."""
        if self._head is None:
            found: list[tuple[int, Any]] = []
            for item in self._iterate(report=False):
                found.append(item)
                if len(found) >= count:
                    break
            self._head = found
        return self._head

    def records(self) -> Iterator[tuple[int, Any]]:
        """Every valid record as ``(line_number, value)``; bad lines are listed in ``warnings``."""
        return self._iterate(report=True)

    def _iterate(self, report: bool) -> Iterator[tuple[int, Any]]:
        for read in self.line_reads():
            line_no = read.line
            report_this = report and line_no not in self._reported
            if read.padding and report:
                self.padding[line_no] = read.padding
            if read.problem is not None:
                if report_this:
                    self._reported.add(line_no)
                    self.damaged.append(line_no)
                    self.warnings.append(read.problem)
                continue
            if not read.ok:
                continue
            if report:
                self.seen.add(line_no)
            yield line_no, read.value

    def line_reads(self) -> Iterator[LineRead]:
        """What each line of the input holds, in order (:func:`read_line` of every raw line).

        A subclass may give lines it has already read (a follower of a growing log reads each
        appended line once and keeps what it held): the records, warnings and report are then those
        of the same lines read from the file.
        """
        for line_no, raw in self._raw_lines():
            yield read_line(line_no, raw)

    def padding_warning(self) -> str | None:
        """One warning for all the NUL padding skipped (None when there was none)."""
        if not self.padding:
            return None
        lines = sorted(self.padding)
        shown = ", ".join(str(n) for n in lines[:8]) + (f" and {len(lines) - 8} more" if len(lines) > 8 else "")
        return (
            f"{sum(self.padding.values()):,} NUL bytes of padding (what a crash leaves in a log) skipped on "
            f"{len(lines)} line(s) (line {shown}); the records around them were read"
        )

    def _raw_lines(self) -> Iterator[tuple[int, bytes | str]]:
        if self.src.encoding not in ("utf-8", "utf-8-sig"):
            text = decode_all(self.src)
            if text.startswith("\ufeff"):
                text = text[1:]
            for index, line in enumerate(text.split("\n"), start=1):
                yield index, line
            return
        if self.src.data is not None:
            stream: BinaryIO = io.BytesIO(self.src.data)
        else:
            assert self.src.path is not None
            stream = self.src.path.open("rb")
        with stream:
            for index, raw in enumerate(stream, start=1):
                if index == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8) :]
                yield index, raw


# ---------------------------------------------------------------------------------------------
# SQLite


def open_sqlite(src: InputSource) -> sqlite3.Connection:
    """Open a SQLite store read-only (a path) or from memory (uploaded bytes)."""
    try:
        if src.path is not None:
            base = src.path.resolve().as_uri()
            wal = src.path.with_name(src.path.name + "-wal")
            shm = src.path.with_name(src.path.name + "-shm")
            # Without a -wal file the main file holds everything: "immutable" reads it without
            # creating -wal/-shm files next to the user's store. With one (the agent is running or
            # did not shut down), read-only mode is needed to see the pages still in the log; it
            # needs the -shm index too, and would create it when missing, so a -wal copied
            # without its -shm is left unread (and said so) rather than a file written beside it.
            live = wal.exists() and shm.exists()
            if wal.exists() and not shm.exists():
                src.warnings.append(
                    f"{wal.name} was not read: without {shm.name} beside it, reading it would create that file; "
                    "changes not yet checkpointed into the database may be missing"
                )
            conn = sqlite3.connect(base + ("?mode=ro" if live else "?immutable=1"), uri=True)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError:
                conn.close()
                # A read-only directory can refuse the -shm file; fall back to the main file alone.
                conn = sqlite3.connect(base + "?immutable=1", uri=True)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        else:
            data = bytearray(src.read_bytes())
            # A WAL-mode file (format bytes 18/19 == 2) cannot be used from memory; the rollback
            # journal mode reads the same pages.
            if len(data) > 19 and data[18] == 2 and data[19] == 2:
                data[18] = data[19] = 1
            conn = sqlite3.connect(":memory:")
            conn.deserialize(bytes(data))
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.execute("PRAGMA query_only = ON")
        conn.row_factory = sqlite3.Row
        return conn
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # a damaged schema yields undecodable error text
        raise src.error(None, f"cannot be read as a SQLite database ({exc}); the file may be damaged") from None
