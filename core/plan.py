"""The compressor's decisions as one value: :func:`plan` gives a :class:`CompressionPlan`.

A plan is everything ``compress()`` decides before it calls the summarizer, computed without
calling it: the outcome (too small / nothing to compress / summarise), the Phase-1 result, the
head end, the middle's start and end, the tail cut with every step that moved it, the handoff
summary found in the window, what the compressor's state contributed (its previous summary and
compression count) and what the call does to it, the turns to summarise, their serialised block,
the summary budget and ``max_tokens``. ``core.assembly.assemble`` turns a plan and a summary (or a
failure) into the output; ``ContextCompressor`` keeps the state between calls. Every analysis
reads plans: none of them re-derives a boundary, a tail walk or a repair.

A :class:`~core.phases.prune.PrunePlan` holds Phase 1's parameter-free work for one message list
and one per-message weight; :func:`prepare` builds it, and passing it to :func:`plan` makes the next
parameter change cheap.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from core import profiles as P
from core.config import CompressorConfig
from core.message_view import content_text, counted_texts
from core.phases import assemble as phase4
from core.phases import boundaries, focus, summary
from core.phases.boundaries import TailCut
from core.phases.failures import FAILURE_RULES, FailureRule
from core.phases.oneliners import ONELINER_RULES
from core.phases.prune import PrunePlan, PruneResult
from core.profiles import Profile
from core.redaction import ProfileRedaction, profile_memory_redaction, profile_redaction
from core.summarizers.base import SummaryRequest, SummaryRoom
from core.tokens import encoding_name_for_model, make_estimator

__all__ = [
    "TOO_SMALL",
    "NOTHING_TO_COMPRESS",
    "SUMMARIZE",
    "CompressionPlan",
    "CompressorState",
    "derived",
    "estimator_key",
    "plan",
    "prepare",
    "prune_plan_key",
    "usable_prune_plan",
]

TOO_SMALL = "too_small"  # early return 1: too few messages, nothing runs
NOTHING_TO_COMPRESS = "nothing_to_compress"  # early return 2: the middle is empty
SUMMARIZE = "summarize"

T = TypeVar("T")


@dataclass(frozen=True)
class CompressorState:
    """What a compressor carries between calls that its next plan reads."""

    compression_count: int = 0
    previous_summary: str | None = None
    last_prompt_tokens: int = 0


# --- the Phase-1 plan of a conversation ----------------------------------------------------------


def estimator_key(token_estimator: str, model: str = "", budget_weight: str = "arguments") -> Hashable:
    """What the per-message weights of an estimator depend on (the model only for tiktoken)."""
    if token_estimator == "tiktoken":
        return ("tiktoken", encoding_name_for_model(model))
    return (token_estimator, budget_weight)


def prune_plan_key(config: CompressorConfig) -> Hashable:
    """What a Phase-1 plan for ``config`` depends on: the weights, and the release's one-liners."""
    return (*estimator_key(config.token_estimator, config.model, config.release.budget_weight),
            config.release.oneliner_rule)


_config_key = prune_plan_key


def prepare(messages: Sequence[Any], config: CompressorConfig) -> PrunePlan:
    """The Phase-1 plan of ``messages`` weighed as ``config``'s estimator and release weigh them."""
    estimator = make_estimator(config.token_estimator, config.model, config.release.budget_weight)
    return PrunePlan(
        messages, estimator.message_tokens, key=prune_plan_key(config),
        summarize=ONELINER_RULES[config.release.oneliner_rule],
    )


def usable_prune_plan(prune_plan: PrunePlan | None, messages: Sequence[Any], config: CompressorConfig) -> PrunePlan:
    """``prune_plan`` after checking it fits ``messages`` and ``config``'s weights; a new one when None."""
    if prune_plan is None:
        return prepare(messages, config)
    if prune_plan.key != _config_key(config):
        raise ValueError(f"the Phase-1 plan weighs messages with {prune_plan.key!r}, not {_config_key(config)!r}")
    if not prune_plan.built_from(messages):
        raise ValueError("the Phase-1 plan was built from other messages")
    return prune_plan


# Values derived from a Phase-1 plan's messages and weights alone (whole-conversation estimates,
# running totals, roles), kept as long as the plan lives.
_DERIVED: weakref.WeakKeyDictionary[PrunePlan, dict[Hashable, Any]] = weakref.WeakKeyDictionary()
_DERIVED_LOCK = threading.Lock()


