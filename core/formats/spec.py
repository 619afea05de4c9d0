"""What a format module declares about itself (its entry in the registry).

Each format module ends with ``FORMAT = FormatSpec(...)`` naming the functions it has; the
registry (``core.formats.registry``) lists those entries once, in detection order, and every
reader (detection, ``load``, ``dump``, the CLI's choices) takes them from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

    from core.formats.model import Conversation
    from core.formats.source import InputSource, JsonLines

DocumentParser = Callable[[Any, "InputSource", "str | None"], "Conversation"]
RecordsParser = Callable[["JsonLines", "InputSource", "str | None"], "Conversation"]
SqliteParser = Callable[["sqlite3.Connection", "InputSource", "str | None"], "Conversation"]
TextParser = Callable[[str, "InputSource", "str | None"], "Conversation"]
Writer = Callable[["Conversation"], Any]
# (folder, the name errors use, session, max_bytes per file)
DirectoryParser = Callable[[Path, str, "str | None", int], "Conversation"]


@dataclass(frozen=True)
class FormatSpec:
    """One transcript format: its name and what it can detect, read and write.

    ``detect_document(doc)`` says whether a parsed JSON document is in this format;
    ``detect_records(records)`` the same for the first ``(line, value)`` records of a JSONL input;
    ``detect_text(head)`` for the start of a text file that is not JSON (aider's Markdown history);
    ``detect_sqlite(conn)`` for a SQLite store (by its tables). ``parse_document`` reads one JSON
    document, ``parse_records`` a JSONL input, ``parse_text`` the whole text, ``parse_sqlite`` a
    SQLite store. ``write`` turns a conversation into a JSON document of this format (for ``dump``).
    A missing function means the format has no such layout. The loader hands ``parse_document`` a
    document parsed for that one call: a parser may drop the items it has read from it.

    Some tools write files whose content alone does not say which tool wrote them (Cline's
    ``api_conversation_history.json`` is plain Anthropic messages): ``detect_file(name, doc)`` is
    asked first, with the file's base name. ``detect_sqlite(conn)`` picks between the SQLite stores
    (a store no format claims goes to the one without ``detect_sqlite``). ``detect_directory(path)``
    / ``parse_directory`` read a folder the tool writes (a task folder, a storage tree).
    """

    name: str
    description: str
    detect_document: Callable[[Any], bool] | None = None
    detect_records: Callable[[list[tuple[int, Any]]], bool] | None = None
    parse_document: DocumentParser | None = None
    parse_records: RecordsParser | None = None
    parse_sqlite: SqliteParser | None = None
    write: Writer | None = None
    detect_text: Callable[[str], bool] | None = None
    parse_text: TextParser | None = None
    detect_sqlite: Callable[[sqlite3.Connection], bool] | None = None
    aliases: tuple[str, ...] = ()
    detect_file: Callable[[str, Any], bool] | None = None
    detect_sqlite: Callable[[sqlite3.Connection], bool] | None = None
    detect_directory: Callable[[Path], bool] | None = None
    parse_directory: DirectoryParser | None = None
