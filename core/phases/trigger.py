"""When compression triggers: the threshold each release derives from the window, and which calls
count against the anti-thrashing rule.

``THRESHOLD_RULES`` maps a profile's ``threshold_rule`` to a :class:`ThresholdRule`: callable as
``rule(context_length, threshold_percent, output_reserve) -> threshold_tokens``, with a
:meth:`~ThresholdRule.breakdown` of how it got there and an :meth:`~ThresholdRule.explain` sentence,
so no caller needs to know which release it is. Products are Python float multiplications truncated
by ``int()``, exactly as the reference computes them (a decimal shortcut can differ by one).

``THRASH_RULES`` maps a profile's ``thrash_rule`` to a :class:`ThrashRule`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core import profiles as P


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


@dataclass(frozen=True)
class ThresholdBreakdown:
    """How a release reached its threshold (the dashboard explains it in words)."""

    window: int  # context_length - reserve (the reserve is ignored when it leaves nothing, or by the release)
    reserve_used: bool
    percent_tokens: int  # int(window * percent)
    floored: bool  # the 64K floor raised it
    small_window: bool  # the floor would reach the window: 85 % of the window instead
    threshold: int
    percent: float = 0.0  # the percentage applied (v0.19.0 raises a small one to 0.75)
    percent_raised: bool = False  # v0.19.0's small-context floor raised the configured percentage


def _reserved_breakdown(context_length: int, percent: float, output_reserve: int | None, raised: bool) -> ThresholdBreakdown:
    window = context_length - (output_reserve or 0)
    reserve_used = bool(output_reserve) and window > 0
    if window <= 0:
        window = context_length
    percent_tokens = int(window * percent)
    floored = max(percent_tokens, P.MINIMUM_CONTEXT_LENGTH)
    if window > 0 and floored >= window:
        threshold = max(1, min(int(window * P.MIN_CTX_TRIGGER_RATIO), window - 1))
        return ThresholdBreakdown(window, reserve_used, percent_tokens, False, True, threshold, percent, raised)
    return ThresholdBreakdown(
        window, reserve_used, percent_tokens, floored > percent_tokens, False, floored, percent, raised
    )


def threshold_breakdown(context_length: int, threshold_percent: float, output_reserve: int | None) -> ThresholdBreakdown:
    """The v0.18.0 arithmetic (output reserve, 64K floor, 85 % rule) for a percentage as given."""
    return _reserved_breakdown(context_length, threshold_percent, output_reserve, False)


@dataclass(frozen=True)
class ThresholdRule:
    """How one release turns the window and the percentage into the threshold."""

    name: str
    uses_output_reserve: bool  # v0.18.0+: the percentage is of the window left after ``max_tokens``
    small_context_floor: bool  # v0.19.0: below 512K the percentage is at least 0.75
    summary: str  # what the rule does, in one clause (release comparisons quote it)

    def effective_percent(self, context_length: int, threshold_percent: float) -> float:
        """The percentage the threshold is computed with (what the reference stores as ``threshold_percent``)."""
        if self.small_context_floor and context_length and context_length < P.SMALL_CONTEXT_WINDOW_LIMIT:
            return max(threshold_percent, P.SMALL_CONTEXT_THRESHOLD_PERCENT)
        return threshold_percent

    def breakdown(self, context_length: int, threshold_percent: float, output_reserve: int | None = None) -> ThresholdBreakdown:
        percent = self.effective_percent(context_length, threshold_percent)
        raised = percent != threshold_percent
        if self.uses_output_reserve:
            return _reserved_breakdown(context_length, percent, output_reserve, raised)
        percent_tokens = int(context_length * percent)
        threshold = max(percent_tokens, P.MINIMUM_CONTEXT_LENGTH)
        return ThresholdBreakdown(
            context_length, False, percent_tokens, threshold > percent_tokens, False, threshold, percent, raised
        )

    def __call__(self, context_length: int, threshold_percent: float, output_reserve: int | None = None) -> int:
        return self.breakdown(context_length, threshold_percent, output_reserve).threshold

    def unfloored(self, context_length: int, threshold_percent: float, output_reserve: int | None = None) -> int:
        """The what-if threshold: the configured percentage of the release's window alone (no floor, no raise)."""
        reserve = output_reserve if self.uses_output_reserve else None
        return max(1, _reserved_breakdown(context_length, threshold_percent, reserve, False).percent_tokens)

    def explain(self, breakdown: ThresholdBreakdown, context_length: int, output_reserve: int | None,
                release: str, configured_percent: float) -> str:
        """Why the threshold is what it is, as a clause ("the threshold is ...")."""
        window_words = f"the {context_length:,}-token window"
        if breakdown.reserve_used:
            window_words = (
                f"the {breakdown.window:,} tokens the {context_length:,}-token window leaves after reserving "
                f"{output_reserve:,} for the reply (max_tokens)"
            )
        pct = f"{breakdown.percent:.0%}"
        raised = ""
        if breakdown.percent_raised:
            raised = (f"{release} raises the configured {configured_percent:.0%} to {pct} below a "
                      f"{P.SMALL_CONTEXT_WINDOW_LIMIT:,}-token window; ")
        if breakdown.small_window:
            return (f"{raised}{release} cannot apply its 64,000-token floor to {window_words}, so the threshold is "
                    f"85% of it, {breakdown.threshold:,}")
        if breakdown.floored:
            return (f"{raised}{pct} of {window_words} is below Hermes' 64,000-token floor, so the threshold is "
                    f"{breakdown.threshold:,}")
        return f"{raised}the threshold is {pct} of {window_words} = {breakdown.threshold:,}"


