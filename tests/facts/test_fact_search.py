"""Fact search finds exactly what ``value in text`` finds, on the plain path and through the automata."""

from __future__ import annotations

import random

import pytest

from core.facts import search
from core.facts.search import found_in, occurrences

ALPHABET = ["a", "b", "ab", "/", ".py", " ", "\n", "é", "😀", "\ud800", "src", "x"]


def _text(rng: random.Random, pieces: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(pieces))


def _values(rng: random.Random, count: int) -> list:
    values: list = [_text(rng, rng.randint(1, 6)) for _ in range(count)]
    values += ["", "zzz-never", values[0], None, 42]  # empty, absent, repeated, not strings
    rng.shuffle(values)
    return values


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("through_automata", [False, True])
def test_found_in_is_value_in_text(seed, through_automata, monkeypatch):
    rng = random.Random(seed)
    if through_automata:  # every input goes through batched automata, in pieces of the text
        monkeypatch.setattr(search, "_PLAIN_WORK", -1)
        monkeypatch.setattr(search, "BATCH", 7)
        monkeypatch.setattr(search, "PIECE_CHARS", rng.randint(1, 9))
    values = _values(rng, rng.randint(0, 40))
    text = _text(rng, rng.randint(0, 400))
    assert found_in(values, text) == [isinstance(v, str) and bool(v) and v in text for v in values]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("through_automata", [False, True])
def test_occurrences_are_the_texts_holding_each_value(seed, through_automata, monkeypatch):
    rng = random.Random(seed)
    if through_automata:
        monkeypatch.setattr(search, "_PLAIN_WORK", -1)
        monkeypatch.setattr(search, "BATCH", 5)
        monkeypatch.setattr(search, "PIECE_CHARS", rng.randint(1, 9))
    values = [v for v in _values(rng, rng.randint(0, 30)) if isinstance(v, str)]
    texts = [_text(rng, rng.randint(0, 60)) for _ in range(rng.randint(0, 25))]
    assert occurrences(values, texts) == [[i for i, text in enumerate(texts) if v in text] for v in values]


def test_a_long_session_goes_through_the_automata_and_finds_the_same():
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(3, 8))) for _ in range(400)]
    text = " ".join(rng.choice(words) for _ in range(30_000))
    values = [f"{rng.choice(words)}/{rng.choice(words)}" for _ in range(300)] + words[:200]
    assert len(values) * len(text) > search._PLAIN_WORK  # the automaton path, not the plain one
    assert found_in(values, text) == [v in text for v in values]
