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
from functools import lru_cache

from core.remembered import recall

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
    # A node id (a token holding "::") read once: a long run of colons is not split every possible way.
    r"(?=\S+?::\S)\S++(?:\s++\S++)?\s++(?:PASSED|SKIPPED|XFAIL|XPASS|XFAILED|XPASSED)\b"  # pytest -v
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
# A CI runner's or a logger's timestamp before the line a tool printed (GitHub Actions, docker logs).
_LOG_PREFIX_RE = re.compile(r"^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?|\[\d\d:\d\d:\d\d\])\s+")

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
# Searched for: a number is read from its first digit only (a long run of digits is not retried from
# each of its positions).
_PROGRESS_MEASURE_RE = re.compile(
    r"(?<!\d)\d++(?:%|/\d)|\beta\b|/s\b|(?<!\d)\d++(?:\.\d+)?\s?[kKMG]i?B\b"
)
_LISTING_RE = re.compile(
    r"^(?:[-dlcbpsD][rwxsStT-]{9}[.@+]?\s+\d+\s+\S+"  # ls -l
    r"|total \d+$"
    r"|[│├└|` ]*[├└|`]── "  # tree
    r"|│)"
)
# Each part is read once: a name is one run holding a letter (not a letter tried at every place of
# the run), its path segments are taken whole, and a git status line has at most a little indent
# (a long blank line is not retried from each of its blanks).
_BARE_ENTRY_RE = re.compile(
    r"^(?:"
    r"\s*+(?=[\w.@+~\\-]*[A-Za-z_])[\w.@+~\\-]++(?:/[\w.@+~ \\-]*+)*+/?"  # a bare path or name
    r"|[ \t]{0,16}(?:[ MADRCUT?!][MADRCUT?! ]|[MADRCUT?!]\d{0,3})[ \t]++\S.*"  # git status --short, --name-status
    r"|\s*+(?:modified|new file|deleted|renamed|typechange):\s+\S.*"  # git status
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


_MIN_LINES_FOR_RUNS = 4
_MAX_ENTRY_SPACES = 4  # "R  old -> new" and "modified:   path" have three; a line of prose has more
_DIGIT_RE = re.compile(r"\d")
# Every line _line_noise can call noise contains one of these (a cheap test before the real ones).
_MAYBE_NOISE_RE = re.compile(
    r"PASS|SKIP|XFAIL|XPASS|\.\.\. |=== |--- |\bok\b|[✓✔√│├└━═█▉▊▋▌▍▎▏▓▒░■]|──|\r|\[[=#>. -]{8}|\.{3}|[FEsxX.]{3}|"
    r"^[-dlcbpsD][rwxsStT-]{3}|^total \d|objects:|deltas:|Download|Extract|Pull|Waiting|Verifying|exists|%\|",
    re.MULTILINE,
)


# What a _MAYBE_NOISE_RE match needs, as plain substring tests: the regular expression tries every
# position of a text, substring search is many times faster (and a non-ASCII character is not
# searched for in ASCII text at all).
_NOISE_LITERALS = (
    "PASS", "SKIP", "XFAIL", "...", "=== ", "--- ", "──", "\r", "[", "objects:", "deltas:", "Download",
    "Extract", "Pull", "Waiting", "Verifying", "exists", "%|", *"✓✔√│├└━═█▉▊▋▌▍▎▏▓▒░■",
)
# Spelled out, a run of three is faster than as {3}; "ok" comes before its word boundary, which
# lets the engine skip to each "o".
_NOISE_RUN_RE = re.compile(r"[FEsxX.][FEsxX.][FEsxX.]|ok\b(?<=\bok)")
_NOISE_LINE_START_RE = re.compile(r"[-dlcbpsD][rwxsStT-]{3}|total \d")


def _may_hold_noise(text: str, lines: list[str]) -> bool:
    """False when no line of ``text`` (split into ``lines``) has a _MAYBE_NOISE_RE match."""
    return (
        any(literal in text for literal in _NOISE_LITERALS)
        or _NOISE_RUN_RE.search(text) is not None
        or any(_NOISE_LINE_START_RE.match(line) for line in lines)
    )


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
    stripped = _LOG_PREFIX_RE.sub("", line.strip(), count=1)
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
    """``text`` without its noise lines, with the counts of what was taken out (the result is shared:
    read it, do not change it)."""
    if len(text) < _SCOPED_CHARS:
        return _sift(text)
    # A long output is sifted by the fact index, each summary that reads it and the replay, on
    # different pages: within a transcript's scope (core.remembered) once.
    return recall(_SIFT_RULE, text, _sift)


_SCOPED_CHARS = 2000
_SIFT_RULE = "sift"


# Small: a text is sifted by the reader and by the fact extraction one right after the other.
@lru_cache(maxsize=256)
def _sift(text: str) -> Sifted:
    lines = text.split("\n")
    if len(lines) < _MIN_LINES_FOR_RUNS:
        # Too short for a listing run or a repeat worth counting: each line on its own.
        if not _MAYBE_NOISE_RE.search(text):
            return Sifted(text)
        kinds_of_lines = [_line_noise(line) for line in lines]
        if not any(kinds_of_lines):
            return Sifted(text)
        short_counts: dict[str, int] = {}
        for kind in kinds_of_lines:
            if kind is not None:
                short_counts[kind] = short_counts.get(kind, 0) + 1
        kept_lines = (line for line, kind in zip(lines, kinds_of_lines, strict=True) if kind is None)
        return Sifted("\n".join(kept_lines), short_counts)
    maybe_noise = _MAYBE_NOISE_RE.search
    kinds: list[str | None] = (
        [_line_noise(line) if maybe_noise(line) else None for line in lines]
        if _may_hold_noise(text, lines)
        else [None] * len(lines)
    )
    _mark_listing_runs(lines, kinds)
    counts: dict[str, int] = {}
    repeats: dict[str, int] = {}
    first_of_shape: dict[str, str] = {}
    kept: list[str] = []
    has_digit = _DIGIT_RE.search
    for line, kind in zip(lines, kinds, strict=True):
        if kind is None:
            stripped = line.strip()
            if len(stripped) >= MIN_REPEATED_CHARS:
                # Only numbers, ids and times vary between repeats: a line without a digit is its own shape.
                shape = line_shape(stripped) if has_digit(stripped) else stripped
                first = first_of_shape.get(shape)
                if first is None:
                    first_of_shape[shape] = stripped
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
        bare = (
            position < len(lines)
            and kinds[position] is None
            and lines[position].strip().count(" ") <= _MAX_ENTRY_SPACES
            and bool(_BARE_ENTRY_RE.match(lines[position]))
        )
        if bare and start is None:
            start = position
        elif not bare and start is not None:
            if position - start >= MIN_LISTING_RUN:
                for inside in range(start, position):
                    kinds[inside] = LISTING
            start = None
