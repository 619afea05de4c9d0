"""The whole request at every recorded turn: estimated from the turns before it, reasoning billed as the
provider bills it, and Codex counts placed on the response they measure.

The logs are look-alikes of real Claude Code and Codex sessions: the prompt sizes they record are made
the way a provider makes them (a hidden system prompt and tool schemas, and a tokenizer that splits the
text into more pieces than the counting encoding does).
"""

from __future__ import annotations

import json

import pytest

from core.formats import Conversation, load
from core.inspections.request import ExactWeigher, request_breakdown
from core.tokens import get_counter
from tests.formats.layouts import jsonl
from tests.inspections import request_fixtures as F

COUNTER = get_counter("cl100k_base")
HIDDEN_OVERHEAD = 18_000  # a Claude Code system prompt and tool schemas the log never writes down


def provider_sized(messages: list[dict], *, ratio: float, model: str, format: str = "claude-code",
                   jitter: float = 0.01) -> Conversation:
    """``messages`` with, at every assistant message, the prompt size a provider whose tokenizer gives
    ``ratio`` times the counting encoding's tokens would record (plus a few tokens of noise)."""
    usage: list[dict | None] = []
    counted = 0
    for index, message in enumerate(messages):
        if message["role"] == "assistant":
            wobble = 1 + jitter * (1 if index % 4 == 0 else -1)
            usage.append({"prompt_tokens": round(HIDDEN_OVERHEAD + ratio * counted * wobble)})
        else:
            usage.append(None)
        counted += COUNTER.count_message(message)
    return Conversation(format=format, messages=messages, usage=usage, sources=[""] * len(messages),
                        reasoning=[None] * len(messages), model=model)


def long_session() -> list[dict]:
    return F.coding_session(rounds=30, lines=25)


@pytest.mark.parametrize("model", ["claude-sonnet-4-20250514", "gemini-2.5-pro"])
def test_a_log_without_a_public_tokenizer_is_calibrated_on_its_earlier_turns(model):
    conversation = provider_sized(long_session(), ratio=1.35, model=model)
    request = request_breakdown(conversation, ExactWeigher("cl100k_base"))
    table = request.turn_table().dropna(subset=["recorded"])
    compared = table.dropna(subset=["estimate_error_pct"])
    # The first recorded turn is what the overhead is measured on: it has no estimate of its own.
    assert len(compared) == len(table) - 1 >= 25
    assert compared["estimate_error_pct"].abs().max() <= 5
    errors = request.estimate_errors()
    assert errors["turns"] == len(compared) and errors["estimate"] <= 5 and errors["fitted"]
    assert errors["factor"] == pytest.approx(1.35, abs=0.05)
    # Without the factor (a plain offset) the same log drifts away from what was recorded.
    uncalibrated = request_breakdown(
        provider_sized(long_session(), ratio=1.35, model="gpt-4o", format="openai"), ExactWeigher("o200k_base"))
    assert not uncalibrated.estimate_errors()["fitted"]
    assert uncalibrated.estimate_errors()["estimate_max"] > errors["estimate_max"]


def test_a_turns_estimate_never_reads_its_own_recorded_size():
    conversation = provider_sized(long_session(), ratio=1.2, model="claude-sonnet-4-20250514")
    before = request_breakdown(conversation, ExactWeigher("cl100k_base"))
    turn = before.turns[10]
    assert turn.recorded is not None
    conversation.usage[turn.message_index] = {"prompt_tokens": turn.recorded.prompt_tokens * 3}
    after = request_breakdown(conversation, ExactWeigher("cl100k_base"))
    assert after.turn_estimates[10] == before.turn_estimates[10] is not None
    assert after.turn_estimates[11] != before.turn_estimates[11]  # the next turn does read it
    assert after.turn_table()["estimate_error_pct"].iloc[10] == pytest.approx(
        (before.turn_estimates[10] - turn.recorded.prompt_tokens * 3) / (turn.recorded.prompt_tokens * 3) * 100,
        abs=0.01)


def _count(usage: dict, total: dict) -> dict:
    return F._envelope("event_msg", {"type": "token_count",
                                     "info": {"last_token_usage": usage, "total_token_usage": total}})


def codex_count_first_rollout() -> tuple[str, bytes]:
    """Codex 0.5x: each response's token count is written before the response's items, and repeated
    after the tool's output; a second user message starts a new turn."""
    first = {"input_tokens": 4_000, "cached_input_tokens": 0, "output_tokens": 900, "reasoning_output_tokens": 800}
    second = {"input_tokens": 5_100, "cached_input_tokens": 3_900, "output_tokens": 20, "reasoning_output_tokens": 0}
    third = {"input_tokens": 5_300, "cached_input_tokens": 5_000, "output_tokens": 30, "reasoning_output_tokens": 0}
    total_1 = dict(first)
    total_2 = {key: first[key] + second[key] for key in first}
    total_3 = {key: total_2[key] + third[key] for key in first}
    records = [
        F._envelope("session_meta", {"id": "0199-count-first", "timestamp": "2025-11-14T02:21:11Z",
                                     "cli_version": "0.58.0"}),
        F._envelope("turn_context", {"cwd": "/repo", "model": "gpt-5.1-codex"}),
        F._envelope("response_item", F._message("user", "Run the tests.")),
        _count(first, total_1),
        F._envelope("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}),
        F._envelope("response_item", {"type": "function_call", "name": "shell", "call_id": "call_1",
                                      "arguments": json.dumps({"command": ["pytest", "-q"]})}),
        F._envelope("response_item", {"type": "function_call_output", "call_id": "call_1", "output": "3 passed"}),
        _count(first, total_1),  # the repeat
        _count(second, total_2),
        F._envelope("response_item", F._message("assistant", "All 3 tests pass.")),
        _count(second, total_2),
        F._envelope("response_item", F._message("user", "Thanks. Now the linter.")),
        _count(third, total_3),
        F._envelope("response_item", F._message("assistant", "Running ruff.")),
    ]
    return "rollout-2025-11-14T02-21-11-0199-count-first.jsonl", jsonl(records)


def test_a_codex_count_written_before_its_response_goes_to_that_response(tmp_path):
    name, data = codex_count_first_rollout()
    (tmp_path / name).write_bytes(data)
    rollout = load(tmp_path / name)
    recorded = {index: usage["input_tokens"] for index, usage in enumerate(rollout.usage) if usage}
    assistants = [index for index, m in enumerate(rollout.messages) if m["role"] == "assistant"]
    assert len(assistants) == 3
    assert recorded == dict(zip(assistants, (4_000, 5_100, 5_300), strict=True))


def test_reasoning_is_input_again_only_within_its_user_turn(tmp_path):
    name, data = codex_count_first_rollout()
    (tmp_path / name).write_bytes(data)
    request = request_breakdown(load(tmp_path / name), ExactWeigher("o200k_base"))
    first, second, third = request.turns
    assert first.reasoning == 0
    assert second.reasoning == 800  # the tool call's reasoning goes back with the same user turn
    assert third.reasoning == 0  # a new user message: the Responses API dropped it (billed once, as output)
    assert request.reasoning == 0
