"""No pattern the product applies to transcript text is super-linear.

Every pattern of the product (``core.pattern_audit.product_patterns``: module globals, patterns
built at run time, literal patterns written inline) is searched over the inputs built to make it
work hardest, from its own syntax tree: runs of every character it mentions, alternating pairs,
its literal words repeated or followed by a long run. A backtracking pattern that is quadratic on
one of them takes tens of seconds on 100,000 characters; a linear one a few milliseconds.

The inputs are tried at 10,000 characters first and the three slowest again at 100,000, where each
must finish within a second (generous: the slowest linear pattern takes a few tens of milliseconds
there, the quadratic ones this replaced took from 1.5 to 400 seconds).
"""

from __future__ import annotations

import time

import pytest

from core.pattern_audit import adversarial_inputs, inline_calls, product_patterns, time_finditer

SCREEN_SIZE = 10_000
SIZE = 100_000
LIMIT_S = 1.0
# A pattern slower than this at 10,000 characters is quadratic (it would take 100 times as long at
# 100,000): it fails at once instead of holding the test for minutes.
SCREEN_LIMIT_S = 0.25

PATTERNS = product_patterns()


def test_every_pattern_is_found_at_module_level_or_handed_over() -> None:
    assert inline_calls() == [], "build these patterns at module level so the audit sees them"
    assert len(PATTERNS) > 150  # the collection works: facts, redaction, formats, summarizers, analyses


@pytest.mark.parametrize("path, pattern", PATTERNS, ids=[path for path, _ in PATTERNS])
def test_a_pattern_takes_linear_time_on_its_worst_inputs(path: str, pattern) -> None:  # noqa: ANN001
    timed = []
    for label, text in adversarial_inputs(pattern, SCREEN_SIZE):
        seconds = time_finditer(pattern, text)
        assert seconds < SCREEN_LIMIT_S, f"{path} took {seconds:.2f} s on {label} at {SCREEN_SIZE:,} characters"
        timed.append((seconds, label))
    slowest = {label for _seconds, label in sorted(timed, reverse=True)[:3]}
    started = time.perf_counter()
    for label, text in adversarial_inputs(pattern, SIZE):
        if label in slowest:
            seconds = time_finditer(pattern, text)
            assert seconds < LIMIT_S, f"{path} took {seconds:.2f} s on {label} at {SIZE:,} characters"
    assert time.perf_counter() - started < 3 * LIMIT_S
