"""The worked examples of the v0.18.1 and v0.19.0 deltas, reproduced exactly (byte for byte)."""

from __future__ import annotations

import json

import pytest

from core import CompressorConfig, ContextCompressor
from core.phases.summary import ReferenceCrash
from core.profiles import (
    END_MARKER,
    PRIOR_CONTEXT_DELIMITER,
    PRIOR_CONTEXT_HEADER,
    SUMMARY_PREFIX_V0_17_0,
    SUMMARY_PREFIX_V0_19_0,
    SYSTEM_NOTE,
)
from tests.helpers import Clock, Recorder, asst, call, sys, tool, user

V018_PREFIX = SUMMARY_PREFIX_V0_17_0  # v0.18.x write the v0.17.0 prefix


def _compressor(profile: str, recorder, **config) -> ContextCompressor:
    base = {"context_length": 100_000, "model": "test-model", "profile": profile}
    return ContextCompressor(CompressorConfig(**{**base, **config}), summarizer=recorder, clock=Clock(1000.0))


def _turns(compressor_result) -> str:
    return compressor_result.summarizer_call.serialized_turns


# --- v0.18.1 §9.1: the zero-user-turn guard -------------------------------------------------------------

WORKER_SUMMARY = "## Historical Task Snapshot\nUser asked: 'work kanban task 42'\n\n## Goal\nFinish task 42."


def _worker_session() -> list[dict]:
    messages = [user("work kanban task 42")]
    for i in range(1, 7):
        messages.append(asst(None, [call(f"call_{i}", "terminal", {"command": f"kanban step {i}"})]))
        messages.append(tool(f"call_{i}", f"step {i} output\n" + "x" * 30_000))
    messages.append(asst("Task 42 is done."))
    return messages


WORKER_TURNS = (
    "[USER]: work kanban task 42\n\n"
    "[ASSISTANT]: \n[Tool calls:\n  terminal({\"command\": \"kanban step 1\"})\n]\n\n"
    "[TOOL RESULT call_1]: [terminal] ran `kanban step 1` -> exit ?, 2 lines output"
)


@pytest.mark.parametrize("profile", ["v0.18.0", "v0.18.1"])
def test_worker_session_without_a_surviving_user_turn(profile):
    assert len(WORKER_SUMMARY) == 86
    recorder = Recorder(WORKER_SUMMARY)
    compressor = _compressor(profile, recorder, protect_first_n=0, protect_last_n=2)
    messages = _worker_session()
    result = compressor.compress(messages)
    assert (result.plan.compress_start, result.plan.compress_end) == (0, 3)
    assert [m for _p, m in recorder.calls] == [2600]
    assert _turns(result) == WORKER_TURNS
    assert compressor.compression_count == 1 and compressor.previous_summary == WORKER_SUMMARY
    for i in range(1, 5):
        assert result.plan.work[2 * i]["content"] == f"[terminal] ran `kanban step {i}` -> exit ?, 2 lines output"
    out = result.messages
    if profile == "v0.18.0":
        assert len(out) == 11
        merged = out[0]
        assert merged["role"] == "assistant" and list(merged) == ["role", "content", "tool_calls", "_compressed_summary"]
        assert merged["content"] == (PRIOR_CONTEXT_HEADER + "\n" + "\n\n" + PRIOR_CONTEXT_DELIMITER + "\n\n" + V018_PREFIX
                                     + "\n" + WORKER_SUMMARY + "\n\n" + END_MARKER)
        assert len(merged["content"]) == 1_710
        assert out[1:] == result.plan.work[4:]  # the rest of the Phase-1 list (results 2-4 are one-liners)
        assert not any(m["role"] == "user" for m in out)
    else:
        assert len(out) == 12
        assert out[0] == {"role": "user", "content": V018_PREFIX + "\n" + WORKER_SUMMARY + "\n\n" + END_MARKER,
                          "_compressed_summary": True}
        assert len(out[0]["content"]) == 1_601
        assert out[1:] == result.plan.work[3:]
        assert out[1]["content"] is None


