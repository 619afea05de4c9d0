"""The v0.17.0 and v0.18.0 rules, each on the cases the deltas verified against the releases."""

from __future__ import annotations

import json

import pytest

from core import CompressorConfig, ContextCompressor
from core.phases import assemble, boundaries, focus, summary
from core.phases.content import message_budget_tokens, message_envelope_tokens
from core.phases.trigger import coerce_max_tokens
from core.profiles import (
    END_MARKER,
    PRIOR_CONTEXT_DELIMITER,
    PRIOR_CONTEXT_HEADER,
    PROFILES,
    STUB_RESULT,
    SUMMARY_PREFIX_V0_16_0,
    SUMMARY_PREFIX_V0_17_0,
    TOOL_CALL_REMOVED,
)
from tests.helpers import Clock, asst, call, failing, sys, tool, user

V17, V18 = PROFILES["v0.17.0"], PROFILES["v0.18.0"]


# --- v0.18.0 threshold -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("context", "percent", "reserve", "v17", "v18"),
    [
        (4_000, 0.5, None, (64_000, 12_800), (3_400, 680)),
        (8_000, 0.5, 4_096, (64_000, 12_800), (3_318, 663)),
        (48_000, 1.5, None, (72_000, 14_400), (40_800, 8_160)),
        (64_000, 0.5, None, (64_000, 12_800), (54_400, 10_880)),
        (64_000, 0.5, 4_096, (64_000, 12_800), (50_918, 10_183)),
        (100_000, 0.5, 128_000, (64_000, 12_800), (64_000, 12_800)),
        (100_000, 0.5, 65_536, (64_000, 12_800), (29_294, 5_858)),
        (100_000, 1.0, None, (100_000, 20_000), (85_000, 17_000)),
        (200_000, 0.5, 65_536, (100_000, 20_000), (67_232, 13_446)),
        (1_000_000, 0.5, 65_536, (500_000, 100_000), (467_232, 93_446)),
    ],
)
def test_the_threshold_with_an_output_reserve_and_a_small_window(context, percent, reserve, v17, v18):
    for profile, expected in (("v0.17.0", v17), ("v0.18.0", v18)):
        config = CompressorConfig(context_length=context, threshold_percent=percent, max_tokens=reserve, profile=profile)
        assert (config.threshold_tokens, config.tail_token_budget) == expected
        assert config.max_summary_tokens == min(int(context * 0.05), 12_000)  # the raw window


@pytest.mark.parametrize(
    ("value", "coerced"),
    [(None, None), (True, 1), (False, None), ("16384", 16_384), (" 77 ", 77), (b"12", 12), (8192.7, 8_192),
     ("4096.0", None), ("n/a", None), (0, None), (-1, None)],
)
def test_max_tokens_is_coerced_as_the_release_does(value, coerced):
    assert coerce_max_tokens(value) == coerced
    assert CompressorConfig(max_tokens=value).output_reserve == coerced


def test_an_infinite_reserve_is_refused_like_the_release_raises():
    with pytest.raises(ValueError, match="max_tokens"):
        CompressorConfig(max_tokens=float("inf"))


def test_degenerate_windows():
    assert CompressorConfig(context_length=1, profile="v0.18.0").threshold_tokens == 1
    assert CompressorConfig(context_length=100, max_tokens=99, profile="v0.18.0").threshold_tokens == 1
    assert CompressorConfig(context_length=0, profile="v0.18.0").threshold_tokens == 64_000


# --- v0.18.0 budget walks ------------------------------------------------------------------------


def test_the_tool_call_envelope_weighs_its_whole_repr():
    message = {"role": "assistant", "content": None,
               "tool_calls": [{"id": "call_1", "type": "function",
                               "function": {"name": "terminal", "arguments": "{\"command\": \"ls\"}"}}]}
    assert len(str(message["tool_calls"][0])) == 104
    assert message_envelope_tokens(message) == 10 + 26
    assert message_budget_tokens(message) == 10 + 4
    # v0.17.0 raised on these; v0.18.0 weighs them.
    assert message_envelope_tokens({"role": "user", "content": "x", "tool_calls": [{"function": None}]}) == 10 + 18 // 4
    assert message_envelope_tokens({"role": "tool", "content": None, "tool_calls": [{"function": {"arguments": 7}}]}) > 10


# --- v0.17.0 tail -----------------------------------------------------------------------------------


def _weights(messages):
    return lambda i: message_budget_tokens(messages[i])


