"""Where fact values occur verbatim (``value in text``), for many values at once.

Checking each value with ``in`` scans the whole text once per value: the facts of a long session
against its compressed output (or against every message) grow as the product of the two. An
Aho-Corasick automaton (``pyahocorasick``) finds every value in one pass over each text. Values go
into automata of at most ``BATCH`` values each, so an automaton's memory stays bounded however
many facts there are; small inputs skip the automaton, whose construction would cost more.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import ahocorasick

__all__ = ["BATCH", "PIECE_CHARS", "found_in", "occurrences"]

BATCH = 4096
# Below this many (values × characters), one ``in`` per value is as fast as building an automaton.
_PLAIN_WORK = 4_000_000
# The automaton reads a text as a copy at four bytes a character: long texts go in pieces of this
# many characters, each overlapping the next by the longest value less one, so no match is split.
PIECE_CHARS = 1_000_000


def _automata(values: Sequence[str]) -> Iterator[Any]:
    """Automata over ``values`` (distinct, non-empty) in batches; each match yields the value's position."""
    for start in range(0, len(values), BATCH):
        automaton = ahocorasick.Automaton()
        for position in range(start, min(start + BATCH, len(values))):
            automaton.add_word(values[position], position)
        automaton.make_automaton()
        yield automaton


def _pieces(text: str, longest: int) -> Iterator[str]:
    if len(text) <= PIECE_CHARS:
        yield text
        return
    overlap = max(longest - 1, 0)
    for start in range(0, len(text), PIECE_CHARS):
        yield text[start : start + PIECE_CHARS + overlap]
        if start + PIECE_CHARS + overlap >= len(text):
            return


def _matches(automaton: Any, text: str, longest: int) -> Iterator[int]:
    """The value positions of every match in ``text`` (a match in an overlap may come twice)."""
    for piece in _pieces(text, longest):
        for _end, position in automaton.iter(piece):
            yield position


def found_in(values: Sequence[Any], text: str) -> list[bool]:
    """For each of ``values``: is it a non-empty string that occurs in ``text``?"""
    distinct = list(dict.fromkeys(value for value in values if isinstance(value, str) and value))
    if len(distinct) * len(text) <= _PLAIN_WORK:
        present = {value for value in distinct if value in text}
    else:
        present = set()
        longest = max(map(len, distinct))
        for automaton in _automata(distinct):
            present.update(distinct[position] for position in _matches(automaton, text, longest))
    return [isinstance(value, str) and value in present for value in values]


def occurrences(values: Sequence[str], texts: Sequence[str]) -> list[list[int]]:
    """For each of ``values`` (strings), the indices of the ``texts`` it occurs in, ascending
    (exactly ``[i for i, text in enumerate(texts) if value in text]``)."""
    distinct = list(dict.fromkeys(value for value in values if value))
    total = sum(len(text) for text in texts)
    where: dict[str, list[int]] = {value: [] for value in distinct}
    if len(distinct) * total <= _PLAIN_WORK:
        for value in distinct:
            where[value] = [index for index, text in enumerate(texts) if value in text]
    else:
        longest = max(map(len, distinct))
        for automaton in _automata(distinct):
            for index, text in enumerate(texts):
                for position in _matches(automaton, text, longest):
                    found = where[distinct[position]]
                    if not found or found[-1] != index:
                        found.append(index)
    every = list(range(len(texts)))  # the empty string is in every text
    return [list(where[value]) if value else list(every) for value in values]
