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
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from core import profiles as P
from core.assembly import Assembly, MessageOrigin, SummaryFailure, assemble
from core.config import CompressorConfig
from core.phases import summary
from core.phases.boundaries import TailCut
from core.phases.failures import FAILURE_RULES, empty_summary_error, is_connection_error, short_error
from core.phases.prune import PrunePlan, fresh_copies
from core.plan import NOTHING_TO_COMPRESS, TOO_SMALL, CompressionPlan, CompressorState, plan
from core.profiles import Profile
from core.redaction import profile_redaction

__all__ = [
    "CompressionResult",
    "CompressorConfig",
    "ContextCompressor",
    "MessageOrigin",
    "SummarizerCall",
    "is_connection_error",
]

Summarizer = Callable[[str, int], Any]

# ``summarizer=None`` means no model is configured: Hermes' own call raises this (every release
# takes its no-provider branch on it).
NO_SUMMARIZER_ERROR = "No LLM provider configured for task=compression (no summarizer given)."


@dataclass
class SummarizerCall:
    """One attempted summary call (absent during a cooldown skip)."""

    max_tokens: int
    summary_budget: int
    plan: CompressionPlan = field(repr=False, compare=False)
    iterative: bool
    model: str | None = None
    error: str | None = None
    response: str | None = None
    focus_topic: str | None = None
    anchoring_date: str | None = None
    # The date the prompt is written with: "" where the release's clock failed (no date in the prompt).
    prompt_date: str | None = field(default=None, repr=False)

    @cached_property
    def prompt(self) -> str:
        """The prompt the call sent, or would have sent to a summarizer that works from the turns.

        Built on first read: a summarizer that reads the turns never needs it, and the prompt of a
        long session is large (a template dash makes Python store all of it at two bytes a character).
        """
        return self.plan.prompt(self.prompt_date)

    @property
    def serialized_turns(self) -> str:
        """The turns block of the prompt (built on first read, like the prompt)."""
        return self.plan.serialized_turns

    @property
    def content_tokens(self) -> int:
        """The estimate of the turns (measured when first read if the budget did not need it)."""
        return self.plan.content_tokens


@dataclass
class CompressionResult:
    """What ``compress()`` produced and everything the dashboard draws about it.

    ``plan`` holds the decisions (zones, Phase 1, turns, budget) and ``assembly`` the output when
    the summary (or the fallback) was assembled; the other fields say what the call did.
    """

    messages: list[Any]
    outcome: str  # "too_small", "nothing_to_compress", "summarized", "fallback" or "aborted"
    input_messages: list[Any]
    plan: CompressionPlan
    assembly: Assembly | None = None
    failure_reason: str | None = None
    summarizer_calls: list[SummarizerCall] = field(default_factory=list)
    cooldown_skipped: bool = False
    aux_model_failure: str | None = None
    aux_model_failure_model: str | None = None
    abort_reason: str | None = None  # "configured", "authentication" or "network" when aborted

    # -- the plan's decisions
    @property
    def pruned_messages(self) -> list[Any] | None:
        return self.plan.prune.messages if self.plan.prune is not None else None

    @property
    def pruned_count(self) -> int:
        return self.plan.prune.pruned_count if self.plan.prune is not None else 0

    @property
    def prune_boundary(self) -> int | None:
        return self.plan.prune_boundary

    @property
    def phase1_actions(self) -> dict[int, list[str]]:
        return self.plan.phase1_actions

    @property
    def head_size(self) -> int:
        return self.plan.head_size

    @property
    def compress_start(self) -> int | None:
        return self.plan.compress_start

    @property
    def compress_end(self) -> int | None:
        return self.plan.compress_end

    @property
    def tail_cut(self) -> TailCut | None:
        return self.plan.tail_cut

    @property
    def existing_summary_index(self) -> int | None:
        return self.plan.existing_summary_index

    @property
    def turns_start(self) -> int | None:
        return self.plan.turns_start

    @property
    def focus_topic(self) -> str | None:
        return self.plan.focus_topic

    @property
    def display_tokens(self) -> int:
        return self.plan.display_tokens

    @property
    def dropped_count(self) -> int:
        return self.plan.dropped_count if self.assembly is not None else 0

    # -- the assembly
    @property
    def summary_text(self) -> str | None:
        return self.assembly.summary_text if self.assembly is not None else None

    @property
    def summary_role(self) -> str | None:
        return self.assembly.summary_role if self.assembly is not None else None

    @property
    def summary_merged(self) -> bool:
        return self.assembly.summary_merged if self.assembly is not None else False

    @property
    def fallback_used(self) -> bool:
        return self.assembly.fallback_used if self.assembly is not None else False

    @property
    def origins(self) -> list[MessageOrigin]:
        return self.assembly.origins if self.assembly is not None else []

    @property
    def orphans_removed(self) -> int:
        return self.assembly.orphans_removed if self.assembly is not None else 0

    @property
    def stubs_added(self) -> int:
        return self.assembly.stubs_added if self.assembly is not None else 0

    @property
    def calls_stripped(self) -> int:
        return self.assembly.calls_stripped if self.assembly is not None else 0

    @property
    def media_stripped(self) -> int:
        return len(self.assembly.media_stripped) if self.assembly is not None else 0

    @property
    def tokens_after(self) -> int:
        return self.assembly.tokens_after if self.assembly is not None else 0

    @property
    def savings_pct(self) -> float:
        return self.assembly.savings_pct if self.assembly is not None else 0.0

    # -- the call
    @property
    def compressed(self) -> bool:
        return self.outcome in ("summarized", "fallback")

    @property
    def aborted(self) -> bool:
        return self.outcome == "aborted"

    @property
    def summarizer_call(self) -> SummarizerCall | None:
        return self.summarizer_calls[-1] if self.summarizer_calls else None