def _v17_cut(messages, head_end, budget, protect_last_n=20, profile=V17):
    return boundaries.TAIL_RULES[profile.tail_rule].cut(
        messages, head_end, budget, _weights(messages), protect_last_n=protect_last_n,
        last_user=boundaries.LAST_USER_RULES[profile.last_user_rule],
        is_summary=summary.summary_text_rule(profile).is_summary_content,
    )


@pytest.mark.parametrize(("available", "v17", "v16"), [(0, 0, 0), (1, 0, 1), (2, 2, 2), (3, 3, 3), (5, 3, 3),
                                                       (6, 4, 3), (8, 6, 3), (9, 7, 3), (10, 8, 3), (30, 8, 3)])
def test_the_minimum_tail_by_messages_after_the_head(available, v17, v16):
    n = available + 1
    assert boundaries._min_tail_floor(n, 0, 20) == v17
    assert boundaries._min_tail_three(n, 0, 20) == v16
    assert boundaries._min_tail_floor(40, 0, 5) == 5 and boundaries._min_tail_floor(40, 0, 2) == 3


def test_a_tail_over_the_ceiling_keeps_exactly_the_floor():
    messages = [sys()] + [user(f"u{i} " + "w" * 400) if i % 2 == 0 else asst(f"a{i} " + "w" * 400) for i in range(13)]
    cut = _v17_cut(messages, 1, 10)
    assert (cut.after_min_tail, cut.cut) == (6, 6)  # the upstream case: budget 10, 14 messages, head_end 1


def test_the_raw_re_walk_of_issue_40803():
    # 96,000 context, threshold 0.65 -> 64,000 (floor), ratio 0.45 -> budget 28,800, ceiling 43,200.
    messages = [sys()] + [(user if i % 2 == 0 else asst)("m" * 8_960) for i in range(20)]
    config = CompressorConfig(context_length=96_000, threshold_percent=0.65, summary_target_ratio=0.45,
                              protect_first_n=2, profile="v0.17.0")
    assert config.tail_token_budget == 28_800
    for protect_last_n in (3, 20):
        cut = _v17_cut(messages, 3, 28_800, protect_last_n)
        assert cut.rewalk_cut == 8 and cut.cut == 8
    assert boundaries.find_tail_cut(messages, 3, 28_800).cut == 18  # v0.16.0 forced n - 3


@pytest.mark.parametrize(
    ("content", "visible"),
    [("  ", False), ("ok", True), (None, False), ([{"type": "text", "text": "  "}], False),
     ([{"type": "output_text", "content": "hi"}], True), ([{"text": None, "content": "hi"}], True),
     (["bare string"], False), ([{"type": "text", "text": 5}], False), ({"text": "x"}, False)],
)
def test_which_assistant_reply_the_user_saw(content, visible):
    messages = [user("q"), asst("earlier reply"), user("again"), asst(content), tool("t", "x")]
    assert boundaries.last_assistant_index(messages, 0) == (3 if visible else 1)


def test_the_reply_s_tool_group_joins_the_tail():
    big = "y" * 80_000
    messages = [sys(), user("go"), asst(None, [call("c1", "terminal", {"command": "x"})]), tool("c1", "ok"),
                asst("the reply the user saw"), user("next"),
                asst(None, [call("c2", "t", {})]), tool("c2", big), asst(None, [call("c3", "t", {})]), tool("c3", big),
                asst(None, [call("c4", "t", {})]), tool("c4", big), asst(None, [call("c5", "t", {})]), tool("c5", big)]
    cut = _v17_cut(messages, 1, 100)
    assert (cut.after_last_user, cut.last_assistant_index, cut.cut) == (5, 4, 2)
    assert cut.steps[-1] == "last_assistant"
    assert boundaries.find_tail_cut(messages, 1, 100).cut == 5  # v0.16.0 summarises the reply


# --- v0.18.0 last user and turn pairs -------------------------------------------------------------


def test_a_user_role_summary_is_not_the_last_user_message():
    big = "b" * 40_000
    messages = [sys(), asst("hello"), user("real ask"), asst(big), user(SUMMARY_PREFIX_V0_17_0 + "\nold"),
                asst(big), asst(None, [call("c3", "terminal", {"command": "x"})]), tool("c3", "ok"), asst("done")]
    ends = {}
    for name in ("v0.17.0", "v0.18.0"):
        config = CompressorConfig(context_length=100_000, protect_first_n=0, profile=name)
        ends[name] = ContextCompressor(config).plan(messages).compress_end
    assert ends == {"v0.17.0": 4, "v0.18.0": 2}


