"""The plugin's compaction log on the dashboard: the compaction shows on the replay and the overview."""

from __future__ import annotations

from core.formats import load
from tests.app.conftest import SAMPLES, plain
from tests.app.test_request_pages import open_file, table_with

NAME = "context_lens_compactions.jsonl"


def test_a_plugin_compaction_is_on_the_replay_and_the_overview() -> None:
    data = (SAMPLES / NAME).read_bytes()
    conv = load(data, filename=NAME)
    (event,) = conv.compaction_events  # the latest compaction, loaded by default
    assert event.kind == "context-lens summarized" and event.details["facts"]["total"] > 0
    replay = open_file("timeline_replay", NAME, data)
    assert not replay.exception and not replay.error
    assert any(plain(h.value) == "Compactions recorded in the log" for h in replay.subheader)
    events = table_with(replay, "position", "kind", "pre_tokens")
    assert events["position"].tolist() == [event.position] and events["pre_tokens"].tolist() == [event.pre_tokens]
    overview = open_file("overview", NAME, data)
    assert not overview.exception
    assert any("1 compaction(s) recorded in the log" in plain(e.label) for e in overview.expander)
