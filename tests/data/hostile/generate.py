# Over 600 lines: one generator per hostile input, kept in one list so the corpus is built in one place.
"""Deterministic generator for the hostile-input corpus (``tests/data/hostile``).

Every file here is something a user could drop on the importer by accident or on purpose:
binary files with the wrong extension, archives, broken encodings, truncated and malformed
JSON / JSONL, every supported format with a wrong type at each level of its structure,
SQLite files of other applications and damaged Hermes stores, cyclic parent chains, duplicate
ids. ``manifest.json`` says for each file what ``core.formats.load`` must do with it:

* ``"error"``: raise ``FormatError`` whose message names the file and contains every string of
  ``mentions`` (what went wrong and what was expected);
* ``"load"``: return a conversation (of ``format``, when given) whose warnings contain every
  string of ``warnings``;
* ``"either"``: one of the two, as long as it is clean (a readable ``FormatError`` or a
  canonical conversation). Used for inputs where both outcomes are reasonable.

The big inputs (a 50 MB JSONL line, 100 000 nested ``[``, millions of tiny elements, a huge
single string) are not committed: :func:`write_big_cases` writes them into a directory at test
time. :func:`type_mutations` yields, for every node of every seed transcript, the same transcript
with that node replaced by a value of each other JSON type (used in memory by the tests).

Run ``python tests/data/hostile/generate.py`` to rewrite the corpus next to this script.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import io
import json
import random
import sqlite3
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MANIFEST = "manifest.json"

Path_ = tuple[Any, ...]


@dataclass
class Case:
    name: str
    data: bytes
    expect: str  # "error", "load" or "either"
    why: str
    mentions: list[str] = field(default_factory=list)  # required in the error message
    warnings: list[str] = field(default_factory=list)  # required among the warnings
    format: str | None = None  # the format a successful load must report

    def manifest_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"expect": self.expect, "why": self.why}
        if self.mentions:
            entry["mentions"] = self.mentions
        if self.warnings:
            entry["warnings"] = self.warnings
        if self.format:
            entry["format"] = self.format
        return entry


# --------------------------------------------------------------------------------------------
# Seeds: one small, valid transcript per format (and layout)
# --------------------------------------------------------------------------------------------


@dataclass
class Seed:
    name: str
    format: str
    layout: str  # "json" (one document), "jsonl" (a list of records, one per line) or "text" (a list of lines)
    value: Any
    suffix: str = ".json"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


SEEDS: list[Seed] = [
    Seed(
        "openai_chat",
        "openai-chat",
        "json",
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "You are a coding agent."},
                {"role": "user", "content": [{"type": "text", "text": "Fix the test."}]},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": '{"command": "pytest"}'}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "1 passed"},
                {"role": "assistant", "content": "Done."},
            ],
        },
    ),
    Seed(
        "openai_chat_lines",
        "openai-chat",
        "jsonl",
        [
            {"role": "user", "content": "Fix the test."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "terminal", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "assistant", "content": "Done."},
        ],
        ".jsonl",
    ),
    Seed(
        "anthropic",
        "anthropic",
        "json",
        {
            "model": "claude-sonnet-4-5",
            "system": "You are a coding agent.",
            "messages": [
                {"role": "user", "content": "Fix the test."},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "Run it first.", "signature": "sig"},
                        {"type": "text", "text": "Running the tests."},
                        {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "pytest"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "1 passed"}]}],
                },
                {"role": "assistant", "content": "Done."},
            ],
        },
    ),
    Seed(
        "openai_responses",
        "openai-responses",
        "json",
        {
            "model": "gpt-5",
            "instructions": "You are a coding agent.",
            "input": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the test."}]},
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Run it."}]},
                {"type": "function_call", "call_id": "fc_1", "name": "terminal", "arguments": '{"command": "pytest"}'},
                {"type": "function_call_output", "call_id": "fc_1", "output": "1 passed"},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
            ],
        },
    ),
    Seed(
        "sharegpt",
        "sharegpt",
        "json",
        {
            "conversations": [
                {"from": "system", "value": "You are a function calling AI model."},
                {"from": "human", "value": "Fix the test."},
                {"from": "gpt", "value": '<tool_call>\n{"name": "terminal", "arguments": {"command": "pytest"}}\n</tool_call>'},
                {"from": "tool", "value": '<tool_response>\n{"name": "terminal", "content": "1 passed"}\n</tool_response>'},
                {"from": "gpt", "value": "Done."},
            ]
        },
    ),
    Seed(
        "langchain",
        "langchain",
        "json",
        [
            {"type": "system", "data": {"content": "You are a coding agent.", "type": "system"}},
            {"type": "human", "data": {"content": "Fix the test.", "type": "human"}},
            {"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": [{"name": "terminal", "args": {"command": "pytest"}, "id": "c1"}]}},
            {"type": "tool", "data": {"content": "1 passed", "type": "tool", "tool_call_id": "c1"}},
            {"type": "ai", "data": {"content": "Done.", "type": "ai"}},
        ],
    ),
    Seed(
        "openhands",
        "openhands",
        "json",
        [
            {"id": 0, "source": "agent", "action": "system", "message": "", "args": {"content": "You are OpenHands.", "tools": []}},
            {"id": 1, "source": "user", "action": "message", "message": "Fix the test.", "args": {"content": "Fix the test.", "image_urls": []}},
            {
                "id": 2,
                "source": "agent",
                "action": "run",
                "message": "Running the tests",
                "args": {"command": "pytest", "thought": "Run them first."},
                "tool_call_metadata": {"tool_call_id": "toolu_1", "function_name": "execute_bash", "model_response": {"id": "r1"}},
            },
            {
                "id": 3,
                "source": "agent",
                "observation": "run",
                "cause": 2,
                "content": "1 passed",
                "extras": {"exit_code": 0},
                "tool_call_metadata": {"tool_call_id": "toolu_1", "function_name": "execute_bash"},
            },
            {"id": 4, "source": "agent", "action": "message", "message": "Done.", "args": {"content": "Done."}},
        ],
    ),
    Seed(
        "swe_agent",
        "swe-agent",
        "json",
        {
            "environment": "swe_main",
            "trajectory": [{"action": "pytest", "observation": "1 passed", "response": "Run it.", "thought": "Run it."}],
            "history": [
                {"role": "system", "content": "You are an autonomous programmer.", "agent": "main", "message_type": "system_prompt"},
                {"role": "user", "content": "Fix the test.", "agent": "main", "message_type": "observation"},
                {
                    "role": "assistant",
                    "content": "Run it.",
                    "thought": "Run it.",
                    "agent": "main",
                    "message_type": "action",
                    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "pytest"}'}}],
                },
                {"role": "tool", "content": "1 passed", "agent": "main", "message_type": "observation", "tool_call_ids": ["c1"]},
            ],
            "info": {"exit_status": "submitted"},
            "replay_config": '{"agent": {"model": {"name": "gpt-4o"}}}',
        },
        ".traj",
    ),
    Seed(
        "hermes_session",
        "hermes",
        "json",
        {
            "id": "20260301_090000_aaaa",
            "source": "cli",
            "started_at": 1772355600.0,
            "parent_session_id": None,
            "model": "openai/gpt-4.1-mini",
            "system_prompt": "You are Hermes.",
            "messages": [
                {"role": "user", "content": "Fix the test."},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": '[{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]',
                },
                {"role": "tool", "tool_call_id": "c1", "content": '\u0000json:{"output": "1 passed", "exit_code": 0}'},
                {"role": "assistant", "content": "Done.", "token_count": 3},
            ],
        },
    ),
    Seed(
        "hermes_export",
        "hermes",
        "jsonl",
        [
            {
                "id": "s_old",
                "source": "telegram",
                "started_at": 1772355600.0,
                "end_reason": "compression",
                "parent_session_id": None,
                "messages": [{"role": "user", "content": "Fix the test."}, {"role": "assistant", "content": "Looking."}],
            },
            {
                "id": "s_new",
                "source": "telegram",
                "started_at": 1772359200.0,
                "parent_session_id": "s_old",
                "messages": [
                    {"role": "user", "content": "[CONTEXT COMPACTION — REFERENCE ONLY] earlier work"},
                    {"role": "assistant", "content": "Done."},
                ],
            },
        ],
        ".jsonl",
    ),
    Seed(
        "hermes_gateway",
        "hermes",
        "jsonl",
        [
            {"role": "session_meta", "model": "gpt-4o", "tools": []},
            {"role": "user", "content": "Fix the test."},
            {"role": "assistant", "content": "Done."},
        ],
        ".jsonl",
    ),
    Seed(
        "claude_code",
        "claude-code",
        "jsonl",
        [
            {"type": "summary", "summary": "Fixing a test", "leafUuid": "a2"},
            {
                "type": "user",
                "uuid": "u1",
                "parentUuid": None,
                "sessionId": "sess-1",
                "isSidechain": False,
                "message": {"role": "user", "content": "Fix the test."},
            },
            {
                "type": "assistant",
                "uuid": "a1",
                "parentUuid": "u1",
                "sessionId": "sess-1",
                "message": {
                    "id": "msg_1",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest"}}],
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
            },
            {
                "type": "user",
                "uuid": "u2",
                "parentUuid": "a1",
                "sessionId": "sess-1",
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1 passed"}]},
            },
            {
                "type": "system",
                "subtype": "compact_boundary",
                "uuid": "b1",
                "parentUuid": None,
                "logicalParentUuid": "u2",
                "sessionId": "sess-1",
                "compactMetadata": {"trigger": "auto", "preTokens": 1000},
            },
            {
                "type": "user",
                "uuid": "u3",
                "parentUuid": "b1",
                "sessionId": "sess-1",
                "isCompactSummary": True,
                "message": {"role": "user", "content": "Summary of the work so far."},
            },
            {
                "type": "assistant",
                "uuid": "a2",
                "parentUuid": "u3",
                "sessionId": "sess-1",
                "message": {"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            },
        ],
        ".jsonl",
    ),
    Seed(
        "codex",
        "codex",
        "jsonl",
        [
            {"timestamp": "2026-03-01T09:00:00Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/w", "instructions": "Be brief."}},
            {"type": "turn_context", "payload": {"model": "gpt-5-codex", "cwd": "/w"}},
            {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the test."}]}},
            {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": '{"command": ["pytest"]}', "call_id": "c1"}},
            {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": '{"output": "1 passed"}'}},
            {"type": "event_msg", "payload": {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 10, "output_tokens": 2}}}},
            {"type": "compacted", "payload": {"message": "Summary of the work so far."}},
            {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}},
        ],
        ".jsonl",
    ),
    Seed(
        "codex_exec",
        "codex-exec",
        "jsonl",
        [
            {"type": "thread.started", "thread_id": "t1"},
            {"type": "turn.started"},
            {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "Run the tests."}},
            {"type": "item.started", "item": {"id": "item_1", "type": "command_execution", "command": "pytest -q",
                                              "aggregated_output": "", "exit_code": None, "status": "in_progress"}},
            {"type": "item.completed", "item": {"id": "item_1", "type": "command_execution", "command": "pytest -q",
                                                "aggregated_output": "1 passed", "exit_code": 0, "status": "completed"}},
            {"type": "item.completed", "item": {"id": "item_2", "type": "file_change", "changes": [{"path": "a.py", "kind": "update"}],
                                                "status": "completed"}},
            {"type": "item.completed", "item": {"id": "item_3", "type": "todo_list", "items": [{"text": "fix", "completed": True}]}},
            {"type": "item.completed", "item": {"id": "item_4", "type": "agent_message", "text": "Done."}},
            {"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 2}},
        ],
        ".jsonl",
    ),
    # Layouts of the tools as they write them today (added after the seeds above, so the random
    # mutations of the earlier seeds stay as they were).
    Seed(
        "mini_swe_agent",
        "mini-swe-agent",
        "json",
        {
            "info": {"exit_status": "Submitted", "submission": "diff", "mini_version": "2.0.0"},
            "messages": [
                {"role": "system", "content": "You run bash.", "extra": {}},
                {"role": "user", "content": "Fix the test."},
                {"role": "assistant", "content": "Run it.", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "pytest"}'}}],
                 "extra": {"response": {"usage": {"prompt_tokens": 10, "completion_tokens": 2}}}},
                {"role": "tool", "tool_call_id": "c1", "content": "1 passed"},
                {"role": "exit", "content": "diff", "extra": {"exit_status": "Submitted", "submission": "diff"}},
            ],
            "trajectory_format": "mini-swe-agent-1.1",
        },
    ),
    Seed(
        "claude_code_v2",
        "claude-code",
        "jsonl",
        [
            {"type": "queue-operation", "operation": "enqueue", "sessionId": "s", "timestamp": "2026-04-01T10:00:00Z"},
            {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-04-01T10:00:01Z",
             "message": {"role": "user", "content": "Fix the test."}},
            {"type": "attachment", "uuid": "h1", "parentUuid": "u1", "sessionId": "s", "timestamp": "2026-04-01T10:00:01Z",
             "attachment": {"type": "skill_listing", "content": "- pdf"}},
            {"type": "assistant", "uuid": "a1", "parentUuid": "h1", "sessionId": "s", "timestamp": "2026-04-01T10:00:02Z",
             "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]}},
            {"type": "assistant", "uuid": "a2", "parentUuid": "a1", "sessionId": "s", "timestamp": "2026-04-01T10:00:03Z",
             "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]}},
            {"type": "user", "uuid": "r2", "parentUuid": "a2", "sessionId": "s", "timestamp": "2026-04-01T10:00:04Z",
             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]}},
            {"type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": "s", "timestamp": "2026-04-01T10:00:05Z",
             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1 passed"}]}},
            {"type": "user", "uuid": "c1", "parentUuid": "r1", "sessionId": "s", "isMeta": True, "timestamp": "2026-04-01T10:00:06Z",
             "message": {"role": "user", "content": "Caveat: local command."}},
            {"type": "system", "subtype": "local_command", "uuid": "l1", "parentUuid": "c1", "sessionId": "s",
             "content": "<command-name>/cost</command-name>", "timestamp": "2026-04-01T10:00:07Z"},
            {"type": "assistant", "uuid": "a3", "parentUuid": "l1", "sessionId": "s", "timestamp": "2026-04-01T10:00:08Z",
             "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}},
        ],
        ".jsonl",
    ),
    Seed(
        "codex_aug2025",
        "codex",
        "jsonl",
        [
            {"id": "s1", "timestamp": "2025-08-20T10:00:00Z", "instructions": None, "git": {"branch": "main"}},
            {"record_type": "state"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the test."}]},
            {"type": "function_call", "name": "shell", "arguments": '{"command": ["pytest"]}', "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": "1 passed"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
        ],
        ".jsonl",
    ),
    Seed(
        "openhands_2024",
        "openhands",
        "json",
        {
            "instance_id": "x__y-1",
            "history": [
                [{"action": "message", "args": {"content": "Fix the test.", "wait_for_response": False}},
                 {"observation": "null", "content": "", "extras": {}}],
                [{"action": "run", "args": {"command": "pytest", "thought": "Run it."}},
                 {"observation": "run", "content": "1 passed", "extras": {"exit_code": 0}}],
            ],
        },
    ),
    Seed(
        "hermes_gateway_no_meta",
        "hermes",
        "jsonl",
        [
            {"role": "user", "content": "Fix the test.", "timestamp": "2025-05-01T10:00:00"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "terminal", "arguments": '{"command": "pytest"}'}}], "timestamp": "2025-05-01T10:00:01",
             "finish_reason": "tool_calls"},
            {"role": "tool", "tool_call_id": "c1", "tool_name": "terminal", "content": "1 passed", "timestamp": "2025-05-01T10:00:02"},
        ],
        ".jsonl",
    ),
]


# aider, pi, OpenClaw, Continue and Goose
SEEDS += [
    Seed(
        "aider_chat",
        "aider",
        "text",
        ["# aider chat started at 2026-01-02 10:00:00", "", "> Main model: gpt-4.1 with diff edit format  ", "",
         "#### Fix the test.  ", "", "Done: the assertion compares Decimals now.", "",
         "> Tokens: 2.1k sent, 40 received. Cost: $0.0049 message, $0.0049 session.  "],
        ".md",
    ),
    Seed(
        "pi_session",
        "pi",
        "jsonl",
        [
            {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-02T10:00:00.000Z", "cwd": "/w"},
            {"type": "message", "id": "u1", "parentId": None, "timestamp": "t", "message": {"role": "user", "content": "Fix the test."}},
            {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "t", "message": {
                "role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "pytest"}}],
                "stopReason": "toolUse", "usage": {"input": 10, "output": 2, "cacheRead": 0, "cacheWrite": 0}}},
            {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "t", "message": {
                "role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "1 passed"}]}},
            {"type": "compaction", "id": "k1", "parentId": "r1", "timestamp": "t", "summary": "Ran the tests.",
             "firstKeptEntryId": "r1", "tokensBefore": 900},
            {"type": "message", "id": "a2", "parentId": "k1", "timestamp": "t", "message": {
                "role": "assistant", "content": [{"type": "text", "text": "Done."}], "stopReason": "stop"}},
        ],
        ".jsonl",
    ),
    Seed(
        "openclaw_session",
        "openclaw",
        "jsonl",
        [
            {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-02T10:00:00.000Z", "cwd": "/h/.openclaw/workspace"},
            {"type": "custom", "id": "m1", "parentId": None, "customType": "model-snapshot", "data": {"modelId": "m"}},
            {"type": "message", "id": "u1", "parentId": "m1", "message": {"role": "user", "content": [{"type": "text", "text": "Hi"}]}},
            {"type": "message", "id": "a1", "parentId": "u1", "message": {
                "role": "assistant", "content": [{"type": "text", "text": "Hello."}], "stopReason": "stop"}},
        ],
        ".jsonl",
    ),
    Seed(
        "continue_session",
        "continue",
        "json",
        {"sessionId": "s1", "title": "t", "workspaceDirectory": "/w", "history": [
            {"message": {"role": "user", "content": "Fix the test."}, "contextItems": [
                {"name": "a.py", "description": "a.py", "content": "x = 1", "id": {"providerTitle": "file", "itemId": "a.py"}}]},
            {"message": {"role": "assistant", "content": "", "toolCalls": [
                {"id": "c1", "type": "function", "function": {"name": "builtin_run_terminal_command", "arguments": "{}"}}],
                "usage": {"promptTokens": 10, "completionTokens": 2}}, "contextItems": [],
             "toolCallStates": [{"toolCallId": "c1", "status": "done", "output": [{"name": "t", "content": "1 passed"}]}]},
            {"message": {"role": "assistant", "content": "Done."}, "contextItems": [], "conversationSummary": "Tests pass."},
        ]},
    ),
    Seed(
        "goose_session",
        "goose",
        "jsonl",
        [
            {"working_dir": "/w", "description": "fix", "message_count": 3, "total_tokens": 12, "input_tokens": 10},
            {"role": "user", "created": 1, "content": [{"type": "text", "text": "Fix the test."}]},
            {"role": "assistant", "created": 2, "content": [{"type": "toolRequest", "id": "c1", "toolCall": {
                "status": "success", "value": {"name": "developer__shell", "arguments": {"command": "pytest"}}}}]},
            {"role": "user", "created": 3, "content": [{"type": "toolResponse", "id": "c1", "toolResult": {
                "status": "success", "value": [{"type": "text", "text": "1 passed"}]}}]},
        ],
        ".jsonl",
    ),
]


# Gemini CLI, Copilot CLI, OpenCode and Cline: each seed holds the records whose fields the reader
# interprets (thoughts, part lists, usage, compactions, step markers, tool results), so the mutations
# reach them.
SEEDS += [
    Seed(
        "gemini_cli_session",
        "gemini-cli",
        "json",
        {"sessionId": "s1", "projectHash": "ab12", "startTime": "2026-01-02T10:00:00.000Z",
         "lastUpdated": "2026-01-02T10:01:00.000Z", "summary": "Fix the test", "messages": [
             {"id": "m1", "timestamp": "2026-01-02T10:00:01.000Z", "type": "user",
              "content": [{"text": "Fix the test."}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
             {"id": "m2", "timestamp": "2026-01-02T10:00:05.000Z", "type": "gemini", "content": "Running it.",
              "thoughts": [{"subject": "Reproduce first", "description": "Run the tests.",
                            "timestamp": "2026-01-02T10:00:04.000Z"}],
              "model": "gemini-2.5-pro", "tokens": {"input": 10, "output": 2, "cached": 0, "thoughts": 1, "tool": 0,
                                                     "total": 13},
              "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "pytest"},
                             "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                                              "response": {"output": "1 passed"}}}],
                             "status": "success"}]},
             {"id": "m3", "timestamp": "2026-01-02T10:00:06.000Z", "type": "gemini", "content": [
                 {"text": "**Reading** the file.", "thought": True},
                 {"functionCall": {"id": "c2", "name": "read_file", "args": {"path": "a.py"}}}]},
             {"id": "m4", "timestamp": "2026-01-02T10:00:07.000Z", "type": "user", "content": [
                 {"functionResponse": {"id": "c2", "name": "read_file", "response": {"output": "x = 1"}}}]},
             {"id": "m5", "timestamp": "2026-01-02T10:00:08.000Z", "type": "info", "content": "Saved."},
             {"id": "m6", "timestamp": "2026-01-02T10:00:09.000Z", "type": "gemini", "content": "Done."},
         ]},
    ),
    Seed(
        "copilot_cli_events",
        "copilot-cli",
        "jsonl",
        [
            {"type": "session.start", "data": {"sessionId": "s1", "version": 1, "producer": "copilot-agent",
                                               "selectedModel": "claude-sonnet-4.5", "context": {"cwd": "/w"}},
             "id": "e1", "timestamp": "2026-01-02T10:00:00.000Z", "parentId": None},
            {"type": "user.message", "data": {"content": "Fix the test.", "transformedContent": "Fix the test."},
             "id": "e2", "timestamp": "2026-01-02T10:00:01.000Z", "parentId": "e1"},
            {"type": "assistant.reasoning", "data": {"reasoningId": "r1", "content": "Run it first."}, "id": "e3",
             "timestamp": "2026-01-02T10:00:02.000Z", "parentId": "e2"},
            {"type": "assistant.message", "data": {"messageId": "a1", "content": "Running it.", "apiCallId": "api1",
                                                   "outputTokens": 2, "toolRequests": [
                {"toolCallId": "c1", "name": "bash", "arguments": {"command": "pytest"}, "type": "function"}]},
             "id": "e4", "timestamp": "2026-01-02T10:00:03.000Z", "parentId": "e3"},
            {"type": "assistant.usage", "data": {"model": "claude-sonnet-4.5", "apiCallId": "api1", "inputTokens": 10,
                                                 "outputTokens": 2, "cacheReadTokens": 4, "cacheWriteTokens": 1,
                                                 "duration": 900, "cost": 1},
             "id": "e5", "timestamp": "2026-01-02T10:00:04.000Z", "parentId": "e4"},
            {"type": "tool.execution_complete", "data": {"toolCallId": "c1", "success": True,
                                                         "result": {"content": "1 passed", "detailedContent": "1 passed"}},
             "id": "e6", "timestamp": "2026-01-02T10:00:05.000Z", "parentId": "e5"},
            {"type": "session.model_change", "data": {"previousModel": "claude-sonnet-4.5", "newModel": "gpt-5.1",
                                                      "cause": "user"},
             "id": "e7", "timestamp": "2026-01-02T10:00:06.000Z", "parentId": "e6"},
            {"type": "session.compaction_start", "data": {"currentTokens": 900}, "id": "e8",
             "timestamp": "2026-01-02T10:00:07.000Z", "parentId": "e7"},
            {"type": "session.compaction_complete", "data": {
                "success": True, "preCompactionTokens": 900, "postCompactionTokens": 100, "messagesRemoved": 3,
                "checkpointNumber": 1, "trigger": "threshold", "summaryContent": "Ran the tests; they pass.",
                "compactionTokensUsed": {"inputTokens": 800, "outputTokens": 20, "model": "gpt-5.1"}},
             "id": "e9", "timestamp": "2026-01-02T10:00:08.000Z", "parentId": "e8"},
            {"type": "assistant.message", "data": {"messageId": "a2", "content": "Done.", "apiCallId": "api2",
                                                   "reasoningText": "Nothing left.", "model": "gpt-5.1"},
             "id": "e10", "timestamp": "2026-01-02T10:00:09.000Z", "parentId": "e9"},
        ],
        ".jsonl",
    ),
    Seed(
        "opencode_export",
        "opencode",
        "json",
        {"info": {"id": "ses_1", "projectID": "p1", "directory": "/w", "title": "t", "version": "1.2.27",
                  "time": {"created": 1, "updated": 2}},
         "messages": [
             {"info": {"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": {"created": 1}},
              "parts": [{"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "text",
                         "text": "Fix the test."},
                        {"id": "prt_2", "sessionID": "ses_1", "messageID": "msg_1", "type": "file", "mime": "image/png",
                         "filename": "shot.png", "url": "data:image/png;base64,iVBORw0KGgo="}]},
             {"info": {"id": "msg_2", "sessionID": "ses_1", "role": "assistant", "time": {"created": 2, "completed": 3},
                       "modelID": "m", "providerID": "p", "cost": 0.01,
                       "tokens": {"input": 10, "output": 4, "reasoning": 1, "cache": {"read": 5, "write": 2}}},
              "parts": [{"id": "prt_3", "sessionID": "ses_1", "messageID": "msg_2", "type": "step-start",
                         "snapshot": "a1"},
                        {"id": "prt_4", "sessionID": "ses_1", "messageID": "msg_2", "type": "reasoning",
                         "text": "Run it first.", "time": {"start": 2, "end": 2}},
                        {"id": "prt_5", "sessionID": "ses_1", "messageID": "msg_2", "type": "tool", "callID": "c1",
                         "tool": "bash", "state": {"status": "completed", "input": {"command": "pytest"},
                                                   "output": "1 passed", "time": {"start": 2, "end": 3}}},
                        {"id": "prt_6", "sessionID": "ses_1", "messageID": "msg_2", "type": "step-finish",
                         "reason": "tool-calls", "cost": 0.004,
                         "tokens": {"input": 6, "output": 2, "reasoning": 1, "cache": {"read": 5, "write": 1}}},
                        {"id": "prt_7", "sessionID": "ses_1", "messageID": "msg_2", "type": "step-start",
                         "snapshot": "a2"},
                        {"id": "prt_8", "sessionID": "ses_1", "messageID": "msg_2", "type": "text",
                         "text": "Done."},
                        {"id": "prt_9", "sessionID": "ses_1", "messageID": "msg_2", "type": "step-finish",
                         "reason": "stop", "cost": 0.006,
                         "tokens": {"input": 4, "output": 2, "reasoning": 0, "cache": {"read": 5, "write": 1}}}]},
         ]},
    ),
    Seed(
        "cline_ui_messages",
        "cline",
        "json",
        [
            {"ts": 1, "type": "say", "say": "text", "text": "Fix the test."},
            {"ts": 2, "type": "say", "say": "api_req_started",
             "text": "{\"request\": \"<task>Fix the test.</task>\", \"tokensIn\": 10, \"tokensOut\": 2}"},
            {"ts": 3, "type": "say", "say": "text", "text": "Done."},
        ],
    ),
    Seed(
        "cline_api_history",
        "cline",
        "json",
        [
            {"role": "user", "content": [
                {"type": "text", "text": "<task>\nFix the test.\n</task>"},
                {"type": "text", "text": "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Run it first.", "signature": "sig"},
                {"type": "text", "text": "Running the tests."},
                {"type": "tool_use", "id": "toolu_1", "name": "execute_command",
                 "input": {"command": "pytest", "requires_approval": False}}],
             "modelInfo": {"modelId": "claude-sonnet-4-5", "providerId": "anthropic", "mode": "act"},
             "metrics": {"tokens": {"prompt": 10, "completion": 5, "cached": 100}, "cost": 0.01}},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1",
                 "content": [{"type": "text", "text": "[execute_command for 'pytest'] Result:\n1 passed"}]}]},
            {"role": "assistant", "content": [{"type": "text", "text": "<read_file>\n<path>a.py</path>\n</read_file>"}]},
            {"role": "user", "content": [{"type": "text", "text": "[read_file for 'a.py'] Result:\nx = 1"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_2", "name": "summarize_task", "input": {"context": "Tests pass."}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}]},
            {"role": "assistant", "content": "Done.", "ts": 7, "isSummary": False},
        ],
    ),
    # The other layouts of Gemini CLI and Copilot CLI: the JSONL log with its updates and rewinds, and
    # Copilot's older session object, read from its chat messages or, without them, its timeline.
    Seed(
        "gemini_cli_log",
        "gemini-cli",
        "jsonl",
        [
            {"sessionId": "s1", "projectHash": "ab12", "startTime": "2026-01-02T10:00:00.000Z",
             "lastUpdated": "2026-01-02T10:00:00.000Z", "kind": "main"},
            {"id": "m1", "timestamp": "2026-01-02T10:00:01.000Z", "type": "user", "content": [{"text": "Fix the test."}]},
            {"id": "m2", "timestamp": "2026-01-02T10:00:02.000Z", "type": "gemini", "content": [
                {"text": "**Reproduce** first.", "thought": True},
                {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "pytest"}}}],
             "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "pytest"},
                            "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                                             "response": {"output": "1 passed"}}}],
                            "status": "success"}],
             "tokens": {"input": 10, "output": 2, "total": 12}, "model": "gemini-3-pro-preview"},
            {"$set": {"lastUpdated": "2026-01-02T10:00:03.000Z"}},
            {"id": "m3", "timestamp": "2026-01-02T10:00:04.000Z", "type": "user", "content": [{"text": "Not that."}]},
            {"$rewindTo": "m3"},
            {"id": "m4", "timestamp": "2026-01-02T10:00:05.000Z", "type": "user",
             "content": [{"text": "<state_snapshot>Tests pass.</state_snapshot>"}]},
            {"$set": {"messages": [
                {"id": "m4", "timestamp": "2026-01-02T10:00:05.000Z", "type": "user",
                 "content": [{"text": "<state_snapshot>Tests pass.</state_snapshot>"}]}]}},
            {"id": "m5", "timestamp": "2026-01-02T10:00:06.000Z", "type": "gemini", "content": [{"text": "Done."}]},
        ],
        ".jsonl",
    ),
    Seed(
        "copilot_cli_history",
        "copilot-cli",
        "json",
        {"sessionId": "s1", "startTime": "2026-01-02T10:00:00.000Z", "chatMessages": [
            {"role": "user", "content": "Fix the test."},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pytest\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "1 passed"},
            {"role": "assistant", "content": "Done."},
        ], "timeline": [
            {"id": "t1", "timestamp": "2026-01-02T10:00:01.000Z", "type": "user", "text": "Fix the test."},
        ]},
    ),
    Seed(
        "copilot_cli_timeline",
        "copilot-cli",
        "json",
        {"sessionId": "s1", "startTime": "2026-01-02T10:00:00.000Z", "timeline": [
            {"id": "t1", "timestamp": "2026-01-02T10:00:01.000Z", "type": "user", "text": "Fix the test."},
            {"id": "t2", "timestamp": "2026-01-02T10:00:02.000Z", "type": "tool_call_requested", "callId": "c1",
             "name": "bash", "toolTitle": "bash", "arguments": {"command": "pytest"}},
            {"id": "t3", "timestamp": "2026-01-02T10:00:03.000Z", "type": "tool_call_completed", "callId": "c1",
             "name": "bash", "result": {"type": "success", "log": "1 passed"}},
            {"id": "t4", "timestamp": "2026-01-02T10:00:04.000Z", "type": "copilot", "text": "Done."},
            {"id": "t5", "timestamp": "2026-01-02T10:00:05.000Z", "type": "info", "text": "Session saved."},
        ]},
    ),
]


# Context Lens' own Hermes plugin log (appended last: the earlier seeds' mutations stay as they were)
SEEDS += [
    Seed(
        "context_lens_log",
        "context-lens-log",
        "jsonl",
        [
            {"record": "compaction", "version": 1, "session_id": "20260601_101500_a1b2c3",
             "time": "2026-06-01T10:15:00.000+00:00", "profile": "v0.19.0", "outcome": "summarized",
             "call": {"current_tokens": 90000, "compression_count_before": 0},
             "tokens": {"before": 90000, "after": 30000, "messages_before": 4, "messages_after": 3},
             "zones": {"head_size": 1, "compress_start": 1, "compress_end": 3},
             "messages": [
                 {"index": 0, "id": "a1", "role": "user", "chars": 12, "zone": "head", "fate": "kept"},
                 {"index": 1, "id": "a2", "role": "assistant", "chars": 40, "zone": "middle", "fate": "summarised",
                  "tool_calls": [{"id": "c1", "name": "read_file"}]},
                 {"index": 2, "id": "a3", "role": "tool", "chars": 900, "zone": "middle", "fate": "summarised",
                  "tool_call_id": "c1"},
                 {"index": 3, "id": "a4", "role": "assistant", "chars": 5, "zone": "tail", "fate": "kept"},
             ],
             "facts": {"total": 1, "kept": 0, "lost": 1, "items": [{"kind": "path", "value": "a.py", "kept": False}]},
             "summary": {"text": "## Active Task\nFix the test.", "role": "user", "merged": False}},
        ],
        ".jsonl",
    ),
]


def seed_bytes(seed: Seed, value: Any = None) -> bytes:
    value = seed.value if value is None else value
    if seed.layout == "text":  # a line replaced by another value is written as its JSON
        return ("\n".join(line if isinstance(line, str) else _dumps(line) for line in value) + "\n").encode(
            "utf-8", "surrogatepass")
    if seed.layout == "jsonl":
        return ("\n".join(_dumps(record) for record in value) + "\n").encode("utf-8", "surrogatepass")
    # (lone surrogates a test put in become invalid UTF-8 bytes: a hostile input of its own)
    return json.dumps(value, ensure_ascii=False, indent=1).encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------------------------
# Wrong types at every level
# --------------------------------------------------------------------------------------------

#: One value of each JSON type (and a few shapes that trip careless code).
WRONG_VALUES: tuple[Any, ...] = (None, True, 0, -7, 2.5, "", "x", [], [None], [[]], {}, {"": None}, {"id": []})


def node_paths(value: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    """Every path inside ``value`` (the root itself excluded), parents before children."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from node_paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield prefix + (index,)
            yield from node_paths(item, prefix + (index,))


