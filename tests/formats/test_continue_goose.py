"""Continue sessions and Goose sessions (JSONL and sessions.db): messages, tool results, compaction, usage."""

import hashlib
import json
import shutil
import sqlite3

import pytest

from core.formats import FormatError, detect, load
from core.formats.continue_sessions import CANCELLED, EMPTY, NO_OUTPUT, REPEATED_RESULT
from core.formats.goose import USER_ONLY
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs, raw_json, raw_jsonl

CONTINUE = "continue_session.json"
GOOSE_JSONL = "goose_session.jsonl"
GOOSE_DB = "goose_sessions.db"


def load_doc(doc, name="session.json", **kwargs):
    conv = load(json.dumps(doc).encode(), filename=name, **kwargs)
    assert_canonical(conv)
    assert conv.report.read == conv.report.accounted()
    return conv


# ---------------------------------------------------------------------------------------------
# Continue


def test_continue_sample_messages_as_continue_sends_them():
    raw = raw_json(CONTINUE)
    conv = load(SAMPLES / CONTINUE)
    assert conv.format == "continue" and conv.session_id == raw["sessionId"] and conv.model == "Claude Sonnet 4.5"
    history = raw["history"]
    states = sum(len(item.get("toolCallStates") or []) for item in history)
    sent = sum(1 for item in history if item["message"]["role"] in ("user", "assistant")
               and (item["message"]["content"] or item["message"].get("toolCalls")))
    assert len(conv.messages) == sent + states == 9
    assert_tool_pairs(conv.messages)
    # The context item comes first in the user message, then what the user typed.
    first = conv.messages[0]["content"]
    assert first[0]["text"] == history[0]["contextItems"][0]["content"] + "\n"
    assert first[1]["text"] == history[0]["message"]["content"]
    assert conv.reasoning[1] == "Check the tests for U+202F first."
    assert conv.report.metadata == {REPEATED_RESULT: 2, EMPTY: 1}


def test_continue_sample_tool_results_from_their_states():
    raw = raw_json(CONTINUE)
    conv = load(SAMPLES / CONTINUE)
    tools = [m["content"] for m in conv.messages if m["role"] == "tool"]
    assert tools[0] == raw["history"][2]["toolCallStates"][0]["output"][0]["content"]
    terminal = raw["history"][4]["toolCallStates"][0]["output"][0]
    assert tools[1] == terminal["content"] + "\n[Status: Command completed]"
    assert tools[2] == CANCELLED
    assert conv.usage[3] == {"prompt_tokens": 8900, "completion_tokens": 61, "prompt_tokens_details": {"cached_tokens": 6000}}
    assert conv.metadata["session_usage"]["totalCost"] == 0.0948


def test_continue_sample_conversation_summary_is_a_compaction():
    raw = raw_json(CONTINUE)
    conv = load(SAMPLES / CONTINUE)
    (event,) = conv.compaction_events
    summary = raw["history"][6]["conversationSummary"]
    assert event.kind == "compaction" and event.summary == summary and event.source == "history[6]"
    assert conv.messages[event.position]["content"] == "Not yet. First tell me where else raw strings are cleaned."
    (injected,) = conv.injected
    assert injected.position == event.position and injected.text.endswith(summary)


def test_continue_without_states_uses_the_history_tool_items():
    call = {"id": "c1", "type": "function", "function": {"name": "builtin_ls", "arguments": "{}"}}
    doc = {"sessionId": "s", "title": "t", "workspaceDirectory": "/w", "history": [
        {"message": {"role": "user", "content": "list"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "", "toolCalls": [call]}, "contextItems": []},
        {"message": {"role": "tool", "content": "a.py", "toolCallId": "c1"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "One file."}, "contextItems": [],
         "toolCallStates": []}]}
    conv = load_doc(doc)
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    assert conv.messages[2] == {"role": "tool", "content": "a.py", "tool_call_id": "c1"}


