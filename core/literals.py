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

__all__ = ["CASE_BLIND_EXTRAS", "Literals", "matches_at"]


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

    def any_in_ignorecase(self, text: str) -> bool:
        """Whether ``text`` may hold one of the (lowercase) literals as a pattern with IGNORECASE would
        match it: the text folded (``CASE_BLIND_EXTRAS``) and lowered. False only where no such match is."""
        if not text.isascii() and any(letter in text for letter in CASE_BLIND_EXTRAS):
            text = text.translate(_FOLD_EXTRAS)  # rare, and slower than the four searches that rule it out
        return self.any_in(text.lower())


# IGNORECASE matches four non-ASCII letters to ASCII ones, which lowering alone does not show ("ſ" for
# "s", "ı" and "İ" for "i", the Kelvin sign for "k"): Literals.any_in_ignorecase folds them first.
CASE_BLIND_EXTRAS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_FOLD_EXTRAS = str.maketrans(CASE_BLIND_EXTRAS)


def matches_at(pattern: re.Pattern[str], text: str, literals: Literals) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` gives, for a pattern whose every match starts with one of
    ``literals`` (and never matches the empty string): the pattern is tried only where one of them
    starts. A pattern that opens with a look-behind is otherwise tried at every position."""
    after = 0
    for start in sorted({start for starts in literals.starts_in(text).values() for start in starts}):
        if start >= after and (found := pattern.match(text, start)) is not None:
            after = found.end()
            yield found
