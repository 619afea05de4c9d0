"""pi and OpenClaw sessions: trees and branches, messages as pi sends them, compactions, usage, damage."""

import json

import pytest

from core.formats import FormatError, detect, load
from core.formats.pi_session import BRANCH_PREFIX, COMPACTION_PREFIX, FAILED_RESPONSE, NO_ID
from core.inspections.request import ExactWeigher, request_breakdown
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs, raw_jsonl

PI = "pi_session.jsonl"
CLAW = "openclaw_session.jsonl"


def jsonl(*records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def load_lines(*records, name="session.jsonl", **kwargs):
    conv = load(jsonl(*records), filename=name, **kwargs)
    assert_canonical(conv)
    assert conv.report.read == conv.report.accounted()
    return conv


HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T10:00:00.000Z", "cwd": "/w"}


def entry(entry_id, parent, kind="message", **fields):
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T10:00:01.000Z", **fields}


def user(entry_id, parent, text):
    return entry(entry_id, parent, message={"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1})


def reply(entry_id, parent, text, stop="stop", calls=()):
    blocks = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "toolCall", "id": c, "name": "bash", "arguments": {"command": "ls"}} for c in calls]
    return entry(entry_id, parent, message={"role": "assistant", "content": blocks, "stopReason": stop, "model": "m",
                                            "usage": {"input": 10, "output": 2, "cacheRead": 90, "cacheWrite": 0}})


def result(entry_id, parent, call_id, text="ok"):
    return entry(entry_id, parent, message={"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                                            "content": [{"type": "text", "text": text}], "isError": False})


# ---------------------------------------------------------------------------------------------
# The pi sample


def _main_chain(records):
    by_id = {r["id"]: r for r in records[1:]}
    chain, current = [], records[-1]["id"]
    while current:
        chain.append(by_id[current])
        current = by_id[current]["parentId"]
    return chain[::-1]


def test_pi_sample_counts_follow_the_branch_pi_resumes():
    records = raw_jsonl(PI)
    conv = load(SAMPLES / PI)
    assert conv.format == "pi" and detect(SAMPLES / PI) == "pi"
    chain = _main_chain(records)
    sent = 0
    for row in chain:
        message = row.get("message", {})
        if row["type"] in ("custom_message", "branch_summary", "compaction"):
            sent += 1
        elif row["type"] == "message" and message.get("stopReason") not in ("aborted", "error") \
                and not message.get("excludeFromContext"):
            sent += 1
    assert len(conv.messages) == sent == 22
    calls = sum(1 for row in chain if row["type"] == "message" for b in row["message"].get("content", [])
                if isinstance(b, dict) and b.get("type") == "toolCall")
    assert sum(len(m.get("tool_calls") or []) for m in conv.messages) == calls
    assert_tool_pairs(conv.messages)
    assert conv.report.metadata[FAILED_RESPONSE] == 1 and conv.report.other_branches == 2


def test_pi_sample_parallel_calls_reasoning_and_usage():
    records = raw_jsonl(PI)
    conv = load(SAMPLES / PI)
    first = conv.messages[1]
    assert [c["function"]["name"] for c in first["tool_calls"]] == ["read", "read"] and first["content"] is None
    assert conv.reasoning[1] == "Read the importer and the parser before running anything."
    raw_usage = records[4]["message"]["usage"]
    assert conv.usage[1] == {"input_tokens": raw_usage["input"], "output_tokens": raw_usage["output"],
                             "cache_read_input_tokens": raw_usage["cacheRead"], "cache_creation_input_tokens": 0,
                             "total_tokens": raw_usage["totalTokens"], "cost": raw_usage["cost"]["total"]}
    assert conv.model == "claude-sonnet-4-5" and conv.sessions[0].title == "DKB extra columns and the Revolut importer"
    bash = [m for m in conv.messages if m["role"] == "user" and m["content"].startswith("Ran `")]
    assert bash == [{"role": "user", "content": "Ran `git status --short`\n```\n M src/ledgerline/importers/dkb.py\n```"}]


def test_pi_sample_compaction_event_and_first_kept_message():
    conv = load(SAMPLES / PI)
    (event,) = conv.compaction_events
    raw = next(r for r in raw_jsonl(PI) if r["type"] == "compaction")
    assert event.kind == "compaction" and event.pre_tokens == raw["tokensBefore"] == 142880
    assert conv.messages[event.position]["content"] == COMPACTION_PREFIX + raw["summary"] + "\n</summary>"
    kept = event.details["first_kept_position"]
    assert event.details["first_kept_entry"] == raw["firstKeptEntryId"]
    assert conv.messages[kept]["content"].startswith("Now write the Revolut importer") and kept < event.position
    # What pi sends after the compaction: the kept messages and the summary, not what came before.
    request = request_breakdown(conv, ExactWeigher("cl100k_base"))
    last = request.turns[-1]
    assert last.context_start == kept
    assert request.compacted_messages == kept


def test_pi_sample_branch_left_behind_loads_on_its_own():
    conv = load(SAMPLES / PI)
    main, branch = conv.sessions
    assert (main.kind, branch.kind, branch.parent_id) == ("session", "branch", main.id)
    assert "also make the Wise importer" in branch.title
    loaded = load(SAMPLES / PI, session=branch.id)
    assert len(loaded.messages) == branch.message_count
    assert loaded.messages[-2]["content"] == "also make the Wise importer ignore extra columns"
    summary = [m for m in conv.messages if isinstance(m["content"], str) and m["content"].startswith(BRANCH_PREFIX)]
    assert len(summary) == 1 and "Wise" in summary[0]["content"]


# ---------------------------------------------------------------------------------------------
# pi edge cases


def test_version_one_file_is_one_chain_with_an_index_compaction():
    header = {"type": "session", "id": "old", "timestamp": "2025-11-01T10:00:00.000Z", "cwd": "/w"}
    rows = [header,
            {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "one"}},
            {"type": "message", "timestamp": "t", "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}],
                                                              "stopReason": "stop"}},
            {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "two"}},
            {"type": "compaction", "timestamp": "t", "summary": "S", "firstKeptEntryIndex": 3, "tokensBefore": 900},
            {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "three"}}]
    conv = load_lines(*rows)
    assert [m["content"] for m in conv.messages][:3] == ["one", "a", "two"]
    (event,) = conv.compaction_events
    assert event.position == 3 and event.details["first_kept_position"] == 2 and event.pre_tokens == 900


