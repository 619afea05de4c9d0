"""The replay on a log that records its prompt sizes: recorded sizes until the first simulated
compaction, the simulated conversation's own size after it, and rows whose figures agree."""

from __future__ import annotations

import pytest

from core.views.replay import ESTIMATED, RECORDED, compactions_table
from tests.views.replay_fixtures import replay_of, write_session


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    return replay_of(write_session(tmp_path_factory.mktemp("replay")))


def test_every_compaction_starts_at_the_threshold_and_ends_below_where_it_started(replayed):
    threshold = replayed.threshold_tokens
    assert len(replayed.compressed) >= 2
    for record in replayed.compactions:
        assert record.tokens_before >= threshold
        assert record.savings_pct == pytest.approx((record.tokens_before - record.tokens_after)
                                                   / record.tokens_before * 100)
        if record.compressed:
            assert record.tokens_after < record.tokens_before
            assert record.messages_summarised >= 1
    table = compactions_table(replayed)
    assert (table["savings_pct"] - (table["tokens_before"] - table["tokens_after"])
            / table["tokens_before"] * 100).abs().max() < 0.01


def test_a_long_log_does_not_thrash(replayed):
    points = replayed.points
    assert len(points) == 81
    # The agent's recorded sizes grow without end; read after the first compaction they would
    # fire one at nearly every turn.
    assert len(replayed.compactions) <= len(points) // 8
    compacting = points.index[points["outcome"] != ""].tolist()
    assert all(later - earlier > 1 for earlier, later in zip(compacting, compacting[1:], strict=False))


def test_recorded_sizes_hold_until_the_first_compaction_then_the_simulation_sizes_itself(replayed):
    points = replayed.points
    first = int(points.index[points["compacted"]][0])
    before = points.iloc[:first + 1]
    assert (before["sized_by"] == RECORDED).all()
    assert (before["prompt_before"] == before["recorded"]).all()
    after = points.iloc[first + 1:]
    assert (after["sized_by"] == ESTIMATED).all()
    # Each turn starts from where the previous one ended, grown by the messages since.
    previous_after = points["prompt_after"].iloc[first:-1].to_numpy()
    assert (after["prompt_before"].to_numpy() > previous_after).all()
    # ... and stays far below what the real agent, which never compressed, recorded.
    assert (after["prompt_before"] < after["recorded"].astype(int)).all()
    quiet = points[points["outcome"] == ""]
    assert (quiet["prompt_after"] == quiet["prompt_before"]).all()


def test_a_compression_that_would_grow_the_prompt_is_no_compaction(tmp_path):
    # A window so small that a compression has only a few short reads to fold.
    from tests.views.replay_fixtures import write_session

    result = replay_of(write_session(tmp_path), context_length=40_000)
    assert all(record.tokens_after < record.tokens_before for record in result.compressed)
    none = [record for record in result.compactions if record.outcome == "not_smaller"]
    warned = [warning for warning in result.warnings if "made no compaction" in warning]
    assert len(warned) == len(none)
    for record, warning in zip(none, warned, strict=True):
        assert record.tokens_after == record.tokens_before and record.savings_pct == 0
        assert f"#{record.number} at message {record.message_index}" in warning and record.why in warning
