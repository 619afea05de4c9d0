"""The offline extractive summary beside Hermes v0.16.0's deterministic fallback, on the same turns.

For a conversation and a configuration, :func:`compare_summaries` takes the summary request the
compressor would make (its plan, :func:`core.plan.plan`), writes the extractive summary from it
(``ExtractiveSummarizer().summarize_request``, then the compressor's own post-processing: strip,
redact), and builds the deterministic fallback from the same turns with the same profile and
redaction (``core.rules.fallback_summary``, with the reason Hermes gives
when no summarizer is configured). Both are compared without their handoff prefix:

* size: characters and exact tokens;
* fact retention (``core.facts``): of the turns as the summarizer received them (after
  Phase 1 and redaction: what a summary *could* keep), and of the original messages of the same
  span (what the agent loses);
* the facts each one lost.

A third summary puts them at equal size: the extractive summary written again with a budget of
the fallback's own token count (``cl100k_base``, the extractive summarizer's unit), so retention is
compared on no more tokens than the fallback uses.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from core import profiles as P
from core.config import CompressorConfig
from core.facts import extract_facts, retention, retention_score
from core.plan import CompressionPlan, plan
from core.rules import fallback_summary, strip_summary_prefix
from core.summarizers.extractive import ExtractiveSummarizer, count_tokens
from core.summary_call import request_summary
from core.tokens import encoding_name_for_model, get_counter

__all__ = ["EXTRACTIVE", "EXTRACTIVE_SAME_SIZE", "FALLBACK", "SummaryComparison", "compare_summaries"]

EXTRACTIVE = "Offline extractive summary"
EXTRACTIVE_SAME_SIZE = "Offline summary at the fallback's size"
FALLBACK = "Hermes v0.16.0 fallback"
TABLE_COLUMNS = [
    "summary", "chars", "tokens", "facts", "kept", "retention", "original facts", "original kept",
    "original retention",
]


@dataclass
class SummaryComparison:
    """Both summary bodies for the same turns, and the facts they are scored against."""

    plan: CompressionPlan
    extractive: str
    fallback: str
    turn_facts: pd.DataFrame  # facts of the turns the summarizer received (pruned, redacted)
    span_facts: pd.DataFrame  # facts of the original messages of the same span
    extractive_tokens: int
    fallback_tokens: int
    # The extractive summary within the fallback's token count (None when that is too small for
    # the 13 headings).
    same_size: str | None = None
    same_size_tokens: int = 0

    @property
    def summaries(self) -> dict[str, str]:
        both = {EXTRACTIVE: self.extractive, FALLBACK: self.fallback}
        if self.same_size is not None:
            both = {EXTRACTIVE: self.extractive, EXTRACTIVE_SAME_SIZE: self.same_size, FALLBACK: self.fallback}
        return both

    def tokens(self, name: str) -> int:
        return {EXTRACTIVE: self.extractive_tokens, EXTRACTIVE_SAME_SIZE: self.same_size_tokens,
                FALLBACK: self.fallback_tokens}[name]

    def scored(self, name: str, *, original: bool = False) -> pd.DataFrame:
        """The facts with ``kept``: does each appear verbatim in summary ``name``?"""
        facts = self.span_facts if original else self.turn_facts
        return retention(facts, self.summaries[name])

    def lost(self, name: str, *, original: bool = False) -> pd.DataFrame:
        """The facts summary ``name`` did not keep (``kind``, ``value``, ``message_index``; the index is
        the message's position in the conversation)."""
        scored = self.scored(name, original=original)
        lost = scored[~scored["kept"]][["kind", "value", "message_index"]].reset_index(drop=True)
        lost["message_index"] = lost["message_index"] + (self.plan.turns_start or 0)
        return lost

    def table(self) -> pd.DataFrame:
        rows = []
        for name, body in self.summaries.items():
            tokens = self.tokens(name)
            turns, span = self.scored(name), self.scored(name, original=True)
            rows.append({
                "summary": name,
                "chars": len(body),
                "tokens": tokens,
                "facts": len(turns),
                "kept": int(turns["kept"].sum()),
                "retention": retention_score(turns),
                "original facts": len(span),
                "original kept": int(span["kept"].sum()),
                "original retention": retention_score(span),
            })
        return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def compare_summaries(
    messages: Sequence[Any],
    config: CompressorConfig,
    *,
    focus_topic: str | None = None,
    encoding: str | None = None,
    decided: CompressionPlan | None = None,
    written: str | None = None,
) -> SummaryComparison | None:
    """Both summaries of the turns a compression with ``config`` would summarise; None when it would
    summarise nothing (the conversation is too small or its middle is empty).

    Tokens are counted with ``encoding`` (the config's model's encoding by default). ``written``: the
    offline extractive summary of ``decided``'s request as the compressor stored it, when a compression
    with that plan wrote one already (it is then not written again).
    """
    messages = list(messages)
    if decided is None or (focus_topic and decided.focus_topic != focus_topic):
        decided = plan(messages, config, prune_plan=decided.prune_plan if decided else None, focus_topic=focus_topic)
        written = None
    if not decided.calls_summarizer or decided.reference_crash is not None:
        return None
    request = decided.summary_request()
    profile = decided.profile
    redact = decided.redaction.redact

    # What the compressor keeps of the answer (redacted; v0.19.0 also grounds the task line).
    if written is None:
        written = request_summary(decided, ExtractiveSummarizer(), may_fall_back=False).stored
    extractive = written or ""
    fallback = strip_summary_prefix(
        fallback_summary(
            decided.turns, P.NO_PROVIDER_ERROR, decided.previous_summary, profile, redact
        ),
        profile,
    )
    same_size = None
    fallback_size = count_tokens(fallback)
    try:
        same_size_response = ExtractiveSummarizer().summarize_request(
            dataclasses.replace(request, summary_budget=fallback_size, max_tokens=fallback_size)
        )
        same_size = decided.stored_summary(str(same_size_response or ""))
    except ValueError:  # a fallback smaller than the 13 headings leaves no equal-size summary
        pass
    counter = get_counter(encoding or encoding_name_for_model(config.model))
    turn_facts = extract_facts(request.turns)
    span = messages[decided.turns_start: decided.compress_end]
    span_facts = extract_facts([m for m in span if isinstance(m, dict)])
    return SummaryComparison(
        plan=decided,
        extractive=extractive,
        fallback=fallback,
        turn_facts=turn_facts,
        span_facts=span_facts,
        extractive_tokens=counter.count_text(extractive),
        fallback_tokens=counter.count_text(fallback),
        same_size=same_size,
        same_size_tokens=counter.count_text(same_size) if same_size is not None else 0,
    )
