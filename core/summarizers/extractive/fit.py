"""The budget fit: render the lines that fit in the limit, dropping the least valuable first.

When everything fits, every line except the compact alternatives is rendered. Otherwise the
mandatory task comes first and two selections are written:

* by priority: the lowest-priority lines go first (loose names, old actions before blockers,
  pending asks and constraints), and the room left is topped up the coverage way;
* by coverage: the essential lines (goal, constraints, current state, work in progress, blockers,
  pending asks, the latest three actions, anything about the focus topic) within
  ``ESSENTIAL_SHARE`` of the room, then the lines that add the most weight of not yet kept exact
  values (facts) per token, compact alternatives included.

The one keeping the greater weight of facts wins, by more than one fact's worth (else the priority
one, which reads better): a budget a little short of the full summary loses only the least
important lines, while a tight one keeps far more exact values than priority alone would. Age alone
never drops a line: an early diagnosis is kept when its values are worth the tokens.

Token costs are counted exactly (cl100k_base) but only for the lines a selection considers, and the
rendered text is checked once at the end, so the fit stays linear in the number of lines.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

from core.summarizers.extractive.coverage import facts_by_turn, item_coverage
from core.summarizers.extractive.findings import FINDING_SEPARATOR, is_line_group
from core.summarizers.extractive.model import EMPTY_SECTION_TEXT, SECTION_KEYS, Fact, Item
from core.summarizers.extractive.tokens import count_tokens

# Under a tight budget these sections are kept first, within a share of the room, and so are the
# latest actions and anything about the focus topic.
ESSENTIAL_SECTIONS = frozenset({"goal", "constraints", "state", "in_progress", "blocked", "pending"})
LINES_KEPT = {"actions": 3}
ESSENTIAL_SHARE = 0.4
# How much a line's priority counts against the exact values it keeps.
PRIORITY_WEIGHT = 0.1
# The coverage selection must keep more than one ordinary fact's worth to beat the priority one.
COVERAGE_MARGIN = 1.0
# On a long session only this many candidate lines per token of the limit are weighed (twice: the
# best by priority and the best by value per token); a summary holds far fewer.
CANDIDATES_PER_TOKEN = 1
MIN_CANDIDATES = 2_000
# Rounds of the value-per-token fill: each gives the room of redundant stand-ins to further lines.
_FILL_ROUNDS = 3
# A selection stops after this many lines in a row that did not fit the room left.
_MAX_MISSES = 300
# A text this many characters per token of the limit cannot fit: no need to count it.
_MAX_CHARS_PER_TOKEN = 12


def render(items: Sequence[Item], headings: Sequence[str]) -> str:
    """The summary body: every heading in order, each with its lines (grouped values on one line)."""
    by_section: dict[str, list[Item]] = {key: [] for key in SECTION_KEYS}
    for item in items:
        by_section[item.section].append(item)
    blocks: list[str] = []
    for heading, key in zip(headings, SECTION_KEYS, strict=True):
        lines: list[str] = []
        group_lines: dict[str, int] = {}
        group_values: dict[str, list[str]] = {}
        for item in sorted(by_section[key], key=lambda it: it.order):
            if item.group is None:
                lines.append(item.text)
            elif item.group in group_values:
                group_values[item.group].append(item.text)
            else:
                group_lines[item.group] = len(lines)
                group_values[item.group] = [item.text]
                lines.append("")
        for group, position in group_lines.items():
            joiner = FINDING_SEPARATOR if is_line_group(group) else ", "
            lines[position] = f"- {group}: " + joiner.join(group_values[group])
        blocks.append(heading + "\n" + ("\n".join(lines) if lines else EMPTY_SECTION_TEXT))
    return "\n\n".join(blocks)


def skeleton_tokens(headings: Sequence[str]) -> int:
    return count_tokens(render([], headings))


class _Costs:
    """Exact token costs of lines, counted once each and only when asked."""

    def __init__(self) -> None:
        self._line: dict[int, int] = {}
        self._value: dict[int, int] = {}
        self._labels: dict[str, int] = {}

    def of(self, item: Item, started_groups: set[str]) -> int:
        if item.group is None:
            cost = self._line.get(id(item))
            if cost is None:
                cost = self._line[id(item)] = count_tokens(item.text + "\n")
            return cost
        cost = self._value.get(id(item))
        if cost is None:
            cost = self._value[id(item)] = count_tokens(", " + item.text)
        if item.group not in started_groups:
            label = self._labels.get(item.group)
            if label is None:
                label = self._labels[item.group] = count_tokens(f"- {item.group}: \n")
            cost += label
        return cost


def _estimate(item: Item) -> int:
    return len(item.text) // 4 + 1


def _render_within(mandatory: list[Item], chosen: list[Item], limit: int, headings: Sequence[str],
                   costs: _Costs) -> tuple[str, list[Item]]:
    """Render; the per-line costs are estimates of the joined text, so drop the last choices until it
    fits. Returns the text and the lines it holds."""
    chosen = list(chosen)
    while True:
        text = render(mandatory + chosen, headings)
        excess = count_tokens(text) - limit
        if excess <= 0 or not chosen:
            return text, chosen
        dropped = 0
        while chosen and dropped < excess:
            dropped += costs.of(chosen.pop(), set())


def _by_priority(optional: Sequence[Item], room: int, costs: _Costs) -> list[Item]:
    """The highest-priority lines (no alternatives) that fit in ``room`` tokens."""
    chosen: list[Item] = []
    started: set[str] = set()
    misses = 0
    for item in sorted(optional, key=lambda it: (-it.priority, -it.order)):
        if item.alternative:
            continue
        if _estimate(item) > 4 * room + 8:
            continue  # far too long for what is left: not worth counting
        cost = costs.of(item, started)
        if cost <= room:
            chosen.append(item)
            room -= cost
            misses = 0
            if item.group is not None:
                started.add(item.group)
        else:
            misses += 1
            if room < 3 or misses > _MAX_MISSES:
                break
    return chosen


def _by_coverage(
    optional: Sequence[Item],
    room: int,
    facts: Sequence[Fact],
    coverage: Mapping[int, frozenset[int]],
    kept: set[int],
    costs: _Costs,
    start: Sequence[Item] | None = None,
) -> list[Item]:
    """Essential lines by priority within ``ESSENTIAL_SHARE`` of ``room`` (or the ``start`` lines,
    already chosen), then the lines and compact alternatives that add the most weight of not yet kept
    facts per token. ``coverage`` maps ``id(item)`` to the facts it quotes."""
    kept = set(kept)
    chosen: list[Item] = []
    started: set[str] = set()

    def take(item: Item, cost: int) -> None:
        nonlocal room
        chosen.append(item)
        room -= cost
        kept.update(coverage[id(item)])
        if item.group is not None:
            started.add(item.group)

    by_priority = sorted(optional, key=lambda it: (-it.priority, -it.order))
    for item in start or ():
        take(item, costs.of(item, started))
    per_section: dict[str, int] = {}
    essential_room = int(room * ESSENTIAL_SHARE)
    for item in by_priority if start is None else ():
        if item.alternative:
            continue
        rank = per_section.get(item.section, 0)
        per_section[item.section] = rank + 1
        essential = (
            item.section in ESSENTIAL_SECTIONS
            or item.focused
            or item.essential
            or (item.group is None and rank < LINES_KEPT.get(item.section, 0))
        )
        if not essential or _estimate(item) > 4 * essential_room + 8:
            continue
        cost = costs.of(item, started)
        if cost <= min(room, essential_room):
            essential_room -= cost
            take(item, cost)

    def gain(item: Item) -> float:
        new = coverage[id(item)] - kept
        return sum(facts[fact_id].weight for fact_id in new) + item.priority * PRIORITY_WEIGHT

    # Lazy greedy: a line's gain only falls as other lines keep its values, and its first cost is an
    # estimate, so a stale score is re-scored (with the exact cost) before the line is taken.
    taken = {id(item) for item in chosen}
    heap = [
        (-gain(item) / _estimate(item), position, False, item)
        for position, item in enumerate(by_priority)
        if id(item) not in taken
    ]
    heapq.heapify(heap)
    missed: list[tuple[int, Item]] = []
    for _round in range(_FILL_ROUNDS):
        for position, item in missed:  # lines that did not fit before may fit the room now freed
            heapq.heappush(heap, (-gain(item) / max(costs.of(item, started), 1), position, True, item))
        missed = []
        misses = 0
        while heap and room > 0 and misses < _MAX_MISSES:
            stale, position, exact, item = heapq.heappop(heap)
            if item.alternative and not coverage[id(item)] - kept:
                continue  # the value is already quoted by a kept line
            cost = costs.of(item, started)
            score = -gain(item) / max(cost, 1)
            if heap and score > heap[0][0]:
                heapq.heappush(heap, (score, position, True, item))
                continue
            if cost <= room:
                take(item, cost)
                misses = 0
            else:
                misses += 1
                missed.append((position, item))
        # An alternative taken before a fuller line that quotes the same value is redundant; the
        # room it held goes to the next best lines (a summary under its budget while values are
        # dropped would waste what it was given).
        quoted_by_lines: set[int] = set()
        for item in chosen:
            if not item.alternative:
                quoted_by_lines.update(coverage[id(item)])
        redundant = [item for item in chosen if item.alternative and not coverage[id(item)] - quoted_by_lines]
        if not redundant:
            break
        dropped = {id(item) for item in redundant}
        chosen[:] = [item for item in chosen if id(item) not in dropped]
        room += sum(costs.of(item, {item.group} if item.group else set()) for item in redundant)
    return chosen


def _candidates(optional: list[Item], limit: int, facts: Sequence[Fact], coverage: Mapping[int, frozenset[int]],
                kept: set[int]) -> list[Item]:
    """The lines either selection could take: a summary of ``limit`` tokens holds at most about
    ``limit`` lines, so on a long session only the best ``CANDIDATES_PER_TOKEN * limit`` by priority
    and the best as many by value per token are weighed (in their original order)."""
    most = max(MIN_CANDIDATES, CANDIDATES_PER_TOKEN * limit)
    if len(optional) <= most:
        return optional

    def value(item: Item) -> float:
        return sum(facts[f].weight for f in coverage[id(item)] - kept) / _estimate(item)

    chosen = {id(item) for item in heapq.nlargest(most, optional, key=lambda it: (it.priority, it.order))}
    chosen.update(id(item) for item in heapq.nlargest(most, optional, key=value))
    return [item for item in optional if id(item) in chosen]


def _kept_weight(chosen: Sequence[Item], facts: Sequence[Fact], coverage: Mapping[int, frozenset[int]],
                 kept: set[int]) -> float:
    found = set(kept)
    for item in chosen:
        found |= coverage.get(id(item), frozenset())
    return sum(facts[fact_id].weight for fact_id in found)


def fit(items: list[Item], limit: int, facts: Sequence[Fact], headings: Sequence[str],
        by_turn: dict[int, list[int]] | None = None) -> str:
    """Render the items that fit in ``limit`` tokens (see the module docstring)."""
    regular = [item for item in items if not item.alternative]
    if sum(len(item.text) + 2 for item in regular) <= limit * _MAX_CHARS_PER_TOKEN:
        full = render(regular, headings)
        if count_tokens(full) <= limit:
            return full
    costs = _Costs()
    mandatory = [item for item in items if item.mandatory]
    optional = [item for item in items if not item.mandatory]
    room = limit - count_tokens(render(mandatory, headings))
    by_turn = by_turn if by_turn is not None else facts_by_turn(facts)
    kept = set().union(*(item_coverage(item, facts, by_turn) for item in mandatory)) if mandatory else set()
    coverage = {id(item): item_coverage(item, facts, by_turn) for item in optional}
    optional = _candidates(optional, limit, facts, coverage, kept)
    priority_lines = _by_priority(optional, room, costs)
    topped_up = _by_coverage(optional, room, facts, coverage, kept, costs, priority_lines)
    by_coverage = _by_coverage(optional, room, facts, coverage, kept, costs)
    first, first_lines = _render_within(mandatory, topped_up, limit, headings, costs)
    second, second_lines = _render_within(mandatory, by_coverage, limit, headings, costs)
    # Weigh what each rendering kept (the last choices may have been dropped to fit).
    first_weight = _kept_weight(first_lines, facts, coverage, kept)
    second_weight = _kept_weight(second_lines, facts, coverage, kept)
    return second if second_weight > first_weight + COVERAGE_MARGIN else first
