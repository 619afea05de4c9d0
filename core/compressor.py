"""``ContextCompressor``: the state Hermes keeps between compressions, around plan → summary → assemble.

Each ``compress()`` is a short orchestration: :func:`core.plan.plan` decides everything that needs
no summary (zones, Phase 1, the turns, the budget), the summarizer is called with the release's
cooldown, classification and one-time fallback to the main model, and
:func:`core.assembly.assemble` writes the output. This class only keeps what lives between calls:
the compression count, the previous summary, the anti-thrashing counter, the failure cooldown, the
v0.18.0 sticky failure flags, the usage counters, and whether the summary model fell back.

One instance is one session: calls on the same instance are serialised by a lock, and everything
about one call (outcome, failure reason, repairs) is in the :class:`CompressionResult` it returns.
The ``_last_*`` attributes mirror the latest call, as the reference exposes them.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from core import profiles as P
from core.assembly import MessageOrigin, SummaryFailure, assemble
from core.config import CompressorConfig
from core.phases.failures import is_connection_error
from core.phases.prune import PrunePlan, fresh_copies
from core.phases.summary import ReferenceCrash
from core.phases.trigger import THRASH_RULES, ThrashRule
from core.plan import NOTHING_TO_COMPRESS, SUMMARIZE, TOO_SMALL, CompressionPlan, CompressorState, plan
from core.profiles import Profile
from core.redaction import profile_redaction
from core.result import CompressionResult
from core.summary_call import (
    NO_SUMMARIZER_ERROR,
    FailureState,
    SummarizerCall,
    SummaryOutcome,
    request_summary,
)

__all__ = [
    "NO_SUMMARIZER_ERROR",
    "CompressionResult",
    "CompressorConfig",
    "ContextCompressor",
    "MessageOrigin",
    "ReferenceCrash",
    "SummarizerCall",
    "is_connection_error",
]

Summarizer = Callable[[str, "int | None"], Any]

def _local_now() -> datetime:
    return datetime.now().astimezone()


class ContextCompressor:
    """Hermes' four-phase lossy compression, faithful to the chosen profile.

    Args:
        config: The parameters (``CompressorConfig``).
        summarizer: ``fn(prompt, max_tokens) -> str`` writing the summary (``max_tokens`` is None
            for v0.19.0, which sends no output cap). Raising any exception is a summary failure,
            classified as the profile's release does (up to v0.17.0 any ``RuntimeError`` means "no
            provider configured", 600 s cooldown; from v0.18.0 only one whose text says "no LLM
            provider configured"). ``None`` behaves as "no provider". An object with
            ``summarize_request(SummaryRequest)`` is called that way instead.
        clock: Monotonic clock in seconds for the failure cooldowns (default ``time.monotonic``).
        wall_clock: Aware ``datetime`` for the v0.17.0+ anchoring date (default: local now); a
            clock that raises leaves the date out of the prompt.
    """

    name = "compressor"

    def __init__(
        self,
        config: CompressorConfig | None = None,
        summarizer: Summarizer | None = None,
        *,
        clock: Callable[[], float] | None = None,
        wall_clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.config = config or CompressorConfig()
        self.summarizer = summarizer
        self.clock = clock or time.monotonic
        self.wall_clock = wall_clock or _local_now
        self._lock = threading.RLock()
        self.compression_count = 0
        self.last_prompt_tokens = 0
        self.last_completion_tokens = 0
        self.last_total_tokens = 0
        self.last_real_prompt_tokens = 0
        self.last_compression_rough_tokens = 0
        self.last_rough_tokens_when_real_prompt_fit = 0
        self.awaiting_real_usage_after_compression = False
        self.provider = self.base_url = self.api_mode = ""  # the runtime v0.19.0's update_model compares
        self._previous_summary: str | None = None
        self._ineffective_compression_count = 0
        self._last_compression_savings_pct: float = 100.0
        self._summary_failure_cooldown_until = 0.0
        self._summary_model_fallen_back = False
        self._last_summary_auth_failure = False  # v0.18.0: sticky until a summary succeeds (v0.19.0: access)
        self._last_summary_network_failure = False
        self._consecutive_timeout_failures = 0  # v0.19.0: the cooldown ladder's position
        self._fallback_compression_streak = 0  # v0.19.0: fallback compactions in a row (host-reported)
        self._verify_compaction_cleared_threshold = False  # v0.19.0: the next real prompt judges the last one
        self._last_compression_made_progress = False
        self._reset_call_status()

    # --- configuration ------------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        return self.config.release

    @property
    def thrash_rule(self) -> ThrashRule:
        return THRASH_RULES[self.profile.thrash_rule]

    @property
    def model(self) -> str:
        return self.config.model

    @property
    def context_length(self) -> int:
        return self.config.context_length

    @property
    def threshold_percent(self) -> float:
        """The percentage in effect (v0.19.0 raises one below 0.75 under a 512K window)."""
        return self.config.effective_threshold_percent

    @property
    def protect_first_n(self) -> int:
        return self.config.protect_first_n

    @property
    def protect_last_n(self) -> int:
        return self.config.protect_last_n

    @property
    def summary_target_ratio(self) -> float:
        return self.config.clamped_ratio

    @property
    def abort_on_summary_failure(self) -> bool:
        return self.config.abort_on_summary_failure

    @property
    def max_tokens(self) -> int | None:
        return self.config.output_reserve

    @property
    def threshold_tokens(self) -> int:
        return self.config.threshold_tokens

    @property
    def tail_token_budget(self) -> int:
        return self.config.tail_token_budget

    @property
    def max_summary_tokens(self) -> int:
        return self.config.max_summary_tokens

    @property
    def previous_summary(self) -> str | None:
        return self._previous_summary

    def update_model(
        self,
        model: str | None = None,
        context_length: int | None = None,
        base_url: str = "",
        api_key: str = "",
        provider: str = "",
        api_mode: str = "",
        max_tokens: Any = None,
    ) -> None:
        """Switch to another main model, window or output reserve; threshold and budgets follow.

        ``max_tokens=None`` keeps the stored reservation (v0.18.0). v0.18.0 also resets the token
        calibration and the anti-thrashing counter here; v0.19.0 re-applies its small-window floor to
        the configured percentage and, when the runtime (model, provider, base URL, API mode) changed,
        clears the failure cooldown and the fallback streak.
        """
        changes: dict[str, Any] = {}
        if model is not None:
            changes["model"] = model
        if context_length is not None:
            changes["context_length"] = context_length
        if max_tokens is not None:
            changes["max_tokens"] = max_tokens
        with self._lock:
            runtime_changed = (
                (model is not None and model != self.config.model) or provider != self.provider
                or base_url != self.base_url or api_mode != self.api_mode
            )
            self.config = dataclasses.replace(self.config, **changes)
            self.provider, self.base_url, self.api_mode = provider, base_url, api_mode
            if self.profile.update_model_resets:
                self.last_prompt_tokens = self.last_completion_tokens = self.last_total_tokens = 0
                self._clear_usage_calibration()
                self._ineffective_compression_count = 0
            if self.thrash_rule.fallback_streak:
                if runtime_changed:
                    self._fallback_compression_streak = 0
                    self._clear_cooldown()
                self._verify_compaction_cleared_threshold = False
                self._last_compression_made_progress = False

    # --- trigger ------------------------------------------------------------------------------

    @property
    def ineffective_strikes(self) -> int:
        """The anti-thrashing counter (two strikes block ``should_compress``)."""
        return self._ineffective_compression_count

    @property
    def fallback_streak(self) -> int:
        """v0.19.0: fallback compactions in a row, as the host reported them."""
        return self._fallback_compression_streak

    def cooldown_remaining(self) -> float:
        """Seconds left of the summary-failure cooldown (0 when none is running)."""
        return max(0.0, self._summary_failure_cooldown_until - self.clock())

    def blocked_reason(self) -> str | None:
        """Why ``should_compress`` says no above the threshold: ``cooldown``, ``ineffective`` (two
        compactions that did not help), ``fallback-streak`` (v0.19.0), or None when nothing blocks it."""
        if self.profile.cooldown_blocks_trigger and self.cooldown_remaining() > 0:
            return "cooldown"
        if self._ineffective_compression_count >= P.INEFFECTIVE_STRIKES:
            return "ineffective"
        if self.thrash_rule.fallback_streak and self._fallback_compression_streak >= P.FALLBACK_STREAK_LIMIT:
            return "fallback-streak"
        return None

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = prompt_tokens if prompt_tokens is not None else self.last_prompt_tokens
        if tokens < self.threshold_tokens:
            return False
        return self.blocked_reason() is None

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self.last_prompt_tokens = usage.get("prompt_tokens", 0)
        self.last_completion_tokens = usage.get("completion_tokens", 0)
        self.last_total_tokens = usage.get("total_tokens", self.last_prompt_tokens + self.last_completion_tokens)
        if self.last_prompt_tokens > 0:
            self.last_real_prompt_tokens = self.last_prompt_tokens
            if self.last_prompt_tokens < self.threshold_tokens:
                if self.awaiting_real_usage_after_compression and self.last_compression_rough_tokens > 0:
                    self.last_rough_tokens_when_real_prompt_fit = self.last_compression_rough_tokens
            else:
                self.last_rough_tokens_when_real_prompt_fit = 0
            if self.thrash_rule.usage_verdict:  # v0.19.0: the real prompt judges the last compaction
                if self.last_prompt_tokens < self.threshold_tokens:
                    self._ineffective_compression_count = 0
                elif self._verify_compaction_cleared_threshold:
                    self._ineffective_compression_count += 1
        self._verify_compaction_cleared_threshold = False
        self.awaiting_real_usage_after_compression = False

    def record_completed_compaction(self, *, used_fallback: bool = False) -> None:
        """v0.19.0 host hook after a committed compaction: arm the next usage check, count fallbacks in a row."""
        with self._lock:
            self._verify_compaction_cleared_threshold = True
            self._fallback_compression_streak = self._fallback_compression_streak + 1 if used_fallback else 0

    def should_defer_preflight_to_real_usage(self, rough_tokens: int) -> bool:
        """v0.16.0+ host helper: skip a preflight when the last real prompt fitted and growth is small."""
        threshold = self.threshold_tokens
        if rough_tokens < threshold:
            return False
        if self.profile.defers_while_awaiting_usage and self.awaiting_real_usage_after_compression:
            return True
        if self.last_real_prompt_tokens <= 0 or self.last_real_prompt_tokens >= threshold:
            return False
        baseline = self.last_rough_tokens_when_real_prompt_fit or self.last_compression_rough_tokens
        if baseline <= 0:
            return False
        growth = max(0, rough_tokens - baseline)
        if growth > max(P.PREFLIGHT_DEFER_MIN_GROWTH, int(threshold * 0.05)):
            return False
        self.last_rough_tokens_when_real_prompt_fit = max(baseline, rough_tokens)
        return True

    # --- session hooks ------------------------------------------------------------------------

    def _clear_usage_calibration(self) -> None:
        self.last_real_prompt_tokens = 0
        self.last_compression_rough_tokens = 0
        self.last_rough_tokens_when_real_prompt_fit = 0
        self.awaiting_real_usage_after_compression = False

    def _clear_cooldown(self) -> None:
        self._summary_failure_cooldown_until = 0.0
        self._last_summary_error = None
        self._consecutive_timeout_failures = 0  # v0.19.0: the ladder restarts with the cooldown

    def _clear_session_surface(self) -> None:
        """What a new session starts without (the count, usage counters and sticky flags stay)."""
        self._previous_summary = None
        self._ineffective_compression_count = 0
        self._last_compression_savings_pct = 100.0
        self._summary_failure_cooldown_until = 0.0
        self._consecutive_timeout_failures = 0
        self._fallback_compression_streak = 0
        self._verify_compaction_cleared_threshold = False
        self._last_compression_made_progress = False
        self._clear_usage_calibration()
        self._reset_call_status()

    def on_session_reset(self) -> None:
        """``/new`` or ``/reset``: everything the session built up is cleared."""
        with self._lock:
            aborted = self._last_compress_aborted
            self.last_prompt_tokens = self.last_completion_tokens = self.last_total_tokens = 0
            self.compression_count = 0
            self._clear_session_surface()
            if not self.profile.reset_clears_aborted:
                self._last_compress_aborted = aborted

    def on_session_end(self, session_id: str = "", messages: list[Any] | None = None) -> None:
        """The host ended (or rotated) a session: v0.17.0 forgets the summary, v0.18.0 the session's state."""
        with self._lock:
            SESSION_END_RULES[self.profile.session_end_rule](self)

    def on_session_start(self, session_id: str = "", **kwargs: Any) -> None:
        """v0.18.0 host hook: a session (re)binds; without a session store this clears the cooldown
        (earlier releases' engines do nothing here). v0.19.0 keeps the fallback streak across a
        compaction boundary (``boundary_reason="compression"``) and resets it otherwise."""
        if not self.profile.session_start_clears_cooldown:
            return
        with self._lock:
            self._clear_cooldown()
            if kwargs.get("boundary_reason") != "compression":
                self._fallback_compression_streak = 0

    def _reset_call_status(self) -> None:
        self._last_summary_dropped_count = 0
        self._last_summary_fallback_used = False
        self._last_summary_error: str | None = None
        self._last_aux_model_failure_error: str | None = None
        self._last_aux_model_failure_model: str | None = None
        self._last_compress_aborted = False

    # --- redaction (the profile's, then the strict layer when enabled) -------------------------

    def redact(self, text: Any) -> Any:
        return profile_redaction(self.profile, strict=self.config.strict_redaction).redact(text)

    def redact_many(self, texts: list[str]) -> list[str]:
        return profile_redaction(self.profile, strict=self.config.strict_redaction).redact_many(texts)

    # --- the pipeline -------------------------------------------------------------------------

    def state(self) -> CompressorState:
        """What the next plan reads of this compressor."""
        return CompressorState(self.compression_count, self._previous_summary, self.last_prompt_tokens)

    def plan(
        self,
        messages: list[Any],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        *,
        prune_plan: PrunePlan | None = None,
        memory_context: str = "",
    ) -> CompressionPlan:
        """The plan ``compress()`` would follow now, without running it (no state changes)."""
        return plan(
            messages, self.config, prune_plan=prune_plan, state=self.state(),
            current_tokens=current_tokens, focus_topic=focus_topic, memory_context=memory_context,
        )

    def compress(
        self,
        messages: list[Any],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        memory_context: str = "",
        *,
        prune_plan: PrunePlan | None = None,
        on_crash: str = "raise",
    ) -> CompressionResult:
        """Compress ``messages`` (never mutated) and return the new list with what happened.

        Args:
            messages: OpenAI-chat message dicts.
            current_tokens: The prompt size to report savings against (defaults to the last
                real prompt size, else the rough estimate of ``messages``).
            focus_topic: Ask the summary to prioritise this topic (like ``/compress <topic>``).
            force: Clear a summary-failure cooldown first (the manual ``/compress`` bypass).
            memory_context: A memory provider's context for the summary prompt (v0.19.0; earlier
                releases ignore it). A str; whitespace only means none.
            prune_plan: The Phase-1 plan of ``messages`` (``core.plan.prepare``), when one is kept.
            on_crash: ``"raise"`` (the release's behaviour) or ``"report"``: where the release raises,
                return the input unchanged with outcome ``crashed`` and the crash in ``result.crash``.

        Raises:
            ReferenceCrash: where the release itself raises (v0.19.0: a text part that is not a
                string in a message the summary would serialise), unless ``on_crash="report"``.
        """
        if not isinstance(memory_context, str):
            raise TypeError(f"memory_context must be a str, not {type(memory_context).__name__}")
        if on_crash not in ("raise", "report"):
            raise ValueError(f"on_crash must be 'raise' or 'report', got {on_crash!r}")
        try:
            return self._compress(messages, current_tokens, focus_topic, force, memory_context, prune_plan)
        except ReferenceCrash as crash:
            if on_crash == "raise":
                raise
            return CompressionResult(messages=messages, outcome="crashed", input_messages=messages,
                                     plan=self.plan(messages, current_tokens, focus_topic, prune_plan=prune_plan,
                                                    memory_context=memory_context),
                                     failure_reason=crash.describe(), crash=crash)

    def _compress(self, messages: list[Any], current_tokens: int | None, focus_topic: str | None, force: bool,
                  memory_context: str, prune_plan: PrunePlan | None) -> CompressionResult:
        with self._lock:
            self._begin_call(force)
            decided = self.plan(messages, current_tokens, focus_topic, prune_plan=prune_plan,
                                memory_context=memory_context)
            if decided.outcome != SUMMARIZE:
                return self._early_return(decided, messages)
            self._previous_summary = decided.previous_summary  # rehydration or the guard, before the call
            outcome = request_summary(
                decided, self.summarizer,
                FailureState(self._summary_failure_cooldown_until, self._consecutive_timeout_failures),
                now=self.clock, date=self._anchoring_date(), main_model=self.model,
                may_fall_back=not self._summary_model_fallen_back,
            )
            self._record(outcome)
            abort = self._abort_reason(outcome)
            if abort is not None:
                return self._aborted(decided, outcome, abort)
            return self._completed(decided, outcome)

    # --- the steps of compress() ----------------------------------------------------------------

    def _begin_call(self, force: bool) -> None:
        self._reset_call_status()
        self._last_compression_made_progress = False
        if force:
            self._clear_cooldown()

    def _early_return(self, decided: CompressionPlan, messages: list[Any]) -> CompressionResult:
        """Too small (the input itself, unchanged) or nothing to compress (the Phase-1 list)."""
        result = CompressionResult(messages=messages, outcome=decided.outcome, input_messages=messages, plan=decided)
        strikes = (self.thrash_rule.too_small_strikes if decided.outcome == TOO_SMALL
                   else self.profile.early_return_is_ineffective)
        if strikes:
            self._ineffective_compression_count += 1
            self._last_compression_savings_pct = 0.0
        if decided.outcome == NOTHING_TO_COMPRESS:
            result.messages = fresh_copies(decided.work, decided.messages)
        return result

    def _record(self, outcome: SummaryOutcome) -> None:
        """The state a summary call leaves: the summary and cleared guards, or the failure's cooldown and flags."""
        if outcome.access_failure:
            self._last_summary_auth_failure = True
        if outcome.fell_back_to_main:
            self._summary_model_fallen_back = True
            self._last_aux_model_failure_error = outcome.summary_model_error
            self._last_aux_model_failure_model = outcome.summary_model
        self._consecutive_timeout_failures = outcome.timeout_failures
        if outcome.skipped_for_cooldown:
            return
        if outcome.succeeded:
            self._previous_summary = outcome.stored
            self._clear_cooldown()
            self._summary_model_fallen_back = False
            self._last_summary_auth_failure = self._last_summary_network_failure = False
            return
        self._summary_failure_cooldown_until = self.clock() + (outcome.cooldown_s or 0)
        self._last_summary_error = outcome.error
        if outcome.network_failure:
            self._last_summary_network_failure = True

    def _abort_reason(self, outcome: SummaryOutcome) -> str | None:
        if outcome.succeeded:
            return None
        if self._last_summary_auth_failure:
            return "authentication"
        if self._last_summary_network_failure:
            return "network"
        return "configured" if self.abort_on_summary_failure else None

    def _aborted(self, decided: CompressionPlan, outcome: SummaryOutcome, reason: str) -> CompressionResult:
        self._last_compress_aborted = True
        return CompressionResult(
            messages=fresh_copies(decided.work, decided.messages), outcome="aborted", input_messages=decided.messages,
            plan=decided, failure_reason=self._last_summary_error, summarizer_calls=outcome.calls,
            cooldown_skipped=outcome.skipped_for_cooldown, aux_model_failure=self._last_aux_model_failure_error,
            aux_model_failure_model=self._last_aux_model_failure_model, abort_reason=reason,
        )

    def _completed(self, decided: CompressionPlan, outcome: SummaryOutcome) -> CompressionResult:
        """Assemble the summary (or the fallback), count the compaction and judge it as the release does."""
        if not outcome.succeeded:
            self._last_summary_dropped_count = decided.dropped_count
            self._last_summary_fallback_used = True
        built = assemble(decided, outcome.text if outcome.succeeded else SummaryFailure(self._last_summary_error))
        self.compression_count += 1
        self._last_compression_made_progress = True
        if self.thrash_rule.completion_verdict:
            self._last_compression_savings_pct = built.savings_pct
            if built.savings_pct < P.INEFFECTIVE_SAVINGS_PCT:
                self._ineffective_compression_count += 1
            else:
                self._ineffective_compression_count = 0
        return CompressionResult(
            messages=built.messages, outcome="fallback" if built.fallback_used else "summarized",
            input_messages=decided.messages, plan=decided, assembly=built, failure_reason=built.failure_reason,
            summarizer_calls=outcome.calls, cooldown_skipped=outcome.skipped_for_cooldown,
            aux_model_failure=self._last_aux_model_failure_error,
            aux_model_failure_model=self._last_aux_model_failure_model,
        )

    def _anchoring_date(self) -> str | None:
        if not self.profile.temporal_anchoring:
            return None
        try:
            return self.wall_clock().strftime("%Y-%m-%d")
        except Exception:  # the reference omits the date when its clock fails
            return ""


def _keep(compressor: ContextCompressor) -> None:
    """v0.15.1-v0.16.0: the engine's default ``on_session_end`` does nothing."""


def _forget_summary(compressor: ContextCompressor) -> None:
    """v0.17.0: the in-memory summary is dropped (the next compaction rehydrates it from the handoff)."""
    compressor._previous_summary = None


def _clear_session(compressor: ContextCompressor) -> None:
    """v0.18.0: the per-session surface is cleared; the count, usage counters and sticky flags stay."""
    compressor._clear_session_surface()


SESSION_END_RULES: dict[str, Callable[[ContextCompressor], None]] = {
    "keep": _keep,
    "forget-summary": _forget_summary,
    "clear-session": _clear_session,
}