def test_continue_state_without_output_and_an_errored_one():
    calls = [{"id": f"c{n}", "type": "function", "function": {"name": "builtin_grep", "arguments": "{}"}} for n in (1, 2)]
    doc = {"sessionId": "s", "history": [
        {"message": {"role": "user", "content": "grep"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "", "toolCalls": calls}, "contextItems": [],
         "toolCallStates": [{"toolCallId": "c1", "toolCall": calls[0], "status": "done"},
                            {"toolCallId": "c2", "toolCall": calls[1], "status": "errored"}]}]}
    conv = load_doc(doc)
    assert [m["content"] for m in conv.messages if m["role"] == "tool"] == [NO_OUTPUT, "There was an error calling the tool."]


def test_continue_sessions_index_is_refused_with_a_pointer():
    index = [{"sessionId": "8f1c2a3e", "title": "retry loop", "dateCreated": "1767340800000", "workspaceDirectory": "/w"}]
    assert detect(json.dumps(index).encode(), filename="sessions.json") == "continue"
    with pytest.raises(FormatError) as excinfo:
        load(json.dumps(index).encode(), filename="sessions.json")
    message = str(excinfo.value)
    assert message.startswith("sessions.json: ") and "list of sessions" in message
    assert "~/.continue/sessions/<sessionId>.json" in message and "8f1c2a3e.json" in message


def test_continue_bad_item_names_the_field():
    with pytest.raises(FormatError, match=r"history\[1\]\.message\.role: expected one of user, assistant"):
        load_doc({"sessionId": "s", "history": [{"message": {"role": "user", "content": "a"}, "contextItems": []},
                                                 {"message": {"role": "robot", "content": "b"}, "contextItems": []}]})


# ---------------------------------------------------------------------------------------------
# Goose JSONL


def test_goose_jsonl_sample():
    raw = raw_jsonl(GOOSE_JSONL)
    conv = load(SAMPLES / GOOSE_JSONL)
    assert conv.format == "goose" and detect(SAMPLES / GOOSE_JSONL) == "goose"
    requests = sum(1 for r in raw[1:] for item in r["content"] if item["type"] == "toolRequest")
    responses = sum(1 for r in raw[1:] for item in r["content"] if item["type"] == "toolResponse")
    assert sum(len(m.get("tool_calls") or []) for m in conv.messages) == requests
    assert sum(1 for m in conv.messages if m["role"] == "tool") == responses == 3
    assert len(conv.messages) == 8
    assert_tool_pairs(conv.messages)
    # Only the contents addressed to the assistant are results; the user's copy is left out.
    shell = raw[3]["content"][0]["toolResult"]["value"]
    assert conv.messages[2]["content"] == shell[0]["text"]
    assert conv.reasoning[3] == "All pass; look at parse_amount."
    # The session's own counts (its latest request) go on the last reply.
    assert conv.usage[-1] == {"prompt_tokens": raw[0]["input_tokens"], "completion_tokens": raw[0]["output_tokens"]}
    assert conv.sessions[0].title == raw[0]["description"]


def test_goose_jsonl_fragment_and_a_bad_line():
    message = {"role": "assistant", "created": 1, "content": [
        {"type": "toolRequest", "id": "t1", "toolCall": {"status": "error", "error": "Could not interpret tool use parameters"}}]}
    answer = {"role": "user", "created": 2, "content": [{"type": "toolResponse", "id": "t1",
                                                          "toolResult": {"status": "error", "error": "invalid call"}}]}
    broken = {"role": "assistant", "created": 3, "content": "not a list"}
    data = "".join(json.dumps(r) + "\n" for r in (message, answer, broken)).encode()
    conv = load(data, filename="20250101_1.jsonl")
    assert conv.format == "goose"
    assert conv.messages[0]["tool_calls"][0]["function"]["name"] == "invalid_tool_call"
    assert conv.messages[1] == {"role": "tool", "content": "invalid call", "tool_call_id": "t1"}
    assert any("no metadata line" in w for w in conv.warnings)
    assert any("line 3 content: expected a list of content items" in w for w in conv.warnings)
    assert conv.report.skipped_count == 1


# ---------------------------------------------------------------------------------------------
# Goose sessions.db


