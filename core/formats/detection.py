"""Which format a parsed input is in: the registry's formats are asked in order, first match wins."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from core.formats.registry import FORMATS, SQLITE_FORMAT
from core.formats.spec import FormatSpec


def detect_document(doc: Any) -> str | None:
    """The format of one parsed JSON document, or None."""
    for spec in FORMATS:
        if spec.detect_document is not None and spec.detect_document(doc):
            return spec.name
    return None


def detect_records(records: list[tuple[int, Any]]) -> str | None:
    """The format of a JSONL input, from its first ``(line, value)`` records, or None."""
    for spec in FORMATS:
        if spec.detect_records is not None and spec.detect_records(records):
            return spec.name
    return None


def detect_file(name: str, doc: Any) -> str | None:
    """The format a tool's own file name (``api_conversation_history.json`` ...) says a document is in, or None."""
    for spec in FORMATS:
        if spec.detect_file is not None and spec.detect_file(name, doc):
            return spec.name
    return None


def detect_sqlite(conn: sqlite3.Connection) -> FormatSpec:
    """The format of a SQLite store: the first that claims it, else the store without a claim of its
    own (whose reader explains what it expected)."""
    for spec in FORMATS:
        if spec.parse_sqlite is not None and spec.detect_sqlite is not None and spec.detect_sqlite(conn):
            return spec
    return SQLITE_FORMAT


def detect_directory(path: Path) -> FormatSpec | None:
    """The format whose tool writes folders like ``path`` (a task folder, a storage tree), or None."""
    for spec in FORMATS:
        if spec.parse_directory is not None and spec.detect_directory is not None and spec.detect_directory(path):
            return spec
    return None


def detect_text(head: str) -> str | None:
    """The format of a text input that is not JSON, from its start, or None."""
    for spec in FORMATS:
        if spec.detect_text is not None and spec.detect_text(head):
            return spec.name
    return None
