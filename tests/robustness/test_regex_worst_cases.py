"""No pattern the product applies to transcript text is super-linear.

Every pattern of the product (``core.pattern_audit.product_patterns``: module globals, patterns
built at run time, literal patterns written inline) is searched over the inputs built to make it
work hardest, from its own syntax tree: runs of every character it mentions, alternating pairs,
its literal words repeated or followed by a long run. What is checked is how the search time
grows with the input, not a time: a linear pattern takes about 4 times as long on 4 times the text,
a quadratic one 16 times (and 100 times on 10 times the text, where a linear one takes 10). The
ratio holds on a slow or busy machine, where a fixed limit in seconds would not; searches too fast
to time reliably (under 20 ms) pass, since a quadratic pattern at these sizes takes far longer.
"""

from __future__ import annotations

import pytest

from core.pattern_audit import adversarial_inputs, inline_calls, product_patterns, time_finditer

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

SCREEN_SIZE = 10_000
SIZE = 100_000
# Below this a search is too fast to time reliably; a quadratic search of 10,000 characters takes longer.
FAST_S = 0.02
# Time ratios for 4 and 10 times the text: linear about 4 and 10, quadratic 16 and 100.
MAX_GROWTH_4X = 8.0
MAX_GROWTH_10X = 30.0


def _seconds(pattern, text: str) -> float:  # noqa: ANN001
    """The best of three searches (a busy moment of the machine slows one, not the pattern)."""
    return min(time_finditer(pattern, text) for _ in range(3))


PATTERNS = product_patterns()


def test_every_pattern_is_found_at_module_level_or_handed_over() -> None:
    assert inline_calls() == [], "build these patterns at module level so the audit sees them"
    assert len(PATTERNS) > 150  # the collection works: facts, redaction, formats, summarizers, analyses


@pytest.mark.parametrize("path, pattern", PATTERNS, ids=[path for path, _ in PATTERNS])
def test_a_pattern_takes_linear_time_on_its_worst_inputs(path: str, pattern) -> None:  # noqa: ANN001
    quarter = dict(adversarial_inputs(pattern, SCREEN_SIZE // 4))
    timed: list[tuple[float, str]] = []
    for label, text in adversarial_inputs(pattern, SCREEN_SIZE):
        seconds = time_finditer(pattern, text)
        if seconds >= FAST_S:
            seconds = _seconds(pattern, text)
            growth = seconds / max(_seconds(pattern, quarter[label]), 1e-6)
            assert growth < MAX_GROWTH_4X, (
                f"{path} grows {growth:.1f}x for 4x the text on {label} ({seconds:.3f} s at {SCREEN_SIZE:,} characters)")
        timed.append((seconds, label))
    slowest = {label: _seconds(pattern, text) for label, text in adversarial_inputs(pattern, SCREEN_SIZE)
               if label in {name for _seconds_, name in sorted(timed, reverse=True)[:3]}}
    for label, text in adversarial_inputs(pattern, SIZE):
        if label in slowest:
            seconds = _seconds(pattern, text)
            growth = seconds / max(slowest[label], 1e-6)
            assert seconds < FAST_S or growth < MAX_GROWTH_10X, (
                f"{path} grows {growth:.1f}x for 10x the text on {label} ({seconds:.3f} s at {SIZE:,} characters)")
