"""What the tool outputs said: the lines of each output that hold values, and those values as facts.

An action line says what was run and how it ended (``RUN `cat plan.md` — exit 0``); what the
output *said* (the versions, limits, names, addresses, error lines a continuing agent would
otherwise read again) is in its lines. For each output this module

* reads the values of every line that is not noise (``core.facts.noise``): names (``run_id``,
  ``os.path.join``, ``OrchestratorRun``, ``maxRetries``), numbers (two digits or more, decimals,
  versions, hexadecimal, with a unit when one follows) and error lines in any tool's wording
  (TypeScript's ``error TS2322``, Go's ``undefined:``, ``make: ***``, a refused connection);
* adds those values to the turn's facts, weighted below the key facts, so the budget fit weighs
  every line by the values it keeps;
* offers the lines that hold values as candidates, grouped under the action that read them
  (``- From `cat plan.md`: line | line``), quoted verbatim without a line-number gutter.

The newest outputs are read first, at most ``MAX_LINES_READ`` lines of each and
``LINES_READ_PER_TOKEN`` lines per token of the budget in all, so a long session costs no more than
a summary can use and the work stays linear in the size of the turns. Nothing is added where the
output is a Phase-1 placeholder or one-liner, nor any line a redaction would mask (a secret the
profile's own redaction let through is not promoted into the summary).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.facts import redact_all, sift, text_pieces
from core.facts.credentials import hints_at_credentials, might_hold_credentials
from core.facts.noise import LISTING, REPEATED, line_shape
from core.literals import Literals
from core.remembered import recall
from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.model import Action
from core.summarizers.extractive.sections.common import TIER_FINDING, TIER_FINDING_ERROR, TIER_NOTE, sentences

# A longer line is quoted up to here and marked cut: core.facts caps a value at 200 characters too,
# so the quoted part still holds it.
MAX_LINE_CHARS = 200
# Of a long output, the first lines and the last ones are read (a log ends with its verdict).
MAX_LINES_READ = 400
TAIL_LINES_READ = 100
# Lines read in all, the newest outputs first: a summary quotes a few hundred lines at most.
MIN_LINES_READ_TOTAL = 8_000
LINES_READ_PER_TOKEN = 2
# Candidate lines per output, the richest in values first (errors before anything else).
MAX_LINES_PER_OUTPUT = 60

FINDING_GROUP_PREFIX = "From "
NOTES_GROUP = "Agent noted"
FINDING_SEPARATOR = " | "

_NAME_RE = re.compile(
    r"(?<![\w.$-])(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Za-z]\w*_\w+|[a-z][a-z0-9]*[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)(?![\w-])"
)
_NUMBER_RE = re.compile(
    r"(?<![\w.])(?:0x[0-9a-fA-F]+|\d+(?:[.,]\d+)+|\d{2,})(?:\s?(?:ms|s|sec|MB|MiB|GB|GiB|KB|kB|B|%|tokens|rps))?(?![\w.])"
)
_ERROR_RE = re.compile(
    r"(?i)\b(?:errors?|exception|traceback|fail(?:ed|ure|ing|s)?|fatal|panic|denied|not found|no such file|"
    r"cannot|can't|undefined|refused|timed out|killed|aborted|segmentation fault)\b"
)
# The words of which every _ERROR_RE match holds one. The pattern's case-blind match is a match in the
# folded, lowered text (Literals.any_in_ignorecase), so a line holding none of them (most lines) needs
# no search: the pattern's leading "\b" makes the engine try every position.
_ERROR_WORDS = Literals(("error", "exception", "traceback", "fail", "fatal", "panic", "denied", "not found",
                         "no such file", "cannot", "can't", "undefined", "refused", "timed out", "killed", "aborted",
                         "segmentation fault"))
# A line of source code or a harmless report ("0 errors"): not an error that happened.
_NOT_ERROR_RE = re.compile(
    r"^\s*(?:[-+]\s*)?(?:def |class |import |from |raise |except\b|try:|catch\b|throw |if |elif |else\b|return |"
    r"#|//|/\*|\*|@|assert |for |while |with |const |let |var |function |public |private |func |fn |pub |use |"
    r"print|log|console\.|self\.|\"\"\"|''')|\b(?:0|no) (?:errors?|failures?|failed)\b"
    # a test run's totals ("1 failed, 7 passed in 0.52s"): the action's outcome, not an error line
    r"|^[\W_]*\d+ (?:failed|passed|errors?)\b",
    re.IGNORECASE,
)
_DIGIT_RE = re.compile(r"\d")
_GUTTER_RE = re.compile(r"^\s*\d+(?:→|\t|:(?=\D|$)|\s*\|\s?)")
_URL_RE = re.compile(r"https?://[^\s\"'`<>)\]}|]+")
# Paths as an output prints them: also after ":" or "=" (``/etc/passwd``'s shells, ``PATH=``).
_PATH_RE = re.compile(
    r"(?<![\w/.@+-])(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*[\w@+-]|(?<![\w/.-])[\w-]+\.(?:py|js|mjs|ts|tsx|jsx|json|"
    r"ya?ml|toml|md|go|rs|java|c|h|cpp|rb|sh|txt|cfg|ini|lock|sql|html|css|log|csv|pl|php)(?![\w])"
)
# An ``ls -l`` line: the entry's name is its last field.
_LS_LINE_RE = re.compile(r"^[-dlcbpsD][rwxsStT-]{9}[.@+]?\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+\S+\s+\S+\s+\S+\s+(.+)$")
# An output this short is read whole.
SHORT_OUTPUT_CHARS = 300
SHORT_OUTPUT_LINES = 4
# A listing this short is read (its entries' names on one line); a longer one stays a count.
MAX_LISTED_ENTRIES = 40
# Weights of the values read here, beside core.facts' 1 for a path or a number with a unit and 3
# for an error line: a name or a bare number weighs a little less than a function or class name
# core.facts reads (0.25), so a tight budget keeps the key facts first, then the names core.facts knows.
# An error line only this module reads as one (``core.facts`` did not) weighs less than the error
# lines core.facts reads: its wording is looser ("cannot", "undefined", "refused").
FINDING_WEIGHTS = {"name": 0.2, "number": 0.2, "failure": 2.0}


def is_line_group(group: str) -> bool:
    """Whether a group's values are whole lines (joined by ``FINDING_SEPARATOR``, not commas)."""
    return group.startswith(FINDING_GROUP_PREFIX) or group == NOTES_GROUP


