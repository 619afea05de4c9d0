"""An offline, deterministic summarizer that fills the 13-section handoff template by extraction.

It is the default wherever no model is configured. It reads only what it is given: the turns of a
``SummaryRequest`` (already redacted by the compressor, so masked values stay masked), the previous
summary and the focus topic. Nothing leaves the machine and the same request always gives the
same text.

Two ways to call it:

* ``summarize_request(request)``: the compressor's path, with the turns as message dicts.
* ``summarizer(prompt, max_tokens)``: the plain summarizer signature. The turns, the previous
  summary, the focus topic and the target size are read back out of the prompt's documented
  layout (serialized turns after ``TURNS TO SUMMARIZE:`` or ``NEW TURNS TO INCORPORATE:``). A
  prompt without that layout raises ``ValueError``. The request form is preferred: the serialized
  turns lose multimodal structure and cut contents longer than 6,000 characters.

Size: the summary aims at ``request.summary_budget`` tokens (the target the prompt names) and never
exceeds ``request.max_tokens`` (counted with tiktoken ``cl100k_base``). When everything does not fit,
items are dropped by priority (blockers, pending asks and constraints before old actions and loose
identifiers; recent before old; items about the focus topic first); headings are never cut.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from core.facts import (
    error_lines,
    extract_facts,
    find_paths,
    text_pieces,
)
from core.message_view import content_text
from core.phases.summary import TEMPLATE_SECTIONS
from core.summarizers.base import SummaryRequest

__all__ = ["SECTION_HEADINGS", "ExtractiveSummarizer", "parse_prompt"]

# The same 13 headings, in the same order, as the summary prompt's template.
SECTION_HEADINGS: tuple[str, ...] = TEMPLATE_SECTIONS
_SECTION_NAMES = tuple(heading[3:] for heading in SECTION_HEADINGS)
EMPTY_SECTION_TEXT = "None."

_SUMMARY_MARKERS = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")

# Priority tiers: higher survives a tight budget. Recency adds up to 1 within a tier.
_TIER_GOAL = 9.5
_TIER_BLOCKED = 8.0
_TIER_PENDING = 8.0
_TIER_CONSTRAINT = 8.0
_TIER_IN_PROGRESS = 7.5
_TIER_STATE = 7.0
_TIER_REMAINING = 6.5
_TIER_DECISION = 6.0
_TIER_ERROR_CONTEXT = 5.5
_TIER_ACTION = 5.0
_TIER_FILE_MODIFIED = 5.0
_TIER_FILE_READ = 4.5
_TIER_RESOLVED = 4.0
_TIER_VALUE_CONTEXT = 4.0
_TIER_FILE_MENTIONED = 3.5
_TIER_QUANTITY_CONTEXT = 3.0
_TIER_IDENTIFIER_CONTEXT = 2.5
_FOCUS_BONUS = 2.0
# Under a tight budget these sections are kept first, within a share of the room, and so are the
# latest actions and anything about the focus topic.
_ESSENTIAL_SECTIONS = frozenset(
    {"Goal", "Constraints & Preferences", "Active State", "In Progress", "Blocked", "Pending User Asks"}
)
_LINES_KEPT = {"Completed Actions": 3}
_ESSENTIAL_SHARE = 0.4
# How much a line's priority counts against the exact values it keeps, and what each kind of
# value is worth to a continuing agent: an error line or the user's words above a path, command or
# name (any other kind counts 1), and a recent value up to a quarter more than an old one.
_PRIORITY_WEIGHT = 0.1
_FACT_WEIGHTS = {"user_request": 3.0, "error": 3.0}
# The coverage selection must keep more than one ordinary fact's worth to beat the priority one.
_COVERAGE_MARGIN = 1.0

# The Active Task may take at most this share of the budget (a pasted log is cut, not the headings).
_ACTIVE_TASK_SHARE = 0.4
_MIN_ACTIVE_TASK_TOKENS = 16
_MAX_TARGET_CHARS = 160
_MAX_SENTENCE_CHARS = 240
_MAX_OUTCOME_HISTORY = 4
_MAX_NOTE_CHARS = 300
_NO_RESULT = "no result yet"

_TEST_COMMAND_RE = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|go test|cargo test|"
    r"(?:npm|yarn|pnpm)(?: run)? test|make (?:test|check)|dotnet test|mvn test|gradle test)\b"
)
_TEST_COUNT_RE = re.compile(
    r"\b\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)"
    r"(?:, \d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?|total))*"
    r"(?: in \d+(?:\.\d+)?s\b)?"
)
_EXIT_CODE_RE = re.compile(r'"(?:exit_code|returncode|exit_status)"\s*:\s*(-?\d+)')
_TOTAL_COUNT_RE = re.compile(r'"total_count"\s*:\s*(\d+)')
_BRANCH_RES = (
    re.compile(r"\bgit (?:checkout -b|switch -c|checkout -B|switch --create) ([\w./-]+)"),
    re.compile(r"\bgit (?:checkout|switch) (?!-)([\w./-]+)"),
)
_BRANCH_OUTPUT_RE = re.compile(r"\b(?:On branch|Switched to (?:a new )?branch) '?([\w./-]+)'?")
_CD_RE = re.compile(r"^\s*cd ([^\s;&|]+)\s*(?:&&|;)")

_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(\[])|\n+")
# A stated constraint: a clause that opens with an instruction word ("Don't …", "please never
# …", "and always …"), a modal with a subject ("it must …", "tests should not …"), or a
# preference/limit anywhere ("use X instead of Y", "at most 3", "no more than"). A question that
# merely contains "don't" ("confirm the fixtures don't write …") is not one.
_CONSTRAINT_RE = re.compile(
    r"^(?:(?:please|and|but|also|so|just|then)\s+)*"
    r"(?:don't|do not|never|always|avoid|prefer|make sure|keep|only|stick to|stay)\b"
    r"|\b(?:you|we|it|this|that|they|everything|code|tests?|builds?|changes?)\s+"
    r"(?:must|mustn't|must not|should|shouldn't|should not|need to|needs to|has to|have to)\b"
    r"|\b(?:instead of|rather than|at most|at least|no more than|not allowed|no longer)\b"
    r"|\binstead\s*[.!]?$",
    re.IGNORECASE,
)
_CLAUSE_SPLIT_RE = re.compile(r"[,;:]\s+|\s+-\s+")


def _states_constraint(sentence: str) -> bool:
    return any(_CONSTRAINT_RE.search(clause.strip()) for clause in _CLAUSE_SPLIT_RE.split(sentence))


_DECISION_RE = re.compile(
    r"\b(?:I'll|I will|we'll|we will|let's|I'm going to|we're going to)\s+"
    r"(?:use|go with|switch|keep|replace|avoid|adopt|stick with|rely on|move|change|implement|rewrite|"
    r"refactor|drop|pin)\b"
    r"|\b(?:decided|decide to|instead of|rather than|chose|going with|opted for|switched (?:to|from))\b",
    re.IGNORECASE,
)
_CLOSING_REMARK_RE = re.compile(
    r"^\s*(?:thanks?|thank you|thx|great|perfect|cool|nice|ok|okay|that's all|that is all|"
    r"looks good|lgtm|done|bye)(?:[\s,!.]+(?:thanks?|thank you|that's all|a lot|so much|again))*[\s!.]*$",
    re.IGNORECASE,
)
_FALLBACK_BOILERPLATE = (
    "Recovered from a deterministic fallback",
    "Previous compaction summary was present",
    "This fallback was generated locally",
    "Secrets and credentials were redacted before preservation",
    "The summary may be incomplete; prefer verifying",
    "Unknown from deterministic fallback",
    "None recoverable",
    "Continue from the most recent unfulfilled user ask and protected tail",
    "Summary generation was unavailable",
    "Not recorded in the compacted turns",
)

_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "output_path")
_WORKDIR_KEYS = ("workdir", "cwd", "working_dir", "directory")
_COMMAND_KEYS = ("command", "cmd")


# ---------------------------------------------------------------------------------------------
# Token counting


@lru_cache(maxsize=1)
def _encoding() -> Any:
    from core.tokens import ensure_tiktoken_cache

    ensure_tiktoken_cache()
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    """Tokens of ``text`` with ``cl100k_base``."""
    return len(_encoding().encode_ordinary(text)) if text else 0


# ---------------------------------------------------------------------------------------------
# Items and rendering


@dataclass
class _Item:
    section: str
    text: str
    priority: float
    order: float
    group: str | None = None  # values of one group render on one line: "- {group}: a, b, c"
    mandatory: bool = False
    # A compact restatement of a value another line already quotes: rendered only when the
    # budget dropped every line that quotes it.
    alternative: bool = False
    focused: bool = False  # about the request's focus topic


def _render(items: Sequence[_Item]) -> str:
    by_section: dict[str, list[_Item]] = {name: [] for name in _SECTION_NAMES}
    for item in items:
        by_section[item.section].append(item)
    blocks: list[str] = []
    for heading, name in zip(SECTION_HEADINGS, _SECTION_NAMES, strict=True):
        lines: list[str] = []
        group_lines: dict[str, int] = {}
        group_values: dict[str, list[str]] = {}
        for item in sorted(by_section[name], key=lambda it: it.order):
            if item.group is None:
                lines.append(item.text)
            elif item.group in group_values:
                group_values[item.group].append(item.text)
            else:
                group_lines[item.group] = len(lines)
                group_values[item.group] = [item.text]
                lines.append("")
        for group, position in group_lines.items():
            lines[position] = f"- {group}: " + ", ".join(group_values[group])
        blocks.append(heading + "\n" + ("\n".join(lines) if lines else EMPTY_SECTION_TEXT))
    return "\n\n".join(blocks)


def _skeleton_tokens() -> int:
    return count_tokens(_render([]))


def _item_cost(item: _Item, started_groups: set[str]) -> int:
    if item.group is None:
        return count_tokens(item.text + "\n")
    cost = count_tokens(", " + item.text)
    if item.group not in started_groups:
        cost += count_tokens(f"- {item.group}: \n")
    return cost


@dataclass(frozen=True)
class _Fact:
    value: str
    weight: float  # by kind and recency: what a tight budget should keep first


def _fact_coverage(items: Sequence[_Item], facts: Sequence[_Fact]) -> list[frozenset[int]]:
    """For each item, the positions in ``facts`` of the values its text quotes verbatim."""
    # One joined text searched once per fact: far cheaper than items × facts substring tests.
    texts = [item.text for item in items]
    starts: list[int] = []
    position = 0
    for text in texts:
        starts.append(position)
        position += len(text) + 1
    joined = "\0".join(texts)
    covered: list[set[int]] = [set() for _ in items]
    for fact_id, value in enumerate(fact.value for fact in facts):
        if not value:
            continue
        found = joined.find(value)
        while found >= 0:
            owner = bisect.bisect_right(starts, found) - 1
            if found + len(value) <= starts[owner] + len(texts[owner]):
                covered[owner].add(fact_id)
            found = joined.find(value, found + 1)
    return [frozenset(ids) for ids in covered]


def _render_within(mandatory: list[_Item], chosen: list[_Item], limit: int) -> str:
    """Render; the per-item costs are estimates, so drop the last choices until the text fits."""
    chosen = list(chosen)
    while True:
        text = _render(mandatory + chosen)
        excess = count_tokens(text) - limit
        if excess <= 0 or not chosen:
            return text
        dropped = 0
        while chosen and dropped < excess:
            dropped += _item_cost(chosen.pop(), set())


def _by_priority(optional: Sequence[_Item], room: int) -> list[_Item]:
    """The highest-priority lines (no alternatives) that fit in ``room`` tokens."""
    chosen: list[_Item] = []
    started: set[str] = set()
    for item in sorted(optional, key=lambda it: (-it.priority, -it.order)):
        if item.alternative:
            continue
        cost = _item_cost(item, started)
        if cost <= room:
            chosen.append(item)
            room -= cost
            if item.group is not None:
                started.add(item.group)
    return chosen


def _by_coverage(
    optional: Sequence[_Item],
    room: int,
    facts: Sequence[_Fact],
    coverage: Mapping[int, frozenset[int]],
    kept: set[int],
    start: Sequence[_Item] | None = None,
) -> list[_Item]:
    """Essential lines by priority within ``_ESSENTIAL_SHARE`` of ``room`` (or the ``start``
    lines, already chosen), then the lines and compact alternatives that add the most weight of
    not yet kept facts per token. ``coverage`` maps ``id(item)`` to the facts it quotes."""
    kept = set(kept)
    chosen: list[_Item] = []
    started: set[str] = set()

    def take(item: _Item, cost: int) -> None:
        nonlocal room
        chosen.append(item)
        room -= cost
        kept.update(coverage[id(item)])
        if item.group is not None:
            started.add(item.group)

    by_priority = sorted(optional, key=lambda it: (-it.priority, -it.order))
    for item in start or ():
        take(item, _item_cost(item, started))
    per_section: dict[str, int] = {}
    essential_room = int(room * _ESSENTIAL_SHARE)
    for item in by_priority if start is None else ():
        if item.alternative:
            continue
        rank = per_section.get(item.section, 0)
        per_section[item.section] = rank + 1
        essential = (
            item.section in _ESSENTIAL_SECTIONS
            or item.focused
            or (item.group is None and rank < _LINES_KEPT.get(item.section, 0))
        )
        cost = _item_cost(item, started)
        if essential and cost <= min(room, essential_room):
            essential_room -= cost
            take(item, cost)

    def gain(item: _Item) -> float:
        new = coverage[id(item)] - kept
        return sum(facts[fact_id].weight for fact_id in new) + item.priority * _PRIORITY_WEIGHT

    # Lazy greedy: a line's gain only falls as other lines keep its values, so a stale score
    # is an upper bound and the best candidate is re-scored before it is taken.
    taken = {id(item) for item in chosen}
    heap = [
        (-gain(item) / max(_item_cost(item, started), 1), position, item)
        for position, item in enumerate(by_priority)
        if id(item) not in taken
    ]
    heapq.heapify(heap)
    while heap and room > 0:
        _stale, position, item = heapq.heappop(heap)
        if item.alternative and not coverage[id(item)] - kept:
            continue  # the value is already quoted by a kept line
        cost = _item_cost(item, started)
        score = -gain(item) / max(cost, 1)
        if heap and score > heap[0][0]:
            heapq.heappush(heap, (score, position, item))
            continue
        if cost <= room:
            take(item, cost)
    # An alternative taken before a fuller line that quotes the same value is redundant.
    quoted_by_lines: set[int] = set()
    for item in chosen:
        if not item.alternative:
            quoted_by_lines.update(coverage[id(item)])
    return [item for item in chosen if not item.alternative or coverage[id(item)] - quoted_by_lines]


def _kept_weight(text: str, facts: Sequence[_Fact]) -> float:
    return sum(fact.weight for fact in facts if fact.value and fact.value in text)


def _fit(items: list[_Item], limit: int, facts: Sequence[_Fact] = ()) -> str:
    """Render the items that fit in ``limit`` tokens.

    When everything fits, every item except the compact alternatives is rendered. Otherwise the
    mandatory Active Task comes first and two selections are written:

    * by priority: the lowest-priority lines are dropped (loose identifiers, old actions before
      blockers, pending asks and constraints);
    * by coverage: the essential lines (goal, constraints, current state, work in progress,
      blockers, pending asks, the latest three actions, anything about the focus topic) by
      priority within ``_ESSENTIAL_SHARE`` of the room, then the lines that add the most weight
      of not yet kept exact values (``facts``) per token, compact alternatives included.

    Room either leaves is topped up the coverage way. The one keeping the greater weight of facts
    wins, by more than one fact's worth (else the priority one, which reads better): a budget a
    little short of the full summary loses only the least important lines, while a tight one
    keeps far more paths, commands, errors and identifiers than priority alone would.
    """
    regular = [item for item in items if not item.alternative]
    full = _render(regular)
    if count_tokens(full) <= limit:
        return full
    mandatory = [item for item in items if item.mandatory]
    optional = [item for item in items if not item.mandatory]
    room = limit - count_tokens(_render(mandatory))
    mandatory_text = "\n".join(item.text for item in mandatory)
    kept = {fact_id for fact_id, fact in enumerate(facts) if fact.value and fact.value in mandatory_text}
    coverage = dict(zip(map(id, optional), _fact_coverage(optional, facts), strict=True))
    priority_lines = _by_priority(optional, room)
    by_priority = _render_within(
        mandatory, _by_coverage(optional, room, facts, coverage, kept, priority_lines), limit
    )
    by_coverage = _render_within(mandatory, _by_coverage(optional, room, facts, coverage, kept), limit)
    if _kept_weight(by_coverage, facts) > _kept_weight(by_priority, facts) + _COVERAGE_MARGIN:
        return by_coverage
    return by_priority


# ---------------------------------------------------------------------------------------------
# Reading the turns


@dataclass
class _Call:
    call_id: str
    name: str
    arguments: Any  # parsed JSON object, or the raw string
    index: int  # message index of the assistant turn
    result: str | None = None
    result_index: int | None = None


@dataclass
class _Action:
    index: int
    verb: str
    target: str
    outcome: str
    tool: str | None
    succeeded: bool | None  # None when unknown
    key: str  # what a later success of the same thing resolves
    is_test: bool = False
    errors: list[str] = field(default_factory=list)


def _is_summary_text(text: str) -> bool:
    return text.lstrip().startswith(_SUMMARY_MARKERS)


def _call_fields(call: Any) -> tuple[str, str, str]:
    """(id, name, arguments) of a tool call given as a dict or an object."""
    if isinstance(call, Mapping):
        function = call.get("function") or {}
        call_id = call.get("id") or ""
        if isinstance(function, Mapping):
            name, arguments = function.get("name"), function.get("arguments")
        else:
            name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    else:
        function = getattr(call, "function", None)
        call_id = getattr(call, "id", "") or ""
        name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    if isinstance(arguments, (dict, list)):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return str(call_id), str(name) if name else "unknown", arguments if isinstance(arguments, str) else ""


def _parse_arguments(arguments: str) -> Any:
    if not arguments:
        return {}
    try:
        return json.loads(arguments)
    except (ValueError, RecursionError):
        return arguments


def _first_string(arguments: Any, keys: Sequence[str]) -> str | None:
    if isinstance(arguments, Mapping):
        for key in keys:
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def _first_line(text: str, limit: int = _MAX_TARGET_CHARS) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _sentences(text: str) -> Iterator[str]:
    for sentence in _SENTENCE_SPLIT_RE.split(text):
        sentence = sentence.strip().lstrip("-*• ").strip()
        if sentence:
            yield (
                sentence
                if len(sentence) <= _MAX_SENTENCE_CHARS
                else sentence[: _MAX_SENTENCE_CHARS - 1] + "…"
            )


def _decoded(text: str) -> str:
    return "\n".join(text_pieces(text))


def _line_count(text: str) -> int:
    return text.strip().count("\n") + 1 if text.strip() else 0


def _describe(call: _Call) -> tuple[str, str, str, str]:
    """(verb, target, key, kind) of a call, from its name and arguments only. ``key`` names what
    a later success of the same thing resolves; ``kind`` selects how the result is read."""
    lowered = call.name.lower()
    args = call.arguments
    command = _first_string(args, _COMMAND_KEYS)
    path = _first_string(args, _PATH_KEYS)
    if command is not None:
        return "RUN", f"`{_first_line(command)}`", "cmd:" + command, "run"
    if path is not None and any(word in lowered for word in ("read", "view", "cat", "open", "show")):
        offset = next(
            (
                args.get(key)
                for key in ("offset", "start_line", "line")
                if isinstance(args, Mapping) and args.get(key)
            ),
            None,
        )
        shown_offset = isinstance(offset, (int, str)) and str(offset) not in ("", "0", "1")
        return "READ", f"{path}:{offset}" if shown_offset else path, "read:" + path, "read"
    if path is not None and any(word in lowered for word in ("write", "create", "save")):
        return "WRITE", path, "edit:" + path, "write"
    if path is not None and any(
        word in lowered for word in ("patch", "edit", "replace", "apply", "insert", "modify")
    ):
        return "PATCH", path, "edit:" + path, "patch"
    if any(word in lowered for word in ("search", "grep", "find", "glob")) and "web" not in lowered:
        pattern = _first_string(args, ("pattern", "query", "regex", "glob", "name")) or "?"
        where = path or _first_string(args, ("dir", "root")) or ""
        target = f"'{_first_line(pattern, 80)}'" + (f" in {where}" if where else "")
        return "SEARCH", target, "search:" + target, "search"
    if "web_search" in lowered or lowered in ("search_web", "websearch"):
        target = f"'{_first_line(_first_string(args, ('query', 'q')) or '?', 80)}'"
        return "WEB_SEARCH", target, "web:" + target, "other"
    url = _first_string(args, ("url",))
    if url is None and isinstance(args, Mapping) and isinstance(args.get("urls"), list):
        url = next((item for item in args["urls"] if isinstance(item, str)), "?")
    if url is not None:
        return "OPEN", url, "open:" + url, "other"
    if isinstance(args, Mapping) and isinstance(args.get("code"), str):
        return "EXECUTE", f"`{_first_line(args['code'], 80)}`", "code:" + args["code"], "run"
    shown: list[str] = []
    if isinstance(args, Mapping):
        shown = [f"{key}={_first_line(str(value), 40)}" for key, value in list(args.items())[:2]]
    elif isinstance(args, str) and args:
        shown = [_first_line(args, 60)]
    target = call.name + (" " + " ".join(shown) if shown else "")
    return "CALL", target, "call:" + call.name + json.dumps(args, sort_keys=True, default=str), "other"


# Placeholders and one-liners that Phase 1 leaves in place of an old tool result.
_PLACEHOLDER_OUTCOMES = (
    ("[Duplicate tool output", "same output as a later call"),
    ("[Old tool output cleared", "output cleared"),
    ("[Result from earlier conversation", "result in an earlier summary"),
)
_ONE_LINER_RE = re.compile(r"^\[[\w.-]+\] [^\n]*$")
_ONE_LINER_EXIT_RE = re.compile(r"-> exit (-?\d+|\?)")
_ONE_LINER_MATCHES_RE = re.compile(r"-> (\d+|\?) matches")
_ONE_LINER_SIZE_RE = re.compile(r"\(([\d,]+) chars(?: result)?\)$")
_ONE_LINER_WRITE_RE = re.compile(r"\((\d+|\?) lines\)$")


def _placeholder_outcome(result: str) -> tuple[str, bool | None] | None:
    """(outcome, succeeded) when ``result`` is a Phase-1 placeholder or one-liner."""
    stripped = result.strip()
    for marker, outcome in _PLACEHOLDER_OUTCOMES:
        if stripped.startswith(marker):
            return outcome, None
    if len(stripped) > 400 or not _ONE_LINER_RE.match(stripped):
        return None
    exit_match = _ONE_LINER_EXIT_RE.search(stripped)
    if exit_match:
        code = exit_match.group(1)
        return f"exit {code}", None if code == "?" else code == "0"
    matches = _ONE_LINER_MATCHES_RE.search(stripped)
    if matches:
        return f"{matches.group(1)} matches", True
    written = _ONE_LINER_WRITE_RE.search(stripped)
    if written:
        return f"{written.group(1)} lines", True
    size = _ONE_LINER_SIZE_RE.search(stripped)
    if size:
        return f"{size.group(1)} chars", None
    return None


def _classify(call: _Call) -> _Action:
    """Turn one tool call and its result into an action line's parts."""
    verb, target, key, kind = _describe(call)
    result = call.result
    if result is None:
        return _Action(call.index, verb, target, _NO_RESULT, call.name, None, key)
    command = _first_string(call.arguments, _COMMAND_KEYS) or ""
    is_test = bool(_TEST_COMMAND_RE.search(command))
    placeholder = _placeholder_outcome(result)
    if placeholder is not None:
        outcome, succeeded = placeholder
        return _Action(call.index, verb, target, outcome, call.name, succeeded, key, is_test)

    decoded = _decoded(result)
    errors = list(dict.fromkeys(error_lines(decoded)))
    if kind in ("read", "write", "patch") and _line_count(decoded) > 3:
        errors = []  # file contents or a diff, not a report that the call failed
    succeeded: bool | None = not errors
    parts: list[str] = []
    if kind == "run":
        exit_match = _EXIT_CODE_RE.search(result)
        if exit_match:
            code = int(exit_match.group(1))
            parts.append(f"exit {code}")
            succeeded = code == 0 and not any(line.startswith("FAILED") for line in errors)
        counts = _TEST_COUNT_RE.findall(decoded)
        if counts:
            is_test = True
            parts.append(counts[-1])
            if re.search(r"\b[1-9]\d* (?:failed|errors?)\b", counts[-1]):
                succeeded = False
        if not parts:
            parts.append("failed" if errors else f"{_line_count(decoded)} lines output")
    elif kind == "read":
        parts.append("failed" if errors and _line_count(decoded) <= 3 else f"{_line_count(decoded)} lines")
    elif kind == "write":
        content = call.arguments.get("content") if isinstance(call.arguments, Mapping) else None
        parts.append(
            "failed"
            if errors
            else f"{_line_count(content)} lines"
            if isinstance(content, str) and content
            else "written"
        )
    elif kind == "patch":
        parts.append("failed" if errors else "applied")
    elif kind == "search":
        count = _TOTAL_COUNT_RE.search(result)
        parts.append(
            f"{count.group(1)} matches"
            if count
            else "failed"
            if errors
            else f"{_line_count(decoded)} result lines"
        )
    else:
        parts.append("failed" if errors else f"{len(decoded):,} chars result")
    return _Action(call.index, verb, target, ", ".join(parts), call.name, succeeded, key, is_test, errors)


