"""Assertions every loaded conversation must satisfy, written independently of the loader's own checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.formats import Conversation

SAMPLES = Path(__file__).resolve().parents[2] / "sample_conversations"
DATA = Path(__file__).resolve().parents[1] / "data" / "formats"

SAMPLE_FORMATS = {
    "long_coding_session.json": "openai-chat",
    "screenshot_layout_bug.json": "openai-chat",
    "secrets_in_tool_output.json": "openai-chat",
    "resumed_with_handoff_summary.json": "openai-chat",
    "responses_api_session.json": "openai-responses",
    "anthropic_messages_session.json": "anthropic",
    "hermes_trajectory_sharegpt.json": "sharegpt",
    "claude_code_session.jsonl": "claude-code",
    "claude_code_v2_session.jsonl": "claude-code",
    "mini_swe_agent_run.traj.json": "mini-swe-agent",
    "codex_rollout.jsonl": "codex",
    "codex_exec_run.jsonl": "codex-exec",
    "openhands_trajectory.json": "openhands",
    "langchain_messages.json": "langchain",
    "swe_agent_run.traj": "swe-agent",
    "hermes_state.db": "hermes",
    "hermes_sessions_export.jsonl": "hermes",
    # aider, pi, OpenClaw, Continue and Goose
    "aider.chat.history.md": "aider",
    "aider.llm.history": "aider",
    "pi_session.jsonl": "pi",
    "openclaw_session.jsonl": "openclaw",
    "continue_session.json": "continue",
    "goose_session.jsonl": "goose",
    "goose_sessions.db": "goose",
}
# Agents' own logs and folders (a Cline task is read from its folder; the file brings its siblings).
SAMPLE_FORMATS.update({
    "gemini_cli_session.json": "gemini-cli",
    "gemini_cli_session.jsonl": "gemini-cli",
    "copilot_cli_events.jsonl": "copilot-cli",
    "copilot_cli_history_session.json": "copilot-cli",
    "opencode.db": "opencode",
    "opencode_export_session.json": "opencode",
    "cline_task/api_conversation_history.json": "cline",
})
# Context Lens' own Hermes plugin log (no message text: placeholders).
SAMPLE_FORMATS["context_lens_compactions.jsonl"] = "context-lens-log"

ALLOWED_KEYS = {"role", "content", "tool_calls", "tool_call_id", "name"}
ROLES = {"system", "developer", "user", "assistant", "tool"}


def assert_canonical(conv: Conversation) -> None:
    assert len(conv.sources) == len(conv.messages)
    assert len(conv.usage) == len(conv.messages)
    assert len(conv.reasoning) == len(conv.messages)
    for index, message in enumerate(conv.messages):
        assert set(message) <= ALLOWED_KEYS, (index, set(message) - ALLOWED_KEYS)
        assert message["role"] in ROLES, (index, message["role"])
        assert "content" in message, index
        content = message["content"]
        assert content is None or isinstance(content, (str, list)), (index, type(content))
        if isinstance(content, list):
            for part in content:
                assert isinstance(part, dict) and isinstance(part.get("type"), str), (index, part)
                if part["type"] == "text":
                    assert set(part) == {"type", "text"} and isinstance(part["text"], str)
                if part["type"] == "image_url":
                    assert set(part) == {"type", "image_url"} and isinstance(part["image_url"]["url"], str)
        for call in message.get("tool_calls") or []:
            assert set(call) == {"id", "type", "function"}, call
            assert call["type"] == "function" and isinstance(call["id"], str) and call["id"]
            assert set(call["function"]) == {"name", "arguments"}
            assert isinstance(call["function"]["arguments"], str)
        if message["role"] == "tool":
            assert isinstance(message.get("tool_call_id"), str)
        assert isinstance(conv.sources[index], str) and conv.sources[index]
        assert conv.usage[index] is None or isinstance(conv.usage[index], dict)
    for event in conv.compaction_events:
        assert 0 <= event.position <= len(conv.messages)
    if conv.messages and conv.messages[0]["role"] == "system":
        assert conv.system_prompt is not None


def assert_tool_pairs(messages: list[dict[str, Any]]) -> None:
    """Every assistant tool call has a tool result with its id after it, and every result has a call before it."""
    open_calls: set[str] = set()
    answered: set[str] = set()
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            open_calls.add(call["id"])
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_calls, f"result without an earlier call at {index}"
            answered.add(message["tool_call_id"])
    assert open_calls == answered, f"calls without results: {sorted(open_calls - answered)}"


def raw_json(name: str) -> Any:
    return json.loads((SAMPLES / name).read_text(encoding="utf-8"))


def raw_jsonl(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines() if line.strip()]
