"""Hermes stores: state.db (parent chains, active rows, read-only), export JSONL, snapshots, gateway logs."""

import json
import sqlite3

import pytest

from core.formats import load
from core.formats.source import open_input, open_sqlite
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs, raw_jsonl

ROOT, CHILD, GATEWAY = "20260315_101502_4be1c9", "20260315_114233_9d02fa", "20260314_083011_7a1c44e2"


def db_rows(session_id):
    conn = sqlite3.connect((SAMPLES / "hermes_state.db").as_uri() + "?immutable=1", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (session_id,))]
    finally:
        conn.close()


def test_sessions_and_the_compression_chain():
    conv = load(SAMPLES / "hermes_state.db")
    by_id = {info.id: info for info in conv.sessions}
    assert set(by_id) == {ROOT, CHILD, GATEWAY}
    assert by_id[ROOT].end_reason == "compression" and by_id[ROOT].compressed_into == CHILD
    assert by_id[CHILD].parent_id == ROOT and by_id[CHILD].compressed_from == ROOT
    assert by_id[GATEWAY].compressed_from is None and by_id[GATEWAY].compressed_into is None
    assert by_id[CHILD].title == "Fix rounding and refunds #2"
    # the default is the most recently started session: the tip of the chain
    assert conv.session_id == CHILD


def test_before_and_after_pair_share_head_and_tail():
    after = load(SAMPLES / "hermes_state.db")
    before = load(SAMPLES / "hermes_state.db", session=after.sessions[[s.id for s in after.sessions].index(CHILD)].compressed_from)
    assert before.session_id == ROOT
    summary_at = after.compaction_events[0].position
    head = after.messages[:summary_at]
    assert before.messages[: len(head)] == head
    tail = after.messages[summary_at + 1 : summary_at + 7]
    assert before.messages[-6:] == tail
    assert before.compaction_events == []
    assert len(before.messages) > len(after.messages[: summary_at + 7])


def test_message_counts_match_the_rows():
    conv = load(SAMPLES / "hermes_state.db")
    for info in conv.sessions:
        rows = [r for r in db_rows(info.id) if r["role"] != "session_meta"]
        loaded = load(SAMPLES / "hermes_state.db", session=info.id)
        system_prompt_rows = 1  # sessions.system_prompt becomes the first message
        assert len(loaded.messages) == len(rows) + system_prompt_rows
        assert info.message_count == len(loaded.messages)  # what the session picker says is what loads
        assert loaded.sources[0] == "sessions.system_prompt"
        assert loaded.sources[1:] == [f"row {r['id']}" for r in rows]
        assert_canonical(loaded)
        assert_tool_pairs(loaded.messages)


def test_gateway_session_decodes_json_content_and_string_tool_calls():
    rows = db_rows(GATEWAY)
    assert rows[0]["role"] == "session_meta" and rows[0]["content"] is None
    assert rows[1]["content"].startswith("\x00json:")
    assert isinstance(rows[2]["tool_calls"], str) and '"call_id"' in rows[2]["tool_calls"]
    conv = load(SAMPLES / "hermes_state.db", session=GATEWAY)
    assert conv.messages[1] == {"role": "user", "content": json.loads(rows[1]["content"][len("\x00json:"):])}
    (call,) = conv.messages[2]["tool_calls"]
    stored = json.loads(rows[2]["tool_calls"])[0]
    assert call == {"id": stored["id"], "type": "function", "function": stored["function"]}
    assert conv.messages[3] == {"role": "tool", "content": rows[3]["content"], "tool_call_id": stored["id"]}
    assert conv.model == "openai/gpt-4.1-mini"


def test_usage_and_reasoning_columns():
    conv = load(SAMPLES / "hermes_state.db", session=ROOT)
    rows = [r for r in db_rows(ROOT) if r["role"] != "session_meta"]
    assert conv.usage[1:] == [{"token_count": r["token_count"]} if r["token_count"] is not None else None for r in rows]
    assert conv.reasoning[1:] == [r["reasoning"] for r in rows]
    assert any(conv.reasoning)


def test_store_is_opened_read_only(tmp_path):
    path = tmp_path / "state.db"
    path.write_bytes((SAMPLES / "hermes_state.db").read_bytes())
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    load(path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.db"]
    conn = open_sqlite(open_input(path, None, 10**9))
    with pytest.raises(sqlite3.OperationalError, match="readonly|read-only"):
        conn.execute("DELETE FROM messages")
    conn.close()


def test_store_with_a_pending_write_ahead_log_is_read_with_it(tmp_path):
    path = tmp_path / "state.db"
    path.write_bytes((SAMPLES / "hermes_state.db").read_bytes())
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA wal_autocheckpoint = 0")  # keep the new row in the -wal file, as a running agent does
    writer.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'written just now', 9e9)",
                   (CHILD,))
    writer.commit()
    assert (tmp_path / "state.db-wal").stat().st_size > 0
    conv = load(path)
    writer.close()
    assert conv.messages[-1] == {"role": "user", "content": "written just now"}


def test_uploaded_bytes_of_a_wal_mode_store():
    data = (SAMPLES / "hermes_state.db").read_bytes()
    assert data[18] == data[19] == 2  # the file header says WAL mode
    from_bytes = load(data, filename="state.db")
    assert from_bytes.messages == load(SAMPLES / "hermes_state.db").messages
    assert data == (SAMPLES / "hermes_state.db").read_bytes()


