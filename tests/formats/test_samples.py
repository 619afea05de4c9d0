"""Loading every bundled sample: counts derived from the raw files, tool pairs, canonical invariants."""

import base64
import copy
import struct
import zlib
from pathlib import Path

import pytest

from core.formats import load
from tests.formats.checks import (
    DATA,
    SAMPLE_FORMATS,
    SAMPLES,
    assert_canonical,
    assert_tool_pairs,
    raw_json,
    raw_jsonl,
)


@pytest.mark.parametrize("name", sorted(SAMPLE_FORMATS))
def test_sample_loads_canonical_with_intact_tool_pairs(name):
    conv = load(SAMPLES / name)
    assert conv.format == SAMPLE_FORMATS[name]
    assert conv.filename == Path(name).name
    assert conv.messages
    assert_canonical(conv)
    assert_tool_pairs(conv.messages)
    # No damaged line, no unpaired call; the only rows a sample may leave out are Claude Code's attachments
    # and what a rewind removed.
    assert not [w for w in conv.warnings if "unpaired" in w or "skipped" in w.lower() and "line" in w
                and "attachment rows" not in w and "rewind" not in w]
    assert conv.report.read == conv.report.accounted()


@pytest.mark.parametrize("name", sorted(SAMPLE_FORMATS))
def test_every_session_loads_with_the_message_count_it_is_listed_with(name):
    conv = load(SAMPLES / name)
    for info in conv.sessions:
        assert len(load(SAMPLES / name, session=info.id).messages) == info.message_count, info.id


@pytest.mark.parametrize("name", sorted(SAMPLE_FORMATS))
def test_loading_bytes_equals_loading_the_path(name):
    from_path = load(SAMPLES / name)
    from_bytes = load((SAMPLES / name).read_bytes(), filename=name)
    assert from_bytes.messages == from_path.messages
    assert from_bytes.sources == from_path.sources


def test_openai_chat_samples_keep_every_message_as_given():
    for name in ("long_coding_session.json", "screenshot_layout_bug.json", "secrets_in_tool_output.json",
                 "resumed_with_handoff_summary.json"):
        raw = raw_json(name)["messages"]
        conv = load(SAMPLES / name)
        assert conv.messages == raw, name
        assert conv.sources == [f"messages[{i}]" for i in range(len(raw))]


