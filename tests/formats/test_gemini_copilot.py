"""Gemini CLI (the JSON record and the JSONL log) and GitHub Copilot CLI (events.jsonl, the older JSON)."""

import json
import sqlite3

import pytest

from core.formats import FormatError, detect, load
from core.inspections.request import request_breakdown
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs, raw_json, raw_jsonl


def _jsonl(*records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


# ---------------------------------------------------------------------------------------------
# Gemini CLI


def test_gemini_json_counts_follow_the_records():
    raw = raw_json("gemini_cli_session.json")["messages"]
    conv = load(SAMPLES / "gemini_cli_session.json")
    roles = [m["role"] for m in conv.messages]
    assert roles.count("assistant") == sum(r["type"] == "gemini" for r in raw)
    assert roles.count("user") == sum(r["type"] == "user" for r in raw)
    calls = [tc for r in raw for tc in r.get("toolCalls") or []]
    assert roles.count("tool") == len(calls) == sum(len(m.get("tool_calls") or []) for m in conv.messages)
    assert_tool_pairs(conv.messages)
    notices = sum(r["type"] in ("info", "error") for r in raw)
    assert conv.report.metadata == {"info, warning and error notices (shown to the user, not sent to the model)": notices}
    assert conv.report.read == len(raw) and conv.report.placed == len(raw) - notices
    # every response's tokens are its usage; input is the whole prompt, cached tokens inside it
    tokens = [r["tokens"] for r in raw if r["type"] == "gemini"]
    usage = [u for m, u in zip(conv.messages, conv.usage, strict=True) if m["role"] == "assistant"]
    assert [u["input_tokens"] for u in usage] == [t["input"] for t in tokens]
    assert [u["cached_input_tokens"] for u in usage] == [t["cached"] for t in tokens]
    assert conv.model == "gemini-2.5-pro" and conv.session_id == raw_json("gemini_cli_session.json")["sessionId"]
    # the whole-request figure reads them: the last response's prompt is the last recorded prompt
    assert request_breakdown(conv).recorded_last_prompt == tokens[-1]["input"]


def test_gemini_json_parts_thoughts_and_cancelled_calls():
    raw = raw_json("gemini_cli_session.json")["messages"]
    conv = load(SAMPLES / "gemini_cli_session.json")
    first = raw[1]
    assert conv.reasoning[1] == f"**{first['thoughts'][0]['subject']}** {first['thoughts'][0]['description']}"
    pasted = next(m for m in conv.messages if m["role"] == "user" and isinstance(m["content"], list))
    assert pasted["content"][1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    cancelled = next(tc for r in raw for tc in r.get("toolCalls") or [] if tc["status"] == "cancelled")
    result = next(m for m in conv.messages if m.get("tool_call_id") == cancelled["id"])
    assert result["content"] == "[Operation Cancelled] Reason: User cancelled the operation."
    # two calls of one response share its message, their results follow in order
    parallel = next(m for m in conv.messages if len(m.get("tool_calls") or []) == 2)
    at = conv.messages.index(parallel)
    assert [m["tool_call_id"] for m in conv.messages[at + 1:at + 3]] == [c["id"] for c in parallel["tool_calls"]]


def test_gemini_log_reads_the_last_version_of_each_message():
    rows = raw_jsonl("gemini_cli_session.jsonl")
    conv = load(SAMPLES / "gemini_cli_session.jsonl")
    assert_canonical(conv)
    assert_tool_pairs(conv.messages)
    ids = [r["id"] for r in rows if "id" in r]
    rewritten = {i for i in ids if ids.count(i) > 1}
    assert rewritten  # the sample writes messages again as they grow
    # the tool call and its result come from the last version of the record
    first_call = next(r for r in reversed(rows) if r.get("toolCalls") and r["toolCalls"][0]["name"] == "read_file")
    assert first_call["toolCalls"][0]["status"] == "success"
    result = next(m for m in conv.messages if m.get("tool_call_id") == first_call["toolCalls"][0]["id"])
    assert result["content"] == first_call["toolCalls"][0]["result"][0]["functionResponse"]["response"]["output"]
    assert conv.report.metadata["earlier versions of a message (written again as it grew; the last one is read)"] >= len(rewritten)
    assert conv.report.read == len(rows) == conv.report.accounted()


def test_gemini_log_rewind_and_injected_context():
    rows = raw_jsonl("gemini_cli_session.jsonl")
    conv = load(SAMPLES / "gemini_cli_session.jsonl")
    target = next(r["$rewindTo"] for r in rows if "$rewindTo" in r)
    removed = [r for r in rows[rows.index(next(r for r in rows if r.get("id") == target)):] if "$rewindTo" not in r][:2]
    texts = json.dumps(conv.messages)
    assert "Use the ECB rates file." not in texts and "download the ECB rates" not in texts
    (skip,) = [s for s in conv.report.skipped if "rewind" in s.reason]
    assert skip.count == len(removed) and any("rewind" in w for w in conv.warnings)
    (context,) = conv.injected
    assert context.kind == "<session_context>" and "<session_context>" not in texts
    assert any("context block(s) Gemini CLI adds itself" in w for w in conv.warnings)


def test_gemini_log_compression_is_a_compaction_event():
    conv = load(SAMPLES / "gemini_cli_session.jsonl")
    (event,) = conv.compaction_events
    assert event.kind == "gemini-checkpoint" and event.summary.startswith("<state_snapshot>")
    assert conv.messages[event.position]["content"].startswith("<state_snapshot>")
    assert conv.messages[event.position + 1]["content"] == "Got it. Thanks for the additional context!"
    # the answer the checkpoint kept comes after the summary, once
    kept = [m for m in conv.messages if str(m.get("content")).startswith("The option is in")]
    assert len(kept) == 1 and conv.messages.index(kept[0]) == event.position + 2
    assert event.details == {"records_dropped": 5, "records_after": 3}  # the context, two prompts, two answers
    # the request analysis treats it like Claude Code's compact_boundary: nothing before it is sent again
    assert request_breakdown(conv).context_start == event.position


HEADER = {"sessionId": "s-1", "projectHash": "h" * 64, "startTime": "2026-05-01T10:00:00.000Z", "kind": "main"}


def test_gemini_function_parts_and_results_written_twice():
    call = {"functionCall": {"id": "c1", "name": "read_file", "args": {"file_path": "a.py"}}}
    response = {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "print(1)"}}}
    data = _jsonl(
        HEADER,
        {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "read a.py"}]},
        {"id": "g1", "timestamp": "t", "type": "gemini", "content": [{"text": "plan", "thought": True}, call],
         "toolCalls": [{"id": "c1", "name": "read_file", "args": {"file_path": "a.py"}, "status": "success",
                        "result": [response]}]},
        # the history turn of the same result, written back by a $set list
        {"id": "u2", "timestamp": "t", "type": "user", "content": [response]},
        {"id": "g2", "timestamp": "t", "type": "gemini", "content": [{"text": "It prints 1."}]},
    )
    conv = load(data, filename="session-x.jsonl")
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    assert conv.messages[1]["tool_calls"][0]["id"] == "c1" and conv.reasoning[1] == "plan"
    assert conv.report.metadata["tool results already recorded with their calls (written again as history turns)"] == 1


