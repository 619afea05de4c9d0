"""The identifier scans that skip ahead give what the plain patterns give (kept here as the oracles):
names in CamelCase, definitions, the digit test and the test for a run of data without a blank."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.facts import extract
from core.literals import matches_at

CAMEL_ORACLE = re.compile(r"\b[A-Z][A-Za-z0-9]{2,}\b")
DIGIT_ORACLE = re.compile(r"\d")

_PIECES = ["A", "Ab", "ABC", "abc", "x", "_", "9", "٣", "é", "É", "Ωmega", " ", "\n", "\t", "(", ")", ":", "{", "<",
           ".", "$", "def", "class", "async", "function", "fn", "struct", "enum", "trait", "interface", "Foo",
           "bar_baz", "mydef", "subclass", "defs", "  ", "HTTPServer", "parseJSON", "x1", "\u00a0", "ü"]
_texts = st.lists(st.sampled_from(_PIECES), max_size=50).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_texts)
def test_camel_names_are_those_of_the_word_boundary_pattern(text):
    assert extract._CAMEL_RE.findall(text) == CAMEL_ORACLE.findall(text)


@settings(max_examples=3000, deadline=None)
@given(_texts)
def test_definitions_found_at_their_keywords_are_those_of_a_full_scan(text):
    found = [match.span() for match in matches_at(extract._DEFINITION_RE, text, extract._DEFINITION_STARTS)]
    assert found == [match.span() for match in extract._DEFINITION_RE.finditer(text)]


@settings(max_examples=2000, deadline=None)
@given(_texts)
def test_the_digit_test_is_the_patterns(text):
    assert extract._has_digit(text) == (DIGIT_ORACLE.search(text) is not None)


def test_a_digit_of_another_script_counts_as_the_pattern_counts_it():
    assert extract._has_digit("step ٣ done") and not extract._has_digit("no digits here")


_runs = st.lists(st.tuples(st.integers(0, 1600), st.sampled_from([" ", "\n", "\t", "\u3000", "  "])), max_size=6)


@settings(max_examples=2000, deadline=None)
@given(_runs, st.sampled_from(["x", "é", "=/"]))
def test_no_data_run_is_missed(runs, letter):
    text = "".join(letter * length + gap for length, gap in runs)
    if extract._DATA_RUN_RE.search(text):
        assert extract._may_hold_data_run(text)


def test_a_run_at_any_offset_is_seen_and_prose_is_not():
    prose = "words and more words\n" * 200
    assert not extract._may_hold_data_run(prose)
    for offset in (0, 1, 249, 250, 499, 500, 501, 999):
        text = "a " * offset + "Q" * 1000 + " tail"
        assert extract._may_hold_data_run(text), offset
    assert list(extract._identifiers("AbcDef " + "Zq9" * 400 + " CamelCase")) == ["AbcDef", "CamelCase"]
