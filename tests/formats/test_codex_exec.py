"""The ``codex exec --json`` event stream: mapping of every item type, truncated streams, bad lines, the sample."""

import json

import pytest

from core.formats import FormatError, detect, load
from core.formats.codex_exec import PROMPT_WARNING
from tests.formats.checks import SAMPLE_FORMATS, SAMPLES, assert_canonical, assert_tool_pairs, raw_jsonl


def stream(*records, tail: str = "") -> bytes:
    return ("".join(json.dumps(r) + "\n" for r in records) + tail).encode()


def load_stream(*records, tail: str = "", **kwargs):
    conv = load(stream(*records, tail=tail), filename="exec.jsonl", **kwargs)
    assert conv.format == "codex-exec"
    assert_canonical(conv)
    return conv


def done(item):
    return {"type": "item.completed", "item": item}


def call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


EVERY_ITEM = [
    {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
    {"type": "turn.started"},
    done({"id": "item_0", "type": "reasoning", "text": "**Looking around**"}),
    done({"id": "item_1", "type": "agent_message", "text": "Listing the files first."}),
    {"type": "item.started", "item": {"id": "item_2", "type": "command_execution", "command": "bash -lc ls",
                                      "aggregated_output": "", "exit_code": None, "status": "in_progress"}},
    done({"id": "item_2", "type": "command_execution", "command": "bash -lc ls", "aggregated_output": "a.py\nb.py\n",
          "exit_code": 0, "status": "completed"}),
    done({"id": "item_3", "type": "command_execution", "command": "pytest -q", "aggregated_output": "1 failed",
          "exit_code": 1, "status": "failed"}),
    done({"id": "item_4", "type": "file_change", "changes": [{"path": "a.py", "kind": "update"}, {"path": "c.py", "kind": "add"}],
          "status": "completed"}),
    done({"id": "item_5", "type": "mcp_tool_call", "server": "docs", "tool": "search", "arguments": {"q": "decimal"},
          "result": {"content": [{"type": "text", "text": "Decimal.quantize"}], "structured_content": None}, "status": "completed"}),
    done({"id": "item_6", "type": "mcp_tool_call", "server": "docs", "tool": "fetch", "status": "failed",
          "error": {"message": "timeout"}}),
    done({"id": "item_7", "type": "web_search", "query": "python decimal rounding"}),
    done({"id": "item_8", "type": "todo_list", "items": [{"text": "fix", "completed": True}, {"text": "test", "completed": False}]}),
    done({"id": "item_9", "type": "error", "message": "command timed out"}),
    done({"id": "item_10", "type": "agent_message", "text": "Done."}),
    {"type": "turn.completed", "usage": {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 80}},
    {"type": "turn.started"},
    {"type": "turn.failed", "error": {"message": "stream disconnected"}},
    {"type": "error", "message": "reconnecting 1/5"},
]


def test_every_item_type_maps_to_exact_messages():
    conv = load_stream(*EVERY_ITEM)
    assert conv.messages == [
        {"role": "assistant", "content": "Listing the files first.",
         "tool_calls": [call("item_2", "shell", {"command": "bash -lc ls"})]},
        {"role": "tool", "content": json.dumps({"output": "a.py\nb.py\n", "exit_code": 0}), "tool_call_id": "item_2"},
        {"role": "assistant", "content": None, "tool_calls": [call("item_3", "shell", {"command": "pytest -q"})]},
        {"role": "tool", "content": json.dumps({"output": "1 failed", "exit_code": 1, "status": "failed"}), "tool_call_id": "item_3"},
        {"role": "assistant", "content": None, "tool_calls": [
            call("item_4", "apply_patch", {"changes": [{"path": "a.py", "kind": "update"}, {"path": "c.py", "kind": "add"}]})]},
        {"role": "tool", "content": '{"status": "completed"}', "tool_call_id": "item_4"},
        {"role": "assistant", "content": None, "tool_calls": [call("item_5", "mcp__docs__search", {"q": "decimal"})]},
        {"role": "tool", "content": "Decimal.quantize", "tool_call_id": "item_5"},
        {"role": "assistant", "content": None, "tool_calls": [call("item_6", "mcp__docs__fetch", {})]},
        {"role": "tool", "content": json.dumps({"status": "failed", "error": "timeout"}), "tool_call_id": "item_6"},
        {"role": "assistant", "content": None, "tool_calls": [call("item_7", "web_search", {"query": "python decimal rounding"})]},
        {"role": "tool", "content": '{"status": "completed"}', "tool_call_id": "item_7"},
        {"role": "assistant", "content": None, "tool_calls": [
            call("item_8", "update_plan", {"plan": [{"step": "fix", "status": "completed"}, {"step": "test", "status": "pending"}]})]},
        {"role": "tool", "content": "[x] fix\n[ ] test", "tool_call_id": "item_8"},
        {"role": "assistant", "content": "Done."},
    ]
    assert conv.sources == ["line 4", "line 6", "line 7", "line 7", "line 8", "line 8", "line 9", "line 9", "line 10", "line 10",
                            "line 11", "line 11", "line 12", "line 12", "line 14"]
    assert conv.reasoning[0] == "**Looking around**" and conv.reasoning[1:] == [None] * 14
    assert conv.usage[-1] == {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 80}
    assert conv.usage[:-1] == [None] * 14
    assert conv.session_id == "0199a213-81c0-7800-8aa1-bbab2a035a53"
    assert conv.metadata["thread_id"] == conv.session_id and conv.metadata["turns"] == 2
    assert conv.metadata["errors"] == [
        {"source": "line 13", "kind": "error item", "message": "command timed out"},
        {"source": "line 17", "kind": "turn.failed", "message": "stream disconnected"},
        {"source": "line 18", "kind": "error event", "message": "reconnecting 1/5"},
    ]
    assert conv.warnings == [
        PROMPT_WARNING,
        "line 13: Codex reported an error (error item): command timed out",
        "line 17: Codex reported an error (turn.failed): stream disconnected",
        "line 18: Codex reported an error (error event): reconnecting 1/5",
    ]


def test_exit_codes_are_where_the_summarizers_look():
    from core.phases.oneliners import _EXIT_CODE_RE

    conv = load_stream(*EVERY_ITEM)
    assert _EXIT_CODE_RE.search(conv.messages[3]["content"]).group(1) == "1"


def test_old_item_type_key_and_updates_keep_one_message_per_item():
    conv = load_stream(
        {"type": "item.started", "item": {"id": "item_0", "item_type": "todo_list", "items": [{"text": "a", "completed": False}]}},
        {"type": "item.updated", "item": {"id": "item_0", "item_type": "todo_list", "items": [{"text": "a", "completed": True}]}},
        done({"id": "item_0", "item_type": "todo_list", "items": [{"text": "a", "completed": True}]}),
        done({"id": "item_0", "item_type": "todo_list", "items": []}),
        done({"id": "item_1", "item_type": "assistant_message", "text": "hi"}),
    )
    assert [m["role"] for m in conv.messages] == ["assistant", "tool"]
    assert conv.messages[1]["content"] == "[x] a"
    assert "line 4: item 'item_0' was already completed; the repeat is ignored" in conv.warnings
    assert "items of these types were left out: assistant_message (1)" in conv.warnings


def test_reasoning_without_a_later_message_joins_the_last_assistant_message():
    conv = load_stream(done({"id": "a", "type": "agent_message", "text": "ok"}), done({"id": "r", "type": "reasoning", "text": "why"}))
    assert conv.reasoning == ["why"]


def test_truncated_stream_keeps_unfinished_items_from_their_latest_snapshot():
    conv = load_stream(
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "item.started", "item": {"id": "item_0", "type": "command_execution", "command": "make test",
                                          "aggregated_output": "", "exit_code": None, "status": "in_progress"}},
        {"type": "item.updated", "item": {"id": "item_0", "type": "command_execution", "command": "make test",
                                          "aggregated_output": "running 12 tests", "exit_code": None, "status": "in_progress"}},
        tail='{"type": "item.completed", "item": {"id": "item_0", "type": "command_exec',
    )
    assert conv.messages == [
        {"role": "assistant", "content": None, "tool_calls": [call("item_0", "shell", {"command": "make test"})]},
        {"role": "tool", "content": json.dumps({"output": "running 12 tests", "exit_code": None, "status": "in_progress"}),
         "tool_call_id": "item_0"},
    ]
    assert conv.sources == ["line 4 (item.updated, never completed)"] * 2
    assert conv.warnings[0] == PROMPT_WARNING
    assert conv.warnings[1].startswith("line 5") and conv.warnings[1].endswith("; line skipped")
    assert conv.warnings[2] == (
        "item 'item_0' (command_execution) never completed (the stream ends first); kept from its latest snapshot at line 4"
    )
    assert not [w for w in conv.warnings if "unpaired" in w]


