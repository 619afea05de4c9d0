"""What every context-reduction strategy shares: its settings, its run and the registry.

A strategy is a small object (``family``, ``label``, ``description`` and ``run``) that reads the
messages and returns ``StrategyRun`` values; it never modifies the messages. Each strategy lives in
a file of its own and registers itself here, so the comparison, the page and the chart list them
from the registry and nothing names one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.config import CompressorConfig
from core.tokens import TokenCounter

__all__ = ["STRATEGIES", "BudgetFollower", "OutputOrigin", "Strategy", "StrategyRun", "StrategySettings", "register",
           "role_of"]


@dataclass(frozen=True)
class OutputOrigin:
    """Where one output message of a run came from, and what the strategy did to it."""

    source: int | None  # the original message's index; None: the strategy wrote it (a summary)
    badges: tuple[str, ...] = ()  # what was done to it, in the words the thread shows ("MASKED", "SUMMARY")


@dataclass
class StrategyRun:
    """One strategy's output and what it did to the original messages."""

    name: str
    family: str  # the registry key of the strategy that made it
    messages: list[Any]
    kept: list[int]  # original indices carried over unchanged
    altered: list[int] = field(default_factory=list)  # original indices carried over in a changed form
    promises_pairs: bool = True  # the strategy claims every tool call keeps its result
    summary_text: str | None = None
    notes: list[str] = field(default_factory=list)
    origins: list[OutputOrigin] = field(default_factory=list)  # one per output message (empty: not known)

    def badges(self, position: int) -> tuple[str, ...]:
        """What the thread shows beside output message ``position``: the original it came from
        ("FROM #12") and what the strategy did to it; nothing when its origin is not known."""
        if position >= len(self.origins):
            return ()
        origin = self.origins[position]
        return origin.badges if origin.source is None else (f"FROM #{origin.source}", *origin.badges)

    def compacted(self, n_original: int) -> list[int]:
        """Original indices this run dropped or altered: the part whose facts are at risk."""
        unchanged = set(self.kept)
        return [index for index in range(n_original) if index not in unchanged]


@dataclass(frozen=True)
class StrategySettings:
    """What a strategy may read besides the messages.

    ``budget_tokens`` is ``None`` until a strategy that sets the budget (Hermes with the chosen
    profile) has run, unless the caller gave one.
    """

    config: CompressorConfig
    summarizer: Any
    counter: TokenCounter
    budget_tokens: int | None = None
    keep_last: int = 10
    user_tokens: int = 20_000
    hermes_profiles: tuple[str, ...] | None = None  # the releases Hermes runs with; None: every one
    # Compressions already made of these messages with this config and summarizer, by profile (the
    # dashboard's shared offline compression): Hermes reads them instead of compressing again.
    hermes_results: Mapping[str, Any] = field(default_factory=dict)


class Strategy(Protocol):
    """A context-reduction strategy (see the module docstring)."""

    family: str
    label: str
    description: str
    keeps: str  # what the strategy keeps, in a phrase
    gives_up: str  # what it gives up for that, in a phrase
    # Its run summarises the whole log (the comparison's longest step on a long one): a first view
    # can show the other strategies before it (``core.views.strategies.compare_strategies``).
    summarises_whole_log: bool

    def run(self, messages: Sequence[Any], settings: StrategySettings) -> list[StrategyRun]:
        """The runs of this strategy on ``messages`` (one, or one per variant)."""
        ...

    def budget_run(self, runs: Sequence[StrategyRun], settings: StrategySettings) -> StrategyRun | None:
        """The run whose size is the budget of the strategies after it (``None``: this one sets none)."""
        ...


class BudgetFollower:
    """A strategy that sets no budget (it follows the one given or set before it)."""

    def budget_run(self, runs: Sequence[StrategyRun], settings: StrategySettings) -> StrategyRun | None:
        return None


#: Every strategy by family, in the order the comparison runs and lists them.
STRATEGIES: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    """Add ``strategy`` to ``STRATEGIES`` under its family."""
    if strategy.family in STRATEGIES:
        raise ValueError(f"a strategy of family {strategy.family!r} is already registered")
    STRATEGIES[strategy.family] = strategy
    return strategy


def role_of(message: Any) -> Any:
    """The message's ``role`` (``None`` for what is not a mapping)."""
    return message.get("role") if isinstance(message, Mapping) else None
