"""``ContextCompressor``: the stateful orchestrator of the four phases.

The phases themselves live in ``core.phases`` as plain functions; this class only keeps the
state the reference keeps between calls (compression count, previous summary, anti-thrashing
counter, failure cooldown, token usage) and records what happened for the dashboard.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from core import profiles as P
from core.phases import assemble, boundaries, fallback, prune, summary
from core.phases.boundaries import TailCut
from core.profiles import Profile, get_profile
from core.redaction.hermes import redact_many, redact_sensitive_text
from core.summarizers.base import SummaryRequest
from core.tokens import make_estimator

Summarizer = Callable[[str, int], Any]

_CONNECTION_TEXTS = (
    "connection refused",
    "name or service not known",
    "no route to host",
    "network is unreachable",
    "timed out",
    "connection reset",
    "incomplete chunked read",
    "peer closed connection",
    "response ended prematurely",
    "unexpected eof",
    "remoteprotocolerror",
    "localprotocolerror",
)


def _coerce_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    return bool(value)


@dataclass
class CompressorConfig:
    """Parameters of one compressor; the defaults are the reference's.

    Attributes:
        context_length: The main model's context window in tokens. The compression threshold
            is ``max(int(context_length * threshold_percent), 64_000)``, so a window below 64K
            still gets the 64K floor (it then compresses only past 100 %).
        threshold_percent: Fraction of the window at which compression triggers (0.50).
        protect_first_n: Messages after the system prompt that are never summarised (3).
        protect_last_n: Minimum number of recent messages Phase 1 leaves untouched (20).
        summary_target_ratio: Share of the threshold kept verbatim as the tail budget,
            clamped to [0.10, 0.80] (0.20).
        abort_on_summary_failure: When the summary fails, keep the conversation unchanged
            instead of inserting the fallback summary (False). Strings "true"/"1"/"yes" count as true.
        profile: Which reference release to reproduce: "v0.16.0" (default) or "v0.15.1".
        token_estimator: "hermes" decides with the reference heuristics (previews match Hermes);
            "tiktoken" decides with exact counts for ``model``'s encoding.
        model: The main model name (sets the tiktoken encoding; informational otherwise).
        strict_redaction: Run the strict redaction layer over everything that goes into the
            summariser, after the profile's own redaction (off by default, so the profiles stay
            identical to the reference).
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
    strict_redaction: bool = False

    def __post_init__(self) -> None:
        get_profile(self.profile)  # fail early on an unknown profile name
        if self.token_estimator not in ("hermes", "tiktoken"):
            raise ValueError(f"token_estimator must be 'hermes' or 'tiktoken', got {self.token_estimator!r}")
        self.abort_on_summary_failure = _coerce_bool(self.abort_on_summary_failure)

    @classmethod
    def from_settings(cls, settings: Any) -> CompressorConfig:
        """A config from any settings object (the dashboard's, the batch's): every field of this
        class that ``settings`` has under the same name; the defaults for the rest."""
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls) if hasattr(settings, f.name)})

    @property
    def clamped_ratio(self) -> float:
        return max(P.RATIO_MIN, min(self.summary_target_ratio, P.RATIO_MAX))

    @property
    def threshold_tokens(self) -> int:
        return max(int(self.context_length * self.threshold_percent), P.MINIMUM_CONTEXT_LENGTH)

    @property
    def tail_token_budget(self) -> int:
        return int(self.threshold_tokens * self.clamped_ratio)

    @property
    def max_summary_tokens(self) -> int:
        return min(int(self.context_length * P.MAX_SUMMARY_SHARE_OF_CONTEXT), P.SUMMARY_TOKENS_CEILING)


@dataclass
class SummarizerCall:
    """One attempted summary call (absent during a cooldown skip)."""

    prompt: str
    max_tokens: int
    summary_budget: int
    serialized_turns: str
    content_tokens: int
    iterative: bool
    model: str | None = None
    error: str | None = None
    response: str | None = None


@dataclass
class MessageOrigin:
    """Where one output message came from, with the badges the preview shows."""

    kind: str  # "head", "summary", "tail" or "stub"
    source_index: int | None
    badges: list[str] = field(default_factory=list)


