"""Transcripts as agents write them today: every tool pair the raw rows hold is in place after loading,
the format is named right, sessions are split as the tool splits them, and nothing is lost silently."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.formats import Conversation, load
from core.inspections.lint import lint
from core.inspections.overview import message_text
from tests.formats import layouts
from tests.formats.checks import assert_canonical, assert_tool_pairs


def assert_pairs_in_place(conv: Conversation, pairs: set[str]) -> None:
    """Each call id of ``pairs`` is a tool call answered by a tool message in the run of tool
    messages right after the assistant message that makes the call."""
    for call_id in pairs:
        (caller,) = [i for i, m in enumerate(conv.messages) for c in m.get("tool_calls") or [] if c["id"] == call_id]
        answers = [i for i, m in enumerate(conv.messages) if m["role"] == "tool" and m.get("tool_call_id") == call_id]
        assert len(answers) == 1, (call_id, answers)
        assert answers[0] > caller
        assert all(conv.messages[i]["role"] == "tool" for i in range(caller + 1, answers[0] + 1)), call_id


def alternation_errors(conv: Conversation) -> list[str]:
    found = lint(conv.messages)
    rows = found[(found["rule"] == "alternation") & (found["severity"] == "error")]
    return list(rows["detail"])


def assert_report_adds_up(conv: Conversation, rows: int) -> None:
    report = conv.report
    assert report.read == rows == report.accounted()
    assert report.messages == len(conv.messages)


def assert_session_counts_load(data: bytes, conv: Conversation, filename: str) -> None:
    """What the session list says about each session is what loading it gives."""
    for info in conv.sessions:
        assert len(load(data, filename=filename, session=info.id).messages) == info.message_count, info.id


# --- Claude Code ---------------------------------------------------------------------------------


def test_claude_code_attachment_rows_and_sibling_results_keep_the_whole_conversation():
    records = layouts.cc_parallel_attachments()
    data = layouts.jsonl(records)
    conv = load(data, filename="session.jsonl")
    assert conv.format == "claude-code" and len(conv.sessions) == 1
    pairs = layouts.claude_pairs(records)
    assert len(pairs) == 4
    assert_pairs_in_place(conv, pairs)
    assert_canonical(conv)
    assert_tool_pairs(conv.messages)
    joined = "\n".join(message_text(m) for m in conv.messages)
    assert all(t in joined for t in layouts.claude_texts(records))
    # one API response logged as five rows is one assistant message with its three calls, in call order
    (response,) = [m for m in conv.messages if len(m.get("tool_calls") or []) == 3]
    assert [c["id"] for c in response["tool_calls"]] == ["toolu_read", "toolu_grep", "toolu_ls"]
    results = [m["tool_call_id"] for m in conv.messages if m["role"] == "tool"][:3]
    assert results == ["toolu_read", "toolu_grep", "toolu_ls"]
    assert not alternation_errors(conv)
    # every row is accounted for; the attachments are the only rows left out, and they are said
    assert_report_adds_up(conv, len(records))
    attachments = [r for r in records if r["type"] == "attachment"]
    (skipped,) = conv.report.skipped
    assert skipped.count == len(attachments) and "attachment rows" in skipped.reason
    assert any(w.startswith(f"{len(attachments)} row(s) skipped: attachment rows") for w in conv.warnings)
    assert conv.report.placed == sum(r["type"] in ("user", "assistant") for r in records)
    assert conv.sessions[0].title == "DKB import"


def test_claude_code_leaf_is_the_latest_turn_not_the_last_row_and_branches_stay_available():
    records = layouts.cc_stray_late_rows()
    data = layouts.jsonl(records)
    conv = load(data, filename="session.jsonl")
    main, branch = conv.sessions
    assert conv.session_id == main.id and (main.kind, branch.kind) == ("session", "branch")
    users = [m["content"] for m in conv.messages if m["role"] == "user"]
    assert users == ["Fix the parser.", "run only the parser tests"]
    assert_pairs_in_place(conv, {"toolu_edit", "toolu_fast"})
    assert_tool_pairs(conv.messages)
    # the abandoned branch is a conversation of its own, with its late result in place
    abandoned = load(data, filename="session.jsonl", session=branch.id)
    assert [m["content"] for m in abandoned.messages if m["role"] == "user"] == ["Fix the parser.", "run every test"]
    assert_pairs_in_place(abandoned, {"toolu_edit", "toolu_slow"})
    assert_session_counts_load(data, conv, "session.jsonl")
    # its rows (the edited prompt and everything under it) are counted as on another branch, and said so
    (start,) = [r["uuid"] for r in records if r["type"] == "user" and r["message"]["content"] == "run every test"]
    below = {start}
    for record in records:  # parents come before their children in this file
        if record.get("parentUuid") in below:
            below.add(record["uuid"])
    assert conv.report.other_branches == len(below) == 4
    assert any("abandoned branch" in w for w in conv.warnings)
    assert_report_adds_up(conv, len(records))


def test_claude_code_inline_sidechain_runs_are_separate_sessions():
    records = layouts.cc_inline_sidechains()
    data = layouts.jsonl(records)
    conv = load(data, filename="session.jsonl")
    main, first, second = conv.sessions
    assert (main.kind, first.kind, second.kind) == ("session", "sidechain", "sidechain")
    assert first.parent_id == second.parent_id == main.id
    assert_pairs_in_place(conv, layouts.claude_pairs(records))
    assert_session_counts_load(data, conv, "session.jsonl")
    side_pairs = layouts.claude_pairs(records, sidechain=True)
    loaded = [load(data, filename="session.jsonl", session=info.id) for info in (first, second)]
    assert [m["content"] for m in loaded[0].messages if m["role"] == "user"] == ["Read package.json"]
    assert [m["content"] for m in loaded[1].messages if m["role"] == "user"] == ["List the folders"]
    found = set()
    for sub in loaded:
        ids = {c["id"] for m in sub.messages for c in m.get("tool_calls") or []}
        assert_pairs_in_place(sub, ids & side_pairs)
        found |= ids & side_pairs
    assert found == side_pairs
    assert conv.report.other_sessions == sum(bool(r.get("isSidechain")) for r in records)
    assert_report_adds_up(conv, len(records))


@pytest.mark.parametrize("new_style", [False, True], ids=["1.x user rows", "2.x system rows"])
def test_claude_code_meta_command_and_interrupt_rows_fold_into_one_user_turn(new_style):
    records = layouts.cc_local_commands_and_interrupts(new_style)
    conv = load(layouts.jsonl(records), filename="session.jsonl")
    assert not alternation_errors(conv)
    assert_pairs_in_place(conv, layouts.claude_pairs(records))
    # the notice, the caveat, the command, its output and the next prompt are one user turn
    folded = [m for m in conv.messages if m["role"] == "user" and isinstance(m["content"], list)]
    (turn,) = folded
    texts = [part["text"] for part in turn["content"]]
    assert texts[0] == "[Request interrupted by user for tool use]" and texts[-1] == "Just run the parser tests."
    assert any(t.startswith("<command-name>/model") for t in texts)
    assert any(t.startswith("<local-command-stdout>") for t in texts)
    joined = "\n".join(texts)
    assert all(t in joined for t in layouts.claude_texts(records)[1:-1] if not t.startswith("They pass"))
    assert_report_adds_up(conv, len(records))
    assert not conv.warnings


def test_claude_code_ansi_codes_stay_in_the_message_and_leave_the_display_text():
    conv = load(layouts.jsonl(layouts.cc_local_commands_and_interrupts(True)), filename="session.jsonl")
    (result,) = [m for m in conv.messages if m.get("tool_call_id") == "toolu_fast"]
    assert "\x1b[32m" in result["content"]
    assert message_text(result) == "14 passed in 0.3s"


def test_claude_code_subagent_file_keeps_every_parallel_result():
    records = layouts.cc_subagent_file()
    data = layouts.jsonl(records)
    conv = load(data, filename="agent-a1b2c3.jsonl")
    assert conv.format == "claude-code" and len(conv.sessions) == 1 and conv.session_id == "sess-main"
    pairs = layouts.claude_pairs(records, sidechain=True)
    assert len(pairs) == 4
    assert_pairs_in_place(conv, pairs)
    assert not alternation_errors(conv)
    assert_report_adds_up(conv, len(records))


def test_claude_code_parent_loop_keeps_every_row_with_a_warning():
    records = layouts.cc_parent_loop()
    conv = load(layouts.jsonl(records), filename="loop.jsonl")
    assert [message_text(m) for m in conv.messages] == ["one", "two", "three"]
    (warning,) = [w for w in conv.warnings if "loop" in w]
    assert "lines 1, 2, 3" in warning and "all 3 rows are kept" in warning
    assert conv.report.placed == 3


def test_claude_code_gap_in_the_chain_is_bridged_with_a_warning():
    records = layouts.cc_parallel_attachments()
    gap = next(r for r in records if r.get("type") == "assistant" and r["message"]["id"] == "msg_2")
    gap["parentUuid"] = "never-written"
    conv = load(layouts.jsonl(records), filename="gap.jsonl")
    assert len(conv.sessions) == 1
    assert_pairs_in_place(conv, layouts.claude_pairs(records))
    assert any("not in the file" in w and "joined to the row before it" in w for w in conv.warnings)


# --- Codex rollouts of mid 2025 ------------------------------------------------------------------


def test_codex_rollout_without_envelopes_is_a_codex_session():
    records = layouts.codex_aug_2025()
    conv = load(layouts.jsonl(records), filename="rollout-2025-08-20T13-20-47-0198c1f2.jsonl")
    assert conv.format == "codex"
    header = records[0]
    assert conv.session_id == header["id"] and conv.sessions[0].started_at == header["timestamp"]
    assert conv.messages[0] == {"role": "system", "content": header["instructions"]}
    assert [e["kind"] for e in conv.metadata["excluded_messages"]] == ["<user_instructions>", "<environment_context>"]
    assert not any("environment_context" in message_text(m) for m in conv.messages)
    pairs = layouts.responses_pairs(records)
    assert len(pairs) == 3
    assert_pairs_in_place(conv, pairs)
    (parallel,) = [m for m in conv.messages if len(m.get("tool_calls") or []) == 2]
    assert conv.reasoning[conv.messages.index(parallel)] == "Look first."
    assert conv.report.metadata["state markers"] == sum("record_type" in r for r in records)
    assert_report_adds_up(conv, len(records))


# --- OpenHands 2024 --------------------------------------------------------------------------------


def test_openhands_2024_eval_output_pairs_actions_with_their_observations():
    lines = layouts.openhands_eval_output()
    data = layouts.jsonl(lines)
    conv = load(data, filename="output.jsonl")
    assert conv.format == "openhands"
    assert [s.id for s in conv.sessions] == [line["instance_id"] for line in lines]
    assert conv.session_id == lines[-1]["instance_id"]
    assert_session_counts_load(data, conv, "output.jsonl")
    for line in lines:
        sub = load(data, filename="output.jsonl", session=line["instance_id"])
        calls = [c for m in sub.messages for c in m.get("tool_calls") or []]
        assert len(calls) == layouts.openhands_pairs(line["history"])
        assert_pairs_in_place(sub, {c["id"] for c in calls})
        assert_tool_pairs(sub.messages)
        assert [m["role"] for m in sub.messages[:1]] == ["user"]
        # the agent's question (it waits for a response) and the automatic reply keep their roles
        assert ("assistant", "Which file?") in [(m["role"], m["content"]) for m in sub.messages]
        assert ("user", "Please continue.") in [(m["role"], m["content"]) for m in sub.messages]
        assert sub.messages[-1] == {"role": "assistant", "content": "Done."}
        events = sum(len(pair) for pair in line["history"])
        assert sub.report.placed + sub.report.metadata_count == events
        assert sub.report.metadata == {"placeholder observations (no observation)": 4}


def test_openhands_2024_resolver_output_links_observations_by_cause():
    line = layouts.openhands_resolver_output()
    conv = load(layouts.jsonl([line]), filename="output.jsonl")
    assert conv.format == "openhands" and conv.session_id == "acme/ledger#42"
    calls = [c for m in conv.messages for c in m.get("tool_calls") or []]
    assert [c["function"]["name"] for c in calls] == ["run", "read"]
    assert len(calls) == layouts.openhands_pairs(line["history"])
    assert_pairs_in_place(conv, {c["id"] for c in calls})
    (run_result,) = [m for m in conv.messages if m.get("tool_call_id") == calls[0]["id"]]
    assert run_result["content"] == "1 failed"
    assert conv.metadata["git_patch"] == "diff"


def test_openhands_2024_history_as_a_json_document():
    line = layouts.openhands_eval_output()[0]
    conv = load(json.dumps(line).encode(), filename="instance.json")
    assert conv.format == "openhands" and conv.metadata["instance_id"] == line["instance_id"]
    assert len([c for m in conv.messages for c in m.get("tool_calls") or []]) == layouts.openhands_pairs(line["history"])


# --- Hermes gateway, mini-swe-agent ----------------------------------------------------------------


def test_hermes_gateway_without_session_meta_is_detected_as_hermes():
    records = layouts.hermes_gateway_without_meta()
    conv = load(layouts.jsonl(records), filename="20250501_100000_ab12cd34.jsonl")
    assert conv.format == "hermes"
    assert_pairs_in_place(conv, {"call_1"})
    assert conv.reasoning[1] == "Run make."
    assert_report_adds_up(conv, len(records))


def test_format_hermes_reads_plain_message_lines():
    records = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    data = layouts.jsonl(records)
    assert load(data, filename="log.jsonl").format == "openai-chat"
    conv = load(data, filename="log.jsonl", format="hermes")
    assert conv.format == "hermes" and [m["content"] for m in conv.messages] == ["hi", "hello"]


def test_mini_swe_agent_exit_message_is_metadata_and_an_unknown_role_a_warning():
    doc = layouts.mini_swe_agent_v1()
    conv = load(json.dumps(doc).encode(), filename="astropy-12907.traj.json")
    assert conv.format == "mini-swe-agent"
    kept = [m for m in doc["messages"] if m["role"] not in ("exit", "critic")]
    assert [m["content"] for m in conv.messages] == [m["content"] for m in kept]
    assert conv.metadata["exit_status"] == "Submitted" and conv.metadata["submission"] == "diff --git a/x b/x"
    assert conv.model == "gpt-4o-mini"
    (warning,) = conv.warnings
    assert "role 'critic'" in warning and "messages[4]" in warning
    assert conv.report.read == len(doc["messages"]) == conv.report.accounted()


def test_mini_swe_agent_tool_calling_sample_keeps_usage():
    from tests.formats.checks import SAMPLES

    doc = json.loads((SAMPLES / "mini_swe_agent_run.traj.json").read_text(encoding="utf-8"))
    conv = load(SAMPLES / "mini_swe_agent_run.traj.json")
    calls = {c["id"] for m in doc["messages"] for c in m.get("tool_calls") or []}
    answered = {m["tool_call_id"] for m in doc["messages"] if m["role"] == "tool"}
    assert_pairs_in_place(conv, calls & answered)
    assistant_usage = [u for m, u in zip(conv.messages, conv.usage, strict=True) if m["role"] == "assistant"]
    assert assistant_usage and all(u and u["prompt_tokens"] > 0 for u in assistant_usage)


# --- NUL padding --------------------------------------------------------------------------------


def _padded(records: list[Any], at: int, padding: bytes) -> bytes:
    lines = [json.dumps(r).encode() + b"\n" for r in records]
    return b"".join(lines[:at]) + padding + b"".join(lines[at:])


@pytest.mark.parametrize("filler", [0, 1_200_000], ids=["small file", "padding beyond the first megabyte"])
def test_nul_padding_after_a_crash_is_skipped_with_a_warning(filler):
    records = layouts.cc_parallel_attachments()
    if filler:
        records.insert(0, {"type": "queue-operation", "operation": "enqueue", "sessionId": "sess-1", "content": "x" * filler})
    data = _padded(records, 6, b"\x00" * 8192 + b"\n" + b"\x00" * 100)
    conv = load(data, filename="session.jsonl")
    assert conv.format == "claude-code"
    assert_pairs_in_place(conv, layouts.claude_pairs(records))
    assert any("NUL bytes of padding" in w and "8,292" in w for w in conv.warnings)
    assert conv.report.read == len(records)


def test_nul_bytes_inside_the_text_are_still_a_binary_file():
    from core.formats import FormatError

    with pytest.raises(FormatError, match="binary file"):
        load(b'{"role": "user", "content": "a\x00b"}\n{"role": "assistant", "content": "c"}\n', filename="x.jsonl")


def test_nul_padding_after_a_json_document_is_skipped_with_a_warning():
    doc = layouts.mini_swe_agent_v1()
    conv = load(json.dumps(doc, indent=1).encode() + b"\x00" * 4096, filename="run.traj.json")
    assert conv.format == "mini-swe-agent" and len(conv.messages) == 6
    assert any("4,096 NUL bytes of padding" in w for w in conv.warnings)
