"""Hand-written transcripts of every format that records usage, tool schemas or injected context,
each with prompt sizes chosen so the whole-request figures can be worked out by hand.

Each builder returns ``(filename, bytes)``; the tests load them through ``core.formats.load``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.formats.layouts import ClaudeLog, jsonl, text, use
from tests.helpers import asst, call, tool, user
from tests.helpers import sys as system

Record = dict[str, Any]

SHELL_TOOL: Record = {
    "type": "function",
    "name": "shell",
    "description": "Run a shell command in the repository.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
}

def coding_session(rounds: int, lines: int) -> list[Record]:
    """A plain OpenAI-chat tool loop: ``rounds`` file reads of ``lines`` lines each, then an answer
    (assistant messages at the even indices 2, 4, ...)."""
    messages = [system(), user("Fix the failing test in app.py.")]
    for j in range(rounds):
        messages += [asst(None, [call(f"c{j}", "read_file", {"path": f"src/m{j}.py"})]),
                     tool(f"c{j}", f"def f{j}():\n" + "    return 1\n" * lines)]
    return messages + [asst("Fixed.")]


# --- Claude Code ---------------------------------------------------------------------------------

CC_USAGE = (
    {"input_tokens": 3, "cache_creation_input_tokens": 1_200, "cache_read_input_tokens": 14_000, "output_tokens": 50},
    {"input_tokens": 5, "cache_creation_input_tokens": 80, "cache_read_input_tokens": 15_200, "output_tokens": 30},
    {"input_tokens": 900, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 14_000, "output_tokens": 12},
)
CC_SKILLS = "- review\n- deploy"
CC_HOOK = "Run the tests after every edit."
CC_SUMMARY = "This session is being continued from a previous conversation. Summary: add() returned 4 for 1 + 2."


def claude_code_session() -> tuple[str, bytes]:
    """Two tool-loop turns with Claude Code's usage (cache reads and writes), a skill listing and a
    hook's context as attachments, then Claude Code's own compaction and one more turn."""
    log = ClaudeLog(session="cc-usage")
    log.user("Fix the failing test in app.py.", parent=None)
    log.row("attachment", attachment={"type": "skill_listing", "content": CC_SKILLS})
    (read_row,) = _response(log, "msg_1", [use("toolu_1", "Read", file_path="app.py")], CC_USAGE[0])
    log.result(read_row, "toolu_1", "def add(a, b):\n    return a + b + 1")
    log.row("attachment", attachment={"type": "hook_additional_context", "content": [CC_HOOK]})
    (answer,) = _response(log, "msg_2", [text("add() adds one too many; the test expects 3.")], CC_USAGE[1])
    boundary = log.row("system", parent=None, subtype="compact_boundary", content="Conversation compacted",
                       logicalParentUuid=answer, compactMetadata={"trigger": "auto", "preTokens": 15_400})
    log.user(CC_SUMMARY, parent=boundary, isCompactSummary=True)
    _response(log, "msg_3", [text("Fixed add(): it returns a + b.")], CC_USAGE[2])
    return "cc-usage.jsonl", jsonl(log.rows)


def _response(log: ClaudeLog, message_id: str, blocks: list[Record], usage: Record) -> list[str]:
    rows = []
    for block in blocks:
        message = {"id": message_id, "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [block],
                   "usage": dict(usage)}
        rows.append(log.row("assistant", message=message))
    return rows


# --- Codex ---------------------------------------------------------------------------------------

CODEX_INSTRUCTIONS = "Always run the tests."
CODEX_AGENTS = f"# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n{CODEX_INSTRUCTIONS}\n</INSTRUCTIONS>"
CODEX_ENVIRONMENT = "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"
CODEX_USAGE = (
    {"input_tokens": 4_000, "cached_input_tokens": 3_000, "output_tokens": 200, "reasoning_output_tokens": 128,
     "total_tokens": 4_200},
    {"input_tokens": 4_300, "cached_input_tokens": 4_000, "output_tokens": 20, "reasoning_output_tokens": 0,
     "total_tokens": 4_320},
)
CODEX_WINDOW = 258_400


def _envelope(kind: str, payload: Record) -> Record:
    return {"timestamp": "2025-11-14T02:21:11.289Z", "type": kind, "payload": payload}


def _message(role: str, value: str) -> Record:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": value}]}


def codex_rollout(only_totals: bool = False) -> tuple[str, bytes]:
    """A rollout whose session_meta instructions are the AGENTS.md text Codex also sends as a context
    message, an environment block, one tool call with reasoning and two token counts (``only_totals``:
    the older counts without ``last_token_usage``, one of them repeated)."""
    totals: list[Record] = []
    running: Record = {}
    for usage in CODEX_USAGE:
        running = {key: running.get(key, 0) + value for key, value in usage.items()}
        totals.append(dict(running))

    def count(number: int) -> Record:
        info: Record = {"total_token_usage": totals[number], "model_context_window": CODEX_WINDOW}
        if not only_totals:
            info["last_token_usage"] = CODEX_USAGE[number]
        return _envelope("event_msg", {"type": "token_count", "info": info})

    records = [
        _envelope("session_meta", {"id": "0199-codex", "timestamp": "2025-11-14T02:21:11Z", "cwd": "/repo",
                                   "originator": "codex_cli_rs", "cli_version": "0.58.0",
                                   "instructions": CODEX_INSTRUCTIONS}),
        _envelope("response_item", _message("user", CODEX_AGENTS)),
        _envelope("response_item", _message("user", CODEX_ENVIRONMENT)),
        _envelope("turn_context", {"cwd": "/repo", "model": "gpt-5-codex"}),
        _envelope("response_item", _message("user", "Run the tests.")),
        _envelope("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Run pytest."}],
                                    "encrypted_content": "gAAAA"}),
        _envelope("response_item", {"type": "function_call", "name": "shell", "call_id": "call_1",
                                    "arguments": json.dumps({"command": ["pytest", "-q"]})}),
        count(0),
        _envelope("response_item", {"type": "function_call_output", "call_id": "call_1", "output": "3 passed"}),
        _envelope("response_item", _message("assistant", "All 3 tests pass.")),
        count(1),
    ]
    if only_totals:
        records.append(count(1))  # Codex repeats a count now and then: nothing changed since
    return "rollout-2025-11-14T02-21-11-0199-codex.jsonl", jsonl(records)


def codex_exec_run() -> tuple[str, bytes]:
    """A ``codex exec --json`` run: its usage totals the turn's calls, so it is no prompt size."""
    records = [
        {"type": "thread.started", "thread_id": "0199-exec"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "Done."}},
        {"type": "turn.completed", "usage": {"input_tokens": 5_000, "cached_input_tokens": 4_000, "output_tokens": 10}},
    ]
    return "exec.jsonl", jsonl(records)


