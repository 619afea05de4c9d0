"""Compress & preview, Cost tab: request costs before and after, the summary call, the break-even."""

from __future__ import annotations

import math

from core import ContextCompressor
from core.models import model_prices
from core.summarizers.extractive import ExtractiveSummarizer
from core.tokens import encoding_name_for_model, get_counter
from tests.app.chat_server import SUMMARY, chat_server, run_remote  # noqa: F401 - chat_server is a fixture
from tests.app.conftest import (
    SAMPLES,
    choose_sample,
    go,
    load_messages,
    metrics,
    pick_model,
    run,
    sidebar_config,
    table_with,
)

LONG_SAMPLE = SAMPLES / "long_coding_session.json"
SECRETS = SAMPLES / "secrets_in_tool_output.json"
# litellm's table lists gpt-4o at $2.50 / $10 and gpt-4o-mini at $0.15 / $0.60 per million tokens.
GPT_4O = (2.5e-06, 1e-05)
GPT_4O_MINI = (1.5e-07, 6e-07)


def usd(value: float) -> str:
    """The page's one money rule: cents from a dollar up, three significant figures below."""
    if value >= 1:
        return f"${value:,.2f}"
    if value == 0:
        return "$0.00"
    return f"${value:.{max(2, 2 - math.floor(math.log10(value)))}f}"


def compress_offline(at):
    go(at, "compress")
    at.button(key="run_compressor").click()
    return run(at)


def test_offline_run_with_a_priced_model(app):
    compress_offline(app)
    config = sidebar_config(app)
    assert config.model == "gpt-4o"
    input_price, output_price = model_prices("gpt-4o")
    assert (input_price, output_price) == GPT_4O
    messages = load_messages(LONG_SAMPLE)
    result = ContextCompressor(config, summarizer=ExtractiveSummarizer()).compress(messages)
    counter = get_counter("o200k_base")
    before, after = counter.count_messages(messages), counter.count_messages(result.messages)
    assert before > after

    shown = metrics(app)
    assert shown["Request before"] == usd(before * input_price)
    assert shown["Request after"] == usd(after * input_price)
    assert shown["Summary call"] == "$0.00"  # written on this machine
    assert shown["Pays for itself after"] == "0 turns"

    # What the same summary call would cost had gpt-4o written it.
    call = result.summarizer_call
    prompt_tokens, output_tokens = counter.count_text(call.prompt), counter.count_text(call.response)
    summary_cost = prompt_tokens * input_price + output_tokens * output_price
    turns = math.ceil(summary_cost / ((before - after) * input_price))
    captions = " ".join(c.value for c in app.caption)
    assert (f"({prompt_tokens:,} prompt + {output_tokens:,} output tokens) would cost {usd(summary_cost)}"
            in captions.replace("\\", ""))
    assert f"pay for itself after {turns:,} turns" in captions

    table = table_with(app, "item", "input_tokens", "cost_usd")
    assert table["input_tokens"].tolist() == [before, after, 0]
    assert abs(table["cost_usd"][0] - before * input_price) < 1e-12
    assert abs(table["cost_usd"][1] - after * input_price) < 1e-12
    assert table["cost_usd"][2] == 0
    assert any(m.value == "**Input cost over the next 20 requests**" for m in app.markdown)


def test_remote_summary_call_is_priced_for_the_model_that_wrote_it(app, chat_server):  # noqa: F811
    choose_sample(app, SECRETS.name)
    run_remote(app, chat_server, model="openai/gpt-4o-mini")
    assert app.success
    (body,) = chat_server.bodies
    prompt = body["messages"][0]["content"]
    config = sidebar_config(app)
    config.strict_redaction = True  # the default for a remote provider
    messages = load_messages(SECRETS)
    result = ContextCompressor(config, summarizer=lambda p, m: SUMMARY).compress(messages)
    assert result.summarizer_call.prompt == prompt

    main = get_counter(encoding_name_for_model("gpt-4o"))
    before, after = main.count_messages(messages), main.count_messages(result.messages)
    writer = get_counter(encoding_name_for_model("openai/gpt-4o-mini"))
    prompt_tokens, output_tokens = writer.count_text(prompt), writer.count_text(SUMMARY)
    assert model_prices("openai/gpt-4o-mini") == GPT_4O_MINI
    summary_cost = prompt_tokens * GPT_4O_MINI[0] + output_tokens * GPT_4O_MINI[1]
    saving = (before - after) * GPT_4O[0]
    shown = metrics(app)
    assert shown["Request before"] == usd(before * GPT_4O[0])
    assert shown["Request after"] == usd(after * GPT_4O[0])
    assert shown["Summary call"] == usd(summary_cost)
    turns = math.ceil(summary_cost / saving)
    assert shown["Pays for itself after"] == f"{turns:,} turn" + ("" if turns == 1 else "s")
    table = table_with(app, "item", "model", "output_tokens")
    assert table["model"].tolist() == ["gpt-4o", "gpt-4o", "openai/gpt-4o-mini"]
    assert table["input_tokens"].tolist() == [before, after, prompt_tokens]
    assert table["output_tokens"].tolist() == [0, 0, output_tokens]


