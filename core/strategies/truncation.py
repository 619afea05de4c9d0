"""Truncation: the protected head plus the most recent messages that fit the token budget.

The kept tail never starts with a tool result (leading results whose call was cut are dropped), so
every kept result keeps its call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core import rules
from core.strategies.base import BudgetFollower, OutputOrigin, StrategyRun, StrategySettings, role_of
from core.tokens import TokenCounter, get_counter

__all__ = ["TruncationStrategy", "truncation"]


def truncation(messages: Sequence[Any], budget_tokens: int, protect_first_n: int = 3,
               counter: TokenCounter | None = None) -> StrategyRun:
    """The protected head plus the most recent messages within ``budget_tokens`` (exact tokens)."""
    counter = counter or get_counter("cl100k_base")
    n = len(messages)
    head_end = min(rules.head_end(messages, protect_first_n), n)
    remaining = budget_tokens - sum(counter.count_message(m) for m in messages[:head_end])
    start = n
    for index in range(n - 1, head_end - 1, -1):
        tokens = counter.count_message(messages[index])
        if tokens > remaining:
            break
        remaining -= tokens
        start = index
    dropped_leading = 0
    while start < n and role_of(messages[start]) == "tool":
        start += 1
        dropped_leading += 1
    kept = list(range(head_end)) + list(range(start, n))
    notes = []
    if remaining < 0:
        notes.append("the protected head alone exceeds the budget")
    if dropped_leading:
        notes.append(f"{dropped_leading} tool result(s) at the cut dropped with their call")
    return StrategyRun(
        name="Truncation", family=TruncationStrategy.family, messages=[messages[i] for i in kept], kept=kept,
        altered=[], promises_pairs=True, notes=notes, origins=[OutputOrigin(i) for i in kept],
    )


@dataclass(frozen=True)
class TruncationStrategy(BudgetFollower):
    family: str = "truncation"
    label: str = "Truncation"
    description: str = "truncation to the most recent messages that fit the budget"
    keeps: str = "the most recent messages that fit the budget, word for word"
    gives_up: str = "everything older, with no summary: the task, early decisions and their facts are gone"
    summarises_whole_log: bool = False

    def run(self, messages: Sequence[Any], settings: StrategySettings) -> list[StrategyRun]:
        if settings.budget_tokens is None:
            raise ValueError("truncation needs a token budget")
        return [truncation(messages, settings.budget_tokens, settings.config.protect_first_n, settings.counter)]

