"""Parameter sweep: final tokens and savings across threshold_percent x summary_target_ratio.

Each grid cell is a compression plan (``core.plan.plan``) with that cell's parameters, assembled
(``core.assembly.assemble``) with a modelled summary: the trigger test, Phase 1, the zones, the
rehydration, the summary's role or merge, the system note and the tool-pair repair are the
compressor's own. Nothing is re-tokenized per cell: every message is measured once in its two
Phase-1 forms (deduplicated only, fully pruned), and the Phase-1 plan is shared by every cell.

**Assumption: the summary is exactly as long as its budget.** No summarizer is called; the
summary body is taken to be ``summary_budget`` tokens (``max(2000, min(20% of the summarised
turns, max_summary_tokens))``), the size the prompt asks for. With the ``hermes`` estimator the
body is modelled as ``4 x budget`` characters, so a cell equals a real compression whose summary
has exactly that length, handoff prefix, END marker, system note and repairs included. With
``tiktoken`` the body is ``budget`` one-token words. A real summary can be shorter or longer (the
prompt allows ``1.3 x budget``), so read the grid as the compressor's intended outcome.

Not modelled: anything after the first compression (see the timeline replay).

The trigger: by default a cell whose threshold the conversation does not reach is reported as
``not triggered`` (no compression, 0 % savings), as a live session would behave; pass
``respect_trigger=False`` to see what a forced ``/compress`` would do. The size tested is the
messages' estimate unless ``trigger_tokens`` gives the whole request (or the last recorded prompt),
which is what Hermes' host passes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from core import profiles as P
from core.assembly import Assembly, assemble
from core.config import CompressorConfig
from core.plan import (
    NOTHING_TO_COMPRESS,
    TOO_SMALL,
    CompressionPlan,
    estimator_key,
    plan,
    prepare,
    prune_plan_key,
)
from core.rules import PrunePlan, with_summary_prefix
from core.tokens import (
    encoding_name_for_model,
    get_counter,
    make_estimator,
    message_rough_chars,
    rough_tokens,
)

__all__ = [
    "DEFAULT_RATIOS",
    "DEFAULT_THRESHOLDS",
    "SweepBase",
    "prepare_sweep",
    "sweep",
    "sweep_cell",
    "uniform_cells",
]

DEFAULT_THRESHOLDS: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_RATIOS: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)

SWEEP_COLUMNS = [
    "protect_first_n", "threshold_percent", "summary_target_ratio", "threshold_tokens", "tail_token_budget",
    "triggered", "outcome", "prune_boundary", "compress_start", "compress_end", "tail_forced_small", "messages_after",
    "summary_budget", "tokens_before", "final_tokens", "savings_pct",
]

# Output messages that are not a plain copy of their Phase-1 form carry one of these badges.
_CHANGED_BADGES = frozenset({"system note", "merged", "image stripped", "tool calls stripped"})


@dataclass
class SweepBase:
    """Everything about one conversation the grid needs, measured once."""

    messages: list[Any]
    estimator: str
    model: str
    size_dedup: list[tuple[int, int]]  # (chars, images) for hermes, (tokens, 0) for tiktoken
    size_pruned: list[tuple[int, int]]
    tokens_before: int
    # One Phase-1 plan per budget weight (v0.18.0 weighs tool calls differently), shared by the cells.
    prune_plans: dict[Any, PrunePlan] = field(default_factory=dict, compare=False, repr=False)

    @property
    def n(self) -> int:
        return len(self.messages)

    def size(self, message: Any) -> tuple[int, int]:
        if self.estimator == "tiktoken":
            return get_counter(encoding_name_for_model(self.model)).count_message(message), 0
        return message_rough_chars(message)

    def modelled_body(self, budget: int) -> str:
        """A summary body of exactly ``budget`` tokens: 4 characters a token for the Hermes estimate,
        one-token words for tiktoken."""
        if self.estimator == "tiktoken":
            return "the" + " the" * (budget - 1)
        return "x" * (budget * P.CHARS_PER_TOKEN)

    def modelled_summary(self, decided: CompressionPlan, budget: int) -> str:
        """What the release stores of a ``budget``-token summary (:meth:`modelled_body`) for ``decided``.

        The release's output rule (redaction, v0.19.0's task line) is applied to a one-token body and
        the rest of the body appended: redacting a 50,000-character stand-in once per cell was most
        of the sweep's time, and the rule treats the stand-in's characters alike however many there are.
        """
        one = self.modelled_body(1)
        small = decided.stored_summary(one)
        if budget > 1 and small.endswith(one):
            return small + self.modelled_body(budget)[len(one):]
        return decided.stored_summary(self.modelled_body(budget))

    def total(self, chars: int, images: int) -> int:
        if self.estimator == "tiktoken":
            return chars
        return rough_tokens(chars, images)

    def prune_plan(self, config: CompressorConfig) -> PrunePlan:
        key = prune_plan_key(config)
        kept = self.prune_plans.get(key)
        if kept is None:
            kept = self.prune_plans[key] = prepare(self.messages, config)
        return kept

    def work_size(self, decided: CompressionPlan, index: int) -> tuple[int, int]:
        """The size of ``decided.work[index]`` (its pruned form before the prune boundary)."""
        boundary = decided.prune_boundary or 0
        return self.size_pruned[index] if index < boundary else self.size_dedup[index]

    def assembly_size(self, built: Assembly) -> tuple[int, int]:
        """``(chars, images)`` of an assembly's output, from the measured forms wherever a message is a copy."""
        chars = images = 0
        for message, origin in zip(built.messages, built.origins, strict=True):
            if origin.source_index is not None and not _CHANGED_BADGES.intersection(origin.badges):
                c, i = self.work_size(built.plan, origin.source_index)
            else:
                c, i = self.size(message)
            chars += c
            images += i
        return chars, images


