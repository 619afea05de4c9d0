"""Phase 3's call: one plan, one summarizer, and what came of it as a value.

:func:`request_summary` makes the summary call of a :class:`~core.plan.CompressionPlan` the way the
plan's release makes it: it skips the call during a failure cooldown, raises where the release
raises (v0.19.0: :class:`~core.phases.summary.ReferenceCrash`), calls the summarizer (with the
prompt, or with the whole request when the summarizer takes one), treats an empty answer as the
release does, post-processes the answer (redaction, v0.19.0's reasoning stripping and grounded task
line), classifies a failure, retries once on the main model when a separate summary model fails, and
works out the cooldown. It changes nothing but the summarizer's own model fallback: the
:class:`SummaryOutcome` it returns says what the caller's state becomes. ``ContextCompressor``
applies it between calls; the strategies and the summary comparison use it for a single call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from core import profiles as P
from core.phases import summary
from core.phases.failures import FAILURE_RULES, FailureClass, empty_summary_error, short_error
from core.plan import CompressionPlan

__all__ = ["NO_SUMMARIZER_ERROR", "FailureState", "SummarizerCall", "SummaryOutcome", "request_summary"]

# ``summarizer=None`` means no model is configured: Hermes' own call raises this (every release
# takes its no-provider branch on it).
NO_SUMMARIZER_ERROR = "No LLM provider configured for task=compression (no summarizer given)."


@dataclass
class SummarizerCall:
    """One attempted summary call (absent during a cooldown skip)."""

    max_tokens: int | None
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
    failure: FailureClass | None = field(default=None, repr=False)

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


@dataclass(frozen=True)
class FailureState:
    """What the call reads of its caller's failure bookkeeping (a fresh one: none of it)."""

    cooldown_until: float = 0.0  # on the caller's clock
    timeout_failures: int = 0  # v0.19.0: consecutive timeout failures so far


@dataclass
class SummaryOutcome:
    """What one summary call came to.

    ``text`` is the summary as the assembly inserts it (prefixed), None when the call failed or was
    skipped; ``stored`` what the compressor keeps as its previous summary after a success. On a
    failure, ``cooldown_s`` is the cooldown it starts and ``error`` its reason.
    """

    text: str | None = None
    stored: str | None = None
    calls: list[SummarizerCall] = field(default_factory=list)
    skipped_for_cooldown: bool = False
    error: str | None = None
    failure: FailureClass | None = None  # the failure that ended the chain
    cooldown_s: int | None = None
    access_failure: bool = False  # an attempt failed for authentication (v0.19.0: access or quota)
    network_failure: bool = False  # the attempt that ended the chain was a network failure
    timeout_failures: int = 0  # the consecutive-timeout count afterwards
    fell_back_to_main: bool = False  # a separate summary model failed and the main model was asked
    summary_model_error: str | None = None  # ... with this error
    summary_model: str | None = None  # ... from this model

    @property
    def succeeded(self) -> bool:
        return self.text is not None


def _summary_model(summarizer: Any) -> str:
    return str(getattr(summarizer, "summary_model", "") or "")


def _can_fall_back(summarizer: Any) -> bool:
    hook = getattr(summarizer, "can_fall_back_to_main", None)
    return bool(hook and hook())


def _ask(summarizer: Any, plan: CompressionPlan, call: SummarizerCall) -> Any:
    if summarizer is None:
        raise RuntimeError(NO_SUMMARIZER_ERROR)
    request_hook = getattr(summarizer, "summarize_request", None)
    if request_hook is not None:  # only then are the redacted turns worth building
        if getattr(summarizer, "reads_prompt", True):
            return request_hook(plan.summary_request(call.prompt_date, prompt=call.prompt))
        return request_hook(plan.summary_request(call.prompt_date, prompt="", serialized_turns=""))
    return summarizer(call.prompt, plan.max_tokens)


def request_summary(
    plan: CompressionPlan,
    summarizer: Any,
    state: FailureState = FailureState(),  # noqa: B008  (immutable)
    *,
    now: Callable[[], float] = lambda: 0.0,
    date: str | None = None,
    main_model: str = "",
    may_fall_back: bool = True,
) -> SummaryOutcome:
    """Make ``plan``'s summary call with ``summarizer`` (see the module docstring).

    ``now`` is the caller's monotonic clock, ``date`` the anchoring date ("" when the release's clock
    failed), ``main_model`` the model an empty-answer failure names when there is no summary model,
    ``may_fall_back`` whether a separate summary model may still fall back to the main one.
    """
    outcome = SummaryOutcome(timeout_failures=state.timeout_failures)
    if now() < state.cooldown_until:
        outcome.skipped_for_cooldown = True
        return outcome
    if plan.reference_crash is not None:
        raise plan.reference_crash
    _attempt(plan, summarizer, outcome, now=now, date=date, main_model=main_model, may_fall_back=may_fall_back)
    return outcome


def _attempt(plan: CompressionPlan, summarizer: Any, outcome: SummaryOutcome, *, now: Callable[[], float],
             date: str | None, main_model: str, may_fall_back: bool) -> None:
    profile = plan.profile
    rule = FAILURE_RULES[profile.failure_rule]
    call = SummarizerCall(
        max_tokens=plan.max_tokens,
        summary_budget=plan.summary_budget,
        plan=plan,
        iterative=bool(plan.prompt_previous_summary),
        model=_summary_model(summarizer) or None,
        focus_topic=plan.focus_topic,
        anchoring_date=date or None,
        prompt_date=date,
    )
    outcome.calls.append(call)
    try:
        response = _ask(summarizer, plan, call)
        if not isinstance(response, str):
            response = str(response) if response else ""
        if rule.empty_is_failure and not response.strip():
            raise empty_summary_error(_summary_model(summarizer) or main_model)
        stored = plan.stored_summary(response)
    except Exception as exc:  # any provider failure is a summary failure, by design
        failure = rule.classify(exc)
        call.error = short_error(exc)
        call.failure = failure
        if failure.auth:
            outcome.access_failure = True
        if failure.no_provider:
            outcome.failure, outcome.cooldown_s, outcome.error = failure, P.COOLDOWN_NO_PROVIDER_S, P.NO_PROVIDER_ERROR
            return
        if may_fall_back and _can_fall_back(summarizer):
            outcome.fell_back_to_main = True
            outcome.summary_model_error = short_error(exc)
            outcome.summary_model = _summary_model(summarizer) or None
            outcome.timeout_failures = 0  # falling back clears the cooldown, and with it the ladder
            summarizer.fall_back_to_main()
            _attempt(plan, summarizer, outcome, now=now, date=date, main_model=main_model, may_fall_back=False)
            return
        outcome.cooldown_s, outcome.timeout_failures = rule.cooldown(failure, outcome.timeout_failures)
        outcome.failure, outcome.error = failure, short_error(exc)
        outcome.network_failure = failure.network
        return
    call.response = stored
    outcome.stored = stored
    outcome.text = summary.with_summary_prefix(stored, profile)
    outcome.timeout_failures = 0
