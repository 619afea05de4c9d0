"""The offline summarizer: read the turns, draft every section, fit the budget."""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from typing import Any

from core.summarizers.base import SummaryRequest
from core.summarizers.extractive import findings
from core.summarizers.extractive.draft import Draft, Focus, dedupe
from core.summarizers.extractive.fit import fit, skeleton_tokens
from core.summarizers.extractive.model import DEFAULT_HEADINGS, SECTION_KEYS, Fact, Item
from core.summarizers.extractive.previous import previous_sections
from core.summarizers.extractive.prompt import parse_prompt
from core.summarizers.extractive.reading import read_turns
from core.summarizers.extractive.sections import (
    actions,
    blocked,
    constraints,
    context,
    decisions,
    files,
    goal,
    in_progress,
    pending,
    remaining,
    resolved,
    state,
    task,
)
from core.summarizers.extractive.tokens import count_tokens
from core.unicode_text import replace_lone_surrogates

# Times the offline summary is written again, tighter, to fit the room of what it replaces.
_ROOM_ROUNDS = 8


def request_headings(request: SummaryRequest) -> tuple[str, ...]:
    """The request's 13 template headings (the v0.16.0 ones when it names none or a wrong count)."""
    headings = tuple(request.section_headings or ())
    if len(headings) != len(SECTION_KEYS) or not all(isinstance(h, str) and h.startswith("## ") for h in headings):
        return DEFAULT_HEADINGS
    return headings


def draft_items(
    turns: Sequence[Mapping[str, Any]],
    previous_summary: str | None,
    focus: Focus,
    limit: int,
    headings: Sequence[str],
) -> tuple[list[Item], list[Fact], dict[int, list[int]]]:
    """The candidate lines of every section, and the exact values (facts) of the turns."""
    reading = read_turns(turns)
    draft = Draft(reading, previous_sections(reading.embedded_summaries, previous_summary, headings), focus, limit,
                  dict(zip(SECTION_KEYS, headings, strict=True)))
    active = task.build(draft, skeleton_tokens(headings))
    goal.build(draft)
    constraints.build(draft)
    actions.build(draft)
    state.build(draft)
    in_progress.build(draft)
    blockers = blocked.build(draft)
    decisions.build(draft)
    replies = resolved.answers(reading)
    resolved.build(draft, replies)
    pending.build(draft, active, replies)
    files.build(draft)
    remaining.build(draft, bool(blockers))
    findings.build(draft)
    context.build(draft, turns)
    return dedupe(draft.items), draft.facts, draft.facts_by_turn


class ExtractiveSummarizer:
    """Offline summarizer: ``fn(prompt, max_tokens) -> str`` and ``summarize_request(request)``.

    The returned body carries the request's 13 template headings in order (``## Active Task`` first
    for v0.15.1/v0.16.0, ``## Historical Task Snapshot`` from v0.17.0); the compressor adds the
    handoff prefix.
    """

    # ``summarize_request`` works from the turns and never reads ``request.prompt`` nor
    # ``request.serialized_turns``: the compressor leaves them empty rather than build them.
    reads_prompt = False

    def __call__(self, prompt: str, max_tokens: int | None) -> str:
        return self.summarize_request(parse_prompt(prompt, max_tokens))

    def summarize_request(self, request: SummaryRequest) -> str:
        # The summary creates no reference cycles, but a long session's many small objects would
        # make the cyclic collector rescan every live object again and again: pause it meanwhile.
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._summarize(request)
        finally:
            if paused:
                gc.enable()

    def _summarize(self, request: SummaryRequest) -> str:
        turns = request.turns
        if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
            raise TypeError(f"request.turns must be a list of message dicts, got {type(turns).__name__}")
        # A turn that is not a dict (the compressor passes such a turn on as its text) is read as
        # text of unknown role rather than rejected.
        turns = [
            message if isinstance(message, Mapping) else {"role": "unknown", "content": str(message)}
            for message in turns
        ]
        budget = request.summary_budget if isinstance(request.summary_budget, int) and request.summary_budget > 0 else None
        if request.max_tokens is None and budget is not None:
            limit = budget  # no output cap (v0.19.0): the budget the prompt names is the limit
        elif not isinstance(request.max_tokens, int) or request.max_tokens <= 0:
            raise ValueError(f"request.max_tokens must be a positive integer, got {request.max_tokens!r}")
        else:
            limit = request.max_tokens if budget is None else min(request.max_tokens, budget)
        headings = request_headings(request)
        smallest = skeleton_tokens(headings) + task.MIN_ACTIVE_TASK_TOKENS
        if limit < smallest:
            raise ValueError(
                f"a budget of {limit} tokens cannot hold the 13-section template (it needs at least {smallest} tokens)"
            )
        room = request.room
        if room is None:
            return self._write(turns, request, limit, headings)
        # Never longer than what it replaces: the budget the release names has a 2,000-token floor,
        # which a small middle does not reach, so the summary as placed (prefix included) keeps within
        # the middle. When the prefix and the template alone outweigh the middle, no summary can make
        # the compaction smaller: the summary keeps the release's budget and its facts, and the
        # compressor's caller sees a compaction that did not shrink. The room is in the compressor's
        # estimate, the limit in cl100k tokens: start from the room, then measure the body as placed
        # and tighten.
        overhead = room.overhead
        target = room.replaced - overhead
        if target < smallest:
            return self._write(turns, request, limit, headings)
        limit = min(limit, target)
        summary = self._write(turns, request, limit, headings)
        rounds = 0
        while room.weigh(summary) - overhead > target and limit > smallest:
            rounds += 1
            over = room.weigh(summary) - overhead - target
            limit = smallest if rounds == _ROOM_ROUNDS else max(smallest, limit - max(over, limit // 10, 1))
            summary = self._write(turns, request, limit, headings)
        return summary

    @staticmethod
    def _write(turns: list[Mapping[str, Any]], request: SummaryRequest, limit: int, headings: tuple[str, ...]) -> str:
        items, facts, by_turn = draft_items(turns, request.previous_summary, Focus.of(request.focus_topic), limit,
                                            headings)
        # Arguments parsed out of a tool call may hold lone surrogates: no page or request can carry them.
        summary = replace_lone_surrogates(fit(items, limit, facts, headings, by_turn))
        if count_tokens(summary) > limit:  # only the task line is never dropped; it was sized to fit
            raise ValueError(f"a budget of {limit} tokens cannot hold this summary's task section")
        return summary