def test_anthropic_sample_counts_follow_the_blocks():
    raw = raw_json("anthropic_messages_session.json")
    expected = 1  # the top-level system prompt
    results = 0
    for message in raw["messages"]:
        blocks = message["content"] if isinstance(message["content"], list) else []
        tool_results = [b for b in blocks if b["type"] == "tool_result"]
        results += len(tool_results)
        others = [b for b in blocks if b["type"] != "tool_result"]
        expected += len(tool_results) + (1 if others or not tool_results or message["role"] == "assistant" else 0)
    conv = load(SAMPLES / "anthropic_messages_session.json")
    assert len(conv.messages) == expected
    assert sum(m["role"] == "tool" for m in conv.messages) == results
    assert conv.messages[0]["role"] == "system" and conv.system_prompt.startswith("You are a careful coding agent")
    assert conv.model == "claude-sonnet-4-5"
    # the image block became an image part with a data URL, thinking went to reasoning
    first_user = conv.messages[1]["content"]
    assert first_user[0]["type"] == "image_url" and first_user[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert conv.reasoning[2] and conv.reasoning[2].startswith("The difference is 19.99")
    # text that follows tool results in the same user message comes after the tool messages
    after_results = [i for i, m in enumerate(conv.messages) if m["role"] == "user" and "heading out" in str(m["content"])]
    assert after_results and conv.messages[after_results[0] - 1]["role"] == "tool"


def test_responses_sample_maps_every_item():
    raw = raw_json("responses_api_session.json")
    conv = load(SAMPLES / "responses_api_session.json")
    calls = {i["call_id"]: i for i in raw["input"] if i["type"] == "function_call"}
    outputs = {i["call_id"]: i["output"] for i in raw["input"] if i["type"] == "function_call_output"}
    got_calls = {c["id"]: c for m in conv.messages for c in m.get("tool_calls") or []}
    assert set(got_calls) == set(calls)
    for call_id, item in calls.items():
        assert got_calls[call_id]["function"] == {"name": item["name"], "arguments": item["arguments"]}
    got_outputs = {m["tool_call_id"]: m["content"] for m in conv.messages if m["role"] == "tool"}
    assert got_outputs == outputs
    assert conv.messages[0] == {"role": "system", "content": raw["instructions"]}
    # the two parallel calls share one assistant message
    assert max(len(m.get("tool_calls") or []) for m in conv.messages) == 2
    summaries = [s["text"] for i in raw["input"] if i["type"] == "reasoning" for s in i["summary"]]
    assert all(any(r and text in r for r in conv.reasoning) for text in summaries)
    assert all("gAAAA" not in str(m) for m in conv.messages)


def test_sharegpt_sample_rebuilds_tool_pairs_from_tags():
    raw = raw_json("hermes_trajectory_sharegpt.json")["conversations"]
    conv = load(SAMPLES / "hermes_trajectory_sharegpt.json")
    tag_count = sum(t["value"].count("<tool_call>") for t in raw if t["from"] == "gpt")
    response_count = sum(t["value"].count("<tool_response>") for t in raw if t["from"] == "tool")
    calls = [c for m in conv.messages for c in m.get("tool_calls") or []]
    assert len(calls) == tag_count == response_count
    assert sum(m["role"] == "tool" for m in conv.messages) == response_count
    assert conv.messages[0]["role"] == "system"
    assistant_texts = [m["content"] or "" for m in conv.messages if m["role"] == "assistant"]
    assert not any("<tool_call>" in text or "<think>" in text for text in assistant_texts)
    assert any(r for r in conv.reasoning)


def test_claude_code_sample_follows_the_main_chain():
    records = raw_jsonl("claude_code_session.jsonl")
    conv = load(SAMPLES / "claude_code_session.jsonl")
    # the edited (abandoned) user message is not in the chain, its replacement is
    texts = [m["content"] for m in conv.messages if m["role"] == "user" and isinstance(m["content"], str)]
    assert "run only the parser tests please" in texts and "run all tests" not in texts
    assert conv.metadata["events_on_other_branches"] == 2
    # no sidechain message leaks into the main session
    sidechain_ids = {r["message"]["content"][0]["id"] for r in records if r.get("isSidechain") and r["type"] == "assistant"
                     and r["message"]["content"][0]["type"] == "tool_use"}
    assert not sidechain_ids & {c["id"] for m in conv.messages for c in m.get("tool_calls") or []}
    # an API response logged as three events is one assistant message with its last usage
    first = conv.messages[1]
    assert first["role"] == "assistant" and first["content"] == "I'll read the parser first." and len(first["tool_calls"]) == 1
    split_events = [r for r in records if r["type"] == "assistant" and r["message"]["id"] == records[2]["message"]["id"]]
    assert len(split_events) == 3
    assert conv.usage[1] == split_events[-1]["message"]["usage"]
    assert conv.sources[1] == "lines 3-5"
    assert conv.reasoning[1].startswith("Start by reading the parser")
    assert all(u is not None for m, u in zip(conv.messages, conv.usage, strict=True) if m["role"] == "assistant")
    assert conv.model == "claude-sonnet-4-5-20250929"


def test_claude_code_sidechain_is_its_own_session():
    conv = load(SAMPLES / "claude_code_session.jsonl")
    main, branch, side = conv.sessions
    assert not main.is_sidechain and side.is_sidechain and side.id == "a7f3c2e1" and side.parent_id == main.id
    assert (main.kind, branch.kind, side.kind) == ("session", "branch", "sidechain") and branch.parent_id == main.id
    assert conv.session_id == main.id and main.title == "Fix DKB import and refund double counting"
    sub = load(SAMPLES / "claude_code_session.jsonl", session="a7f3c2e1")
    assert sub.session_id == "a7f3c2e1" and len(sub.messages) == side.message_count == 4
    assert sub.messages[0]["content"].startswith("Search tests/ and docs")
    assert sub.model == "claude-haiku-4-5-20251001"
    assert_tool_pairs(sub.messages)


def test_compaction_events_in_the_agent_logs():
    claude = load(SAMPLES / "claude_code_session.jsonl")
    (event,) = claude.compaction_events
    assert event.kind == "compact_boundary" and event.pre_tokens == 155116 and event.details == {"trigger": "auto"}
    assert claude.messages[event.position]["content"].startswith("This session is being continued")
    assert event.summary == claude.messages[event.position]["content"]

    codex = load(SAMPLES / "codex_rollout.jsonl")
    (event,) = codex.compaction_events
    raw = [r for r in raw_jsonl("codex_rollout.jsonl") if r["type"] == "compacted"][0]
    assert event.kind == "compacted" and event.summary == raw["payload"]["message"]
    assert codex.messages[event.position] == {"role": "user", "content": raw["payload"]["message"]}
    assert event.details["replacement_history_items"] == 2

    openhands = load(SAMPLES / "openhands_trajectory.json")
    (event,) = openhands.compaction_events
    condensation = [e for e in raw_json("openhands_trajectory.json") if e.get("action") == "condensation"][0]
    assert event.kind == "condensation" and event.summary == condensation["args"]["summary"]
    assert event.details["forgotten_events_start_id"] == 4 and event.source == f"event {condensation['id']}"
    # the event sits before the first message converted from an event after the condensation
    later = [i for i, s in enumerate(openhands.sources) if int(s.split()[-1]) > condensation["id"]]
    assert event.position == later[0]

    for name in ("hermes_state.db", "hermes_sessions_export.jsonl"):
        hermes = load(SAMPLES / name)
        (event,) = hermes.compaction_events
        assert event.kind == "hermes-compression-split" and event.details["before_session"] == "20260315_101502_4be1c9"
        assert hermes.messages[event.position]["content"].startswith("[CONTEXT COMPACTION — REFERENCE ONLY]")


def test_codex_sample_usage_and_excluded_context():
    conv = load(SAMPLES / "codex_rollout.jsonl")
    records = raw_jsonl("codex_rollout.jsonl")
    excluded = conv.metadata["excluded_messages"]
    assert [e["kind"] for e in excluded] == ["<user_instructions>", "<environment_context>"]
    assert "# AGENTS.md" in excluded[0]["text"]
    assert not any("<environment_context>" in str(m["content"]) or "AGENTS.md" in str(m["content"]) for m in conv.messages)
    assert any("left out 2 context message(s)" in w for w in conv.warnings)
    token_counts = [r["payload"]["info"]["last_token_usage"] for r in records
                    if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"]
    assigned = [u for u in conv.usage if u is not None]
    assert assigned and all(u in token_counts for u in assigned)
    assert conv.model == "gpt-5-codex"
    assert conv.messages[0] == {"role": "user", "content": [r for r in records if r["type"] == "response_item"][2]["payload"]["content"][0]["text"]}
    # the custom apply_patch tool keeps its free-form input verbatim as the arguments
    patch_calls = [c for m in conv.messages for c in m.get("tool_calls") or [] if c["function"]["name"] == "apply_patch"]
    assert patch_calls and patch_calls[0]["function"]["arguments"].startswith("*** Begin Patch")


def test_openhands_sample_mapping():
    events = raw_json("openhands_trajectory.json")
    conv = load(SAMPLES / "openhands_trajectory.json")
    with_metadata = [e for e in events if e.get("tool_call_metadata") and "observation" in e]
    assert sum(m["role"] == "tool" for m in conv.messages) == len(with_metadata)
    assert conv.messages[0]["role"] == "system" and conv.tools and conv.tools[0]["function"]["name"] == "execute_bash"
    # state changes are metadata; an event type the model never sees as a message is skipped with a warning
    assert conv.metadata["skipped_events"] == {"recall": 1}
    assert conv.report.metadata == {"agent state changes": 2}
    assert any("skipped: 'recall' events" in w for w in conv.warnings)
    (unanswered,) = conv.metadata["unanswered_tool_calls"]
    assert unanswered["name"] == "finish"
    assert conv.messages[-1] == {"role": "assistant", "content": [e for e in events if e.get("action") == "finish"][0]["args"]["final_thought"]}
    edit_call = [c for m in conv.messages for c in m.get("tool_calls") or [] if c["function"]["name"] == "str_replace_editor"
                 and "str_replace" in c["function"]["arguments"]][0]
    assert '"thought"' not in edit_call["function"]["arguments"] and '"impl_source"' not in edit_call["function"]["arguments"]


def test_langchain_sample_mapping():
    raw = raw_json("langchain_messages.json")
    conv = load(SAMPLES / "langchain_messages.json")
    assert len(conv.messages) == len(raw)
    for item, message, usage in zip(raw, conv.messages, conv.usage, strict=True):
        role = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}[item["type"]]
        assert message["role"] == role
        if item["type"] == "ai":
            assert usage == item["data"]["usage_metadata"]
            for call, original in zip(message.get("tool_calls") or [], item["data"]["tool_calls"], strict=True):
                assert call["id"] == original["id"]
                assert call["function"]["arguments"] == __import__("json").dumps(original["args"])
    assert conv.model == "gpt-4o-2024-08-06"


def test_swe_agent_sample_uses_history():
    raw = raw_json("swe_agent_run.traj")
    conv = load(SAMPLES / "swe_agent_run.traj")
    assert len(conv.messages) == len(raw["history"])
    assert [m["role"] for m in conv.messages] == [h["role"] for h in raw["history"]]
    tool_ids = [m["tool_call_id"] for m in conv.messages if m["role"] == "tool"]
    assert tool_ids == [h["tool_call_ids"][0] for h in raw["history"] if h["role"] == "tool"]
    assert conv.model == "claude-sonnet-4-5-20250929" and conv.metadata["exit_status"] == "submitted"
    # cache_control in a text part is not a chat key: the part is a plain text part
    assert conv.messages[1]["content"][0].keys() == {"type", "text"}


def _png_is_valid(data: bytes) -> bool:
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return False
    position = 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        tag = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        if zlib.crc32(tag + body) & 0xFFFFFFFF != crc:
            return False
        if tag == b"IEND":
            return True
        position += 12 + length
    return False


def test_screenshot_sample_has_valid_png_images_in_user_and_tool_messages():
    conv = load(SAMPLES / "screenshot_layout_bug.json")
    images = [(m["role"], p["image_url"]["url"]) for m in conv.messages if isinstance(m["content"], list)
              for p in m["content"] if p["type"] == "image_url"]
    assert {role for role, _ in images} == {"user", "tool"}
    for _role, url in images:
        header, payload = url.split(",", 1)
        assert header == "data:image/png;base64"
        data = base64.b64decode(payload)
        assert 1000 < len(data) < 20000 and _png_is_valid(data)


def test_secrets_sample_holds_every_kind_of_fake_secret():
    import re

    text = (SAMPLES / "secrets_in_tool_output.json").read_text(encoding="utf-8")
    patterns = {
        "openai key": r"sk-proj-[A-Za-z0-9]{20,}",
        "github token": r"ghp_[A-Za-z0-9]{36}",
        "aws access key": r"AKIA[A-Z0-9]{16}",
        "aws secret": r"AWS_SECRET_ACCESS_KEY=\S{30,}",
        "postgres url": r"postgres://[^:\s]+:[^@\s]+@[\w.-]+:\d+/\w+",
        "jwt": r"eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+",
        "private key": r"-----BEGIN OPENSSH PRIVATE KEY-----",
        "password sentence": r"my password is \S+",
        "dotenv read by a tool": r'\\"path\\": \\"\.env\.staging\\"',
    }
    for kind, pattern in patterns.items():
        assert re.search(pattern, text), kind
    assert "FAKE" in text and text.count("FAKE") >= 8


def test_handoff_sample_uses_the_exact_v0_16_prefix():
    prefix = (DATA / "summary_prefix_v0.16.0.txt").read_text(encoding="utf-8")
    assert len(prefix) == 1378
    conv = load(SAMPLES / "resumed_with_handoff_summary.json")
    (event,) = conv.compaction_events
    assert event.kind == "hermes-summary"
    summary = conv.messages[event.position]
    assert summary["role"] == "user" and summary["content"].startswith(prefix + "\n## Active Task\n")
    assert summary["content"].endswith("--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---")


def test_hermes_db_child_summary_uses_the_exact_v0_15_1_prefix():
    prefix = (DATA / "summary_prefix_v0.15.1.txt").read_text(encoding="utf-8")
    assert len(prefix) == 772
    conv = load(SAMPLES / "hermes_state.db")
    assert conv.messages[conv.compaction_events[0].position]["content"].startswith(prefix + "\n")


def test_loading_does_not_change_the_source_files():
    for name in SAMPLE_FORMATS:
        before = (SAMPLES / name).read_bytes()
        load(SAMPLES / name)
        assert (SAMPLES / name).read_bytes() == before, name


def test_conversation_copy_messages_is_deep():
    conv = load(SAMPLES / "screenshot_layout_bug.json")
    copied = conv.copy_messages()
    original = copy.deepcopy(conv.messages)
    copied[1]["content"][0]["text"] = "changed"
    assert conv.messages == original
