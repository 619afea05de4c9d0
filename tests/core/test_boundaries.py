"""Phase 2: head, tail, alignment and the early returns (spec §3)."""

from __future__ import annotations

from core import CompressorConfig, ContextCompressor
from core.phases.boundaries import (
    align_boundary_backward,
    align_boundary_forward,
    ensure_last_user_message_in_tail,
    find_tail_cut,
    protect_head_size,
)
from tests.helpers import Recorder, asst, call, sys, tool, user


def test_head_size_counts_system_plus_first_n():
    assert protect_head_size([sys(), user("a")], 3) == 4
    assert protect_head_size([user("a")], 3) == 3
    assert protect_head_size([sys(), user("a")], 0) == 1
    assert protect_head_size([user("a")], 0) == 0


def test_align_forward_skips_tool_results():
    messages = [user("u"), tool("a", "x"), tool("b", "y"), asst("z")]
    assert align_boundary_forward(messages, 1) == 3
    assert align_boundary_forward(messages, 0) == 0


def test_align_backward_cases_from_the_reference():
    messages = [
        user("u"),
        asst("a"),
        user("v"),
        asst(None, [call("1", "t", {}), call("2", "t", {}), call("3", "t", {})]),
        tool("1", "r"),
        tool("2", "r"),
        tool("3", "r"),
        user("w"),
    ]
    assert align_boundary_backward(messages, 7) == 3  # clean cut after a complete group still moves
    assert align_boundary_backward(messages, 5) == 3  # inside the results
    assert align_boundary_backward(messages, 4) == 3  # right after the assistant
    assert align_boundary_backward(messages, 2) == 2  # nothing to do
    assert align_boundary_backward(messages, 0) == 0
    assert align_boundary_backward(messages, 8) == 8


def test_last_user_message_is_pulled_into_the_tail():
    messages = [user("a"), asst("b"), user("c"), asst("d"), asst("e"), asst("f")]
    assert ensure_last_user_message_in_tail(messages, 5, 1) == 2
    assert ensure_last_user_message_in_tail(messages, 2, 1) == 2
    # The clamp to head_end + 1 leaves a user message sitting at head_end in the middle.
    assert ensure_last_user_message_in_tail([asst("x"), user("a"), asst("b"), asst("c")], 3, 1) == 2


def test_small_conversation_forces_a_three_message_tail():
    messages = [user("q")] + [asst(f"a{i}") if i % 2 else user(f"u{i}") for i in range(8)]
    cut = find_tail_cut(messages, 3, 12_800)
    assert cut.forced_small
    assert cut.cut == len(messages) - 3 == 6
    assert cut.steps == ["forced_small"]


def test_soft_ceiling_allows_one_and_a_half_budget():
    messages = [user("u")] + [asst("x" * 3960) for _ in range(6)]  # 1000 tokens each
    cut = find_tail_cut(messages, 1, 1_000)
    assert cut.soft_ceiling == 1_500
    assert cut.cut == len(messages) - 3  # min tail of 3 beats the 1,500-token ceiling


def test_early_return_1_returns_the_same_list_object():
    messages = [sys(), user("a"), asst("b"), user("c"), asst("d"), user("e"), asst("f"), user("g")]
    comp = ContextCompressor(CompressorConfig(), summarizer=Recorder())
    res = comp.compress(messages)
    assert res.messages is messages
    assert res.outcome == "too_small"
    assert comp.compression_count == 0


def test_nine_messages_with_system_do_compress():
    messages = [sys(), user("a"), asst("b"), user("c"), asst("d"), user("e"), asst("f"), user("g"), asst("h")]
    recorder = Recorder()
    comp = ContextCompressor(CompressorConfig(), summarizer=recorder)
    res = comp.compress(messages)
    assert res.outcome == "summarized"
    assert comp.compression_count == 1
    assert res.messages[-1] == messages[-1]


def test_only_tool_messages_after_head_does_not_crash():
    messages = [user("a"), asst(None, [call("x", "t", {})])] + [tool("x", f"r{i}") for i in range(8)]
    comp = ContextCompressor(CompressorConfig(protect_first_n=2), summarizer=Recorder())
    res = comp.compress(messages)
    assert res.outcome == "nothing_to_compress"
    assert comp.compression_count == 0
    assert len(res.messages) == len(messages)
