"""core.inspections.recorded_cost and the cache-aware compaction: the log's usage priced as ccusage does."""

from __future__ import annotations

import json
import math

import pytest

from core.inspections.cost import (
    cached_compaction_report,
    cached_cumulative_frame,
    compression_cost_report,
    token_prices,
)
from core.inspections.recorded_cost import recorded_cost, turn_usage
from core.models import model_table_path

CLAUDE, CODEX, GEMINI = "claude-sonnet-4-5-20250929", "gpt-5.1-codex", "gemini-2.5-pro"


@pytest.fixture(scope="module")
def table() -> dict:
    return json.loads(model_table_path().read_text(encoding="utf-8"))


def test_the_table_prices_with_cache_reads_and_writes(table):
    prices = token_prices(CLAUDE)
    entry = table[CLAUDE]
    assert (prices.input, prices.output) == (entry["input_cost_per_token"], entry["output_cost_per_token"])
    assert prices.cache_read == entry["cache_read_input_token_cost"] and prices.cache_read_listed
    assert prices.cache_write == entry["cache_creation_input_token_cost"] and prices.cache_write_listed
    # Anthropic: a cache read is a tenth of the input price, a write 1.25 times it.
    assert prices.cache_read == pytest.approx(prices.input / 10)
    assert prices.cache_write == pytest.approx(prices.input * 1.25)
    codex = token_prices(CODEX)
    assert not codex.cache_write_listed and codex.cache_write == codex.input  # a miss costs the input price
    assert token_prices("no-such-model-xyz") is None


def test_each_tools_usage_is_split_as_it_records_it():
    # Claude Code: the cache counted apart from input_tokens.
    claude = turn_usage({"input_tokens": 12, "cache_creation_input_tokens": 3_483, "cache_read_input_tokens": 53_400,
                         "output_tokens": 528}, 7)
    assert (claude.message_index, claude.input, claude.cache_read, claude.cache_write, claude.output) == (
        7, 12, 53_400, 3_483, 528)
    # Codex: cached_input_tokens inside input_tokens; reasoning inside output_tokens (total says so).
    codex = turn_usage({"input_tokens": 54_305, "cached_input_tokens": 53_120, "output_tokens": 1_235,
                        "reasoning_output_tokens": 768, "total_tokens": 55_540})
    assert (codex.input, codex.cache_read, codex.cache_write, codex.output) == (1_185, 53_120, 0, 1_235)
    # Gemini CLI: the thoughts are counted apart from the output (total says so) and billed as output.
    gemini = turn_usage({"input_tokens": 24_424, "cached_input_tokens": 22_268, "output_tokens": 330,
                         "reasoning_output_tokens": 705, "total_tokens": 25_459})
    assert (gemini.input, gemini.cache_read, gemini.output) == (2_156, 22_268, 1_035)
    # OpenAI chat usage.
    chat = turn_usage({"prompt_tokens": 900, "completion_tokens": 40, "prompt_tokens_details": {"cached_tokens": 512}})
    assert (chat.input, chat.cache_read, chat.output) == (388, 512, 40)
    assert turn_usage(None) is None and turn_usage({"input_tokens": 0, "output_tokens": 0}) is None
    assert turn_usage({"service_tier": "standard"}) is None