def test_a_role_less_first_tail_message_takes_the_pinned_summary():
    messages = [user("task"), asst("reply"), {"content": "no role here"}, asst("done"), asst("ok")]
    for profile, merged in (("v0.18.0", False), ("v0.18.1", True)):
        compressor = _compressor(profile, Recorder("## Goal\nG"), protect_first_n=0, protect_last_n=2)
        result = compressor.compress(messages, current_tokens=10**6)
        assert (result.plan.compress_start, result.plan.compress_end) == (0, 2)
        assert result.assembly.summary_merged is merged
        if merged:
            assert "role" not in result.messages[0]
        else:
            assert result.messages[0]["role"] == "assistant"


# --- v0.18.1 §9.2: provider replay fields move the tail cut -------------------------------------------

def _codex_session() -> list[dict]:
    messages = [sys("You are Codex."), user("Refactor the parser.")]
    for i in range(1, 21):
        assistant = asst(f"Step {i}.", [call(f"call_{i}", "terminal", {"command": f"pytest -k case{i}"})])
        assistant["codex_reasoning_items"] = [{"id": f"rs_{i}", "type": "reasoning", "encrypted_content": "E" * 8_000}]
        messages.append(assistant)
        messages.append(tool(f"call_{i}", f"case{i}: " + "." * 4_000))
    messages.append(user("Now run the full suite."))
    last = asst("Running it.")
    last["codex_reasoning_items"] = [{"id": "rs_x", "type": "reasoning", "encrypted_content": "F" * 2_000}]
    messages.append(last)
    return messages


@pytest.mark.parametrize(("profile", "end", "size", "merged_call"), [("v0.18.0", 16, 30, 8), ("v0.18.1", 26, 20, 13)])
def test_replay_fields_move_the_tail_cut(profile, end, size, merged_call):
    messages = _codex_session()
    assert len(messages) == 44
    compressor = _compressor(profile, Recorder("## Goal\nRefactor the parser."), protect_first_n=1, protect_last_n=4)
    result = compressor.compress(messages)
    assert (result.plan.compress_start, result.plan.compress_end) == (2, end)
    out = result.messages
    assert len(out) == size
    merged = out[2]
    assert merged["tool_calls"][0]["id"] == f"call_{merged_call}" and merged["_compressed_summary"] is True
    assert "codex_reasoning_items" in merged
    results = {m["tool_call_id"]: m["content"] for m in out if m.get("role") == "tool"}
    if profile == "v0.18.1":
        for i in range(13, 17):
            assert results[f"call_{i}"] == f"[terminal] ran `pytest -k case{i}` -> exit ?, 1 lines output"
        for i in range(17, 21):
            assert results[f"call_{i}"] == f"case{i}: " + "." * 4_000
    else:
        assert all(content.startswith("case") for content in results.values())


# --- v0.18.1 §9.3: the persistence marker and environment lookups ----------------------------------------

def _marked_session() -> list[dict]:
    output = ('OPENAI_API_KEY=os.getenv("OPENAI_API_KEY")\nFIREWORKS_KEY = "fw-' + "Ab3" * 12 + '"\n'
              "password: os.environ['DB_PW']\n" + "#" * 30_000)
    messages = [
        sys("You are Hermes."), user("Set up the OpenAI client."),
        asst("Reading config.", [call("call_1", "terminal", {"command": "cat settings.py"})]),
        tool("call_1", output),
        asst("Config uses env lookups; the Fireworks key is hard-coded."),
        user("Move the Fireworks key to the environment too."),
        asst("Done.", [call("call_2", "terminal", {"command": "edit"})]),
        tool("call_2", "ok"),
        asst("The key now comes from FIREWORKS_API_KEY."),
    ]
    return [{**m, "_db_persisted": True} for m in messages]


