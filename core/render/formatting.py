"""One way to write numbers, money and column names on every page and in the HTML report.

Counts always carry thousands separators (``5,881``); a change is signed only when it is not
zero (``+1,204``, ``-380``, ``0``); money follows one rule (three significant figures, never fewer
than two decimals: ``$12.35``, ``$0.0147``, ``$0.000312``); column names are words, not code names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

__all__ = [
    "HUMAN_COLUMNS",
    "human_column",
    "integer",
    "join_words",
    "percent",
    "plural",
    "signed",
    "usd",
]

# Code names that read badly once their underscores become spaces; every other column is only
# de-underscored ("messages_after" -> "messages after").
HUMAN_COLUMNS: dict[str, str] = {
    "index": "#",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
    "pre_tokens": "tokens before",
    "tokens_before": "tokens before",
    "tokens_after": "tokens after",
    "with_compression": "with compression",
    "without_compression": "without compression",
    "cost_usd": "cost",
    "exact_tokens": "tokens (tiktoken)",
    "exact_change": "change",
    "hermes_tokens": "Hermes estimate",
    "hermes_change": "change (Hermes estimate)",
    "messages_touched": "messages",
    "budget_tokens": "tokens (estimator)",
    "prompt_so_far": "prompt so far",
    "call_tokens": "call tokens",
    "result_tokens": "result tokens",
    "message_index": "message",
    "savings_pct": "saved",
    "threshold_percent": "threshold share",
    "summary_target_ratio": "summary target ratio",
    "threshold_tokens": "threshold",
    "triggers": "reaches it",
    "summary_layout": "summary message",
    "repairs": "tool-pair repair",
    "focus": "focus of the summary",
    "tail_token_budget": "tail budget",
    "compress_start": "middle from",
    "compress_end": "tail from",
    "protect_first_n": "protect first N",
    "summary_budget": "summary budget",
    "messages_after": "messages after",
    "final_tokens": "final tokens",
    "phase1": "Phase 1",
    "openai_errors": "OpenAI errors",
    "openai_warnings": "OpenAI warnings",
    "anthropic_errors": "Anthropic errors",
    "anthropic_warnings": "Anthropic warnings",
    "valid_openai": "OpenAI OK",
    "valid_anthropic": "Anthropic OK",
}


def human_column(name: str) -> str:
    """The header a table shows for a column: its known name, else the code name in words."""
    if name in HUMAN_COLUMNS:
        return HUMAN_COLUMNS[name]
    return re.sub(r"\s+", " ", name.replace("_", " ")).strip()


def integer(value: float | int | None) -> str:
    """``5,881``; "—" for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{round(value):,}"


def whole_when_whole(values: Iterable[float | int]) -> list[float | int]:
    """Each value as an ``int`` when it is a whole number (a cooldown of ``60.0`` s reads ``60``),
    as it is otherwise (``7.5``)."""
    return [int(value) if float(value).is_integer() else value for value in values]


def signed(value: float | int | None) -> str:
    """A change: ``+1,204``, ``-380``, and ``0`` (never ``+0``); "—" for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    rounded = round(value)
    if rounded == 0:
        return "0"
    return f"{rounded:+,}"


def percent(share: float | None, *, digits: int = 0) -> str:
    """``0.437`` -> ``44%`` (``digits`` decimals); "—" for a missing value."""
    if share is None or (isinstance(share, float) and math.isnan(share)):
        return "—"
    return f"{share * 100:,.{digits}f}%"


def usd(value: float | None) -> str:
    """Money, one rule everywhere: three significant figures, never fewer than two decimals.

    ``12.3456`` -> ``$12.35``, ``0.014712`` -> ``$0.0147``, ``0.00031234`` -> ``$0.000312``,
    ``0`` -> ``$0.00``, ``-0.5`` -> ``-$0.500``; "—" when the price is unknown.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    magnitude = abs(value)
    if magnitude == 0:
        decimals = 2
    else:
        decimals = max(2, 2 - math.floor(math.log10(magnitude)))
        # Rounding may carry into the next digit (0.009996 -> 0.0100): one decimal fewer then.
        if round(magnitude, decimals) >= 10 ** (math.floor(math.log10(magnitude)) + 1):
            decimals = max(2, decimals - 1)
    text = f"${magnitude:,.{decimals}f}"
    return ("-" + text) if value < 0 else text


def plural(number: int, word: str, words: str | None = None) -> str:
    """``1 message``, ``2 messages`` (with thousands separators)."""
    return f"{integer(number)} {word if number == 1 else (words or word + 's')}"




def join_words(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [item for item in items if item]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