def names_an_error(text: str) -> bool:
    """Whether ``_ERROR_RE`` finds an error word in ``text`` (the words tried first)."""
    if not _ERROR_WORDS.any_in_ignorecase(text):
        return False
    return _ERROR_RE.search(text) is not None


def line_values(line: str, *, errors: bool = True) -> list[tuple[str, str]]:
    """(kind, value) pairs of one output line: an error line as a whole (with ``errors``), paths,
    URLs, names and numbers."""
    found: list[tuple[str, str]] = []
    if errors and names_an_error(line) and not _NOT_ERROR_RE.search(line):
        found.append(("error", line[:MAX_LINE_CHARS].rstrip()))
    if "://" in line:
        found.extend(("url", url.rstrip(".,;:")) for url in _URL_RE.findall(line))
        rest = _URL_RE.sub(" ", line)
    else:
        rest = line
    if "/" in rest or "." in rest:
        paths = [path.rstrip(".,;:") for path in _PATH_RE.findall(rest)]
        found.extend(("path", path) for path in paths if len(path) > 2)
    # Every name holds a dot, an underscore or a capital: a line of lowercase words has none to find.
    if "." in rest or "_" in rest or not rest.islower():
        found.extend(("name", name) for name in _NAME_RE.findall(rest) if len(name) >= 4)
    if _DIGIT_RE.search(rest):
        found.extend(("number", number) for number in _NUMBER_RE.findall(rest))
    return found


