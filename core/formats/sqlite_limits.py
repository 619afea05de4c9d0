"""Reading a SQLite store within a size limit, whatever its columns compute.

A store's size on disk says nothing about what reading it materialises: a generated column
(``title TEXT GENERATED ALWAYS AS (printf('%.*c', 400000000, 'T'))``), a view or a ``zeroblob``
turns a 16 KB file into gigabytes. :class:`LimitedReader` runs every query with SQLite's own limit on
the length of one value (``SQLITE_LIMIT_LENGTH``, which stops the computation of a longer one as
it grows), a small one for names and ids and the rest of the file's budget for message text, and
counts what it has read: past the budget (the same 200 MB as the file-size limit) the store is
refused with the table, column and row that went over.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from core.formats.model import FormatError

#: The longest name, id, title or model a store may hold in one value.
NAME_CHARS = 64 * 1024
#: The longest system prompt.
PROMPT_CHARS = 16 * 1024 * 1024


def _human(chars: int) -> str:
    return f"{chars / (1024 * 1024):,.0f} MB" if chars >= 1024 * 1024 else f"{chars / 1024:,.0f} KB"


def _too_big(exc: sqlite3.Error) -> bool:
    return "too big" in str(exc).lower()


class LimitedReader:
    """Queries of one store, each value and all of them together within limits."""

    def __init__(self, conn: sqlite3.Connection, name: str, max_chars: int) -> None:
        self.conn = conn
        self.name = name
        self.max_chars = max_chars
        self.read = 0  # characters (and bytes of blobs) materialised so far

    def _limit(self, value_chars: int) -> int:
        limit = max(1, min(value_chars, self.max_chars - self.read))
        self.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limit)
        return limit

    def _count(self, row: Sequence[Any], table: str) -> None:
        for value in row:
            if isinstance(value, str | bytes):
                self.read += len(value)
        if self.read > self.max_chars:
            raise self._over_budget(table)

    def _over_budget(self, table: str) -> FormatError:
        return FormatError(
            f"{self.name}: table {table}: the store holds more than {_human(self.max_chars)} of text to read (the "
            "limit; its columns may compute values, or the file is damaged); expected a Hermes state.db of "
            "ordinary size (pass a larger max_bytes= to read it anyway)"
        )

    def rows(self, sql: str, params: Sequence[Any] = (), *, table: str, columns: Sequence[str],
             value_chars: int = NAME_CHARS) -> Iterator[sqlite3.Row]:
        """The rows of ``sql`` (which reads ``columns`` of ``table``), no value longer than
        ``value_chars`` and everything within the store's budget."""
        limit = self._limit(value_chars)
        cursor = None
        while True:
            try:
                # The first row is computed when the query starts (before any sorting, for one).
                cursor = cursor or self.conn.execute(sql, params)
                row = cursor.fetchone()
            except sqlite3.Error as exc:
                if not _too_big(exc):
                    raise
                if limit < value_chars:  # the value was cut by what is left of the budget
                    raise self._over_budget(table) from None
                raise self._diagnose(table, columns, limit) from None
            if row is None:
                return
            self._count(row, table)
            yield row
            limit = self._limit(value_chars)

    def value(self, sql: str, params: Sequence[Any] = (), *, table: str, columns: Sequence[str]) -> Any:
        for row in self.rows(sql, params, table=table, columns=columns):
            return row[0]
        return None

    def _diagnose(self, table: str, columns: Sequence[str], limit: int) -> FormatError:
        """Which column of which row holds the value that went over ``limit`` (each column is read on
        its own, under the same limit, until one fails)."""
        for column in columns:
            last = None
            try:
                cursor = self.conn.execute(f'SELECT rowid, "{column}" FROM "{table}" ORDER BY rowid')
                while (row := cursor.fetchone()) is not None:
                    last = row[0]
            except sqlite3.Error as exc:
                if not _too_big(exc):
                    continue
                after = "the first row" if last is None else f"the row after rowid {last}"
                return FormatError(
                    f"{self.name}: {table}.{column}: a value in {after} is longer than {_human(limit)} (the limit "
                    "of one value; a generated column, or a damaged store); expected ordinary text values"
                )
        return FormatError(
            f"{self.name}: table {table}: a value is longer than {_human(limit)} (the limit of one value; a "
            "generated column, or a damaged store); expected ordinary text values"
        )
