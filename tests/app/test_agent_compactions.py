"""The compactions of pi, Goose and Continue logs on the dashboard, as Claude Code's are shown."""

from __future__ import annotations

import pytest

from core.formats import load
from core.inspections.request import ExactWeigher, request_breakdown
from tests.app.conftest import SAMPLES, plain
from tests.app.test_request_pages import open_file, table_with


@pytest.mark.parametrize("name", ["pi_session.jsonl", "goose_sessions.db", "continue_session.json"])
def test_the_log_s_own_compaction_is_on_the_replay_and_the_overview(name):
    data = (SAMPLES / name).read_bytes()
    conv = load(data, filename=name)
    (event,) = conv.compaction_events
    replay = open_file("timeline_replay", name, data, full_history=True)
    assert not replay.exception and not replay.error
    assert any(plain(h.value) == "Compactions recorded in the log" for h in replay.subheader)
    events = table_with(replay, "position", "kind", "pre_tokens")
    assert events["kind"].tolist() == ["compaction"] and events["position"].tolist() == [event.position]
    overview = open_file("overview", name, data)
    assert any("1 compaction(s) recorded in the log" in plain(e.label) for e in overview.expander)


def test_a_pi_compaction_keeps_sending_its_kept_messages():
    conv = load(SAMPLES / "pi_session.jsonl")
    (event,) = conv.compaction_events
    request = request_breakdown(conv, ExactWeigher("cl100k_base"))
    assert request.turns[-1].context_start == event.details["first_kept_position"] < event.position
    before = [turn for turn in request.turns if turn.message_index < event.position]
    assert all(turn.context_start == 0 for turn in before)  # before the compaction, the whole history
    assert "before the agent's own compaction" in request.sources()["messages"]