@dataclass
class _Reading:
    """What the turns say, before ranking."""

    n_turns: int
    user_asks: list[tuple[int, str]] = field(default_factory=list)
    assistant_texts: list[tuple[int, str]] = field(default_factory=list)
    # Indices of assistant texts sent without tool calls: replies to the user, not preambles.
    reply_indices: set[int] = field(default_factory=set)
    actions: list[_Action] = field(default_factory=list)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    workdir: tuple[int, str] | None = None
    branch: tuple[int, str] | None = None
    background: list[tuple[int, str]] = field(default_factory=list)
    embedded_summaries: list[str] = field(default_factory=list)
    ends_mid_work: bool = False


def _note_file(reading: _Reading, path: str, note: str, index: int) -> None:
    if path in (".", "./", "/"):  # the current directory or the root says nothing
        return
    entry = reading.files.setdefault(path, {"notes": [], "first": index, "last": index})
    if note not in entry["notes"]:
        entry["notes"].append(note)
    entry["last"] = max(entry["last"], index)


_NOTE_FOR_VERB = {
    "READ": "read",
    "WRITE": "written",
    "PATCH": "patched",
    "RUN": "used in a command",
    "SEARCH": "searched",
}


def _read_turns(turns: Sequence[Mapping[str, Any]]) -> _Reading:
    reading = _Reading(n_turns=len(turns))
    calls: dict[str, _Call] = {}
    ordered_calls: list[_Call] = []
    for index, message in enumerate(turns):
        role = message.get("role")
        text = content_text(message.get("content"))
        if role in ("user", "assistant") and _is_summary_text(text):
            reading.embedded_summaries.append(text)
            continue
        if role == "user":
            if text.strip():
                reading.user_asks.append((index, text.strip()))
        elif role == "assistant":
            if text.strip():
                reading.assistant_texts.append((index, text.strip()))
                if not message.get("tool_calls"):
                    reading.reply_indices.add(index)
            tool_calls = message.get("tool_calls") or []
            for position, call in enumerate(tool_calls if isinstance(tool_calls, list) else [tool_calls]):
                call_id, name, arguments = _call_fields(call)
                parsed = _parse_arguments(arguments)
                record = _Call(call_id or f"#{index}.{position}", name, parsed, index)
                calls[record.call_id] = record
                ordered_calls.append(record)
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            if call_id in calls and calls[call_id].result is None:
                calls[call_id].result = text
                calls[call_id].result_index = index
    last = turns[-1] if turns else None
    reading.ends_mid_work = bool(
        last is not None
        and (last.get("role") == "tool" or (last.get("role") == "assistant" and last.get("tool_calls")))
    )

    for call in ordered_calls:
        action = _classify(call)
        reading.actions.append(action)
        args = call.arguments
        for key in _PATH_KEYS:
            value = args.get(key) if isinstance(args, Mapping) else None
            if isinstance(value, str) and value.strip():
                _note_file(reading, value.strip(), _NOTE_FOR_VERB.get(action.verb, "used"), call.index)
        workdir = _first_string(args, _WORKDIR_KEYS)
        command = _first_string(args, _COMMAND_KEYS)
        if command is not None:
            cd_match = _CD_RE.match(command)
            if cd_match:
                workdir = cd_match.group(1)
            for path in find_paths(command):
                _note_file(reading, path, "used in a command", call.index)
            for pattern in _BRANCH_RES:
                branch_match = pattern.search(command)
                if branch_match:
                    reading.branch = (call.index, branch_match.group(1))
                    break
            if command.rstrip().endswith("&") or (
                isinstance(args, Mapping) and args.get("background") is True
            ):
                reading.background.append((call.index, _first_line(command)))
        if workdir is not None:
            reading.workdir = (call.index, workdir)
        if call.result:
            branch_output = _BRANCH_OUTPUT_RE.search(_decoded(call.result))
            if branch_output and call.result_index is not None:
                reading.branch = (call.result_index, branch_output.group(1))
    return reading


