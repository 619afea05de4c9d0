"""The figures of one compression run: what it produced, before against after.

:func:`run_composition` splits the conversation's exact tokens before and after the run by role
or by category, with the summary as its own segment (also when it was merged into a tail
message: its text's tokens move out of that message's share). :func:`run_figures` gathers the
headline numbers of the run (messages, exact tokens, the Hermes estimate, the summary, the
repairs). Both read the result's plan and assembly; nothing is re-derived.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from core.inspections.overview import (
    CATEGORIES,
    message_frame,
    text_category,
    tokens_by_category,
    tokens_by_role,
)
from core.tokens import TokenCounter

__all__ = ["SUMMARY_SEGMENT", "RunFigures", "run_composition", "run_figures"]

SUMMARY_SEGMENT = "summary"
BY_ROLE, BY_CATEGORY = "role", "category"


def _summary_share(result: Any, after_frame: pd.DataFrame, counter: TokenCounter) -> tuple[int, str | None, int]:
    """``(summary tokens, role of the message holding it, its output position)``; (0, None, -1) without one."""
    assembly = getattr(result, "assembly", None)
    if assembly is None:
        return 0, None, -1
    for position, origin in enumerate(assembly.origins):
        if origin.kind == "summary":
            return int(after_frame.at[position, "tokens"]), str(after_frame.at[position, "role"]), position
        if "merged" in origin.badges:
            own = counter.count_text(assembly.summary_text or "")
            return min(own, int(after_frame.at[position, "tokens"])), str(after_frame.at[position, "role"]), position
    return 0, None, -1


def run_composition(original_frame: pd.DataFrame, result: Any, counter: TokenCounter, by: str = BY_ROLE,
                    after_frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Exact tokens before and after one run, per role or per category, the summary on its own.

    Args:
        original_frame: ``message_frame`` of the input conversation.
        result: The ``CompressionResult``.
        counter: The counter the frames were made with.
        by: ``"role"`` or ``"category"``.
        after_frame: ``message_frame`` of ``result.messages`` (built when None).

    Returns ``<by>, before, after, change`` with one row per role (largest first) or per category
    (fixed order), then a ``summary`` row when the run wrote one; rows that are zero on both
    sides are left out.
    """
    if by not in (BY_ROLE, BY_CATEGORY):
        raise ValueError(f"by must be 'role' or 'category', not {by!r}")
    after_frame = after_frame if after_frame is not None else message_frame(result.messages, counter)
    summary_tokens, summary_role, position = _summary_share(result, after_frame, counter)
    if by == BY_ROLE:
        before = tokens_by_role(original_frame).set_index("role")["tokens"].to_dict()
        after = tokens_by_role(after_frame).set_index("role")["tokens"].to_dict()
        holder = summary_role
        order = sorted(set(before) | set(after), key=lambda key: (-int(before.get(key, 0)), str(key)))
    else:
        before = tokens_by_category(original_frame).set_index("category")["tokens"].to_dict()
        after = tokens_by_category(after_frame).set_index("category")["tokens"].to_dict()
        holder = text_category(summary_role) if summary_role is not None else None
        order = list(CATEGORIES)
    if holder is not None and summary_tokens:
        after[holder] = max(0, int(after.get(holder, 0)) - summary_tokens)
    rows = [
        {by: key, "before": int(before.get(key, 0)), "after": int(after.get(key, 0))}
        for key in order
        if before.get(key, 0) or after.get(key, 0)
    ]
    if summary_tokens:
        rows.append({by: SUMMARY_SEGMENT, "before": 0, "after": summary_tokens})
    table = pd.DataFrame(rows, columns=[by, "before", "after"])
    table["change"] = table["after"] - table["before"]
    return table.astype({"before": "int64", "after": "int64", "change": "int64"})


@dataclass(frozen=True)
class RunFigures:
    """The headline numbers of one run."""

    outcome: str
    messages_before: int
    messages_after: int
    exact_before: int
    exact_after: int
    estimate_before: int  # the Hermes estimate the compressor reports against (never 0 for a real conversation)
    estimate_after: int
    summary_tokens: int  # exact tokens of the summary segment, as run_composition shows it (0 without one)
    summarised_messages: int
    repairs: int  # orphan results removed + stubs added + tool calls stripped
    compressed: bool

    @property
    def saved_share(self) -> float:
        return (self.exact_before - self.exact_after) / self.exact_before if self.exact_before else 0.0

    @property
    def changed(self) -> bool:
        return self.messages_after != self.messages_before or self.exact_after != self.exact_before


def run_figures(result: Any, original_frame: pd.DataFrame, counter: TokenCounter,
                after_frame: pd.DataFrame | None = None) -> RunFigures:
    """Messages, exact tokens and the Hermes estimate before and after one run.

    The summary's tokens are its segment of :func:`run_composition` (the message that holds it, or
    its text's share of the tail message it was merged into), so the metric and the table agree.
    """
    plan = result.plan
    exact_before = int(original_frame["tokens"].sum())
    after_frame = after_frame if after_frame is not None else message_frame(result.messages, counter)
    exact_after = int(after_frame["tokens"].sum())
    # An early return reports 0 (too small) or the input's estimate: the estimate of what the run
    # actually returned is what a reader compares, so it is computed the compressor's way.
    estimate_before = int(plan.input_tokens)
    assembly = result.assembly
    if assembly is not None:
        estimate_after = int(assembly.tokens_after)
    else:
        estimate_after = int(plan.estimator.messages_tokens(result.messages))
    return RunFigures(
        outcome=str(result.outcome),
        messages_before=len(result.input_messages),
        messages_after=len(result.messages),
        exact_before=exact_before,
        exact_after=exact_after,
        estimate_before=estimate_before,
        estimate_after=estimate_after,
        summary_tokens=_summary_share(result, after_frame, counter)[0],
        summarised_messages=result.plan.dropped_count if assembly is not None else 0,
        repairs=assembly.orphans_removed + assembly.stubs_added + assembly.calls_stripped if assembly is not None else 0,
        compressed=bool(result.compressed),
    )