def _local_now() -> datetime:
    return datetime.now().astimezone()


class ContextCompressor:
    """Hermes' four-phase lossy compression, faithful to the chosen profile.

    Args:
        config: The parameters (``CompressorConfig``).
        summarizer: ``fn(prompt, max_tokens) -> str`` writing the summary. Raising any exception
            is a summary failure, classified as the profile's release does (up to v0.17.0 any
            ``RuntimeError`` means "no provider configured", 600 s cooldown; from v0.18.0 only one
            whose text says "no LLM provider configured"). ``None`` behaves as "no provider". An
            object with ``summarize_request(SummaryRequest)`` is called that way instead.
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
        self._previous_summary: str | None = None
        self._ineffective_compression_count = 0
        self._last_compression_savings_pct: float = 100.0
        self._summary_failure_cooldown_until = 0.0
        self._summary_model_fallen_back = False
        self._last_summary_auth_failure = False  # v0.18.0: sticky until a summary succeeds
        self._last_summary_network_failure = False
        self._reset_call_status()

    # --- configuration ------------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        return self.config.release

    @property
    def model(self) -> str:
        return self.config.model

    @property
    def context_length(self) -> int:
        return self.config.context_length

    @property
    def threshold_percent(self) -> float:
        return self.config.threshold_percent

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
        calibration and the anti-thrashing counter here.
        """
        changes: dict[str, Any] = {}
        if model is not None:
            changes["model"] = model
        if context_length is not None:
            changes["context_length"] = context_length
        if max_tokens is not None:
            changes["max_tokens"] = max_tokens
        with self._lock:
            self.config = dataclasses.replace(self.config, **changes)
            if self.profile.update_model_resets:
                self.last_prompt_tokens = self.last_completion_tokens = self.last_total_tokens = 0
                self._clear_usage_calibration()
                self._ineffective_compression_count = 0

    # --- trigger ------------------------------------------------------------------------------

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = prompt_tokens if prompt_tokens is not None else self.last_prompt_tokens
        if tokens < self.threshold_tokens:
            return False
        if self.profile.cooldown_blocks_trigger and self._summary_failure_cooldown_until - self.clock() > 0:
            return False
        return self._ineffective_compression_count < P.INEFFECTIVE_STRIKES

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
        self.awaiting_real_usage_after_compression = False

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

    def _clear_session_surface(self) -> None:
        """What a new session starts without (the count, usage counters and sticky flags stay)."""
        self._previous_summary = None
        self._ineffective_compression_count = 0
        self._last_compression_savings_pct = 100.0
        self._summary_failure_cooldown_until = 0.0
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

    def on_session_start(self, session_id: str = "", **_kwargs: Any) -> None:
        """v0.18.0 host hook: a session (re)binds; without a session store this clears the cooldown
        (earlier releases' engines do nothing here)."""
        if not self.profile.session_start_clears_cooldown:
            return
        with self._lock:
            self._summary_failure_cooldown_until = 0.0
            self._last_summary_error = None

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
    ) -> CompressionPlan:
        """The plan ``compress()`` would follow now, without running it (no state changes)."""
        return plan(
            messages, self.config, prune_plan=prune_plan, state=self.state(),
            current_tokens=current_tokens, focus_topic=focus_topic,
        )

    def compress(
        self,
        messages: list[Any],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        *,
        prune_plan: PrunePlan | None = None,
    ) -> CompressionResult:
        """Compress ``messages`` (never mutated) and return the new list with what happened.

        Args:
            messages: OpenAI-chat message dicts.
            current_tokens: The prompt size to report savings against (defaults to the last
                real prompt size, else the rough estimate of ``messages``).
            focus_topic: Ask the summary to prioritise this topic (like ``/compress <topic>``).
            force: Clear a summary-failure cooldown first (the manual ``/compress`` bypass).
            prune_plan: The Phase-1 plan of ``messages`` (``core.plan.prepare``), when one is kept.
        """
        with self._lock:
            self._reset_call_status()
            if force:
                self._summary_failure_cooldown_until = 0.0
            decided = self.plan(messages, current_tokens, focus_topic, prune_plan=prune_plan)
            result = CompressionResult(messages=messages, outcome=decided.outcome, input_messages=messages, plan=decided)
            if decided.outcome == TOO_SMALL:
                return result
            if decided.outcome == NOTHING_TO_COMPRESS:
                if self.profile.early_return_is_ineffective:
                    self._ineffective_compression_count += 1
                    self._last_compression_savings_pct = 0.0
                result.messages = fresh_copies(decided.work, decided.messages)
                return result

            self._previous_summary = decided.previous_summary  # rehydration or the guard, before the call
            cooldown_before = self._summary_failure_cooldown_until
            summary_text = self._generate_summary(decided, result.summarizer_calls)
            result.cooldown_skipped = not result.summarizer_calls and self.clock() < cooldown_before
            result.aux_model_failure = self._last_aux_model_failure_error
            result.aux_model_failure_model = self._last_aux_model_failure_model

            if not summary_text:
                abort = (
                    "authentication" if self._last_summary_auth_failure
                    else "network" if self._last_summary_network_failure
                    else "configured" if self.abort_on_summary_failure
                    else None
                )
                if abort is not None:
                    self._last_compress_aborted = True
                    result.messages = fresh_copies(decided.work, decided.messages)
                    result.outcome = "aborted"
                    result.abort_reason = abort
                    result.failure_reason = self._last_summary_error
                    return result
                self._last_summary_dropped_count = decided.dropped_count
                self._last_summary_fallback_used = True

            built = assemble(decided, summary_text or SummaryFailure(self._last_summary_error))
            self.compression_count += 1
            savings_pct = built.savings_pct
            self._last_compression_savings_pct = savings_pct
            if savings_pct < P.INEFFECTIVE_SAVINGS_PCT:
                self._ineffective_compression_count += 1
            else:
                self._ineffective_compression_count = 0
            result.assembly = built
            result.messages = built.messages
            result.outcome = "fallback" if built.fallback_used else "summarized"
            result.failure_reason = built.failure_reason
            return result

    # --- Phase 3: the summary call -------------------------------------------------------------

    def _summary_model_name(self) -> str:
        return str(getattr(self.summarizer, "summary_model", "") or "")

    def _can_fall_back(self) -> bool:
        hook = getattr(self.summarizer, "can_fall_back_to_main", None)
        return bool(hook and not self._summary_model_fallen_back and hook())

    def _anchoring_date(self) -> str | None:
        if not self.profile.temporal_anchoring:
            return None
        try:
            return self.wall_clock().strftime("%Y-%m-%d")
        except Exception:  # the reference omits the date when its clock fails
            return ""

    def _call(self, decided: CompressionPlan, call: SummarizerCall) -> Any:
        if self.summarizer is None:
            raise RuntimeError(NO_SUMMARIZER_ERROR)
        request_hook = getattr(self.summarizer, "summarize_request", None)
        if request_hook is not None:  # only then are the redacted turns worth building
            if getattr(self.summarizer, "reads_prompt", True):
                return request_hook(decided.summary_request(call.prompt_date, prompt=call.prompt))
            return request_hook(decided.summary_request(call.prompt_date, prompt="", serialized_turns=""))
        return self.summarizer(call.prompt, decided.max_tokens)

    def _generate_summary(self, decided: CompressionPlan, calls: list[SummarizerCall]) -> str | None:
        """The prefixed summary text, or None on failure or during a cooldown (state updated as the release does)."""
        if self.clock() < self._summary_failure_cooldown_until:
            return None
        rule = FAILURE_RULES[self.profile.failure_rule]
        date = self._anchoring_date()
        call = SummarizerCall(
            max_tokens=decided.max_tokens,
            summary_budget=decided.summary_budget,
            plan=decided,
            iterative=bool(decided.prompt_previous_summary),
            model=self._summary_model_name() or None,
            focus_topic=decided.focus_topic,
            anchoring_date=date or None,
            prompt_date=date,
        )
        calls.append(call)
        try:
            response = self._call(decided, call)
            if not isinstance(response, str):
                response = str(response) if response else ""
            if rule.empty_is_failure and not response.strip():
                raise empty_summary_error(self._summary_model_name() or self.model)
        except Exception as exc:  # any provider failure is a summary failure, by design
            failure = rule.classify(exc)
            call.error = short_error(exc)
            if failure.auth:
                self._last_summary_auth_failure = True
            if failure.no_provider:
                self._summary_failure_cooldown_until = self.clock() + P.COOLDOWN_NO_PROVIDER_S
                self._last_summary_error = P.NO_PROVIDER_ERROR
                return None
            if self._can_fall_back():
                self._summary_model_fallen_back = True
                self._last_aux_model_failure_error = short_error(exc)
                self._last_aux_model_failure_model = self._summary_model_name() or None
                self.summarizer.fall_back_to_main()  # type: ignore[union-attr]
                self._summary_failure_cooldown_until = 0.0
                self._last_summary_error = None
                return self._generate_summary(decided, calls)
            self._summary_failure_cooldown_until = self.clock() + failure.cooldown_s
            self._last_summary_error = short_error(exc)
            if failure.network:
                self._last_summary_network_failure = True
            return None
        text = self.redact(response.strip())
        call.response = text
        self._previous_summary = text
        self._summary_failure_cooldown_until = 0.0
        self._summary_model_fallen_back = False
        self._last_summary_error = None
        self._last_summary_auth_failure = self._last_summary_network_failure = False
        return summary.with_summary_prefix(text, self.profile)


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