@pytest.mark.parametrize(("line", "message"), [
    ('["not", "an", "event"]', "line 2: expected an event object, got a list; skipped"),
    ('{"item": {}}', "line 2: expected a string 'type' naming the event (thread.started, item.completed, ...), got null; skipped"),
    ('{"type": "item.completed", "item": "x"}', "line 2: expected an 'item' object in this item.completed event, got a string; skipped"),
    ('{"type": "item.completed", "item": {"id": "i"}}', "line 2 item.type: expected a string naming the item type, got null; skipped"),
    ('{"type": "item.completed", "item": {"id": "i", "type": "agent_message", "text": 5}}',
     "line 2 item.text: expected a string, got a int; skipped"),
    ('{"type": "item.completed", "item": {"id": "i", "type": "command_execution", "command": "ls", "exit_code": "0"}}',
     "line 2 item.exit_code: expected an integer or null, got a string; skipped"),
    ('{"type": "item.completed", "item": {"id": "i", "type": "file_change", "changes": {"path": "a"}}}',
     "line 2 item.changes: expected a list of {path, kind} objects, got an object; skipped"),
    ('{"type": "item.completed", "item": {"id": "i", "type": "todo_list", "items": [3]}}',
     "line 2 item.items[0]: expected a {text, completed} object, got a int; skipped"),
    ('{"type": "turn.completed", "usage": [1]}', "line 2: expected a 'usage' object in turn.completed, got a list"),
    ('{"type": "thread.started", "thread_id": null}', "line 2: expected a 'thread_id' string in thread.started, got null"),
    ('{"type": "item.completed", "item": {"id": "i", "type": "agent_message", "text": "x"}', "line 2, column"),
])
def test_malformed_lines_are_skipped_with_a_warning_naming_the_line(line, message):
    data = stream({"type": "turn.started"}, tail=line + "\n" + json.dumps(done({"id": "z", "type": "agent_message", "text": "ok"})) + "\n")
    conv = load(data, filename="exec.jsonl")
    assert conv.format == "codex-exec"
    assert conv.messages == [{"role": "assistant", "content": "ok"}]
    assert any(w.startswith(message) for w in conv.warnings), conv.warnings


