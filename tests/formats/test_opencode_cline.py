"""OpenCode (store, export, storage tree) and Cline / Roo Code / Kilo Code task folders."""

import json
import shutil
import sqlite3

import pytest

from core.formats import FormatError, detect, load
from core.inspections.request import request_breakdown
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs, raw_json

DB = SAMPLES / "opencode.db"
TASK = SAMPLES / "cline_task"


def store_rows(table, **where):
    conn = sqlite3.connect(DB.as_uri() + "?immutable=1", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        clause = " AND ".join(f"{key} = ?" for key in where) or "1"
        return [dict(r) for r in conn.execute(f"SELECT * FROM {table} WHERE {clause} ORDER BY rowid", tuple(where.values()))]
    finally:
        conn.close()


# ---------------------------------------------------------------------------------------------
# OpenCode


def test_opencode_store_sessions_and_the_default():
    conv = load(DB)
    sessions = store_rows("session")
    assert [info.id for info in conv.sessions] == [s["id"] for s in sessions]
    sub = next(info for info in conv.sessions if info.parent_id)
    assert sub.kind == "sidechain" and sub.is_sidechain and sub.parent_id == conv.session_id
    latest = max((s for s in sessions if not s["parent_id"]), key=lambda s: s["time_updated"])
    assert conv.session_id == latest["id"] and conv.model == "claude-sonnet-4-5"
    messages = store_rows("message", session_id=conv.session_id)
    parts = [p for m in messages for p in store_rows("part", message_id=m["id"])]
    assert conv.report.unit == "row" and conv.report.read == len(store_rows("message")) + len(store_rows("part"))
    assert conv.report.read - conv.report.other_sessions == len(messages) + len(parts)
    assert conv.report.read == conv.report.accounted()


def test_opencode_steps_are_model_calls_with_their_usage():
    conv = load(DB)
    assert_canonical(conv)
    assert_tool_pairs(conv.messages)
    parts = [json.loads(p["data"]) for m in store_rows("message", session_id=conv.session_id)
             for p in store_rows("part", message_id=m["id"])]
    finishes = [p for p in parts if p["type"] == "step-finish"]
    usage = [u for m, u in zip(conv.messages, conv.usage, strict=True) if m["role"] == "assistant"]
    assert len(usage) == len(finishes) and all(u is not None for u in usage)
    assert [u["cache_read_input_tokens"] for u in usage] == [f["tokens"]["cache"]["read"] for f in finishes]
    last = finishes[-1]["tokens"]
    assert request_breakdown(conv).recorded_last_prompt == last["input"] + last["cache"]["read"] + last["cache"]["write"]
    tools = [p for p in parts if p["type"] == "tool"]
    assert sum(m["role"] == "tool" for m in conv.messages) == len(tools)
    assert {c["id"] for m in conv.messages for c in m.get("tool_calls") or []} == {t["callID"] for t in tools}
    # the cleared output is kept (it is the log's) and said
    assert conv.metadata["cleared_tool_outputs"] == 1 and any("cleared from OpenCode's context" in w for w in conv.warnings)
    # the failed call is not sent again
    assert any(s.reason.startswith("assistant messages that ended in an error") for s in conv.report.skipped)


def test_opencode_compaction_and_its_summary():
    conv = load(DB)
    (event,) = conv.compaction_events
    assert event.kind == "opencode-compaction" and event.details == {"trigger": "auto"}
    assert conv.messages[event.position] == {"role": "user", "content": "What did we do so far?"}
    assert event.summary == conv.messages[event.position + 1]["content"] and event.summary.startswith("## Summary")
    assert request_breakdown(conv).context_start == event.position


def test_opencode_user_parts_as_opencode_sends_them():
    conv = load(DB)
    first = conv.messages[0]["content"]
    assert [p["type"] for p in first] == ["text", "image_url", "text", "text"]
    assert "text files and folders attached (their content is a text part of the same message)" in conv.report.metadata


def test_opencode_revert_and_the_export_match_the_store():
    first = store_rows("session")[0]["id"]
    from_store = load(DB, session=first)
    export = load(SAMPLES / "opencode_export_session.json")
    assert export.messages == from_store.messages and export.usage == from_store.usage
    assert export.session_id == first
    reverted = [s for s in export.report.skipped if "reverted" in s.reason]
    assert sum(s.count for s in reverted) == 6 and "Valuta" not in json.dumps(export.messages)


def test_opencode_export_of_an_older_version():
    """Before the store: the system prompt on each assistant message, tokens on the message, no snapshots."""
    info = {"id": "ses_6aade4081ffe216ygZUgcUQdR1", "version": "0.9.6", "projectID": "global", "directory": "/w",
            "title": "pwd", "time": {"created": 1758069899000, "updated": 1758069901500}}
    user = {"id": "msg_95521bf00001AAAA", "sessionID": info["id"], "role": "user", "time": {"created": 1758069899100}}
    assistant = {"id": "msg_95521bfdd001ZM07GcDYAneK54", "sessionID": info["id"], "role": "assistant",
                 "system": ["You are opencode, an interactive CLI tool.", "<env>\n  Working directory: /w\n</env>"],
                 "mode": "build", "path": {"cwd": "/w", "root": "/"}, "cost": 0, "modelID": "grok-code",
                 "providerID": "opencode", "time": {"created": 1758069899229, "completed": 1758069901481},
                 "tokens": {"input": 9640, "output": 12, "reasoning": 266, "cache": {"write": 0, "read": 9600}}}
    parts = [{"id": "prt_1", "type": "step-start"}, {"id": "prt_2", "type": "reasoning", "text": "pwd prints the folder."},
             {"id": "prt_3", "type": "text", "text": "/w"}, {"id": "prt_4", "type": "future-part"}]
    doc = {"info": info, "messages": [{"info": user, "parts": [{"id": "prt_0", "type": "text", "text": "pwd"}]},
                                      {"info": assistant, "parts": parts}]}
    conv = load(json.dumps(doc).encode(), filename="export.json")
    assert [m["content"] for m in conv.messages] == ["pwd", "/w"]
    assert conv.system_prompt.startswith("You are opencode") and conv.reasoning[1] == "pwd prints the folder."
    assert conv.usage[1]["cache_read_input_tokens"] == 9600 and conv.model == "grok-code"
    assert conv.report.metadata["parts of other types (nothing OpenCode sends the model): future-part"] == 1


def test_opencode_message_cut_off_before_its_call_finished_has_no_usage():
    """OpenCode creates an assistant message with zero counts and fills them in when the call ends."""
    info = {"id": "ses_cut", "projectID": "global", "directory": "/w", "title": "push",
            "time": {"created": 1781748283000, "updated": 1781748284000}}
    user = {"id": "msg_1", "sessionID": "ses_cut", "role": "user", "time": {"created": 1781748283100}}
    done = {"id": "msg_2", "sessionID": "ses_cut", "role": "assistant", "modelID": "kimi", "cost": 0.0065,
            "time": {"created": 1781748283200, "completed": 1781748283300}, "finish": "tool-calls",
            "tokens": {"input": 7075, "output": 151, "reasoning": 0, "cache": {"write": 0, "read": 0}}}
    cut = {"id": "msg_3", "sessionID": "ses_cut", "role": "assistant", "modelID": "kimi", "cost": 0,
           "time": {"created": 1781748283400}, "tokens": {"input": 0, "output": 0, "reasoning": 0,
                                                           "cache": {"read": 0, "write": 0}}}
    call = {"id": "prt_3", "type": "tool", "tool": "bash", "callID": "call_1",
            "state": {"status": "completed", "input": {"command": "git status"}, "output": "clean", "title": "git status"}}
    pending = {"id": "prt_5", "type": "tool", "tool": "bash", "callID": "call_2",
               "state": {"status": "pending", "input": {}, "raw": ""}}
    doc = {"info": info, "messages": [
        {"info": user, "parts": [{"id": "prt_1", "type": "text", "text": "commit and push"}]},
        {"info": done, "parts": [{"id": "prt_2", "type": "step-start"}, call]},
        {"info": cut, "parts": [{"id": "prt_4", "type": "text", "text": "Pushing."}, pending]},
    ]}
    conv = load(json.dumps(doc).encode(), filename="export.json")
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert conv.usage[1]["input_tokens"] == 7075 and conv.usage[3] is None
    assert conv.messages[4]["content"] == "[Tool execution was interrupted]"
    assert_tool_pairs(conv.messages)


def test_opencode_store_is_read_only_and_creates_nothing(tmp_path):
    path = tmp_path / "opencode.db"
    shutil.copy(DB, path)
    (tmp_path / "opencode.db-wal").write_bytes(b"")  # a -wal copied without its -shm
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    conv = load(path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert any("opencode.db-wal was not read" in w for w in conv.warnings)
    assert conv.messages == load(DB).messages
    assert load(DB.read_bytes(), filename="opencode.db").messages == conv.messages


def storage_tree(root):
    """The store written out as the older JSON storage tree."""
    storage = root / "storage"
    for session in store_rows("session"):
        info = {"id": session["id"], "projectID": session["project_id"], "directory": session["directory"],
                "title": session["title"], "version": session["version"],
                "time": {"created": session["time_created"], "updated": session["time_updated"]}}
        if session["parent_id"]:
            info["parentID"] = session["parent_id"]
        if session["revert"]:
            info["revert"] = json.loads(session["revert"])
        (storage / "session" / session["project_id"]).mkdir(parents=True, exist_ok=True)
        (storage / "session" / session["project_id"] / f"{session['id']}.json").write_text(json.dumps(info))
        for message in store_rows("message", session_id=session["id"]):
            (storage / "message" / session["id"]).mkdir(parents=True, exist_ok=True)
            data = {"id": message["id"], "sessionID": session["id"], **json.loads(message["data"])}
            (storage / "message" / session["id"] / f"{message['id']}.json").write_text(json.dumps(data))
            for part in store_rows("part", message_id=message["id"]):
                (storage / "part" / message["id"]).mkdir(parents=True, exist_ok=True)
                data = {"id": part["id"], "sessionID": session["id"], "messageID": message["id"], **json.loads(part["data"])}
                (storage / "part" / message["id"] / f"{part['id']}.json").write_text(json.dumps(data))
    return storage


def test_opencode_storage_tree_by_folder_and_by_session_file(tmp_path):
    storage = storage_tree(tmp_path)
    store = load(DB)
    for target in (tmp_path, storage):
        assert detect(target) == "opencode"
        conv = load(target)
        assert conv.messages == store.messages and conv.session_id == store.session_id
        assert [i.message_count for i in conv.sessions] == [i.message_count for i in store.sessions]
        assert conv.report.unit == "file" and conv.report.read == conv.report.accounted()
    session_file = next((storage / "session").glob(f"*/{store.sessions[0].id}.json"))
    by_file = load(session_file)
    assert by_file.session_id == store.sessions[0].id and by_file.messages == load(DB, session=by_file.session_id).messages


def test_opencode_pieces_of_a_session_are_refused_clearly(tmp_path):
    storage = storage_tree(tmp_path)
    message = next((storage / "message").glob("*/*.json"))
    part = next((storage / "part").glob("*/*.json"))
    with pytest.raises(FormatError, match=r"this is one message of an OpenCode session .*give the storage folder"):
        load(message)
    with pytest.raises(FormatError, match=r"this is one part of a message of an OpenCode session"):
        load(part)
    session_file = next((storage / "session").glob("*/*.json"))
    with pytest.raises(FormatError, match=r"session\.json: this is an OpenCode session file: .*give that folder"):
        load(session_file.read_bytes(), filename="session.json")


def test_opencode_damaged_file_in_the_tree_is_skipped_with_a_warning(tmp_path):
    storage = storage_tree(tmp_path)
    part = sorted((storage / "part").glob("*/*.json"))[-1]
    part.write_text('{"type": "text", "text": "cut')
    conv = load(storage)
    assert any("file skipped" in w and part.name in w for w in conv.warnings)
    assert conv.report.read == conv.report.accounted()


def test_sqlite_stores_are_told_apart():
    assert detect(DB) == "opencode" and detect(SAMPLES / "hermes_state.db") == "hermes"
    with pytest.raises(FormatError, match="can only be read as the opencode format, not 'openai-chat'"):
        load(DB, format="openai-chat")
    with pytest.raises(FormatError, match="a SQLite database, but not a Hermes state.db"):
        load(DB, format="hermes")


# ---------------------------------------------------------------------------------------------
# Cline / Roo Code / Kilo Code


def test_cline_task_folder_is_the_history_with_the_panels_usage():
    history = raw_json("cline_task/api_conversation_history.json")
    panel = raw_json("cline_task/ui_messages.json")
    conv = load(TASK)
    assert conv.format == "cline" and detect(TASK) == "cline" and conv.session_id == "cline_task"
    assert_canonical(conv)
    assert_tool_pairs(conv.messages)
    uses = [b for m in history if isinstance(m["content"], list) for b in m["content"] if b["type"] == "tool_use"]
    assert sum(m["role"] == "tool" for m in conv.messages) == len(uses) - 1  # the last completion was never answered
    assert sum(m["role"] == "assistant" for m in conv.messages) == sum(m["role"] == "assistant" for m in history)
    # the text the extension wrote when it could not map a call id answers that call
    fallback = next(m for m in conv.messages if m["role"] == "tool" and "Traceback" in m["content"])
    assert fallback["content"].startswith("[execute_command for")
    # each request's usage comes from the panel, in Anthropic's split
    requests = [json.loads(r["text"]) for r in panel if r.get("say") == "api_req_started"]
    usage = [u for m, u in zip(conv.messages, conv.usage, strict=True) if m["role"] == "assistant"]
    assert [u["cache_read_input_tokens"] for u in usage] == [r["cacheReads"] for r in requests]
    assert [u["cache_creation_input_tokens"] for u in usage] == [r["cacheWrites"] for r in requests]
    last = requests[-1]
    assert request_breakdown(conv).recorded_last_prompt == last["tokensIn"] + last["cacheWrites"] + last["cacheReads"]
    assert conv.report.read == len(history) + len(panel) + 1 == conv.report.accounted()
    assert conv.report.placed == len(history)


def test_cline_summarize_task_is_the_compaction():
    conv = load(TASK)
    (event,) = conv.compaction_events  # the deleted range it caused is not a second event
    assert event.kind == "cline-summarize" and event.summary.startswith("1. Primary Request and Intent")
    assert conv.messages[event.position]["tool_calls"][0]["function"]["name"] == "summarize_task"
    assert request_breakdown(conv).context_start == event.position


def test_cline_files_bring_their_siblings_and_bytes_are_read_alone():
    folder = load(TASK)
    for name in ("api_conversation_history.json", "ui_messages.json", "task_metadata.json"):
        assert load(TASK / name).messages == folder.messages
    alone = load((TASK / "api_conversation_history.json").read_bytes(), filename="api_conversation_history.json")
    assert alone.messages == folder.messages and alone.report.read == len(raw_json("cline_task/api_conversation_history.json"))
    assert [e.kind for e in alone.compaction_events] == ["cline-summarize"]
    # without the panel, the history's own metrics are the usage
    assert alone.usage[1] == {"input_tokens": raw_json("cline_task/api_conversation_history.json")[1]["metrics"]["tokens"]["prompt"],
                              "output_tokens": raw_json("cline_task/api_conversation_history.json")[1]["metrics"]["tokens"]["completion"],
                              "cache_read_input_tokens": raw_json("cline_task/api_conversation_history.json")[1]["metrics"]["tokens"]["cached"],
                              "cost": raw_json("cline_task/api_conversation_history.json")[1]["metrics"]["cost"]}
    with pytest.raises(FormatError, match=r"task_metadata\.json: this is a task's task_metadata\.json: .*give the task folder"):
        load((TASK / "task_metadata.json").read_bytes(), filename="task_metadata.json")


def test_cline_panel_alone_is_read_as_the_panel_showed_it():
    panel = raw_json("cline_task/ui_messages.json")
    conv = load((TASK / "ui_messages.json").read_bytes(), filename="ui_messages.json")
    users = [r for r in panel if r.get("say") in ("user_feedback",)] + [panel[0]]
    calls = [r for r in panel if r.get("say") == "tool" or r.get("ask") == "command"]
    assert sum(m["role"] == "user" for m in conv.messages) == len(users)
    assert sum(len(m.get("tool_calls") or []) for m in conv.messages) == len(calls)
    assert sum(1 for u in conv.usage if u) == sum(r.get("say") == "api_req_started" for r in panel)
    assert any("read from ui_messages.json alone" in w for w in conv.warnings)
    assert conv.report.read == len(panel) == conv.report.accounted()


def test_cline_history_is_told_from_a_plain_anthropic_export():
    history = raw_json("cline_task/api_conversation_history.json")
    assert detect(json.dumps(history).encode()) == "cline"  # <environment_details>, modelInfo
    plain = [{"role": m["role"], "content": [b for b in m["content"] if b["type"] in ("text", "tool_use", "tool_result")
                                             and "<environment_details>" not in b.get("text", "") and "<task>" not in b.get("text", "")]}
             for m in history if isinstance(m["content"], list)]
    plain = [m for m in plain if m["content"]]
    assert detect(json.dumps(plain).encode()) == "anthropic"
    assert detect(json.dumps(plain).encode(), filename="api_conversation_history.json") == "cline"


def test_cline_xml_tools_of_older_versions_become_tool_pairs():
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nList the tests\n</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<thinking>Look first.</thinking>\n\n<list_files>\n"
                                                                    "<path>tests</path>\n<recursive>false</recursive>\n</list_files>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[list_files for 'tests'] Result:\ntest_parser.py"},
                                     {"type": "text", "text": "<environment_details>\n...\n</environment_details>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<write_to_file>\n<path>a.txt</path>\n<content>\n"
                                                                    "<b>x</b>\n</content>\n</write_to_file>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[write_to_file for 'a.txt'] Result:\nThe user denied this operation."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<attempt_completion>\n<result>\nDone\n</result>\n"}]},
    ]
    conv = load(json.dumps(history).encode(), filename="api_conversation_history.json")
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "user", "assistant", "tool", "assistant"]
    first = conv.messages[1]
    assert first["content"] == "<thinking>Look first.</thinking>"
    assert json.loads(first["tool_calls"][0]["function"]["arguments"]) == {"path": "tests", "recursive": "false"}
    write = json.loads(conv.messages[4]["tool_calls"][0]["function"]["arguments"])
    assert write == {"path": "a.txt", "content": "<b>x</b>"}
    assert conv.messages[5]["content"].endswith("The user denied this operation.")
    assert conv.messages[6]["content"].startswith("<attempt_completion>")  # cut off: it stays text
    assert conv.metadata["xml_tool_calls"] == 2 and conv.metadata["text_tool_results"] == 2


