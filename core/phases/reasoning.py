"""v0.19.0: reasoning and tool-call markup removed from assistant text (turns and the LLM's summary).

The release applies six substitutions in order, each replacing every match with "":

1. closed reasoning pairs ``<think>.*?</think>`` (and thinking, reasoning, REASONING_SCRATCHPAD,
   thought), ``DOTALL | IGNORECASE``;
2. tool-call blocks ``<tool_call\\b[^>]*>.*?</tool_call>`` (and tool_calls, tool_result,
   function_call, function_calls);
3. ``<function name=…>…</function>`` blocks that start the text or follow one of ``\\n \\r . ! ? :``
   (spaces and tabs allowed in between);
4. an unterminated reasoning block at a block boundary, to the end of the text;
5. stray reasoning tags (with the white space after them);
6. stray closers of the tool-call tags and ``</function>``.

:data:`REFERENCE_SOURCES` holds the six as the release writes them. Run by the regex engine, 1-4 are
quadratic on a text with many openers and no closer (each opener scans to the end); the scanners
below find exactly the same matches in one pass, using the facts that each match is an opener, the
first ``>`` after it (2-4) and the first closer after that, and that an opener without a closer
after it means no later opener has one either. ``tests/core/test_reasoning_strip.py`` checks them
against :func:`reference_patterns` on random texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_FLAGS = re.DOTALL | re.IGNORECASE
_REASONING_NAMES = ("think", "thinking", "reasoning", "REASONING_SCRATCHPAD", "thought")
_CALL_NAMES = ("tool_call", "tool_calls", "tool_result", "function_call", "function_calls")
_BOUNDARY_CHARS = "\n\r.!?:"

# The six substitutions as the release writes them, as (pattern, flags): steps 5 and 6 run as written,
# 1-4 only in :func:`reference_patterns`, the tests' oracle (the product's scanners are below).
REFERENCE_SOURCES: tuple[tuple[str, int], ...] = (
    *((f"<{name}>.*?</{name}>", _FLAGS) for name in _REASONING_NAMES),
    *((rf"<{name}\b[^>]*>.*?</{name}>", _FLAGS) for name in _CALL_NAMES),
    (r"(?:(?<=^)|(?<=[\n\r.!?:]))[ \t]*<function\b[^>]*\bname\s*=[^>]*>(?:(?:(?!</function>).)*)</function>", _FLAGS),
    (r"(?:^|\n)[ \t]*<(?:think|thinking|reasoning|thought|REASONING_SCRATCHPAD)\b[^>]*>.*$", _FLAGS),
    (r"</?(?:think|thinking|reasoning|thought|REASONING_SCRATCHPAD)>\s*", re.IGNORECASE),
    (r"</(?:tool_call|tool_calls|tool_result|function_call|function_calls|function)>\s*", re.IGNORECASE),
)
_STRAY_REASONING_TAGS = re.compile(*REFERENCE_SOURCES[-2])
_STRAY_CLOSERS = re.compile(*REFERENCE_SOURCES[-1])


def reference_patterns() -> list[re.Pattern[str]]:
    """The release's six patterns compiled as written (for tests: 1-4 are quadratic on adversarial text)."""
    return [re.compile(source, flags) for source, flags in REFERENCE_SOURCES]


def _literal(tag: str) -> re.Pattern[str]:
    # Case-insensitive as the release's patterns are (Unicode folding included: the Kelvin sign is a "k").
    return re.compile(re.escape(tag), re.IGNORECASE)


