"""load → dump → load keeps every message, tool pair and content part."""

import copy
import json

import pytest

from core.formats import DUMP_FORMATS, dump, load
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs

NATIVE_SAMPLES = {
    "openai-chat": "screenshot_layout_bug.json",
    "openai-responses": "responses_api_session.json",
    "anthropic": "anthropic_messages_session.json",
    "sharegpt": "hermes_trajectory_sharegpt.json",
}


def _parts(messages):
    return [(i, p["type"]) for i, m in enumerate(messages) if isinstance(m["content"], list) for p in m["content"]]


@pytest.mark.parametrize("fmt", sorted(NATIVE_SAMPLES))
def test_roundtrip_in_the_original_format(fmt):
    first = load(SAMPLES / NATIVE_SAMPLES[fmt])
    text = dump(first, fmt)
    assert isinstance(text, str)
    second = load(text.encode("utf-8"), filename=f"again.{fmt}.json")
    assert second.format == fmt
    assert second.messages == first.messages
    assert second.reasoning == first.reasoning
    assert _parts(second.messages) == _parts(first.messages)
    assert_canonical(second)
    assert_tool_pairs(second.messages)


@pytest.mark.parametrize("fmt", sorted(DUMP_FORMATS))
def test_long_session_survives_every_writer(fmt):
    original = load(SAMPLES / "long_coding_session.json")
    again = load(dump(original, fmt).encode("utf-8"), format=fmt)
    assert again.messages == original.messages
    assert again.model == original.model


def _without_detail(messages):
    messages = copy.deepcopy(messages)
    for message in messages:
        for part in message["content"] if isinstance(message["content"], list) else []:
            if part["type"] == "image_url":
                part["image_url"].pop("detail", None)
    return messages


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic"])
def test_images_survive_the_writers_that_can_hold_them(fmt):
    original = load(SAMPLES / "screenshot_layout_bug.json")
    assert any("detail" in p["image_url"] for m in original.messages if isinstance(m["content"], list)
               for p in m["content"] if p["type"] == "image_url")
    again = load(dump(original, fmt).encode("utf-8"), format=fmt)
    if fmt == "anthropic":
        # Anthropic image blocks have no detail hint; everything else must survive.
        assert again.messages == _without_detail(original.messages)
    else:
        assert again.messages == original.messages


@pytest.mark.parametrize("name", ["claude_code_session.jsonl", "codex_rollout.jsonl", "codex_exec_run.jsonl", "hermes_state.db",
                                  "openhands_trajectory.json", "langchain_messages.json", "swe_agent_run.traj"])
def test_any_conversation_dumps_to_openai_chat(name):
    conv = load(SAMPLES / name)
    document = json.loads(dump(conv))
    assert document["messages"] == conv.messages
    assert load(json.dumps(document).encode()).messages == conv.messages


def test_openai_chat_dump_layout():
    conv = load(SAMPLES / "anthropic_messages_session.json")
    text = dump(conv)
    assert text.startswith('{\n  "model": "claude-sonnet-4-5",\n  "messages": [\n')
    assert "é" in dump([{"role": "user", "content": "café"}])  # non-ASCII kept as is


def test_dump_accepts_a_bare_message_list_and_does_not_change_it():
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
    ]
    before = copy.deepcopy(messages)
    for fmt in DUMP_FORMATS:
        assert load(dump(messages, fmt).encode(), format=fmt).messages == messages
    assert messages == before


def test_dump_does_not_change_the_conversation():
    conv = load(SAMPLES / "anthropic_messages_session.json")
    before = (copy.deepcopy(conv.messages), list(conv.reasoning), list(conv.warnings))
    for fmt in DUMP_FORMATS:
        dump(conv, fmt)
    assert (conv.messages, conv.reasoning, conv.warnings) == before


def test_dump_rejects_a_format_it_cannot_write():
    with pytest.raises(ValueError, match="cannot write format 'claude-code'"):
        dump([], "claude-code")


def test_anthropic_dump_answers_each_tool_use_in_the_next_user_message():
    conv = load(SAMPLES / "long_coding_session.json")
    document = json.loads(dump(conv, "anthropic"))
    assert document["system"] == conv.system_prompt
    messages = document["messages"]
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and isinstance(message["content"], list):
            uses = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
            if uses:
                following = messages[index + 1]
                assert following["role"] == "user"
                kinds = [b["type"] for b in following["content"]]
                # tool results come first in their user message, one per tool_use, in order
                assert kinds[: len(uses)] == ["tool_result"] * len(uses)
                assert [b["tool_use_id"] for b in following["content"][: len(uses)]] == uses
                assert all(isinstance(b.get("input"), dict) for b in message["content"] if b["type"] == "tool_use")
