"""Noise in tool output: lines that say little one by one and much as a count.

A continuing agent needs the failing test, not the eighty that passed; the size of a directory,
not each entry; that a log line repeated 500 times, not the 500 lines. :func:`sift` takes such
lines out of a text and counts them by kind:

* ``passing tests``: lines of a test runner reporting a passing or skipped test (pytest ``-v`` and
  ``-rA``, unittest ``-v``, go test ``-v``, cargo test, jest/vitest/mocha ticks);
* ``progress``: progress bars and counters (pip, npm, docker, git, tqdm, pytest's dot columns),
  and lines a terminal would have overwritten (carriage returns);
* ``listing``: directory listings (``ls -l``, ``tree``) and long runs of bare paths or git status
  lines (``find``, ``git ls-files``, a ``git status`` of a hundred files);
* ``repeated``: a line that has the same shape as an earlier line of the same text (numbers,
  hex ids and timestamps aside), after its first occurrence.

What is left is read for facts; the counts go into the summary as counts. Failing tests and error
lines are never noise (a repeated error line counts once, as a fact, then as repeats).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PASSING_TESTS = "passing tests"
PROGRESS = "progress"
LISTING = "listing"
REPEATED = "repeated"
NOISE_KINDS = (PASSING_TESTS, PROGRESS, LISTING, REPEATED)

# A run of bare entries shorter than this is a short list worth reading (three changed files).
MIN_LISTING_RUN = 12
# Shorter lines are punctuation and blank-ish code; their repeats say nothing either way.
MIN_REPEATED_CHARS = 12

_PASSING_RE = re.compile(
    r"^\s*(?:"
    r"\S+::\S+(?:\s+\S+)?\s+(?:PASSED|SKIPPED|XFAIL|XPASS|XFAILED|XPASSED)\b"  # pytest -v
    r"|(?:PASSED|SKIPPED|XFAIL|XPASS)\s+(?:\[\d+\]\s+)?\S+"  # pytest -rA summary
    r"|\w+ \([\w.]+\)(?: \S.*)? \.\.\. (?:ok|skipped\b.*)"  # unittest -v
    r"|test [\w:<>]+ \.\.\. (?:ok|ignored)"  # cargo test
    r"|=== (?:RUN|PAUSE|CONT)\s+\S+"  # go test -v
    r"|--- (?:PASS|SKIP): \S+"
    r"|ok\s+\S+\s+(?:\(cached\)|[\d.]+s)"  # go test package line
    r"|[✓✔√]\s+\S"  # jest, vitest, mocha
    r"|PASS\s+\S+"  # jest file line
    r")"
)
# Whole lines that are progress by their shape alone.
_PROGRESS_LINE_RE = re.compile(
    r"^\s*(?:"
    # pytest's progress columns: "tests/test_a.py ..F.s  [ 40%]", or a bare run of dots
    r"(?:\S+\s+)?[.FEsxX]{3,}\s*(?:\[\s*\d+%\])?"
    r"|(?:remote: )?(?:Counting|Compressing|Enumerating|Receiving|Resolving|Writing|Unpacking) "
    r"(?:objects|deltas): +\d+%.*"
    r"|[0-9a-f]{12}: (?:Downloading|Extracting|Waiting|Verifying Checksum|Download complete|Pull complete"
    r"|Already exists|Pulling fs layer).*"
    r"|\d+%\|.*"  # tqdm
    r")\s*$"
)
# A bar: blocks or line characters (pip, tqdm, npm, rich) or a bracketed gauge ([=====>    ]).
_BAR_RE = re.compile(r"[█▉▊▋▌▍▎▏▓▒░■━═]{4,}|\[[=#>\-. ]{8,}\]")
# A bar line must also carry a measure of progress.
_PROGRESS_MEASURE_RE = re.compile(r"\d+%|\d+/\d+|\beta\b|/s\b|\d+(?:\.\d+)?\s?[kKMG]i?B\b")
_LISTING_RE = re.compile(
    r"^(?:[-dlcbpsD][rwxsStT-]{9}[.@+]?\s+\d+\s+\S+"  # ls -l
    r"|total \d+$"
    r"|[│├└|` ]*[├└|`]── "  # tree
    r"|│)"
)
_BARE_ENTRY_RE = re.compile(
    r"^\s*(?:"
    r"[\w.@+~\\-]*[A-Za-z_][\w.@+~\\-]*(?:/[\w.@+~ \\-]*)*/?"  # a bare path or name
    r"|(?:[ MADRCU?!][MADRCU?! ]|[MADRCU?!]) \S.*"  # git status --short
    r"|(?:modified|new file|deleted|renamed|typechange):\s+\S.*"  # git status
    r")\s*$"
)
# What differs between repeats of one log line: timestamps, numbers, hex ids, durations.
_SHAPE_RE = re.compile(
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b"
    r"|\b[0-9a-f]{7,}\b"
    r"|(?<![\w.])\d+(?:[.,]\d+)*(?:%|[A-Za-zµ]{1,3})?(?!\w)"
)
# Lines that report a failure are facts, not noise (the repeat rule still applies to them).
_FAILURE_RE = re.compile(r"\b(?:FAILED|FAIL|ERROR|Error|error|failed|Traceback)\b|[✗✘×]")


@dataclass
class Sifted:
    """A text without its noise lines, and how many lines of each kind were taken out."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)
    # The repeated lines by their first occurrence: how often each came back.
    repeats: dict[str, int] = field(default_factory=dict)

    @property
    def noisy(self) -> bool:
        return bool(self.counts)