# ---------------------------------------------------------------------------------------------
# Previous summaries


def _split_sections(summary: str) -> dict[str, list[str]]:
    """Lines of each ``## `` section of a summary body (boilerplate and "None." dropped)."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for raw_line in summary.splitlines():
        line = raw_line.rstrip()
        if line.startswith("## "):
            current = line[3:].strip()
            sections.setdefault(current, [])
            continue
        if current is None or not line.strip():
            continue
        stripped = line.strip()
        if stripped in (EMPTY_SECTION_TEXT, "None") or stripped.startswith(_FALLBACK_BOILERPLATE):
            continue
        if stripped.startswith("--- END OF CONTEXT SUMMARY"):
            current = None
            continue
        sections[current].append(stripped)
    return sections


def _strip_prefix(text: str) -> str:
    """The body of a handoff message: everything from its first ``## `` heading on."""
    position = text.find("## ")
    return text[position:] if position >= 0 else ""


# ---------------------------------------------------------------------------------------------
# The summarizer


@dataclass
class _Focus:
    terms: tuple[str, ...]

    def matches(self, text: str) -> bool:
        lowered = text.lower()
        return any(term in lowered for term in self.terms)


def _focus_for(topic: str | None) -> _Focus:
    if not topic or not topic.strip():
        return _Focus(())
    lowered = topic.strip().lower()
    words = [word for word in re.findall(r"[\w./-]+", lowered) if len(word) >= 4]
    return _Focus(tuple(dict.fromkeys([lowered, *words])))