def get_at(value: Any, path: Path_) -> Any:
    for step in path:
        value = value[step]
    return value


def replace_at(value: Any, path: Path_, new: Any) -> Any:
    out = copy.deepcopy(value)
    if not path:
        return copy.deepcopy(new)
    parent = get_at(out, path[:-1])
    parent[path[-1]] = copy.deepcopy(new)
    return out


def _same_kind(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b)
    return type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float)))


def type_mutations(seed: Seed) -> Iterator[tuple[str, bytes]]:
    """``(label, bytes)`` for every node of ``seed`` replaced by every value of another type."""
    paths: list[Path_] = [()] if seed.layout == "json" else []
    paths += list(node_paths(seed.value))
    for path in paths:
        original = get_at(seed.value, path)
        for new in WRONG_VALUES:
            if _same_kind(original, new) and original == new:
                continue
            if seed.layout in ("jsonl", "text") and not path:
                continue
            label = f"{seed.name}{''.join(f'[{step!r}]' for step in path)}={_dumps(new)}"
            yield label, seed_bytes(seed, replace_at(seed.value, path, new))


def _level_mutations(seed: Seed, rng: random.Random) -> list[Case]:
    """One committed file per depth level of the seed, the node and the wrong value picked at random."""
    by_depth: dict[int, list[Path_]] = {}
    for path in node_paths(seed.value):
        by_depth.setdefault(len(path), []).append(path)
    cases = []
    for depth in sorted(by_depth):
        path = rng.choice(by_depth[depth])
        original = get_at(seed.value, path)
        choices = [v for v in WRONG_VALUES if not _same_kind(v, original)]
        new = rng.choice(choices)
        data = seed_bytes(seed, replace_at(seed.value, path, new))
        where = "".join(f"[{step!r}]" for step in path)
        cases.append(
            Case(
                f"types_{seed.name}_level{depth}{seed.suffix}",
                data,
                "either",
                f"{seed.format} with {where} replaced by {_dumps(new)}",
            )
        )
    return cases


