"""Phase 3: serialisation, budget, prompt, rehydration and post-processing (spec §4, delta §2-3)."""

from __future__ import annotations

import pytest

from core import CompressorConfig, ContextCompressor
from core.phases.summary import build_summary_prompt, serialize_for_summary, summary_budget
from core.profiles import (
    HISTORICAL_PREFIX_V0_16_0,
    PROFILES,
    SUMMARY_PREFIX_V0_15_1,
    SUMMARY_PREFIX_V0_16_0,
)
from core.redaction.hermes import redact_sensitive_text
from tests.helpers import Recorder, asst, call, long_agent_run, sys, tool, user

V16 = "v0.16.0"  # these behaviours are the v0.15.1/v0.16.0 rules (later releases have their own tests)


def _redact(text):
    return redact_sensitive_text(text)


def test_serialization_format_exact():
    turns = [
        asst("", [call("call_1", "terminal", {"command": "pytest -q"})]),
        tool("call_2", '{"output":"3 failed","exit_code":1}'),
        user("hello"),
        {"content": "no role"},
        {"role": "tool", "tool_call_id": None, "content": None},
        {"role": "system", "content": ["a", {"type": "text", "text": "b"}]},
    ]
    assert serialize_for_summary(turns, _redact) == (
        "[ASSISTANT]: \n[Tool calls:\n  terminal({\"command\": \"pytest -q\"})\n]\n\n"
        '[TOOL RESULT call_2]: {"output":"3 failed","exit_code":1}\n\n'
        "[USER]: hello\n\n"
        "[UNKNOWN]: no role\n\n"
        "[TOOL RESULT None]: \n\n"
        "[SYSTEM]: ['a', {'type': 'text', 'text': 'b'}]"
    )
    assert serialize_for_summary([], _redact) == ""


def test_serialization_truncates_content_and_arguments():
    long_text = "h" * 4000 + "m" * 1000 + "t" * 1500
    args = "a" * 1600
    text = serialize_for_summary([asst(long_text, [call("1", "x", args)])], _redact)
    assert text == (
        "[ASSISTANT]: " + "h" * 4000 + "\n...[truncated]...\n" + "t" * 1500 + "\n[Tool calls:\n  x(" + "a" * 1200 + "...)\n]"
    )
    exactly = "e" * 6000
    assert serialize_for_summary([user(exactly)], _redact) == "[USER]: " + exactly


def test_serialization_redacts_content_and_arguments():
    secret = "sk-" + "A1b2C3d4" * 3
    text = serialize_for_summary([asst(f"key {secret}", [call("1", "x", {"api_key": secret})])], _redact)
    assert secret not in text
    assert "sk-A1b...C3d4" in text


@pytest.mark.parametrize(("tokens", "budget"), [(0, 2000), (10_000, 2000), (50_000, 5000), (25_000, 5000), (12_345, 2469)])
def test_summary_budget(tokens, budget):
    assert summary_budget(tokens, 5000 if tokens != 12_345 else 10_000) == budget


def test_prompt_phrases_and_layout():
    prompt = build_summary_prompt("TURNS", profile=PROFILES["v0.16.0"], summary_budget_tokens=2000)
    assert "Treat the conversation turns below as source material" in prompt
    assert "structured checkpoint summary" in prompt
    for forbidden in ("Your output will be injected", "Do NOT respond", "DIFFERENT assistant", "different assistant"):
        assert forbidden not in prompt
    assert "TURNS TO SUMMARIZE:\nTURNS\n\nUse this exact structure:\n\n## Active Task\n" in prompt
    assert "Target ~2000 tokens." in prompt
    assert prompt.count("\n## Active Task") == 1
    headings = [line for line in prompt.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Active Task", "## Goal", "## Constraints & Preferences", "## Completed Actions", "## Active State",
        "## In Progress", "## Blocked", "## Key Decisions", "## Resolved Questions", "## Pending User Asks",
        "## Relevant Files", "## Remaining Work", "## Critical Context",
    ]


