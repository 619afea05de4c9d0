"""The worked examples of the v0.17.0 and v0.18.0 deltas, reproduced exactly."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from core import CompressorConfig, ContextCompressor
from core.profiles import (
    END_MARKER,
    HISTORICAL_IN_PROGRESS_HEADING,
    HISTORICAL_PENDING_ASKS_HEADING,
    HISTORICAL_REMAINING_WORK_HEADING,
    HISTORICAL_TASK_HEADING,
    SUMMARY_PREFIX_V0_16_0,
    SUMMARY_PREFIX_V0_17_0,
    SYSTEM_NOTE,
)
from tests.helpers import Recorder, asst, call, sys, tool, user

DATA = Path(__file__).parent.parent / "data" / "golden"
ANCHOR_CLOCK = datetime.datetime(2026, 6, 19, 23, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))


def _release_session() -> list[dict]:
    """Example A of the v0.17.0 delta (22 messages)."""
    return [
        sys("You are a release engineer agent."),
        user("Prepare the v2.0 release: banner, tests, changelog."),
        asst("Plan: banner first, then the test suite, then the changelog."),
        user("Start with the banner. The Notion token is ntn_4Aw14DkLvgsXuapPiu0I6GQDxB."),
        asst(None, [call("call_1", "image_generate", {"prompt": "v2.0 banner"})]),
        tool("call_1", "Saved banner. MEDIA:/tmp/banner.png"),
        asst("Banner ready: MEDIA:/tmp/banner.png"),
        user("Also bump the version in pyproject.toml."),
        asst(None, [call("call_2", "patch", {"path": "pyproject.toml", "mode": "replace"})]),
        tool("call_2", "ok"),
        asst("Version bumped to 2.0.0."),
        user("Great. Now run the whole suite, then draft the changelog."),
        asst(None, [call("call_3", "terminal", {"command": "pytest -q"})]),
        tool("call_3", json.dumps({"output": "F" * 60_000, "exit_code": 1})),
        asst(None, [call("call_4", "read_file", {"path": "tests/test_api.py"})]),
        tool("call_4", "x = 1\n" * 3_400),
        asst(None, [call("call_5", "patch", {"path": "api.py", "mode": "replace"})]),
        tool("call_5", "ok"),
        asst(None, [call("call_6", "terminal", {"command": "pytest -q tests/test_api.py"})]),
        tool("call_6", json.dumps({"output": "1 passed", "exit_code": 0})),
        asst(None, [call("call_7", "write_file", {"path": "CHANGELOG.md", "content": "## v2.0\n- banner\n- api fix"})]),
        tool("call_7", "wrote CHANGELOG.md"),
    ]


EXAMPLE_A_SUMMARY = (
    "## Historical Task Snapshot\nUser asked: 'Also bump the version in pyproject.toml.'\n\n## Goal\nShip v2.0.\n\n"
    + END_MARKER
)
EXAMPLE_A_TURNS = (
    "[USER]: Start with the banner. The Notion token is ntn_4A...QDxB.\n\n"
    "[ASSISTANT]: \n[Tool calls:\n  image_generate({\"prompt\": \"v2.0 banner\"})\n]\n\n"
    "[TOOL RESULT call_1]: Saved banner. [media attachment]\n\n"
    "[ASSISTANT]: Banner ready: [media attachment]\n\n"
    "[USER]: Also bump the version in pyproject.toml."
)


def _example_a_compressor(recorder: Recorder) -> ContextCompressor:
    config = CompressorConfig(context_length=100_000, protect_first_n=2, profile="v0.17.0")
    return ContextCompressor(config, summarizer=recorder, wall_clock=lambda: ANCHOR_CLOCK)


def test_v0_17_0_example_a_anchors_media_and_auto_focus_exact():
    messages = _release_session()
    recorder = Recorder(EXAMPLE_A_SUMMARY)
    comp = _example_a_compressor(recorder)
    res = comp.compress(messages)

    assert (res.plan.compress_start, res.plan.compress_end) == (3, 8)
    cut = res.plan.tail_cut
    assert (cut.min_tail, cut.budget_walk_cut, cut.after_align, cut.after_last_user) == (8, 14, 12, 11)
    assert cut.steps == ["aligned_backward", "last_user", "last_assistant"]
    (prompt, max_tokens), = recorder.calls
    assert max_tokens == 2_600
    assert res.summarizer_call.serialized_turns == EXAMPLE_A_TURNS
    assert f"TURNS TO SUMMARIZE:\n{EXAMPLE_A_TURNS}\n\n" in prompt
    assert "TEMPORAL ANCHORING: The current date is 2026-06-19." in prompt
    focus = (
        "Recent user focus:\n- Start with the banner. The Notion token is ntn_4A...QDxB.\n"
        "- Also bump the version in pyproject.toml.\n- Great. Now run the whole suite, then draft the changelog."
    )
    assert res.plan.focus_topic == focus
    assert f'\n\nFOCUS TOPIC: "{focus}"\n' in prompt
    assert prompt.index("## Historical Task Snapshot") > prompt.index("TURNS TO SUMMARIZE:")

    assert len(res.messages) == 18
    assert res.messages[0]["content"] == "You are a release engineer agent.\n\n" + SYSTEM_NOTE
    assert res.messages[1:3] == messages[1:3]
    summary = res.messages[3]
    assert list(summary) == ["role", "content", "_compressed_summary"]
    assert summary == {"role": "user", "content": SUMMARY_PREFIX_V0_17_0 + "\n" + EXAMPLE_A_SUMMARY,
                       "_compressed_summary": True}
    assert len(summary["content"]) == 1_617
    assert res.messages[4:] == messages[8:]
    assert comp.previous_summary == EXAMPLE_A_SUMMARY  # the echoed marker stays in memory
    assert (res.plan.display_tokens, res.assembly.tokens_after) == (21_560, 21_935)
    assert round(res.assembly.savings_pct, 2) == -1.74
    assert comp._ineffective_compression_count == 1 and comp.compression_count == 1
    assert not comp.should_compress(63_999) and comp.should_compress(64_000)

    # Round 2 on a fresh instance (a resume): the handoff is rehydrated without prefix and marker.
    resumed = res.messages + [asst("Changelog drafted."), user("Thanks. Tag the release.")]
    recorder.calls.clear()
    res2 = _example_a_compressor(recorder).compress(resumed)
    (prompt2, _), = recorder.calls
    assert (res2.plan.compress_start, res2.plan.compress_end, res2.plan.turns_start) == (3, 8, 4)
    assert (
        "PREVIOUS SUMMARY:\n## Historical Task Snapshot\nUser asked: 'Also bump the version in pyproject.toml.'"
        "\n\n## Goal\nShip v2.0.\n\nNEW TURNS TO INCORPORATE:\n"
    ) in prompt2
    assert res2.plan.focus_topic == (
        "Recent user focus:\n- Prepare the v2.0 release: banner, tests, changelog.\n"
        "- Great. Now run the whole suite, then draft the changelog.\n- Thanks. Tag the release."
    )
    assert len(res2.messages) == 16
    assert res2.messages[3]["role"] == "user" and res2.messages[3]["_compressed_summary"] is True
    assert res2.messages[4:] == resumed[8:]


def _delta_example() -> dict:
    return json.loads((DATA / "delta_worked_example.json").read_text(encoding="utf-8"))


def _failing(prompt: str, max_tokens: int) -> str:
    raise RuntimeError("provider down")


def test_v0_17_0_example_b_the_v0_16_0_example_with_historical_headings():
    example = _delta_example()
    comp = ContextCompressor(
        CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile="v0.17.0"),
        summarizer=_failing,
    )
    res = comp.compress(example["input"])
    expected = example["expected_v0_16_0_message_2"].replace(SUMMARY_PREFIX_V0_16_0, SUMMARY_PREFIX_V0_17_0)
    for old, new in (
        ("## Active Task\n", HISTORICAL_TASK_HEADING + "\n"),
        ("## In Progress\n", HISTORICAL_IN_PROGRESS_HEADING + "\n"),
        ("## Pending User Asks\n", HISTORICAL_PENDING_ASKS_HEADING + "\n"),
        ("## Remaining Work\n", HISTORICAL_REMAINING_WORK_HEADING + "\n"),
    ):
        expected = expected.replace(old, new)
    assert [m["role"] for m in res.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert res.messages[2] == {"role": "assistant", "content": expected, "_compressed_summary": True}
    assert len(expected) == 3_733
    assert comp._last_summary_dropped_count == 5 and comp.compression_count == 1
    assert comp._last_summary_error == "no auxiliary LLM provider configured"


class Scripted:
    """Fails with a generic RuntimeError until told to answer."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.failing = True
        self.calls: list[tuple[str, int]] = []

    def __call__(self, prompt: str, max_tokens: int) -> str:
        self.calls.append((prompt, max_tokens))
        if self.failing:
            raise RuntimeError("provider down")
        return self.answer