class ExtractiveSummarizer:
    """Offline summarizer: ``fn(prompt, max_tokens) -> str`` and ``summarize_request(request)``.

    The returned body starts at ``## Active Task`` and carries the 13 template headings in order;
    the compressor adds the handoff prefix.
    """

    def __call__(self, prompt: str, max_tokens: int) -> str:
        return self.summarize_request(parse_prompt(prompt, max_tokens))

    def summarize_request(self, request: SummaryRequest) -> str:
        turns = request.turns
        if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
            raise TypeError(f"request.turns must be a list of message dicts, got {type(turns).__name__}")
        # A turn that is not a dict (the compressor passes such a turn on as its text) is read as
        # text of unknown role rather than rejected.
        turns = [
            message if isinstance(message, Mapping) else {"role": "unknown", "content": str(message)}
            for message in turns
        ]
        if not isinstance(request.max_tokens, int) or request.max_tokens <= 0:
            raise ValueError(f"request.max_tokens must be a positive integer, got {request.max_tokens!r}")
        limit = request.max_tokens
        if isinstance(request.summary_budget, int) and request.summary_budget > 0:
            limit = min(limit, request.summary_budget)
        skeleton = _skeleton_tokens()
        if limit < skeleton + _MIN_ACTIVE_TASK_TOKENS:
            raise ValueError(
                f"a budget of {limit} tokens cannot hold the 13-section template "
                f"(it needs at least {skeleton + _MIN_ACTIVE_TASK_TOKENS} tokens)"
            )
        items, facts = _build_items(turns, request.previous_summary, _focus_for(request.focus_topic), limit)
        summary = _fit(items, limit, facts)
        if count_tokens(summary) > limit:  # only the Active Task is never dropped; it was sized to fit
            raise ValueError(f"a budget of {limit} tokens cannot hold this summary's Active Task")
        return summary