@pytest.mark.parametrize(
    ("pair_has_text", "later_text", "v18_end"),
    [(True, False, 2), (False, True, 4), (False, False, 4)],
)
def test_a_user_at_the_head_boundary_keeps_its_reply(pair_has_text, later_text, v18_end):
    result = "r" * 30_000
    first = asst("reply text" if pair_has_text else None, [call("c1", "terminal", {"command": "a"})])
    messages = [sys(), user("ask"), first, tool("c1", result),
                asst("later text" if later_text else None, [call("c2", "terminal", {"command": "b"})]), tool("c2", result),
                asst(None, [call("c3", "terminal", {"command": "c"})]), tool("c3", result),
                asst(None, [call("c4", "terminal", {"command": "d"})]), tool("c4", result)]
    ends = {}
    for name in ("v0.17.0", "v0.18.0"):
        config = CompressorConfig(context_length=100_000, protect_first_n=0, profile=name)
        ends[name] = ContextCompressor(config).plan(messages).compress_end
    assert ends == {"v0.17.0": 2, "v0.18.0": v18_end}


def test_pair_end_and_the_head_boundary_case():
    messages = [user("a"), user("b"), asst("c"), tool("t", "x"), asst("e")]
    assert boundaries.turn_pair_end(messages, 1) == 4
    rule = boundaries.LAST_USER_RULES["real-user-pair"]
    assert rule.apply(messages, 3, 1, rule.find(messages, 1, lambda c: False)) == 4
    assert boundaries.turn_pair_end([user("a")], 0) == 1
    assert boundaries.turn_pair_end([user("a"), tool("t", "x")], 0) == 1


# --- v0.18.0 Phase 4 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("tail text", PRIOR_CONTEXT_HEADER + "\ntail text\n\n" + PRIOR_CONTEXT_DELIMITER + "\n\nS\n\n" + END_MARKER),
        ("", PRIOR_CONTEXT_HEADER + "\n\n\n" + PRIOR_CONTEXT_DELIMITER + "\n\nS\n\n" + END_MARKER),
        (None, PRIOR_CONTEXT_HEADER + "\n\n\n" + PRIOR_CONTEXT_DELIMITER + "\n\nS\n\n" + END_MARKER),
        ({"k": 1}, PRIOR_CONTEXT_HEADER + "\n{'k': 1}\n\n" + PRIOR_CONTEXT_DELIMITER + "\n\nS\n\n" + END_MARKER),
    ],
)
def test_the_merged_layout(content, expected):
    merged = assemble.merge_summary_into({"role": "user", "content": content, "x": 1}, "S", V18)
    assert merged == {"role": "user", "content": expected, "x": 1, "_compressed_summary": True}
    missing = assemble.merge_summary_into({"role": "user", "_compressed_summary": False, "x": 1}, "S", V18)
    assert list(missing) == ["role", "_compressed_summary", "x", "content"] and missing["_compressed_summary"] is True
    parts = assemble.merge_summary_into({"role": "user", "content": ["bare", {"type": "text", "text": "t"}]}, "S", V18)
    assert parts["content"][0] == {"type": "text", "text": PRIOR_CONTEXT_HEADER + "\n"}
    assert parts["content"][1:3] == ["bare", {"type": "text", "text": "t"}]
    assert parts["content"][3]["text"].endswith(END_MARKER)


def test_v0_17_0_prepends_and_flags_the_merged_message():
    merged = assemble.merge_summary_into({"role": "user", "_compressed_summary": False, "x": 1}, "S", V17)
    assert merged == {"role": "user", "_compressed_summary": True, "x": 1, "content": "S\n\n" + END_MARKER + "\n\n"}


@pytest.mark.parametrize(
    ("head", "tail", "v17", "v18"),
    [("system", "assistant", ("user", False), ("user", False)),
     ("system", "user", ("assistant", False), (None, True)),
     ("system", "tool", ("assistant", False), ("user", False)),
     ("user", "user", ("assistant", False), ("assistant", False))],
)
def test_the_summary_role_is_pinned_after_a_system_head(head, tail, v17, v18):
    messages = [{"role": head, "content": "h"}, {"role": "assistant", "content": "m"}, {"role": tail, "content": "t"}]
    for rule, expected in ((V17.role_rule, v17), (V18.role_rule, v18)):
        placement = assemble.ROLE_RULES[rule](messages, 1, 2)
        assert (placement.role, placement.merged) == expected


