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
    html_table,
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
    steps = html_table(at, "savings_steps")
    assert steps["exact_tokens"].iloc[0] == original
    assert steps["exact_tokens"].iloc[-1] == final
    # Each step's change is the difference of consecutive totals, and they add up to the saving.
    totals = steps["exact_tokens"].tolist()
    assert steps["exact_change"].iloc[1:-1].tolist() == [b - a for a, b in zip(totals[:-2], totals[1:-1], strict=True)]
    assert steps["exact_change"].iloc[1:-1].sum() == final - original
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
    steps = html_table(app, "savings_steps")
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


def headings(at, name):
    from tests.helpers import HtmlTable

    body = next(e.proto.body for e in at.get("html") if f'data-table="{name}"' in e.proto.body)
    return [label for _, label in HtmlTable(body).headings]


def test_the_steps_table_counts_in_the_charts_unit_and_shows_what_each_step_did(app):
    """One unit's columns, as the chart counts, then the step's note, in a plain HTML table whose text
    wraps: at 800 pixels a data grid cut the notes, and both units side by side put them out of sight."""
    go(app, "savings")
    steps = html_table(app, "savings_steps")
    assert list(steps.columns) == ["step", "exact_tokens", "exact_change", "messages_touched", "note"]
    assert headings(app, "savings_steps") == ["step", "tokens (tiktoken)", "change", "messages", "what it did"]
    notes = dict(zip(steps["step"], steps["note"], strict=True))
    assert notes["Middle → summary"].endswith("messages → 1 summary")
    assert "orphan results removed" in notes["Tool-pair repair"]
    # Each Phase-1 step says what it did to how many messages, as its messages column counts them.
    touched = dict(zip(steps["step"], steps["messages_touched"], strict=True))
    assert notes["Duplicate tool outputs"].startswith(f"{touched['Duplicate tool outputs']:,} older copies")
    assert notes["Old tool results → one-liners"].startswith(f"{touched['Old tool results → one-liners']:,} old tool outputs")
    assert all(notes[step] == "none" for step, count in touched.items()
               if count == 0 and step not in ("Original", "Final", "Tool-pair repair"))
    shown = metrics(app)
    assert steps["exact_tokens"].iloc[0] == number(shown["Original"])
    assert steps["exact_tokens"].iloc[-1] == number(shown["Final"])
    exact = steps["exact_tokens"].tolist()
    app.radio(key="waterfall_units").set_value("hermes estimate")
    run(app)
    steps = html_table(app, "savings_steps")
    assert list(steps.columns) == ["step", "hermes_tokens", "hermes_change", "messages_touched", "note"]
    assert headings(app, "savings_steps")[1] == "tokens (hermes estimate)"
    assert steps["hermes_tokens"].tolist() != exact
    result = expected(app, load_messages(LONG_SAMPLE), ExtractiveSummarizer())[3]
    assert steps["hermes_tokens"].iloc[-1] == estimate_messages_tokens_rough(result.messages)
    assert steps["hermes_change"].iloc[-1] == steps["hermes_tokens"].iloc[-1] - steps["hermes_tokens"].iloc[0]


def test_a_grid_wraps_by_its_shown_columns(monkeypatch):
    import pandas as pd
    import streamlit as st

    from dashboard import ui

    asked: list[dict] = []
    monkeypatch.setattr(st, "dataframe", lambda frame, **options: asked.append(options))
    rows = pd.DataFrame({"step": ["a", "b"], "note": ["a note of forty characters, give or take", ""],
                         "hidden": ["x" * 100, ""]})
    ui.table(rows, column_order=["step", "note"])
    assert "row_height" not in asked[-1]  # the long text is in a column not shown; the note fits a line
    ui.table(rows)
    assert asked[-1]["row_height"] == ui.WRAP_ROW_HEIGHT  # every column shown: the hidden one counts
