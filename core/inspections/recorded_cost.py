"""What the logged requests cost, turn by turn, from the usage the log recorded (as ccusage does).

Each usage entry is split the way the tool records it (``core.inspections.request.recorded_prompt``):
Claude Code counts ``input_tokens`` without the cache and ``cache_read_input_tokens`` /
``cache_creation_input_tokens`` apart; Codex and Gemini CLI count the cached tokens inside
``input_tokens`` (``cached_input_tokens``). Each part is priced at its own price from litellm's table
(``core.inspections.cost.token_prices``: cache reads at ``cache_read_input_token_cost``, writes at
``cache_creation_input_token_cost``, the input price where the table lists none), output at the output
price. Output is ``output_tokens`` (or ``completion_tokens``); Gemini's thoughts are counted apart
from its output, which its ``total_tokens`` shows, and are billed as output, so they are added there.

Every turn is priced with one model (the log's, or the one the caller names): a log that switches
models mid-session is priced at the first one's prices. The table's base prices are used: long-context
tiers (above 200K tokens) and batch or priority prices are not applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.inspections.cost import TokenPrices, token_prices
from core.inspections.request import recorded_prompt

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["KINDS", "RecordedCost", "TurnUsage", "recorded_cost", "turn_usage"]

#: The token kinds of one request, in the order they are shown.
KINDS = ("input", "cache_read", "cache_write", "output")


@dataclass(frozen=True, slots=True)
class TurnUsage:
    """The tokens of the request that produced the message at ``message_index``, by kind."""

    message_index: int
    input: int  # prompt tokens read neither from nor into the cache
    cache_read: int
    cache_write: int
    output: int

    def cost(self, prices: TokenPrices) -> dict[str, float]:
        return {"input": self.input * prices.input, "cache_read": self.cache_read * prices.cache_read,
                "cache_write": self.cache_write * prices.cache_write, "output": self.output * prices.output}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def turn_usage(usage: Any, message_index: int = 0) -> TurnUsage | None:
    """One usage entry split by kind; None when it records no tokens."""
    if not isinstance(usage, Mapping):
        return None
    prompt = recorded_prompt(usage, message_index)
    output = _count(usage.get("output_tokens")) or _count(usage.get("completion_tokens"))
    reasoning = _count(usage.get("reasoning_output_tokens"))
    total = _count(usage.get("total_tokens"))
    if prompt is not None and reasoning and total == prompt.prompt_tokens + output + reasoning:
        output += reasoning  # counted apart from the output (Gemini's thoughts), billed as output
    if prompt is None and not output:
        return None
    read = _count(prompt.cache_read) if prompt else 0
    write = _count(prompt.cache_write) if prompt else 0
    fresh = max(0, prompt.uncached) if prompt else 0
    if not (fresh or read or write or output):
        return None
    return TurnUsage(message_index, fresh, read, write, output)


@dataclass
class RecordedCost:
    """The priced turns of one log (``prices`` None: the model has no price in the table)."""

    model: str
    prices: TokenPrices | None
    turns: list[TurnUsage]

    @property
    def priced(self) -> bool:
        return self.prices is not None

    def tokens(self) -> dict[str, int]:
        """Tokens of each kind over every turn."""
        return {kind: sum(getattr(turn, kind) for turn in self.turns) for kind in KINDS}

    def costs(self) -> dict[str, float] | None:
        """USD of each kind over every turn, and ``total``; None when unpriced."""
        if self.prices is None:
            return None
        sums = dict.fromkeys(KINDS, 0.0)
        for turn in self.turns:
            for kind, value in turn.cost(self.prices).items():
                sums[kind] += value
        return {**sums, "total": sum(sums.values())}

    def frame(self) -> pd.DataFrame:
        """One row per turn: the message, its tokens by kind, its cost (None when unpriced) and the running total."""
        import pandas as pd

        rows = []
        running = 0.0
        for turn in self.turns:
            cost = sum(turn.cost(self.prices).values()) if self.prices is not None else None
            running += cost or 0.0
            rows.append({"message": turn.message_index, **{kind: getattr(turn, kind) for kind in KINDS},
                         "cost_usd": cost, "total_usd": running if cost is not None else None})
        columns = ["message", *KINDS, "cost_usd", "total_usd"]
        return pd.DataFrame(rows, columns=columns)


def recorded_cost(usage: Sequence[Any], model: str) -> RecordedCost:
    """The turns of a log's ``Conversation.usage`` (one entry per message, None where nothing was
    recorded), priced for ``model``."""
    turns = [turn for index, entry in enumerate(usage or []) if (turn := turn_usage(entry, index)) is not None]
    return RecordedCost(model=model, prices=token_prices(model) if model else None, turns=turns)