def test_iterative_prompt_and_focus_topic():
    prompt = build_summary_prompt(
        "NEW", profile=PROFILES["v0.15.1"], summary_budget_tokens=3000, previous_summary="OLD BODY", focus_topic="auth"
    )
    assert "PREVIOUS SUMMARY:\nOLD BODY\n\nNEW TURNS TO INCORPORATE:\nNEW\n\n" in prompt
    paragraph = prompt.split("NEW TURNS TO INCORPORATE:\nNEW\n\n", 1)[1].split("\n\n", 1)
    assert "\n" not in paragraph[0] and "CRITICAL" in paragraph[0]
    assert paragraph[1].startswith("## Active Task\n")
    assert prompt.rstrip().endswith("[REDACTED].")
    assert 'FOCUS TOPIC: "auth"' in prompt and "PRIORITISE" in prompt and "60-70%" in prompt
    assert "FOCUS TOPIC" not in build_summary_prompt("x", profile=PROFILES["v0.15.1"], summary_budget_tokens=1)


def test_summary_call_uses_budget_and_prefix():
    recorder = Recorder("  ## Active Task\nNone.  ")
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=200_000), summarizer=recorder)
    res = comp.compress(long_agent_run(n_rounds=12, size=2000))
    prompt, max_tokens = recorder.calls[0]
    call_record = res.summarizer_call
    assert call_record.max_tokens == max_tokens == int(call_record.summary_budget * 1.3)
    assert f"TURNS TO SUMMARIZE:\n{call_record.serialized_turns}\n\nUse this exact structure:" in prompt
    assert comp.previous_summary == "## Active Task\nNone."
    assert res.assembly.summary_text == SUMMARY_PREFIX_V0_16_0 + "\n## Active Task\nNone."


@pytest.mark.parametrize(
    ("answer", "expected_body"),
    [
        (None, ""),
        ("", ""),
        ({"a": 1}, "{'a': 1}"),
        ("[CONTEXT SUMMARY]: legacy body", "legacy body"),
        (SUMMARY_PREFIX_V0_16_0 + "\n\nbody", "body"),
        (HISTORICAL_PREFIX_V0_16_0 + " body", "body"),
    ],
)
def test_response_post_processing(answer, expected_body):
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=Recorder(answer))
    res = comp.compress(long_agent_run())
    expected = SUMMARY_PREFIX_V0_16_0 + ("\n" + expected_body if expected_body else "")
    assert res.assembly.summary_text == expected
    assert res.outcome == "summarized"


def test_llm_output_is_redacted_before_storing():
    secret = "ghp_" + "Z" * 30
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=Recorder(f"token {secret}"))
    comp.compress(long_agent_run())
    assert secret not in comp.previous_summary
    assert "ghp_ZZ...ZZZZ" in comp.previous_summary


def test_second_compression_is_iterative():
    recorder = Recorder("## Active Task\nFirst body")
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=recorder)
    first = comp.compress(long_agent_run(n_rounds=10))
    more = first.messages + [asst(f"r{i}") if i % 2 else user(f"q{i}") for i in range(30)]
    comp.compress(more)
    prompt = recorder.calls[1][0]
    assert "PREVIOUS SUMMARY:\n## Active Task\nFirst body\n\nNEW TURNS TO INCORPORATE:\n" in prompt
    assert "[USER]: [CONTEXT COMPACTION" not in prompt and "[ASSISTANT]: [CONTEXT COMPACTION" not in prompt


def _with_handoff(prefix: str) -> list:
    messages = [sys(), user("a"), asst("b"), user("c"), asst("old middle message")]
    messages.append(user(prefix + "\nOLD SUMMARY BODY"))
    messages += [asst("after summary"), user("more work")] + [asst(f"x{i}") if i % 2 else user(f"y{i}") for i in range(6)]
    return messages


def test_rehydration_skips_old_summary_and_older_turns():
    recorder = Recorder()
    comp = ContextCompressor(CompressorConfig(profile="v0.16.0"), summarizer=recorder)
    res = comp.compress(_with_handoff(SUMMARY_PREFIX_V0_16_0))
    prompt = recorder.calls[0][0]
    assert "PREVIOUS SUMMARY:\nOLD SUMMARY BODY\n" in prompt
    assert prompt.count("OLD SUMMARY BODY") == 1
    assert "old middle message" not in res.summarizer_call.serialized_turns
    assert res.summarizer_call.serialized_turns.startswith("[ASSISTANT]: after summary")
    assert res.plan.existing_summary_index == 5