def test_failed_response_whose_call_was_answered_is_kept():
    conv = load_lines(HEADER, user("u1", None, "go"), reply("a1", "u1", "", stop="aborted", calls=["c1"]),
                      result("r1", "a1", "c1"), reply("a2", "r1", "done"))
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "assistant"]


def test_call_left_without_a_result_gets_pis_placeholder_when_the_conversation_goes_on():
    conv = load_lines(
        HEADER,
        user("u1", None, "restart the gateway"),
        reply("a1", "u1", "", stop="toolUse", calls=("c1", "c2")),
        result("r1", "a1", "c1"),
        entry("m1", "r1", kind="model_change", provider="p", modelId="m2"),  # not a message: the call stays open
        user("u2", "m1", "the bot answers now"),  # the gateway restart cut c2 off
        reply("a2", "u2", "", stop="toolUse", calls=("c3",)),  # the file ends while c3 runs
    )
    assert [m["role"] for m in conv.messages] == ["user", "assistant", "tool", "tool", "user", "assistant"]
    placeholder = conv.messages[3]
    assert placeholder["tool_call_id"] == "c2" and placeholder["content"] == "No result provided"
    assert conv.sources[3].startswith("line 3 ")  # named after the call it answers
    assert any("1 tool call(s) have no result before the conversation goes on" in w for w in conv.warnings)
    assert conv.messages[5]["tool_calls"][0]["id"] == "c3"  # pi adds nothing after the last message either


def test_missing_parent_loop_and_entries_without_id():
    rows = [HEADER, user("u1", None, "go"), reply("a1", "u1", "hi"), user("u2", "gone", "next"),
            {"type": "message", "message": {"role": "assistant", "content": [{"type": "text", "text": "mirror"}]}},
            reply("a2", "u2", "bye")]
    conv = load_lines(*rows)
    assert [m["content"] for m in conv.messages] == ["go", "hi", "next", "bye"]
    assert any("parentId that is not in the file" in w for w in conv.warnings)
    assert conv.report.skipped[0].reason == NO_ID and conv.report.skipped[0].where == ["line 5"]
    looped = load_lines(HEADER, user("u1", "a1", "go"), reply("a1", "u1", "hi"))
    assert [m["content"] for m in looped.messages] == ["go", "hi"] and any("form a loop" in w for w in looped.warnings)


def test_fragment_without_header_is_read_with_a_warning():
    data = jsonl(reply("a1", None, "", calls=["c1"]), result("r1", "a1", "c1"), reply("a2", "r1", "done"))
    assert detect(data, filename="cut.jsonl") == "pi"
    conv = load(data, filename="cut.jsonl")
    assert len(conv.messages) == 3 and any("no session header line" in w for w in conv.warnings)


