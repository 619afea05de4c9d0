"""The context the model last saw: a log the agent compacted, cut at its last compaction
(``Conversation.live_context``), in each format that records one; the full history one step away."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.formats import load
from core.profiles import PROFILES
from tests.formats.layouts import ClaudeLog, jsonl, text, use
from tests.helpers import asst, call, tool, user
from tests.helpers import sys as system

Record = dict[str, Any]
CC_SUMMARY = "This session is being continued from a previous conversation. Summary: parse_amount fails on 'EUR 3,50'."
CODEX_SUMMARY = "Summary so far: pytest fails in tests/test_money.py with ValueError: invalid literal."
OPENHANDS_SUMMARY = "USER_CONTEXT: fix the parser. COMPLETED: read src/money.py."


def claude_code_log(compactions: int = 1) -> bytes:
    """Tool-loop turns, then ``compactions`` times Claude Code's own compaction followed by one more turn."""
    log = ClaudeLog(session="cc-live")
    log.user("Fix parse_amount in src/money.py.", parent=None)
    (first,) = log.response("msg_a", [use("toolu_1", "Read", file_path="src/money.py")])
    log.result(first, "toolu_1", "def parse_amount(text):\n    return float(text)")
    (answer,) = log.response("msg_b", [text("float() cannot read a comma.")])
    for number in range(compactions):
        boundary = log.row("system", parent=None, subtype="compact_boundary", content="Conversation compacted",
                           logicalParentUuid=answer, compactMetadata={"trigger": "auto", "preTokens": 9_000 + number})
        log.user(f"{CC_SUMMARY} (compaction {number + 1})", parent=boundary, isCompactSummary=True)
        (answer,) = log.response(f"msg_c{number}", [text(f"Fixed it, step {number + 1}.")])
    return jsonl(log.rows)


def _envelope(kind: str, payload: Record) -> Record:
    return {"timestamp": "2025-11-14T02:21:11.289Z", "type": kind, "payload": payload}


def _message(role: str, value: str) -> Record:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": value}]}


def codex_rollout() -> bytes:
    return jsonl([
        _envelope("session_meta", {"id": "0199-live", "timestamp": "2025-11-14T02:21:11Z", "cwd": "/repo"}),
        _envelope("turn_context", {"cwd": "/repo", "model": "gpt-5-codex"}),
        _envelope("response_item", _message("user", "Run the tests.")),
        _envelope("response_item", {"type": "function_call", "name": "shell", "call_id": "call_1",
                                    "arguments": json.dumps({"command": ["pytest", "-q"]})}),
        _envelope("response_item", {"type": "function_call_output", "call_id": "call_1", "output": "1 failed"}),
        _envelope("response_item", _message("assistant", "One test fails.")),
        _envelope("compacted", {"message": CODEX_SUMMARY}),
        _envelope("response_item", _message("user", "Fix it.")),
        _envelope("response_item", _message("assistant", "Fixed.")),
    ])


def openhands_events() -> bytes:
    """A system prompt, the task, three commands, a condensation forgetting the first two (events 2-5)
    but not the third, then one more command and the answer."""
    def run(event_id: int, command: str, output: str) -> list[Record]:
        meta = {"function_name": "execute_bash", "tool_call_id": f"toolu_{event_id}",
                "model_response": {"id": f"resp_{event_id}"}, "total_calls_in_response": 1}
        return [
            {"id": event_id, "source": "agent", "message": f"Running {command}", "action": "run",
             "args": {"command": command, "thought": ""}, "tool_call_metadata": meta},
            {"id": event_id + 1, "source": "agent", "message": "run observation", "cause": event_id,
             "observation": "run", "content": output, "extras": {}, "tool_call_metadata": meta},
        ]

    events: list[Record] = [
        {"id": 0, "source": "agent", "message": "", "action": "system", "args": {"content": "You are OpenHands."}},
        {"id": 1, "source": "user", "message": "Fix the parser.", "action": "message",
         "args": {"content": "Fix the parser."}},
        *run(2, "cat src/money.py", "def parse_amount(text): ..."),
        *run(4, "pytest -q", "1 failed"),
        *run(6, "git diff", "(no changes)"),
        {"id": 8, "source": "agent", "message": "Summary", "action": "condensation",
         "args": {"forgotten_events_start_id": 2, "forgotten_events_end_id": 5, "summary": OPENHANDS_SUMMARY,
                  "summary_offset": 2}},
        *run(9, "pytest -q", "3 passed"),
        {"id": 11, "source": "agent", "message": "Done.", "action": "message",
         "args": {"content": "Done.", "wait_for_response": True}},
    ]
    return json.dumps(events).encode()