def _quote_ask(text: str, limit_tokens: int) -> str:
    """``User asked: '<text>'`` in at most ``limit_tokens`` tokens; a longer ask keeps its
    beginning and is marked as cut."""
    quoted = f"User asked: '{text}'"
    if count_tokens(quoted) <= limit_tokens:
        return quoted
    low, high = 0, len(text)  # the longest kept prefix that fits, by bisection
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(f"User asked: '{text[:middle].rstrip()} …[truncated]'") <= limit_tokens:
            low = middle
        else:
            high = middle - 1
    return f"User asked: '{text[:low].rstrip()} …[truncated]'"


_SAME_AS_TASK = "Same as the Active Task."


def _unquote_ask(text: str) -> str:
    if text.startswith("User asked: '") and text.endswith("'"):
        return text[len("User asked: '") : -1]
    return text


def _build_items(
    turns: Sequence[Mapping[str, Any]],
    previous_summary: str | None,
    focus: _Focus,
    limit: int,
) -> tuple[list[_Item], list[_Fact]]:
    """The candidate lines of every section, and the exact values (facts) of the turns."""
    reading = _read_turns(turns)
    n = max(reading.n_turns, 1)
    items: list[_Item] = []
    serial = 0

    def recency(index: int) -> float:
        return (index + 1) / (n + 1)

    def add(
        section: str,
        text: str,
        tier: float,
        index: int,
        group: str | None = None,
        *,
        carried: bool = False,
        alternative: bool = False,
    ) -> None:
        nonlocal serial
        priority = tier + (0.0 if carried else recency(index))
        focused = focus.matches(text)
        if focused:
            priority += _FOCUS_BONUS
        # Carried items render before new ones; within each, in discovery order.
        order = (-1_000_000 if carried else 0) + serial
        serial += 1
        items.append(_Item(section, text, priority, order, group, alternative=alternative, focused=focused))

    previous: dict[str, list[str]] = {}
    previous_texts = list(reading.embedded_summaries)
    if previous_summary:
        previous_texts.append(previous_summary)
    for text in previous_texts:
        for name, lines in _split_sections(_strip_prefix(text) if _is_summary_text(text) else text).items():
            merged = previous.setdefault(name, [])
            merged.extend(line for line in lines if line not in merged)

    # Active Task (mandatory) -------------------------------------------------------------
    asks = reading.user_asks
    if asks:
        last_ask = asks[-1][1]
        active = (
            EMPTY_SECTION_TEXT
            if _CLOSING_REMARK_RE.match(last_ask)
            else _quote_ask(
                last_ask,
                max(
                    _MIN_ACTIVE_TASK_TOKENS - 2,
                    min(int(limit * _ACTIVE_TASK_SHARE), limit - _skeleton_tokens() - 2),
                ),
            )
        )
    elif previous.get("Active Task"):
        active = "\n".join(previous["Active Task"])
    else:
        active = EMPTY_SECTION_TEXT
    if active != EMPTY_SECTION_TEXT:
        items.append(_Item("Active Task", active, float("inf"), 0, mandatory=True))

    # Goal --------------------------------------------------------------------------------
    if previous.get("Goal"):
        for line in previous["Goal"]:
            if line == _SAME_AS_TASK and previous.get("Active Task"):
                # The earlier goal was that summary's task; keep its words, not the reference.
                line = _unquote_ask("\n".join(previous["Active Task"]))
            add("Goal", line, _TIER_GOAL, 0, carried=True)
    elif asks:
        # The first request that asks no question says most about the overall objective.
        first_index, first_ask = next(((i, t) for i, t in asks if "?" not in t), asks[0])
        if len(asks) == 1 and active != EMPTY_SECTION_TEXT:
            add("Goal", _SAME_AS_TASK, _TIER_GOAL, first_index)
        else:
            paragraph = first_ask.split("\n\n", 1)[0].strip()
            if len(paragraph) > 400:
                paragraph = paragraph[:399].rstrip() + "…"
            add("Goal", paragraph, _TIER_GOAL, first_index)

    # Constraints & Preferences -----------------------------------------------------------
    for line in previous.get("Constraints & Preferences", []):
        add("Constraints & Preferences", line, _TIER_CONSTRAINT, 0, carried=True)
    for index, sentence in _latest_by_shape(
        (index, sentence)
        for index, text in asks
        for sentence in _sentences(text)
        if _states_constraint(sentence)
    ):
        add("Constraints & Preferences", f"- {sentence}", _TIER_CONSTRAINT, index)

    # Completed Actions -------------------------------------------------------------------
    number = 0
    for line in previous.get("Completed Actions", []):
        match = re.match(r"(\d+)\.\s", line)
        if match:
            number = max(number, int(match.group(1)))
        add("Completed Actions", line, _TIER_ACTION, 0, carried=True)
    events = [(index, 1, f"REPLIED to user — {reply}") for index, reply in _final_replies(reading)]
    # Calls still waiting for their result at the end belong to In Progress; any other call
    # whose result is missing from these turns is still listed as done.
    events.extend(
        (index, 0, text) for index, text in _consolidated_actions(reading.actions, reading.ends_mid_work)
    )
    for index, _kind, text in sorted(events):
        number += 1
        add("Completed Actions", f"{number}. {text}", _TIER_ACTION, index)

    # Active State ------------------------------------------------------------------------
    new_labels: set[str] = set()
    if reading.workdir is not None:
        new_labels.add("Working directory")
        add("Active State", f"- Working directory: {reading.workdir[1]}", _TIER_STATE, reading.workdir[0])
    if reading.branch is not None:
        new_labels.add("Git branch")
        add("Active State", f"- Git branch: {reading.branch[1]}", _TIER_STATE, reading.branch[0])
    test_runs = [action for action in reading.actions if action.is_test and action.outcome != _NO_RESULT]
    if test_runs:
        run = test_runs[-1]
        new_labels.add("Last test run")
        add("Active State", f"- Last test run: {run.target} — {run.outcome}", _TIER_STATE + 0.5, run.index)
    modified = [path for path, entry in reading.files.items() if {"written", "patched"} & set(entry["notes"])]
    for path in modified:
        new_labels.add("Modified files")
        add("Active State", path, _TIER_STATE, reading.files[path]["last"], group="Modified files")
    for index, command in reading.background:
        new_labels.add("Started in background")
        add("Active State", f"`{command}`", _TIER_STATE, index, group="Started in background")
    for line in previous.get("Active State", []):
        grouped = _group_line(line, _STATE_GROUPS)
        if grouped is not None:
            for value in grouped[1]:
                add("Active State", value, _TIER_STATE - 1, 0, group=grouped[0], carried=True)
        elif line.lstrip("- ").split(":", 1)[0] not in new_labels:
            add("Active State", line, _TIER_STATE - 1, 0, carried=True)

    # In Progress -------------------------------------------------------------------------
    if reading.ends_mid_work:
        pending_calls = [action for action in reading.actions if action.outcome == _NO_RESULT]
        for action in pending_calls:
            add(
                "In Progress",
                f"- {action.verb} {action.target} [tool: {action.tool}] (no result yet)",
                _TIER_IN_PROGRESS,
                action.index,
            )
        if not pending_calls and reading.actions:
            last_action = reading.actions[-1]
            add(
                "In Progress",
                f"- Last step: {last_action.verb} {last_action.target}"
                + (f" — {last_action.outcome}" if last_action.outcome else ""),
                _TIER_IN_PROGRESS,
                last_action.index,
            )
        if reading.assistant_texts:
            index, text = reading.assistant_texts[-1]
            statement = " ".join(_sentences(text))
            if len(statement) > _MAX_NOTE_CHARS:
                statement = statement[: _MAX_NOTE_CHARS - 1].rstrip() + "…"
            if statement:
                add("In Progress", f"- Agent's last note: {statement}", _TIER_IN_PROGRESS, index)

    # Blocked -----------------------------------------------------------------------------
    blockers = _unresolved_errors(reading.actions)
    for action, line in blockers:
        text = f"- {line} (from {action.verb} {action.target})"
        add("Blocked", text, _TIER_BLOCKED, action.index)
    any_new_success = any(action.succeeded for action in reading.actions if action.verb in ("RUN", "EXECUTE"))
    for line in previous.get("Blocked", []):
        if any_new_success:
            add(
                "Critical Context",
                f"- Earlier error (may be resolved): {line.lstrip('- ')}",
                _TIER_ERROR_CONTEXT,
                0,
                carried=True,
            )
        else:
            add("Blocked", line, _TIER_BLOCKED, 0, carried=True)

    # Key Decisions -----------------------------------------------------------------------
    for line in previous.get("Key Decisions", []):
        add("Key Decisions", line, _TIER_DECISION, 0, carried=True)
    for index, sentence in _latest_by_shape(
        (index, sentence)
        for index, text in reading.assistant_texts
        for sentence in _sentences(text)
        if _DECISION_RE.search(sentence)
    ):
        add("Key Decisions", f"- {sentence}", _TIER_DECISION, index)

    # Resolved Questions / Pending User Asks ----------------------------------------------
    for line in previous.get("Resolved Questions", []):
        add("Resolved Questions", line, _TIER_RESOLVED, 0, carried=True)
    for line in previous.get("Pending User Asks", []):
        if line != active:
            add("Pending User Asks", line, _TIER_PENDING - 1, 0, carried=True)
    answers = _answers(reading)
    for position, (index, text) in enumerate(asks):
        answer = answers.get(index)
        questions = [sentence for sentence in _sentences(text) if sentence.endswith("?")]
        is_last = position == len(asks) - 1
        if answer is not None:
            for question in questions:
                add("Resolved Questions", f"- Q: {question} A: {answer}", _TIER_RESOLVED, index)
        elif not is_last and not _CLOSING_REMARK_RE.match(text):
            add("Pending User Asks", f"- {_first_line(text, 300)}", _TIER_PENDING, index)

    # Relevant Files ----------------------------------------------------------------------
    new_paths = set(reading.files)
    for line in previous.get("Relevant Files", []):
        path = re.split(r" — | \(", line.lstrip("- "), maxsplit=1)[0]
        if path not in new_paths:
            add("Relevant Files", line, _TIER_FILE_READ, 0, carried=True)
    for path, entry in reading.files.items():
        notes = entry["notes"]
        tier = (
            _TIER_FILE_MODIFIED
            if {"written", "patched"} & set(notes)
            else _TIER_FILE_READ
            if "read" in notes
            else _TIER_FILE_MENTIONED
        )
        add("Relevant Files", f"- {path} — {', '.join(notes)}", tier, entry["last"])

    # Remaining Work ----------------------------------------------------------------------
    if blockers:
        add(
            "Remaining Work",
            "- Errors were still unresolved at the last attempt (see Blocked).",
            _TIER_REMAINING,
            n - 1,
        )
    if any(item.section == "Pending User Asks" for item in items):
        add(
            "Remaining Work",
            "- Some earlier user asks had no answer yet (see Pending User Asks).",
            _TIER_REMAINING,
            n - 1,
        )
    if reading.ends_mid_work:
        add(
            "Remaining Work",
            "- The agent was mid-step when these turns were compacted (see In Progress).",
            _TIER_REMAINING,
            n - 1,
        )
    for line in previous.get("Remaining Work", []):
        add("Remaining Work", line, _TIER_REMAINING - 1, 0, carried=True)

    # Critical Context --------------------------------------------------------------------
    for name in ("Critical Context", "Last Dropped Turns"):
        for line in previous.get(name, []):
            grouped = _group_line(line, _CONTEXT_GROUPS)
            if grouped is None:
                add("Critical Context", line, _TIER_VALUE_CONTEXT, 0, carried=True)
                continue
            for value in grouped[1]:
                add("Critical Context", value, _CONTEXT_GROUPS[grouped[0]], 0, group=grouped[0], carried=True)
    facts = _add_fact_items(turns, items, add)
    return _dedupe(items), facts


