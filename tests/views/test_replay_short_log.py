"""The replay of a short Claude Code look-alike at small windows: each compression has only a few short
messages to fold, and a compaction the replay counts always ends below where it started."""

from __future__ import annotations

import pytest

from core.views.replay import NOT_SMALLER, compactions_table
from tests.views.replay_fixtures import replay_of, short_claude_session

RUNS = [(window, profile) for window in (16_000, 20_000, 24_000) for profile in ("v0.18.0", "v0.18.1", "v0.19.0")]


@pytest.fixture(scope="module")
def replays(tmp_path_factory):
    name, data = short_claude_session()
    path = tmp_path_factory.mktemp("short") / name
    path.write_bytes(data)
    return {run: replay_of(path, context_length=run[0], profile=run[1]) for run in RUNS}


@pytest.mark.parametrize("run", RUNS)
def test_every_compaction_ends_below_where_it_started(replays, run):
    result = replays[run]
    for record in result.compressed:
        assert record.tokens_after < record.tokens_before, (record.number, record.message_index)
        assert record.messages_summarised >= 1
    table = compactions_table(result)
    assert ((table["tokens_before"] - table["tokens_after"]) / table["tokens_before"] * 100
            - table["savings_pct"]).abs().max() < 0.01


@pytest.mark.parametrize("run", RUNS)
def test_a_compression_that_cannot_shrink_is_no_compaction(replays, run):
    result = replays[run]
    points = result.points.set_index("message_index")
    for record in result.compactions:
        if record.outcome != NOT_SMALLER:
            continue
        assert not record.compressed and record.why
        assert record.tokens_after == record.tokens_before and record.savings_pct == 0
        assert record.messages_after == record.messages_before and record.messages_summarised == 0
        assert record.summary_text is None and record.compacted_indices == []
        row = points.loc[record.message_index]
        assert row["prompt_after"] == row["prompt_before"] and not row["compacted"] and row["outcome"] == NOT_SMALLER
        assert any(f"#{record.number} at message {record.message_index} made no compaction: {record.why}" in warning
                   for warning in result.warnings)


def test_both_happen_on_this_log(replays):
    records = [record for result in replays.values() for record in result.compactions]
    assert any(record.compressed for record in records)
    # A few short reads weigh less than the handoff's prefix alone.
    assert any(record.outcome == NOT_SMALLER and record.why.startswith("the summary (~") for record in records)