def test_orphaned_calls_are_stripped():
    calls = [call("a", "terminal", {"command": "x"}), call("b", "terminal", {"command": "y"})]
    messages = [asst("keep the text", calls), tool("a", "ok"), asst(None, [call("c", "t", {})]),
                asst("  ", [call("d", "t", {})]), asst([{"type": "text", "text": ""}], [call("e", "t", {})]),
                {"role": "assistant", "tool_calls": [call("f", "t", {})]}, {"role": "assistant", "content": "", "tool_calls": []},
                asst(None, [{"call_id": "g", "id": "h", "function": {"name": "t", "arguments": "{}"}}]), tool("h", "x")]
    out, report = assemble.sanitize_tool_pairs(messages, "strip")
    assert out[0] == {"role": "assistant", "content": "keep the text", "tool_calls": [calls[0]]}
    assert out[2] == {"role": "assistant", "content": TOOL_CALL_REMOVED}
    assert out[3] == {"role": "assistant", "content": TOOL_CALL_REMOVED}
    assert out[4] == {"role": "assistant", "content": [{"type": "text", "text": ""}]}
    assert out[5] == {"role": "assistant", "content": TOOL_CALL_REMOVED}
    assert out[6] == {"role": "assistant", "content": "", "tool_calls": []}
    assert out[7] == {"role": "assistant", "content": TOOL_CALL_REMOVED}  # call_id g unanswered; h is an orphan
    assert len(out) == 8 and STUB_RESULT not in json.dumps(out)
    assert report.orphans_removed == [8] and sum(len(ids) for _i, ids in report.calls_stripped) == 6
    assert messages[0]["tool_calls"] == calls  # the input is not changed


# --- v0.18.0 detection past the delimiter -----------------------------------------------------------


def test_summaries_after_the_delimiter_are_recognised_and_stripped():
    rule = summary.summary_text_rule(V18)
    assert rule.is_summary_text("x" + PRIOR_CONTEXT_DELIMITER + "  [CONTEXT SUMMARY]: LEG")
    assert not rule.is_summary_text("hello " + PRIOR_CONTEXT_DELIMITER + " world")
    two = "a" + PRIOR_CONTEXT_DELIMITER + " b " + PRIOR_CONTEXT_DELIMITER + SUMMARY_PREFIX_V0_17_0
    assert not rule.is_summary_text(two)
    merged = assemble.merge_summary_into(user("ask"), SUMMARY_PREFIX_V0_17_0 + "\nbody", V18)["content"]
    assert rule.strip(merged) == "body"
    older = SUMMARY_PREFIX_V0_17_0 + "\nbody\n\n" + END_MARKER + "\n\nold tail"
    assert rule.strip(older) == "body\n\n" + END_MARKER + "\n\nold tail"
    assert summary.with_summary_prefix("text before " + PRIOR_CONTEXT_DELIMITER + " after", V18) == (
        SUMMARY_PREFIX_V0_17_0 + "\nafter")
    v17 = summary.summary_text_rule(V17)
    assert v17.strip(SUMMARY_PREFIX_V0_16_0 + "\n\n" + END_MARKER) == ""  # a prefix and a marker only
    assert v17.strip("  body \n\n" + END_MARKER + "  ") == "body"


# --- v0.18.0 failures, flags and hooks ---------------------------------------------------------------


class Status(Exception):
    def __init__(self, text: str, status: object) -> None:
        super().__init__(text)
        self.status_code = status


class Responded(Exception):
    def __init__(self, text: str, status: object) -> None:
        super().__init__(text)
        self.response = type("R", (), {"status_code": status})()