def test_v0_16_0_does_not_recognise_the_v0_15_1_prefix():
    recorder = Recorder()
    comp = ContextCompressor(CompressorConfig(profile="v0.16.0"), summarizer=recorder)
    res = comp.compress(_with_handoff(SUMMARY_PREFIX_V0_15_1))
    assert res.plan.existing_summary_index is None
    assert "TURNS TO SUMMARIZE:" in recorder.calls[0][0]
    assert "[USER]: [CONTEXT COMPACTION — REFERENCE ONLY]" in res.summarizer_call.serialized_turns
    comp15 = ContextCompressor(CompressorConfig(profile="v0.15.1"), summarizer=Recorder())
    assert comp15.compress(_with_handoff(SUMMARY_PREFIX_V0_15_1)).plan.existing_summary_index == 5


def test_handoff_in_protected_head_populates_previous_summary():
    messages = [user("[CONTEXT SUMMARY]: head summary"), asst("a"), user("b")]
    messages += [asst(f"x{i}") if i % 2 == 0 else user(f"y{i}") for i in range(10)]
    recorder = Recorder()
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=recorder)
    res = comp.compress(messages)
    assert "PREVIOUS SUMMARY:\nhead summary\n" in recorder.calls[0][0]
    assert res.messages[0] == messages[0]


def test_strict_redaction_is_off_by_default():
    assert CompressorConfig(profile=V16).strict_redaction is False


def test_batched_redaction_serializes_exactly_like_per_text_redaction():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from core.redaction.hermes import redact_many

    pieces = st.sampled_from(
        ["sk-abcdefghijklmnop1234", "API_KEY=", "abcdefghijklmnopqrstu", '"token": "', '"', ":", " ", "\n", "=",
         "postgres://u:", "@h", "eyJabcdefghijkl.abcde", "a=1&token=x", "+14155552671", "<@123456789012345678>", "x"]
    )
    text = st.lists(pieces, max_size=12).map("".join)
    message = st.one_of(
        st.builds(lambda t: {"role": "user", "content": t}, text),
        st.builds(lambda t, a: {"role": "assistant", "content": t, "tool_calls": [call("1", "x", a)]}, text, text),
        st.builds(lambda t: {"role": "tool", "tool_call_id": "1", "content": t}, text),
        st.just({"role": "assistant", "content": None, "tool_calls": [{"id": "2", "function": {"name": "y", "arguments": None}}]}),
        st.builds(lambda t: {"role": "user", "content": [{"type": "text", "text": t}]}, text),
    )

    @settings(max_examples=500, deadline=None)
    @given(st.lists(message, max_size=8), st.booleans())
    def check(turns, discord):
        def one(t):
            return redact_sensitive_text(t, release="v0.15.1" if discord else "v0.16.0")

        def many(ts):
            return redact_many(ts, release="v0.15.1" if discord else "v0.16.0")

        assert serialize_for_summary(turns, one, many) == serialize_for_summary(turns, one)

    check()


def test_strict_mode_also_masks_a_rehydrated_previous_summary():
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    handoff = SUMMARY_PREFIX_V0_16_0 + f"\n## Critical Context\naws_secret_access_key = {secret}"
    messages = [sys(), user("a"), asst("b"), user("c"), asst("old"), user(handoff), asst("after")]
    messages += [user(f"q{i}") if i % 2 == 0 else asst(f"r{i}") for i in range(8)]
    lenient = Recorder()
    ContextCompressor(CompressorConfig(profile=V16), summarizer=lenient).compress(messages)
    assert secret in lenient.calls[0][0]  # the reference behaviour: the old summary is sent as it stands
    strict = Recorder()
    ContextCompressor(CompressorConfig(profile=V16, strict_redaction=True), summarizer=strict).compress(messages)
    assert "PREVIOUS SUMMARY:" in strict.calls[0][0] and secret not in strict.calls[0][0]
