"""What ``ContextCompressor.compress()`` would hand its summarizer, computed without any summary call.

:func:`pending_summary` runs the steps ``compress()`` takes before the summary call (Phase 1's
pruning, the HEAD / MIDDLE / TAIL boundaries, the rehydration of an earlier handoff summary) on a
fresh compressor, and :func:`summary_request` builds the exact :class:`SummaryRequest` (prompt,
``max_tokens``, redacted turns, serialised block) that the first summary call of that compressor
receives. The dashboard's redaction preview and the offline-summary comparison both start here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core import profiles as P
from core.analysis.phase1 import usable_plan
from core.compressor import CompressorConfig, ContextCompressor
from core.phases import boundaries, summary
from core.phases.prune import PrunePlan
from core.summarizers.base import SummaryRequest
from core.tokens import make_estimator

__all__ = ["PendingSummary", "pending_summary", "summary_request"]


@dataclass
class PendingSummary:
    """The turns a compression would summarise, and the figures of its summary call.

    ``outcome`` is ``"summary"`` when ``compress()`` would call the summarizer, otherwise the
    early return it would take (``"too_small"`` or ``"nothing_to_compress"``); the turns are then
    empty and no call is made.
    """

    config: CompressorConfig
    compressor: ContextCompressor
    outcome: str
    turns: list[Any]
    turns_start: int | None = None
    compress_start: int | None = None
    compress_end: int | None = None
    previous_summary: str | None = None
    content_tokens: int = 0
    summary_budget: int = 0
    max_tokens: int = 0

    @property
    def calls_summarizer(self) -> bool:
        return self.outcome == "summary"

    def redact(self, text: Any) -> Any:
        """The compressor's redaction (the profile's, then the strict layer when the config enables it)."""
        return self.compressor.redact(text)

    def redact_many(self, texts: list[str]) -> list[str]:
        return self.compressor.redact_many(texts)


def pending_summary(
    messages: Sequence[Any], config: CompressorConfig, *, plan: PrunePlan | None = None
) -> PendingSummary:
    """Phases 1-2 and the rehydration, exactly as ``compress()`` runs them on a fresh compressor.

    ``plan``: the Phase-1 plan of ``messages`` with the config's estimator
    (:func:`core.analysis.phase1.plan_for`), kept to make the next parameter change cheap.
    """
    messages = list(messages)
    compressor = ContextCompressor(config, summarizer=None)
    profile = compressor.profile
    estimator = make_estimator(config.token_estimator, config.model)
    n = len(messages)
    if n <= boundaries.protect_head_size(messages, config.protect_first_n) + P.MIN_TAIL_MESSAGES + 1:
        return PendingSummary(config, compressor, "too_small", [])

    pruned = usable_plan(plan, messages, config).apply(config.protect_last_n, compressor.tail_token_budget)
    work = pruned.messages
    head_size = boundaries.protect_head_size(work, config.protect_first_n)
    compress_start = boundaries.align_boundary_forward(work, head_size)
    compress_end = boundaries.find_tail_cut(
        work, compress_start, compressor.tail_token_budget, estimator.message_tokens
    ).cut
    if compress_start >= compress_end or compress_start >= n:
        return PendingSummary(config, compressor, "nothing_to_compress", [], compress_start=compress_start,
                              compress_end=compress_end)

    turns_start = compress_start
    previous: str | None = None
    existing = summary.find_existing_summary(work, compress_end, profile)
    if existing is not None:
        body = summary.strip_summary_prefix(summary.content_text(work[existing].get("content")), profile)
        previous = body or None
        turns_start = max(compress_start, existing + 1)
    turns = work[turns_start:compress_end]
    content_tokens = estimator.messages_tokens(turns)
    budget = summary.summary_budget(content_tokens, compressor.max_summary_tokens)
    return PendingSummary(
        config,
        compressor,
        "summary",
        turns,
        turns_start=turns_start,
        compress_start=compress_start,
        compress_end=compress_end,
        previous_summary=previous,
        content_tokens=content_tokens,
        summary_budget=budget,
        max_tokens=summary.max_tokens_for_budget(budget),
    )


def summary_request(
    pending: PendingSummary, focus_topic: str | None = None, serialized_turns: str | None = None
) -> SummaryRequest:
    """The request the first summary call receives (``serialized_turns`` may be passed when already built)."""
    if not pending.calls_summarizer:
        raise ValueError(f"this compression makes no summary call ({pending.outcome})")
    serialized = (
        serialized_turns
        if serialized_turns is not None
        else summary.serialize_for_summary(pending.turns, pending.redact, pending.redact_many)
    )
    prompt = summary.build_summary_prompt(
        serialized,
        profile=pending.compressor.profile,
        summary_budget_tokens=pending.summary_budget,
        previous_summary=pending.previous_summary,
        focus_topic=focus_topic,
    )
    return SummaryRequest(
        prompt=prompt,
        max_tokens=pending.max_tokens,
        turns=summary.redacted_turns(pending.turns, pending.redact),
        serialized_turns=serialized,
        previous_summary=pending.previous_summary or None,
        focus_topic=focus_topic or None,
        summary_budget=pending.summary_budget,
    )