def _line_noise(line: str) -> str | None:
    """The noise kind of one line on its own (runs and repeats are judged by :func:`sift`)."""
    if "\r" in line.rstrip("\r"):
        return PROGRESS
    stripped = line.strip()
    if not stripped:
        return None
    if _FAILURE_RE.search(stripped) and not _PASSING_RE.match(stripped):
        return None
    if _PASSING_RE.match(stripped):
        return PASSING_TESTS
    if _LISTING_RE.match(line):
        return LISTING
    if _PROGRESS_LINE_RE.match(stripped):
        return PROGRESS
    if _BAR_RE.search(stripped) and _PROGRESS_MEASURE_RE.search(stripped):
        return PROGRESS
    return None


def line_shape(line: str) -> str:
    """``line`` with what varies between repeats of a log line (times, numbers, ids) masked."""
    return _SHAPE_RE.sub("0", line.strip())


def sift(text: str) -> Sifted:
    """``text`` without its noise lines, with the counts of what was taken out."""
    if "\n" not in text and len(text) < 400:
        kind = _line_noise(text)
        return Sifted(text) if kind is None else Sifted("", {kind: 1})
    lines = text.split("\n")
    kinds: list[str | None] = [_line_noise(line) for line in lines]
    _mark_listing_runs(lines, kinds)
    counts: dict[str, int] = {}
    repeats: dict[str, int] = {}
    first_of_shape: dict[str, str] = {}
    kept: list[str] = []
    for line, kind in zip(lines, kinds, strict=True):
        if kind is None and len(line.strip()) >= MIN_REPEATED_CHARS:
            shape = line_shape(line)
            first = first_of_shape.get(shape)
            if first is None:
                first_of_shape[shape] = line.strip()
            else:
                kind = REPEATED
                repeats[first] = repeats.get(first, 0) + 1
        if kind is None:
            kept.append(line)
        else:
            counts[kind] = counts.get(kind, 0) + 1
    return Sifted("\n".join(kept), counts, repeats)


def _mark_listing_runs(lines: list[str], kinds: list[str | None]) -> None:
    """Mark runs of at least ``MIN_LISTING_RUN`` bare entries (paths, git status lines) as a listing."""
    start = None
    for position in range(len(lines) + 1):
        bare = position < len(lines) and kinds[position] is None and bool(_BARE_ENTRY_RE.match(lines[position]))
        if bare and start is None:
            start = position
        elif not bare and start is not None:
            if position - start >= MIN_LISTING_RUN:
                for inside in range(start, position):
                    kinds[inside] = LISTING
            start = None