def prepare_sweep(
    messages: Sequence[Any], estimator: str = "hermes", model: str = "", *, plan: PrunePlan | None = None
) -> SweepBase:
    """Measure ``messages`` once (the expensive part of a sweep; cache it per transcript).

    ``plan``: the conversation's Phase-1 plan with the same estimator (:func:`core.plan.prepare`),
    when one is kept already.
    """
    messages = list(messages)
    n = len(messages)
    if plan is None:
        plan = prepare(messages, CompressorConfig(token_estimator=estimator, model=model))
    elif plan.key[0] != estimator or not plan.built_from(messages) or (
        estimator == "tiktoken" and plan.key[:2] != estimator_key(estimator, model)
    ):
        raise ValueError("the Phase-1 plan was built from other messages or with another estimator")
    # Everything protected (boundary 0) leaves the deduplicated forms; nothing protected, the pruned ones.
    dedup_form = plan.apply(n, None, record_actions=False).messages
    pruned_form = plan.apply(0, None, record_actions=False).messages
    est = make_estimator(estimator, model)
    base = SweepBase(
        messages=messages, estimator=estimator, model=model, size_dedup=[], size_pruned=[],
        tokens_before=est.messages_tokens(messages) if n else 0, prune_plans={plan.key: plan},
    )
    base.size_dedup = [base.size(m) for m in dedup_form]
    base.size_pruned = [base.size(m) for m in pruned_form]
    return base


def _unchanged(base: SweepBase, config: CompressorConfig, outcome: str, triggered: bool) -> dict[str, Any]:
    return {
        "protect_first_n": config.protect_first_n, "threshold_percent": config.threshold_percent,
        "summary_target_ratio": config.summary_target_ratio, "threshold_tokens": config.threshold_tokens,
        "tail_token_budget": config.tail_token_budget, "triggered": triggered, "outcome": outcome,
        "prune_boundary": None, "compress_start": None, "compress_end": None, "tail_forced_small": False,
        "messages_after": base.n, "summary_budget": None, "tokens_before": base.tokens_before,
        "final_tokens": base.tokens_before, "savings_pct": 0.0,
    }


