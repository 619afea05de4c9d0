"""Timeline replay: the conversation as the agent lived it, with compression firing on the way.

Messages are appended in order. Before every assistant message (the moment the agent sends a
request to its model) the prompt is sized from the current context, with the configured estimator
(the Hermes rough estimate by default). When ``should_compress`` fires, one ``ContextCompressor``,
carried through the whole replay, compresses the context with ``current_tokens`` set to that size,
and the replay continues from the compressed context. So iterative summaries
(``previous_summary``), the anti-thrashing counter and the failure cooldown all behave as they
would in a live session.

Given the whole request (``request``: a :class:`~core.inspections.request.RequestBreakdown` of the
log, in the estimator's unit), the size is the whole request, as the agent's host computes it: the
messages plus the system prompt, tool schemas, injected context and unrecorded overhead the log
implies. Where the log recorded the prompt size of that request (``use_recorded``), the trigger
reads the recorded size instead, as Hermes' loop reads ``last_prompt_tokens``; Hermes itself reads
it after the response, so the replay can fire one call earlier than Hermes would.

The recorded sizes are the real agent's, whose context Hermes never compressed: they hold only
until the first simulated compaction. From then on every prompt is the simulated conversation's own
size, its messages plus the overhead beyond the messages (system prompt, tool schemas, what the log
does not hold) as it stood at that first compaction, carried on. Where the estimator is not the
model's own tokenizer, the messages are scaled by the log's factor (recorded growth over counted
growth, ``RequestBreakdown.factor``), so the carried overhead does not keep the tokenizer's share
of the messages a compaction removed. A compaction's ``tokens_after`` is
that size right after it, and its ``savings_pct`` is ``(tokens_before - tokens_after) / tokens_before``
of the same row.

Assumptions, stated so the figures can be read correctly:

* without ``request`` the prompt is the messages only (a system prompt counts when the log has
  one as its first message);
* one check per assistant turn (the host's preflight may run up to three passes; after a pass
  that leaves the prompt over the threshold the next turn compresses again, which shows up as
  thrashing in the replay);
* outcomes ``aborted`` (abort_on_summary_failure) and ``too_small`` keep the context unchanged,
  as the host does; ``nothing_to_compress`` continues from the Phase-1 list the compressor returns;
* a compression the compressor carried out that would leave the prompt no smaller (a middle smaller
  than the handoff prefix and template, or holding only the earlier summary) is no compaction: its
  outcome is ``not_smaller``, its ``why`` says which, and the context is kept as it was (the
  compressor's state is what Hermes made of the call: its count, summary and anti-thrashing
  verdict), so every compaction the replay counts ends below where it started;
* time is simulated: the clock that drives the summary-failure cooldowns advances
  ``seconds_per_turn`` at every assistant turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from core import profiles as P
from core.compressor import CompressionResult, ContextCompressor
from core.config import CompressorConfig
from core.inspections.request import RequestBreakdown, recorded_prompts, weigher_for
from core.profiles import get_profile
from core.rules import strip_summary_prefix
from core.summarizers.factory import DEFAULT_SUMMARIZER, resolve_summarizer
from core.tokens import get_counter, message_rough_chars, rough_tokens

__all__ = [
    "CompactionRecord",
    "Replay",
    "logged_prompt_tokens",
    "real_compactions",
    "replay",
    "replay_document",
    "summary_evolution",
]


POINT_COLUMNS = ["turn", "message_index", "prompt_before", "prompt_after", "compacted", "outcome",
                 "context_messages", "estimate", "recorded", "sized_by"]
RECORDED, ESTIMATED = "recorded", "estimate"
COMPRESSED_OUTCOMES = ("summarized", "fallback")
# A compression the compressor carried out that would have left the prompt no smaller: not a compaction.
NOT_SMALLER = "not_smaller"



@dataclass
class CompactionRecord:
    """One ``compress()`` call during the replay (any outcome)."""

    number: int  # 1-based, in the order of the calls
    turn: int  # the assistant turn (0-based) about to be generated
    message_index: int  # that assistant message's index in the uploaded conversation
    tokens_before: int
    tokens_after: int
    savings_pct: float  # (tokens_before - tokens_after) / tokens_before, in percent
    messages_before: int
    messages_after: int
    outcome: str
    summary_text: str | None  # the handoff text inserted (prefix included), None when none was
    previous_summary: str | None  # the compressor's summary body after this call
    fallback_used: bool
    failure_reason: str | None
    compacted_indices: list[int]  # indices (in the upload) of the original messages folded in this call
    tail_tokens: int | None  # the protected tail alone, with the configured estimator
    ineffective_strikes: int  # the anti-thrashing counter after this call
    cooldown_s: float = 0.0  # the summary-failure cooldown this call left (0: none)
    compressor_savings_pct: float = 0.0  # as the compressor computed it on the messages (drives anti-thrashing)
    messages_summarised: int = 0  # context messages folded into the summary (an earlier summary included)
    messages: list[Any] = field(repr=False, default_factory=list)  # the context after this call
    why: str | None = None  # why a ``not_smaller`` call made no compaction

    @property
    def compressed(self) -> bool:
        return self.outcome in COMPRESSED_OUTCOMES


@dataclass
class Replay:
    """What the replay produced."""

    points: pd.DataFrame  # one row per assistant turn (POINT_COLUMNS)
    compactions: list[CompactionRecord]
    warnings: list[str]
    threshold_tokens: int
    context_length: int
    estimator: str
    final_messages: list[Any]
    final_origins: list[int | None]  # per final message: its index in the upload, None if generated
    n_messages: int
    profile: str = P.DEFAULT_PROFILE  # the release that compressed (it reads its own summaries)
    request: RequestBreakdown | None = None  # the log's whole request, when the replay sized it

    @property
    def sized_by_recorded(self) -> int:
        """Turns whose trigger read a recorded prompt size."""
        return int((self.points["sized_by"] == RECORDED).sum()) if len(self.points) else 0

    @property
    def compressed(self) -> list[CompactionRecord]:
        return [record for record in self.compactions if record.compressed]

    @property
    def summaries(self) -> list[str]:
        """The handoff texts in the order they were inserted."""
        return [record.summary_text for record in self.compactions if record.compressed and record.summary_text]

    @property
    def peak_prompt(self) -> int:
        return int(self.points["prompt_before"].max()) if len(self.points) else 0


class _SimulatedClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Running:
    """The current context's estimate, updated per appended message (no re-scan per turn)."""

    def __init__(self, estimator: str, model: str) -> None:
        self.exact = estimator == "tiktoken"
        self.counter = get_counter(_encoding(model)) if self.exact else None
        self.chars = 0
        self.images = 0
        self.tokens = 0

    def add(self, message: Any) -> None:
        if self.counter is not None:
            self.tokens += self.counter.count_message(message)
        else:
            chars, images = message_rough_chars(message)
            self.chars += chars
            self.images += images

    def reset(self, messages: Sequence[Any]) -> None:
        self.chars = self.images = self.tokens = 0
        for message in messages:
            self.add(message)

    def value(self) -> int:
        if self.counter is not None:
            return self.tokens
        return rough_tokens(self.chars, self.images)


