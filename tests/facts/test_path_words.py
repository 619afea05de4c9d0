"""Paths in long texts are read from the words that could hold one: the same words, in the same
order, as filtering ``str.split()`` (a text too long to split is read by a pattern instead)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.facts import extract

# What a word must hold to be kept (the test of each word of ``text.split()``).
_PATH_HINT = re.compile(r"[/\\.]|Dockerfile|Makefile")

_PIECES = ["a", "/", "\\", ".", "..", " ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u2028", "\u3000", "\x1c", "\x85",
           "Dockerfile", "Makefile", "Docker", "file", "Make", "é", "x.py", "src/app.py", "C:\\x\\y.txt", "~/n",
           "./run.sh", "-", ",", ":"]
_texts = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join)


@settings(max_examples=2000, deadline=None)
@given(_texts)
def test_the_path_words_are_the_words_of_split_that_hold_a_hint(text):
    assert extract._PATH_WORD_RE.findall(text) == [word for word in text.split() if _PATH_HINT.search(word)]


@settings(max_examples=2000, deadline=None)
@given(_texts)
def test_split_and_the_pattern_give_the_same_path_words(text):
    assert extract._path_words(text) == extract._PATH_WORD_RE.findall(text)


@settings(max_examples=500, deadline=None)
@given(_texts)
def test_paths_of_a_long_text_are_those_of_its_hinted_words(text):
    long_text = text + " " + "word " * 60  # past the length where only the hinted words are searched
    hinted = " ".join(word for word in long_text.split() if _PATH_HINT.search(word))
    expected = [value.rstrip(".,;:") for value in extract._PATH_RE.findall(hinted)]
    assert extract.find_paths(long_text) == [value for value in expected if len(value) > 1]


def test_every_unicode_whitespace_separates_words_as_split_does():
    spaces = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())
    text = spaces.join(["a/b", "x", "c.d", "Makefile", "e"])
    assert extract._PATH_WORD_RE.findall(text) == ["a/b", "c.d", "Makefile"]


def test_a_long_log_yields_its_paths_in_order():
    log = ("compiling module " * 5_000) + "error in src/core/app.py line 3 " + ("ok " * 5_000) + "see ./build/out.log."
    assert extract.find_paths(log) == ["src/core/app.py", "./build/out.log"]
