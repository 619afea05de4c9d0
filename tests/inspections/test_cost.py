"""core.inspections.cost: request and compaction costs from litellm's table prices."""

from __future__ import annotations

import json
import math

import pytest

from core.inspections.cost import (
    compression_cost_report,
    cost_report_frame,
    cumulative_cost_frame,
    price_frame,
    request_cost,
)
from core.models import model_table_path


@pytest.fixture(scope="module")
def table() -> dict:
    return json.loads(model_table_path().read_text(encoding="utf-8"))


def _prices(table: dict, model: str) -> tuple[float, float]:
    entry = table[model]
    return entry["input_cost_per_token"], entry["output_cost_per_token"]


def test_request_cost_uses_the_table_prices(table):
    input_price, output_price = _prices(table, "gpt-4o")
    assert request_cost("gpt-4o", 100_000) == pytest.approx(100_000 * input_price, rel=1e-12)
    assert request_cost("gpt-4o", 12_345, 678) == pytest.approx(12_345 * input_price + 678 * output_price, rel=1e-12)
    # The figure itself, so a unit slip (per 1K / per 1M) cannot pass: gpt-4o lists $2.50 per million input tokens.
    assert input_price == pytest.approx(2.5e-06)
    assert request_cost("gpt-4o", 1_000_000) == pytest.approx(2.5)


def test_request_cost_with_a_prefixed_model_name(table):
    input_price, output_price = _prices(table, "claude-sonnet-4-5")
    assert request_cost("anthropic/claude-sonnet-4-5", 2000, 300) == pytest.approx(
        2000 * input_price + 300 * output_price, rel=1e-12
    )


def test_unknown_model_costs_none_never_zero():
    assert request_cost("no-such-model-xyz", 1000, 10) is None


def test_free_model_costs_zero():
    assert request_cost("ollama/llama3", 50_000, 500) == 0.0


@pytest.mark.parametrize("bad", [-1, 1.5, "100", None, True])
def test_bad_token_counts_are_rejected(bad):
    with pytest.raises(ValueError, match="prompt_tokens must be a non-negative integer"):
        request_cost("gpt-4o", bad)


def test_compression_report_figures(table):
    input_price, output_price = _prices(table, "gpt-4o")
    report = compression_cost_report("gpt-4o", 120_000, 30_000, 80_000, 4_000)
    before = 120_000 * input_price
    after = 30_000 * input_price
    summary = 80_000 * input_price + 4_000 * output_price
    assert report["cost_per_request_before"] == pytest.approx(before, rel=1e-12)
    assert report["cost_per_request_after"] == pytest.approx(after, rel=1e-12)
    assert report["savings_per_request"] == pytest.approx(before - after, rel=1e-12)
    assert report["summary_call_cost"] == pytest.approx(summary, rel=1e-12)
    assert report["break_even_turns"] == math.ceil(summary / (before - after))
    # 0.24 USD for the summary call against 0.225 USD saved per request: it takes two requests.
    assert report["break_even_turns"] == 2
    assert report["tokens_saved"] == 90_000
    assert report["summary_model"] == "gpt-4o"
    assert report["context_window"] == table["gpt-4o"]["max_input_tokens"]
    assert report["note"] is None


def test_a_cheaper_summary_model_is_priced_separately(table):
    main_in, _ = _prices(table, "gpt-4o")
    mini_in, mini_out = _prices(table, "gpt-4o-mini")
    report = compression_cost_report("gpt-4o", 120_000, 30_000, 80_000, 4_000, summary_model="gpt-4o-mini")
    summary = 80_000 * mini_in + 4_000 * mini_out
    assert report["summary_call_cost"] == pytest.approx(summary, rel=1e-12)
    assert report["summary_input_cost_per_token"] == mini_in
    assert report["input_cost_per_token"] == main_in
    assert report["break_even_turns"] == math.ceil(summary / (90_000 * main_in)) == 1


def test_unknown_main_model_gives_none_fields_and_a_note():
    report = compression_cost_report("my-private-model", 120_000, 30_000, 80_000, 4_000)
    for key in ("cost_per_request_before", "cost_per_request_after", "savings_per_request", "summary_call_cost"):
        assert report[key] is None
    assert report["break_even_turns"] is None
    assert "no price for model 'my-private-model'" in report["note"]
    assert report["tokens_saved"] == 90_000  # token figures stay


def test_unknown_summary_model_keeps_the_main_figures(table):
    input_price, _ = _prices(table, "gpt-4o")
    report = compression_cost_report("gpt-4o", 100_000, 40_000, 70_000, 2_000, summary_model="openai/local-thing")
    assert report["savings_per_request"] == pytest.approx(60_000 * input_price, rel=1e-12)
    assert report["summary_call_cost"] is None
    assert report["break_even_turns"] is None
    assert "summary model 'openai/local-thing'" in report["note"]


def test_no_saving_means_no_break_even():
    report = compression_cost_report("gpt-4o", 30_000, 31_000, 20_000, 1_000)
    assert report["savings_per_request"] < 0
    assert report["break_even_turns"] is None
    assert "never pays for itself" in report["note"]


def test_free_model_breaks_even_at_once():
    report = compression_cost_report("ollama/llama3", 7_000, 3_000, 5_000, 500)
    assert report["summary_call_cost"] == 0.0
    assert report["break_even_turns"] == 0


def test_frames(table):
    input_price, output_price = _prices(table, "gpt-4o")
    report = compression_cost_report("gpt-4o", 120_000, 30_000, 80_000, 4_000)
    frame = cost_report_frame(report)
    assert list(frame["item"]) == ["request before compression", "request after compression", "summary call"]
    assert frame["cost_usd"].tolist() == pytest.approx(
        [120_000 * input_price, 30_000 * input_price, 80_000 * input_price + 4_000 * output_price]
    )
    curve = cumulative_cost_frame(report, turns=3)
    assert curve["turn"].tolist() == [0, 1, 2, 3]
    assert curve["without_compression"].iloc[3] == pytest.approx(3 * 120_000 * input_price)
    assert curve["with_compression"].iloc[0] == pytest.approx(report["summary_call_cost"])
    # The compressed line is dearer until the break-even turn and cheaper from then on.
    n = report["break_even_turns"]
    assert curve["with_compression"].iloc[n - 1] > curve["without_compression"].iloc[n - 1]
    assert curve["with_compression"].iloc[n] <= curve["without_compression"].iloc[n]


def test_cumulative_frame_is_empty_for_unknown_prices():
    report = compression_cost_report("my-private-model", 10, 5, 10, 1)
    assert cumulative_cost_frame(report, 5).empty


def test_price_frame(table):
    frame = price_frame(["gpt-4o", "nope-model"])
    assert frame.loc[0, "input_usd_per_mtok"] == pytest.approx(table["gpt-4o"]["input_cost_per_token"] * 1e6)
    assert frame.loc[0, "context_window"] == table["gpt-4o"]["max_input_tokens"]
    assert frame.loc[1, "input_usd_per_mtok"] is None or math.isnan(frame.loc[1, "input_usd_per_mtok"])
