"""``analyze`` on a log the agent compacted (the live context by default, ``--full-history`` on request)
and on a conversation whose tool-pair repair loses facts."""

from __future__ import annotations

import json

from core.formats import load
from core.tokens import get_counter
from tests.formats.test_live_context import CC_SUMMARY, claude_code_log, codex_rollout
from tests.views.test_repair_losses import BACKGROUND_CALL, DEPLOY, repair_case


def test_analyze_reads_the_context_after_the_agent_s_last_compaction(cli, tmp_path):
    path = tmp_path / "cc-live.jsonl"
    path.write_bytes(claude_code_log(compactions=2))
    full = load(path)
    live = full.live_context()
    report = cli("analyze", path, "--json").json()
    summary_at = [i for i, m in enumerate(full.messages) if str(m["content"]).startswith(CC_SUMMARY)][-1]
    assert report["context"]["shown"] == "after_last_compaction"
    assert report["context"]["compaction_at"] == summary_at
    assert report["context"]["messages_before_compaction"] == summary_at == len(full) - len(live)
    assert report["messages"] == len(live) < len(full)
    assert report["exact_tokens"] == get_counter(report["encoding"]).count_messages(live.messages)

    whole = cli("analyze", path, "--json", "--full-history").json()
    assert whole["context"]["shown"] == "full_history" and whole["context"]["compaction_at"] == summary_at
    assert whole["messages"] == len(full)
    assert whole["exact_tokens"] > report["exact_tokens"]

    text = cli("analyze", path).out
    context_line = next(line for line in text.splitlines() if line.startswith("context"))
    assert f"compaction at message {summary_at}" in context_line and "--full-history" in context_line
    assert f"messages    {len(live)}" in text


def test_a_codex_compaction_is_the_start_too(cli, tmp_path):
    path = tmp_path / "rollout-2025-11-14T02-21-11-0199-live.jsonl"
    path.write_bytes(codex_rollout())
    report = cli("analyze", path, "--json").json()
    assert report["context"]["shown"] == "after_last_compaction" and report["context"]["compaction_kind"] == "compacted"
    assert report["messages"] == 3


def test_a_log_without_compaction_says_so(cli, tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(repair_case()), encoding="utf-8")
    context = cli("analyze", path, "--json").json()["context"]
    assert context["shown"] == "full_history" and context["compaction_at"] is None
    assert context["messages_before_compaction"] == 0


def test_analyze_reports_the_facts_the_repair_lost(cli, tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(repair_case()), encoding="utf-8")
    report = cli("analyze", path, "--json", "--profile", "v0.19.0").json()
    losses = report["repair_losses"]
    actions = {item["action"]: item for item in losses["removed"]}
    assert actions["result removed"]["call_index"] == BACKGROUND_CALL
    assert f"the call at message {BACKGROUND_CALL}" in actions["result removed"]["reason"]
    lost = {fact["value"] for fact in losses["lost_facts"]}
    assert {"KeyRing9", "src/vault/keys_loader.py", DEPLOY} <= lost
    assert losses["facts_lost"] == len(losses["lost_facts"])

    text = cli("analyze", path, "--profile", "v0.19.0").out
    repair_line = next(line for line in text.splitlines() if line.startswith("repair "))
    assert "tool-pair repair removed 1 tool result(s) and stripped the calls of 1 message(s)" in repair_line
    assert f"{losses['facts_lost']} of their {losses['facts']} facts" in repair_line
    lost_line = next(line for line in text.splitlines() if line.startswith("lost by repair"))
    assert "KeyRing9" in lost_line or "… and" in lost_line

    older = cli("analyze", path, "--json", "--profile", "v0.16.0").json()["repair_losses"]
    assert {item["action"] for item in older["removed"]} == {"result removed"}  # v0.16.0 stubs the deploy call


def test_a_hermes_handoff_is_the_live_context_already(cli):
    from tests.app.conftest import SAMPLES

    path = SAMPLES / "resumed_with_handoff_summary.json"
    report = cli("analyze", path, "--json").json()
    assert report["context"]["shown"] == "full_history" and report["context"]["compaction_at"] is None
    assert "Hermes' handoff summary at message" in report["context"]["description"]
    assert report["messages"] == len(load(path))
