"""Fact retention page, "Offline summary vs Hermes fallback": both summaries of the same turns, scored."""

from __future__ import annotations

import dataclasses
import json

from core import ContextCompressor
from core.facts import KEY_FACT_KINDS, extract_facts, retention
from core.phases.summary import strip_summary_prefix
from core.profiles import get_profile
from core.summarizers.extractive import ExtractiveSummarizer, count_tokens
from core.tokens import get_counter
from tests.app.conftest import SAMPLES, go, load_messages, run, sidebar_config, text_blocks, upload
from tests.helpers import CapturingExtractive

LONG_SAMPLE = SAMPLES / "long_coding_session.json"


def _section_frames(at):
    """The comparison table and the lost-fact tables after it (the page's own tables come first)."""
    frames = [frame.value for frame in at.dataframe]
    start = next(i for i, frame in enumerate(frames) if "original retention" in frame.columns)
    return frames[start], [frame for frame in frames[start + 1:] if list(frame.columns) == ["kind", "value",
                                                                                              "message_index"]]


def test_long_sample_figures_match_an_independent_computation(app):
    go(app, "fact_retention")
    app.selectbox(key="profile").set_value("v0.16.0")  # the window these figures describe
    run(app)
    config = sidebar_config(app)
    profile = get_profile(config.profile)
    messages = load_messages(LONG_SAMPLE)
    capturing = CapturingExtractive()
    summarised = ContextCompressor(config, summarizer=capturing).compress(messages)
    fell_back = ContextCompressor(config, summarizer=None).compress(messages)
    assert (summarised.outcome, fell_back.outcome) == ("summarized", "fallback")
    fallback_body = strip_summary_prefix(fell_back.assembly.summary_text, profile)
    fallback_size = count_tokens(fallback_body)
    request = capturing.requests[0]
    same_size = ExtractiveSummarizer().summarize_request(
        dataclasses.replace(request, summary_budget=fallback_size, max_tokens=fallback_size)
    )
    bodies = {
        "Offline extractive summary": strip_summary_prefix(summarised.assembly.summary_text, profile),
        "Offline summary at the fallback's size": same_size.strip(),
        "Hermes v0.16.0 fallback": fallback_body,
    }
    turn_facts = extract_facts(capturing.requests[0].turns)
    span_facts = extract_facts(messages[summarised.plan.turns_start:summarised.plan.compress_end])
    counter = get_counter("o200k_base")  # gpt-4o, the sidebar's model

    table, lost_tables = _section_frames(app)
    table = table.set_index("summary")
    assert list(table.index) == list(bodies)
    for name, body in bodies.items():
        kept = retention(turn_facts, body)["kept"]
        span_kept = retention(span_facts, body)["kept"]
        row = table.loc[name]
        assert (row["chars"], row["tokens"]) == (len(body), counter.count_text(body)), name
        assert (row["facts"], row["kept"]) == (len(turn_facts), int(kept.sum())), name
        assert (row["original facts"], row["original kept"]) == (len(span_facts), int(span_kept.sum())), name
        assert abs(row["retention"] - kept.mean()) < 1e-12
    # On the long session the offline summary keeps every fact of its turns; the fallback loses most.
    # Within the fallback's own size it still keeps at least 85 % of the key facts (every kind but the
    # names of functions and classes, which it keeps when there is room) and over 65 % of all.
    assert table.loc["Offline extractive summary", "retention"] == 1.0
    assert table.loc["Offline summary at the fallback's size", "retention"] >= 0.65
    key_facts = turn_facts[turn_facts["kind"].isin(KEY_FACT_KINDS)]
    assert retention(key_facts, same_size)["kept"].mean() >= 0.85
    assert table.loc["Offline summary at the fallback's size", "tokens"] <= table.loc["Hermes v0.16.0 fallback", "tokens"]
    assert table.loc["Hermes v0.16.0 fallback", "retention"] < 0.5

    # The offline summary lost nothing, so only the other two have a table.
    same_size_lost, lost = lost_tables
    assert same_size_lost["value"].tolist() == [value for value in turn_facts["value"] if value not in same_size]
    assert lost["value"].tolist() == [value for value in turn_facts["value"] if value not in fallback_body]
    assert (lost["message_index"] >= summarised.plan.turns_start).all()
    assert any("Nothing: every fact of these turns is in it verbatim." in c.value for c in app.caption)
    codes = list(text_blocks(app).values())
    assert bodies["Offline extractive summary"] in codes and fallback_body in codes


def test_nothing_to_summarise_is_said_plainly(app):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    upload(app, "tiny.json", json.dumps({"messages": messages}).encode())
    go(app, "fact_retention")
    run(app)
    assert any("there is nothing to compare" in info.value for info in app.info)


def test_the_comparison_takes_the_shared_compressions_summary_instead_of_writing_it_again(monkeypatch):
    """With the same parameters, the offline compression every page shares has written the extractive
    summary of these turns already: the comparison reads it (and writes only the equal-size one)."""
    from core.views.summary_compare import compare_summaries
    from dashboard.memo import Settings, load_transcript
    from dashboard.runs import offline_compression
    from dashboard.summary_compare import _comparison

    data = LONG_SAMPLE.read_bytes()
    settings = Settings(context_length=16_000, profile="v0.18.1", strict_redaction=True)
    alone = compare_summaries(load_messages(LONG_SAMPLE), settings.config(), encoding=settings.encoding)
    transcript = load_transcript(data, LONG_SAMPLE.name)
    offline_compression(transcript, settings)
    budgets: list[int] = []
    original = ExtractiveSummarizer.summarize_request
    monkeypatch.setattr(ExtractiveSummarizer, "summarize_request",
                        lambda self, request: (budgets.append(request.summary_budget), original(self, request))[1])
    shared = _comparison(transcript, settings, None, True)
    assert alone is not None and alone.extractive
    assert (shared.extractive, shared.same_size, shared.fallback) == (alone.extractive, alone.same_size, alone.fallback)
    assert shared.table().equals(alone.table())
    assert budgets == [count_tokens(alone.fallback)]  # only the summary at the fallback's size was written
    budgets.clear()
    focused = _comparison(transcript, settings, "the database", True)  # another request: written here
    assert focused is not None and len(budgets) == 2