def test_unknown_events_are_counted():
    conv = load_stream({"type": "turn.started"}, {"type": "session.configured"}, {"type": "session.configured"})
    assert "events of unknown types were left out: session.configured (2)" in conv.warnings
    assert "the transcript holds no messages" in conv.warnings


def test_a_single_document_is_refused_with_the_expected_layout():
    with pytest.raises(FormatError, match=r"^exec.json: a codex-exec log is JSON Lines with one event object per line"):
        load(json.dumps(EVERY_ITEM).encode(), filename="exec.json", format="codex-exec")


def test_sample_is_detected_and_maps_every_item():
    path = SAMPLES / "codex_exec_run.jsonl"
    assert SAMPLE_FORMATS["codex_exec_run.jsonl"] == "codex-exec"
    assert detect(path) == "codex-exec"
    conv = load(path)
    assert_canonical(conv)
    assert_tool_pairs(conv.messages)
    records = raw_jsonl("codex_exec_run.jsonl")
    completed = [r["item"] for r in records if r["type"] == "item.completed"]
    tools = [i for i in completed if i["type"] not in ("agent_message", "reasoning")]
    assert len([m for m in conv.messages if m["role"] == "tool"]) == len(tools)
    texts = [m["content"] for m in conv.messages if m["role"] == "assistant" and m["content"]]
    assert texts == [i["text"] for i in completed if i["type"] == "agent_message"]
    exit_codes = [json.loads(m["content"])["exit_code"] for m in conv.messages
                  if m["role"] == "tool" and m["content"].startswith('{"output"')]
    assert exit_codes == [i["exit_code"] for i in completed if i["type"] == "command_execution"]
    assert 1 in exit_codes and exit_codes[-1] == 0
    assert [r for r in conv.reasoning if r] == [i["text"] for i in completed if i["type"] == "reasoning"]
    (turn,) = [r for r in records if r["type"] == "turn.completed"]
    assert conv.usage[-1] == turn["usage"] and conv.messages[-1]["role"] == "assistant"
    assert conv.session_id == records[0]["thread_id"]
    assert conv.warnings == [PROMPT_WARNING]


def test_rollouts_and_other_samples_are_not_taken_for_exec_streams():
    for name, expected in SAMPLE_FORMATS.items():
        assert detect(SAMPLES / name) == expected, name
    rollout = stream({"type": "session_meta", "payload": {"id": "x"}}, {"type": "event_msg", "payload": {"type": "error", "message": "m"}})
    assert detect(rollout) == "codex"
    with pytest.raises(FormatError, match="unknown structure"):
        detect(stream({"type": "error", "message": "a"}, {"type": "error", "message": "b"}))
