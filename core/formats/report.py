"""The load report: where every row of the input went.

An importer classifies each row it reads (a JSONL line, an item of the document's list, a row of
the store) exactly once: placed on the conversation that was loaded, in another session, on an
abandoned branch, read as metadata (titles, headers, bookkeeping that carries no conversation
text), or skipped with a reason. Damaged lines are skipped by the reader. Whatever was read but
placed nowhere is a warning with its count and where it was, so nothing the user gave is lost
without being said.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: How many places a skipped reason lists (the count always covers all of them).
LISTED_PLACES = 8

PLACED = "placed"


def plural(unit: str) -> str:
    """``line`` → ``lines``, ``history entry`` → ``history entries``."""
    if unit.endswith("y") and not unit.endswith(("ay", "ey", "oy")):
        return unit[:-1] + "ies"
    return unit + "s"

OTHER_SESSION = "other_session"
OTHER_BRANCH = "other_branch"


@dataclass
class SkippedRows:
    """Rows left out for one reason: how many, and the first few places."""

    reason: str
    count: int = 0
    where: list[str] = field(default_factory=list)
    announced: bool = False  # the rows already have warnings of their own (e.g. damaged lines)

    def text(self) -> str:
        places = ", ".join(self.where)
        more = self.count - len(self.where)
        if places and more > 0:
            places += f" and {more} more"
        return f"{self.count} row(s) skipped: {self.reason}" + (f" ({places})" if places else "")


@dataclass
class LoadReport:
    """How the rows of the input were used (see the module docstring).

    ``unit`` names what a row is (``line``, ``item``, ``event``, ``message``, ``row``); ``read`` is
    every row seen, and equals the sum of the other counts. ``messages`` is the length of the
    loaded conversation, ``sessions`` / ``branches`` how many sessions and abandoned branches the
    source holds (each one can be loaded with ``load(..., session=id)``).
    """

    unit: str = "line"
    read: int = 0
    placed: int = 0
    other_sessions: int = 0
    other_branches: int = 0
    metadata: dict[str, int] = field(default_factory=dict)
    skipped: list[SkippedRows] = field(default_factory=list)
    messages: int = 0
    sessions: int = 1
    branches: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def skipped_count(self) -> int:
        return sum(entry.count for entry in self.skipped)

    @property
    def metadata_count(self) -> int:
        return sum(self.metadata.values())

    def accounted(self) -> int:
        """Rows given a place; equal to ``read`` when every row was classified."""
        return self.placed + self.other_sessions + self.other_branches + self.metadata_count + self.skipped_count

    def add_other_sessions(self, count: int) -> None:
        """Rows of sessions other than the loaded one (counted without reading them one by one)."""
        self.other_sessions += count
        self.read += count

    def skip(self, reason: str, where: str | None = None, count: int = 1, announced: bool = False) -> None:
        """Count ``count`` rows skipped for ``reason`` (``where`` names one of them).

        ``announced`` rows have warnings of their own, so the report does not repeat them.
        """
        for entry in self.skipped:
            if entry.reason == reason:
                break
        else:
            entry = SkippedRows(reason, announced=announced)
            self.skipped.append(entry)
        entry.count += count
        self.read += count
        if where and len(entry.where) < LISTED_PLACES:
            entry.where.append(where)

    def warnings(self) -> list[str]:
        """One warning per skip reason, and one for rows that went to other sessions or branches."""
        lines = [entry.text() for entry in self.skipped if not entry.announced]
        if self.other_branches:
            lines.append(
                f"{self.other_branches} {plural(self.unit)} belong to {self.branches} abandoned branch(es) of this "
                "conversation, not to the one shown; pick them in the session list to see them"
            )
        return lines

    def summary(self) -> str:
        """One line: ``81 lines read: 64 placed, 10 metadata, 7 skipped``."""
        parts = [f"{self.placed:,} placed on this conversation"]
        if self.other_sessions:
            parts.append(f"{self.other_sessions:,} in {self.sessions - 1 - self.branches:,} other session(s)")
        if self.other_branches:
            parts.append(f"{self.other_branches:,} on {self.branches:,} abandoned branch(es)")
        if self.metadata_count:
            parts.append(f"{self.metadata_count:,} metadata")
        if self.skipped_count:
            parts.append(f"{self.skipped_count:,} skipped")
        return f"{self.read:,} {plural(self.unit)} read: " + ", ".join(parts) + f" → {self.messages:,} messages"

    def rows(self) -> list[dict[str, Any]]:
        """The report as table rows (``what``, ``rows``, ``detail``) for display."""
        table: list[dict[str, Any]] = [
            {"what": f"{plural(self.unit)} read", "rows": self.read, "detail": ""},
            {"what": "placed on this conversation", "rows": self.placed, "detail": f"{self.messages:,} messages"},
        ]
        if self.other_sessions or self.sessions > 1 + self.branches:
            table.append({"what": "in other sessions", "rows": self.other_sessions,
                          "detail": f"{self.sessions - 1 - self.branches:,} other session(s)"})
        if self.other_branches or self.branches:
            table.append({"what": "on abandoned branches", "rows": self.other_branches,
                          "detail": f"{self.branches:,} branch(es)"})
        for kind, count in self.metadata.items():
            table.append({"what": "metadata", "rows": count, "detail": kind})
        for entry in self.skipped:
            table.append({"what": "skipped", "rows": entry.count, "detail": entry.text().split(": ", 1)[1]})
        return table

    def to_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "read": self.read,
            "placed": self.placed,
            "other_sessions": self.other_sessions,
            "other_branches": self.other_branches,
            "metadata": dict(self.metadata),
            "skipped": [{"reason": e.reason, "count": e.count, "where": list(e.where)} for e in self.skipped],
            "messages": self.messages,
            "sessions": self.sessions,
            "branches": self.branches,
            "notes": list(self.notes),
        }


class RowTally:
    """Classifies rows while an importer reads them; each row counts once, under its last class.

    Rows are keyed (a line number, an index path, ...) so that an importer that reads the input
    twice, or classifies a row first as read and then as placed, still counts it once.
    """

    def __init__(self, unit: str = "line") -> None:
        self.unit = unit
        self._classes: dict[Hashable, str] = {}
        self._where: dict[Hashable, str] = {}
        self._announced: set[str] = set()

    def __contains__(self, key: Hashable) -> bool:
        return key in self._classes

    def keys(self) -> Iterable[Hashable]:
        return self._classes.keys()

    def _set(self, key: Hashable, value: str, where: str | None) -> None:
        self._classes[key] = value
        if where and value.startswith("skip:"):  # only skipped rows are listed by place
            self._where[key] = where

    def place(self, key: Hashable, where: str | None = None) -> None:
        self._set(key, PLACED, where)

    def other_session(self, key: Hashable, where: str | None = None) -> None:
        self._set(key, OTHER_SESSION, where)

    def other_branch(self, key: Hashable, where: str | None = None) -> None:
        self._set(key, OTHER_BRANCH, where)

    def meta(self, key: Hashable, kind: str, where: str | None = None) -> None:
        self._set(key, "meta:" + kind, where)

    def skip(self, key: Hashable, reason: str, where: str | None = None, announced: bool = False) -> None:
        """``announced``: the importer warns about these rows itself, the report only counts them."""
        self._set(key, "skip:" + reason, where)
        if announced:
            self._announced.add(reason)

    def report(self) -> LoadReport:
        report = LoadReport(unit=self.unit)
        for key, value in self._classes.items():
            if value == PLACED:
                report.placed += 1
            elif value == OTHER_SESSION:
                report.other_sessions += 1
            elif value == OTHER_BRANCH:
                report.other_branches += 1
            elif value.startswith("meta:"):
                kind = value[len("meta:"):]
                report.metadata[kind] = report.metadata.get(kind, 0) + 1
            else:
                reason = value[len("skip:"):]
                report.skip(reason, self._where.get(key), announced=reason in self._announced)
                continue
            report.read += 1
        return report