@pytest.mark.parametrize("profile", ["v0.18.0", "v0.18.1"])
def test_marker_stripping_and_environment_lookups(profile):
    messages = _marked_session()
    compressor = _compressor(profile, Recorder("## Goal\nMove secrets to env."), protect_first_n=1, protect_last_n=2)
    result = compressor.compress(messages)
    assert (result.plan.compress_start, result.plan.compress_end) == (2, 5)
    assert len(result.messages) == 7 and result.messages[2]["role"] == "assistant"
    tool_block = _turns(result).split("[TOOL RESULT call_1]: ", 1)[1]
    if profile == "v0.18.0":
        expected = ('OPENAI_API_KEY=***\nFIREWORKS_KEY = "fw-Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3"\n'
                    "password: os.env...PW']\n####")
        assert all("_db_persisted" in m for i, m in enumerate(result.messages) if i != 2)
    else:
        expected = ('OPENAI_API_KEY=os.getenv("OPENAI_API_KEY")\nFIREWORKS_KEY = "fw-Ab3...3Ab3"\n'
                    "password: os.environ['DB_PW']\n####")
        assert not any("_db_persisted" in m for m in result.messages)
    assert tool_block.startswith(expected)
    assert messages[0]["_db_persisted"] is True  # the input is never changed


def test_the_marker_stays_on_early_returns_and_aborts():
    messages = _marked_session()
    failing = ContextCompressor(CompressorConfig(context_length=100_000, profile="v0.18.1", protect_first_n=1,
                                                 protect_last_n=2, abort_on_summary_failure=True), summarizer=None)
    aborted = failing.compress(messages)
    assert aborted.aborted and all(m.get("_db_persisted") for m in aborted.messages)
    small = ContextCompressor(CompressorConfig(profile="v0.18.1")).compress(messages[:4])
    assert small.outcome == "too_small" and all(m.get("_db_persisted") for m in small.messages)


# --- v0.19.0 §19.1: a first compaction at 128K ---------------------------------------------------------

RELEASE_SUMMARY = "## Goal\nShip release 2.4.\n\n## Completed Actions\n1. Bumped the version to 2.4.0 [tool: terminal]"
GROUNDED_RELEASE = (
    "## Historical Task Snapshot\n"
    "User asked (deterministic, from compacted turns): 'Skip the flaky network tests in part 5; they need VPN.'\n"
    "Historical only; newer protected-tail messages after this summary win.\n\n"
    "## Goal\nShip release 2.4.\n\n## Completed Actions\n1. Bumped the version to 2.4.0 [tool: terminal]"
)


def _release_session() -> list[dict]:
    messages = [
        sys("You are Hermes, a release engineer."),
        user("Cut the 2.4 release: bump the version, run the tests, tag it."),
        asst("Bumping the version first.", [call("call_1", "terminal", {"command": "bump2version minor"})]),
        tool("call_1", json.dumps({"output": "2.3.9 -> 2.4.0", "exit_code": 0})),
    ]
    for i in range(2, 11):
        if i == 5:
            messages.append(user("Skip the flaky   network tests in part 5;\nthey need VPN."))
        messages.append(asst(None, [call(f"call_{i}", "terminal", {"command": f"pytest tests/part{i} -q"})]))
        messages.append(tool(f"call_{i}", f"part{i}: " + "." * 24_000 + '\n{"exit_code": 0}'))
    messages += [user("Also update CHANGELOG.md before tagging."), asst("Will do: CHANGELOG first, then the tag.")]
    return messages


@pytest.mark.parametrize("profile", ["v0.18.1", "v0.19.0"])
def test_a_first_compaction_at_128k(profile):
    messages = _release_session()
    assert len(messages) == 25
    recorder = Recorder(RELEASE_SUMMARY)
    compressor = _compressor(profile, recorder, context_length=128_000)
    result = compressor.compress(messages)
    new = profile == "v0.19.0"
    assert compressor.threshold_percent == (0.75 if new else 0.50)
    assert (compressor.threshold_tokens, compressor.tail_token_budget) == ((96_000, 19_200) if new else (64_000, 12_800))
    assert (result.plan.compress_start, result.plan.compress_end) == (4, 13 if new else 15)
    assert [m for _p, m in recorder.calls] == ([None] if new else [7_889])
    out = result.messages
    assert len(out) == (17 if new else 15)
    assert out[0]["content"] == "You are Hermes, a release engineer.\n\n" + SYSTEM_NOTE
    summary_message = out[4]
    assert summary_message["role"] == "user" and summary_message["_compressed_summary"] is True
    prefix, body = (SUMMARY_PREFIX_V0_19_0, GROUNDED_RELEASE) if new else (V018_PREFIX, RELEASE_SUMMARY)
    assert summary_message["content"] == prefix + "\n" + body + "\n\n" + END_MARKER
    assert compressor.previous_summary == body
    probes = [compressor.should_compress(t) for t in (95_999, 96_000, 64_000)]
    assert probes == ([False, True, False] if new else [True, True, True])
    assert len(SUMMARY_PREFIX_V0_19_0) == 1_632 and len(V018_PREFIX) == 1_428