def test_gemini_call_without_a_result_stays_as_text():
    data = _jsonl(HEADER, {"id": "u1", "timestamp": "t", "type": "user", "content": "go"},
                  {"id": "g1", "timestamp": "t", "type": "gemini", "content": "",
                   "toolCalls": [{"id": "c9", "name": "run_shell_command", "args": {"command": "make"}, "status": "executing"}]})
    conv = load(data, filename="session-x.jsonl")
    assert "tool_calls" not in conv.messages[1] and "run_shell_command" in conv.messages[1]["content"]
    assert conv.metadata["unanswered_tool_calls"][0]["tool_call_id"] == "c9"
    assert not [w for w in conv.warnings if "unpaired" in w]


def test_gemini_slash_commands_are_metadata_and_a_missing_header_is_said():
    data = _jsonl({"id": "u1", "timestamp": "t", "type": "user", "content": "/stats"},
                  {"id": "g1", "timestamp": "t", "type": "gemini", "content": "hi"},
                  {"$set": {"lastUpdated": "t"}})
    assert detect(data) == "gemini-cli"
    conv = load(data)
    assert [m["role"] for m in conv.messages] == ["assistant"]
    assert "slash commands and empty prompts (Gemini CLI does not send them to the model)" in conv.report.metadata
    assert any("header line" in w for w in conv.warnings)


