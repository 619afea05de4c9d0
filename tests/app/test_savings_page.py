"""Phase savings: the totals the page shows are exact counts of what the compressor produces."""

from __future__ import annotations

import pytest

from core import ContextCompressor
from core.summarizers.extractive import ExtractiveSummarizer
from core.tokens import encoding_name_for_model, estimate_messages_tokens_rough, get_counter
from tests.app.conftest import (
    SAMPLES,
    choose_sample,
    go,
    load_messages,
    metrics,
    number,
    plain,
    run,
    sidebar_config,
    table_with,
)

LONG_SAMPLE = SAMPLES / "long_coding_session.json"


def expected(at, messages, summarizer=None):
    """Original, Phase-1 and final exact totals of ``compress()`` under the sidebar's parameters."""
    config = sidebar_config(at)
    result = ContextCompressor(config, summarizer=summarizer).compress(messages)
    counter = get_counter(encoding_name_for_model(config.model))
    original = counter.count_messages(messages)
    pruned = counter.count_messages(result.plan.pruned_messages) if result.plan.pruned_messages is not None else original
    return original, original - pruned, counter.count_messages(result.messages), result


def assert_savings_match(at, messages, summarizer):
    original, phase1_saved, final, result = expected(at, messages, summarizer)
    shown = metrics(at)
    assert number(shown["Original"]) == original
    assert number(shown["Saved by Phase 1"]) == phase1_saved
    assert number(shown["Final"]) == final
    steps = table_with(at, "step", "exact_tokens", "hermes_tokens")
    assert steps["exact_tokens"].iloc[0] == original
    assert steps["exact_tokens"].iloc[-1] == final
    assert steps["hermes_tokens"].iloc[-1] == estimate_messages_tokens_rough(result.messages)
    # Each step's change is the difference of consecutive totals, and they add up to the saving.
    changes = steps["exact_change"].iloc[1:-1]
    assert changes.sum() == final - original
    return result


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        (None, None, None),
        ("slider", "threshold_percent", 0.7),
        ("slider", "protect_first_n", 8),
        ("slider", "protect_last_n", 80),
        ("slider", "summary_target_ratio", 0.6),
        ("number_input", "context_length", 1_000_000),
        ("radio", "token_estimator", "tiktoken"),
        ("selectbox", "profile", "v0.15.1"),
    ],
    ids=lambda v: str(v),
)
def test_savings_follow_each_control(app, kind, key, value):
    messages = load_messages(LONG_SAMPLE)
    go(app, "savings")
    if kind is not None:
        getattr(app, kind)(key=key).set_value(value)
        run(app)
    result = assert_savings_match(app, messages, ExtractiveSummarizer())
    assert result.outcome == "summarized"
    assert any("offline extractive summary" in plain(c.value) for c in app.caption)


def test_steps_name_the_messages_phase_one_touched(app):
    messages = load_messages(LONG_SAMPLE)
    go(app, "savings")
    result = ContextCompressor(sidebar_config(app), summarizer=ExtractiveSummarizer()).compress(messages)
    touched = table_with(app, "index", "actions", "tokens_before", "tokens_after")
    assert set(touched["index"]) == set(result.plan.phase1_actions)
    for index, actions in zip(touched["index"], touched["actions"], strict=True):
        assert actions == ", ".join(result.plan.phase1_actions[int(index)])
    steps = table_with(app, "step", "messages_touched")
    by_step = dict(zip(steps["step"], steps["messages_touched"], strict=True))
    one_liners = sum("one-liner" in a for a in result.plan.phase1_actions.values())
    deduplicated = sum("deduplicated" in a for a in result.plan.phase1_actions.values())
    assert by_step["Old tool results → one-liners"] == one_liners
    assert by_step["Duplicate tool outputs"] == deduplicated
    assert by_step["Middle → summary"] == result.plan.compress_end - result.plan.compress_start


def test_the_last_compress_run_replaces_the_offline_summary(app):
    messages = load_messages(LONG_SAMPLE)
    go(app, "compress")
    app.radio(key="summarizer_choice").set_value("No summarizer (the profile's fallback)")
    run(app)
    app.button(key="run_compressor").click()
    run(app)
    go(app, "savings")
    result = assert_savings_match(app, messages, None)
    assert result.outcome == "fallback"
    assert any("your last run" in plain(c.value) for c in app.caption)
    assert any("fallback summary stands in" in plain(w.value) for w in app.warning)
    # Moving a slider makes that run stale: the page returns to the offline summary.
    app.slider(key="protect_first_n").set_value(5)
    run(app)
    assert_savings_match(app, messages, ExtractiveSummarizer())


def test_a_small_conversation_saves_nothing(app):
    choose_sample(app, "langchain_messages.json")
    app.slider(key="protect_first_n").set_value(20)
    run(app)
    go(app, "savings")
    messages = load_messages(SAMPLES / "langchain_messages.json")
    original, _, final, result = expected(app, messages, ExtractiveSummarizer())
    assert result.outcome == "too_small" and final == original
    shown = metrics(app)
    assert number(shown["Final"]) == original
    assert number(shown["Saved by Phase 1"]) == 0
    assert any("too short to compress" in i.value for i in app.info)


def test_the_steps_table_counts_in_the_charts_unit_and_shows_what_each_step_did(app):
    """One unit's columns, as the chart counts, then the step's note: at 800 pixels both units side
    by side put the notes out of sight. A note longer than its column's line wraps."""
    from dashboard.ui import WRAP_ROW_HEIGHT

    go(app, "savings")

    def steps_grid():
        return next(f for f in app.dataframe if {"step", "note", "exact_tokens"} <= set(f.value.columns))

    grid = steps_grid()
    assert list(grid.proto.column_order) == ["step", "exact_tokens", "exact_change", "messages_touched", "note", "which"]
    notes = dict(zip(grid.value["step"], grid.value["note"], strict=True))
    assert notes["Middle → summary"].endswith("messages → 1 summary")
    assert "orphan results removed" in notes["Tool-pair repair"]  # longer than a line of its column
    assert grid.proto.row_height == WRAP_ROW_HEIGHT
    app.radio(key="waterfall_units").set_value("hermes estimate")
    run(app)
    assert list(steps_grid().proto.column_order) == ["step", "hermes_tokens", "hermes_change", "messages_touched",
                                                     "note", "which"]


def test_a_grid_wraps_by_its_shown_columns_and_their_own_line_lengths(monkeypatch):
    import pandas as pd
    import streamlit as st

    from dashboard import ui

    asked: list[dict] = []
    monkeypatch.setattr(st, "dataframe", lambda frame, **options: asked.append(options))
    rows = pd.DataFrame({"step": ["a", "b"], "note": ["a note of forty characters, give or take", ""],
                         "hidden": ["x" * 100, ""]})
    ui.table(rows, column_order=["step", "note"])
    assert "row_height" not in asked[-1]  # the long text is in a column not shown; the note fits a line
    ui.table(rows, column_order=["step", "note"], line_chars={"note": 34})
    assert asked[-1]["row_height"] == ui.WRAP_ROW_HEIGHT
    ui.table(rows)
    assert asked[-1]["row_height"] == ui.WRAP_ROW_HEIGHT  # every column shown: the hidden one counts