def test_not_a_pi_entry_is_skipped_with_its_reason():
    conv = load_lines(HEADER, user("u1", None, "go"), entry("x1", "u1", kind="mystery"), reply("a1", "x1", "ok"))
    assert [m["content"] for m in conv.messages] == ["go", "ok"]
    assert conv.report.skipped[0].reason == "entries of type 'mystery' are not part of a pi session"


def test_image_blocks_become_image_parts():
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    conv = load_lines(HEADER, entry("u1", None, message={"role": "user", "content": [{"type": "text", "text": "see"}, image]}))
    assert conv.messages[0]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


# ---------------------------------------------------------------------------------------------
# OpenClaw


def test_openclaw_sample_rows_of_its_own():
    conv = load(SAMPLES / CLAW)
    assert conv.format == "openclaw" and conv.model == "claude-opus-4-5"
    meta = conv.report.metadata
    assert meta["model snapshots (the model of each run)"] == 1
    assert meta["OpenClaw state rows (openclaw:*; never sent to the model)"] == 2
    assert meta[FAILED_RESPONSE] == 1
    assert conv.messages[0]["content"].startswith("Runtime: agent=main | channel=telegram")  # the custom_message
    assert sum(1 for m in conv.messages if m["role"] == "tool") == 3
    assert_tool_pairs(conv.messages)


def test_openclaw_recognised_by_its_home_and_pi_otherwise():
    at_home = {**HEADER, "cwd": "/home/dana/.openclaw/workspace"}
    assert detect(jsonl(at_home, user("u1", None, "hi"), reply("a1", "u1", "yo"))) == "openclaw"
    assert detect(jsonl(HEADER, user("u1", None, "hi"), reply("a1", "u1", "yo"))) == "pi"


def test_openclaw_trajectory_is_refused_as_a_runtime_trace():
    data = jsonl({"type": "session.started", "ts": "2026-05-02T10:00:05.000Z", "runId": "r1", "data": {"toolCount": 42}},
                 {"type": "context.compiled", "ts": "2026-05-02T10:00:06.000Z", "runId": "r1", "data": {}},
                 {"type": "model.completed", "ts": "2026-05-02T10:00:09.250Z", "runId": "r1",
                  "data": {"usage": {"input": 100, "output": 10}}},
                 {"type": "session.ended", "ts": "2026-05-02T10:00:09.300Z", "runId": "r1", "data": {}})
    assert detect(data, filename="abc.trajectory.jsonl") == "openclaw"
    with pytest.raises(FormatError) as excinfo:
        load(data, filename="abc.trajectory.jsonl")
    message = str(excinfo.value)
    assert message.startswith("abc.trajectory.jsonl: ") and "runtime trace, not a conversation" in message
    assert "<session id>.jsonl" in message


def test_openclaw_session_index_is_refused_naming_a_transcript():
    index = {
        "agent:main:main": {"sessionId": "d40e2f44", "updatedAt": 1778882763102, "chatType": "direct",
                            "sessionFile": "/root/.openclaw/agents/main/sessions/d40e2f44.jsonl"},
        "agent:main:cron:ea0da55e": {"sessionId": "5b810f58", "updatedAt": 1778800000000,
                                     "sessionFile": "/root/.openclaw/agents/main/sessions/5b810f58.jsonl"},
    }
    data = json.dumps(index).encode()
    assert detect(data, filename="sessions.json") == "openclaw"
    with pytest.raises(FormatError) as excinfo:
        load(data, filename="sessions.json")
    message = str(excinfo.value)
    assert message.startswith("sessions.json: ") and "session index" in message and "holds no messages" in message
    assert "2 sessions" in message and "d40e2f44.jsonl" in message


def test_samples_are_not_changed_by_loading():
    for name in (PI, CLAW):
        before = (SAMPLES / name).read_bytes()
        load(SAMPLES / name)
        assert (SAMPLES / name).read_bytes() == before


def test_a_stray_entry_on_no_branch_is_metadata_not_a_branch():
    stray = {"type": "custom", "id": "x1", "timestamp": "t", "customType": "openclaw:heartbeat", "data": {}}
    conv = load_lines({**HEADER, "cwd": "/h/.openclaw/w"}, user("u1", None, "hi"), stray, reply("a1", "u1", "yo"))
    assert conv.format == "openclaw" and len(conv.sessions) == 1 and conv.report.other_branches == 0
    assert conv.report.metadata["OpenClaw state rows (openclaw:*; never sent to the model)"] == 1