def test_gemini_bad_content_is_a_clear_error():
    doc = {**HEADER, "lastUpdated": "t", "messages": [{"id": "u1", "timestamp": "t", "type": "user", "content": 7}]}
    with pytest.raises(FormatError, match=r"^chat\.json: messages\[0\]\.content: expected a string, a part or a list"):
        load(json.dumps(doc).encode(), filename="chat.json")


# ---------------------------------------------------------------------------------------------
# Copilot CLI


def test_copilot_events_give_the_conversation_as_sent():
    events = raw_jsonl("copilot_cli_events.jsonl")
    conv = load(SAMPLES / "copilot_cli_events.jsonl")
    assert_canonical(conv)
    assert_tool_pairs(conv.messages)
    kinds = [e["type"] for e in events]
    assert conv.messages[0]["role"] == "system" and conv.system_prompt.startswith("You are the GitHub Copilot CLI")
    prompts = [e["data"]["transformedContent"] for e in events if e["type"] == "user.message"]
    summary = next(e["data"]["summaryContent"] for e in events if e["type"] == "session.compaction_complete")
    assert [m["content"] for m in conv.messages if m["role"] == "user"] == [prompts[0], summary, prompts[1]]
    calls = [r for e in events if e["type"] == "assistant.message" for r in e["data"]["toolRequests"]]
    assert sum(m["role"] == "tool" for m in conv.messages) == len(calls) == kinds.count("tool.execution_complete")
    # two chunks of one model call are one message with both texts and the call's usage
    merged = next(m for m in conv.messages if str(m.get("content")).startswith("parse_amount now quantizes"))
    index = conv.messages.index(merged)
    assert merged["content"].endswith("The parser tests pass.") and conv.sources[index].startswith("lines ")
    api = next(e["data"]["apiCallId"] for e in events if e["type"] == "assistant.message" and e["data"].get("chunkCount"))
    usage = next(e["data"] for e in events if e["type"] == "assistant.usage" and e["data"]["apiCallId"] == api)
    assert conv.usage[index]["input_tokens"] == usage["inputTokens"]
    assert conv.usage[index]["cached_input_tokens"] == usage["cacheReadTokens"]
    assert conv.model == "gpt-5.1" and conv.session_id == events[0]["data"]["sessionId"]
    assert conv.report.read == len(events) == conv.report.accounted() and not conv.report.skipped


def test_copilot_compaction_is_a_real_compaction_event():
    events = raw_jsonl("copilot_cli_events.jsonl")
    conv = load(SAMPLES / "copilot_cli_events.jsonl")
    (event,) = conv.compaction_events
    complete = next(e["data"] for e in events if e["type"] == "session.compaction_complete")
    assert event.kind == "copilot-compaction" and event.pre_tokens == complete["preCompactionTokens"]
    assert event.summary == complete["summaryContent"] == conv.messages[event.position]["content"]
    assert event.details["postCompactionTokens"] == complete["postCompactionTokens"]
    assert request_breakdown(conv).context_start == event.position


def _event(kind, data, event_id, **extra):
    return {"type": kind, "data": data, "id": event_id, "timestamp": "2026-04-16T11:00:00.000Z", "parentId": None, **extra}


def test_copilot_rewind_subagents_and_unknown_events():
    data = _jsonl(
        _event("session.start", {"sessionId": "s", "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.1",
                                 "startTime": "t"}, "e0"),
        _event("user.message", {"content": "first try"}, "e1"),
        _event("assistant.message", {"messageId": "m1", "content": "wrong", "toolRequests": []}, "e2"),
        _event("session.snapshot_rewind", {"upToEventId": "e1", "eventsRemoved": 2}, "e3"),
        _event("user.message", {"content": "second try"}, "e4"),
        _event("assistant.message", {"messageId": "m2", "content": "", "toolRequests": [
            {"toolCallId": "t1", "name": "task", "arguments": {"prompt": "look"}}]}, "e5"),
        _event("assistant.message", {"messageId": "m3", "content": "sub-agent text", "toolRequests": []}, "e6", agentId="a1"),
        _event("tool.execution_complete", {"toolCallId": "t1", "success": True, "result": {"content": "found it"}}, "e7"),
        _event("session.future_thing", {"x": 1}, "e8"),
        _event("session.compaction_complete", {"success": False, "error": "Nothing to compact"}, "e9"),
    )
    conv = load(data, filename="events.jsonl")
    assert [(m["role"], m.get("content")) for m in conv.messages] == [
        ("user", "second try"), ("assistant", None), ("tool", "found it")]
    reasons = {s.reason: s.count for s in conv.report.skipped}
    assert reasons["events a rewind (session.snapshot_rewind) removed"] == 2
    assert reasons["event types this reader does not know (session.future_thing)"] == 1
    assert conv.report.metadata["sub-agent events (its own model calls and tools, not this conversation's)"] == 1
    assert conv.report.metadata["compactions that failed (nothing changed)"] == 1
    assert not conv.compaction_events