class APIConnectionError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "cooldown", "reason", "outcome"),
    [
        (RuntimeError("No LLM provider configured for task=compression provider=auto."), 600,
         "no auxiliary LLM provider configured", "fallback"),
        (RuntimeError("no provider"), 60, "no provider", "fallback"),
        (RuntimeError("Connection refused"), 30, "Connection refused", "aborted"),
        (Status("denied", 401), 60, "denied", "aborted"),
        (Responded("nope", 403), 60, "nope", "aborted"),
        (Status("float status", 401.0), 60, "float status", "aborted"),
        (Status("string status", "401"), 60, "string status", "fallback"),
        (Exception("Error code: 401 - Unauthorized"), 60, "Error code: 401 - Unauthorized", "aborted"),
        (Exception("API key is invalid"), 60, "API key is invalid", "aborted"),
        (Exception("invalid api_key"), 60, "invalid api_key", "fallback"),
        (Exception("Request timed out."), 30, "Request timed out.", "aborted"),
        (Exception("timeout"), 60, "timeout", "fallback"),
        (ConnectionError("boom"), 30, "boom", "aborted"),
        (TimeoutError(), 30, "TimeoutError", "aborted"),
        (APIConnectionError("x"), 30, "x", "aborted"),
        (BrokenPipeError("pipe"), 60, "pipe", "fallback"),
        (Exception("Expecting value: line 1 column 1 (char 0)"), 30, "Expecting value: line 1 column 1 (char 0)",
         "fallback"),
        (Exception(""), 60, "Exception", "fallback"),
    ],
)
def test_v0_18_0_classifies_failures(exc, cooldown, reason, outcome):
    messages = [sys(), user("a"), asst("b")] + [user(f"u{i}") if i % 2 == 0 else asst(f"a{i}") for i in range(10)]
    clock = Clock(1_000.0)
    comp = ContextCompressor(CompressorConfig(profile="v0.18.0"), summarizer=failing(exc), clock=clock)
    result = comp.compress(messages)
    assert comp._summary_failure_cooldown_until == 1_000.0 + cooldown
    assert comp._last_summary_error == reason
    assert result.outcome == outcome
    assert not comp.should_compress(10**9)
    clock.now += cooldown + 1
    assert comp.should_compress(10**9) == (comp._ineffective_compression_count < 2)


def test_an_empty_summary_is_a_failure_that_names_the_model():
    messages = [sys(), user("a"), asst("b")] + [user(f"u{i}") if i % 2 == 0 else asst(f"a{i}") for i in range(10)]
    for answer in ("", "   \n", None, {}, 0):
        comp = ContextCompressor(CompressorConfig(profile="v0.18.0", model="test-model"), summarizer=lambda p, m, a=answer: a)
        result = comp.compress(messages)
        assert result.outcome == "fallback"
        assert comp._last_summary_error == "Context compression LLM returned empty content (provider=auto model=test-model)"
        assert comp.previous_summary is None
    zero_width = ContextCompressor(CompressorConfig(profile="v0.18.0"), summarizer=lambda p, m: "\u200b")
    assert zero_width.compress(messages).outcome == "summarized"
    accepted = ContextCompressor(CompressorConfig(profile="v0.17.0"), summarizer=lambda p, m: "")
    assert accepted.compress(messages).assembly.summary_text == SUMMARY_PREFIX_V0_17_0


def test_the_auth_and_network_flags_are_sticky():
    messages = [sys(), user("a"), asst("b")] + [user(f"u{i}") if i % 2 == 0 else asst(f"a{i}") for i in range(10)]
    clock = Clock(0.0)
    answers = iter([Status("denied", 401), None, ValueError("500"), RuntimeError("No LLM provider configured"),
                    "## Goal\nok", ValueError("later")])

    def scripted(prompt, max_tokens):
        answer = next(answers)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    comp = ContextCompressor(CompressorConfig(profile="v0.18.0"), summarizer=scripted, clock=clock)
    assert comp.compress(messages).abort_reason == "authentication"
    skipped = comp.compress(messages)  # inside the cooldown: no call, aborts again, no reason
    assert skipped.outcome == "aborted" and skipped.summarizer_calls == [] and skipped.failure_reason is None
    next(answers)  # (the skipped call used no answer)
    comp.on_session_end("s", messages)
    comp.on_session_reset()
    assert comp.compress(messages, force=True).outcome == "aborted"  # a plain 500 aborts while the flag is up
    assert comp.compress(messages, force=True).outcome == "aborted"  # so does "no provider"
    assert comp.compress(messages, force=True).outcome == "summarized"  # a success clears the flags
    assert comp.compress(messages, force=True).outcome == "fallback"