def _listed_names(piece: str, kept: str) -> str | None:
    """The names of a short directory listing's entries (the lines ``sift`` took out as a listing),
    as one line: what the listing found, without its sizes and dates."""
    kept_lines = set(kept.split("\n"))
    names: list[str] = []
    for line in piece.split("\n"):
        if line in kept_lines or not line.strip():
            continue
        match = _LS_LINE_RE.match(line.strip())
        name = match.group(1) if match else line.strip()
        if name not in (".", ".."):
            names.append(name)
        if len(names) > MAX_LISTED_ENTRIES:
            return None
    return "listed: " + ", ".join(names) if names else None


def output_lines(text: str) -> Iterator[str]:
    """The lines of an output worth reading: noise taken out, the line-number gutter dropped, the
    first ``MAX_LINES_READ - TAIL_LINES_READ`` and the last ``TAIL_LINES_READ`` of a long one."""
    for piece in text_pieces(text):
        if len(piece) <= SHORT_OUTPUT_CHARS and piece.count("\n") < SHORT_OUTPUT_LINES:
            # A short output is read whole: its few lines are all it said, noise or not.
            yield from (line for raw in piece.split("\n") if len(line := _GUTTER_RE.sub("", raw, count=1).strip()) >= 2)
            continue
        sifted = sift(piece)
        if sifted.counts.get(LISTING, 0):
            listed = _listed_names(piece, sifted.text)
            if listed:
                yield listed
        lines = sifted.text.split("\n")
        if sifted.counts.get(REPEATED, 0):
            lines.extend(_repeats(piece, lines))
        if len(lines) > MAX_LINES_READ:
            lines = lines[: MAX_LINES_READ - TAIL_LINES_READ] + lines[-TAIL_LINES_READ:]
        for line in lines:
            line = _GUTTER_RE.sub("", line, count=1).strip()
            if len(line) >= 2:
                yield line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS].rstrip() + "…"


def _repeats(piece: str, kept: list[str]) -> list[str]:
    """The lines ``sift`` took out as repeats of a kept line's shape. Only their numbers, ids and
    times differ from the kept line, and those are what they said (a resource's id, a duration):
    offered after the kept lines, so they fill only room the rest leaves."""
    shapes = {line_shape(line) for line in kept if line.strip()}
    kept_lines = set(kept)
    return [line for line in piece.split("\n") if line not in kept_lines and line_shape(line) in shapes]


def _masked(line: str) -> bool:
    """Whether a redaction masks something in ``line`` (the cheap hint first: most lines of a
    guarded output hold no hint of a secret themselves)."""
    return hints_at_credentials(line) and redact_all(line) != line


_VALUE_LINES_RULE = "extractive-output-value-lines"


def _value_lines(text: str) -> tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...]:
    """(position, line, values) of each line of an output that holds a value: a pure function of the
    text, remembered (``core.remembered``) because every compression of a transcript (each release,
    sweep cell and strategy) reads the same outputs again."""
    errors_possible = names_an_error(text)  # one scan instead of one per line
    found = []
    for position, line in enumerate(output_lines(text)):
        values = line_values(line, errors=errors_possible)
        if values:
            found.append((position, line, tuple(values)))
    return tuple(found)


_SENTENCE_VALUES_RULE = "extractive-sentence-values"


def _sentence_values(text: str) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """(sentence, values) of each sentence of an assistant's text (remembered as ``_value_lines``)."""
    return tuple((sentence, tuple(line_values(sentence, errors=False))) for sentence in sentences(text))


