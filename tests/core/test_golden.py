"""The worked examples of the specification, reproduced exactly."""

from __future__ import annotations

import json
from pathlib import Path

from core import CompressorConfig, ContextCompressor
from core.profiles import SUMMARY_PREFIX_V0_15_1, SUMMARY_PREFIX_V0_16_0, SYSTEM_NOTE
from tests.helpers import Recorder, asst, call, failing, sys, tool, user

DATA = Path(__file__).parent.parent / "data" / "golden"


def _delta_example():
    return json.loads((DATA / "delta_worked_example.json").read_text(encoding="utf-8"))


def test_v0_16_0_deterministic_fallback_worked_example_exact():
    example = _delta_example()
    original = json.loads(json.dumps(example["input"]))
    comp = ContextCompressor(
        CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile="v0.16.0"),
        summarizer=failing(RuntimeError("provider down")),
    )
    res = comp.compress(example["input"])
    assert example["input"] == original
    assert [m["role"] for m in res.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert res.messages[0]["content"] == "You are a coding agent.\n\n" + SYSTEM_NOTE
    assert res.messages[1] == example["input"][1]
    assert res.messages[2]["content"] == example["expected_v0_16_0_message_2"]
    assert len(res.messages[2]["content"]) == 3631
    assert res.messages[3:] == example["input"][8:]
    assert comp._last_summary_dropped_count == 5
    assert comp.compression_count == 1
    assert comp._last_summary_error == "no auxiliary LLM provider configured"
    assert res.assembly.summary_merged and res.outcome == "fallback"


def test_v0_15_1_static_fallback_on_the_same_input():
    example = _delta_example()
    comp = ContextCompressor(
        CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile="v0.15.1"),
        summarizer=failing(RuntimeError("provider down")),
    )
    res = comp.compress(example["input"])
    expected = SUMMARY_PREFIX_V0_15_1 + "\n" + example["expected_v0_15_1_message_2_after_prefix"]
    assert res.messages[2]["content"] == expected


def _appendix_a_messages():
    patch_args = {"path": "src/app.py", "old_string": "a" * 600, "new_string": "b" * 580}
    return [
        sys("You are Hermes."),
        user("Fix the failing tests. My key is sk-abcdefghijklmnopqrstuvwx123456"),
        asst(None, [call("call_1", "read_file", {"path": "src/app.py"})]),
        tool("call_1", "A" * 3000),
        asst(None, [call("call_2", "terminal", {"command": "pytest -q"})]),
        tool("call_2", json.dumps({"output": "3 failed", "exit_code": 1}) + " " * 400),
        asst(None, [call("call_3", "read_file", {"path": "src/app.py"})]),
        tool("call_3", "A" * 3000),
        asst(None, [call("call_4", "patch", patch_args)]),
        tool("call_4", "ok " * 100),
        user("Great, now also update docs."),
        asst(None, [call("call_5", "write_file", {"path": "docs/a.md", "content": "d" * 10_000})]),
        tool("call_5", "B" * 50_000),
        asst("Docs updated."),
        user("Thanks. Now run the full suite."),
    ]


def test_appendix_a_worked_example():
    messages = _appendix_a_messages()
    recorder = Recorder("## Active Task\nUser asked: 'run the full suite'")
    comp = ContextCompressor(CompressorConfig(context_length=100_000, profile="v0.15.1"), summarizer=recorder)
    assert comp.threshold_tokens == 64_000 and comp.tail_token_budget == 12_800 and comp.max_summary_tokens == 5_000
    res = comp.compress(messages, current_tokens=70_000)
    assert res.plan.prune_boundary == 0
    assert res.plan.pruned_count == 1
    assert res.plan.phase1_actions == {3: ["deduplicated"]}
    assert (res.plan.compress_start, res.plan.compress_end) == (4, 11)
    assert [m["role"] for m in res.messages] == [
        "system", "user", "assistant", "tool", "user", "assistant", "tool", "assistant", "user",
    ]
    assert res.messages[3]["content"] == "[Duplicate tool output — same content as a more recent call]"
    assert res.messages[4]["content"].startswith(SUMMARY_PREFIX_V0_15_1 + "\n## Active Task")
    assert res.messages[4]["content"].endswith(
        "\n\n--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"
    )
    assert res.messages[5:] == messages[11:]
    # The secret in the protected head is not redacted.
    assert "sk-abcdefghijklmnopqrstuvwx123456" in res.messages[1]["content"]
    prompt, max_tokens = recorder.calls[0]
    assert max_tokens == 2600
    assert "TURNS TO SUMMARIZE:\n[ASSISTANT]: \n[Tool calls:\n  terminal({\"command\": \"pytest -q\"})\n]" in prompt
    assert comp.compression_count == 1
    assert comp._ineffective_compression_count == 0
    independent_estimate = (sum(len(str(m)) for m in res.messages) + 3) // 4
    assert res.assembly.tokens_after == independent_estimate
    assert res.assembly.savings_pct == (70_000 - independent_estimate) / 70_000 * 100
    assert 70 < res.assembly.savings_pct < 85


def test_prefix_lengths_are_exact():
    assert len(SUMMARY_PREFIX_V0_15_1) == 772
    assert len(SUMMARY_PREFIX_V0_16_0) == 1378
