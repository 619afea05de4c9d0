"""The draft: every candidate line of every section, with its priority, as the section builders add them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.summarizers.extractive.model import Fact, Item, Reading

# Carried lines (from an earlier summary) render before new ones.
_CARRIED_ORDER = -1_000_000
FOCUS_BONUS = 2.0


@dataclass
class Focus:
    """The request's focus topic as lower-cased terms (the whole topic and its longer words)."""

    terms: tuple[str, ...] = ()

    @classmethod
    def of(cls, topic: str | None) -> Focus:
        if not topic or not topic.strip():
            return cls()
        lowered = topic.strip().lower()
        words = [word for word in re.findall(r"[\w./-]+", lowered) if len(word) >= 4]
        return cls(tuple(dict.fromkeys([lowered, *words])))

    def matches(self, text: str) -> bool:
        if not self.terms:
            return False
        lowered = text.lower()
        return any(term in lowered for term in self.terms)


@dataclass
class Draft:
    """The candidate lines so far, and what the builders read from."""

    reading: Reading
    previous: dict[str, list[str]]
    focus: Focus
    limit: int
    headings: dict[str, str] = field(default_factory=dict)  # section key -> heading text, for references
    items: list[Item] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    facts_by_turn: dict[int, list[int]] = field(default_factory=dict)  # see coverage.facts_by_turn
    _serial: int = 0

    def recency(self, index: int) -> float:
        return (index + 1) / self._span

    @property
    def _span(self) -> int:
        return (self.reading.n_turns if self.reading.n_turns > 1 else 1) + 1

    def add(
        self,
        section: str,
        text: str,
        tier: float,
        index: int,
        group: str | None = None,
        *,
        carried: bool = False,
        alternative: bool = False,
        sources: Iterable[int] | None = None,
        mandatory: bool = False,
        essential: bool = False,
    ) -> Item:
        """Add a line: its priority is its tier, plus its recency (up to 1) for new lines, plus a
        bonus when it is about the focus topic."""
        priority = float("inf") if mandatory else tier + (0.0 if carried else self.recency(index))
        focused = self.focus.matches(text)
        if focused and not mandatory:
            priority += FOCUS_BONUS
        order = (_CARRIED_ORDER if carried else 0) + self._serial
        self._serial += 1
        item = Item(section, text, priority, order, group, mandatory=mandatory, alternative=alternative,
                    focused=focused, essential=essential,
                    sources=() if carried else tuple(sources if sources is not None else (index,)))
        self.items.append(item)
        return item

    def heading_name(self, section: str) -> str:
        return self.headings.get(section, "## " + section)[3:]

    def has(self, section: str) -> bool:
        return any(item.section == section for item in self.items)

    def carried(self, section: str) -> Sequence[str]:
        return self.previous.get(section, ())


def dedupe(items: list[Item]) -> list[Item]:
    """Drop repeated lines within a section, keeping the highest-priority copy (with all sources)."""
    best: dict[tuple[str, str | None, str], Item] = {}
    for item in items:
        key = (item.section, item.group, item.text)
        kept = best.get(key)
        if kept is None:
            best[key] = item
            continue
        sources = tuple(dict.fromkeys(kept.sources + item.sources))
        if (kept.alternative, item.priority) > (item.alternative, kept.priority):
            best[key] = item
        best[key].sources = sources
    return list(best.values())