def test_a_logs_cost_is_the_sum_of_its_turns_at_each_kinds_price(table):
    usage = [None,
             {"input_tokens": 10, "cache_creation_input_tokens": 20_000, "cache_read_input_tokens": 0,
              "output_tokens": 300},
             None,
             {"input_tokens": 6, "cache_creation_input_tokens": 226, "cache_read_input_tokens": 25_848,
              "output_tokens": 304}]
    costs = recorded_cost(usage, CLAUDE)
    entry = table[CLAUDE]
    assert [turn.message_index for turn in costs.turns] == [1, 3]
    assert costs.tokens() == {"input": 16, "cache_read": 25_848, "cache_write": 20_226, "output": 604}
    expected = (16 * entry["input_cost_per_token"] + 25_848 * entry["cache_read_input_token_cost"]
                + 20_226 * entry["cache_creation_input_token_cost"] + 604 * entry["output_cost_per_token"])
    sums = costs.costs()
    assert sums["total"] == pytest.approx(expected, rel=1e-12)
    assert sums["cache_read"] == pytest.approx(25_848 * entry["cache_read_input_token_cost"], rel=1e-12)
    frame = costs.frame()
    assert frame["message"].tolist() == [1, 3]
    assert frame["cost_usd"].sum() == pytest.approx(expected, rel=1e-12)
    assert frame["total_usd"].iloc[-1] == pytest.approx(expected, rel=1e-12)
    # Without caching the same tokens would cost more: the reads are the cheap part.
    assert expected < (16 + 25_848 + 20_226) * entry["input_cost_per_token"] + 604 * entry["output_cost_per_token"]


def test_an_unpriced_model_gives_tokens_but_no_cost():
    costs = recorded_cost([{"input_tokens": 5, "output_tokens": 7}], "no-such-model-xyz")
    assert not costs.priced and costs.costs() is None
    assert costs.tokens()["output"] == 7
    assert costs.frame()["cost_usd"].isna().all()


def test_with_caching_the_next_request_rewrites_the_prefix(table):
    entry = table[CLAUDE]
    read, write = entry["cache_read_input_token_cost"], entry["cache_creation_input_token_cost"]
    cached = cached_compaction_report(CLAUDE, 150_000, 30_000, summary_call_cost=0.40)
    assert cached["request_before"] == pytest.approx(150_000 * read)
    assert cached["first_request_after"] == pytest.approx(30_000 * write)
    assert cached["later_request_after"] == pytest.approx(30_000 * read)
    assert cached["cache_rewrite_cost"] == pytest.approx(30_000 * (write - read))
    saving = 120_000 * read
    assert cached["savings_per_request"] == pytest.approx(saving)
    turns = cached["break_even_turns"]
    assert turns == math.ceil((0.40 + 30_000 * (write - read)) / saving)
    # The cumulative lines cross there: not before, and from then on the compaction is cheaper.
    frame = cached_cumulative_frame(cached, turns + 3)
    row = frame.set_index("turn")
    assert row.loc[turns, "with_compression"] <= row.loc[turns, "without_compression"] + 1e-12
    assert row.loc[turns - 1, "with_compression"] > row.loc[turns - 1, "without_compression"]
    assert row.loc[0, "with_compression"] == pytest.approx(0.40)
    # At list prices (no cache) it pays back far sooner: caching makes each request cheap already.
    listed = compression_cost_report(CLAUDE, 150_000, 30_000, 0, 0)
    assert math.ceil(0.40 / listed["savings_per_request"]) < turns


def test_without_cache_prices_the_cached_report_is_the_list_price_one(table):
    # gpt-4o lists a cache-read price but no cache-write price: the first request after is a miss.
    cached = cached_compaction_report("gpt-4o", 100_000, 20_000, summary_call_cost=0.1)
    entry = table["gpt-4o"]
    assert cached["first_request_after"] == pytest.approx(20_000 * entry["input_cost_per_token"])
    assert cached["later_request_after"] == pytest.approx(20_000 * entry["cache_read_input_token_cost"])
    free = cached_compaction_report("ollama/llama3", 100_000, 20_000, summary_call_cost=0.0)
    assert free["savings_per_request"] == 0 and free["break_even_turns"] is None
    unknown = cached_compaction_report("no-such-model-xyz", 100_000, 20_000, summary_call_cost=None)
    assert unknown["request_before"] is None and cached_cumulative_frame(unknown, 5).empty
    with pytest.raises(ValueError, match="tokens_after"):
        cached_compaction_report(CLAUDE, 10, -1, 0.0)