def test_cline_text_result_quoting_a_question_of_several_lines_answers_its_call():
    question = "## Phase 1 done\n\n**Changes**\n- storage moved\n\nGo on to phase 2?"
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nRefactor\n</task>"}], "ts": 1},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "tooluse_a", "name": "ask_followup_question", "input": {"question": question}},
        ], "ts": 2},
        {"role": "user", "content": [
            {"type": "text", "text": f"[ask_followup_question for '{question}'] Result:\n<answer>\nyes\n</answer>"},
            {"type": "text", "text": "<environment_details>\n...\n</environment_details>"},
        ], "ts": 3},
        {"role": "assistant", "content": [{"type": "text", "text": "Starting phase 2."}], "ts": 4},
    ]
    conv = load(json.dumps(history).encode(), filename="api_conversation_history.json")
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "user", "assistant"]
    assert conv.messages[2]["tool_call_id"] == "tooluse_a" and conv.messages[2]["content"].endswith("yes\n</answer>")
    assert conv.metadata["text_tool_results"] == 1
    assert not any("no recorded result" in w for w in conv.warnings)
    assert_tool_pairs(conv.messages)


def test_roo_condense_and_cline_truncation_are_compaction_events(tmp_path):
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"}], "ts": 1},
        {"role": "assistant", "content": [{"type": "text", "text": "Looking."}], "ts": 2},
        {"role": "user", "content": [{"type": "text", "text": "more"}], "ts": 3},
        {"role": "assistant", "content": [{"type": "text", "text": "## Summary\nAll of it."}], "ts": 4, "isSummary": True},
        {"role": "user", "content": [{"type": "text", "text": "go on"}], "ts": 5},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}], "ts": 6},
    ]
    panel = [
        {"ts": 1, "type": "say", "say": "text", "text": "fix it"},
        {"ts": 2, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 9, "tokensOut": 3}),
         "conversationHistoryIndex": -1},
        {"ts": 3, "type": "say", "say": "condense_context", "contextCondense": {"summary": "All of it.", "prevContextTokens": 90000,
                                                                              "newContextTokens": 4000, "cost": 0.02}},
        {"ts": 4, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 5, "tokensOut": 2}),
         "conversationHistoryIndex": 3, "conversationHistoryDeletedRange": [1, 3]},
        {"ts": 5, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 5, "tokensOut": 2}),
         "conversationHistoryIndex": 3, "conversationHistoryDeletedRange": [4, 4]},
    ]
    (tmp_path / "api_conversation_history.json").write_text(json.dumps(history))
    (tmp_path / "ui_messages.json").write_text(json.dumps(panel))
    conv = load(tmp_path)
    kinds = [(e.kind, e.position) for e in conv.compaction_events]
    assert kinds == [("roo-condense", 3), ("cline-truncation", 5)]
    roo = conv.compaction_events[0]
    assert roo.summary == "## Summary\nAll of it." and roo.pre_tokens == 90000 and roo.details["newContextTokens"] == 4000
    assert conv.compaction_events[1].details == {"deleted_range": [4, 4]}
    assert conv.usage[1]["input_tokens"] == 9 and conv.usage[5]["input_tokens"] == 5