def derived(prune_plan: PrunePlan | None, name: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` once per Phase-1 plan and ``name``; every time when there is no plan.

    Only for values that depend on nothing but the plan's messages and weights: a parameter change
    must not change them.
    """
    if prune_plan is None:
        return compute()
    with _DERIVED_LOCK:
        values = _DERIVED.setdefault(prune_plan, {})
        if name in values:
            return values[name]
    value = compute()
    with _DERIVED_LOCK:
        return values.setdefault(name, value)


# --- the plan ------------------------------------------------------------------------------------


@dataclass
class CompressionPlan:
    """Everything one ``compress()`` decides before its summary call (see the module docstring).

    Index fields refer to ``work``, the Phase-1 list (same length and order as ``messages``).
    ``previous_summary_in`` is the compressor's summary before the call, ``previous_summary`` what
    it holds after the rehydration (a handoff found in the window) or the v0.17.0+ cross-session
    guard (none found), which apply before the summary call.
    """

    config: CompressorConfig
    messages: list[Any]
    state: CompressorState
    outcome: str
    head_size: int  # the protected head the early-return test used (decayed in v0.18.0 after a compaction)
    head_decayed: bool
    threshold_tokens: int
    tail_token_budget: int
    max_summary_tokens: int
    current_tokens: int | None = None
    prune_plan: PrunePlan | None = field(default=None, compare=False, repr=False)  # Phase 1's parameter-free work, reusable by the next plan
    prune: PruneResult | None = None
    compress_start: int | None = None
    compress_end: int | None = None
    tail_cut: TailCut | None = None
    existing_summary_index: int | None = None
    rehydrated: bool = False  # previous_summary came from the handoff in the window
    previous_summary_in: str | None = None
    previous_summary: str | None = None
    previous_summary_cleared: bool = False  # v0.17.0+: the cross-session guard dropped it
    turns_start: int | None = None
    turns: list[Any] = field(default_factory=list)
    focus_topic: str | None = None  # the effective focus (given, or v0.17.0+ derived)
    focus_is_automatic: bool = False
    # The estimate of the turns, None until first read when the budget did not need it (see
    # ``_turns_budget``); read it as ``content_tokens``.
    measured_content_tokens: int | None = field(default=None, compare=False, repr=False)
    summary_budget: int = 0
    max_tokens: int | None = 0  # None: the release sends no output cap (v0.19.0)
    memory_context: str = ""  # v0.19.0: a memory provider's context for the prompt

    # -- what the plan is about

    @property
    def profile(self) -> Profile:
        return self.config.release

    @property
    def work(self) -> list[Any]:
        """The Phase-1 list (the input itself when nothing ran)."""
        return self.prune.messages if self.prune is not None else self.messages

    @property
    def calls_summarizer(self) -> bool:
        return self.outcome == SUMMARIZE

    @property
    def pruned_messages(self) -> list[Any] | None:
        """Phase 1's output (None when the call returned before Phase 1)."""
        return self.prune.messages if self.prune is not None else None

    @property
    def pruned_count(self) -> int:
        return self.prune.pruned_count if self.prune is not None else 0

    @property
    def prune_boundary(self) -> int | None:
        return self.prune.prune_boundary if self.prune is not None else None

    @property
    def phase1_actions(self) -> dict[int, list[str]]:
        return self.prune.actions if self.prune is not None else {}

    @property
    def dropped_count(self) -> int:
        """Messages the summary replaces (the whole window, a rehydrated handoff included)."""
        if self.compress_start is None or self.compress_end is None:
            return 0
        return max(0, self.compress_end - self.compress_start)

    @cached_property
    def estimator(self) -> Any:
        return make_estimator(self.config.token_estimator, self.config.model, self.profile.budget_weight)

    @property
    def content_tokens(self) -> int:
        """The estimate of the turns the summary budget is taken from (0 when nothing is summarised)."""
        if self.measured_content_tokens is None:
            self.measured_content_tokens = self.estimator.messages_tokens(self.turns) if self.calls_summarizer else 0
        return self.measured_content_tokens

    @cached_property
    def display_tokens(self) -> int:
        """The prompt size savings are measured against: ``current_tokens``, else the last real prompt,
        else the rough estimate of the input (0 when nothing ran)."""
        if self.outcome == TOO_SMALL:
            return 0
        if self.current_tokens:
            return self.current_tokens
        return self.state.last_prompt_tokens or self.estimator.messages_tokens(self.messages)

    @property
    def input_tokens(self) -> int:
        """How large the input is, for a reader: ``display_tokens``, or the estimate of the input where
        the release measured nothing (too small: 0), so a view never shows a conversation as empty."""
        return self.display_tokens or self.estimator.messages_tokens(self.messages)

    # -- the summary call's inputs

    @cached_property
    def redaction(self) -> ProfileRedaction:
        return profile_redaction(self.profile, strict=self.config.strict_redaction)

    @property
    def failure_rule(self) -> FailureRule:
        """How the release classifies a failed summary call (and says so in words)."""
        return FAILURE_RULES[self.profile.failure_rule]

    @property
    def turns_rule(self) -> summary.TurnsRule:
        return summary.TURNS_RULES[self.profile.turns_rule]

    @cached_property
    def reference_crash(self) -> summary.ReferenceCrash | None:
        """Where the release raises while serialising the turns (v0.19.0: a text part that is not a string)."""
        if not self.calls_summarizer:
            return None
        return summary.first_crash(self.turns, self.turns_rule, self.profile.name, self.turns_start or 0)

    @cached_property
    def serialized_turns(self) -> str:
        """The turns block of the summary prompt (redacted, truncated, v0.17.0+ media placeholders,
        v0.19.0 lists flattened and reasoning stripped). Raises :class:`ReferenceCrash` where the release raises."""
        if self.reference_crash is not None:
            raise self.reference_crash
        return summary.serialize_for_summary(
            self.turns, self.redaction.redact, self.redaction.redact_many,
            media_directives=self.profile.media_directives, rule=self.turns_rule,
        )

    @cached_property
    def memory_block(self) -> str:
        """v0.19.0: the memory provider's block the prompt carries after the turns ("" when none)."""
        if not self.profile.memory_context or self.profile.memory_redaction is None:
            return ""
        if self.memory_context == "":
            return ""
        redact_memory = profile_memory_redaction(self.profile, strict=self.config.strict_redaction)
        return summary.memory_context_block(self.memory_context, redact_memory)

    @cached_property
    def redacted_turns(self) -> list[Any]:
        """Copies of the turns with text and tool-call arguments redacted (what an extractive summarizer reads)."""
        return summary.redacted_turns(self.turns, self.redaction.redact)

    @property
    def texts_to_redact(self) -> list[str]:
        """The strings :attr:`redacted_turns` masks with :attr:`redaction` (to have them masked ahead)."""
        return counted_texts(self.turns, names=False)

    @cached_property
    def prompt_previous_summary(self) -> str | None:
        """The previous summary as the prompt carries it (strict mode masks it too; the reference sends it as is)."""
        previous = self.previous_summary
        if previous and self.config.strict_redaction:
            previous = self.redaction.strict(previous)
        return previous

    def stored_summary(self, response: str) -> str:
        """What the release keeps of an LLM's answer (redacted; v0.19.0 also strips reasoning and
        grounds the task line): the previous summary of the next call, prefixed into the output."""
        rule = summary.summary_text_rule(self.profile)
        return summary.OUTPUT_RULES[self.profile.output_rule](response, self.redaction.redact, self.turns, rule)

    def prompt(self, date: str | None = None) -> str:
        """The summary prompt; ``date`` (YYYY-MM-DD) is the v0.17.0+ temporal anchoring."""
        return summary.build_summary_prompt(
            self.serialized_turns,
            profile=self.profile,
            summary_budget_tokens=self.summary_budget,
            previous_summary=self.prompt_previous_summary,
            focus_topic=self.focus_topic,
            date=date,
            memory_block=self.memory_block,
        )

    def summary_request(
        self, date: str | None = None, *, prompt: str | None = None, serialized_turns: str | None = None
    ) -> SummaryRequest:
        """The request a summarizer receives for this plan (``date`` as in :meth:`prompt`; ``prompt``
        when it is built already, and ``""`` for both texts to a summarizer that reads neither)."""
        if not self.calls_summarizer:
            raise ValueError(f"this compression makes no summary call ({self.outcome})")
        return SummaryRequest(
            prompt=self.prompt(date) if prompt is None else prompt,
            max_tokens=self.max_tokens,
            turns=self.redacted_turns,
            serialized_turns=self.serialized_turns if serialized_turns is None else serialized_turns,
            previous_summary=self.prompt_previous_summary or None,
            focus_topic=self.focus_topic or None,
            summary_budget=self.summary_budget,
            section_headings=self.profile.template_headings,
            memory_context=self.memory_context or None,
            room=self.summary_room,
        )

    @cached_property
    def summary_room(self) -> SummaryRoom | None:
        """What the summary may weigh for the output not to grow: the middle it replaces, and the summary
        as the assembly would place it, in this plan's estimate (None when no summary is written)."""
        if not self.calls_summarizer or self.compress_start is None or self.compress_end is None:
            return None
        work, start, end, profile = self.work, self.compress_start, self.compress_end, self.profile
        weight = self.estimator.messages_tokens
        placement = phase4.ROLE_RULES[profile.role_rule](work, start, end)
        # A plan of exactly its turns (plan_for_turns: the Codex-style reset) has no tail to merge into.
        merged_into = phase4.kept_copy(work[end], profile) if placement.merged and end < len(work) else None
        merged_alone = weight([merged_into]) if merged_into is not None else 0

        def weigh(body: str) -> int:
            text = summary.with_summary_prefix(self.stored_summary(body), profile)
            if merged_into is not None:
                return weight([phase4.merge_summary_into(merged_into, text, profile)]) - merged_alone
            return weight([phase4.summary_message(text, placement.role, profile)])

        return SummaryRoom(weight(work[start:end]), weigh)


def _turns_budget(turns: list[Any], config: CompressorConfig) -> tuple[int | None, int]:
    """``(estimate of the turns, summary budget)``; the estimate is None when it was not needed.

    The budget is ``max(2000, min(estimate // 5, cap))``: once a cheap lower bound of the estimate
    reaches five times the cap, the budget is the cap whatever the exact estimate, which is then
    left to be measured if anyone reads it.
    """
    estimator = make_estimator(config.token_estimator, config.model, config.release.budget_weight)
    cap = config.max_summary_tokens
    # Counting may stop a little past the least estimate whose share reaches the cap.
    least = estimator.messages_tokens_at_least(turns, enough=math.ceil(cap / P.SUMMARY_RATIO) + 1)
    if int(least * P.SUMMARY_RATIO) >= cap:
        return None, summary.summary_budget(least, cap)
    content_tokens = estimator.messages_tokens(turns)
    return content_tokens, summary.summary_budget(content_tokens, cap)


def plan(
    messages: Sequence[Any],
    config: CompressorConfig,
    *,
    prune_plan: PrunePlan | None = None,
    state: CompressorState = CompressorState(),  # noqa: B008  (immutable)
    current_tokens: int | None = None,
    focus_topic: str | None = None,
    memory_context: str = "",
) -> CompressionPlan:
    """What ``compress(messages, current_tokens, focus_topic, memory_context=...)`` decides, in ``config``'s release.

    Args:
        messages: OpenAI-chat message dicts (never modified).
        config: The parameters and the release (``config.profile``).
        prune_plan: The Phase-1 plan of ``messages`` for ``config`` (:func:`prepare`), kept to make
            the next parameter change cheap; built here when None.
        state: The compressor's state before the call (its compression count and previous summary
            move the v0.18.0 head; the previous summary decides rehydration and the prompt's kind).
        current_tokens: The prompt size to report savings against (``compress()``'s argument).
        focus_topic: The focus topic given to ``compress()`` (v0.17.0+ derive one when it is falsy).
        memory_context: A memory provider's context for the prompt (v0.19.0; earlier releases ignore it).
    """
    messages = list(messages)
    profile = config.release
    threshold = config.threshold_tokens
    head_rule = boundaries.HEAD_RULES[profile.head_rule]
    n = len(messages)
    head_size = head_rule(messages, config.protect_first_n, state.compression_count, state.previous_summary)
    common = {
        "config": config,
        "messages": messages,
        "state": state,
        "head_decayed": head_size != boundaries.protect_head_size(messages, config.protect_first_n),
        "threshold_tokens": threshold,
        "tail_token_budget": int(threshold * config.clamped_ratio),
        "max_summary_tokens": config.max_summary_tokens,
        "current_tokens": current_tokens,
        "previous_summary_in": state.previous_summary,
        "previous_summary": state.previous_summary,
    }
    if n <= head_size + P.MIN_TAIL_MESSAGES + 1:
        return CompressionPlan(outcome=TOO_SMALL, head_size=head_size, **common)

    budget = common["tail_token_budget"]
    prune_plan = usable_prune_plan(prune_plan, messages, config)
    pruned = prune_plan.apply(config.protect_last_n, budget)
    work = pruned.messages
    text_rule = summary.summary_text_rule(profile)
    compress_start = boundaries.align_boundary_forward(
        work, head_rule(work, config.protect_first_n, state.compression_count, state.previous_summary)
    )
    tail = boundaries.TAIL_RULES[profile.tail_rule].cut(
        work,
        compress_start,
        budget,
        prune_plan.weight_at(pruned.prune_boundary),
        protect_last_n=config.protect_last_n,
        last_user=boundaries.LAST_USER_RULES[profile.last_user_rule],
        is_summary=text_rule.is_summary_content,
    )
    compress_end = tail.cut
    located = {
        "head_size": head_size,
        "prune_plan": prune_plan,
        "prune": pruned,
        "compress_start": compress_start,
        "compress_end": compress_end,
        "tail_cut": tail,
    }
    if compress_start >= compress_end or compress_start >= n:
        # The reference raises on the degenerate case (only tool results after the head); the
        # early return is the defined behaviour closest to it.
        return CompressionPlan(outcome=NOTHING_TO_COMPRESS, **common, **located)

    previous = state.previous_summary
    rehydrated = cleared = False
    turns_start = compress_start
    existing = summary.find_existing_summary(work, compress_end, profile)
    if existing is not None:
        body = text_rule.strip(content_text(work[existing].get("content")))
        if not previous and body:
            previous, rehydrated = body, True
        turns_start = max(compress_start, existing + 1)
    elif profile.cross_session_guard and previous:
        previous, cleared = None, True
    common["previous_summary"] = previous

    effective_focus = focus_topic or None
    automatic = False
    if not focus_topic and profile.auto_focus:
        redact = profile_redaction(profile, strict=config.strict_redaction).redact
        effective_focus = focus.derive_auto_focus(work, text_rule.is_summary_content, redact)
        automatic = effective_focus is not None
    elif focus_topic:
        effective_focus = focus_topic

    turns = work[turns_start:compress_end]
    content_tokens, budget_tokens = _turns_budget(turns, config)
    return CompressionPlan(
        outcome=SUMMARIZE,
        **common,
        **located,
        existing_summary_index=existing,
        rehydrated=rehydrated,
        previous_summary_cleared=cleared,
        turns_start=turns_start,
        turns=turns,
        focus_topic=effective_focus,
        focus_is_automatic=automatic,
        measured_content_tokens=content_tokens,
        summary_budget=budget_tokens,
        max_tokens=summary.max_tokens_for_budget(budget_tokens) if profile.sends_max_tokens else None,
        memory_context=memory_context if profile.memory_context else "",
    )


def plan_for_turns(turns: Sequence[Any], config: CompressorConfig) -> CompressionPlan:
    """A first compaction of exactly ``turns``, for strategies that choose their own window.

    The summary request (budget, ``max_tokens``, redaction, prompt) is built as ``compress()``
    builds it for those turns; nothing else of the plan describes a real compression.
    """
    turns = list(turns)
    content_tokens, budget_tokens = _turns_budget(turns, config)
    threshold = config.threshold_tokens
    return CompressionPlan(
        config=config,
        messages=turns,
        state=CompressorState(),
        outcome=SUMMARIZE,
        head_size=0,
        head_decayed=False,
        threshold_tokens=threshold,
        tail_token_budget=int(threshold * config.clamped_ratio),
        max_summary_tokens=config.max_summary_tokens,
        compress_start=0,
        compress_end=len(turns),
        turns_start=0,
        turns=turns,
        measured_content_tokens=content_tokens,
        summary_budget=budget_tokens,
        max_tokens=summary.max_tokens_for_budget(budget_tokens) if config.release.sends_max_tokens else None,
    )
