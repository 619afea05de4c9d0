"""Where HEAD, MIDDLE and TAIL fall for given parameters, and why, without any summary call.

The boundaries are the compression plan's (``core.plan.plan``, what ``compress()`` follows): Phase 1
on copies (its prune boundary and actions), then the head, the forward alignment and the tail walk
on the pruned list with the configured estimator. The explanations are plain sentences built
from the steps the tail walk recorded (``TailCut``), so they always describe the actual result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core import profiles as P
from core.config import CompressorConfig
from core.plan import NOTHING_TO_COMPRESS, TOO_SMALL, CompressionPlan, CompressorState, derived
from core.plan import plan as compression_plan
from core.rules import PrunePlan, TailCut
from core.tokens import estimate_messages_tokens_rough, make_estimator, message_rough_chars, rough_tokens

HEAD, MIDDLE, TAIL, UNCHANGED = "HEAD", "MIDDLE", "TAIL", "UNCHANGED"
ZONE_NAMES: tuple[str, ...] = (HEAD, MIDDLE, TAIL, UNCHANGED)
_TABLE_LOCK = threading.Lock()


@dataclass
class ZoneAnalysis:
    """Boundaries, the trigger decision and the per-message picture for one parameter set."""

    n_messages: int
    context_length: int
    threshold_tokens: int
    threshold_floored: bool  # the 64K floor set the threshold, not context x percent
    tail_token_budget: int
    soft_ceiling: int
    estimator: str
    prompt_tokens: int  # the whole conversation, with the configured estimator
    would_compress: bool  # trigger_tokens reaches the threshold
    first_trigger_index: int | None  # first message whose prompt estimate reaches the threshold
    small_conversation: bool  # early return: too few messages, nothing runs
    min_messages: int  # a conversation needs more than this many messages
    head_size: int
    compress_start: int | None
    compress_end: int | None
    middle_empty: bool
    prune_boundary: int | None
    phase1_actions: dict[int, list[str]]
    tail_cut: TailCut | None
    zones: list[str]
    plan: CompressionPlan
    explanations: list[str] = field(default_factory=list)
    # The size the trigger test saw: the whole request when the caller gave it, else prompt_tokens.
    trigger_tokens: int | None = None
    # The per-message table's columns, until ``table`` is first read (the CLI and the batch never
    # read it: a long transcript's table is then never built).
    table_columns: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _table: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    @property
    def table(self) -> pd.DataFrame:
        """One row per message: ``index``, ``role``, ``zone``, ``tokens``, ``after_phase1``,
        ``budget_tokens``, ``prompt_so_far``, ``tail_walk``, ``prune_protected``, ``phase1``."""
        table = self._table
        if table is None:
            with _TABLE_LOCK:  # a cached analysis is read by several sessions' threads
                table = self._table
                if table is None:
                    table = self._table = pd.DataFrame(self.table_columns)
                    self.table_columns = {}  # the frame holds its own copy
        return table

    # The zones' sizes in messages; None for a conversation too small to compress, which has no
    # zones (0 messages in each would read as an empty conversation).
    @property
    def head_count(self) -> int | None:
        return None if self.small_conversation else self.zones.count(HEAD)

    @property
    def middle_count(self) -> int | None:
        return None if self.small_conversation else self.zones.count(MIDDLE)

    @property
    def tail_count(self) -> int | None:
        return None if self.small_conversation else self.zones.count(TAIL)


def cumulative_prompt_tokens(messages: Sequence[Any], config: CompressorConfig) -> np.ndarray:
    """The prompt estimate after each message: entry ``i`` estimates ``messages[: i + 1]`` (int64).

    With the ``hermes`` estimator this is ``estimate_messages_tokens_rough`` of each prefix (the
    ceiling applies to the summed characters, as in the reference); with ``tiktoken`` the exact
    counts add up.
    """
    n = len(messages)
    if config.token_estimator == "hermes":
        chars = np.empty(n, dtype=np.int64)
        images = np.zeros(n, dtype=np.int64)
        for index, message in enumerate(messages):
            chars[index], images[index] = message_rough_chars(message)
        return rough_tokens(np.cumsum(chars), np.cumsum(images))
    estimator = make_estimator(config.token_estimator, config.model)
    return np.cumsum(np.fromiter((estimator.message_tokens(m) for m in messages), dtype=np.int64, count=n))


def _zone_list(n: int, compress_start: int, compress_end: int) -> list[str]:
    """HEAD below ``compress_start``, MIDDLE below ``compress_end``, TAIL from there on."""
    head = min(max(compress_start, 0), n)
    middle = max(0, min(compress_end, n) - head)
    return [HEAD] * head + [MIDDLE] * middle + [TAIL] * (n - head - middle)


def first_crossing(cumulative: Sequence[int], threshold: int) -> int | None:
    """The first index whose value reaches ``threshold`` (``>=``, like ``should_compress``)."""
    reached = np.flatnonzero(np.asarray(cumulative) >= threshold)
    return int(reached[0]) if reached.size else None


def analyze_zones(
    messages: Sequence[Any],
    config: CompressorConfig,
    exact_tokens: Sequence[int] | None = None,
    count_message: Callable[[Any], int] | None = None,
    *,
    plan: PrunePlan | None = None,
    state: CompressorState | None = None,
    trigger_tokens: int | None = None,
) -> ZoneAnalysis:
    """The zones ``compress()`` would use for ``messages`` under ``config``.

    Args:
        messages: OpenAI-chat message dicts (never modified).
        config: The compressor parameters.
        exact_tokens: Exact tiktoken counts per message, shown in the table (optional; the
            estimator's counts otherwise).
        count_message: How to count one message in the same unit as ``exact_tokens``; used for
            the messages Phase 1 shortens, to show what is left of them.
        plan: The Phase-1 plan of ``messages`` for ``config`` (:func:`core.plan.prepare`), kept to
            make the next parameter change cheap.
        state: The compressor's state (a fresh compressor when None); from v0.18.0 a compressor
            that has compacted protects only the system prompt.
        trigger_tokens: The prompt size Hermes' host would hand the trigger test: the whole
            request or the last recorded prompt (``RequestBreakdown.trigger_size``). The
            messages' own estimate when None.
    """
    messages = list(messages)
    n = len(messages)
    estimator = make_estimator(config.token_estimator, config.model, config.release.budget_weight)
    threshold = config.threshold_tokens
    budget = config.tail_token_budget
    soft_ceiling = int(budget * P.TAIL_SOFT_CEILING_FACTOR)
    decided = compression_plan(messages, config, prune_plan=plan, state=state or CompressorState())
    small = decided.outcome == TOO_SMALL
    head_size = decided.head_size
    min_messages = head_size + P.MIN_TAIL_MESSAGES + 1
    prune_plan = decided.prune_plan

    # Whole-conversation estimates depend on the messages and the estimator only: once per plan.
    if config.token_estimator == "hermes":
        prompt_tokens = derived(prune_plan, "prompt tokens", lambda: estimate_messages_tokens_rough(messages))
    else:
        prompt_tokens = derived(prune_plan, "prompt tokens", lambda: estimator.messages_tokens(messages))
    cumulative = derived(prune_plan, "prompt so far", lambda: cumulative_prompt_tokens(messages, config))
    first_trigger = first_crossing(cumulative, threshold)
    trigger_tokens = prompt_tokens if trigger_tokens is None else int(trigger_tokens)
    would_compress = trigger_tokens >= threshold

    compress_start = compress_end = prune_boundary = None
    tail_cut: TailCut | None = None
    actions: dict[int, list[str]] = {}
    # The plan weighs each message with the estimator once and keeps the weights; the columns are
    # arrays (a Python list of ints costs four times the memory of int64 on a long transcript).
    budget_tokens = derived(
        prune_plan, "weights",
        lambda: _numbers(prune_plan.source_weights() if prune_plan is not None
                           else [estimator.message_tokens(m) for m in messages]),
    )
    tail_walk = derived(prune_plan, "suffix sums", lambda: _suffix_sums(budget_tokens))
    shown_tokens = _numbers(exact_tokens) if exact_tokens is not None else budget_tokens
    count = count_message or estimator.message_tokens
    after_phase1 = shown_tokens.copy()
    if small:
        zones = [UNCHANGED] * n
        middle_empty = True
    else:
        assert prune_plan is not None
        prune_boundary = decided.prune_boundary
        actions = decided.phase1_actions
        work = decided.work
        compress_start, compress_end, tail_cut = decided.compress_start, decided.compress_end, decided.tail_cut
        middle_empty = decided.outcome == NOTHING_TO_COMPRESS
        # The tail walk runs over the pruned list, so its running sum is drawn from that list.
        tail_walk = _suffix_sums(_numbers(prune_plan.result_weights(prune_boundary)))
        # A plan hands out the same pruned message objects on every apply, so each is counted once
        # per counting function (bound methods of one counter compare equal; the key keeps it alive).
        counted: dict[int, int] = derived(prune_plan, ("counted pruned forms", count), dict)
        for index in actions:
            pruned_form = work[index]
            tokens = counted.get(id(pruned_form))
            if tokens is None:
                tokens = counted[id(pruned_form)] = count(pruned_form)
            after_phase1[index] = min(tokens, shown_tokens[index])
        zones = _zone_list(n, compress_start, compress_end)

    protected_from = n if prune_boundary is None else min(max(prune_boundary, 0), n)
    phase1 = np.full(n, "", dtype=object)
    labels: dict[tuple[str, ...], str] = {}  # one label string per distinct list of actions
    for index, names in actions.items():
        key = tuple(names)
        label = labels.get(key)
        if label is None:
            label = labels[key] = ", ".join(names)
        phase1[index] = label
    protected = np.zeros(n, dtype=bool)
    protected[protected_from:] = True
    columns = {
        "index": np.arange(n, dtype=np.int64),
        "role": derived(prune_plan, "roles", lambda: np.array([_role(m) for m in messages], dtype=object)),
        "zone": np.array(zones, dtype=object),
        "tokens": shown_tokens,
        "after_phase1": after_phase1,
        "budget_tokens": budget_tokens,
        "prompt_so_far": cumulative,
        "tail_walk": tail_walk,
        "prune_protected": protected,
        "phase1": phase1,
    }
    breakdown = config.threshold_breakdown
    analysis = ZoneAnalysis(
        n_messages=n,
        context_length=config.context_length,
        threshold_tokens=threshold,
        threshold_floored=breakdown.floored and not config.what_if_no_floor,
        tail_token_budget=budget,
        soft_ceiling=soft_ceiling,
        estimator=config.token_estimator,
        prompt_tokens=prompt_tokens,
        would_compress=would_compress,
        trigger_tokens=trigger_tokens,
        first_trigger_index=first_trigger,
        small_conversation=small,
        min_messages=min_messages,
        head_size=head_size,
        compress_start=compress_start,
        compress_end=compress_end,
        middle_empty=middle_empty,
        prune_boundary=prune_boundary,
        phase1_actions=actions,
        tail_cut=tail_cut,
        zones=zones,
        plan=decided,
        table_columns=columns,
    )
    analysis.explanations = explain(analysis, config)
    return analysis


def _role(message: Any) -> str:
    role = message.get("role") if isinstance(message, dict) else None
    return role if isinstance(role, str) and role else "unknown"


def _numbers(values: Sequence[Any]) -> np.ndarray:
    """``values`` as an array of the dtype a DataFrame column of them gets (int64 for token counts)."""
    array = np.asarray(values)
    return array if array.size else np.zeros(0, dtype=np.int64)


def _suffix_sums(values: np.ndarray) -> np.ndarray:
    """Entry ``i`` is ``sum(values[i:])``."""
    if not len(values):
        return values.copy()
    return np.cumsum(values[::-1])[::-1].copy()


def _span(start: int, end: int) -> str:
    """``"messages 4–9"`` for the half-open range ``[start, end)``."""
    if end - start <= 0:
        return "no messages"
    if end - start == 1:
        return f"message {start}"
    return f"messages {start}–{end - 1}"


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def explain(analysis: ZoneAnalysis, config: CompressorConfig) -> list[str]:
    """Plain-language sentences saying why each boundary fell where it did."""
    a = analysis
    unit = "estimated tokens" if a.estimator == "hermes" else "tokens (tiktoken)"
    lines: list[str] = []

    breakdown = config.threshold_breakdown
    if config.what_if_no_floor:
        window = breakdown.window if config.threshold_rule.uses_output_reserve else a.context_length
        threshold_why = (f"the threshold is {config.threshold_percent:.0%} of {window:,} tokens = "
                         f"{a.threshold_tokens:,} (what-if: no floor)")
    else:
        threshold_why = config.threshold_rule.explain(
            breakdown, a.context_length, config.output_reserve, config.release.name, config.threshold_percent
        )
    sized = f"the conversation is {a.prompt_tokens:,} {unit}"
    if a.trigger_tokens is not None and a.trigger_tokens != a.prompt_tokens:
        sized = f"the whole request is {a.trigger_tokens:,} tokens (the messages alone {a.prompt_tokens:,} {unit})"
    if a.would_compress:
        first = (f" The messages alone first reached the threshold at message {a.first_trigger_index}."
                 if a.first_trigger_index is not None else "")
        trigger = f"Compression triggers: {sized} and {threshold_why}.{first}"
    else:
        trigger = (
            f"Compression would not trigger on its own: {sized} "
            f"and {threshold_why}. Running the compressor anyway behaves like Hermes' manual /compress."
        )
    lines.append(trigger)

    if a.small_conversation:
        lines.append(
            f"Only {_plural(a.n_messages, 'message')}: the compressor needs more than {a.min_messages} "
            f"(the head of {a.head_size}, a 3-message minimum tail and one message to summarise), "
            "so it returns the conversation unchanged without pruning anything."
        )
        return lines

    assert a.compress_start is not None and a.compress_end is not None and a.tail_cut is not None
    system = a.n_messages > 0 and _role(a.plan.messages[0]) == "system"
    first_n = 0 if a.plan.head_decayed else config.protect_first_n
    head_what = (
        f"the system prompt plus the first {first_n} messages"
        if system
        else f"the first {first_n} messages (there is no system prompt)"
    )
    if a.plan.head_decayed:
        lines.append(
            f"HEAD: {head_what} — {_span(0, a.head_size)}. {config.release.name} protects only the system prompt "
            f"once the compressor has compacted (protect_first_n = {config.protect_first_n} applies to the first "
            "compaction only)."
        )
    else:
        lines.append(f"HEAD: {head_what} (protect_first_n = {config.protect_first_n}) — {_span(0, a.head_size)}.")
    if a.compress_start > a.head_size:
        several = a.compress_start - a.head_size > 1
        lines.append(
            f"{_span(a.head_size, min(a.compress_start, a.n_messages)).capitalize()} "
            f"{'are tool results' if several else 'is a tool result'} answering a call in the head, so "
            f"{'they stay' if several else 'it stays'} in the head and the middle starts after "
            f"{'them' if several else 'it'} (forward alignment)."
        )

    lines.extend(_tail_sentences(a, unit))

    if a.middle_empty:
        lines.append(
            "The middle is empty, so there is nothing to summarise: the compressor returns the Phase-1 "
            "pruned conversation without calling the summarizer."
        )
    else:
        lines.append(
            f"MIDDLE: {_span(a.compress_start, a.compress_end)} ({_plural(a.middle_count, 'message')}) "
            "are replaced by one summary."
        )
        lines.append(f"TAIL: {_span(a.compress_end, a.n_messages)} ({_plural(a.tail_count, 'message')}) are kept verbatim.")

    if a.prune_boundary is not None:
        protected = a.n_messages - a.prune_boundary
        touched = len(a.phase1_actions)
        if a.prune_boundary <= 0:
            lines.append(
                f"Phase 1 protects every message (they fit in the tail budget of {a.tail_token_budget:,} {unit}, or "
                f"protect_last_n = {config.protect_last_n} covers them), so only the deduplication of identical long "
                f"tool outputs applies. {_plural(touched, 'message')} touched."
            )
            return lines
        lines.append(
            f"Phase 1 protects the last {_plural(protected, 'message')}: what fits in the tail budget of "
            f"{a.tail_token_budget:,} {unit} plus the message that overflowed it, and never fewer than "
            f"protect_last_n = {config.protect_last_n}. Old tool results and tool-call arguments before "
            f"message {a.prune_boundary} may be shortened; identical long tool outputs are deduplicated everywhere. "
            f"{_plural(touched, 'message')} touched."
        )
    return lines


def _tail_sentences(a: ZoneAnalysis, unit: str) -> list[str]:
    cut = a.tail_cut
    assert cut is not None and a.compress_start is not None
    n = a.n_messages
    lines = [
        f"Tail budget: {a.tail_token_budget:,} {unit} (summary_target_ratio × threshold); the walk back from the "
        f"end may take up to 1.5× that, {a.soft_ceiling:,}."
    ]
    if cut.budget_walk_cut <= a.compress_start:
        lines.append(
            f"Everything after the head fits in {a.soft_ceiling:,} {unit}, so the walk reached the head."
        )
    else:
        lines.append(
            f"Walking back from the end, {_span(cut.budget_walk_cut, n)} fit ({cut.accumulated_tokens:,} {unit}); "
            f"adding message {cut.budget_walk_cut - 1} would have passed {a.soft_ceiling:,}."
        )
    if "raw_rewalk" in cut.steps:
        assert cut.rewalk_cut is not None
        lines.append(
            f"Everything after the head fits in {a.soft_ceiling:,}, so the walk was repeated against the plain budget "
            f"of {a.tail_token_budget:,}: the tail starts at the message that passes it, message {cut.rewalk_cut}."
        )
    if "min_tail" in cut.steps:
        lines.append(
            f"The tail keeps at least {cut.min_tail} messages, so the cut moved to {cut.after_min_tail}."
        )
    if cut.forced_small:
        lines.append(
            "Nothing would be left to summarise, so the compressor forces a cut: the tail becomes the last "
            f"{_plural(cut.min_tail, 'message')} (cut at {cut.after_forced})."
        )
    if "aligned_backward" in cut.steps:
        lines.append(
            f"A cut at {cut.after_forced} would separate an assistant's tool calls from their results, so it moved "
            f"back to message {cut.after_align}: the whole call-and-results group stays in the tail."
        )
    if "last_user" in cut.steps:
        lines.append(
            f"The newest user message must stay in the tail, so the tail was stretched back to message "
            f"{cut.after_last_user}, whatever the budget."
        )
    if "turn_pair" in cut.steps:
        lines.append(
            f"The newest user message sits right at the head boundary, so it goes into the summary together with "
            f"its reply and that reply's tool results: the tail starts at message {cut.after_last_user}."
        )
    if "last_assistant" in cut.steps:
        lines.append(
            f"The last reply the user saw (message {cut.last_assistant_index}) must stay in the tail, so the tail "
            f"starts at message {cut.after_last_assistant}."
        )
    if "clamped_to_head" in cut.steps:
        lines.append(f"The cut cannot reach into the head, so it stays at message {max(cut.after_last_assistant, a.compress_start + 1)}.")
    if "aligned_forward" in cut.steps:
        lines.append(
            f"That cut would start the tail with tool results whose call is summarised, so it moved forward past "
            f"them to message {cut.cut}: the whole call-and-results group is summarised."
        )
    if not cut.steps and cut.budget_walk_cut > a.compress_start:
        lines.append(f"No adjustment was needed: the tail starts at message {cut.cut}.")
    return lines
