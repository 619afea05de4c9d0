"""Summary failures: cooldowns, fallbacks, abort, force, summary-model fallback (spec §4.8, §6.3-6.6)."""

from __future__ import annotations

import copy
import json

import pytest

from core import CompressorConfig, ContextCompressor
from core.profiles import SUMMARY_PREFIX_V0_15_1
from tests.helpers import Clock, Recorder, failing, long_agent_run

V16 = "v0.16.0"  # these behaviours are the v0.15.1/v0.16.0 rules (later releases have their own tests)


class ConnectionResetByPeer(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "cooldown", "reason"),
    [
        (RuntimeError("no key"), 600, "no auxiliary LLM provider configured"),
        (NotImplementedError("subclass of RuntimeError"), 600, "no auxiliary LLM provider configured"),
        (json.JSONDecodeError("Expecting value", "", 0), 30, "Expecting value: line 1 column 1 (char 0)"),
        (ValueError("upstream said: Expecting value at byte 0"), 30, "upstream said: Expecting value at byte 0"),
        (OSError("peer closed connection without sending complete message body"), 30, None),
        (ConnectionResetByPeer("x"), 30, "x"),
        (ValueError("HTTP 400 bad request"), 60, "HTTP 400 bad request"),
        (ValueError(""), 60, "ValueError"),
    ],
)
def test_failure_classes_set_cooldown_and_reason(exc, cooldown, reason):
    clock = Clock(1000.0)
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=failing(exc), clock=clock)
    res = comp.compress(long_agent_run())
    assert comp._summary_failure_cooldown_until == 1000.0 + cooldown
    assert res.outcome == "fallback" and res.assembly.fallback_used
    if reason is not None:
        assert comp._last_summary_error == reason == res.failure_reason
    assert comp.compression_count == 1


def test_long_error_text_is_cut_to_220():
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=failing(ValueError("e " * 300)))
    comp.compress(long_agent_run())
    assert len(comp._last_summary_error) <= 220 and comp._last_summary_error.endswith("...")


def test_cooldown_skips_the_call_and_reason_stays_none():
    clock = Clock(1000.0)
    recorder = Recorder()
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=failing(RuntimeError()), clock=clock)
    comp.compress(long_agent_run())
    comp.summarizer = recorder
    clock.now = 1500.0
    res = comp.compress(long_agent_run())
    assert recorder.calls == [] and res.cooldown_skipped and res.summarizer_calls == []
    assert comp._last_summary_error is None and res.outcome == "fallback"
    assert "Summary failure reason" not in res.assembly.summary_text
    clock.now = 1601.0
    assert comp.compress(long_agent_run()).outcome == "summarized"
    assert comp._summary_failure_cooldown_until == 0


def test_force_clears_the_cooldown():
    clock = Clock(1000.0)
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=failing(RuntimeError()), clock=clock)
    comp.compress(long_agent_run())
    recorder = Recorder()
    comp.summarizer = recorder
    res = comp.compress(long_agent_run(), force=True)
    assert len(recorder.calls) == 1 and res.outcome == "summarized"


def test_no_summarizer_means_no_provider():
    comp = ContextCompressor(CompressorConfig(profile="v0.15.1"), summarizer=None, clock=Clock(0.0))
    messages = long_agent_run()
    res = comp.compress(messages)
    assert comp._summary_failure_cooldown_until == 600
    n_dropped = res.plan.compress_end - res.plan.compress_start
    assert res.assembly.summary_text == (
        f"{SUMMARY_PREFIX_V0_15_1}\nSummary generation was unavailable. {n_dropped} message(s) were removed to free "
        "context space but could not be summarized. The removed messages contained earlier work in this session. "
        "Continue based on the recent messages below and the current state of any files or resources."
    )
    assert len(res.messages) < len(messages)
    assert res.messages[0]["role"] == "system"


def test_abort_mode_preserves_everything_and_does_not_count():
    messages = long_agent_run()
    snapshot = copy.deepcopy(messages)
    comp = ContextCompressor(CompressorConfig(profile=V16, abort_on_summary_failure=True), summarizer=failing(ValueError("boom")))
    res = comp.compress(messages)
    assert res.outcome == "aborted" and res.aborted
    assert comp._last_compress_aborted and comp.compression_count == 0
    assert len(res.messages) == len(messages)
    assert messages == snapshot
    comp.summarizer = Recorder()
    res2 = comp.compress(messages, force=True)
    assert res2.outcome == "summarized" and not comp._last_compress_aborted


def test_v0_16_0_fallback_never_sets_previous_summary():
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=failing(RuntimeError()))
    res = comp.compress(long_agent_run())
    assert comp.previous_summary is None
    assert "best-effort deterministic fallback" in res.assembly.summary_text
    assert "removed to free context space" not in res.assembly.summary_text


class TwoModelSummarizer:
    """A summarizer with a separate summary model, using the compressor's fallback hooks."""

    def __init__(self, fail_with: BaseException | None, main_fails: BaseException | None = None) -> None:
        self.summary_model = "aux-model"
        self.main_model = "main-model"
        self.fail_with = fail_with
        self.main_fails = main_fails
        self.models_called: list[str] = []

    def can_fall_back_to_main(self) -> bool:
        return bool(self.summary_model) and self.summary_model != self.main_model

    def fall_back_to_main(self) -> None:
        self.summary_model = ""

    def __call__(self, prompt: str, max_tokens: int) -> str:
        model = self.summary_model or self.main_model
        self.models_called.append(model)
        if model == "aux-model" and self.fail_with:
            raise self.fail_with
        if model == "main-model" and self.main_fails:
            raise self.main_fails
        return f"written by {model}"


def test_summary_model_failure_falls_back_to_main_once():
    summarizer = TwoModelSummarizer(ValueError("404 model_not_found"))
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=summarizer)
    res = comp.compress(long_agent_run())
    assert summarizer.models_called == ["aux-model", "main-model"]
    assert res.outcome == "summarized" and comp.previous_summary == "written by main-model"
    assert res.aux_model_failure == "404 model_not_found" and res.aux_model_failure_model == "aux-model"
    assert len(res.summarizer_calls) == 2
    assert res.summarizer_calls[0].serialized_turns == res.summarizer_calls[1].serialized_turns
    assert res.summarizer_calls[0].max_tokens == res.summarizer_calls[1].max_tokens
    res2 = comp.compress(long_agent_run())
    assert res2.aux_model_failure is None  # cleared at the start of the next call


def test_no_retry_on_main_for_runtime_error_and_only_once():
    summarizer = TwoModelSummarizer(RuntimeError("no provider"))
    comp = ContextCompressor(CompressorConfig(profile=V16), summarizer=summarizer)
    comp.compress(long_agent_run())
    assert summarizer.models_called == ["aux-model"]
    summarizer2 = TwoModelSummarizer(ValueError("bad"), main_fails=ValueError("also bad"))
    comp2 = ContextCompressor(CompressorConfig(profile=V16), summarizer=summarizer2, clock=Clock(1000.0))
    res = comp2.compress(long_agent_run())
    assert summarizer2.models_called == ["aux-model", "main-model"]
    assert res.outcome == "fallback" and comp2._summary_failure_cooldown_until == 1060.0
