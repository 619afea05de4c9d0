"""The summary prompt (and the turns block it embeds) is built only where something reads it, and is the
same text wherever it is read."""

from __future__ import annotations

import datetime

import pytest

from core import CompressorConfig, ContextCompressor
from core.summarizers.base import SummaryRequest
from tests.helpers import CapturingExtractive, long_agent_run

NOW = datetime.datetime(2026, 7, 1, 12, 0, tzinfo=datetime.UTC)


class PromptReadingHook:
    """A summarizer with a request hook that says nothing about the prompt: it gets the whole text."""

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def __call__(self, prompt: str, max_tokens: int) -> str:  # pragma: no cover - the hook is used
        raise AssertionError("the compressor must call summarize_request")

    def summarize_request(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        return "## Active Task\nGo on with the migration."


class PlainCallable:
    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str, max_tokens: int) -> str:
        self.prompts.append(prompt)
        return "## Active Task\nGo on with the migration."


def _compress(summarizer, profile: str):
    config = CompressorConfig(context_length=64_000, profile=profile, summary_target_ratio=0.1)
    compressor = ContextCompressor(config, summarizer=summarizer, wall_clock=lambda: NOW)
    return compressor.compress(long_agent_run(20, size=3000), force=True)


@pytest.mark.parametrize("profile", ["v0.15.1", "v0.17.0", "v0.18.0"])
def test_a_summarizer_that_reads_the_turns_gets_no_prompt_and_the_call_builds_it_when_read(profile: str) -> None:
    offline = CapturingExtractive()
    result = _compress(offline, profile)
    assert result.outcome == "summarized"
    (request,) = offline.requests
    assert request.prompt == request.serialized_turns == ""
    assert request.turns
    call = result.summarizer_call
    # Nothing has read them: neither the prompt nor the turns block it embeds is built.
    assert "prompt" not in vars(call)
    assert "serialized_turns" not in vars(call.plan)

    plain = PlainCallable()
    plain_result = _compress(plain, profile)
    (sent,) = plain.prompts
    # Read afterwards, the call's prompt is the very text a plain summarizer is sent.
    assert call.prompt == sent == plain_result.summarizer_call.prompt
    assert call.serialized_turns in call.prompt
    if profile != "v0.15.1":  # v0.17.0 anchors the prompt in the session's date
        assert "2026-07-01" in call.prompt


def test_a_request_hook_that_does_not_opt_out_receives_the_whole_prompt() -> None:
    hook = PromptReadingHook()
    result = _compress(hook, "v0.18.0")
    (request,) = hook.requests
    assert request.prompt and request.prompt == result.summarizer_call.prompt
    assert request.serialized_turns and request.serialized_turns == result.summarizer_call.serialized_turns
    assert request.serialized_turns in request.prompt


def test_an_unreadable_clock_leaves_the_date_out_of_the_lazily_built_prompt() -> None:
    def broken_clock() -> datetime.datetime:
        raise OSError("no clock")

    config = CompressorConfig(context_length=64_000, profile="v0.18.0", summary_target_ratio=0.1)
    plain = PlainCallable()
    ContextCompressor(config, summarizer=plain, wall_clock=broken_clock).compress(long_agent_run(20, size=3000),
                                                                                   force=True)
    offline = CapturingExtractive()
    result = ContextCompressor(config, summarizer=offline, wall_clock=broken_clock).compress(
        long_agent_run(20, size=3000), force=True)
    call = result.summarizer_call
    assert call.anchoring_date is None
    assert call.prompt == plain.prompts[0]