def test_copilot_live_stream_keeps_the_messages_and_drops_the_deltas():
    """What ``copilot -p ... --output-format json`` prints: transient events, reasoning after its message."""
    data = _jsonl(
        _event("session.warning", {"warningType": "policy", "message": "MCP servers are disabled"}, "e0", ephemeral=True),
        _event("session.skills_loaded", {"skills": []}, "e1", ephemeral=True),
        _event("user.message", {"content": "review it", "transformedContent": "<current_datetime>t</current_datetime>\n\nreview it"}, "e2"),
        _event("assistant.turn_start", {"turnId": "0"}, "e3"),
        _event("assistant.message_delta", {"messageId": "m1", "deltaContent": "Under"}, "e4", ephemeral=True),
        _event("assistant.message", {"messageId": "m1", "content": "Understood.", "reasoningOpaque": "R1", "outputTokens": 180,
                                     "toolRequests": [{"toolCallId": "c1", "name": "view", "arguments": {"path": "SKILL.md"}}]}, "e5"),
        _event("tool.execution_start", {"toolCallId": "c1", "toolName": "view", "arguments": {"path": "SKILL.md"}}, "e6"),
        _event("assistant.reasoning", {"reasoningId": "R1", "content": "Load the skill first."}, "e7", ephemeral=True),
        _event("tool.execution_complete", {"toolCallId": "c1", "success": True, "result": {"content": "1. ---"}}, "e8"),
    )
    assert detect(data) == "copilot-cli"
    conv = load(data, filename="session.jsonl")
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool"]
    assert conv.reasoning[1] == "Load the skill first." and conv.usage[1] == {"output_tokens": 180}
    assert conv.report.metadata["transient events (streaming deltas and status updates a saved log does not keep)"] == 3
    assert not conv.report.skipped


def test_copilot_events_are_not_codex_exec_and_the_reverse():
    copilot = _jsonl(_event("session.start", {"sessionId": "s"}, "e0"), _event("user.message", {"content": "hi"}, "e1"))
    assert detect(copilot) == "copilot-cli"
    codex = _jsonl({"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                   {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "x"}})
    assert detect(codex) == "codex-exec"


def test_copilot_older_session_json():
    raw = raw_json("copilot_cli_history_session.json")
    conv = load(SAMPLES / "copilot_cli_history_session.json")
    assert [m["role"] for m in conv.messages] == [m["role"] for m in raw["chatMessages"]]
    assert conv.report.metadata == {"timeline records (what the terminal showed)": len(raw["timeline"])}
    del raw["chatMessages"]  # sessions saved without it: the timeline is the conversation
    conv = load(json.dumps(raw).encode(), filename="session.json")
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    assert_tool_pairs(conv.messages)


def test_copilot_session_store_is_refused_naming_an_events_file(tmp_path):
    store = tmp_path / "session-store.db"
    conn = sqlite3.connect(store)
    conn.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT, summary TEXT, created_at TEXT, updated_at TEXT);"
        "CREATE TABLE turns (id INTEGER PRIMARY KEY, session_id TEXT, turn_index INTEGER, user_message TEXT,"
        " assistant_response TEXT, timestamp TEXT);"
        "CREATE TABLE session_files (id INTEGER PRIMARY KEY, session_id TEXT, file_path TEXT);"
        "INSERT INTO sessions VALUES ('3cc3555e', '/w', NULL, '2026-06-08', '2026-06-08');"
        "INSERT INTO sessions VALUES ('feeb765c', '/w', NULL, '2026-06-09', '2026-06-09');"
        "INSERT INTO turns VALUES (1, '3cc3555e', 0, '/init', NULL, '2026-06-08T02:35:29Z');"
        "INSERT INTO turns VALUES (2, 'feeb765c', 0, 'add a readme', 'Done.', '2026-06-09T10:00:00Z');"
    )
    conn.commit()
    conn.close()
    before = store.read_bytes()
    with pytest.raises(FormatError) as excinfo:
        load(store)
    message = str(excinfo.value)
    assert message.startswith(f"{store}: ") and "Copilot CLI's session-store.db" in message
    assert "2 sessions" in message and "feeb765c/events.jsonl" in message and "Hermes" not in message
    assert store.read_bytes() == before


