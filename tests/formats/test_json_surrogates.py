"""Escaped lone UTF-16 surrogates in JSON: valid JSON, but not text that can be encoded. Each becomes
U+FFFD before parsing, a proper pair stays, and an escaped backslash before ``u`` is left alone."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.formats.source import _replace_lone_surrogates, parse_json_problem

# The rule written out as one regular expression (the form it had before it was searched by its
# literal start): the reference the faster search must agree with.
_REFERENCE = re.compile(r"(?<!\\)((?:\\\\)*)\\u([dD][89a-fA-F][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?")


def _reference(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        backslashes, first, low = match.groups()
        if low and first[1] in "89abAB":
            return match.group(0)
        return backslashes + "\\ufffd" + ("\\ufffd" if low else "")

    return _REFERENCE.sub(replace, text)


PIECES = ["\\", "\\\\", "u", "\\ud83d", "\\ude00", "\\uD800", "\\udbff", "\\udc00", "\\uDFFF", "\\u0041",
          "\\u00e9", "a", '"', "d8", " "]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14))
def test_the_replacement_agrees_with_the_rule_written_as_one_pattern(pieces):
    text = "".join(pieces)
    assert _replace_lone_surrogates(text) == _reference(text)


def test_lone_halves_become_replacement_characters_and_a_pair_stays():
    document = json.dumps({"lone_high": "a\ud800b", "lone_low": "\udc00", "pair": "😀",
                           "backslash_then_u": "\\ud800", "two_highs": "\ud800\ud801\udc37"})
    parsed = parse_json_problem(document)
    assert parsed == {"lone_high": "a\ufffdb", "lone_low": "\ufffd", "pair": "😀", "backslash_then_u": "\\ud800",
                      "two_highs": "\ufffd\U00010437"}
    json.dumps(parsed, ensure_ascii=False).encode("utf-8")  # every string can be encoded


def test_a_document_without_surrogates_is_parsed_unchanged():
    document = '{"text": "caf\\u00e9 \\\\u0041 \\"quoted\\""}'
    assert _replace_lone_surrogates(document) is document
    assert parse_json_problem(document) == {"text": 'café \\u0041 "quoted"'}