class _NextGreater:
    """Position of the first ``>`` at or after a position, for non-decreasing queries (amortised linear)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found = -2  # the last answer; -2: none computed

    def after(self, position: int) -> int:
        if self.found == -1 or (self.found >= position):
            return self.found
        self.found = self.text.find(">", position)
        return self.found


def _remove(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    pieces, last = [], 0
    for start, end in spans:
        pieces.append(text[last:start])
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _pairs(text: str, opener: re.Pattern[str], closer: re.Pattern[str], *, to_gt: bool) -> str:
    """Step 1 (``to_gt`` False: the opener is the whole tag) or 2 (the tag runs to the first ``>``)."""
    spans: list[tuple[int, int]] = []
    greater = _NextGreater(text)
    position = 0
    while True:
        opened = opener.search(text, position)
        if opened is None:
            break
        body = opened.end()
        if to_gt:
            gt = greater.after(body)
            if gt < 0:
                break  # no ">" after this opener, so none after any later one
            body = gt + 1
        closed = closer.search(text, body)
        if closed is None:
            break  # no closer after this tag, so none after any later one
        spans.append((opened.start(), closed.end()))
        position = closed.end()
    return _remove(text, spans)


_FUNCTION_OPEN = re.compile(r"<function\b", re.IGNORECASE)
_FUNCTION_CLOSE = _literal("</function>")
_NAME_ATTRIBUTE = re.compile(r"\bname\s*=", re.IGNORECASE)


def _function_blocks(text: str) -> str:
    """Step 3: a ``<function …name=…>`` tag at a block boundary, its body and ``</function>``."""
    spans: list[tuple[int, int]] = []
    greater = _NextGreater(text)
    position = 0
    # For the tag region that ends at ``region_gt``: where its last ``name=`` attribute starts.
    region_gt, last_name = -1, -1
    while True:
        opened = _FUNCTION_OPEN.search(text, position)
        if opened is None:
            break
        q = opened.start()
        gt = greater.after(opened.end())
        if gt < 0:
            break
        start = q
        while start > position and text[start - 1] in " \t":
            start -= 1
        at_boundary = start == 0 or text[start - 1] in _BOUNDARY_CHARS
        if gt != region_gt:
            region_gt, last_name = gt, -1
            for found in _NAME_ATTRIBUTE.finditer(text, opened.end(), gt):
                last_name = found.start()
        if at_boundary and last_name >= opened.end():
            closed = _FUNCTION_CLOSE.search(text, gt + 1)
            if closed is None:
                break  # no closer after this tag, so none after any later one
            spans.append((start, closed.end()))
            position = closed.end()
        else:
            position = opened.end()
    return _remove(text, spans)


_UNTERMINATED_OPEN = re.compile(
    r"(?:^|\n)[ \t]*<(?:think|thinking|reasoning|thought|REASONING_SCRATCHPAD)\b", re.IGNORECASE
)


def _unterminated(text: str) -> str:
    """Step 4: from the first reasoning tag at a block boundary (closed by a ``>``) to the end."""
    opened = _UNTERMINATED_OPEN.search(text)
    if opened is None or text.find(">", opened.end()) < 0:
        return text  # a later opener would have no ">" after it either
    return text[: opened.start()]


def _pair_step(opener: re.Pattern[str], closer: re.Pattern[str], *, to_gt: bool) -> Callable[[str], str]:
    return lambda text: _pairs(text, opener, closer, to_gt=to_gt)


_STEPS: tuple[Callable[[str], str], ...] = (
    *(_pair_step(_literal(f"<{n}>"), _literal(f"</{n}>"), to_gt=False) for n in _REASONING_NAMES),
    *(_pair_step(re.compile(rf"<{n}\b", re.IGNORECASE), _literal(f"</{n}>"), to_gt=True) for n in _CALL_NAMES),
    _function_blocks,
    _unterminated,
    lambda t: _STRAY_REASONING_TAGS.sub("", t),
    lambda t: _STRAY_CLOSERS.sub("", t),
)


def audited_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """The patterns the scanners build from the tag names (for ``core.pattern_audit``)."""
    tags = [f"<{n}>" for n in _REASONING_NAMES] + [f"</{n}>" for n in (*_REASONING_NAMES, *_CALL_NAMES)]
    built = [_literal(tag) for tag in tags] + [re.compile(rf"<{n}\b", re.IGNORECASE) for n in _CALL_NAMES]
    return [(f"core.phases.reasoning.scanner[{pattern.pattern!r}]", pattern) for pattern in built]


def strip_reasoning_blocks(text: str) -> str:
    """``text`` without reasoning / tool-call markup, exactly as the release strips it (no trimming)."""
    if "<" not in text:
        return text
    for step in _STEPS:
        text = step(text)
    return text


def strip_reasoning_blocks_reference(text: str) -> str:
    """The release's six substitutions run as written (for tests: quadratic on adversarial text)."""
    for pattern in reference_patterns():
        text = pattern.sub("", text)
    return text