def _store_with_active_column(path):
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, system_prompt TEXT, "
                 "parent_session_id TEXT, started_at REAL, end_reason TEXT, title TEXT)")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT, content TEXT, "
                 "tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL, active INTEGER, compacted INTEGER)")
    conn.execute("INSERT INTO sessions VALUES ('s1', 'cli', 'm', NULL, NULL, 1.0, NULL, 'in place')")
    calls = json.dumps([{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls\"}"}}])
    rows = [
        ("user", "first ask", None, None, 0),
        ("assistant", "", None, calls, 0),
        ("tool", "a.py\nb.py", "c1", None, 0),
        ("user", "first ask", None, None, 1),
        ("user", "[CONTEXT SUMMARY]: the user listed files", None, None, 1),
        ("assistant", "Listed.", None, None, 1),
    ]
    for role, content, call_id, tool_calls, active in rows:
        conn.execute("INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, timestamp, active) "
                     "VALUES ('s1', ?, ?, ?, ?, 1.0, ?)", (role, content, call_id, tool_calls, active))
    conn.commit()
    conn.close()


def test_active_column_filters_the_live_view(tmp_path):
    path = tmp_path / "state.db"
    _store_with_active_column(path)
    conv = load(path)
    assert [m["content"] for m in conv.messages] == ["first ask", "[CONTEXT SUMMARY]: the user listed files", "Listed."]
    assert conv.sources == ["row 4", "row 5", "row 6"]
    archived = conv.metadata["archived_messages"]
    assert [a["source"] for a in archived] == ["row 1", "row 2", "row 3"]
    assert archived[1]["message"]["tool_calls"][0]["id"] == "c1"
    assert conv.sessions[0].message_count == 3
    (event,) = conv.compaction_events
    assert event.position == 1 and event.kind == "hermes-summary"
    assert conv.metadata["store"]["has_active_column"] is True


def test_export_jsonl_matches_the_store():
    records = raw_jsonl("hermes_sessions_export.jsonl")
    assert [r["id"] for r in records] == [GATEWAY, ROOT, CHILD]
    with_calls = [m for m in records[2]["messages"] if m["tool_calls"]]
    assert with_calls and all(isinstance(m["tool_calls"], list) for m in with_calls)  # the export parses tool_calls
    for session_id in (GATEWAY, ROOT, CHILD):
        from_export = load(SAMPLES / "hermes_sessions_export.jsonl", session=session_id)
        from_store = load(SAMPLES / "hermes_state.db", session=session_id)
        assert from_export.messages == from_store.messages
        assert from_export.compaction_events == [] or from_export.compaction_events[0].position == from_store.compaction_events[0].position
    exported = load(SAMPLES / "hermes_sessions_export.jsonl")
    assert exported.session_id == CHILD and exported.sources[1] == "line 3 messages[0]"


def test_export_accepts_string_tool_calls_and_json_content():
    record = {"id": "x", "source": "cli", "started_at": 5.0, "system_prompt": "sys", "messages": [
        {"id": 1, "role": "user", "content": "\x00json:" + json.dumps([{"type": "text", "text": "hi"}])},
        {"id": 2, "role": "assistant", "content": "", "tool_calls": json.dumps(
            [{"id": "c", "call_id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}])},
        {"id": 3, "role": "tool", "tool_call_id": "c", "tool_name": "t", "content": "ok"},
    ]}
    conv = load(json.dumps(record).encode(), filename="one.json")
    assert conv.format == "hermes"
    assert conv.messages == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
        {"role": "tool", "content": "ok", "tool_call_id": "c"},
    ]


def test_json_snapshot():
    snapshot = {
        "session_id": "20260101_120000_ab12cd", "model": "anthropic/claude-sonnet-4.6", "base_url": "https://openrouter.ai/api/v1",
        "platform": "cli", "session_start": "2026-01-01T12:00:00", "last_updated": "2026-01-01T12:05:00",
        "system_prompt": "You are Hermes.", "tools": [{"type": "function", "function": {"name": "terminal"}}], "message_count": 2,
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello", "reasoning": "greet"}],
    }
    conv = load(json.dumps(snapshot, indent=2).encode(), filename="session_20260101_120000_ab12cd.json")
    assert conv.format == "hermes" and conv.session_id == "20260101_120000_ab12cd"
    assert conv.messages == [{"role": "system", "content": "You are Hermes."}, {"role": "user", "content": "hi"},
                             {"role": "assistant", "content": "hello"}]
    assert conv.reasoning == [None, None, "greet"]
    assert conv.tools == snapshot["tools"] and conv.model == snapshot["model"]
    assert conv.system_prompt == "You are Hermes."


def test_legacy_gateway_jsonl():
    lines = [
        {"role": "session_meta", "tools": [{"type": "function", "function": {"name": "terminal"}}], "model": "m1", "platform": "telegram",
         "timestamp": "2025-05-01T10:00:00"},
        {"role": "user", "content": "status?", "timestamp": "2025-05-01T10:00:01", "message_id": "tg-1"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}],
         "timestamp": "2025-05-01T10:00:02"},
        {"role": "tool", "tool_call_id": "c9", "content": "up", "timestamp": "2025-05-01T10:00:03"},
        {"role": "assistant", "content": "[CONTEXT SUMMARY]: earlier the user asked for status", "timestamp": "2025-05-01T10:00:04"},
    ]
    conv = load("".join(json.dumps(r) + "\n" for r in lines).encode(), filename="sess.jsonl")
    assert conv.format == "hermes" and conv.model == "m1" and conv.tools == lines[0]["tools"]
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "assistant"]
    assert all("timestamp" not in m for m in conv.messages)
    assert conv.sources == ["line 2", "line 3", "line 4", "line 5"]
    assert [e.position for e in conv.compaction_events] == [3]
