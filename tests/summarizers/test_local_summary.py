"""The local model's summarizer: its short prompt, its timeout in its own words, the server freed after it."""

from __future__ import annotations

import time
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.summarizers.base import SummaryRequest
from core.summarizers.llm import import_litellm
from core.summarizers.local_summary import PROMPT_CHARS, TURN_CHARS, LocalModelSummarizer, short_prompt

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

litellm = import_litellm()


def _request(serialized: str, **fields: Any) -> SummaryRequest:
    return SummaryRequest(prompt="the compressor's own prompt", max_tokens=2_600, turns=[], serialized_turns=serialized,
                          **fields)


def _turns(n: int, size: int = 80) -> str:
    blocks = []
    for k in range(n):
        role = ("[USER]: ", "[ASSISTANT]: ", f"[TOOL RESULT call_{k}]: ")[k % 3]
        blocks.append(role + f"turn {k} " + "x" * size)
    return "\n\n".join(blocks)


def test_a_short_conversation_is_sent_whole_after_the_instructions():
    serialized = _turns(4)
    prompt = short_prompt(_request(serialized))
    assert serialized in prompt
    assert prompt.index("Summarize") < prompt.index("[USER]: turn 0") < prompt.rindex("SUMMARY:")


def test_long_turns_keep_their_start_and_end():
    long_output = "[TOOL RESULT call_1]: BEGIN " + "y" * 5_000 + " END"
    prompt = short_prompt(_request("[USER]: fix the parser\n\n" + long_output))
    assert "BEGIN" in prompt and "END" in prompt and "y" * 1_000 not in prompt
    assert "characters…]" in prompt
    turn = prompt[prompt.index("[TOOL RESULT call_1]"):prompt.rindex("\n\nSUMMARY:")]
    assert len(turn) <= TURN_CHARS + 40


def test_a_long_middle_keeps_the_task_and_the_latest_turns_within_the_limit():
    prompt = short_prompt(_request(_turns(300)))
    assert len(prompt) <= PROMPT_CHARS + 100
    assert "turn 0 " in prompt and "turn 299 " in prompt and "turn 150 " not in prompt
    left_out = int(prompt.split("[… ")[1].split(" turns left out")[0].replace(",", ""))
    kept = sum(f"turn {k} " in prompt for k in range(300))
    assert left_out + kept == 300


def test_the_focus_topic_and_previous_summary_are_in_the_prompt():
    prompt = short_prompt(_request(_turns(3), focus_topic="the database migration",
                                   previous_summary="- the CLI flags were renamed"))
    assert "Focus on: the database migration" in prompt
    assert "- the CLI flags were renamed" in prompt


class _StandInServer:
    """What the summarizer needs of a ``LocalModelServer``: its alias, its URL and a restart."""

    def __init__(self, url: str, alias: str) -> None:
        self.base_url, self.alias, self.running, self.restarts = url, alias, True, 0

    def restart(self) -> None:
        self.restarts += 1


def test_the_model_gets_the_short_prompt_and_a_capped_answer(fault_server):
    import json

    server = _StandInServer(fault_server.url, "smollm2")
    summarizer = LocalModelSummarizer(server, timeout=10, max_retries=0, max_tokens_cap=512)
    messages = [{"role": "system", "content": "sys"}] + [
        {"role": ("user", "assistant")[k % 2], "content": f"message {k} " + "z" * 3_000} for k in range(30)
    ]
    result = ContextCompressor(CompressorConfig(), summarizer=summarizer).compress(messages, force=True)
    assert result.outcome == "summarized"
    sent = json.loads(fault_server.bodies[-1])
    prompt = sent["messages"][0]["content"]
    assert sent["max_tokens"] == 512
    assert len(prompt) <= PROMPT_CHARS + 100
    recorded = result.summarizer_calls[-1].prompt
    assert len(recorded) > len(prompt)  # the compressor keeps its own, full prompt


def test_a_timeout_names_the_local_model_and_restarts_its_server(fault_server):
    server = _StandInServer(fault_server.url, "hang")
    summarizer = LocalModelSummarizer(server, timeout=1, max_retries=0, max_tokens_cap=64)
    started = time.monotonic()
    with pytest.raises(litellm.Timeout) as info:
        summarizer("summarize this", 100)
    assert time.monotonic() - started < 5
    assert "the local model did not answer within 1 s" in str(info.value)
    assert server.restarts == 1
    # Any other failure leaves the server as it is.
    failing = LocalModelSummarizer(_StandInServer(fault_server.url, "unavailable"), timeout=5, max_retries=0,
                                   max_tokens_cap=64)
    with pytest.raises(litellm.ServiceUnavailableError):
        failing("summarize this", 100)
    assert failing.server.restarts == 0


def test_a_timeout_inside_a_compression_is_a_fallback_naming_the_local_model(fault_server):
    server = _StandInServer(fault_server.url, "hang")
    summarizer = LocalModelSummarizer(server, timeout=1, max_retries=0, max_tokens_cap=64)
    config = CompressorConfig(profile="v0.16.0")
    messages = [{"role": ("user", "assistant")[k % 2], "content": f"message {k} " + "z" * 2_000} for k in range(30)]
    result = ContextCompressor(config, summarizer=summarizer).compress(messages, force=True)
    assert result.outcome == "fallback"
    assert "the local model did not answer within 1 s" in result.failure_reason