def test_a_claude_code_compaction_starts_the_live_context_at_its_summary():
    full = load(claude_code_log(), filename="cc-live.jsonl")
    live = full.live_context()
    cut = live.shown_cut
    assert cut is not None and live.full_history is full
    summary_at = next(i for i, m in enumerate(full.messages) if str(m["content"]).startswith(CC_SUMMARY))
    assert cut.position == summary_at and cut.event.kind == "compact_boundary"
    assert live.messages == full.messages[summary_at:]
    assert all(a is b for a, b in zip(live.messages, full.messages[summary_at:], strict=True))  # shared, not copied
    assert cut.hidden == summary_at == len(full) - len(live)
    for column in ("sources", "usage", "reasoning"):
        assert getattr(live, column) == getattr(full, column)[summary_at:]
    assert [(e.position, e.kind) for e in live.compaction_events] == [(0, "compact_boundary")]
    assert full.last_compaction() == cut and live.last_compaction() == cut
    assert live.live_context() is live
    assert live.context_description().startswith("The context the model last saw")
    assert full.context_description().startswith("The full history")
    assert cut.to_dict("after_last_compaction") == {
        "shown": "after_last_compaction", "compaction_at": summary_at, "compaction_kind": "compact_boundary",
        "messages_before_compaction": summary_at, "full_history_messages": len(full)}


def test_the_last_of_several_compactions_is_the_one_that_counts():
    full = load(claude_code_log(compactions=3), filename="cc-live.jsonl")
    live = full.live_context()
    assert str(live.messages[0]["content"]).endswith("(compaction 3)")
    assert len(live) == 2 and live.shown_cut.hidden == len(full) - 2
    assert len(full.compaction_events) == 3 and len(live.compaction_events) == 1


def test_a_codex_compacted_item_starts_the_live_context():
    full = load(codex_rollout(), filename="rollout-2025-11-14T02-21-11-0199-live.jsonl")
    live = full.live_context()
    assert [m["content"] for m in live.messages] == [CODEX_SUMMARY, "Fix it.", "Fixed."]
    assert live.shown_cut.event.kind == "compacted" and live.shown_cut.hidden == len(full) - 3


def test_an_openhands_condensation_keeps_what_it_did_not_forget_and_inserts_its_summary():
    full = load(openhands_events(), filename="openhands.json")
    event = full.compaction_events[0]
    # Messages 2-5 came from the forgotten events; 6 and 7 (git diff, event 6-7) were not forgotten.
    assert event.kind == "condensation" and event.details["kept_positions"] == [0, 1, 6, 7]
    live = full.live_context()
    roles = [m["role"] for m in live.messages]
    assert roles == ["system", "user", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert live.messages[2]["content"] == OPENHANDS_SUMMARY and "summary" in live.sources[2]  # at summary_offset
    calls = [m["tool_calls"][0]["id"] for m in live.messages if m.get("tool_calls")]
    assert calls == ["toolu_6", "toolu_9"]
    assert live.shown_cut.hidden == 4 and [e.position for e in live.compaction_events] == [2]
    assert len(live.usage) == len(live.sources) == len(live.reasoning) == len(live)


def test_a_pi_compaction_keeps_sending_from_its_first_kept_message():
    from tests.app.conftest import SAMPLES

    full = load(SAMPLES / "pi_session.jsonl")
    (event,) = full.compaction_events
    first_kept = event.details["first_kept_position"]
    live = full.live_context()
    assert live.messages == full.messages[first_kept:]
    assert live.compaction_events[0].position == event.position - first_kept


@pytest.mark.parametrize("profile", list(PROFILES))
def test_a_hermes_handoff_is_already_the_live_context(profile):
    """Hermes rewrites its list in place: the head before its summary is what it still sent."""
    prefix = PROFILES[profile].summary_prefix
    messages = [system(), user("Fix the parser."), asst(None, [call("c1", "shell", {"command": "pytest"})]),
                tool("c1", "1 failed"), user(prefix + "\nThe parser fails on commas."), asst("Fixed.")]
    full = load(json.dumps(messages).encode(), filename="hermes.json")
    assert [e.kind for e in full.compaction_events] == ["hermes-summary"]
    assert full.last_compaction() is None and full.live_context() is full
    assert "Hermes' handoff summary at message 4" in full.context_description()


def test_a_log_without_compaction_is_its_own_live_context():
    messages = [system(), user("hello"), asst("hi")]
    full = load(json.dumps(messages).encode(), filename="plain.json")
    assert full.last_compaction() is None and full.live_context() is full and full.shown_cut is None
    assert full.context_description() == "The log holds no compaction by the agent."