def _output_findings(
    text: str, guarded: bool, core_errors: set[str], seen: set[str]
) -> tuple[list[tuple[str, list[tuple[str, str]]]], list[tuple[str, str]]]:
    """(candidate lines with their values, every value read) of one output; a line an earlier
    output offered already is not offered again."""
    scored: list[tuple[int, int, str, list[tuple[str, str]]]] = []
    extra: list[tuple[str, str]] = []
    for position, line, values in recall(_VALUE_LINES_RULE, text, _value_lines):
        if guarded and _masked(line):
            continue  # a secret the profile's redaction let through
        values = [("failure", value) if kind == "error" and value not in core_errors else (kind, value)
                  for kind, value in values]
        extra.extend(values)
        if line in seen:
            continue
        seen.add(line)
        errors = sum(1 for kind, _value in values if kind in ("error", "failure"))
        scored.append((errors * 10 + len(values), position, line, values))
    kept = sorted(scored, key=lambda entry: (-entry[0], entry[1]))[:MAX_LINES_PER_OUTPUT]
    return [(line, values) for _score, _position, line, values in sorted(kept, key=lambda e: e[1])], extra


def build(draft: Draft) -> None:
    """Add each output's value lines as candidates and its values to the turn's facts, the newest
    outputs first while the session's line allowance lasts (a summary of ``limit`` tokens quotes at
    most a few hundred lines, so a long session's oldest outputs are left to the key facts)."""
    reading = draft.reading
    results = reading.outputs
    room = max(MIN_LINES_READ_TOTAL, LINES_READ_PER_TOKEN * draft.limit)
    seen: set[str] = set()
    # What the lines drafted so far quote, by turn: a line saying nothing new is only a compact
    # stand-in (rendered when the budget drops the lines that quote its values).
    drafted: dict[int, list[str]] = {}
    for item in draft.items:
        for source in item.sources:
            drafted.setdefault(source, []).append(item.text)
    # The newest outputs that fit the allowance (counted by their lines, cheaply), then read in the
    # order they came, so a line repeated by a later output is quoted where it first appeared.
    chosen: list[Action] = []
    for action in reversed(reading.actions):
        if room <= 0:
            break
        if action.result_index is not None and action.result_index in results:
            chosen.append(action)
            room -= min(results[action.result_index].count("\n") + 1, MAX_LINES_READ)
    for action in reversed(chosen):
        index = action.result_index
        assert index is not None
        text = results[index]
        guarded = reading.secret_hints.get(index)
        if guarded is None:
            guarded = might_hold_credentials([text])
        core_errors = {value for kind, value in reading.turn_facts[index] if kind == "error"}
        lines, extra = _output_findings(text, guarded, core_errors, seen)
        if extra:
            reading.turn_facts[index] = (*reading.turn_facts[index], *extra)
        said = "\n".join(drafted.get(index, ()))
        group = f"{FINDING_GROUP_PREFIX}{action.target}"
        for line, values in lines:
            is_error = any(kind in ("error", "failure") for kind, _value in values)
            draft.add("context", line, TIER_FINDING_ERROR if is_error else TIER_FINDING, index, group=group,
                      sources=(index,), alternative=all(value in said for _kind, value in values))
    # Sentences the goal, decisions or replies quote already.
    known = {item.text.split(" — ", 1)[-1] if item.section == "actions" else item.text.removeprefix("- ")
             for item in draft.items}
    _notes(draft, seen | known, max(MIN_LINES_READ_TOTAL // 4, draft.limit))


def _notes(draft: Draft, seen: set[str], room: int) -> None:
    """The agent's own sentences that state values ("Step 1/5 done: 612 tests pass"): what it
    concluded from the outputs, in its words, the latest first while ``room`` sentences last.
    Their values join the turn's facts."""
    reading = draft.reading
    found: list[tuple[int, str]] = []
    for index, text in reversed(reading.assistant_texts):
        if room <= 0:
            break
        extra: list[tuple[str, str]] = []
        guarded: bool | None = None
        for sentence, values in recall(_SENTENCE_VALUES_RULE, text, _sentence_values):
            room -= 1
            if not values or sentence in seen:
                continue
            if guarded is None:
                guarded = might_hold_credentials([text])
            if guarded and _masked(sentence):
                continue
            seen.add(sentence)
            extra.extend(values)
            found.append((index, sentence))
        if extra:
            reading.turn_facts[index] = (*reading.turn_facts[index], *extra)
    for index, sentence in reversed(found):
        draft.add("context", sentence, TIER_NOTE, index, group=NOTES_GROUP)