_UNINFORMATIVE_OUTCOMES = frozenset(
    {"same output as a later call", "output cleared", "result in an earlier summary"}
)
_LATEST_OUTCOME_ONLY = frozenset({"READ", "WRITE", "PATCH"})


def _consolidated_actions(actions: Sequence[_Action], skip_pending: bool) -> list[tuple[int, str]]:
    """One line per distinct action (same verb and thing), placed at its latest occurrence, with
    the outcomes in order: repeated runs of one command read as a single history."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for action in actions:
        if action.outcome == _NO_RESULT:
            if skip_pending:
                continue
            action = dataclasses.replace(action, outcome="no result recorded")
        group = groups.pop((action.verb, action.key), None) or {"outcomes": []}
        group.update(index=action.index, target=action.target, tool=action.tool)
        outcomes: list[list[Any]] = group["outcomes"]
        if outcomes and outcomes[-1][0] == action.outcome:
            outcomes[-1][1] += 1
        else:
            outcomes.append([action.outcome, 1])
        groups[(action.verb, action.key)] = group  # re-inserted: dict order follows the latest use
    lines: list[tuple[int, str]] = []
    for (verb, _key), group in groups.items():
        outcomes = [pair for pair in group["outcomes"] if pair[0] not in _UNINFORMATIVE_OUTCOMES]
        target = group["target"]
        if verb in _LATEST_OUTCOME_ONLY:
            # For reads and edits only how often and the latest result matter.
            total = sum(count for _outcome, count in group["outcomes"])
            target += f" ×{total}" if total > 1 else ""
            shown = [outcomes[-1][0]] if outcomes and outcomes[-1][0] else []
        else:
            shown = [
                f"{outcome} ×{count}" if count > 1 else outcome for outcome, count in outcomes if outcome
            ]
        if len(shown) > _MAX_OUTCOME_HISTORY:
            shown = ["…", *shown[-_MAX_OUTCOME_HISTORY:]]
        outcome_text = f" — {' → '.join(shown)}" if shown else ""
        lines.append((group["index"], f"{verb} {target}{outcome_text} [tool: {group['tool']}]"))
    return lines


def _latest_by_shape(sentences: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """Keep the latest of sentences that differ only in their numbers: a constraint or a decision
    restated with another limit, issue or name suffix supersedes the earlier form."""
    latest: dict[str, tuple[int, str]] = {}
    for index, sentence in sentences:
        shape = re.sub(r"\d+", "0", sentence)
        latest.pop(shape, None)
        latest[shape] = (index, sentence)
    return list(latest.values())


_STATE_GROUPS = {"Modified files": _TIER_STATE - 1, "Started in background": _TIER_STATE - 1}
_CONTEXT_GROUPS = {
    "Commands": _TIER_VALUE_CONTEXT,
    "URLs": _TIER_VALUE_CONTEXT,
    "Issues": _TIER_VALUE_CONTEXT,
    "Values": _TIER_QUANTITY_CONTEXT,
    "Identifiers": _TIER_IDENTIFIER_CONTEXT,
}
_BACKTICKED_GROUPS = frozenset({"Commands", "Started in background"})


def _group_line(line: str, groups: Mapping[str, float]) -> tuple[str, list[str]] | None:
    """(group, values) when a carried line is one of the grouped lines this summarizer writes
    (``- Identifiers: a, b``), so merging extends the group instead of repeating the label."""
    if not line.startswith("- ") or ": " not in line:
        return None
    label, rest = line[2:].split(": ", 1)
    if label not in groups:
        return None
    if label in _BACKTICKED_GROUPS:
        values = re.findall(r"`[^`]*`", rest)
    else:
        values = [value.strip() for value in rest.split(", ") if value.strip()]
    return (label, values) if values else None


def _replies_by_ask(reading: _Reading) -> dict[int, tuple[list[tuple[int, str]], bool]]:
    """For each user message: the agent's texts before the next user message, and whether a
    later user message exists (which means the exchange moved on)."""
    by_ask: dict[int, tuple[list[tuple[int, str]], bool]] = {}
    ask_indices = [index for index, _ in reading.user_asks]
    for position, ask_index in enumerate(ask_indices):
        has_next = position + 1 < len(ask_indices)
        end = ask_indices[position + 1] if has_next else reading.n_turns
        texts = [
            (index, text)
            for index, text in reading.assistant_texts
            if ask_index < index < end and index in reading.reply_indices
        ]
        by_ask[ask_index] = (texts, has_next)
    return by_ask


def _first_sentence(text: str) -> str:
    return next(iter(_sentences(text)), "")


def _final_replies(reading: _Reading) -> list[tuple[int, str]]:
    """The agent's last text before each later user message (how it closed that request), as a
    first sentence. Requests that asked a question are left to Resolved Questions."""
    replies: list[tuple[int, str]] = []
    by_ask = _replies_by_ask(reading)
    for ask_index, text in reading.user_asks:
        texts, has_next = by_ask[ask_index]
        if texts and has_next and "?" not in text:
            index, reply = texts[-1]
            sentence = _first_sentence(reply)
            if sentence:
                replies.append((index, sentence))
    return replies


def _answers(reading: _Reading) -> dict[int, str]:
    """For each user message, the first sentence of the agent's first text reply to it."""
    answers: dict[int, str] = {}
    for ask_index, (texts, _has_next) in _replies_by_ask(reading).items():
        if texts:
            sentence = _first_sentence(texts[0][1])
            if sentence:
                answers[ask_index] = sentence
    return answers