# --------------------------------------------------------------------------------------------
# SQLite files
# --------------------------------------------------------------------------------------------

HERMES_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, system_prompt TEXT,
    parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, title TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
    content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
    token_count INTEGER, reasoning TEXT
);
"""


def _sqlite_bytes(build: Callable[[sqlite3.Connection], None], page_size: int = 1024) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store.db"
        conn = sqlite3.connect(path)
        conn.execute(f"PRAGMA page_size = {page_size}")
        build(conn)
        conn.commit()
        conn.close()
        return path.read_bytes()


def _hermes_rows(conn: sqlite3.Connection, sessions: list[tuple[Any, ...]], messages: list[tuple[Any, ...]]) -> None:
    conn.executescript(HERMES_SCHEMA)
    conn.executemany(
        "INSERT INTO sessions (id, source, model, system_prompt, parent_session_id, started_at, end_reason, title) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        sessions,
    )
    conn.executemany(
        "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, timestamp, token_count) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        messages,
    )


def _simple_messages(session: Any, count: int = 4, start: float = 1.0) -> list[tuple[Any, ...]]:
    rows = []
    for i in range(count):
        role = "user" if i % 2 == 0 else "assistant"
        rows.append((session, role, f"{role} message {i} of {session}", None, None, start + i, 5))
    return rows


def sqlite_cases() -> list[Case]:
    cases: list[Case] = []

    def browser(conn: sqlite3.Connection) -> None:
        conn.executescript(
            """
            CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url LONGVARCHAR, title LONGVARCHAR, visit_count INTEGER);
            CREATE TABLE moz_historyvisits (id INTEGER PRIMARY KEY, place_id INTEGER, visit_date INTEGER);
            CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT, title TEXT, last_visit_time INTEGER);
            """
        )
        conn.executemany(
            "INSERT INTO moz_places (url, title, visit_count) VALUES (?, ?, ?)",
            [(f"https://example.org/{i}", f"Page {i}", i) for i in range(40)],
        )

    cases.append(
        Case("sqlite_browser_history.db", _sqlite_bytes(browser), "error",
             "a browser-history database (places, visits, urls)",
             mentions=["not a Hermes state.db", "moz_places", "expected a 'sessions' table"])
    )

    def empty(conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA user_version = 7")  # writes the header page without any table

    cases.append(
        Case("sqlite_empty.db", _sqlite_bytes(empty), "error", "an empty SQLite database (no tables)",
             mentions=["not a Hermes state.db", "none", "expected a 'sessions' table"])
    )

    def missing_messages(conn: sqlite3.Connection) -> None:
        conn.executescript(HERMES_SCHEMA)
        conn.execute("DROP TABLE messages")
        conn.execute("INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1.0)")

    cases.append(
        Case("sqlite_hermes_no_messages_table.db", _sqlite_bytes(missing_messages), "error",
             "a Hermes-like store without its messages table",
             mentions=["not a Hermes state.db", "sessions", "'messages' table"])
    )

    def missing_column(conn: sqlite3.Connection) -> None:
        conn.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL);"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, body TEXT);"
        )

    cases.append(
        Case("sqlite_hermes_missing_columns.db", _sqlite_bytes(missing_column), "error",
             "messages table without role/content columns",
             mentions=["not a Hermes state.db", "'role'"])
    )

    def no_sessions(conn: sqlite3.Connection) -> None:
        conn.executescript(HERMES_SCHEMA)

    cases.append(
        Case("sqlite_hermes_no_sessions.db", _sqlite_bytes(no_sessions), "error", "a Hermes store with no sessions",
             mentions=["holds no sessions"])
    )

    def wrong_types(conn: sqlite3.Connection) -> None:
        conn.executescript(HERMES_SCHEMA.replace(" NOT NULL", ""))
        # SQLite keeps whatever type is inserted: ids as numbers, blobs as content, text timestamps.
        conn.execute(
            "INSERT INTO sessions (id, source, model, system_prompt, parent_session_id, started_at, title) "
            "VALUES (42, 7, x'00ff', 3.5, 42, 'yesterday', x'cafe')"
        )
        conn.execute("INSERT INTO sessions (id, source, started_at) VALUES (x'0102', 'cli', 2.0)")
        rows = [
            (42, 1, "integer role", None, None, 1.0, None),
            (42, "user", b"\x00\xffblob content", None, None, 2.0, "many"),
            (42, "assistant", 12345, None, "not json [", 3.0, 1.5),
            (42, "assistant", None, None, '{"id": 5, "function": "terminal"}', 4.0, None),
            (42, "tool", "\x00json:{broken", 99, None, 5.0, None),
            (42, "user", "\x00json:[1, 2, 3]", None, None, 6.0, None),
            (42, None, "null role", None, None, 7.0, None),
        ]
        conn.executemany(
            "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, timestamp, token_count) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    cases.append(
        Case("sqlite_hermes_wrong_types.db", _sqlite_bytes(wrong_types), "either",
             "Hermes schema holding numbers, blobs and nulls where text is expected")
    )

    def blob_content(conn: sqlite3.Connection) -> None:
        conn.executescript(HERMES_SCHEMA)
        conn.execute("INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1.0)")
        conn.executemany(
            "INSERT INTO messages (session_id, role, content, tool_call_id, timestamp, token_count) VALUES (?, ?, ?, ?, ?, ?)",
            [("s1", "user", b"\x00\xffbinary \xe2\x82\xac", None, 1.0, "lots"),
             ("s1", "assistant", 12.5, None, 2.0, None),
             ("s1", "user", b'\x00json:{"a": 1}', b"\x01", 3.0, None)],
        )

    cases.append(
        Case("sqlite_hermes_blob_content.db", _sqlite_bytes(blob_content), "load",
             "message content stored as BLOBs and numbers", format="hermes", warnings=["binary data"])
    )

    def recursive_view(conn: sqlite3.Connection) -> None:
        conn.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL);"
            "INSERT INTO sessions VALUES ('s1', 'cli', 1.0);"
            # An endless recursive view in place of the messages table: reading it would never end.
            "CREATE VIEW messages AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
            "SELECT i AS id, 's1' AS session_id, 'user' AS role, 'x' AS content FROM n;"
        )

    cases.append(
        Case("sqlite_messages_endless_view.db", _sqlite_bytes(recursive_view), "error",
             "'messages' is an endless recursive view, not a table", mentions=["not a Hermes state.db"])
    )

    def broken_view(conn: sqlite3.Connection) -> None:
        conn.executescript(HERMES_SCHEMA)
        conn.execute("INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1.0)")
        conn.execute("CREATE TABLE gone (x)")
        conn.execute("CREATE VIEW broken AS SELECT x FROM gone")
        conn.execute("DROP TABLE gone")

    cases.append(
        Case("sqlite_hermes_broken_view.db", _sqlite_bytes(broken_view), "load",
             "a Hermes store that also holds a view over a dropped table", format="hermes",
             warnings=["no messages"])
    )

    def self_parent(conn: sqlite3.Connection) -> None:
        _hermes_rows(
            conn,
            [("s1", "cli", "m", None, "s1", 1.0, "compression", "loop")],
            _simple_messages("s1"),
        )

    cases.append(
        Case("sqlite_hermes_self_parent.db", _sqlite_bytes(self_parent), "load",
             "a session that names itself as its parent (after a compression split)", format="hermes")
    )

    def cycle(conn: sqlite3.Connection) -> None:
        _hermes_rows(
            conn,
            [
                ("a", "cli", "m", None, "c", 1.0, "compression", None),
                ("b", "cli", "m", None, "a", 2.0, "compression", None),
                ("c", "cli", "m", None, "b", 3.0, "compression", None),
            ],
            _simple_messages("a") + _simple_messages("b", 3, 10.0) + _simple_messages("c", 2, 20.0),
        )

    cases.append(
        Case("sqlite_hermes_parent_cycle.db", _sqlite_bytes(cycle), "load",
             "three sessions whose parent links form a cycle", format="hermes")
    )

    def duplicate_ids(conn: sqlite3.Connection) -> None:
        conn.executescript(HERMES_SCHEMA.replace("id TEXT PRIMARY KEY", "id TEXT"))
        conn.executemany(
            "INSERT INTO sessions (id, source, started_at) VALUES (?, ?, ?)",
            [("dup", "cli", 1.0), ("dup", "cli", 2.0), ("dup", "telegram", 3.0)],
        )
        conn.executemany(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
            [("dup", "user", "first", 1.0), ("dup", "assistant", "second", 2.0)],
        )

    cases.append(
        Case("sqlite_hermes_duplicate_session_ids.db", _sqlite_bytes(duplicate_ids), "load",
             "three sessions with the same id", format="hermes")
    )

    def orphan_messages(conn: sqlite3.Connection) -> None:
        _hermes_rows(conn, [("s1", "cli", "m", None, None, 1.0, None, None)], _simple_messages("ghost", 6))

    cases.append(
        Case("sqlite_hermes_messages_of_unknown_session.db", _sqlite_bytes(orphan_messages), "load",
             "messages pointing at a session that does not exist", format="hermes",
             warnings=["no messages"])
    )

    def bad_tool_pairs(conn: sqlite3.Connection) -> None:
        calls = json.dumps([{"id": "dup", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}] * 2)
        _hermes_rows(
            conn,
            [("s1", "cli", "m", None, None, 1.0, None, None)],
            [
                ("s1", "user", "go", None, None, 1.0, None),
                ("s1", "assistant", None, None, calls, 2.0, None),
                ("s1", "tool", "one", "dup", None, 3.0, None),
                ("s1", "tool", "two", "dup", None, 4.0, None),
                ("s1", "tool", "three", "nobody", None, 5.0, None),
            ],
        )

    cases.append(
        Case("sqlite_hermes_duplicate_tool_ids.db", _sqlite_bytes(bad_tool_pairs), "load",
             "duplicate tool-call ids and a result for a call that never happened", format="hermes",
             warnings=["unpaired tool messages", "'nobody'"])
    )

    def many_rows(conn: sqlite3.Connection) -> None:
        _hermes_rows(
            conn,
            [("s1", "cli", "m", None, None, 1.0, None, None)],
            [("s1", "user" if i % 2 == 0 else "assistant", f"message {i} " + "x" * 300, None, None, float(i), 80) for i in range(60)],
        )

    healthy = _sqlite_bytes(many_rows)
    cases.append(Case("sqlite_hermes_healthy.db", healthy, "load", "a small healthy store (the base of the damaged ones)",
                      format="hermes"))

    schema = bytearray(healthy)
    at = schema.index(b"id TEXT PRIMARY KEY, ") + len(b"id TEXT PRIMARY KEY")
    schema[at:at + 2] = b" \xbb"  # a syntax error whose message quotes a byte that is not UTF-8
    cases.append(
        Case("sqlite_hermes_schema_invalid_utf8.db", bytes(schema), "error",
             "the CREATE TABLE text damaged with a non-UTF-8 byte", mentions=["damaged"])
    )
    page = 1024
    corrupt = bytearray(healthy)
    rng = random.Random(5)
    for offset in range(3 * page, 6 * page):
        corrupt[offset] = rng.randrange(256)
    cases.append(
        Case("sqlite_hermes_corrupt_pages.db", bytes(corrupt), "error", "pages 4-6 overwritten with random bytes",
             mentions=["damaged"])
    )
    cases.append(
        Case("sqlite_truncated.db", healthy[: page + 200], "either", "a store cut after its first page and a bit")
    )
    cases.append(
        Case("sqlite_header_then_junk.db", b"SQLite format 3\x00" + bytes(rng.randrange(256) for _ in range(3000)), "error",
             "the SQLite magic followed by random bytes", mentions=["SQLite", "damaged"])
    )
    wal = bytearray(healthy)
    wal[18] = wal[19] = 2  # the header of a WAL-mode database
    cases.append(Case("sqlite_hermes_wal_header.db", bytes(wal), "load", "a WAL-mode header", format="hermes"))
    return cases


# --------------------------------------------------------------------------------------------
# Hand-written cases
# --------------------------------------------------------------------------------------------


def _chat(messages: list[Any]) -> bytes:
    return json.dumps({"messages": messages}).encode()


def _jsonl(records: list[Any]) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


def _cc(uuid: Any, parent: Any, kind: str = "user", content: Any = "hi", **extra: Any) -> dict[str, Any]:
    event = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "message": {"role": kind, "content": content}}
    event.update(extra)
    return event


def _zip_of(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # fixed, so the bytes are reproducible
    info.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def binary_cases(rng: random.Random) -> list[Case]:
    chat = _chat([{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}])
    bomb = b'{"messages": [' + b'{"role": "user", "content": ""},' * 400_000 + b'{"role": "user", "content": ""}]}'
    return [
        Case("empty.json", b"", "error", "zero bytes", mentions=["the file is empty", "expected a JSON or JSONL transcript"]),
        Case("whitespace_only.jsonl", b" \n\t\r\n   \n", "error", "only whitespace", mentions=["the file is empty"]),
        Case("binary_junk.json", bytes(rng.randrange(256) for _ in range(4096)), "error", "4 KB of random bytes",
             mentions=["expected"]),
        Case("png_image.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(rng.randrange(256) for _ in range(300)), "error",
             "a PNG image named .json", mentions=["a PNG image, not text", "expected a JSON or JSONL transcript"]),
        Case("jpeg_image.jsonl", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(200), "error", "a JPEG named .jsonl",
             mentions=["a JPEG image"]),
        Case("gif_image.json", b"GIF89a" + bytes(100), "error", "a GIF", mentions=["a GIF image"]),
        Case("pdf_document.json", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", "error",
             "a PDF named .json", mentions=["a PDF document"]),
        Case("elf_binary.json", b"\x7fELF\x02\x01\x01\x00" + bytes(120), "error", "an ELF executable", mentions=["an executable"]),
        Case("transcript.zip", _zip_of("chat.json", chat), "error", "a ZIP archive holding a valid transcript",
             mentions=["a ZIP archive"]),
        Case("zip_bomb.json", _zip_of("bomb.json", bomb), "error", "a ZIP of a 13 MB JSON (a small zip bomb) named .json",
             mentions=["a ZIP archive"]),
        Case("gzip_bomb.json.gz", gzip.compress(bomb, 9, mtime=0), "error", "a gzip of a 13 MB JSON", mentions=["gzip archive (decompress it first)"]),
        Case("bzip2_transcript.jsonl", bz2.compress(chat), "error", "a bzip2 archive", mentions=["bzip2 archive"]),
        Case("nul_bytes.json", b'{"messages": [{"role": "user", "content": "a\x00b"}]}', "error", "raw NUL bytes in the text",
             mentions=["NUL bytes", "binary file"]),
        Case("utf16le_no_bom.json", json.dumps([{"role": "user", "content": "hello"}]).encode("utf-16-le"), "error",
             "UTF-16 LE without a byte-order mark", mentions=["UTF-16 text without a byte-order mark"]),
        Case("utf16be_no_bom.jsonl", (json.dumps({"role": "user", "content": "hello"}) + "\n").encode("utf-16-be"), "error",
             "UTF-16 BE without a byte-order mark", mentions=["UTF-16 text without a byte-order mark"]),
        Case("utf8_bom.json", b"\xef\xbb\xbf" + chat, "load", "UTF-8 with BOM", format="openai-chat"),
        Case("utf16_bom.jsonl", ("\ufeff" + "\n".join(json.dumps({"role": r, "content": "Grüße"}) for r in ("user", "assistant"))).encode("utf-16-le"),
             "load", "UTF-16 LE with BOM, JSON Lines", format="openai-chat"),
        Case("utf32_bom.json", ("\ufeff" + json.dumps([{"role": "user", "content": "hi"}])).encode("utf-32-le"), "load",
             "UTF-32 LE with BOM", format="openai-chat"),
        Case("bom_then_text.json", b"\xef\xbb\xbfhello, this is not JSON", "error", "a BOM followed by plain text",
             mentions=["not JSON", "expected a JSON or JSONL transcript"]),
        Case("double_bom.json", b"\xef\xbb\xbf\xef\xbb\xbf" + chat, "either", "two UTF-8 BOMs"),
        Case("bom_in_the_middle.jsonl", _jsonl([{"role": "user", "content": "a"}]) + b"\xef\xbb\xbf" + _jsonl([{"role": "assistant", "content": "b"}]),
             "either", "a second BOM at the start of line 2 (two files concatenated)"),
        Case("latin1.json", '[{"role": "user", "content": "Grüße aus Köln"}]'.encode("latin-1"), "error", "Latin-1 text",
             mentions=["not valid UTF-8", "line 1, column"]),
        Case("invalid_utf8_one_line.jsonl",
             _jsonl([{"role": "user", "content": "a"}]) + b'{"role": "assistant", "content": "\xff\xfe"}\n'
             + _jsonl([{"role": "user" if i % 2 else "assistant", "content": str(i)} for i in range(8)]),
             "load", "one line of a JSONL log with invalid UTF-8", format="openai-chat", warnings=["line 2", "not valid UTF-8"]),
        Case("invalid_utf8_most_lines.jsonl", b"".join(b'{"role": "user", "content": "\xe9t\xe9 %d"}\n' % i for i in range(10)), "error",
             "every line in Latin-1", mentions=["not valid UTF-8"]),
        Case("overlong_utf8.json", b'[{"role": "user", "content": "\xc0\xaf"}]', "error", "an overlong UTF-8 sequence",
             mentions=["not valid UTF-8"]),
        Case("surrogates_escaped.json", b'[{"role": "user", "content": "lone \\ud800 and \\udfff surrogates"}, {"role": "assistant", "content": "ok"}]',
             "load", "JSON escapes of lone UTF-16 surrogates (valid JSON, not encodable as UTF-8)", format="openai-chat"),
        Case("surrogates_in_hermes_json_content.jsonl",
             _jsonl([{"role": "session_meta", "model": "m"}, {"role": "user", "content": "hi"},
                     {"role": "assistant", "content": '\u0000json:[{"type": "text", "text": "lone \\ud800"}]'}]),
             "load", "lone surrogate escapes inside Hermes' JSON-encoded content", format="hermes"),
        Case("nul_escaped.json", b'[{"role": "user", "content": "a\\u0000b"}, {"role": "assistant", "content": "\\u0000"}]', "load",
             "JSON-escaped NUL characters in strings", format="openai-chat"),
        Case("control_characters.json", json.dumps([{"role": "user", "content": "".join(chr(i) for i in range(1, 32)) + "\u202e\u2066"}]).encode(),
             "load", "every C0 control character and bidi overrides (escaped)", format="openai-chat"),
    ]


def text_cases() -> list[Case]:
    chat = json.dumps({"messages": [{"role": "user", "content": "x" * 60}, {"role": "assistant", "content": "y" * 40}]}, indent=2)
    return [
        Case("plain_text.json", b"hello world, this is a note\n", "error", "plain text", mentions=["not JSON", "expected"]),
        Case("html_page.json", b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", "error", "an HTML error page",
             mentions=["not JSON"]),
        Case("csv_table.jsonl", b"role,content\nuser,hello\nassistant,hi\n", "error", "a CSV table", mentions=["not JSON"]),
        Case("yaml_file.json", b"messages:\n  - role: user\n    content: hi\n", "error", "YAML", mentions=["not JSON"]),
        Case("python_literal.json", b"[{'role': 'user', 'content': 'hi'}]", "error", "a Python literal (single quotes)",
             mentions=["invalid JSON", "line 1, column"]),
        Case("truncated_document.json", chat[:-25].encode(), "error", "a pretty-printed document cut short",
             mentions=["looks truncated", "line"]),
        Case("truncated_in_string.json", b'{"messages": [{"role": "user", "content": "never closed', "error",
             "cut inside a string", mentions=["Unterminated string"]),
        Case("only_bracket.json", b"[", "error", "a single [", mentions=["looks truncated"]),
        Case("only_brace.jsonl", b"{", "error", "a single {", mentions=["expected"]),
        Case("trailing_comma.json", b'[{"role": "user", "content": "a"},]', "error", "a trailing comma", mentions=["line 1, column 35"]),
        Case("garbage_after_document.json", _chat([{"role": "user", "content": "a"}]) + b"\nGARBAGE", "load",
             "a one-line document followed by a junk line (read as JSON Lines, the junk line skipped)",
             format="openai-chat", warnings=["line 2", "invalid JSON"]),
        Case("two_documents.json", _chat([{"role": "user", "content": "a"}]) + _chat([{"role": "user", "content": "b"}]), "either",
             "two JSON documents back to back on one line"),
        Case("truncated_last_line.jsonl", _jsonl([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]) + b'{"role": "user", "cont',
             "load", "a JSONL log whose last line was cut (the agent was killed)", format="openai-chat", warnings=["line 3"]),
        Case("jsonl_every_line_broken.jsonl", b'{"role": \n{"content": \n{]\n', "error", "JSONL where no line parses",
             mentions=["expected"]),
        Case("nan_and_infinity.json", b'[{"role": "user", "content": "a", "score": NaN}, {"role": "assistant", "content": "b", "t": -Infinity}]',
             "either", "NaN / Infinity literals (not JSON, but Python accepts them)"),
        Case("huge_integer.json", b'[{"role": "user", "content": "a", "n": ' + b"9" * 5000 + b"}]", "error",
             "an integer with 5,000 digits", mentions=["5,000 digits"]),
        Case("huge_exponent.json", b'[{"role": "user", "content": "a", "usage": {"prompt_tokens": 1e999999}}]', "either",
             "a float that overflows to infinity"),
        Case("nesting_2000.json", b'{"messages": ' + b"[" * 2000 + b"]" * 2000 + b"}", "error", "2,000 nested arrays",
             mentions=["nested too deeply", "expected a transcript with ordinary nesting"]),
        Case("nesting_in_content_part.json",
             json.dumps([{"role": "user", "content": [{"type": "weird", "deep": json.loads("[" * 700 + "]" * 700)}]},
                         {"role": "assistant", "content": "ok"}]).encode(),
             "either", "700 levels of nesting inside an unknown content part"),
        Case("top_null.json", b"null", "error", "the JSON value null", mentions=["expected"]),
        Case("top_number.json", b"42", "error", "a bare number", mentions=["expected"]),
        Case("top_string.json", b'"just a string"', "error", "a bare string", mentions=["expected"]),
        Case("top_empty_list.json", b"[]", "either", "an empty list"),
        Case("top_empty_object.json", b"{}", "error", "an empty object", mentions=["unknown structure"]),
        Case("list_of_scalars.json", b"[1, 2, 3, null, true]", "error", "a list of scalars", mentions=["expected"]),
        Case("list_of_lists.jsonl", b"[1]\n[2]\n[[3]]\n", "error", "JSONL of arrays", mentions=["expected"]),
        Case("duplicate_keys.json", b'{"messages": [{"role": "user", "content": "a"}], "messages": 5}', "error",
             "'messages' twice, the last one a number", mentions=["expected"]),
        Case("duplicate_keys_in_message.json", b'[{"role": "user", "role": 7, "content": "a", "content": {"x": 1}}]', "either",
             "a message with duplicated keys of other types"),
        Case("wrong_role.json", _chat([{"role": "wizard", "content": "a"}, {"role": 5, "content": "b"}]), "either",
             "unknown roles and a numeric role"),
        Case("duplicate_tool_call_ids.json",
             _chat([
                 {"role": "user", "content": "go"},
                 {"role": "assistant", "content": None, "tool_calls": [
                     {"id": "same", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                     {"id": "same", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": "same", "content": "1"},
                 {"role": "tool", "tool_call_id": "same", "content": "2"},
                 {"role": "assistant", "content": None, "tool_calls": [
                     {"id": "same", "type": "function", "function": {"name": "c", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": "same", "content": "3"},
                 {"role": "tool", "tool_call_id": "orphan", "content": "4"},
             ]),
             "load", "the same tool-call id used three times and a result without a call", format="openai-chat",
             warnings=["'orphan' has no matching call"]),
        Case("tool_call_ids_odd_types.json",
             _chat([
                 {"role": "user", "content": "go"},
                 {"role": "assistant", "content": None, "tool_calls": [
                     {"id": 17, "function": {"name": None, "arguments": {"a": [1, 2]}}},
                     {"id": ["x"], "function": {"name": ["n"], "arguments": None}},
                     {"id": {"k": 1}, "function": "terminal"},
                     "not a call", None]},
                 {"role": "tool", "tool_call_id": 17, "content": {"output": 1}},
                 {"role": "tool", "tool_call_id": ["x"], "content": [1, 2]},
             ]),
             "either", "tool-call ids and fields of every odd type"),
        Case("tool_calls_as_string.json",
             _chat([{"role": "assistant", "content": "a", "tool_calls": "this is not json"}]), "error",
             "tool_calls given as a non-JSON string", mentions=["tool_calls", "expected a JSON list of tool calls"]),
        Case("content_of_every_type.jsonl",
             _jsonl([{"role": "user", "content": value} for value in (None, True, 3, 2.5, "s", [], {}, [1], ["s"], [None], {"type": "text", "text": 5}, [{"type": "image_url", "image_url": 7}])]),
             "either", "one line per content type"),
    ]


def format_cases() -> list[Case]:
    long_text = "z" * 20_000
    cycle = [_cc("a", "c"), _cc("b", "a", "assistant"), _cc("c", "b")]
    return [
        Case("claude_code_parent_cycle.jsonl", _jsonl(cycle), "load", "uuid/parentUuid links forming a cycle",
             format="claude-code"),
        Case("claude_code_self_parent.jsonl", _jsonl([_cc("a", "a"), _cc("b", "b", "assistant")]), "load",
             "events that are their own parents", format="claude-code"),
        Case("claude_code_duplicate_uuids.jsonl",
             _jsonl([_cc("a", None), _cc("a", "a", "assistant"), _cc("a", "a", "user", "again"), _cc("b", "a", "assistant")]),
             "load", "the same uuid on several events", format="claude-code"),
        Case("claude_code_parent_of_odd_type.jsonl",
             _jsonl([_cc("a", None), _cc("b", ["a"], "assistant"), _cc("c", {"uuid": "b"}), _cc("d", 12, "assistant")]),
             "either", "parentUuid given as a list, an object and a number"),
        Case("claude_code_uuid_of_odd_type.jsonl",
             _jsonl([_cc(["a"], None), _cc({"x": 1}, ["a"], "assistant"), _cc(5, {"x": 1}), _cc(True, 5, "assistant")]),
             "either", "uuid given as a list, an object, a number and a boolean"),
        Case("claude_code_no_message.jsonl",
             _jsonl([{"type": "user", "uuid": "a", "sessionId": "s", "message": "just text"},
                     {"type": "assistant", "uuid": "b", "parentUuid": "a", "sessionId": "s", "message": None}]),
             "load", "user/assistant events whose message is not an object", format="claude-code",
             warnings=["without a 'message' object"]),
        Case("claude_code_split_response_empty.jsonl",
             _jsonl([_cc("a", None),
                     _cc("b", "a", "assistant", [{"type": "text", "text": "part one"}]),
                     _cc("c", "b", "assistant", []),
                     _cc("d", "c", "assistant", [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}])]).replace(
                         b'"role": "assistant"', b'"role": "assistant", "id": "msg_same"'),
             "either", "one API response logged in three events, the middle one empty"),
        Case("claude_code_sidechains_only.jsonl",
             _jsonl([_cc("a", None, isSidechain=True, agentId="x"), _cc("b", "a", "assistant", isSidechain=True, agentId="x"),
                     _cc("c", None, isSidechain=True, agentId="s"), _cc("d", "c", "assistant", isSidechain=True, agentId="s")]),
             "load", "only subagent events, one of them named like the session", format="claude-code"),
        Case("claude_code_compact_boundary_odd.jsonl",
             _jsonl([_cc("a", None),
                     {"type": "system", "subtype": "compact_boundary", "uuid": "b", "logicalParentUuid": "a", "sessionId": "s",
                      "compactMetadata": "not an object"},
                     _cc("c", "b", "user", "summary", isCompactSummary=True),
                     _cc("d", "c", "assistant", "ok")]),
             "either", "a compact_boundary whose metadata is a string"),
        Case("codex_payload_odd_types.jsonl",
             _jsonl([{"type": "session_meta", "payload": {"id": 5, "instructions": ["a"]}},
                     {"type": "turn_context", "payload": {"model": {"name": "x"}}},
                     {"type": "response_item", "payload": {"type": "message", "role": "user", "content": "plain string"}},
                     {"type": "response_item", "payload": {"type": "function_call", "name": None, "arguments": {"a": 1}, "call_id": ["c"]}},
                     {"type": "response_item", "payload": {"type": "function_call_output", "call_id": ["c"], "output": {"x": 1}}},
                     {"type": "event_msg", "payload": {"type": "token_count", "info": "none"}},
                     {"type": "compacted", "payload": {"message": None}},
                     {"type": "response_item", "payload": "not an object"}]),
             "either", "Codex envelopes with odd payload field types"),
        Case("openhands_odd_fields.json",
             json.dumps([{"id": 1, "source": "user", "action": "message", "args": {"content": "a", "image_urls": 5}},
                         {"id": 2, "source": "agent", "action": "run", "args": "not an object",
                          "tool_call_metadata": {"tool_call_id": ["x"], "model_response": "r"}},
                         {"id": 3, "source": "agent", "observation": "run", "content": {"x": 1},
                          "tool_call_metadata": {"tool_call_id": ["x"]}},
                         {"id": [4], "source": "agent", "action": "condensation", "args": {"forgotten_event_ids": 5}}]).encode(),
             "either", "OpenHands events with odd field types"),
        Case("swe_agent_odd_tool_ids.traj",
             json.dumps({"trajectory": [{"action": "a", "observation": "b"}],
                         "history": [{"role": "user", "content": "go", "agent": "main"},
                                     {"role": "tool", "content": "x", "agent": "main", "tool_call_ids": {"a": 1}},
                                     {"role": "tool", "content": "y", "agent": "main", "tool_call_ids": 5}]}).encode(),
             "either", "SWE-agent tool messages whose tool_call_ids is an object and a number"),
        Case("sharegpt_odd_values.json",
             json.dumps({"conversations": [{"from": "human", "value": {"a": 1}}, {"from": "gpt", "value": ["<tool_call>"]},
                                           {"from": "gpt", "value": "<tool_call>{\"name\": [1], \"arguments\": 5}</tool_call>"},
                                           {"from": "tool", "value": "<tool_response>{\"name\": {}, \"content\": null}</tool_response>"},
                                           {"from": 7, "value": "x"}]}).encode(),
             "either", "ShareGPT turns with odd value and speaker types"),
        Case("responses_odd_items.json",
             json.dumps({"input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": 5}]},
                                   {"type": "function_call", "call_id": {"a": 1}, "name": 3, "arguments": None},
                                   {"type": "function_call_output", "call_id": {"a": 1}, "output": [1, 2]},
                                   {"type": "reasoning", "summary": "not a list"},
                                   {"type": "message", "role": 9, "content": None}, 7, None]}).encode(),
             "either", "Responses items with odd field types"),
        Case("anthropic_odd_blocks.json",
             json.dumps({"system": [{"type": "text", "text": 5}], "messages": [
                 {"role": "user", "content": [{"type": "text", "text": None}, "bare string", 7]},
                 {"role": "assistant", "content": [{"type": "tool_use", "id": ["t"], "name": None, "input": "not an object"}]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ["t"], "content": {"x": 1}, "is_error": "yes"}]},
                 {"role": "assistant", "content": [{"type": "thinking"}, {"type": "image", "source": "nope"}]}]}).encode(),
             "either", "Anthropic content blocks with odd field types"),
        Case("langchain_odd_fields.json",
             json.dumps([{"type": "human", "data": "not an object"}, {"type": ["ai"], "data": {"content": 5}},
                         {"lc": 1, "type": "constructor", "id": "not a list", "kwargs": {"content": "x"}},
                         {"type": "ai", "data": {"content": "", "tool_calls": [{"name": None, "args": "s", "id": None}, 5]}},
                         {"type": "tool", "data": {"content": [1], "tool_call_id": {"x": 1}}}]).encode(),
             "either", "LangChain messages with odd field types"),
        Case("hermes_export_self_parent.jsonl",
             _jsonl([{"id": "s1", "source": "cli", "started_at": 1.0, "parent_session_id": "s1", "end_reason": "compression",
                      "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}]),
             "load", "a Hermes session that is its own parent", format="hermes"),
        Case("hermes_export_parent_cycle.jsonl",
             _jsonl([{"id": "a", "source": "cli", "started_at": 1.0, "parent_session_id": "b", "end_reason": "compression",
                      "messages": [{"role": "user", "content": "a"}]},
                     {"id": "b", "source": "cli", "started_at": 2.0, "parent_session_id": "a", "end_reason": "compression",
                      "messages": [{"role": "user", "content": "b"}]}]),
             "load", "two Hermes sessions that are each other's parents", format="hermes"),
        Case("hermes_export_duplicate_ids.jsonl",
             _jsonl([{"id": "same", "source": "cli", "started_at": t, "messages": [{"role": "user", "content": str(t)}]} for t in (1.0, 3.0, 2.0)]),
             "load", "three exported sessions with the same id", format="hermes"),
        Case("hermes_export_odd_fields.jsonl",
             _jsonl([{"id": ["x"], "source": 5, "started_at": "soon", "parent_session_id": {"a": 1}, "title": 7,
                      "messages": [{"role": "user", "content": "\u0000json:{broken"}, {"role": "assistant", "tool_calls": "[1, 2]"}, 5]}]),
             "either", "a Hermes export line with odd field types"),
        Case("hermes_gateway_meta_only.jsonl", _jsonl([{"role": "session_meta", "model": 5, "tools": "x"}]), "either",
             "a gateway transcript with nothing but its session_meta line"),
        Case("long_single_message.json", _chat([{"role": "user", "content": long_text}]), "load",
             "one 20 KB message", format="openai-chat"),
    ]


def corpus_cases() -> list[Case]:
    rng = random.Random(20260101)
    cases = binary_cases(rng) + text_cases() + format_cases() + sqlite_cases()
    mutation_rng = random.Random(7)
    for seed in SEEDS:
        cases.append(Case(f"seed_{seed.name}{seed.suffix}", seed_bytes(seed), "load", f"a valid {seed.format} seed",
                          format=seed.format))
        cases += _level_mutations(seed, mutation_rng)
    names = [case.name for case in cases]
    assert len(names) == len(set(names)), "duplicate corpus file names"
    return cases


# --------------------------------------------------------------------------------------------
# Big inputs, written at test time
# --------------------------------------------------------------------------------------------


@dataclass
class BigCase:
    name: str
    expect: str
    why: str
    mentions: list[str] = field(default_factory=list)
    format: str | None = None
    # the peak memory a load may take, as a multiple of the file size (plus a fixed allowance)
    memory_factor: float = 6.0


def _write_chunks(path: Path, chunks: Iterator[bytes]) -> None:
    with path.open("wb") as fh:
        for chunk in chunks:
            fh.write(chunk)


def big_cases() -> list[BigCase]:
    return [
        BigCase("jsonl_one_50mb_line.jsonl", "load", "a JSONL log whose second line is a 50 MB message", format="openai-chat"),
        BigCase("jsonl_50mb_garbage_line.jsonl", "load", "a JSONL log with a 50 MB line that is not JSON", format="openai-chat"),
        BigCase("huge_single_string.json", "load", "a 40 MB string inside one message", format="openai-chat"),
        BigCase("nesting_100k.json", "error", "100,000 nested arrays", mentions=["nested too deeply"]),
        BigCase("nesting_100k_objects.jsonl", "error", "100,000 nested objects on one JSONL line",
                mentions=["nested too deeply"]),
        BigCase("millions_of_numbers.json", "error", "one content list holding 3 million numbers",
                mentions=["expected a content part object"], memory_factor=10.0),
        BigCase("millions_of_empty_lists.json", "error", "2 million empty lists", mentions=["expected"],
                memory_factor=30.0),
        BigCase("millions_of_lines.jsonl", "error", "2 million JSONL lines holding {}", mentions=["unknown structure"]),
        BigCase("claude_code_one_response_100k_events.jsonl", "load",
                "one Claude Code API response logged as 100,000 events (once quadratic to merge)", format="claude-code",
                memory_factor=15.0),
        BigCase("sharegpt_50k_calls_answered_in_reverse.json", "load",
                "50,000 tool calls in one turn, answered newest first (once quadratic to pair)", format="sharegpt",
                memory_factor=15.0),
        BigCase("openai_50k_legacy_function_calls_reversed.json", "load",
                "50,000 legacy function calls answered newest first (once quadratic to pair)", format="openai-chat",
                memory_factor=25.0),
    ]


def write_big_case(name: str, directory: Path) -> Path:
    """Write the big input ``name`` (see :func:`big_cases`) into ``directory``."""
    path = directory / name
    mb = 1024 * 1024
    if name == "jsonl_one_50mb_line.jsonl":
        def chunks() -> Iterator[bytes]:
            yield b'{"role": "user", "content": "start"}\n{"role": "assistant", "content": "'
            for _ in range(50):
                yield b"a" * mb
            yield b'"}\n{"role": "user", "content": "end"}\n'
        _write_chunks(path, chunks())
    elif name == "jsonl_50mb_garbage_line.jsonl":
        def chunks() -> Iterator[bytes]:
            yield b'{"role": "user", "content": "start"}\n{"role": "assistant", "content": '
            for _ in range(50):
                yield b"{[" * (mb // 2)
            yield b'\n{"role": "user", "content": "end"}\n'
        _write_chunks(path, chunks())
    elif name == "huge_single_string.json":
        def chunks() -> Iterator[bytes]:
            yield b'{"messages": [{"role": "user", "content": "'
            for _ in range(40):
                yield b"\\u00e9x" * (mb // 7)
            yield b'"}, {"role": "assistant", "content": "ok"}]}'
        _write_chunks(path, chunks())
    elif name == "nesting_100k.json":
        path.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    elif name == "nesting_100k_objects.jsonl":
        path.write_bytes(b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n")
    elif name == "millions_of_numbers.json":
        def chunks() -> Iterator[bytes]:
            yield b'{"messages": [{"role": "user", "content": [0'
            for _ in range(30):
                yield b",0" * 100_000
            yield b"]}]}"
        _write_chunks(path, chunks())
    elif name == "millions_of_empty_lists.json":
        def chunks() -> Iterator[bytes]:
            yield b"[[]"
            for _ in range(20):
                yield b",[]" * 100_000
            yield b"]"
        _write_chunks(path, chunks())
    elif name == "millions_of_lines.jsonl":
        def chunks() -> Iterator[bytes]:
            for _ in range(20):
                yield b"{}\n" * 100_000
        _write_chunks(path, chunks())
    elif name == "claude_code_one_response_100k_events.jsonl":
        def chunks() -> Iterator[bytes]:
            yield (_dumps(_cc("u0", None)) + "\n").encode()
            for i in range(100_000):
                event = _cc(f"a{i}", f"a{i - 1}" if i else "u0", "assistant", [{"type": "text", "text": f"part {i}"}])
                event["message"]["id"] = "msg_same"
                yield (_dumps(event) + "\n").encode()
        _write_chunks(path, chunks())
    elif name == "sharegpt_50k_calls_answered_in_reverse.json":
        calls = "".join(
            "<tool_call>" + _dumps({"name": f"t{i}", "arguments": {}, "id": f"c{i}"}) + "</tool_call>" for i in range(50_000)
        )
        answers = "".join(
            "<tool_response>" + _dumps({"name": f"t{i}", "tool_call_id": f"c{i}", "content": "ok"}) + "</tool_response>"
            for i in reversed(range(50_000))
        )
        turns = [{"from": "human", "value": "go"}, {"from": "gpt", "value": calls}, {"from": "tool", "value": answers}]
        path.write_text(_dumps({"conversations": turns}), encoding="utf-8")
    elif name == "openai_50k_legacy_function_calls_reversed.json":
        def chunks() -> Iterator[bytes]:
            yield b'[{"role": "user", "content": "go"}'
            for i in range(50_000):
                yield b', {"role": "assistant", "content": null, "function_call": {"name": "f%d", "arguments": "{}"}}' % i
            for i in reversed(range(50_000)):
                yield b', {"role": "function", "name": "f%d", "content": "r"}' % i
            yield b"]"
        _write_chunks(path, chunks())
    else:
        raise KeyError(name)
    return path


def write_oversized(path: Path, size: int) -> Path:
    """A sparse file of ``size`` bytes that starts like a transcript (nothing is really written)."""
    with path.open("wb") as fh:
        fh.write(b'{"messages": [')
        fh.truncate(size)
    return path


# --------------------------------------------------------------------------------------------


def main() -> None:
    cases = corpus_cases()
    keep = {case.name for case in cases} | {MANIFEST, Path(__file__).name, "README.md"}
    for old in HERE.iterdir():
        if old.is_file() and old.name not in keep:
            old.unlink()
    manifest = {}
    for case in cases:
        (HERE / case.name).write_bytes(case.data)
        manifest[case.name] = case.manifest_entry()
    (HERE / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(len(case.data) for case in cases)
    print(f"wrote {len(cases)} files ({total / 1024:.0f} KB) and {MANIFEST}")


if __name__ == "__main__":
    main()