def test_unknown_model_says_so_instead_of_showing_zeros(app):
    go(app, "compress")
    pick_model(app, "azure/container")
    run(app)
    assert model_prices("azure/container") is None
    compress_offline(app)
    notes = [i.value for i in app.info]
    assert any("No price known for azure/container" in note.replace("\\", "") for note in notes)
    assert "Request before" not in metrics(app)
    assert not any("$0.0" in m.value for m in app.metric)


def test_no_model_chosen_says_so(app):
    go(app, "compress")
    pick_model(app, "(custom context length)")
    run(app)
    compress_offline(app)
    notes = [i.value.replace("\\", "") for i in app.info]
    assert any("No price known for (no model chosen)" in note for note in notes)
    assert "Request before" not in metrics(app)


def test_a_summary_model_without_a_price_is_unknown_not_free(app, chat_server):  # noqa: F811
    choose_sample(app, SECRETS.name)
    run_remote(app, chat_server, model="openai/context-lens-unpriced")
    assert app.success and model_prices("openai/context-lens-unpriced") is None
    shown = metrics(app)
    assert shown["Summary call"] == "—"
    assert shown["Pays for itself after"] == "unknown"
    captions = " ".join(c.value.replace("\\", "") for c in app.caption)
    assert "No price for summary model 'openai/context-lens-unpriced' in litellm's model table" in captions
    assert not any(m.value.startswith("**Input cost over the next") for m in app.markdown)


def test_the_logs_recorded_requests_are_priced_with_their_cache_reads_and_writes(app):
    from core.formats import load
    from core.inspections.recorded_cost import recorded_cost
    from core.models import model_entry

    sample = SAMPLES / "claude_code_session.jsonl"
    conversation = load(sample)
    choose_sample(app, sample.name)
    compress_offline(app)
    entry = model_entry(conversation.model)
    assert entry is not None and entry["cache_read_input_token_cost"] < entry["input_cost_per_token"]
    tokens = recorded_cost(conversation.usage, conversation.model).tokens()
    assert tokens["cache_read"] > 0 and tokens["cache_write"] > 0
    parts = {
        "Input": tokens["input"] * entry["input_cost_per_token"],
        "Cache reads": tokens["cache_read"] * entry["cache_read_input_token_cost"],
        "Cache writes": tokens["cache_write"] * entry["cache_creation_input_token_cost"],
        "Output": tokens["output"] * entry["output_cost_per_token"],
    }
    shown = metrics(app)
    for label, value in parts.items():
        assert shown[label] == usd(value), label
    assert shown["Total"] == usd(sum(parts.values()))
    table = table_with(app, "cache_read", "cache_write", "running_total")
    logged = [index for index, usage in enumerate(conversation.usage) if usage]
    assert table["message"].tolist() == logged
    assert table["cache_read"].sum() == tokens["cache_read"]


def test_with_caching_the_compaction_rewrites_the_cache(app):
    compress_offline(app)
    config = sidebar_config(app)
    from core.models import model_entry

    entry = model_entry(config.model)
    messages = load_messages(LONG_SAMPLE)
    result = ContextCompressor(config, summarizer=ExtractiveSummarizer()).compress(messages)
    counter = get_counter(encoding_name_for_model(config.model))
    before, after = counter.count_messages(messages), counter.count_messages(result.messages)
    read = entry["cache_read_input_token_cost"]
    write = entry.get("cache_creation_input_token_cost", entry["input_cost_per_token"])
    shown = metrics(app)
    assert shown["Cached request before"] == usd(before * read)
    assert shown["Next request after"] == usd(after * write)
    assert shown["Later requests after"] == usd(after * read)
    # The summary was written on this machine: only the cache re-write has to be repaid.
    turns = math.ceil(after * (write - read) / ((before - after) * read))
    assert shown["With caching, pays for itself after"] == f"{turns:,} turn" + ("" if turns == 1 else "s")