def test_v0_18_0_two_round_example_exact():
    example = _delta_example()
    golden = json.loads((DATA / "v0_18_0_worked_example.json").read_text(encoding="utf-8"))
    clock_now = [1_000.0]
    summarizer = Scripted(golden["round2_summary"])
    comp = ContextCompressor(
        CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile="v0.18.0",
                         model="test-model"),
        summarizer=summarizer,
        clock=lambda: clock_now[0],
    )
    # Round 1: "provider down" is a generic failure now: 60 s cooldown, its own reason, the fallback merged.
    res = comp.compress(example["input"])
    assert (res.plan.compress_start, res.plan.compress_end) == (2, 7)
    assert res.outcome == "fallback" and res.assembly.summary_merged
    assert comp._last_summary_error == "provider down"
    assert comp._summary_failure_cooldown_until == 1_060.0
    assert comp.compression_count == 1 and comp._last_summary_dropped_count == 5
    assert not comp.should_compress(10**9)  # the cooldown blocks the trigger
    assert [m["role"] for m in res.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert res.messages[0]["content"] == "You are a coding agent.\n\n" + SYSTEM_NOTE
    assert res.messages[1] == example["input"][1]
    assert res.messages[2] == {"role": "assistant", "content": golden["v0_18_0_round1_message_2"],
                               "_compressed_summary": True}
    assert len(res.messages[2]["content"]) == 4_146
    assert res.messages[3:] == example["input"][8:]

    # Round 2 with force: the head decays to the system prompt, the merged fallback is found past the
    # delimiter and rehydrated, the summary is pinned to user and merged, call_4 is stripped.
    summarizer.failing = False
    res2 = comp.compress(res.messages + golden["round2_extra_messages"], force=True)
    assert (res2.plan.compress_start, res2.plan.compress_end, res2.plan.existing_summary_index, res2.plan.turns_start) == (1, 5, 2, 3)
    call_made = res2.summarizer_call
    assert call_made.serialized_turns == "[USER]: Thanks. What is left?\n\n[ASSISTANT]: Only the docs."
    assert call_made.max_tokens == 2_600 and call_made.iterative
    previous = call_made.prompt.split("PREVIOUS SUMMARY:\n", 1)[1].split("\n\nNEW TURNS TO INCORPORATE:", 1)[0]
    assert previous.startswith("## Historical Task Snapshot\nUser asked: 'Use the key sk-pro...6789")
    assert previous.endswith("Summary failure reason: provider down.")
    assert comp.compression_count == 2 and comp.previous_summary == golden["round2_summary"]
    out = res2.messages
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "assistant"]
    assert out[0] == res.messages[0]
    assert out[1] == {"role": "user", "content": golden["v0_18_0_round2_message_1"], "_compressed_summary": True}
    assert len(out[1]["content"]) == 1_789
    assert out[1]["content"].endswith(END_MARKER)
    assert [c["id"] for c in out[2]["tool_calls"]] == ["call_3"]
    assert out[3:] == golden["round2_extra_messages"][2:]
    assert res2.assembly.calls_stripped == 1 and res2.assembly.stubs_added == 0


def test_v0_17_0_on_the_v0_18_0_round_two_input_stubs_and_serialises_the_merged_message():
    example = _delta_example()
    golden = json.loads((DATA / "v0_18_0_worked_example.json").read_text(encoding="utf-8"))
    v18 = ContextCompressor(
        CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile="v0.18.0"),
        summarizer=_failing,
    )
    round2 = v18.compress(example["input"]).messages + golden["round2_extra_messages"]
    v17 = ContextCompressor(
        CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile="v0.17.0"),
        summarizer=Recorder(golden["round2_summary"]),
    )
    v17.compression_count = 1
    res = v17.compress(round2)
    assert res.summarizer_call.serialized_turns.startswith("[ASSISTANT]: [PRIOR CONTEXT — ")
    assert not res.summarizer_call.iterative
    assert [m["role"] for m in res.messages] == [
        "system", "user", "assistant", "user", "assistant", "tool", "tool", "assistant"]
    assert res.messages[5] == {"role": "tool", "content": "[Result from earlier conversation — see context summary above]",
                               "tool_call_id": "call_4"}
