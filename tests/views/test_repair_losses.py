"""Facts lost by the tool-pair repair (``core.views.repair_losses``), in every release."""

from __future__ import annotations

from typing import Any

import pytest

from core.compressor import ContextCompressor
from core.config import CompressorConfig
from core.facts import searchable_text
from core.profiles import PROFILES
from core.summarizers.extractive import ExtractiveSummarizer
from core.views.repair_losses import CALLS_STRIPPED, RESULT_REMOVED, repair_losses
from tests.helpers import asst, call, long_agent_run, tool

BACKGROUND_CALL = 6  # where repair_case() puts the call whose result arrives at the end
BUILD_ERROR = "Build failed: ImportError in src/vault/keys_loader.py: cannot import name 'KeyRing9'"
DEPLOY = "deploy --target prod-eu-7"


def repair_case() -> list[dict[str, Any]]:
    """A coding session where a background build is started early (its call is summarised with the middle)
    and its result only arrives near the end (in the tail), and whose last message is a deployment call
    that never got a result."""
    messages = long_agent_run(n_rounds=14, size=2000)
    messages.insert(BACKGROUND_CALL, asst("Starting the release build in the background.",
                                          [call("call_bg", "terminal", {"command": "make release-build"})]))
    messages.insert(-1, tool("call_bg", BUILD_ERROR))
    messages.append(asst("Deploying now.", [call("call_deploy", "terminal", {"command": DEPLOY})]))
    return messages


def compress(messages: list[dict[str, Any]], profile: str) -> Any:
    return ContextCompressor(CompressorConfig(profile=profile), summarizer=ExtractiveSummarizer()).compress(messages)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_a_result_whose_call_was_summarised_is_lost_by_the_repair(profile):
    messages = repair_case()
    result = compress(messages, profile)
    assert result.compressed
    start, end = result.plan.compress_start, result.plan.compress_end
    assert start <= BACKGROUND_CALL < end  # the call went into the summary
    result_at = next(i for i, m in enumerate(messages) if m.get("tool_call_id") == "call_bg")
    assert result_at >= end  # its result sat in the tail
    losses = repair_losses(result)
    removed = [loss for loss in losses.losses if loss.action == RESULT_REMOVED]
    assert [(loss.message_index, loss.call_index, loss.zone) for loss in removed] == [(result_at, BACKGROUND_CALL, "tail")]
    assert f"the call at message {BACKGROUND_CALL}" in removed[0].reason
    lost = set(losses.lost_facts["value"])
    assert {"src/vault/keys_loader.py", "KeyRing9", "ImportError"} <= lost
    output = searchable_text(result.messages)
    assert all(value not in output for value in lost)  # lost: nowhere in the output, the summary included
    assert BUILD_ERROR not in result.plan.prompt("2026-01-01")  # and the summarizer never read it
    assert "tool-pair repair" in losses.sentence()


@pytest.mark.parametrize("profile", list(PROFILES))
def test_an_unanswered_call_loses_its_arguments_only_where_the_release_strips_it(profile):
    messages = repair_case()
    result = compress(messages, profile)
    losses = repair_losses(result)
    stripped = [loss for loss in losses.losses if loss.action == CALLS_STRIPPED]
    strips = PROFILES[profile].orphan_call_rule == "strip"
    assert result.assembly.calls_stripped == (1 if strips else 0)
    if strips:
        assert [(loss.message_index, loss.call_ids) for loss in stripped] == [(len(messages) - 1, ("call_deploy",))]
        assert DEPLOY in set(losses.lost_facts["value"])
    else:  # a stub result is added: the call and its arguments stay
        assert not stripped and DEPLOY not in set(losses.lost_facts["value"])
        assert DEPLOY in searchable_text(result.messages)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_nothing_is_reported_when_the_repair_removes_nothing(profile):
    result = compress(long_agent_run(n_rounds=14, size=2000), profile)
    assert result.compressed and result.assembly.orphans_removed == 0 and result.assembly.calls_stripped == 0
    losses = repair_losses(result)
    assert losses.messages == 0 and losses.sentence() == "" and len(losses.lost_facts) == 0
    assert losses.to_dict()["removed"] == []


def test_a_result_that_did_not_compress_has_no_repair():
    result = compress(long_agent_run(n_rounds=1, size=10), "v0.19.0")
    assert result.assembly is None and repair_losses(result).messages == 0


def test_the_report_lists_each_removed_message_and_fact():
    result = compress(repair_case(), "v0.19.0")
    report = repair_losses(result).to_dict()
    assert report["messages"] == len(report["removed"]) == 2
    assert report["facts_lost"] == len(report["lost_facts"]) == sum(item["facts_lost"] for item in report["removed"])
    assert {item["action"] for item in report["removed"]} == {RESULT_REMOVED, CALLS_STRIPPED}


@pytest.mark.parametrize("profile", [name for name, p in PROFILES.items() if p.orphan_call_rule == "strip"])
def test_a_head_call_whose_result_was_summarised_is_stripped_with_the_reason(profile):
    messages = long_agent_run(n_rounds=14, size=2000)
    messages.insert(2, asst("Watching the deploy log.", [call("call_watch", "terminal", {"command": "tail -f /var/log/deploy-77.log"})]))
    messages.insert(10, tool("call_watch", "deploy 77 finished"))
    result = compress(messages, profile)
    start, end = result.plan.compress_start, result.plan.compress_end
    assert 2 < start <= 10 < end  # the call in the head, its result summarised with the middle
    (loss,) = [loss for loss in repair_losses(result).losses if loss.action == CALLS_STRIPPED]
    assert (loss.message_index, loss.zone, loss.result_indices) == (2, "head", (10,))
    assert "their results (message 10) were summarised with the middle" in loss.reason
