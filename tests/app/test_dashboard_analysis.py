"""The pure analysis functions behind the dashboard, checked against core on every sample."""

from __future__ import annotations

import itertools

import pytest

from core import CompressorConfig, ContextCompressor
from core.formats import load
from core.inspections.overview import (
    CATEGORY_COLUMNS,
    message_frame,
    message_text,
    tokens_by_category,
    tokens_by_tool,
)
from core.phases.prune import prune_old_tool_results
from core.summarizers.extractive import ExtractiveSummarizer
from core.tokens import estimate_messages_tokens_rough, get_counter, make_estimator
from core.views.preview import changed_pairs, message_diff, preview_messages, side_by_side
from core.views.savings import before_after, phase1_steps, phase_savings
from core.views.zones import analyze_zones, cumulative_prompt_tokens
from dashboard.memo import Settings, content_digest, load_transcript, transcript_key
from tests.app.conftest import DATA, load_messages, sample_paths

SAMPLES = {path.name: load_messages(path) for path in sample_paths()}
GRID = [
    CompressorConfig(context_length=window, threshold_percent=share, protect_first_n=first, protect_last_n=last,
                     summary_target_ratio=ratio, token_estimator=estimator, model="gpt-4o")
    for window, share, first, last, ratio, estimator in [
        (128_000, 0.5, 3, 20, 0.2, "hermes"),
        (32_000, 0.3, 0, 0, 0.1, "hermes"),
        (200_000, 0.8, 6, 60, 0.6, "hermes"),
        (128_000, 0.5, 2, 5, 0.8, "tiktoken"),
        (1_000_000, 0.95, 10, 100, 0.35, "tiktoken"),
    ]
]
CASES = list(itertools.product(SAMPLES, range(len(GRID))))
COUNTER = get_counter("o200k_base")


@pytest.mark.parametrize(("sample", "grid"), CASES)
def test_zones_are_the_boundaries_compress_uses(sample, grid):
    messages, config = SAMPLES[sample], GRID[grid]
    zones = analyze_zones(messages, config)
    result = ContextCompressor(config).compress(messages)
    if result.outcome == "too_small":
        assert zones.small_conversation and set(zones.zones) == {"UNCHANGED"}
        return
    assert (zones.compress_start, zones.compress_end) == (result.plan.compress_start, result.plan.compress_end)
    assert zones.prune_boundary == result.plan.prune_boundary
    assert zones.phase1_actions == result.plan.phase1_actions
    assert zones.tail_cut == result.plan.tail_cut
    estimator = make_estimator(config.token_estimator, config.model, config.release.budget_weight)
    assert zones.prompt_tokens == estimator.messages_tokens(messages)
    assert zones.would_compress == ContextCompressor(config).should_compress(zones.prompt_tokens)


@pytest.mark.parametrize("sample", SAMPLES)
def test_cumulative_estimate_is_the_estimate_of_each_prefix(sample):
    messages = SAMPLES[sample]
    cumulative = cumulative_prompt_tokens(messages, CompressorConfig())
    for index in range(0, len(messages), max(1, len(messages) // 25)):
        assert cumulative[index] == estimate_messages_tokens_rough(messages[: index + 1])


@pytest.mark.parametrize(("sample", "grid"), CASES)
def test_phase_one_steps_rebuild_the_pruned_list(sample, grid):
    messages, config = SAMPLES[sample], GRID[grid]
    steps, boundary, actions = phase1_steps(messages, config)
    estimator = make_estimator(config.token_estimator, config.model, config.release.budget_weight)
    pruned = prune_old_tool_results(messages, config.protect_last_n, config.tail_token_budget,
                                    message_tokens=estimator.message_tokens)
    assert steps[-1][1] == pruned.messages
    assert boundary == pruned.prune_boundary and actions == pruned.actions
    # Each step changes exactly the messages it lists.
    previous = list(messages)
    for _, listing, touched in steps:
        changed = {i for i, (a, b) in enumerate(zip(previous, listing, strict=True)) if a != b}
        assert changed <= set(touched)
        previous = listing


@pytest.mark.parametrize("sample", SAMPLES)
def test_savings_end_at_the_compressed_conversation(sample):
    messages, config = SAMPLES[sample], GRID[0]
    result = ContextCompressor(config, summarizer=ExtractiveSummarizer()).compress(messages)
    savings = phase_savings(messages, config, COUNTER, result)
    assert savings.steps[0].exact_tokens == COUNTER.count_messages(messages)
    assert savings.steps[-1].exact_tokens == COUNTER.count_messages(result.messages)
    assert savings.steps[-1].hermes_tokens == estimate_messages_tokens_rough(result.messages)
    assert savings.reassembly_matches
    totals = [s.exact_tokens for s in savings.steps[:-1]]
    deltas = [s.exact_delta for s in savings.steps[1:-1]]
    assert [b - a for a, b in itertools.pairwise(totals)] == deltas
    table = before_after(messages, result.messages, COUNTER, "role")
    assert table["before"].sum() == savings.steps[0].exact_tokens
    assert table["after"].sum() == savings.steps[-1].exact_tokens


@pytest.mark.parametrize("sample", SAMPLES)
def test_categories_and_tools_add_up(sample):
    messages = SAMPLES[sample]
    frame = message_frame(messages, COUNTER)
    assert list(frame["tokens"]) == [COUNTER.count_message(m) for m in messages]
    assert (frame[list(CATEGORY_COLUMNS.values())].sum(axis=1) == frame["tokens"]).all()
    assert tokens_by_category(frame)["tokens"].sum() == frame["tokens"].sum()
    by_tool = tokens_by_tool(messages, COUNTER)
    tool_messages = frame[frame["role"] == "tool"]["tokens"].sum()
    assert by_tool["result_tokens"].sum() == tool_messages
    assert by_tool["call_tokens"].sum() == frame["tool_call_tokens"].sum()


@pytest.mark.parametrize("sample", SAMPLES)
def test_side_by_side_accounts_for_every_message(sample):
    messages = SAMPLES[sample]
    result = ContextCompressor(GRID[0], summarizer=ExtractiveSummarizer()).compress(messages)
    table = side_by_side(messages, result)
    assert sorted(int(i) for i in table["before #"].dropna()) == list(range(len(messages)))
    assert sorted(int(i) for i in table["after #"].dropna()) == list(range(len(result.messages)))
    items = preview_messages(result)
    assert [i.position for i in items] == list(range(len(result.messages)))
    for source, position in changed_pairs(messages, result):
        before, after = messages[source], result.messages[position]
        assert before != after
        same_text = message_text(before) == message_text(after)
        assert (message_diff(before, after) == "") == same_text


def test_transcript_is_parsed_once_and_keyed_by_content_and_name():
    data = (DATA / "xss_transcript.json").read_bytes()
    first = load_transcript(data, "a.json")
    again = load_transcript(bytes(data), "a.json")
    second = load_transcript(bytes(data), "b.json")
    assert first.key == again.key == transcript_key(content_digest(data), None, None, filename="a.json")
    assert second.key != first.key and second.key.split(":")[0] == first.key.split(":")[0]
    assert first.messages == load(data, filename="a.json").messages
    calls = []
    settings = Settings(protect_first_n=1)
    for _ in range(3):
        first.memo(("zones", settings), lambda: calls.append(1) or len(calls))
    assert calls == [1]
    table = first.message_table("cl100k_base")
    assert first.message_table("cl100k_base") is table