def test_gemini_result_whose_call_was_not_recorded_gets_its_call_back():
    """Gemini CLI leaves a call out of the record when its result carried file data (an image read)."""
    session = {
        "sessionId": "0beddad7", "projectHash": "f528", "startTime": "2026-03-30T03:06:00.000Z",
        "lastUpdated": "2026-03-30T03:12:00.000Z",
        "messages": [
            {"id": "u1", "timestamp": "2026-03-30T03:10:00.000Z", "type": "user", "content": [{"text": "Look at shot.jpg"}]},
            {"id": "g1", "timestamp": "2026-03-30T03:11:01.269Z", "type": "gemini", "content": "I will examine it.",
             "tokens": {"input": 900, "output": 12, "cached": 0, "thoughts": 0, "tool": 0, "total": 912}},
            {"id": "u2", "timestamp": "2026-03-30T03:11:02.000Z", "type": "user", "content": [
                {"functionResponse": {"id": "read_file-1774840261268-f5c1", "name": "read_file",
                                      "response": {"output": "Binary content provided (1 item(s))."}}},
                {"inlineData": {"mimeType": "image/jpeg", "data": "/9j/4AAQ"}}]},
            {"id": "g2", "timestamp": "2026-03-30T03:11:09.000Z", "type": "gemini", "content": "It shows a chart.",
             "tokens": {"input": 1400, "output": 9, "cached": 0, "thoughts": 0, "tool": 0, "total": 1409}},
        ],
    }
    conv = load(json.dumps(session).encode(), filename="session-2026-03-30T03-06-0beddad7.json")
    assert conv.format == "gemini-cli"
    assistant = conv.messages[1]
    assert assistant["content"] == "I will examine it."
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in assistant["tool_calls"]] == [
        ("read_file-1774840261268-f5c1", "read_file", "{}")]
    assert conv.messages[2] == {"role": "tool", "content": "Binary content provided (1 item(s)).",
                                "tool_call_id": "read_file-1774840261268-f5c1"}
    assert conv.metadata["recovered_tool_calls"][0]["name"] == "read_file"
    assert any("answer a call the file does not record" in w for w in conv.warnings)
    assert not any("unpaired" in w for w in conv.warnings)
    assert_tool_pairs(conv.messages)


def test_gemini_checkpoint_is_refused_naming_the_session_files():
    checkpoint = {
        "clientHistory": [{"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the context."}]},
                          {"role": "model", "parts": [{"text": "Got it."}]}],
        "toolCall": {"name": "replace", "args": {"file_path": "CONSTITUTION.md", "old_string": "a", "new_string": "b"}},
        "commitHash": "0" * 40, "messageId": "msg-1",
    }
    data = json.dumps(checkpoint).encode()
    name = "2026-03-29T01-25-12_113Z-CONSTITUTION.md-replace.json"
    assert detect(data, filename=name) == "gemini-cli"
    with pytest.raises(FormatError) as excinfo:
        load(data, filename=name)
    message = str(excinfo.value)
    assert message.startswith(f"{name}: this is a Gemini CLI checkpoint") and "chats/session-*.json" in message


def test_gemini_prompt_log_is_refused_naming_the_session_files():
    prompts = [{"sessionId": "38d857b1", "messageId": 0, "type": "user", "message": "check the config",
                "timestamp": "2025-09-16T20:40:32.002Z"},
               {"sessionId": "38d857b1", "messageId": 1, "type": "user", "message": "we are in us-central2",
                "timestamp": "2025-09-16T20:41:02.000Z"}]
    data = json.dumps(prompts).encode()
    assert detect(data, filename="logs.json") == "gemini-cli"
    with pytest.raises(FormatError) as excinfo:
        load(data, filename="logs.json")
    message = str(excinfo.value)
    assert message.startswith("logs.json: this is Gemini CLI's logs.json") and "not a session" in message
