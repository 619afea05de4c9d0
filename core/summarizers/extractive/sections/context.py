"""Section 12, ``## Critical Context``: exact values no other line quotes, grouped by kind.

Every fact of the turns (``core.facts``: paths, commands, error lines, URLs, numbers with units,
issue numbers, names) that no drafted line quotes gets a line of its own (an error) or a place in a
grouped line (``- Commands: `a`, `b```); a fact a drafted line does quote gets a compact
alternative, rendered only when the budget drops that line. An earlier summary's context is carried.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any

from core.facts import latest_request
from core.summarizers.extractive.coverage import facts_by_turn, item_coverage
from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.findings import FINDING_WEIGHTS
from core.summarizers.extractive.model import Fact
from core.summarizers.extractive.sections.common import (
    TIER_ERROR_CONTEXT,
    TIER_FILE_MENTIONED,
    TIER_IDENTIFIER_CONTEXT,
    TIER_QUANTITY_CONTEXT,
    TIER_VALUE_CONTEXT,
    group_line,
)

# What each kind of value is worth to a continuing agent: an error line or the user's words above
# a path, command or number; a function or class name below (any kind not named counts 1).
FACT_WEIGHTS = {"user_request": 3.0, "error": 3.0, "identifier": 0.25, **FINDING_WEIGHTS}
CONTEXT_GROUPS = {
    "Commands": TIER_VALUE_CONTEXT,
    "URLs": TIER_VALUE_CONTEXT,
    "Issues": TIER_VALUE_CONTEXT,
    "Values": TIER_QUANTITY_CONTEXT,
    "Identifiers": TIER_IDENTIFIER_CONTEXT,
}
FACT_LINES_PER_TOKEN = 1
MIN_FACT_LINES = 2_000
_GROUP_FOR_KIND = {
    "command": ("context", "Commands", TIER_VALUE_CONTEXT),
    "url": ("context", "URLs", TIER_VALUE_CONTEXT),
    "issue": ("context", "Issues", TIER_VALUE_CONTEXT),
    "quantity": ("context", "Values", TIER_QUANTITY_CONTEXT),
    "identifier": ("context", "Identifiers", TIER_IDENTIFIER_CONTEXT),
    "name": ("context", "Identifiers", TIER_IDENTIFIER_CONTEXT),
    "number": ("context", "Values", TIER_QUANTITY_CONTEXT),
    "path": ("files", "Also", TIER_FILE_MENTIONED),
}


def turn_facts(turns: Sequence[Mapping[str, Any]], per_turn: Sequence[Sequence[tuple[str, str]]]) -> list[Fact]:
    """The distinct facts of the turns (``per_turn``: each turn's (kind, value) pairs), each with every
    turn it was read from, weighted by kind and by the recency of its first turn."""
    indices: dict[tuple[str, str], list[int]] = {}
    request = latest_request(turns, exclude_credentials=False)
    if request is not None:
        indices[("user_request", request[1])] = [request[0]]
    for index, found in enumerate(per_turn):
        for kind, value in found:
            seen = indices.setdefault((kind, value), [])
            if not seen or seen[-1] != index:
                seen.append(index)
    n = len(turns) + 1
    return [
        Fact(kind, value, FACT_WEIGHTS.get(kind, 1.0) * (0.8 + 0.2 * (where[0] + 1) / n), tuple(where))
        for (kind, value), where in indices.items()
    ]


def build(draft: Draft, turns: Sequence[Mapping[str, Any]]) -> None:
    for line in draft.carried("context"):
        grouped = group_line(line, CONTEXT_GROUPS)
        if grouped is None:
            draft.add("context", line, TIER_VALUE_CONTEXT, 0, carried=True)
            continue
        for value in grouped[1]:
            draft.add("context", value, CONTEXT_GROUPS[grouped[0]], 0, group=grouped[0], carried=True)
    facts = turn_facts(turns, draft.reading.turn_facts)
    draft.facts = facts
    by_turn = draft.facts_by_turn = facts_by_turn(facts)
    quoted: set[int] = set()
    for item in draft.items:
        if not item.alternative:  # a stand-in renders only when a fuller line is dropped: it holds nothing
            quoted |= item_coverage(item, facts, by_turn)
    # A summary of ``limit`` tokens holds at most a few thousand values: on a long session only the
    # most valuable facts get lines of their own (every fact still counts for the lines quoting it).
    allowed: set[int] | None = None
    most = max(MIN_FACT_LINES, FACT_LINES_PER_TOKEN * draft.limit)
    if len(facts) > most:
        ranked = heapq.nlargest(most, range(len(facts)), key=lambda position: (facts[position].weight, -position))
        allowed = set(ranked)
    for position, fact in enumerate(facts):
        if allowed is not None and position not in allowed:
            continue
        index = fact.indices[0]
        is_quoted = position in quoted
        if fact.kind == "user_request":
            continue  # the task or the pending asks quote it
        if fact.kind == "error":
            # Unresolved errors are already blocking, so a new line here was met earlier.
            text = f"- Error seen: {fact.value}" if is_quoted else f"- Earlier error: {fact.value}"
            added = draft.add("context", text, TIER_ERROR_CONTEXT, index, alternative=is_quoted, sources=fact.indices)
            if not is_quoted:
                quoted |= item_coverage(added, facts, by_turn)
        elif fact.kind == "path" and not is_quoted:
            added = draft.add("files", f"- {fact.value} — mentioned", TIER_FILE_MENTIONED, index, sources=fact.indices)
            quoted |= item_coverage(added, facts, by_turn)
            # The same path in one shared line costs fewer tokens when the budget is tight.
            draft.add("files", fact.value, TIER_FILE_MENTIONED, index, group="Also", alternative=True,
                      sources=fact.indices)
        elif fact.kind in _GROUP_FOR_KIND:
            section, group, tier = _GROUP_FOR_KIND[fact.kind]
            shown = f"`{fact.value}`" if fact.kind == "command" else fact.value
            added = draft.add(section, shown, tier, index, group=group, alternative=is_quoted, sources=fact.indices)
            if not is_quoted:
                quoted |= item_coverage(added, facts, by_turn)