def test_goose_store_lists_every_session_and_loads_the_latest():
    conv = load(SAMPLES / GOOSE_DB)
    assert conv.format == "goose" and detect(SAMPLES / GOOSE_DB) == "goose"
    ids = [info.id for info in conv.sessions]
    assert sorted(ids) == ["20260303_1", "20260303_2", "20260304_1"] and conv.session_id == "20260303_1"
    sub = next(info for info in conv.sessions if info.id == "20260303_2")
    assert sub.kind == "sidechain" and sub.is_sidechain
    for info in conv.sessions:
        assert len(load(SAMPLES / GOOSE_DB, session=info.id).messages) == info.message_count
    rows = sqlite3.connect(f"file:{SAMPLES / GOOSE_DB}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    assert conv.report.read == rows and conv.report.unit == "message row"


def test_goose_store_compaction_and_hidden_messages():
    conv = load(SAMPLES / GOOSE_DB)
    (event,) = conv.compaction_events
    assert event.kind == "compaction" and conv.messages[event.position]["content"].startswith("## Goal")
    assert conv.messages[event.position + 1]["content"].startswith("Your context was compacted.")
    assert conv.report.metadata == {USER_ONLY: 1}
    assert conv.usage[1] == {"prompt_tokens": 7400, "completion_tokens": 52, "prompt_tokens_details": {"cached_tokens": 5100}}
    assert conv.model == "claude-sonnet-4-5-20250929"
    assert_tool_pairs(conv.messages)


def test_goose_store_is_read_only_and_a_copy_without_wal_loads(tmp_path):
    digest = hashlib.sha256((SAMPLES / GOOSE_DB).read_bytes()).hexdigest()
    copy = tmp_path / "sessions.db"
    shutil.copy(SAMPLES / GOOSE_DB, copy)
    conv = load(copy)
    assert len(conv.messages) == 14
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"]  # no -wal / -shm made next to it
    assert hashlib.sha256((SAMPLES / GOOSE_DB).read_bytes()).hexdigest() == digest
    from_bytes = load(copy.read_bytes(), filename="sessions.db")
    assert from_bytes.messages == conv.messages


def test_goose_store_with_orphan_rows_and_a_store_of_another_app(tmp_path):
    copy = tmp_path / "sessions.db"
    shutil.copy(SAMPLES / GOOSE_DB, copy)
    conn = sqlite3.connect(copy)
    conn.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('gone', 'user', '[]', 1)")
    conn.commit()
    conn.close()
    conv = load(copy)
    assert conv.report.skipped[0].reason == "message rows of sessions the sessions table does not list"
    assert conv.report.read == conv.report.accounted()
    with pytest.raises(FormatError, match="not a Goose sessions.db"):
        load(SAMPLES / "hermes_state.db", format="goose")


def test_goose_jsonl_of_the_first_releases():
    # Late 2024: no metadata line, items without a 'type', calls without an id answered in order.
    rows = [
        {"role": "user", "created": 1732060439, "content": [{"text": "Read notes.md and add a line"}]},
        {"role": "assistant", "created": 1732060440, "content": [
            {"tool_name": "DeveloperSystem__text_editor", "arguments": {"command": "view", "path": "notes.md"}}]},
        {"role": "user", "created": 1732060440, "content": [
            {"id": "call_a", "tool_result": json.dumps([{"Text": {"text": "# Notes\n"}}])}]},
        {"role": "assistant", "created": 1732060447, "content": [{"text": "Added."}]},
    ]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    assert detect(data, filename="BsNz.jsonl") == "goose"
    conv = load(data, filename="BsNz.jsonl")
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    call = conv.messages[1]["tool_calls"][0]
    assert call["function"]["name"] == "DeveloperSystem__text_editor"
    assert conv.messages[2] == {"role": "tool", "content": "# Notes\n", "tool_call_id": call["id"]}
    assert_tool_pairs(conv.messages)


def test_goose_store_row_that_is_not_json_is_skipped_with_its_row(tmp_path):
    copy = tmp_path / "sessions.db"
    shutil.copy(SAMPLES / GOOSE_DB, copy)
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE messages SET content_json = '{broken' WHERE id = 3")
    conn.commit()
    conn.close()
    conv = load(copy)
    assert conv.report.skipped_count == 1 and conv.report.read == conv.report.accounted()
    assert any(w.startswith("message row 3 content: expected a list of content items") for w in conv.warnings)
    listed = next(info for info in conv.sessions if info.id == conv.session_id)
    assert listed.message_count == len(conv.messages) == 13