def test_folders_no_tool_writes_are_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(FormatError, match=r"is a directory, and not one whose layout a tool writes \(opencode, cline\)"):
        load(tmp_path)
    with pytest.raises(FormatError, match="is a directory, and a gemini-cli transcript is a file"):
        load(TASK, format="gemini-cli")


def test_batch_takes_a_tool_folder_as_one_transcript(tmp_path):
    from core.batch_files import find_transcripts

    shutil.copytree(TASK, tmp_path / "tasks" / "1779300000000")
    storage_tree(tmp_path / "opencode")
    (tmp_path / "chat.json").write_text("[]")
    found = find_transcripts([str(tmp_path)])
    assert found == [str(tmp_path / "chat.json"), str(tmp_path / "opencode"), str(tmp_path / "tasks" / "1779300000000")]


def test_roo_summary_copies_of_earlier_calls_are_left_out():
    use = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}}
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nread a.py\n</task>"}], "ts": 1},
        {"role": "assistant", "content": [use], "ts": 2, "condenseParent": "c1"},
        {"role": "assistant", "content": [{"type": "text", "text": "Summary: reading a.py."}, use], "ts": 3,
         "isSummary": True, "condenseId": "c1"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "print(1)"}], "ts": 4},
    ]
    conv = load(json.dumps(history).encode(), filename="api_conversation_history.json")
    calls = [c["id"] for m in conv.messages for c in m.get("tool_calls") or []]
    assert calls == ["toolu_1"] and conv.messages[2]["content"] == "Summary: reading a.py."
    assert conv.compaction_events[0].kind == "roo-condense" and conv.metadata["condensed_messages"] == 1