@dataclass
class CompressionResult:
    """What ``compress()`` produced and everything the dashboard draws about it."""

    messages: list[Any]
    outcome: str  # "too_small", "nothing_to_compress", "summarized", "fallback" or "aborted"
    input_messages: list[Any]
    pruned_messages: list[Any] | None = None
    pruned_count: int = 0
    prune_boundary: int | None = None
    head_size: int | None = None
    compress_start: int | None = None
    compress_end: int | None = None
    tail_cut: TailCut | None = None
    phase1_actions: dict[int, list[str]] = field(default_factory=dict)
    existing_summary_index: int | None = None
    turns_start: int | None = None
    summary_text: str | None = None
    summary_role: str | None = None
    summary_merged: bool = False
    fallback_used: bool = False
    failure_reason: str | None = None
    dropped_count: int = 0
    summarizer_calls: list[SummarizerCall] = field(default_factory=list)
    cooldown_skipped: bool = False
    origins: list[MessageOrigin] = field(default_factory=list)
    orphans_removed: int = 0
    stubs_added: int = 0
    media_stripped: int = 0
    display_tokens: int = 0
    tokens_after: int = 0
    savings_pct: float = 0.0
    aux_model_failure: str | None = None
    aux_model_failure_model: str | None = None

    @property
    def compressed(self) -> bool:
        return self.outcome in ("summarized", "fallback")

    @property
    def aborted(self) -> bool:
        return self.outcome == "aborted"

    @property
    def summarizer_call(self) -> SummarizerCall | None:
        return self.summarizer_calls[-1] if self.summarizer_calls else None