def _unresolved_errors(actions: Sequence[_Action]) -> list[tuple[_Action, str]]:
    """Error lines of failed actions that no later success of the same thing resolved.

    A later success of the same command/file resolves it; a later passing test run resolves
    earlier test failures. An error line seen again later is reported at its latest place.
    """
    unresolved: dict[str, tuple[_Action, str]] = {}
    for position, action in enumerate(actions):
        if not action.errors:
            continue
        later = actions[position + 1 :]
        resolved = any(
            other.succeeded and (other.key == action.key or (action.is_test and other.is_test))
            for other in later
        )
        if resolved:
            continue
        lines = action.errors
        if len(lines) > 1:
            lines = [line for line in lines if not line.startswith("Traceback (most recent call last)")]
        for line in lines:
            unresolved.pop(line, None)
            unresolved[line] = (action, line)
    return list(unresolved.values())


_CONTEXT_FOR_KIND = {
    "command": ("Commands", _TIER_VALUE_CONTEXT),
    "url": ("URLs", _TIER_VALUE_CONTEXT),
    "issue": ("Issues", _TIER_VALUE_CONTEXT),
    "quantity": ("Values", _TIER_QUANTITY_CONTEXT),
    "identifier": ("Identifiers", _TIER_IDENTIFIER_CONTEXT),
}


