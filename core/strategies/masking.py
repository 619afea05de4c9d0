"""Observation masking: every tool output but the last ``keep_last`` becomes a short placeholder.

Every message stays, so tool pairs stay valid; the strategy does not aim at the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.strategies.base import BudgetFollower, OutputOrigin, StrategyRun, StrategySettings, role_of

__all__ = ["DEFAULT_KEEP_LAST", "MASK_PLACEHOLDER", "MaskingStrategy", "observation_masking"]

MASK_PLACEHOLDER = "[Old tool output omitted to save context]"
DEFAULT_KEEP_LAST = 10


def observation_masking(messages: Sequence[Any], keep_last: int = DEFAULT_KEEP_LAST) -> StrategyRun:
    """Every tool output but the last ``keep_last`` becomes ``MASK_PLACEHOLDER`` (when that is shorter)."""
    tool_indices = [index for index, message in enumerate(messages) if role_of(message) == "tool"]
    masked_set = set(tool_indices[: max(len(tool_indices) - max(keep_last, 0), 0)])
    out: list[Any] = []
    kept: list[int] = []
    altered: list[int] = []
    origins: list[OutputOrigin] = []
    for index, message in enumerate(messages):
        if index in masked_set:
            content = message.get("content")
            text_length = len(content) if isinstance(content, str) else len(str(content))
            if text_length > len(MASK_PLACEHOLDER):
                out.append({**message, "content": MASK_PLACEHOLDER})
                altered.append(index)
                origins.append(OutputOrigin(index, ("MASKED",)))
                continue
        out.append(message)
        kept.append(index)
        origins.append(OutputOrigin(index))
    return StrategyRun(
        name=f"Observation masking (last {keep_last})", family=MaskingStrategy.family, messages=out, kept=kept,
        altered=altered, promises_pairs=True, notes=[f"{len(altered)} tool output(s) masked"], origins=origins,
    )


@dataclass(frozen=True)
class MaskingStrategy(BudgetFollower):
    family: str = "masking"
    label: str = "Observation masking"
    description: str = "masking of old tool outputs"
    keeps: str = "every message and tool pair, and the last N tool outputs in full"
    gives_up: str = "older tool outputs (a placeholder each); it does not aim at the budget, so it may not fit"
    summarises_whole_log: bool = False

    def run(self, messages: Sequence[Any], settings: StrategySettings) -> list[StrategyRun]:
        return [observation_masking(messages, settings.keep_last)]

