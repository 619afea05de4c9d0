"""Which facts each line quotes: a fact counts for a line read from a turn the fact was read from.

Only the facts of a line's own turns are looked for in it, so finding what every line quotes costs
about the facts' occurrences times a line's length, not every fact times every line.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.summarizers.extractive.model import Fact, Item


def facts_by_turn(facts: Sequence[Fact]) -> dict[int, list[int]]:
    """Turn index -> positions in ``facts`` of the facts read from that turn."""
    by_turn: dict[int, list[int]] = {}
    for position, fact in enumerate(facts):
        for index in fact.indices:
            by_turn.setdefault(index, []).append(position)
    return by_turn


def item_coverage(item: Item, facts: Sequence[Fact], by_turn: dict[int, list[int]]) -> frozenset[int]:
    """Positions in ``facts`` of the values ``item`` quotes verbatim (computed once per line)."""
    if item.coverage is not None:
        return item.coverage
    found: set[int] = set()
    # A grouped value renders after its group's label ("- From `cat plan.md`: …"), so a value the
    # label quotes is kept by any line of the group.
    text = item.text if item.group is None else f"{item.group}: {item.text}"
    for index in item.sources:
        for position in by_turn.get(index, ()):
            if position not in found and facts[position].value in text:
                found.add(position)
    item.coverage = frozenset(found)
    return item.coverage
