"""v0.19.0's reasoning-block stripping: the one-pass scanners give exactly what the release's six
regular expressions give, and stay linear on texts built to make those expressions quadratic."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from core.phases.reasoning import strip_reasoning_blocks, strip_reasoning_blocks_reference

_FRAGMENTS = [
    "<think>", "</think>", "<THINK>", "</ThInK>", "<thinK>", "</thin\u212a>", "<thinking>", "</thinking>",
    "<reasoning", "<reasoning>", "</reasoning>", "<REASONING_SCRATCHPAD>", "</reasoning_scratchpad>",
    "<thought>", "</thought>", "<tool_call", "<tool_call>", "<tool_call id=1>", "</tool_call>", "<tool_calls>",
    "</tool_calls>", "<tool_result>", "</tool_result>", "<function_call>", "</function_call>",
    "<function_calls>", "</function_calls>", "<function", "<function>", "<function name=\"f\">",
    " name=", "name =", "rename=", "</function>", "</FUNCTION>", ">", "<", "\n", "\r", ".", "!", "?", ":",
    " ", "\t", "x", "ok", "é", "<think ", "\n<think", "\n  <thinking a=1>",
]

EXAMPLES = int(os.environ.get("CONTEXT_LENS_FUZZ_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES * 5, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=30))
def test_the_scanners_match_the_release_patterns(fragments):
    text = "".join(fragments)
    assert strip_reasoning_blocks(text) == strip_reasoning_blocks_reference(text)


def test_the_release_examples():
    cases = {
        "<think>plan</think>Final answer.": "Final answer.",
        "Before <THINKING>x\ny</THINKING> after": "Before  after",
        "text\n<reasoning>unterminated and rest": "text",
        "inline <think>not at boundary and unterminated": "inline not at boundary and unterminated",
        "a </think> b <thought>c</thought> d <REASONING_SCRATCHPAD>e</REASONING_SCRATCHPAD>f": "a b  d f",
        'x <tool_call>{"a":1}</tool_call> y <function_calls>z</function_calls> w': "x  y  w",
        'Intro.<function name="f">body</function> tail': "Intro. tail",
        "Use <function> in JS </function> ok": "Use <function> in JS ok",
        "<think>only</think>": "",
    }
    for text, expected in cases.items():
        assert strip_reasoning_blocks(text) == expected, text


def test_shapes_that_make_the_release_patterns_quadratic():
    # Many openers and no closer after them: the release's expressions scan to the end once per
    # opener; the scanners must still give exactly their result (their speed is measured in bench).
    n = 400
    for text in ("<tool_call" * n + "</tool_call>", "\n<function name=" * n + "</function>",
                 "<function name=x>" * n + "</functio", "\n<think " * n, "<think>" * n + "</thin",
                 "x.<function a name=b" * n + ">" + "</function>" * 2):
        assert strip_reasoning_blocks(text) == strip_reasoning_blocks_reference(text)