THRESHOLD_RULES: dict[str, ThresholdRule] = {
    "floor": ThresholdRule(
        "floor", uses_output_reserve=False, small_context_floor=False,
        summary="the percentage of the whole window, never below 64,000 tokens",
    ),
    "window-reserve": ThresholdRule(
        "window-reserve", uses_output_reserve=True, small_context_floor=False,
        summary="the output reserve comes off the window, and a window the 64K floor cannot serve triggers at 85 %",
    ),
    "small-context-floor": ThresholdRule(
        "small-context-floor", uses_output_reserve=True, small_context_floor=True,
        summary="below a 512,000-token window the percentage is at least 75 % (then as v0.18: reserve, floor, 85 %)",
    ),
}


def floored_threshold(context_length: int, threshold_percent: float, output_reserve: int | None = None) -> int:
    """v0.15.1-v0.17.0: ``max(int(context_length * threshold_percent), 64_000)``; the reserve is ignored."""
    return THRESHOLD_RULES["floor"](context_length, threshold_percent, output_reserve)


def reserved_window_threshold(context_length: int, threshold_percent: float, output_reserve: int | None = None) -> int:
    """v0.18.0: the percentage of the window left after the output reserve, with a reachable floor."""
    return THRESHOLD_RULES["window-reserve"](context_length, threshold_percent, output_reserve)


# --- anti-thrashing --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThrashRule:
    """Which events move the anti-thrashing counter (two strikes block ``should_compress``)."""

    too_small_strikes: bool  # v0.19.0: early return 1 (too few messages) is a strike
    completion_verdict: bool  # up to v0.18.1: a completed compression saving < 10 % is a strike, else a reset
    usage_verdict: bool  # v0.19.0: the next real prompt decides (below the threshold resets the counter)
    fallback_streak: bool  # v0.19.0: two fallback compactions in a row also block the trigger
    reason: str  # why two strikes stopped automatic compression, in words


THRASH_RULES: dict[str, ThrashRule] = {
    "savings": ThrashRule(
        too_small_strikes=False, completion_verdict=True, usage_verdict=False, fallback_streak=False,
        reason=f"the last {P.INEFFECTIVE_STRIKES} compactions each saved under {P.INEFFECTIVE_SAVINGS_PCT}%",
    ),
    "real-usage": ThrashRule(
        too_small_strikes=True, completion_verdict=False, usage_verdict=True, fallback_streak=True,
        reason=f"{P.INEFFECTIVE_STRIKES} times the real prompt stayed over the threshold after a compaction, or "
               "there was too little to compress",
    ),
}
