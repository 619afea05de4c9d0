"""When compression triggers: the threshold each release derives from the window.

``THRESHOLD_RULES`` maps a profile's ``threshold_rule`` to ``fn(context_length, threshold_percent,
output_reserve) -> threshold_tokens``. Products are Python float multiplications truncated by
``int()``, exactly as the reference computes them (a decimal shortcut can differ by one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core import profiles as P

ThresholdRule = Callable[[int, float, "int | None"], int]


def coerce_max_tokens(value: Any) -> int | None:
    """The output-token reservation as v0.18.0 reads it: a positive ``int(value)``, else None.

    ``True`` is 1, ``"16384"`` 16384, ``8192.7`` 8192; ``"4096.0"``, ``"n/a"``, 0 and negatives are
    None. ``int()`` raising ``OverflowError`` (``float("inf")``) propagates, as in the reference.
    """
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def floored_threshold(context_length: int, threshold_percent: float, output_reserve: int | None = None) -> int:
    """v0.15.1-v0.17.0: ``max(int(context_length * threshold_percent), 64_000)``; the reserve is ignored."""
    return max(int(context_length * threshold_percent), P.MINIMUM_CONTEXT_LENGTH)


def reserved_window_threshold(context_length: int, threshold_percent: float, output_reserve: int | None = None) -> int:
    """v0.18.0: the percentage of the window left after the output reserve, with a reachable floor."""
    return threshold_breakdown(context_length, threshold_percent, output_reserve).threshold


@dataclass(frozen=True)
class ThresholdBreakdown:
    """How v0.18.0 reached its threshold (the dashboard explains it in words)."""

    window: int  # context_length - reserve (the reserve is ignored when it leaves nothing)
    reserve_used: bool
    percent_tokens: int  # int(window * threshold_percent)
    floored: bool  # the 64K floor raised it
    small_window: bool  # the floor would reach the window: 85 % of the window instead
    threshold: int


def threshold_breakdown(context_length: int, threshold_percent: float, output_reserve: int | None) -> ThresholdBreakdown:
    window = context_length - (output_reserve or 0)
    reserve_used = bool(output_reserve) and window > 0
    if window <= 0:
        window = context_length
    percent_tokens = int(window * threshold_percent)
    floored = max(percent_tokens, P.MINIMUM_CONTEXT_LENGTH)
    if window > 0 and floored >= window:
        threshold = max(1, min(int(window * P.MIN_CTX_TRIGGER_RATIO), window - 1))
        return ThresholdBreakdown(window, reserve_used, percent_tokens, False, True, threshold)
    return ThresholdBreakdown(window, reserve_used, percent_tokens, floored > percent_tokens, False, floored)


THRESHOLD_RULES: dict[str, ThresholdRule] = {
    "floor": floored_threshold,
    "window-reserve": reserved_window_threshold,
}