def test_what_the_session_hooks_clear():
    messages = [sys(), user("a"), asst("b")] + [user(f"u{i}") if i % 2 == 0 else asst(f"a{i}") for i in range(10)]
    for name, count_kept, cooldown_cleared in (("v0.17.0", 1, False), ("v0.18.0", 1, True)):
        comp = ContextCompressor(CompressorConfig(profile=name), summarizer=failing(ValueError("x")), clock=Clock())
        comp.compress(messages)
        comp._previous_summary = "body"
        comp.awaiting_real_usage_after_compression = True
        comp.on_session_end("s", messages)
        assert comp.previous_summary is None and comp.compression_count == count_kept
        assert (comp._summary_failure_cooldown_until == 0.0) == cooldown_cleared
        assert comp.awaiting_real_usage_after_compression == (not cooldown_cleared)
    v16 = ContextCompressor(CompressorConfig(profile="v0.16.0"))
    v16._previous_summary = "body"
    v16.on_session_end("s", [])
    assert v16.previous_summary == "body"  # the engine's default hook does nothing


def test_the_head_decays_after_the_first_compaction():
    messages = [sys(), user("task")] + [asst(f"a{i} " + "x" * 3_000) if i % 2 else user(f"u{i}") for i in range(30)]
    comp = ContextCompressor(CompressorConfig(profile="v0.18.0", protect_first_n=3), summarizer=lambda p, m: "## Goal\nx")
    first = comp.compress(messages, force=True)
    assert first.plan.compress_start == 4 and not first.plan.head_decayed
    second = comp.plan(first.messages + [user("next")])
    assert second.head_size == 1 and second.head_decayed
    v17 = ContextCompressor(CompressorConfig(profile="v0.17.0", protect_first_n=3), summarizer=lambda p, m: "## Goal\nx")
    v17.compress(messages, force=True)
    assert v17.plan(first.messages).head_size == 4


def test_update_model_resets_calibration_and_keeps_the_reserve_unless_given():
    comp = ContextCompressor(CompressorConfig(profile="v0.18.0", context_length=200_000, max_tokens=65_536))
    comp.update_from_response({"prompt_tokens": 50_000})
    comp._ineffective_compression_count = 2
    comp.update_model("gpt-x", 200_000)
    assert comp.max_tokens == 65_536 and comp.threshold_tokens == 67_232
    assert comp.last_prompt_tokens == 0 and comp._ineffective_compression_count == 0
    comp.update_model(max_tokens=4_096)
    assert comp.threshold_tokens == 97_952


# --- v0.17.0 automatic focus and MEDIA ---------------------------------------------------------------


def test_the_automatic_focus():
    redact = summary.summary_text_rule(V17)  # noqa: F841  (the rule the compressor passes)
    is_summary = summary.summary_text_rule(V17).is_summary_content

    def derive(messages):
        return focus.derive_auto_focus(messages, is_summary, lambda t: t.replace("secret", "***"))

    assert derive([asst("x"), user(""), user("   "), user(None)]) is None
    long = "word " * 80
    got = derive([user("first"), user(SUMMARY_PREFIX_V0_17_0 + "\nold"), user({"k": "v"}),
                  user([{"type": "text", "text": "a\u2003secret\tb"}]), user(long)])
    lines = got.split("\n")
    assert lines[0] == "Recent user focus:"
    assert lines[1] == "- {'k': 'v'}" and lines[2] == "- a *** b"
    assert lines[3].endswith("…") and len(lines[3]) == 2 + 260
    many = derive([user("x" * 250) for _ in range(3)])
    assert len(many) <= 700


@pytest.mark.parametrize(
    ("content", "turns"),
    [("Here is the audio MEDIA:/tmp/voice.ogg done.", "[USER]: Here is the audio [media attachment] done."),
     ("MEDIA:/a.ogg and MEDIA:/b.mp3", "[USER]: [media attachment] and [media attachment]"),
     ('xMEDIA:/a/b"}', "[USER]: x[media attachment]"),
     ("MEDIA: x and media:/x", "[USER]: MEDIA: x and media:/x"),
     ([{"type": "text", "text": "see MEDIA:/x.png"}], "[USER]: [{'type': 'text', 'text': 'see [media attachment]")],
)
def test_media_directives_in_the_turns_block(content, turns):
    text = summary.serialize_for_summary([user(content)], lambda t: t, media_directives=True)
    assert text == turns
    assert summary.serialize_for_summary([user(content)], lambda t: t) == f"[USER]: {content}"


def test_media_in_tool_arguments_stays():
    turns = [asst(None, [call("c", "tts", {"path": "MEDIA:/x.ogg"})])]
    assert "MEDIA:/x.ogg" in summary.serialize_for_summary(turns, lambda t: t, media_directives=True)
