"""The dashboard on a log the agent compacted (the live context by default, the full history one switch
away, every page saying which) and on a conversation whose tool-pair repair loses facts (Zones, Compress
& preview and Fact retention say what, and why)."""

from __future__ import annotations

import json

from core import ContextCompressor
from core.formats import load
from core.summarizers.extractive import ExtractiveSummarizer
from core.views.repair_losses import repair_losses
from dashboard.memo import SAMPLE_DIR
from tests.app.conftest import (
    go,
    html_table,
    metrics,
    new_app,
    number,
    plain,
    run,
    sidebar_config,
    table_with,
    upload,
)
from tests.app.test_compress_page import compress_on_page
from tests.formats.test_live_context import claude_code_log
from tests.views.test_repair_losses import BACKGROUND_CALL, repair_case

LIVE = "The context the model last saw"
FULL = "The full history"


def captions(at) -> list[str]:
    return [plain(c.value) for c in at.caption]


def test_a_compacted_log_opens_as_its_live_context_with_the_full_history_one_switch_away():
    data = claude_code_log(compactions=2)
    full = load(data, filename="cc-live.jsonl")
    live = full.live_context()
    at = upload(new_app(), "cc-live.jsonl", data, "application/jsonl")
    assert number(metrics(at)["Messages"]) == len(live) < len(full)
    said = next(c for c in captions(at) if LIVE in c)
    assert f"compaction at message {live.shown_cut.position}" in said
    assert f"the {live.shown_cut.hidden} messages before it" in said
    for page in ("zones", "savings", "fact_retention"):
        go(at, page)
        assert any(LIVE in c for c in captions(at)), page
        assert any(f"{len(live)} messages" in c for c in captions(at)), page
    at.toggle(key="full_history").set_value(True)
    run(at)
    assert any(FULL in c for c in captions(at)) and not any(LIVE in c for c in captions(at))
    assert any(f"{len(full)} messages" in c for c in captions(at))
    go(at, "overview")
    assert number(metrics(at)["Messages"]) == len(full)
    assert at.toggle(key="full_history").value is True  # the choice holds across pages
    at.toggle(key="full_history").set_value(False)
    run(at)
    assert number(metrics(at)["Messages"]) == len(live)


def test_a_log_without_compaction_has_no_switch():
    at = upload(new_app(), "chat.json", json.dumps(repair_case()).encode())
    assert not any(LIVE in c or FULL in c for c in captions(at))
    assert not [t for t in at.toggle if t.key == "full_history"]


def expected_losses(at, messages):
    result = ContextCompressor(sidebar_config(at), summarizer=ExtractiveSummarizer()).compress(messages)
    return repair_losses(result)


def test_zones_and_fact_retention_say_what_the_repair_lost():
    messages = repair_case()
    at = upload(new_app(), "chat.json", json.dumps(messages).encode())
    expected = expected_losses(at, messages)
    assert expected.messages == 2  # the sidebar's release strips the unanswered call too
    go(at, "zones")
    warning = next(plain(w.value) for w in at.warning if "tool-pair repair" in plain(w.value))
    assert f"the call at message {BACKGROUND_CALL} was summarised" in warning
    assert f"{len(expected.lost_facts)} of their {len(expected.facts)} facts" in warning
    removed = table_with(at, "what the repair did", "why")
    assert removed["message"].tolist() == [loss.message_index for loss in expected.losses]
    lost = table_with(at, "kind", "value", "action")
    assert {"KeyRing9", "src/vault/keys_loader.py"} <= set(lost["value"])

    go(at, "fact_retention")
    shown = metrics(at)
    assert number(shown["Lost by the repair"]) == len(expected.lost_facts)
    assert "Lost by the summary" in shown
    summary = html_table(at, "retention_summary")
    hermes = summary[summary["run"].str.startswith("Hermes")]
    assert hermes["lost by the repair"].tolist() == [len(expected.lost_facts)]
    assert any("tool-pair repair" in plain(w.value) for w in at.warning)


def test_compress_says_what_the_repair_lost_in_the_run():
    messages = repair_case()
    at = upload(new_app(), "chat.json", json.dumps(messages).encode())
    expected = expected_losses(at, messages)
    compress_on_page(at)
    warning = next(plain(w.value) for w in at.warning if "tool-pair repair" in plain(w.value))
    assert f"{len(expected.lost_facts)} of their {len(expected.facts)} facts" in warning
    assert table_with(at, "what the repair did", "why")["message"].tolist() == [
        loss.message_index for loss in expected.losses]


def test_a_hermes_handoff_is_said_to_be_the_live_context_already():
    from tests.app.conftest import choose_sample

    at = choose_sample(new_app(), "resumed_with_handoff_summary.json")
    full = load(SAMPLE_DIR / "resumed_with_handoff_summary.json")
    (event,) = full.compaction_events
    assert any(f"Hermes' handoff summary at message {event.position}" in c for c in captions(at))
    assert number(metrics(at)["Messages"]) == len(full)
    assert not [t for t in at.toggle if t.key == "full_history"]