# --- request bodies and frameworks ---------------------------------------------------------------

RESPONSES_INSTRUCTIONS = "You are a careful coding agent."
RESPONSES_USAGE: Record = {"input_tokens": 812, "input_tokens_details": {"cached_tokens": 512}, "output_tokens": 18,
                           "total_tokens": 830}


def responses_object() -> tuple[str, bytes]:
    """A Responses API response object: instructions, a tool schema, the input, the output and its usage."""
    doc = {
        "id": "resp_1", "object": "response", "model": "gpt-4.1", "instructions": RESPONSES_INSTRUCTIONS,
        "tools": [SHELL_TOOL],
        "input": [_message("user", "List the files.")],
        "output": [_message("assistant", "app.py, README.md and tests/.")],
        "usage": RESPONSES_USAGE,
    }
    return "response.json", json.dumps(doc).encode()


LANGCHAIN_USAGE: Record = {"input_tokens": 25, "output_tokens": 1, "total_tokens": 26,
                           "input_token_details": {"cache_read": 16}}


def langchain_messages() -> tuple[str, bytes]:
    doc = [
        {"type": "system", "data": {"content": "You are helpful.", "additional_kwargs": {}, "id": None}},
        {"type": "human", "data": {"content": "What is 2 + 2?", "additional_kwargs": {}, "id": None}},
        {"type": "ai", "data": {"content": "4", "additional_kwargs": {}, "usage_metadata": LANGCHAIN_USAGE,
                                "response_metadata": {"model_name": "gpt-4o"}, "id": "m2"}},
    ]
    return "langchain.json", json.dumps(doc).encode()


MINI_USAGE: Record = {"prompt_tokens": 1_500, "completion_tokens": 40, "total_tokens": 1_540,
                      "prompt_tokens_details": {"cached_tokens": 1_024}}


def mini_swe_agent_run() -> tuple[str, bytes]:
    """A mini-swe-agent trajectory whose model response carries litellm's usage."""
    doc = {
        "info": {"exit_status": "Submitted", "submission": "", "config": {"model": {"model_name": "gpt-4o-mini"}}},
        "messages": [
            {"role": "system", "content": "You are a helpful assistant that can interact with a computer."},
            {"role": "user", "content": "<pr_description>Fix rounding</pr_description>"},
            {"role": "assistant", "content": "THOUGHT: look.\n\n```bash\nrg round\n```",
             "extra": {"response": {"usage": MINI_USAGE}}},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}},
        ],
        "trajectory_format": "mini-swe-agent-1",
    }
    return "run.traj.json", json.dumps(doc).encode()


def hermes_gateway() -> tuple[str, bytes]:
    """A legacy Hermes gateway transcript whose session_meta line holds the tool schemas."""
    records = [
        {"role": "session_meta", "tools": [{"type": "function", "function": SHELL_TOOL}], "model": "gpt-4o",
         "platform": "cli", "timestamp": "2025-05-01T10:00:00"},
        {"role": "user", "content": "deploy it", "timestamp": "2025-05-01T10:00:00.120000"},
        {"role": "assistant", "content": "Deploying.", "timestamp": "2025-05-01T10:00:02.500000"},
    ]
    return "gateway.jsonl", jsonl(records)