_ALTERNATIVE_GROUPS = {
    "command": ("Critical Context", "Commands", _TIER_VALUE_CONTEXT),
    "path": ("Relevant Files", "Also", _TIER_FILE_MENTIONED),
    **{kind: ("Critical Context", group, tier) for kind, (group, tier) in _CONTEXT_FOR_KIND.items()},
}


def _add_fact_items(
    turns: Sequence[Mapping[str, Any]],
    items: list[_Item],
    add: Callable[..., None],
) -> list[_Fact]:
    """Add each fact of the turns that no drafted line quotes verbatim, and a compact alternative
    for each one a drafted line does quote (used only if the budget drops that line). Returns
    the facts, weighted by kind and recency."""
    facts = extract_facts(turns)
    if facts.empty:
        return []
    draft = "\n".join(item.text for item in items)
    values: list[_Fact] = []
    for kind, value, index in facts.itertuples(index=False, name=None):
        recency = (int(index) + 1) / (len(turns) + 1)
        values.append(_Fact(value, _FACT_WEIGHTS.get(kind, 1.0) * (0.8 + 0.2 * recency)))
        quoted = value in draft
        if kind == "user_request":
            continue  # the Active Task or Pending User Asks quote it
        if kind == "error":
            # Unresolved errors are already under Blocked, so a new line here was met earlier.
            text = f"- Error seen: {value}" if quoted else f"- Earlier error: {value}"
            add("Critical Context", text, _TIER_ERROR_CONTEXT, int(index), alternative=quoted)
        elif kind == "path" and not quoted:
            add("Relevant Files", f"- {value} — mentioned", _TIER_FILE_MENTIONED, int(index))
            # The same path in one shared line costs fewer tokens when the budget is tight.
            add("Relevant Files", value, _TIER_FILE_MENTIONED, int(index), group="Also", alternative=True)
        elif kind in _ALTERNATIVE_GROUPS:
            section, group, tier = _ALTERNATIVE_GROUPS[kind]
            shown = f"`{value}`" if kind == "command" else value
            add(section, shown, tier, int(index), group=group, alternative=quoted)
        draft += "\n" + value
    return values


def _dedupe(items: list[_Item]) -> list[_Item]:
    """Drop repeated lines within a section, keeping the highest-priority copy."""
    best: dict[tuple[str, str | None, str], _Item] = {}
    for item in items:
        key = (item.section, item.group, item.text)
        if key not in best or (best[key].alternative, item.priority) > (item.alternative, best[key].priority):
            best[key] = item
    return list(best.values())


# ---------------------------------------------------------------------------------------------
# Reading a prompt back


_TURN_HEADER_RE = re.compile(r"^\[(TOOL RESULT(?: ([^\]]*))?|[A-Z][A-Z_ -]*)\]: ?", re.MULTILINE)
_TURN_SPLIT_RE = re.compile(r"\n\n(?=\[(?:TOOL RESULT[^\]\n]*|[A-Z][A-Z_ -]*)\]: ?)")
_TARGET_RE = re.compile(r"Target ~(\d+) tokens")
_FOCUS_RE = re.compile(r'^FOCUS TOPIC: "(.*)"\s*$', re.MULTILINE)
_HEADERS = ("TURNS TO SUMMARIZE:", "NEW TURNS TO INCORPORATE:")


def _deserialize_turns(block: str) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    pending_calls: list[dict[str, Any]] = []
    for chunk in _TURN_SPLIT_RE.split(block) if block.strip() else []:
        header = _TURN_HEADER_RE.match(chunk)
        if header is None:
            if turns:  # a blank line inside a turn's content
                previous = turns[-1]
                previous["content"] = (previous.get("content") or "") + "\n\n" + chunk
            continue
        body = chunk[header.end() :]
        label = header.group(1)
        if label.startswith("TOOL RESULT"):
            call_id = header.group(2) or ""
            if pending_calls:
                pending_calls.pop(0)["id"] = call_id
            turns.append({"role": "tool", "tool_call_id": call_id, "content": body})
            continue
        message: dict[str, Any] = {"role": label.lower()}
        if label == "ASSISTANT" and "\n[Tool calls:\n" in body and body.endswith("\n]"):
            body, _, calls_block = body.rpartition("\n[Tool calls:\n")
            calls: list[dict[str, Any]] = []
            for line in calls_block[: -len("\n]")].split("\n") if calls_block != "]" else []:
                call_match = re.match(r"  ([^(]*)\((.*)\)$", line, re.DOTALL)
                if call_match:
                    calls.append(
                        {
                            "id": f"call_{len(turns)}_{len(calls)}",
                            "type": "function",
                            "function": {"name": call_match.group(1), "arguments": call_match.group(2)},
                        }
                    )
                elif calls:
                    function = calls[-1]["function"]
                    function["arguments"] += "\n" + line
            message["tool_calls"] = calls
            pending_calls = list(calls)
        message["content"] = body
        turns.append(message)
    return turns


def parse_prompt(prompt: str, max_tokens: int) -> SummaryRequest:
    """Read a summary prompt (the compressor's documented layout) back into a request."""
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
    header_at = -1
    header = ""
    for candidate in _HEADERS:
        position = prompt.find(candidate + "\n")
        if position >= 0 and (header_at < 0 or position < header_at):
            header_at, header = position, candidate
    template_at = prompt.rfind("\n## Active Task")
    if header_at < 0 or template_at < header_at:
        raise ValueError(
            "the prompt does not have the summary layout (no 'TURNS TO SUMMARIZE:' or "
            "'NEW TURNS TO INCORPORATE:' block before the '## Active Task' template); "
            "call summarize_request(SummaryRequest(...)) with the turns instead"
        )
    block = prompt[header_at + len(header) + 1 : template_at].rstrip("\n")
    turns_text, separator, _instruction = block.rpartition("\n\n")
    if not separator:
        turns_text = ""
    previous_summary = None
    if header == "NEW TURNS TO INCORPORATE:":
        start = prompt.find("PREVIOUS SUMMARY:\n")
        if 0 <= start < header_at:
            previous_summary = prompt[start + len("PREVIOUS SUMMARY:\n") : header_at].strip() or None
    focus_matches = _FOCUS_RE.findall(prompt[template_at:])
    target = _TARGET_RE.findall(prompt[template_at:])
    budget = int(target[-1]) if target else int(max_tokens / 1.3)
    turns = _deserialize_turns(turns_text)
    return SummaryRequest(
        prompt=prompt,
        max_tokens=max_tokens,
        turns=turns,
        serialized_turns=turns_text,
        previous_summary=previous_summary,
        focus_topic=focus_matches[-1] if focus_matches else None,
        summary_budget=budget,
    )