# --- v0.19.0 §19.2: multimodal and reasoning content in the turns ----------------------------------------

def _chart_session(first_part: dict | None = None) -> list[dict]:
    question = [
        {"type": "text", "text": "Why does this chart look wrong?"},
        {"type": "image_url", "image_url": {"url": "https://files.example.com/chart.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]
    if first_part is not None:
        question = [first_part, *question]
    messages = [
        sys("sys"), user("hi"), asst("hello"), user(question),
        asst("<think>The y axis starts at 40, not 0.</think>The y-axis is truncated; see MEDIA:charts/fixed.png",
             [call("call_1", "terminal", {"command": "python plot.py --ymin 0"})]),
        tool("call_1", [{"type": "text", "text": "saved plot"},
                        {"type": "input_image", "image_url": "https://files.example.com/fixed.png"},
                        {"type": "file", "file_id": "f_1"}]),
        asst("Fixed.\n<reasoning>user may also want a legend"),
    ]
    for j in range(2, 8):
        messages.append(asst(None, [call(f"call_{j}", "terminal", {"command": f"render {j}"})]))
        messages.append(tool(f"call_{j}", "r" * 40_000))
    messages += [user("Thanks. Ship it."), asst("Shipping.")]
    return messages


CHART_TURNS_START = (
    "[USER]: Why does this chart look wrong?\n[image: https://files.example.com/chart.png]\n[image]\n\n"
    "[ASSISTANT]: The y-axis is truncated; see [media attachment]\n[Tool calls:\n"
    "  terminal({\"command\": \"python plot.py --ymin 0\"})\n]\n\n"
    "[TOOL RESULT call_1]: saved plot\n[image: https://files.example.com/fixed.png]\n[file]\n\n"
    "[ASSISTANT]: Fixed.\n\n"
    "[ASSISTANT]: \n[Tool calls:\n  terminal({\"command\": \"render 2\"})\n]"
)


def test_multimodal_and_reasoning_content_in_the_turns():
    compressor = _compressor("v0.19.0", Recorder("## Goal\nFix the chart."), protect_first_n=2)
    result = compressor.compress(_chart_session())
    assert result.plan.compress_start == 3
    assert _turns(result).startswith(CHART_TURNS_START)
    assert compressor.previous_summary == (
        "## Historical Task Snapshot\nUser asked (deterministic, from compacted turns): 'Why does this chart look "
        "wrong?'\nHistorical only; newer protected-tail messages after this summary win.\n\n## Goal\nFix the chart."
    )
    older = _compressor("v0.18.1", Recorder("## Goal\nFix the chart."), protect_first_n=2)
    old_turns = _turns(older.compress(_chart_session()))
    assert old_turns.startswith("[USER]: [{'type': 'text', 'text': 'Why does this chart look wrong?'}")
    assert "<think>The y axis starts at 40, not 0.</think>" in old_turns
    assert older.previous_summary == "## Goal\nFix the chart."


@pytest.mark.parametrize("summarizer", [Recorder("## Goal\nFix the chart."), None])
def test_a_text_part_that_is_not_a_string_is_the_release_crash(summarizer):
    session = _chart_session({"type": "text", "text": None})
    compressor = _compressor("v0.19.0", summarizer, protect_first_n=2)
    with pytest.raises(ReferenceCrash) as raised:
        compressor.compress(session)
    assert isinstance(raised.value, TypeError)
    assert str(raised.value) == "sequence item 0: expected str instance, NoneType found"
    assert raised.value.message_index == 3 and raised.value.release == "v0.19.0"
    assert "Hermes v0.19.0 would crash here: message 3" in raised.value.describe()
    assert compressor.compression_count == 0
    if summarizer is not None:
        assert summarizer.calls == []
    older = _compressor("v0.18.1", Recorder("## Goal\nFix the chart."), protect_first_n=2)
    assert older.compress(session).outcome == "summarized"


# --- v0.19.0 §19.3: forward re-alignment of the tail cut ---------------------------------------------------

def _build_session() -> list[dict]:
    return [
        sys("You are a build agent."), user("Build the project."),
        asst("Starting the build.", [call("call_1", "terminal", {"command": "make step1"})]),
        tool("call_1", "A" * 30_000),
        asst(None, [call("call_2", "terminal", {"command": "make step2"})]),
        tool("call_2", "B" * 30_000),
        asst(None, [call("call_3", "terminal", {"command": "make step3"})]),
        tool("call_3", "C" * 30_000),
    ]


def test_forward_realignment_of_the_tail_cut():
    head = "[ASSISTANT]: Starting the build.\n[Tool calls:\n  terminal({\"command\": \"make step1\"})\n]"
    old = _compressor("v0.18.1", Recorder("## Goal\nBuild."), protect_first_n=1)
    result = old.compress(_build_session())
    assert result.plan.compress_end == 3 and _turns(result) == head
    assert [m["role"] for m in result.messages] == ["system", "user", "assistant", "assistant", "tool", "assistant", "tool"]
    assert result.messages[2]["content"].startswith(V018_PREFIX)

    new = _compressor("v0.19.0", Recorder("## Goal\nBuild."), protect_first_n=1)
    result = new.compress(_build_session())
    assert result.plan.compress_end == 4
    turns = _turns(result)
    assert turns == head + "\n\n[TOOL RESULT call_1]: " + "A" * 4_000 + "\n...[truncated]...\n" + "A" * 1_500
    assert len(turns) == 5_628
    out = result.messages
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert out[2]["_compressed_summary"] is True and out[2]["tool_calls"][0]["id"] == "call_2"
    assert out[2]["content"] == (PRIOR_CONTEXT_HEADER + "\n" + "\n\n" + PRIOR_CONTEXT_DELIMITER + "\n\n"
                                 + SUMMARY_PREFIX_V0_19_0 + "\n## Goal\nBuild.\n\n" + END_MARKER)
    assert new.previous_summary == old.previous_summary == "## Goal\nBuild."
    assert "aligned_forward" in result.plan.tail_cut.steps


# --- v0.19.0 §19.4: quota abort, sticky flag and the timeout ladder ----------------------------------------

class Scripted:
    def __init__(self) -> None:
        self.answer: object = "## Goal\nDone."

    def __call__(self, prompt: str, max_tokens: int | None) -> str:
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


class RateLimitError(Exception):
    status_code = 429


def _sixteen() -> list[dict]:
    messages = [sys("You are Hermes."), user("Audit the services.")]
    for i in range(6):
        messages.append(asst(None, [call(f"c{i}", "terminal", {"command": f"check {i}"})]))
        messages.append(tool(f"c{i}", f"service {i}\n" + "z" * 30_000))
    return messages + [user("Summarise what you found."), asst("Writing it up.")]


def test_quota_abort_sticky_flag_and_the_timeout_ladder():
    clock = Clock(1000.0)
    summarizer = Scripted()
    compressor = ContextCompressor(CompressorConfig(context_length=100_000, model="test-model"),
                                   summarizer=summarizer, clock=clock)

    def round_(answer: object, advance: float = 0.0, force: bool = False):
        clock.now += advance
        summarizer.answer = answer
        result = compressor.compress(_sixteen(), force=force)
        return result, compressor._summary_failure_cooldown_until - clock.now

    quota = Exception("You exceeded your current quota, please check your plan and billing details "
                      "(insufficient_quota)")
    result, cooldown = round_(quota)
    assert result.aborted and len(result.messages) == 16 and compressor.compression_count == 0 and cooldown == 60
    assert compressor._last_summary_auth_failure is True
    assert not compressor.should_compress(10**9)
    result, cooldown = round_(RateLimitError("Error code: 429 - rate limited"), force=True)
    assert result.aborted and cooldown == 60 and not compressor.should_compress(10**9)
    result, cooldown = round_(RateLimitError("Error code: 429 - rate limited"), advance=61)
    assert result.aborted and cooldown == 300
    result, cooldown = round_(RateLimitError("Error code: 429 - rate limited"), advance=301)
    assert result.aborted and cooldown == 900
    result, _ = round_("## Goal\nDone.", advance=901)
    assert result.outcome == "summarized" and compressor.compression_count == 1 and len(result.messages) == 15
    assert compressor.should_compress(10**9)
    result, cooldown = round_(RateLimitError("Error code: 429 - rate limited"))
    assert result.outcome == "fallback" and compressor.compression_count == 2 and cooldown == 60
    assert not compressor.should_compress(10**9)


# --- v0.19.0 §19.5: early returns block should_compress ------------------------------------------------------

@pytest.mark.parametrize(("profile", "counters", "probes"), [("v0.18.1", [0, 0], [True, True]),
                                                             ("v0.19.0", [1, 2], [True, False])])
def test_early_returns_block_should_compress(profile, counters, probes):
    compressor = _compressor(profile, Recorder(), protect_first_n=3)
    short = [sys("s"), user("a"), asst("b"), user("c"), asst("d")]
    seen_counters, seen_probes = [], []
    for _ in range(2):
        result = compressor.compress(short)
        assert result.outcome == "too_small" and result.messages is short
        seen_counters.append(compressor._ineffective_compression_count)
        seen_probes.append(compressor.should_compress(10**9))
    assert (seen_counters, seen_probes) == (counters, probes)
    compressor.on_session_end("s", short)
    assert compressor._ineffective_compression_count == 0 and compressor.should_compress(10**9)


# --- v0.19.0 §19.6: the memory provider's context --------------------------------------------------------

def test_memory_provider_context_follows_the_turns():
    recorder = Recorder("## Goal\nG")
    compressor = _compressor("v0.19.0", recorder)
    memory = "Prefers <small> PRs & squash merges.\nDB: postgres://ops:hunter2@db/prod?sslmode=require&password=pw"
    result = compressor.compress(_sixteen(), memory_context=memory)
    prompt = recorder.calls[0][0]
    payload = ('"Prefers \\u003csmall\\u003e PRs \\u0026 squash merges.\\nDB: postgres://ops:***@db/prod'
               '?sslmode=require\\u0026password=***"')
    block_start = prompt.index("\n\nMEMORY PROVIDER CONTEXT:\n")
    assert prompt[:block_start].endswith(_turns(result))
    block = prompt[block_start:]
    lines = block.split("\n")
    assert lines[2] == "MEMORY PROVIDER CONTEXT:"
    assert lines[4] == "<memory-provider-context>" and lines[5] == payload and lines[6] == "</memory-provider-context>"
    assert block.split("</memory-provider-context>", 1)[1].startswith("\n\n")
    assert "hunter2" not in prompt
    assert compressor.previous_summary is not None and "memory" not in compressor.previous_summary.lower()
    # whitespace only is no block; earlier releases ignore the argument
    blank = _compressor("v0.19.0", Recorder("## Goal\nG"))
    blank.compress(_sixteen(), memory_context="  \n ")
    assert "MEMORY PROVIDER CONTEXT" not in blank.summarizer.calls[0][0]
    old = _compressor("v0.18.1", Recorder("## Goal\nG"))
    old.compress(_sixteen(), memory_context=memory)
    assert "MEMORY PROVIDER CONTEXT" not in old.summarizer.calls[0][0]


def test_a_long_memory_context_is_cut_to_its_head_and_tail():
    recorder = Recorder("## Goal\nG")
    _compressor("v0.19.0", recorder).compress(_sixteen(), memory_context="M" * 7_000)
    payload = recorder.calls[0][0].split("<memory-provider-context>\n", 1)[1].split("\n", 1)[0]
    assert json.loads(payload) == "M" * 4_000 + "\n...[memory provider context truncated]...\n" + "M" * 1_500