def _encoding(model: str) -> str:
    from core.tokens import encoding_name_for_model

    return encoding_name_for_model(model)


def _estimate(messages: Sequence[Any], estimator: str, model: str) -> int:
    running = _Running(estimator, model)
    running.reset(messages)
    return running.value()


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _last_user(messages: Sequence[Any]) -> int:
    """The index of the last user message of ``messages`` (-1 when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if _role(messages[index]) == "user":
            return index
    return -1


def _map_origins(result: CompressionResult, previous: list[int | None]) -> list[int | None]:
    if result.outcome in COMPRESSED_OUTCOMES:
        return [previous[o.source_index] if o.kind in ("head", "tail") and o.source_index is not None else None
                for o in result.assembly.origins]
    return list(previous)


def _not_smaller_reason(result: CompressionResult, summarised: int, before: int, after: int) -> str:
    """Why a compression the compressor carried out left the prompt no smaller (``after`` is what it
    would have been)."""
    plan = result.plan
    would = f"the prompt would have gone from {before:,} to {after:,} tokens"
    if not plan.turns:
        return f"nothing new to summarise, the middle held only the earlier summary ({would})"
    room = plan.summary_room
    summary = result.assembly.summary_text if result.assembly is not None else None
    if room is not None and summary is not None:
        placed = room.weigh(strip_summary_prefix(summary, plan.profile))
        if placed > room.replaced:
            if result.assembly.fallback_used:
                failed = ("the summarizer was still cooling down after a failure" if result.cooldown_skipped
                          else f"the summary failed ({result.failure_reason or 'no summary text'})")
                what = f"{failed}, and the fallback summary"
            else:
                what = "the summary"
            return (f"{what} (~{placed:,} tokens with its prefix) outweighs the {summarised} message(s) it "
                    f"replaces (~{room.replaced:,} tokens; {would})")
    return f"what the compression adds (summary, repairs) outweighs what it removes ({would})"


def replay(
    messages: Sequence[Any],
    config: CompressorConfig | None = None,
    summarizer: Callable[[str, int], Any] | Any = DEFAULT_SUMMARIZER,
    *,
    seconds_per_turn: float = 30.0,
    focus_topic: str | None = None,
    request: RequestBreakdown | None = None,
    use_recorded: bool = True,
) -> Replay:
    """Replay ``messages`` turn by turn with one compressor (see the module docstring).

    Args:
        messages: The uploaded conversation (OpenAI-chat dicts); never modified.
        config: The compressor parameters (defaults: ``CompressorConfig()``).
        summarizer: The summary writer; the extractive one by default, ``None`` for "no provider"
            (the profile's fallback path), or any ``fn(prompt, max_tokens) -> str``.
        seconds_per_turn: Simulated time between assistant turns (drives the failure cooldowns).
        focus_topic: Passed to every compression.
        request: The log's whole request (``request_breakdown(conversation, weigher_for(config))``):
            the prompt is sized as the whole request, not the messages alone.
        use_recorded: With ``request``, let the trigger read the recorded prompt sizes where the log
            has them.
    """
    config = config or CompressorConfig()
    if request is not None:
        if request.unit != weigher_for(config).unit:
            raise ValueError(f"the request is counted in {request.unit!r}, the estimator decides in "
                             f"{weigher_for(config).unit!r}")
        if request.n_messages != len(messages):
            raise ValueError(f"the request describes {request.n_messages} messages, the replay got {len(messages)}")
    summarizer = resolve_summarizer(summarizer)
    clock = _SimulatedClock()
    compressor = ContextCompressor(config, summarizer=summarizer, clock=clock)
    estimator, model = config.token_estimator, config.model
    threshold = compressor.threshold_tokens

    context: list[Any] = []
    origins: list[int | None] = []
    running = _Running(estimator, model)
    points: list[tuple[Any, ...]] = []
    records: list[CompactionRecord] = []
    warnings: list[str] = []
    turn = 0
    over_window_warned = False
    anti_thrash_warned = False
    tail_warned = False
    skipped_turns: list[int] = []
    cooling_turns: list[int] = []  # v0.18.0: over the threshold, but the summarizer is cooling down

    # Reasoning the agent resends with its assistant messages (Codex), for those of the context's
    # current user turn (the Responses API drops the earlier turns').
    resent = request.reasoning_by_message if request is not None else []
    context_reasoning = 0
    # The overhead beyond the messages, fixed at the first simulated compaction (None before it).
    carried: int | None = None
    factor = request.factor if request is not None else 1.0

    def simulated() -> int:
        return round(factor * (running.value() + context_reasoning))

    def sized(index: int) -> tuple[int, int, int | None, str]:
        """``(trigger size, whole-request estimate, recorded size, which one the trigger read)`` of the
        request before ``index``."""
        replay_context = running.value() + context_reasoning
        turn = request.turn(index) if request is not None else None
        recorded = turn.recorded.prompt_tokens if turn is not None and turn.recorded is not None else None
        if carried is not None:
            return simulated() + carried, simulated() + carried, recorded, ESTIMATED
        if turn is None:
            return replay_context, replay_context, None, ESTIMATED
        estimate = replay_context + turn.outside_messages + request.unrecorded_overhead
        if recorded is None or not use_recorded:
            return estimate, estimate, recorded, ESTIMATED
        return recorded, estimate, recorded, RECORDED

    def current_reasoning() -> int:
        since = [o for o in origins[_last_user(context) + 1:] if o is not None]
        return sum(resent[o] for o in since) if resent else 0

    for index, message in enumerate(messages):
        if _role(message) == "assistant":
            clock.now += seconds_per_turn
            before, estimate, recorded, sized_by = sized(index)
            after = before
            outcome = ""
            if before > compressor.context_length and not over_window_warned:
                over_window_warned = True
                warnings.append(
                    f"At message {index} the prompt (~{before:,} tokens) exceeds the model's window "
                    f"({compressor.context_length:,}): the real agent would have hit a context-overflow error there."
                )
            if compressor.should_compress(before):
                result = compressor.compress(list(context), current_tokens=before, focus_topic=focus_topic,
                                             on_crash="report")
                outcome = result.outcome
                compacted: list[int] = []
                summarised = 0
                tail_tokens: int | None = None
                if result.outcome in COMPRESSED_OUTCOMES and result.plan.compress_start is not None:
                    middle = origins[result.plan.compress_start:result.plan.compress_end]
                    compacted, summarised = [o for o in middle if o is not None], len(middle)
                    if result.plan.pruned_messages is not None and result.plan.compress_end is not None:
                        tail_tokens = _estimate(result.plan.pruned_messages[result.plan.compress_end:], estimator, model)
                kept = (context, origins, context_reasoning, carried)
                if result.outcome not in ("aborted", "too_small", "crashed"):
                    if carried is None and result.compressed:
                        carried = max(0, before - simulated())
                    origins = _map_origins(result, origins)
                    context = list(result.messages)
                    running.reset(context)
                    context_reasoning = current_reasoning()
                after = sized(index)[0]
                no_compaction: str | None = None  # why a call that would not shrink the prompt counts as none
                if result.compressed and after >= before:
                    # The compressor ran, but the prompt would be no smaller: that is no compaction. The
                    # context stays as it was (the compressor's own state, as Hermes left it, is kept).
                    no_compaction = _not_smaller_reason(result, summarised, before, after)
                    outcome, compacted, summarised = NOT_SMALLER, [], 0
                    context, origins, context_reasoning, carried = kept
                    running.reset(context)
                    after = before
                assembly = result.assembly  # None when nothing was assembled (nothing to compress, aborted)
                counted = outcome in COMPRESSED_OUTCOMES
                records.append(
                    CompactionRecord(
                        number=len(records) + 1,
                        turn=turn,
                        message_index=index,
                        tokens_before=before,
                        tokens_after=after,
                        savings_pct=(before - after) / before * 100 if before else 0.0,
                        messages_before=len(result.input_messages),
                        messages_after=len(context),
                        outcome=outcome,
                        summary_text=assembly.summary_text if assembly and counted else None,
                        previous_summary=compressor.previous_summary,
                        fallback_used=assembly.fallback_used if assembly and counted else False,
                        failure_reason=result.failure_reason,
                        compacted_indices=compacted,
                        tail_tokens=tail_tokens,
                        ineffective_strikes=compressor.ineffective_strikes,
                        cooldown_s=compressor.cooldown_remaining(),
                        compressor_savings_pct=float(assembly.savings_pct) if assembly else 0.0,
                        messages_summarised=summarised,
                        messages=list(context),
                        why=no_compaction,
                    )
                )
                if no_compaction is not None:
                    warnings.append(f"compress() #{len(records)} at message {index} made no compaction: "
                                    f"{no_compaction}. The context was kept as it was.")
                if tail_tokens is not None and tail_tokens >= threshold and not tail_warned:
                    tail_warned = True
                    warnings.append(
                        f"Compaction #{len(records)} at message {index}: the protected tail alone is ~{tail_tokens:,} "
                        f"tokens, at or above the threshold ({threshold:,}); every compaction leaves the prompt over "
                        "the threshold, so the next turn compresses again."
                    )
                if assembly is not None and assembly.fallback_used and counted:
                    if result.cooldown_skipped:
                        why = "the summarizer was still in its failure cooldown (no call was made)"
                    else:
                        why = f"the summary failed ({result.failure_reason or 'no summary text'})"
                    warnings.append(
                        f"Compaction #{len(records)} at message {index}: {why}; the fallback summary was inserted."
                    )
                if result.crash is not None:
                    warnings.append(f"Compaction #{len(records)} at message {index}: {result.crash.describe()}. "
                                    "The context was kept unchanged.")
                if result.outcome == "aborted":
                    why = {
                        "authentication": f"{result.plan.failure_rule.access_words}, on which this release always aborts",
                        "network": "a network or connection failure, on which this release always aborts",
                    }.get(result.abort_reason or "", "the summary failed and abort_on_summary_failure is on")
                    skipped = " (no call: still cooling down)" if result.cooldown_skipped else ""
                    warnings.append(
                        f"Compaction #{len(records)} at message {index} was aborted: {why}{skipped}. The context was "
                        "kept unchanged."
                    )
                if result.compressed:  # the host reports the committed boundary (v0.19.0 counts fallbacks)
                    compressor.record_completed_compaction(used_fallback=result.assembly.fallback_used)
            elif before >= threshold:
                skipped_turns.append(index)
                if compressor.blocked_reason() == "cooldown":
                    cooling_turns.append(index)
            # The response reports the prompt it was sent (v0.19.0 judges the last compaction by it).
            compressor.update_from_response({"prompt_tokens": after})
            block = compressor.blocked_reason()
            if block in ("ineffective", "fallback-streak") and not anti_thrash_warned:
                anti_thrash_warned = True
                why = (compressor.thrash_rule.reason if block == "ineffective"
                       else f"the last {P.FALLBACK_STREAK_LIMIT} compactions used the fallback summary")
                warnings.append(
                    f"Anti-thrashing engaged after compaction #{len(records)} at message {index}: {why}, so Hermes "
                    "stops compressing automatically (only /compress or /new gets it going again)."
                )
            points.append((turn, index, before, after, outcome in COMPRESSED_OUTCOMES, outcome, len(context),
                           estimate, recorded, sized_by))
            turn += 1
        context.append(message)
        origins.append(index)
        running.add(message)
        if _role(message) == "user":
            context_reasoning = 0
        elif resent:
            context_reasoning += resent[index]

    blocked = [index for index in skipped_turns if index not in set(cooling_turns)]
    if cooling_turns:
        warnings.append(
            f"{len(cooling_turns)} assistant turn(s) ran over the threshold without compressing because the "
            f"summarizer was cooling down after a failure ({compressor.profile.name} does not compress then), the "
            f"first at message {cooling_turns[0]}."
        )
    if blocked:
        warnings.append(
            f"{len(blocked)} assistant turn(s) ran over the threshold without compressing "
            f"(anti-thrashing), the first at message {blocked[0]}."
        )
    frame = pd.DataFrame(points, columns=POINT_COLUMNS).astype(
        {"turn": "int64", "message_index": "int64", "prompt_before": "int64", "prompt_after": "int64",
         "compacted": "bool", "outcome": "object", "context_messages": "int64", "estimate": "int64",
         "recorded": "Int64", "sized_by": "object"}
    )
    return Replay(
        points=frame,
        compactions=records,
        warnings=warnings,
        threshold_tokens=threshold,
        context_length=compressor.context_length,
        estimator=estimator,
        final_messages=context,
        final_origins=origins,
        n_messages=len(messages),
        profile=compressor.profile.name,
        request=request,
    )


def summary_evolution(result: Replay) -> pd.DataFrame:
    """The handoff summaries in order: ``compaction``, ``message_index``, ``outcome``, ``iterative``
    (it updated an earlier summary), ``chars`` (body) and ``body`` (the summary without its prefix)."""
    rows = []
    had_summary = False
    for record in result.compactions:
        if not record.compressed or not record.summary_text:
            continue
        body = strip_summary_prefix(record.summary_text, get_profile(result.profile))
        rows.append({"compaction": record.number, "message_index": record.message_index,
                     "outcome": record.outcome, "iterative": had_summary, "chars": len(body), "body": body})
        had_summary = True
    return pd.DataFrame(rows, columns=["compaction", "message_index", "outcome", "iterative", "chars", "body"])


def compactions_table(result: Replay) -> pd.DataFrame:
    """One row per ``compress()`` call: where, tokens before/after, savings, outcome (and why a call made
    no compaction)."""
    rows = [
        {"compaction": r.number, "message_index": r.message_index, "turn": r.turn, "tokens_before": r.tokens_before,
         "tokens_after": r.tokens_after, "savings_pct": round(r.savings_pct, 2), "messages_before": r.messages_before,
         "messages_after": r.messages_after, "outcome": r.outcome, "messages_summarised": r.messages_summarised,
         "tail_tokens": r.tail_tokens, "ineffective_strikes": r.ineffective_strikes, "cooldown_s": r.cooldown_s,
         "why": r.why}
        for r in result.compactions
    ]
    columns = ["compaction", "message_index", "turn", "tokens_before", "tokens_after", "savings_pct",
               "messages_before", "messages_after", "outcome", "messages_summarised", "tail_tokens",
               "ineffective_strikes", "cooldown_s", "why"]
    frame = pd.DataFrame(rows, columns=columns)
    # A call that compacted nothing has no tail: whole numbers still, not floats ("67,572.00").
    frame["tail_tokens"] = frame["tail_tokens"].astype("Int64")
    return frame


def replay_document(result: Replay) -> dict[str, Any]:
    """The replay as ``context-lens replay FILE --json`` prints it: the threshold, one entry per
    ``compress()`` call (what the Compactions table shows) and one per assistant turn (the curve)."""
    compactions = [
        {"message_index": r.message_index, "tokens_before": r.tokens_before, "tokens_after": r.tokens_after,
         "messages_summarised": r.messages_summarised, "savings_pct": round(r.savings_pct, 2), "outcome": r.outcome,
         "why": r.why}
        for r in result.compactions
    ]
    turns = [
        {"turn": int(row.turn), "message_index": int(row.message_index), "tokens_before": int(row.prompt_before),
         "tokens_after": int(row.prompt_after), "compacted": bool(row.compacted), "outcome": row.outcome or None,
         "recorded": None if pd.isna(row.recorded) else int(row.recorded), "sized_by": row.sized_by}
        for row in result.points.itertuples(index=False)
    ]
    return {"threshold_tokens": int(result.threshold_tokens), "context_length": int(result.context_length),
            "estimator": result.estimator, "profile": result.profile, "compactions": compactions, "turns": turns,
            "warnings": list(result.warnings)}


# ---------------------------------------------------------------------------------------------
# What the log itself recorded


def real_compactions(conversation: Any) -> pd.DataFrame:
    """The log's own compaction events (``conversation.compaction_events`` from ``core.formats``):
    ``position`` (first message after the compaction), ``kind``, ``pre_tokens``, ``summary_chars``, ``source``."""
    rows = []
    for event in getattr(conversation, "compaction_events", None) or []:
        summary = getattr(event, "summary", None)
        rows.append({"position": int(event.position), "kind": str(event.kind),
                     "pre_tokens": getattr(event, "pre_tokens", None),
                     "summary_chars": len(summary) if isinstance(summary, str) else 0,
                     "source": str(getattr(event, "source", "") or "")})
    frame = pd.DataFrame(rows, columns=["position", "kind", "pre_tokens", "summary_chars", "source"])
    return frame.astype({"pre_tokens": "Int64"}) if len(frame) else frame


def logged_prompt_tokens(conversation: Any) -> pd.DataFrame:
    """The prompt sizes the log recorded (``message_index``, ``prompt_tokens``), where it has them
    (``core.inspections.request.recorded_prompts``: prompt or input tokens, Anthropic's cache included)."""
    rows = [{"message_index": p.message_index, "prompt_tokens": p.prompt_tokens} for p in recorded_prompts(conversation)]
    return pd.DataFrame(rows, columns=["message_index", "prompt_tokens"])


# ---------------------------------------------------------------------------------------------
# The figure




