"""Literals looked for in one pass over a text.

Many readers ask whether any of a few dozen fixed strings occurs in a text (a vendor key's prefix,
a tool's name, an error word) before they run a pattern. One substring search per literal reads the
whole text once for each literal that is absent, which most are; a pattern that alternates them
tries every position. An Aho-Corasick automaton (``pyahocorasick``) reads the text once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["Literals", "matches_at"]


class Literals:
    """A fixed set of literals, looked for in one Aho-Corasick pass over a text instead of one substring
    search each (most are absent from most texts, and each absent one reads the whole text)."""

    def __init__(self, literals: Iterable[str]) -> None:
        self._literals = tuple(dict.fromkeys(literals))
        # For found_in, a literal of one or two characters is looked up with ``in``: it is found early
        # in most texts, where the automaton would report every occurrence.
        self._short = tuple(literal for literal in self._literals if len(literal) <= 2)
        self._automata: dict[bool, Any] = {}

    def _automaton(self, with_short: bool) -> Any:
        automaton = self._automata.get(with_short)
        if automaton is None:
            import ahocorasick

            automaton = ahocorasick.Automaton()
            for literal in self._literals:
                if with_short or literal not in self._short:
                    automaton.add_word(literal, literal)
            if len(automaton):
                automaton.make_automaton()
            self._automata[with_short] = automaton
        return automaton

    def found_in(self, text: str) -> frozenset[str]:
        """The literals that occur in ``text``."""
        found = {literal for literal in self._short if literal in text}
        automaton = self._automaton(with_short=False)
        if len(automaton):
            found.update(literal for _end, literal in automaton.iter(text))
        return frozenset(found)

    def starts_in(self, text: str) -> dict[str, list[int]]:
        """Where each literal that occurs in ``text`` starts, in order."""
        starts: dict[str, list[int]] = {}
        automaton = self._automaton(with_short=True)
        if len(automaton):
            for end, literal in automaton.iter(text):
                starts.setdefault(literal, []).append(end - len(literal) + 1)
        return starts

    def any_in(self, text: str) -> bool:
        """Whether one of the literals occurs in ``text`` (the pass stops at the first)."""
        automaton = self._automaton(with_short=True)
        return bool(len(automaton)) and next(automaton.iter(text), None) is not None


def matches_at(pattern: re.Pattern[str], text: str, literals: Literals) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` gives, for a pattern whose every match starts with one of
    ``literals`` (and never matches the empty string): the pattern is tried only where one of them
    starts. A pattern that opens with a look-behind is otherwise tried at every position."""
    after = 0
    for start in sorted({start for starts in literals.starts_in(text).values() for start in starts}):
        if start >= after and (found := pattern.match(text, start)) is not None:
            after = found.end()
            yield found