def sweep_cell(
    base: SweepBase, config: CompressorConfig, *, respect_trigger: bool = True, trigger_tokens: int | None = None
) -> dict[str, Any]:
    """One grid cell: the compressor's plan for ``config`` and the estimated result.

    ``trigger_tokens``: the prompt size the trigger test sees (the messages' estimate when None).
    """
    decided = plan(base.messages, config, prune_plan=base.prune_plan(config))
    sized = base.tokens_before if trigger_tokens is None else trigger_tokens
    triggered = sized >= config.threshold_tokens
    if decided.outcome == TOO_SMALL:
        return _unchanged(base, config, "too_small", triggered)
    if respect_trigger and not triggered:
        return _unchanged(base, config, "not triggered", triggered)
    row = _unchanged(base, config, NOTHING_TO_COMPRESS, triggered)
    tail = decided.tail_cut
    row.update({"prune_boundary": decided.prune_boundary, "compress_start": decided.compress_start,
                "compress_end": decided.compress_end, "tail_forced_small": bool(tail and tail.forced_small)})
    if decided.outcome == NOTHING_TO_COMPRESS:
        sizes = [base.work_size(decided, i) for i in range(base.n)]
        final = base.total(sum(c for c, _ in sizes), sum(i for _, i in sizes))
        row.update({"final_tokens": final, "savings_pct": _savings(base.tokens_before, final)})
        return row

    budget = decided.summary_budget
    stored = base.modelled_summary(decided, budget)
    built = assemble(decided, with_summary_prefix(stored, decided.profile))
    final = base.total(*base.assembly_size(built))
    row.update({"outcome": "summarized", "messages_after": len(built.messages), "summary_budget": budget,
                "final_tokens": final, "savings_pct": _savings(base.tokens_before, final)})
    return row


def _savings(before: int, after: int) -> float:
    return (before - after) / before * 100 if before > 0 else 0.0


def sweep(
    messages_or_base: Sequence[Any] | SweepBase,
    config: CompressorConfig | None = None,
    *,
    thresholds: Iterable[float] = DEFAULT_THRESHOLDS,
    ratios: Iterable[float] = DEFAULT_RATIOS,
    protect_first_ns: Iterable[int] | None = None,
    respect_trigger: bool = True,
    trigger_tokens: int | None = None,
) -> pd.DataFrame:
    """One row per (protect_first_n, threshold_percent, summary_target_ratio) cell (``SWEEP_COLUMNS``).

    The other parameters (context length, protect_last_n, profile, estimator, model) come from
    ``config``. ``trigger_tokens`` is the prompt size each cell's trigger test sees: the whole
    request as Hermes' host measures it (``RequestBreakdown.trigger_size``); the messages'
    estimate when None.
    """
    config = config or CompressorConfig()
    if isinstance(messages_or_base, SweepBase):
        base = messages_or_base
        if (base.estimator, base.model) != (config.token_estimator, config.model):
            raise ValueError("the prepared sweep was measured with another estimator or model than config")
    else:
        base = prepare_sweep(messages_or_base, config.token_estimator, config.model)
    firsts = list(protect_first_ns) if protect_first_ns is not None else [config.protect_first_n]
    rows = []
    for first in firsts:
        for threshold in thresholds:
            for ratio in ratios:
                cell = replace(
                    config, threshold_percent=float(threshold), protect_first_n=int(first),
                    summary_target_ratio=float(ratio), abort_on_summary_failure=False,
                )
                rows.append(sweep_cell(base, cell, respect_trigger=respect_trigger, trigger_tokens=trigger_tokens))
    return pd.DataFrame(rows, columns=SWEEP_COLUMNS)




def uniform_cells(table: pd.DataFrame, metric: str = "final_tokens", protect_first_n: int | None = None) -> str | None:
    """Why every cell of the grid (for one ``protect_first_n``) has the same ``metric``, in words; None
    when the cells differ. A heat map of a single value has no scale worth reading."""
    data = table if protect_first_n is None else table[table["protect_first_n"] == protect_first_n]
    if not len(data) or data[metric].nunique() > 1:
        return None
    first = data.iloc[0]
    outcomes = set(data["outcome"])
    result = f"{int(first['final_tokens']):,} tokens, {float(first['savings_pct']):.0f} % saved"
    head = f"All {len(data):,} cells give the same result ({result})"
    if outcomes == {"not triggered"}:
        return (f"{head}: the conversation's {int(first['tokens_before']):,} tokens never reach a threshold of "
                f"the grid (the lowest is {int(data['threshold_tokens'].min()):,}), so nothing compresses.")
    if outcomes == {TOO_SMALL}:
        return f"{head}: the conversation has too few messages for the compressor to run."
    if outcomes == {NOTHING_TO_COMPRESS}:
        return f"{head}: with these protected messages there is nothing between the head and the tail to summarise."
    return f"{head}; outcome: {', '.join(sorted(outcomes))}."


def best_cells(table: pd.DataFrame, top: int = 5) -> pd.DataFrame:
    """The cells that compress, smallest final size first."""
    compressed = table[table["outcome"] == "summarized"]
    return compressed.sort_values(["final_tokens", "threshold_percent", "summary_target_ratio"]).head(top)
