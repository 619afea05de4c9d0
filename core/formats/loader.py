"""``load`` and ``detect``: from a path or bytes to a :class:`Conversation`."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.formats import registry
from core.formats.detection import (
    detect_directory,
    detect_document,
    detect_file,
    detect_records,
    detect_sqlite,
    detect_text,
)
from core.formats.messages import (
    FieldProblem,
    is_hermes_summary,
    reused_tool_call_ids,
    text_of,
    tool_pair_problems,
)
from core.formats.model import CompactionEvent, Conversation, FormatError
from core.formats.registry import FORMAT_NAMES
from core.formats.source import (
    DEFAULT_MAX_BYTES,
    InputSource,
    JsonLines,
    JsonProblem,
    check_jsonl_encoding,
    decode_all,
    not_json_error,
    open_input,
    open_sqlite,
    parse_json_problem,
    sniff_layout,
    strip_nul_padding,
)
from core.formats.spec import FormatSpec
from core.safe_text import quoted

_MAX_LISTED_PAIR_PROBLEMS = 10
_UNKNOWN = (
    "unknown structure: expected one of the supported transcript formats "
    f"({', '.join(FORMAT_NAMES)}); pass format= to choose one"
)


def _format_spec(format: str | None, name: str) -> FormatSpec | None:
    if format is None:
        return None
    spec = registry.resolve(format)
    if spec is None:
        raise FormatError(f"{name}: unknown format {format!r}; expected one of {', '.join(FORMAT_NAMES)}")
    return spec


#: How much of a text file the text formats look at to recognise it.
TEXT_HEAD_CHARS = 256 * 1024


class _Parsed:
    """What the input turned out to be: one JSON document, JSON Lines, plain text or a SQLite store."""

    def __init__(self, layout: str, doc: Any = None, lines: JsonLines | None = None, text: str | None = None) -> None:
        self.layout = layout
        self.doc = doc
        self.lines = lines
        self.text = text
        self.single: tuple[Any] | None = None  # memo of _single_record
        self.conn: sqlite3.Connection | None = None  # a SQLite store, opened once for detection and reading

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def _parse(src: InputSource) -> _Parsed:
    layout = sniff_layout(src)
    if layout == "sqlite":
        return _Parsed("sqlite")
    if layout == "text":
        text = decode_all(src)
        return _Parsed("text", text=text[1:] if text.startswith("\ufeff") else text)
    if layout == "json":
        text = decode_all(src)
        if text.startswith("\ufeff"):
            text = text[1:]
        if "\x00" in text:
            text, padding = strip_nul_padding(text)
            if padding:
                src.warnings.append(f"{padding:,} NUL bytes of padding (what a crash leaves in a file) skipped")
        try:
            return _Parsed("json", doc=parse_json_problem(text))
        except JsonProblem as exc:
            if not exc.what.startswith("invalid JSON: Extra data"):
                raise src.error(exc.where, exc.what) from None
        # Several values one after another: JSON Lines after all.
    check_jsonl_encoding(src)
    return _lines_layout(JsonLines(src))


def _lines_layout(lines: JsonLines) -> _Parsed:
    """JSON Lines, or the one value of an input holding a single non-object line."""
    src = lines.src
    head = lines.head()
    if not head:
        # Nothing parsed: report the first line's own problem.
        list(lines.records())
        detail = lines.warnings[0].removesuffix("; line skipped") if lines.warnings else "no JSON values found"
        raise FormatError(f"{src.name}: {detail}; {_UNKNOWN.split(':', 1)[1].strip()}")
    if len(head) == 1 and not isinstance(head[0][1], dict):
        return _Parsed("json", doc=head[0][1])
    return _Parsed("jsonl", lines=lines)


def _single_record(parsed: _Parsed) -> Any | None:
    """The value of a JSONL input with exactly one valid line and nothing else."""
    if parsed.lines is None:
        return None
    if parsed.single is None:
        value = None
        if len(parsed.lines.head(2)) == 1:
            records = list(parsed.lines.records())
            if len(records) == 1 and not parsed.lines.warnings:
                value = records[0][1]
        parsed.single = (value,)
    return parsed.single[0]


def _sqlite_spec(parsed: _Parsed, src: InputSource) -> FormatSpec:
    """The SQLite format whose tables the store has; the Hermes reader (whose error lists the tables
    it found) when none claims it."""
    if parsed.conn is None:
        parsed.conn = open_sqlite(src)
    for spec in registry.SQLITE_FORMATS:
        if spec.detect_sqlite is not None and spec.detect_sqlite(parsed.conn):
            return spec
    return registry.SQLITE_FORMAT


def _detect(parsed: _Parsed, src: InputSource) -> FormatSpec:
    if parsed.layout == "sqlite":
        parsed.conn = parsed.conn or open_sqlite(src)
        return detect_sqlite(parsed.conn)
    if parsed.layout == "text":
        assert parsed.text is not None
        found = detect_text(parsed.text[:TEXT_HEAD_CHARS])
        if found is None:
            raise not_json_error(src, parsed.text)
        return registry.BY_NAME[found]
    if parsed.layout == "json":
        found = detect_file(os.path.basename(src.name), parsed.doc) or detect_document(parsed.doc)
    else:
        assert parsed.lines is not None
        found = detect_records(parsed.lines.head())
        if found is None:
            single = _single_record(parsed)
            if single is not None:
                found = detect_document(single)
    if found is None:
        raise FormatError(f"{src.name}: {_UNKNOWN}")
    return registry.BY_NAME[found]


def _convert(parsed: _Parsed, spec: FormatSpec, src: InputSource, session: str | None) -> Conversation:
    if parsed.layout == "sqlite":
        parsed.conn = conn = parsed.conn or open_sqlite(src)
        if spec.parse_sqlite is None:
            store = detect_sqlite(conn).name
            raise FormatError(f"{src.name}: this SQLite database can only be read as the {store} format, not {spec.name!r}")
        parsed.conn = None  # the reader closes it
        return spec.parse_sqlite(conn, src, session)
    if parsed.layout == "text":
        assert parsed.text is not None
        if spec.parse_text is None:
            raise not_json_error(src, parsed.text)
        return spec.parse_text(parsed.text, src, session)
    if spec.parse_document is None and spec.parse_records is None and spec.parse_text is not None:
        raise FormatError(f"{src.name}: {spec.description} are plain text; expected that layout, not JSON")
    if parsed.layout == "json":
        return _parse_document(spec, parsed.doc, src, session)
    assert parsed.lines is not None
    single = _single_record(parsed)
    if single is not None and (not isinstance(single, dict) or spec.parse_records is None):
        conv = _parse_document(spec, single, src, session)
        conv.report.notes.append("the file holds a single JSON value on one line, read as one document")
        return conv
    if spec.parse_records is not None:
        return spec.parse_records(parsed.lines, src, session)
    # Formats without a line layout of their own: the lines are the items of one document.
    records = list(parsed.lines.records())
    conv = _parse_document(spec, [value for _, value in records], src, session)
    line_numbers = [line for line, _ in records]
    conv.sources = [_line_source(where, line_numbers) for where in conv.sources]
    conv.report.unit = "line"
    for entry in conv.report.skipped:
        entry.where = [_line_source(where, line_numbers) for where in entry.where]
    conv.warnings[:0] = parsed.lines.warnings
    return conv


def _parse_document(spec: FormatSpec, doc: Any, src: InputSource, session: str | None) -> Conversation:
    if spec.parse_document is None:
        # Claude Code and Codex logs (rollouts, exec streams) only exist as JSON Lines
        # (one event object per line).
        raise FormatError(
            f"{src.name}: a {spec.name} log is JSON Lines with one event object per line; "
            "expected that layout, not a single JSON document"
        )
    return spec.parse_document(doc, src, session)


def _line_source(where: str, line_numbers: list[int]) -> str:
    """``[3]`` (an item index) → ``line 5`` (its line in the file)."""
    if where.startswith("[") and "]" in where:
        index_text, rest = where[1:].split("]", 1)
        if index_text.isdigit() and int(index_text) < len(line_numbers):
            return f"line {line_numbers[int(index_text)]}{rest}"
    return where


def _mark_hermes_summaries(conv: Conversation) -> None:
    """A Hermes handoff summary in any format is a compaction point too (Hermes' own loader marks them already)."""
    known = {event.position for event in conv.compaction_events}
    added = False
    for index, message in enumerate(conv.messages):
        if index not in known and message.get("role") != "tool" and is_hermes_summary(message.get("content")):
            conv.compaction_events.append(
                CompactionEvent(
                    position=index, kind="hermes-summary", summary=text_of(message.get("content")), source=conv.sources[index]
                )
            )
            added = True
    if added:
        conv.compaction_events.sort(key=lambda event: event.position)


def _finish_report(conv: Conversation, lines: JsonLines | None) -> None:
    """Add what the reader saw (damaged lines, padding) to the importer's report; its warnings join the others."""
    report = conv.report
    if lines is not None:
        padding = lines.padding_warning()
        if padding:
            conv.warnings.append(padding)
            report.notes.append(padding)
        for line in lines.damaged:
            report.skip("lines that are not valid JSON (or not UTF-8)", f"line {line}", announced=True)
        if report.unit == "line" and report.read - len(lines.damaged) < len(lines.seen):
            missing = len(lines.seen) - (report.read - len(lines.damaged))
            report.skip("lines the importer read but did not use", count=missing)
    report.messages = len(conv.messages)
    report.sessions = max(1, len(conv.sessions))
    report.branches = sum(1 for info in conv.sessions if info.kind == "branch")
    conv.warnings.extend(report.warnings())


def _name_for(path_or_bytes: Any, filename: str | None) -> str | None:
    if filename:
        return filename
    if isinstance(path_or_bytes, (str, os.PathLike)):
        return os.path.basename(os.fspath(path_or_bytes))
    name = getattr(path_or_bytes, "name", None)
    return str(name) if name else None


def load(
    path_or_bytes: Any,
    filename: str | None = None,
    format: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    session: str | None = None,
) -> Conversation:
    """Read a transcript into a canonical :class:`Conversation`.

    ``path_or_bytes`` is a file path (``str`` or ``Path``), the file's bytes, or a binary file
    object (e.g. an upload); a path may also name a folder a tool writes instead of one file (a
    Cline / Roo Code / Kilo Code task folder, an OpenCode storage tree). ``filename`` names bytes input in messages and helps detection
    (``.jsonl``). ``format`` skips detection (one of ``FORMAT_NAMES``). ``max_bytes`` refuses
    larger input. ``session`` picks one session of a multi-session source (a Hermes store or
    export, a Claude Code log with sidechains or abandoned branches, a JSONL of conversations or
    runs); the default is the main one: for Hermes the most recently started session, for Claude
    Code the conversation Claude Code would resume, for lists of conversations the last one.
    ``Conversation.sessions`` lists them all, each with the message count it loads to.

    Raises :class:`FormatError` (a ValueError) with the file, the line or field and what was
    expected, for every kind of bad input. Damaged lines of a JSONL log are skipped instead;
    ``Conversation.report`` says where every row went, and whatever was placed nowhere is in
    ``Conversation.warnings`` with its count.
    """
    folder = _folder(path_or_bytes)
    if folder is not None:
        return _load_folder(folder, path_or_bytes, filename, format, max_bytes, session)
    src = open_input(path_or_bytes, filename, max_bytes)
    return _load_source(src, lambda: _parse(src), format, session, path_or_bytes, filename)


def load_lines(lines: JsonLines, format: str | None = None, *, session: str | None = None) -> Conversation:
    """Read JSON Lines exactly as :func:`load` reads a JSONL file (detection, reader, report, checks).

    ``lines`` may give lines it has already read (:meth:`JsonLines.line_reads`): a follower of a
    growing log reads each appended line once, and converts what it holds without reading the file
    again. ``lines.src`` names the input (its ``path`` when it is a file).
    """
    src = lines.src
    check_jsonl_encoding(src)
    origin = src.path if src.path is not None else src.data
    return _load_source(src, lambda: _lines_layout(lines), format, session, origin, None)


def _load_source(
    src: InputSource, parse: Callable[[], _Parsed], format: str | None, session: str | None, path_or_bytes: Any,
    filename: str | None,
) -> Conversation:
    spec = _format_spec(format, src.name)
    parsed: _Parsed | None = None
    try:
        parsed = parse()
        spec = spec or _detect(parsed, src)
        conv = _convert(parsed, spec, src, None if session is None else str(session))
    except FieldProblem as exc:
        name = spec.name if spec is not None else "an unknown format"
        raise FormatError(f"{src.name}: {exc} (reading it as {name})") from None
    except RecursionError:
        raise FormatError(
            f"{src.name}: the data is nested too deeply to read; expected a transcript with ordinary nesting"
        ) from None
    finally:
        if parsed is not None:
            parsed.close()
    assert parsed is not None
    _finish_report(conv, parsed.lines)
    conv.warnings[:0] = src.warnings
    return _complete(conv, spec, src.name, session, path_or_bytes, filename)


def _listed(items: list[str]) -> str:
    """The first ``_MAX_LISTED_PAIR_PROBLEMS`` items joined, and how many more there are."""
    more = len(items) - _MAX_LISTED_PAIR_PROBLEMS
    return "; ".join(items[:_MAX_LISTED_PAIR_PROBLEMS]) + (f" (and {more} more)" if more > 0 else "")


def _complete(
    conv: Conversation, spec: FormatSpec, name: str, session: str | None, path_or_bytes: Any, filename: str | None
) -> Conversation:
    """What every loaded conversation gets: the session check, Hermes summaries, the tool-pair check."""
    if session is not None and conv.session_id != str(session):
        raise FormatError(f"{name}: session {quoted(session, 80)} not found; this {spec.name} input holds a single conversation")
    if not conv.messages:
        conv.warnings.append("the transcript holds no messages")
    _mark_hermes_summaries(conv)
    problems = tool_pair_problems(conv.messages)
    if problems:
        conv.warnings.append(f"unpaired tool messages: {_listed(problems)}")
    reused = reused_tool_call_ids(conv.messages)
    if reused:
        # Not a loading fault (every row is placed), but what a tool-pair repair reads: said once here.
        listed = _listed([f"{quoted(call_id, 64)} by messages {', '.join(map(str, indices))}"
                          for call_id, indices in reused.items()])
        conv.warnings.append(f"{len(reused)} tool-call id(s) used by more than one call: {listed}; a result names "
                             "its call only by id, so which of those calls it answers is ambiguous")
    conv.filename = _name_for(path_or_bytes, filename)
    return conv


def detect(path_or_bytes: Any, filename: str | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The format name ``load`` would use for this input (raises FormatError when none fits)."""
    folder = _folder(path_or_bytes)
    if folder is not None:
        return _folder_format(folder, filename or str(folder), None).name
    src = open_input(path_or_bytes, filename, max_bytes)
    parsed = _parse(src)
    try:
        return _detect(parsed, src).name
    finally:
        parsed.close()



# ---------------------------------------------------------------------------------------------
# Folders: what some tools write instead of one file (a Cline task folder, an OpenCode storage tree)


def _folder(path_or_bytes: Any) -> Path | None:
    if isinstance(path_or_bytes, (str, os.PathLike)):
        path = Path(path_or_bytes)
        if path.is_dir():
            return path
    return None


def _folder_format(folder: Path, name: str, format: str | None) -> FormatSpec:
    spec = _format_spec(format, name)
    if spec is None:
        spec = detect_directory(folder)
    elif spec.parse_directory is None:
        raise FormatError(f"{name}: is a directory, and a {spec.name} transcript is a file; give the file itself")
    if spec is None:
        readable = ", ".join(s.name for s in registry.FORMATS if s.parse_directory is not None)
        raise FormatError(
            f"{name}: is a directory, and not one whose layout a tool writes ({readable}); expected a JSON or "
            "JSONL transcript, a SQLite store, or one of those folders"
        )
    return spec


def _load_folder(
    folder: Path, path_or_bytes: Any, filename: str | None, format: str | None, max_bytes: int, session: str | None
) -> Conversation:
    name = filename or str(folder)
    spec = _folder_format(folder, name, format)
    assert spec.parse_directory is not None
    try:
        conv = spec.parse_directory(folder, name, None if session is None else str(session), max_bytes)
    except FieldProblem as exc:
        raise FormatError(f"{name}: {exc} (reading it as {spec.name})") from None
    except RecursionError:
        raise FormatError(f"{name}: the data is nested too deeply to read; expected a transcript with ordinary nesting") from None
    _finish_report(conv, None)
    return _complete(conv, spec, name, session, path_or_bytes, filename)
