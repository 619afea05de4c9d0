"""What a compaction costs and what it saves, from the prices in litellm's model table.

Prices are USD per token (``core.models.model_prices``). A model the table does not know
gets ``None`` costs and an explanatory ``note``, never a cost of 0: 0 is reserved for models
the table lists as free (local Ollama models, for instance).

``compression_cost_report`` prices requests at list prices without prompt-cache discounts; every
further turn adds the same new tokens to the compressed and the uncompressed conversation, so the
saving per request stays constant and the break-even point is ``ceil(summary cost / saving)`` turns.

``cached_compaction_report`` prices the same compaction as an agent with prompt caching pays for it
(the table's ``cache_read_input_token_cost`` / ``cache_creation_input_token_cost``): without the
compaction every request reads the long prefix from the cache; after it, the first request writes
the whole new prefix to the cache (the old one no longer matches) and only the later ones read it.
A model the table lists without cache prices pays its input price for each, which gives the
list-price figures again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.models import context_window, model_entry, model_prices

if TYPE_CHECKING:
    import pandas as pd


def _token_count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer number of tokens, got {value!r}")
    return value


def request_cost(model: str, prompt_tokens: int, completion_tokens: int = 0) -> float | None:
    """USD for one request to ``model``; None when the table has no price for it."""
    prompt_tokens = _token_count(prompt_tokens, "prompt_tokens")
    completion_tokens = _token_count(completion_tokens, "completion_tokens")
    prices = model_prices(model)
    if prices is None:
        return None
    input_price, output_price = prices
    return prompt_tokens * input_price + completion_tokens * output_price


def compression_cost_report(
    model: str,
    tokens_before: int,
    tokens_after: int,
    summary_prompt_tokens: int,
    summary_output_tokens: int,
    summary_model: str | None = None,
) -> dict[str, Any]:
    """One compaction in money: a request before and after it, the summary call, and the break-even.

    ``summary_model`` is the model that wrote the summary (the main model when None).
    ``break_even_turns`` is how many further requests it takes for the per-request saving to
    repay the summary call (0 when the summary was free; None when nothing is saved or a
    price is unknown).
    """
    tokens_before = _token_count(tokens_before, "tokens_before")
    tokens_after = _token_count(tokens_after, "tokens_after")
    summary_prompt_tokens = _token_count(summary_prompt_tokens, "summary_prompt_tokens")
    summary_output_tokens = _token_count(summary_output_tokens, "summary_output_tokens")
    writer = summary_model or model

    main_prices = model_prices(model)
    writer_prices = model_prices(writer)
    notes: list[str] = []
    if main_prices is None:
        notes.append(f"no price for model '{model}' in litellm's model table")
    if writer_prices is None and writer != model:
        notes.append(f"no price for summary model '{writer}' in litellm's model table")

    cost_before = request_cost(model, tokens_before)
    cost_after = request_cost(model, tokens_after)
    savings = cost_before - cost_after if cost_before is not None and cost_after is not None else None
    summary_cost = request_cost(writer, summary_prompt_tokens, summary_output_tokens)

    break_even: int | None = None
    if savings is not None and summary_cost is not None:
        if savings > 0:
            break_even = math.ceil(summary_cost / savings)
        elif savings == 0 and summary_cost == 0:
            break_even = 0  # nothing cost anything (a free model): trivially paid for
        else:
            notes.append("the compressed request is not cheaper, so the summary call never pays for itself")

    return {
        "model": model,
        "summary_model": writer,
        "context_window": context_window(model),
        "input_cost_per_token": main_prices[0] if main_prices else None,
        "output_cost_per_token": main_prices[1] if main_prices else None,
        "summary_input_cost_per_token": writer_prices[0] if writer_prices else None,
        "summary_output_cost_per_token": writer_prices[1] if writer_prices else None,
        "tokens_before": tokens_before,
        "tokens_after": tokens_after,
        "tokens_saved": tokens_before - tokens_after,
        "cost_per_request_before": cost_before,
        "cost_per_request_after": cost_after,
        "savings_per_request": savings,
        "summary_prompt_tokens": summary_prompt_tokens,
        "summary_output_tokens": summary_output_tokens,
        "summary_call_cost": summary_cost,
        "break_even_turns": break_even,
        "note": "; ".join(notes) or None,
    }


def cost_report_frame(report: dict[str, Any]) -> pd.DataFrame:
    """The report as a three-row table: the request before, the request after, the summary call."""
    import pandas as pd

    rows = [
        ("request before compression", report["model"], report["tokens_before"], 0, report["cost_per_request_before"]),
        ("request after compression", report["model"], report["tokens_after"], 0, report["cost_per_request_after"]),
        (
            "summary call",
            report["summary_model"],
            report["summary_prompt_tokens"],
            report["summary_output_tokens"],
            report["summary_call_cost"],
        ),
    ]
    return pd.DataFrame(rows, columns=["item", "model", "input_tokens", "output_tokens", "cost_usd"])


def cumulative_cost_frame(report: dict[str, Any], turns: int) -> pd.DataFrame:
    """Input cost over the next ``turns`` requests, with and without this compaction.

    Row ``n`` is the total after ``n`` requests; the compressed line starts at the summary
    call's cost. Empty when a price is unknown.
    """
    import pandas as pd

    turns = _token_count(turns, "turns")
    columns = ["turn", "without_compression", "with_compression"]
    before, after, summary = (
        report["cost_per_request_before"],
        report["cost_per_request_after"],
        report["summary_call_cost"],
    )
    if before is None or after is None or summary is None:
        return pd.DataFrame(columns=columns)
    rows = [(n, n * before, summary + n * after) for n in range(turns + 1)]
    return pd.DataFrame(rows, columns=columns)


def price_frame(models: list[str]) -> pd.DataFrame:
    """Context window and USD per million tokens for each model (None where unknown)."""
    import pandas as pd

    rows = []
    for name in models:
        prices = model_prices(name)
        rows.append(
            {
                "model": name,
                "context_window": context_window(name),
                "input_usd_per_mtok": prices[0] * 1_000_000 if prices else None,
                "output_usd_per_mtok": prices[1] * 1_000_000 if prices else None,
            }
        )
    return pd.DataFrame(rows, columns=["model", "context_window", "input_usd_per_mtok", "output_usd_per_mtok"])


@dataclass(frozen=True)
class TokenPrices:
    """USD per token of one model, prompt-cache reads and writes apart."""

    input: float
    output: float
    cache_read: float  # the input price when the table lists none
    cache_write: float  # the input price when the table lists none (OpenAI, Gemini: a miss costs input)
    cache_read_listed: bool
    cache_write_listed: bool


def token_prices(model: str) -> TokenPrices | None:
    """The model's prices with its cache prices from litellm's table; None when input or output is unknown."""
    prices = model_prices(model)
    if prices is None:
        return None
    entry = model_entry(model) or {}
    read, write = entry.get("cache_read_input_token_cost"), entry.get("cache_creation_input_token_cost")
    read_listed = isinstance(read, int | float) and not isinstance(read, bool) and read >= 0
    write_listed = isinstance(write, int | float) and not isinstance(write, bool) and write >= 0
    return TokenPrices(prices[0], prices[1], float(read) if read_listed else prices[0],
                       float(write) if write_listed else prices[0], read_listed, write_listed)


def cached_compaction_report(model: str, tokens_before: int, tokens_after: int,
                             summary_call_cost: float | None) -> dict[str, Any]:
    """One compaction with prompt caching (see the module docstring); costs None when a price is unknown.

    ``first_request_after`` writes the new prefix to the cache, ``cache_rewrite_cost`` is what that
    costs beyond reading a warm cache, and ``break_even_turns`` is the number of further requests
    after which the summary call and the re-write are repaid (None: never, or unknown).
    """
    tokens_before = _token_count(tokens_before, "tokens_before")
    tokens_after = _token_count(tokens_after, "tokens_after")
    prices = token_prices(model)
    report: dict[str, Any] = {"model": model, "tokens_before": tokens_before, "tokens_after": tokens_after,
                              "prices": prices, "request_before": None, "first_request_after": None,
                              "later_request_after": None, "cache_rewrite_cost": None, "savings_per_request": None,
                              "summary_call_cost": summary_call_cost, "break_even_turns": None}
    if prices is None:
        return report
    before = tokens_before * prices.cache_read
    first, later = tokens_after * prices.cache_write, tokens_after * prices.cache_read
    saving = before - later
    report.update(request_before=before, first_request_after=first, later_request_after=later,
                  cache_rewrite_cost=first - later, savings_per_request=saving)
    if summary_call_cost is not None and saving > 0:
        report["break_even_turns"] = max(1, math.ceil((summary_call_cost + first - later) / saving))
    return report


def cached_cumulative_frame(report: dict[str, Any], turns: int) -> pd.DataFrame:
    """Input cost over the next ``turns`` requests with prompt caching, with and without the compaction
    (row ``n``: the total after ``n`` requests; the compressed line starts at the summary call's cost)."""
    import pandas as pd

    turns = _token_count(turns, "turns")
    columns = ["turn", "without_compression", "with_compression"]
    before, first, later = report["request_before"], report["first_request_after"], report["later_request_after"]
    summary = report["summary_call_cost"]
    if before is None or summary is None:
        return pd.DataFrame(columns=columns)
    rows = [(n, n * before, summary + (first + (n - 1) * later if n else 0.0)) for n in range(turns + 1)]
    return pd.DataFrame(rows, columns=columns)
