"""``CompressorConfig``: the compressor's parameters, with Hermes' defaults declared once.

Every other place that offers these parameters (the dashboard's sidebar, the batch settings, the
command line's flags, the Hermes ``config.yaml`` import and export) takes its defaults from here:
``DEFAULTS`` or ``CompressorConfig()``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from core import profiles as P
from core.phases.trigger import THRESHOLD_RULES, ThresholdBreakdown, ThresholdRule, coerce_max_tokens
from core.profiles import Profile, get_profile

TOKEN_ESTIMATORS = ("hermes", "tiktoken")


def _coerce_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


@dataclass
class CompressorConfig:
    """Parameters of one compressor; the defaults are Hermes'.

    Attributes:
        context_length: The main model's context window in tokens. Up to v0.17.0 the compression
            threshold is ``max(int(context_length * threshold_percent), 64_000)``, so a window below
            64K still gets the 64K floor (it then compresses only past 100 %). From v0.18.0 the
            percentage applies to ``context_length - max_tokens``, and a window the floor cannot
            serve gets 85 % of itself instead. From v0.19.0 a window below 512,000 tokens raises the
            percentage to at least 0.75 first.
        threshold_percent: Fraction of the window at which compression triggers (0.50), as
            configured (``effective_threshold_percent`` is what the release computes with).
        protect_first_n: Messages after the system prompt that are never summarised (3). From
            v0.18.0 this decays to 0 once the compressor has compacted (or holds a summary).
        protect_last_n: Minimum number of recent messages Phase 1 leaves untouched (20). From
            v0.17.0 it also sets the Phase-2 tail floor ``max(3, min(protect_last_n, 8))``.
        summary_target_ratio: Share of the threshold kept verbatim as the tail budget,
            clamped to [0.10, 0.80] (0.20).
        abort_on_summary_failure: When the summary fails, keep the conversation unchanged
            instead of inserting the fallback summary (False). Strings "true"/"1"/"yes" count as true.
            From v0.18.0, authentication and network failures abort whatever this says.
        profile: Which Hermes release to reproduce: "v0.19.0" (default), "v0.18.1" (also v0.18.2),
            "v0.18.0", "v0.17.0", "v0.16.0" or "v0.15.1".
        token_estimator: "hermes" decides with the reference heuristics (previews match Hermes);
            "tiktoken" decides with exact counts for ``model``'s encoding.
        model: The main model's name (sets the tiktoken encoding; v0.18.0 quotes it in the
            empty-summary failure reason).
        max_tokens: The main model's output-token reservation (v0.18.0: it lowers the threshold).
            Coerced as Hermes does: a positive ``int()`` of the value, anything else (None, 0,
            negatives, "n/a") means no reservation. Earlier profiles ignore it.
        strict_redaction: Run the strict redaction layer over everything that goes into the
            summariser, after the profile's own redaction (off by default, so the profiles stay
            identical to the reference).
        what_if_no_floor: An analysis what-if, **not what Hermes does**: the threshold is the
            release's percentage alone (of the window, after the output reserve from v0.18.0),
            without the 64K floor or v0.18.0's small-window rule, so a short session can be seen
            compressing. Off by default; no profile reads it.
    """

    context_length: int = 128_000
    threshold_percent: float = 0.50
    protect_first_n: int = 3
    protect_last_n: int = 20
    summary_target_ratio: float = 0.20
    abort_on_summary_failure: bool = False
    profile: str = P.DEFAULT_PROFILE
    token_estimator: str = "hermes"
    model: str = ""
    max_tokens: Any = None
    strict_redaction: bool = False
    what_if_no_floor: bool = False

    def __post_init__(self) -> None:
        get_profile(self.profile)  # fail early on an unknown profile name
        if self.token_estimator not in TOKEN_ESTIMATORS:
            raise ValueError(f"token_estimator must be 'hermes' or 'tiktoken', got {self.token_estimator!r}")
        self.abort_on_summary_failure = _coerce_bool(self.abort_on_summary_failure)
        self.what_if_no_floor = _coerce_bool(self.what_if_no_floor)
        try:
            coerce_max_tokens(self.max_tokens)
        except OverflowError:
            raise ValueError(f"max_tokens must be a finite number of tokens, got {self.max_tokens!r}") from None

    @classmethod
    def from_settings(cls, settings: Any) -> CompressorConfig:
        """A config from any settings object (the dashboard's, the batch's): every field of this
        class that ``settings`` has under the same name; the defaults for the rest."""
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls) if hasattr(settings, f.name)})

    @property
    def release(self) -> Profile:
        return get_profile(self.profile)

    @property
    def output_reserve(self) -> int | None:
        """``max_tokens`` as the profile reads it (None: no reservation)."""
        return coerce_max_tokens(self.max_tokens)

    @property
    def clamped_ratio(self) -> float:
        return max(P.RATIO_MIN, min(self.summary_target_ratio, P.RATIO_MAX))

    @property
    def threshold_rule(self) -> ThresholdRule:
        return THRESHOLD_RULES[self.release.threshold_rule]

    @property
    def threshold_breakdown(self) -> ThresholdBreakdown:
        """How the release reaches its threshold from these parameters (without the what-if)."""
        return self.threshold_rule.breakdown(self.context_length, self.threshold_percent, self.output_reserve)

    @property
    def effective_threshold_percent(self) -> float:
        """The percentage the release computes with (v0.19.0 raises one below 0.75 under a 512K window)."""
        return self.threshold_rule.effective_percent(self.context_length, self.threshold_percent)

    @property
    def threshold_tokens(self) -> int:
        if self.what_if_no_floor:
            return self.unfloored_threshold
        return self.threshold_breakdown.threshold

    @property
    def unfloored_threshold(self) -> int:
        """The what-if threshold (``what_if_no_floor``): the release's percentage of its window alone."""
        return self.threshold_rule.unfloored(self.context_length, self.threshold_percent, self.output_reserve)

    @property
    def tail_token_budget(self) -> int:
        return int(self.threshold_tokens * self.clamped_ratio)

    @property
    def max_summary_tokens(self) -> int:
        ceiling = self.release.summary_tokens_ceiling
        return min(int(self.context_length * P.MAX_SUMMARY_SHARE_OF_CONTEXT), ceiling)


DEFAULTS = CompressorConfig()


@dataclass(frozen=True)
class CompressorParameters:
    """The compressor parameters a person sets, with :data:`DEFAULTS` as defaults.

    The common part of the dashboard's ``Settings`` and the batch's ``AnalysisSettings``, so a
    parameter is declared once; :meth:`CompressorConfig.from_settings` turns either into a config.
    """

    context_length: int = DEFAULTS.context_length
    threshold_percent: float = DEFAULTS.threshold_percent
    protect_first_n: int = DEFAULTS.protect_first_n
    protect_last_n: int = DEFAULTS.protect_last_n
    summary_target_ratio: float = DEFAULTS.summary_target_ratio
    profile: str = DEFAULTS.profile
    token_estimator: str = DEFAULTS.token_estimator
    model: str = DEFAULTS.model
    max_tokens: int | None = DEFAULTS.max_tokens
    abort_on_summary_failure: bool = DEFAULTS.abort_on_summary_failure
    what_if_no_floor: bool = DEFAULTS.what_if_no_floor