def _short_error(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    if len(text) > P.ERROR_TEXT_MAX:
        text = text[:217].rstrip() + "..."
    return text


def _is_json_decode_error(exc: BaseException) -> bool:
    return isinstance(exc, json.JSONDecodeError) or "expecting value" in str(exc).lower()


def is_connection_error(exc: BaseException) -> bool:
    """The reference's "stream closed / connection" test (drives the 30 s cooldown)."""
    name = type(exc).__name__
    if any(marker in name for marker in ("Connection", "Timeout", "DNS", "SSL")):
        return True
    text = str(exc).lower()
    return any(marker in text for marker in _CONNECTION_TEXTS)


class ContextCompressor:
    """Hermes' four-phase lossy compression, faithful to the chosen profile.

    Args:
        config: The parameters (``CompressorConfig``).
        summarizer: ``fn(prompt, max_tokens) -> str`` writing the summary. Raising any exception
            is a summary failure; ``RuntimeError`` means no provider is configured (600 s
            cooldown). ``None`` behaves as "no provider". An object with
            ``summarize_request(SummaryRequest)`` is called that way instead.
        clock: Monotonic clock in seconds for the failure cooldowns (injectable for tests).
    """

    name = "compressor"

    def __init__(
        self,
        config: CompressorConfig | None = None,
        summarizer: Summarizer | None = None,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.config = config or CompressorConfig()
        self.summarizer = summarizer
        self.clock = clock or time.monotonic
        self.profile: Profile = get_profile(self.config.profile)
        self.model = self.config.model
        self.protect_first_n = self.config.protect_first_n
        self.protect_last_n = self.config.protect_last_n
        self.summary_target_ratio = self.config.clamped_ratio
        self.threshold_percent = self.config.threshold_percent
        self.abort_on_summary_failure = self.config.abort_on_summary_failure
        self._estimator = make_estimator(self.config.token_estimator, self.config.model)
        self._set_context_length(self.config.context_length)
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
        self._reset_call_status()
        self._last_compress_aborted = False

    # --- configuration ------------------------------------------------------------------------

    def _set_context_length(self, context_length: int) -> None:
        self.context_length = context_length
        self.threshold_tokens = max(int(context_length * self.threshold_percent), P.MINIMUM_CONTEXT_LENGTH)
        self.tail_token_budget = int(self.threshold_tokens * self.summary_target_ratio)
        self.max_summary_tokens = min(int(context_length * P.MAX_SUMMARY_SHARE_OF_CONTEXT), P.SUMMARY_TOKENS_CEILING)

    def update_model(self, model: str | None = None, context_length: int | None = None, **_provider: Any) -> None:
        """Switch to another main model or window; threshold and budgets are recomputed."""
        if model is not None:
            self.model = model
        if context_length is not None:
            self._set_context_length(context_length)

    @property
    def previous_summary(self) -> str | None:
        return self._previous_summary

    # --- trigger ------------------------------------------------------------------------------

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = prompt_tokens if prompt_tokens is not None else self.last_prompt_tokens
        if tokens < self.threshold_tokens:
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
        """v0.16.0 host helper: skip a preflight when the last real prompt fitted and growth is small."""
        if rough_tokens < self.threshold_tokens or self.last_real_prompt_tokens <= 0:
            return False
        if self.last_real_prompt_tokens >= self.threshold_tokens:
            return False
        baseline = self.last_rough_tokens_when_real_prompt_fit or self.last_compression_rough_tokens
        if baseline <= 0:
            return False
        growth = max(0, rough_tokens - baseline)
        if growth > max(P.PREFLIGHT_DEFER_MIN_GROWTH, int(self.threshold_tokens * 0.05)):
            return False
        self.last_rough_tokens_when_real_prompt_fit = max(baseline, rough_tokens)
        return True

    def on_session_reset(self) -> None:
        self.last_prompt_tokens = 0
        self.last_completion_tokens = 0
        self.last_total_tokens = 0
        self.compression_count = 0
        self._previous_summary = None
        self._ineffective_compression_count = 0
        self._last_compression_savings_pct = 100.0
        self._summary_failure_cooldown_until = 0.0
        self.last_real_prompt_tokens = 0
        self.last_compression_rough_tokens = 0
        self.last_rough_tokens_when_real_prompt_fit = 0
        self.awaiting_real_usage_after_compression = False
        self._reset_call_status()

    def _reset_call_status(self) -> None:
        self._last_summary_dropped_count = 0
        self._last_summary_fallback_used = False
        self._last_summary_error: str | None = None
        self._last_aux_model_failure_error: str | None = None
        self._last_aux_model_failure_model: str | None = None
        self._last_compress_aborted = False

    # --- helpers ------------------------------------------------------------------------------

    def redact(self, text: Any) -> Any:
        """The profile's redaction, followed by the strict layer when it is enabled."""
        redacted = redact_sensitive_text(text, discord_mentions=self.profile.redact_discord_mentions)
        if self.config.strict_redaction and isinstance(redacted, str) and redacted:
            from core.redaction.strict import strict_redact

            redacted = strict_redact(redacted)
        return redacted

    def redact_many(self, texts: list[str]) -> list[str]:
        """``redact`` over a list of strings (one search per pass across all of them)."""
        redacted = redact_many(texts, discord_mentions=self.profile.redact_discord_mentions)
        if self.config.strict_redaction:
            from core.redaction.strict import strict_redact

            redacted = [strict_redact(t) if t else t for t in redacted]
        return redacted

    def _summary_model_name(self) -> str:
        return str(getattr(self.summarizer, "summary_model", "") or "")

    def _can_fall_back(self) -> bool:
        hook = getattr(self.summarizer, "can_fall_back_to_main", None)
        return bool(hook and not self._summary_model_fallen_back and hook())

    # --- Phase 3 call -------------------------------------------------------------------------

    def _generate_summary(
        self, turns: list[Any], focus_topic: str | None, calls: list[SummarizerCall]
    ) -> str | None:
        if self.clock() < self._summary_failure_cooldown_until:
            return None
        content_tokens = self._estimator.messages_tokens(turns)
        budget = summary.summary_budget(content_tokens, self.max_summary_tokens)
        max_tokens = summary.max_tokens_for_budget(budget)
        serialized = summary.serialize_for_summary(turns, self.redact, self.redact_many)
        previous = self._previous_summary
        if previous and self.config.strict_redaction:
            # The reference sends a rehydrated summary as it stands; strict mode covers everything
            # that leaves the machine, so it masks that text too.
            from core.redaction.strict import strict_redact

            previous = strict_redact(previous)
        prompt = summary.build_summary_prompt(
            serialized,
            profile=self.profile,
            summary_budget_tokens=budget,
            previous_summary=previous,
            focus_topic=focus_topic,
        )
        call = SummarizerCall(
            prompt=prompt,
            max_tokens=max_tokens,
            summary_budget=budget,
            serialized_turns=serialized,
            content_tokens=content_tokens,
            iterative=bool(previous),
            model=self._summary_model_name() or None,
        )
        calls.append(call)
        try:
            if self.summarizer is None:
                raise RuntimeError(P.NO_PROVIDER_ERROR)
            request_hook = getattr(self.summarizer, "summarize_request", None)
            if request_hook is not None:
                response = request_hook(
                    SummaryRequest(
                        prompt=prompt,
                        max_tokens=max_tokens,
                        turns=summary.redacted_turns(turns, self.redact),
                        serialized_turns=serialized,
                        previous_summary=previous or None,
                        focus_topic=focus_topic or None,
                        summary_budget=budget,
                    )
                )
            else:
                response = self.summarizer(prompt, max_tokens)
        except RuntimeError as exc:
            self._summary_failure_cooldown_until = self.clock() + P.COOLDOWN_NO_PROVIDER_S
            self._last_summary_error = P.NO_PROVIDER_ERROR
            call.error = _short_error(exc)
            return None
        except Exception as exc:  # any provider failure is a summary failure, by design
            call.error = _short_error(exc)
            if self._can_fall_back():
                self._summary_model_fallen_back = True
                self._last_aux_model_failure_error = _short_error(exc)
                self._last_aux_model_failure_model = self._summary_model_name() or None
                self.summarizer.fall_back_to_main()  # type: ignore[union-attr]
                self._summary_failure_cooldown_until = 0.0
                return self._generate_summary(turns, focus_topic, calls)
            transient = _is_json_decode_error(exc) or is_connection_error(exc)
            cooldown = P.COOLDOWN_TRANSIENT_S if transient else P.COOLDOWN_OTHER_S
            self._summary_failure_cooldown_until = self.clock() + cooldown
            self._last_summary_error = _short_error(exc)
            return None
        if not isinstance(response, str):
            response = str(response) if response else ""
        text = self.redact(response.strip())
        call.response = text
        self._previous_summary = text
        self._summary_failure_cooldown_until = 0.0
        self._summary_model_fallen_back = False
        self._last_summary_error = None
        return summary.with_summary_prefix(text, self.profile)

    # --- the pipeline -------------------------------------------------------------------------

    def compress(
        self,
        messages: list[Any],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> CompressionResult:
        """Compress ``messages`` (never mutated) and return the new list with what happened.

        Args:
            messages: OpenAI-chat message dicts.
            current_tokens: The prompt size to report savings against (defaults to the last
                real prompt size, else the rough estimate of ``messages``).
            focus_topic: Ask the summary to prioritise this topic (like ``/compress <topic>``).
            force: Clear a summary-failure cooldown first (the manual ``/compress`` bypass).
        """
        self._reset_call_status()
        if force and self._summary_failure_cooldown_until > 0:
            self._summary_failure_cooldown_until = 0.0
        protect_first_n = self.protect_first_n
        n = len(messages)
        result = CompressionResult(messages=messages, outcome="too_small", input_messages=messages)
        if n <= boundaries.protect_head_size(messages, protect_first_n) + P.MIN_TAIL_MESSAGES + 1:
            result.head_size = boundaries.protect_head_size(messages, protect_first_n)
            return result

        display_tokens = current_tokens if current_tokens else (
            self.last_prompt_tokens or self._estimator.messages_tokens(messages)
        )
        result.display_tokens = display_tokens
        pruned = prune.prune_old_tool_results(
            messages,
            self.protect_last_n,
            self.tail_token_budget,
            message_tokens=self._estimator.message_tokens,
        )
        work = pruned.messages
        result.pruned_messages = work
        result.pruned_count = pruned.pruned_count
        result.prune_boundary = pruned.prune_boundary
        result.phase1_actions = pruned.actions

        head_size = boundaries.protect_head_size(work, protect_first_n)
        compress_start = boundaries.align_boundary_forward(work, head_size)
        tail = boundaries.find_tail_cut(work, compress_start, self.tail_token_budget, self._estimator.message_tokens)
        compress_end = tail.cut
        result.head_size, result.compress_start, result.compress_end, result.tail_cut = (
            head_size,
            compress_start,
            compress_end,
            tail,
        )
        if compress_start >= compress_end or compress_start >= n:
            result.messages = work
            result.outcome = "nothing_to_compress"
            return result

        turns_start = compress_start
        existing = summary.find_existing_summary(work, compress_end, self.profile)
        if existing is not None:
            body = summary.strip_summary_prefix(summary.content_text(work[existing].get("content")), self.profile)
            if not self._previous_summary and body:
                self._previous_summary = body
            turns_start = max(compress_start, existing + 1)
        result.existing_summary_index = existing
        result.turns_start = turns_start
        turns = work[turns_start:compress_end]

        cooldown_before = self._summary_failure_cooldown_until
        summary_text = self._generate_summary(turns, focus_topic, result.summarizer_calls)
        result.cooldown_skipped = not result.summarizer_calls and self.clock() < cooldown_before
        result.aux_model_failure = self._last_aux_model_failure_error
        result.aux_model_failure_model = self._last_aux_model_failure_model

        if not summary_text and self.abort_on_summary_failure:
            self._last_compress_aborted = True
            result.messages = work
            result.outcome = "aborted"
            result.failure_reason = self._last_summary_error
            return result

        compressed: list[Any] = []
        origins: list[MessageOrigin] = []
        for i in range(compress_start):
            message = work[i]
            if i == 0 and isinstance(message, dict) and message.get("role") == "system":
                copy = assemble.add_system_note(message)
                badges = ["HEAD"] + (["system note"] if copy.get("content") != message.get("content") else [])
            else:
                copy = message.copy() if isinstance(message, dict) else message
                badges = ["HEAD"]
            compressed.append(copy)
            origins.append(MessageOrigin("head", i, badges + pruned.actions.get(i, [])))

        if not summary_text:
            self._last_summary_dropped_count = compress_end - compress_start
            self._last_summary_fallback_used = True
            if self.profile.fallback == "deterministic":
                summary_text = fallback.deterministic_fallback_summary(
                    turns, self._last_summary_error, self._previous_summary, self.profile, self.redact
                )
            else:
                summary_text = fallback.static_fallback_summary(compress_end - compress_start, self.profile)
            result.outcome = "fallback"
            result.fallback_used = True
            result.failure_reason = self._last_summary_error
        else:
            result.outcome = "summarized"
        result.summary_text = summary_text
        result.dropped_count = compress_end - compress_start

        placement = assemble.choose_summary_role(work, compress_start, compress_end)
        result.summary_role = placement.role
        result.summary_merged = placement.merged
        if not placement.merged:
            content = summary_text + assemble.SUMMARY_END if placement.role == "user" else summary_text
            compressed.append({"role": placement.role, "content": content})
            origins.append(MessageOrigin("summary", None, ["SUMMARY"] + (["fallback"] if result.fallback_used else [])))
        for i in range(compress_end, n):
            message = work[i]
            badges = ["TAIL"]
            if placement.merged and i == compress_end:
                message = assemble.merge_summary_into(message, summary_text)
                badges.append("merged")
            elif isinstance(message, dict):
                message = message.copy()
            compressed.append(message)
            origins.append(MessageOrigin("tail", i, badges + pruned.actions.get(i, [])))

        self.compression_count += 1
        sanitized, report = assemble.sanitize_tool_pairs(compressed)
        if report.orphans_removed:
            removed = set(report.orphans_removed)
            origins = [o for i, o in enumerate(origins) if i not in removed]
        for index in report.stubs_added:
            origins.insert(index, MessageOrigin("stub", None, ["stub"]))
        final, stripped = assemble.strip_historical_media(sanitized)
        for index in stripped:
            origins[index].badges.append("image stripped")
        result.orphans_removed = len(report.orphans_removed)
        result.stubs_added = len(report.stubs_added)
        result.media_stripped = len(stripped)

        new_estimate = self._estimator.messages_tokens(final)
        saved = display_tokens - new_estimate
        savings_pct = saved / display_tokens * 100 if display_tokens > 0 else 0
        self._last_compression_savings_pct = savings_pct
        if savings_pct < P.INEFFECTIVE_SAVINGS_PCT:
            self._ineffective_compression_count += 1
        else:
            self._ineffective_compression_count = 0
        result.messages = final
        result.origins = origins
        result.tokens_after = new_estimate
        result.savings_pct = savings_pct
        return result
