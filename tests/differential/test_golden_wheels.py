"""The worked examples of the v0.18.1 delta (§9) and the v0.19.0 delta (§19), byte for byte,
run on the real published wheels through the differential harness.

They prove two things at once: that the spec's examples describe the releases, and that the
harness (runner, patches, prompt reader) reads the releases the way the spec does. The same
examples against the project's library live with the library's own tests.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from tests.differential.harness import run_hermes
from tests.differential.protocol import encode
from tests.differential.spec_strings import (
    END_MARKER,
    MERGE_DELIMITER,
    MERGE_HEADER,
    PREFIX_V0_17_0,
    PREFIX_V0_19_0,
)

BIG = 10**9


def sys_(content: str) -> dict[str, Any]:
    return {"role": "system", "content": content}


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def asst(content: Any, call_id: str | None = None, command: str | None = None, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if call_id:
        arguments = json.dumps({"command": command})
        message["tool_calls"] = [{"id": call_id, "type": "function", "function": {"name": "terminal", "arguments": arguments}}]
    message.update(extra)
    return message


def tool(call_id: str, content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def case(name: str, messages: list[dict[str, Any]], answer: Any, *, context: int = 100_000, extra_ops: list[dict[str, Any]] | None = None,
         probes: tuple[int, ...] = (BIG,), op: dict[str, Any] | None = None, **config: Any) -> dict[str, Any]:
    settings = {"context_length": context, "threshold_percent": 0.5, "protect_first_n": 3, "protect_last_n": 20,
                "summary_target_ratio": 0.2, "abort_on_summary_failure": False, "model": "test-model", "max_tokens": None,
                "summary_model": ""}
    settings.update(config)
    first = {"op": "compress", "messages": encode(messages), "responses": [answer], **(op or {})}
    return {"seed": name, "config": settings, "clock": 1000.0, "wall": {"iso": "2026-07-20T12:00:00+00:00"},
            "probes": list(probes), "ops": [first, *(extra_ops or [])]}


def worker_session() -> list[dict[str, Any]]:  # v0.18.1 §9.1
    messages = [user("work kanban task 42")]
    for i in range(1, 7):
        messages += [asst(None, f"call_{i}", f"kanban step {i}"), tool(f"call_{i}", f"step {i} output\n" + "x" * 30_000)]
    return [*messages, asst("Task 42 is done.")]


def replay_session() -> list[dict[str, Any]]:  # v0.18.1 §9.2
    messages = [sys_("You are Codex."), user("Refactor the parser.")]
    for i in range(1, 21):
        items = [{"id": f"rs_{i}", "type": "reasoning", "encrypted_content": "E" * 8_000}]
        messages += [asst(f"Step {i}.", f"call_{i}", f"pytest -k case{i}", codex_reasoning_items=items),
                     tool(f"call_{i}", f"case{i}: " + "." * 4_000)]
    items = [{"id": "rs_x", "type": "reasoning", "encrypted_content": "F" * 2_000}]
    return [*messages, user("Now run the full suite."), asst("Running it.", codex_reasoning_items=items)]


def lookup_session() -> list[dict[str, Any]]:  # v0.18.1 §9.3
    result = ('OPENAI_API_KEY=os.getenv("OPENAI_API_KEY")\nFIREWORKS_KEY = "fw-' + "Ab3" * 12 + '"\n'
              "password: os.environ['DB_PW']\n" + "#" * 30_000)
    messages = [sys_("You are Hermes."), user("Set up the OpenAI client."), asst("Reading config.", "call_1", "cat settings.py"),
                tool("call_1", result), asst("Config uses env lookups; the Fireworks key is hard-coded."),
                user("Move the Fireworks key to the environment too."), asst("Done.", "call_2", "sed -i s/fw/env/ settings.py"),
                tool("call_2", "ok"), asst("The key now comes from FIREWORKS_API_KEY.")]
    return [{**message, "_db_persisted": True} for message in messages]


def release_session() -> list[dict[str, Any]]:  # v0.19.0 §19.1
    messages = [sys_("You are Hermes, a release engineer."), user("Cut the 2.4 release: bump the version, run the tests, tag it."),
                asst("Bumping the version first.", "call_1", "bump2version minor"),
                tool("call_1", json.dumps({"output": "2.3.9 -> 2.4.0", "exit_code": 0}))]
    for i in range(2, 11):
        if i == 5:
            messages.append(user("Skip the flaky   network tests in part 5;\nthey need VPN."))
        messages += [asst(None, f"call_{i}", f"pytest tests/part{i} -q"), tool(f"call_{i}", f"part{i}: " + "." * 24_000 + '\n{"exit_code": 0}')]
    return [*messages, user("Also update CHANGELOG.md before tagging."), asst("Will do: CHANGELOG first, then the tag.")]


def chart_session(null_text: bool = False) -> list[dict[str, Any]]:  # v0.19.0 §19.2
    parts = [{"type": "text", "text": "Why does this chart look wrong?"},
             {"type": "image_url", "image_url": {"url": "https://files.example.com/chart.png"}},
             {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]
    if null_text:
        parts.insert(0, {"type": "text", "text": None})
    messages = [sys_("sys"), user("hi"), asst("hello"), user(parts),
                asst("<think>The y axis starts at 40, not 0.</think>The y-axis is truncated; see MEDIA:charts/fixed.png",
                     "call_1", "python plot.py --ymin 0"),
                tool("call_1", [{"type": "text", "text": "saved plot"},
                                {"type": "input_image", "image_url": "https://files.example.com/fixed.png"},
                                {"type": "file", "file_id": "f_1"}]),
                asst("Fixed.\n<reasoning>user may also want a legend")]
    for j in range(2, 8):
        messages += [asst(None, f"call_{j}", f"render {j}"), tool(f"call_{j}", "r" * 40_000)]
    return [*messages, user("Thanks. Ship it."), asst("Shipping.")]


def build_session() -> list[dict[str, Any]]:  # v0.19.0 §19.3
    return [sys_("You are a build agent."), user("Build the project."), asst("Starting the build.", "call_1", "make step1"),
            tool("call_1", "A" * 30_000), asst(None, "call_2", "make step2"), tool("call_2", "B" * 30_000),
            asst(None, "call_3", "make step3"), tool("call_3", "C" * 30_000)]


def sixteen() -> list[dict[str, Any]]:  # v0.19.0 §19.4 and §19.6
    messages = [sys_("You are Hermes."), user("Refactor the storage layer.")]
    for i in range(1, 7):
        messages += [asst(None, f"call_{i}", f"step {i}"), tool(f"call_{i}", f"{i}" * 30_000)]
    return [*messages, user("Thanks. What is next?"), asst("The migration.")]


QUOTA = {"raise": {"cls": "Exception", "msg": "You exceeded your current quota, please check your plan and billing details (insufficient_quota)"}}
RATE = {"raise": {"cls": "RateLimitError", "msg": "Error code: 429 - rate limited", "status_code": 429}}


def ladder_ops() -> list[dict[str, Any]]:
    def again(answer: dict[str, Any], force: bool = False) -> dict[str, Any]:
        return {"op": "compress", "messages": encode(sixteen()), "responses": [answer], "force": force}
    return [again(RATE, force=True), {"op": "advance", "seconds": 61}, again(RATE), {"op": "advance", "seconds": 200},
            {"op": "advance", "seconds": 101}, again(RATE), {"op": "advance", "seconds": 800}, {"op": "advance", "seconds": 101},
            again({"text": "## Goal\nDone."}), again(RATE)]


MEMORY = "Prefers <small> PRs & squash merges.\nDB: postgres://ops:hunter2@db/prod?sslmode=require&password=pw"
TINY = [sys_("s"), user("a"), asst("b"), user("c"), asst("d")]


def golden_cases() -> list[dict[str, Any]]:
    return [
        case("9.1", worker_session(), {"text": "## Historical Task Snapshot\nUser asked: 'work kanban task 42'\n\n## Goal\nFinish task 42."},
             protect_first_n=0, protect_last_n=2),
        case("9.2", replay_session(), {"text": "## Goal\nRefactor the parser."}, protect_first_n=1, protect_last_n=4),
        case("9.3", lookup_session(), {"text": "## Goal\nMove secrets to env."}, protect_first_n=1, protect_last_n=2),
        case("19.1", release_session(), {"text": "## Goal\nShip release 2.4.\n\n## Completed Actions\n1. Bumped the version to 2.4.0 [tool: terminal]"},
             context=128_000, probes=(95_999, 96_000, 64_000)),
        case("19.2", chart_session(), {"text": "## Goal\nFix the chart."}, protect_first_n=2),
        case("19.2-null", chart_session(null_text=True), QUOTA, protect_first_n=2),
        case("19.3", build_session(), {"text": "## Goal\nBuild."}, protect_first_n=1),
        case("19.4", sixteen(), QUOTA, extra_ops=ladder_ops()),
        case("19.5", TINY, {"text": "unused"}, extra_ops=[{"op": "compress", "messages": encode(TINY)}, {"op": "session_end"}]),
    ]


@cache
def results(release: str) -> dict[str, dict[str, Any]]:
    cases = golden_cases()
    if release == "0.19.0":
        memory = case("19.6", sixteen(), {"text": "## Goal\nG"}, op={"memory_context": MEMORY})
        cases.append(memory)
    return {c["seed"]: r for c, r in zip(cases, run_hermes(release, cases), strict=True)}


def only_call(record: dict[str, Any]) -> dict[str, Any]:
    assert len(record["calls"]) == 1, record["calls"]
    return record["calls"][0]


def roles(record: dict[str, Any]) -> list[Any]:
    return [m.get("role") for m in record["messages"]]


WORKER_TURNS = ('[USER]: work kanban task 42\n\n[ASSISTANT]: \n[Tool calls:\n  terminal({"command": "kanban step 1"})\n]\n\n'
                "[TOOL RESULT call_1]: [terminal] ran `kanban step 1` -> exit ?, 2 lines output")
WORKER_SUMMARY = "## Historical Task Snapshot\nUser asked: 'work kanban task 42'\n\n## Goal\nFinish task 42."


@pytest.mark.parametrize("release", ["0.18.0", "0.18.1"])
def test_9_1_zero_user_turn_guard(release: str) -> None:
    record = results(release)["9.1"]["rounds"][0]
    call = only_call(record)
    assert (call["max_tokens"], call["turns"], record["compression_count"]) == (2600, WORKER_TURNS, 1)
    assert record["previous_summary"] == WORKER_SUMMARY and len(WORKER_SUMMARY) == 86
    first = record["messages"][0]
    if release == "0.18.0":  # merged into the assistant of call_2: no user message is left at all
        assert len(record["messages"]) == 11 and "user" not in roles(record)
        assert list(first) == ["role", "content", "tool_calls", "_compressed_summary"] and first["role"] == "assistant"
        assert first["content"] == f"{MERGE_HEADER}\n\n\n{MERGE_DELIMITER}\n\n{PREFIX_V0_17_0}\n{WORKER_SUMMARY}\n\n{END_MARKER}"
        assert len(first["content"]) == 1_710
    else:  # pinned to a standalone user summary
        assert len(record["messages"]) == 12
        assert first == {"role": "user", "content": f"{PREFIX_V0_17_0}\n{WORKER_SUMMARY}\n\n{END_MARKER}", "_compressed_summary": True}
        assert len(first["content"]) == 1_601 and record["messages"][1]["content"] is None
    assert record["messages"][-1] == {"role": "assistant", "content": "Task 42 is done."}


@pytest.mark.parametrize("release", ["0.18.0", "0.18.1"])
def test_9_2_replay_fields_move_the_tail_cut(release: str) -> None:
    record = results(release)["9.2"]["rounds"][0]
    merged = record["messages"][2]
    last_window_call, merged_call, size = (7, 8, 30) if release == "0.18.0" else (12, 13, 20)
    assert len(record["messages"]) == size
    assert merged["tool_calls"][0]["id"] == f"call_{merged_call}" and merged["_compressed_summary"] is True
    assert "codex_reasoning_items" in merged
    turns = only_call(record)["turns"]
    # The window's results lie before the Phase-1 boundary, so the summariser sees their one-liners.
    last_line = f"[TOOL RESULT call_{last_window_call}]: [terminal] ran `pytest -k case{last_window_call}` -> exit ?, 1 lines output"
    assert turns.startswith("[ASSISTANT]: Step 1.\n") and turns.endswith(last_line)
    results_text = {m["tool_call_id"]: m["content"] for m in record["messages"] if m.get("role") == "tool"}
    if release == "0.18.1":
        for i in range(13, 17):
            assert results_text[f"call_{i}"] == f"[terminal] ran `pytest -k case{i}` -> exit ?, 1 lines output"
        assert all(results_text[f"call_{i}"] == f"case{i}: " + "." * 4_000 for i in range(17, 21))
    else:
        assert all(text.endswith("." * 4_000) for text in results_text.values())


@pytest.mark.parametrize("release", ["0.18.0", "0.18.1"])
def test_9_3_marker_stripping_and_environment_lookups(release: str) -> None:
    record = results(release)["9.3"]["rounds"][0]
    assert roles(record) == ["system", "user", "assistant", "user", "assistant", "tool", "assistant"]
    assert record["messages"][2]["content"] == f"{PREFIX_V0_17_0}\n## Goal\nMove secrets to env.\n\n{END_MARKER}"
    lines = only_call(record)["turns"].split("[TOOL RESULT call_1]: ", 1)[1].split("\n")[:4]
    if release == "0.18.0":
        assert lines[:3] == ["OPENAI_API_KEY=***", 'FIREWORKS_KEY = "fw-' + "Ab3" * 12 + '"', "password: os.env...PW']"]
        assert [("_db_persisted" in m) for m in record["messages"]] == [True, True, False, True, True, True, True]
    else:
        assert lines[:3] == ['OPENAI_API_KEY=os.getenv("OPENAI_API_KEY")', 'FIREWORKS_KEY = "fw-Ab3...3Ab3"', "password: os.environ['DB_PW']"]
        assert not any("_db_persisted" in m for m in record["messages"])
    assert lines[3].startswith("####")


GROUNDED = ("## Historical Task Snapshot\nUser asked (deterministic, from compacted turns): "
            "'Skip the flaky network tests in part 5; they need VPN.'\n"
            "Historical only; newer protected-tail messages after this summary win.\n\n"
            "## Goal\nShip release 2.4.\n\n## Completed Actions\n1. Bumped the version to 2.4.0 [tool: terminal]")


@pytest.mark.parametrize("release", ["0.18.1", "0.19.0"])
def test_19_1_first_compaction_at_128k(release: str) -> None:
    (record,) = results(release)["19.1"]["rounds"]
    call = only_call(record)
    text = "## Goal\nShip release 2.4.\n\n## Completed Actions\n1. Bumped the version to 2.4.0 [tool: terminal]"
    if release == "0.18.1":
        assert (record["threshold"], call["max_tokens"], len(record["messages"]), record["probes"][:3]) == (64_000, 7_889, 15, [True, True, True])
        assert record["previous_summary"] == text
        assert record["messages"][4] == {"role": "user", "content": f"{PREFIX_V0_17_0}\n{text}\n\n{END_MARKER}", "_compressed_summary": True}
    else:
        assert (record["threshold"], call["max_tokens"], len(record["messages"]), record["probes"][:3]) == (96_000, None, 17, [False, True, False])
        assert record["previous_summary"] == GROUNDED
        assert record["messages"][4] == {"role": "user", "content": f"{PREFIX_V0_19_0}\n{GROUNDED}\n\n{END_MARKER}", "_compressed_summary": True}
    tail_start = 15 if release == "0.18.1" else 13  # compress_end: the tail is the input from there on
    assert record["messages"][5:] == encode(release_session()[tail_start:])


def test_19_2_multimodal_and_reasoning_content() -> None:
    new, old = results("0.19.0")["19.2"]["rounds"][0], results("0.18.1")["19.2"]["rounds"][0]
    assert only_call(new)["turns"].startswith(
        "[USER]: Why does this chart look wrong?\n[image: https://files.example.com/chart.png]\n[image]\n\n"
        "[ASSISTANT]: The y-axis is truncated; see [media attachment]\n[Tool calls:\n  terminal({\"command\": \"python plot.py --ymin 0\"})\n]\n\n"
        "[TOOL RESULT call_1]: saved plot\n[image: https://files.example.com/fixed.png]\n[file]\n\n"
        "[ASSISTANT]: Fixed.\n\n[ASSISTANT]: \n[Tool calls:\n  terminal({\"command\": \"render 2\"})\n]")
    old_turns = only_call(old)["turns"]
    assert old_turns.startswith("[USER]: [{'type': 'text', 'text': 'Why does this chart look wrong?'}, {'type': 'image_url',")
    assert "<think>The y axis starts at 40, not 0.</think>" in old_turns and "\n<reasoning>user may also want a legend" in old_turns
    assert old["previous_summary"] == "## Goal\nFix the chart."
    assert new["previous_summary"] == ("## Historical Task Snapshot\nUser asked (deterministic, from compacted turns): "
                                       "'Why does this chart look wrong?'\nHistorical only; newer protected-tail messages after this "
                                       "summary win.\n\n## Goal\nFix the chart.")


@pytest.mark.parametrize("release", ["0.18.1", "0.19.0"])
def test_19_2_a_null_text_part(release: str) -> None:
    (record,) = results(release)["19.2-null"]["rounds"]
    if release == "0.19.0":  # raises before any summary call, even though the summary would fail
        assert record["error"] == {"type": "TypeError", "message": "sequence item 0: expected str instance, NoneType found"}
        assert (record["calls"], record["compression_count"]) == ([], 0)
    else:
        assert "error" not in record and len(record["calls"]) == 1


@pytest.mark.parametrize("release", ["0.18.1", "0.19.0"])
def test_19_3_forward_realignment_of_the_tail_cut(release: str) -> None:
    (record,) = results(release)["19.3"]["rounds"]
    turns = only_call(record)["turns"]
    first = '[ASSISTANT]: Starting the build.\n[Tool calls:\n  terminal({"command": "make step1"})\n]'
    assert record["previous_summary"] == "## Goal\nBuild."
    if release == "0.18.1":
        assert turns == first
        assert roles(record) == ["system", "user", "assistant", "assistant", "tool", "assistant", "tool"]
        assert record["messages"][2]["content"] == f"{PREFIX_V0_17_0}\n## Goal\nBuild.\n\n{END_MARKER}"
    else:
        assert turns == first + "\n\n[TOOL RESULT call_1]: " + "A" * 4_000 + "\n...[truncated]...\n" + "A" * 1_500
        assert len(turns) == 5_628
        assert roles(record) == ["system", "user", "assistant", "tool", "assistant", "tool"]
        merged = record["messages"][2]
        assert merged["tool_calls"][0]["id"] == "call_2" and merged["_compressed_summary"] is True
        assert merged["content"] == f"{MERGE_HEADER}\n\n\n{MERGE_DELIMITER}\n\n{PREFIX_V0_19_0}\n## Goal\nBuild.\n\n{END_MARKER}"


@pytest.mark.parametrize("release", ["0.18.1", "0.19.0"])
def test_19_4_quota_abort_sticky_flag_and_timeout_ladder(release: str) -> None:
    rounds = results(release)["19.4"]["rounds"]
    compressions = [r for r in rounds if r["op"] == "compress"]
    summary = [(r["compression_count"], r["aborted"], len(r["calls"])) for r in compressions]
    sizes = [len(r["messages"]) for r in compressions]
    if release == "0.18.1":  # every round falls back (the spec gives the size of the first: 15)
        assert summary == [(count, False, 1) for count in range(1, 7)] and sizes[0] == 15
    else:  # aborts return the whole (Phase-1) list; round 5 is a first compaction again (head not decayed)
        assert summary == [(0, True, 1)] * 4 + [(1, False, 1), (2, False, 1)]
        assert sizes[:5] == [16, 16, 16, 16, 15]
    after = [r["probes"][0] for r in compressions]  # should_compress(10**9) after each round
    assert after == [False, False, False, False, True, False]
    # The ladder: 60 s after round 3 a v0.19.0 cooldown (300 s) is still running; v0.18.1's 60 s is over.
    waits = [r["probes"][0] for r in rounds if r["op"] == "advance"]
    # advances: +61 (after round 2), +200 and +101 (after round 3), +800 and +101 (after round 4)
    assert waits == ([True, True, True, True, True] if release == "0.18.1" else [True, False, True, False, True])


@pytest.mark.parametrize("release", ["0.18.1", "0.19.0"])
def test_19_5_early_returns_block_should_compress(release: str) -> None:
    first, second, ended = results(release)["19.5"]["rounds"]
    for record in (first, second):
        assert record["messages"] == encode(TINY) and record["calls"] == []
    assert [first["probes"][0], second["probes"][0], ended["probes"][0]] == ([True, True, True] if release == "0.18.1" else [True, False, True])


def test_19_6_memory_provider_context() -> None:
    (record,) = results("0.19.0")["19.6"]["rounds"]
    payload = '"Prefers \\u003csmall\\u003e PRs \\u0026 squash merges.\\nDB: postgres://ops:***@db/prod?sslmode=require\\u0026password=***"'
    call = only_call(record)
    assert call["memory"] == payload
    # The block follows the window's last turn (the second assistant/tool pair), outside the turns.
    assert call["turns"].endswith("[TOOL RESULT call_2]: " + "2" * 4_000 + "\n...[truncated]...\n" + "2" * 1_500)
    assert "MEMORY PROVIDER" not in call["turns"]
