"""Threshold, anti-thrashing, usage tracking and budgets (spec §1, §6.2, delta §5)."""

from __future__ import annotations

import pytest

from core import CompressorConfig, ContextCompressor
from tests.helpers import failing, long_agent_run

V16 = "v0.16.0"  # these behaviours are the v0.15.1/v0.16.0 rules (later releases have their own tests)


@pytest.mark.parametrize(
    ("context", "threshold", "tail", "max_summary"),
    [
        (64_000, 64_000, 12_800, 3_200),
        (100_000, 64_000, 12_800, 5_000),
        (128_000, 64_000, 12_800, 6_400),
        (200_000, 100_000, 20_000, 10_000),
        (256_000, 128_000, 25_600, 12_000),
        (1_000_000, 500_000, 100_000, 12_000),
    ],
)
def test_worked_values_table(context, threshold, tail, max_summary):
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=context))
    assert (comp.threshold_tokens, comp.tail_token_budget, comp.max_summary_tokens) == (threshold, tail, max_summary)


def test_context_below_floor_still_gets_64k_threshold():
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=8_000))
    assert comp.threshold_tokens == 64_000


@pytest.mark.parametrize(("given", "used"), [(0.05, 0.10), (0.95, 0.80), (0.4, 0.4)])
def test_ratio_is_clamped(given, used):
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=200_000, summary_target_ratio=given))
    assert comp.summary_target_ratio == used
    assert comp.tail_token_budget == int(100_000 * used)


def test_budgets_use_float_truncation():
    cfg = CompressorConfig(profile=V16, context_length=333_333, threshold_percent=0.57, summary_target_ratio=0.33)
    comp = ContextCompressor(cfg)
    assert comp.threshold_tokens == max(int(333_333 * 0.57), 64_000)
    assert comp.tail_token_budget == int(comp.threshold_tokens * 0.33)


def test_should_compress_thresholds():
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=100_000, threshold_percent=0.85))
    assert comp.threshold_tokens == 85_000
    assert not comp.should_compress(50_000)
    assert comp.should_compress(90_000)
    assert comp.should_compress(85_000)
    comp.update_from_response({"prompt_tokens": 90_000})
    assert comp.should_compress()
    assert not comp.should_compress(0)


def test_update_from_response_fields_and_defaults():
    comp = ContextCompressor(CompressorConfig(profile=V16))
    comp.update_from_response({"prompt_tokens": 10, "completion_tokens": 5})
    assert (comp.last_prompt_tokens, comp.last_completion_tokens, comp.last_total_tokens) == (10, 5, 15)
    comp.update_from_response({})
    assert (comp.last_prompt_tokens, comp.last_completion_tokens, comp.last_total_tokens) == (0, 0, 0)
    comp.update_from_response({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 100})
    assert comp.last_total_tokens == 100


def test_update_model_recomputes_budgets():
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=100_000))
    comp.update_model("other", context_length=200_000)
    assert (comp.threshold_tokens, comp.tail_token_budget, comp.max_summary_tokens) == (100_000, 20_000, 10_000)
    comp.update_model(context_length=10_000)
    assert comp.max_summary_tokens == 500 and comp.threshold_tokens == 64_000


def test_anti_thrashing_after_two_ineffective_compressions():
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=100_000), summarizer=failing(RuntimeError()))
    messages = long_agent_run()
    # Reporting a tiny prompt size makes every compression look ineffective (< 10 % saved).
    comp.compress(messages, current_tokens=1)
    assert comp.should_compress(200_000)
    comp.compress(messages, current_tokens=1, force=True)
    assert comp._ineffective_compression_count == 2
    assert not comp.should_compress(200_000)
    comp.compress(messages, current_tokens=10_000_000, force=True)
    assert comp._ineffective_compression_count == 0
    assert comp.should_compress(200_000)


def test_session_reset_clears_counters():
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=100_000), summarizer=failing(RuntimeError()))
    comp.update_from_response({"prompt_tokens": 5, "completion_tokens": 1})
    comp.compress(long_agent_run(), current_tokens=1)
    assert comp.compression_count == 1 and comp._summary_failure_cooldown_until > 0
    comp.on_session_reset()
    assert comp.compression_count == 0
    assert comp.last_prompt_tokens == 0 and comp.last_total_tokens == 0
    assert comp._summary_failure_cooldown_until == 0
    assert comp._ineffective_compression_count == 0
    assert comp.previous_summary is None


def test_preflight_deferral_v0_16_0():
    comp = ContextCompressor(CompressorConfig(profile=V16, context_length=100_000, threshold_percent=0.85))
    assert not comp.should_defer_preflight_to_real_usage(93_000)  # no real usage yet
    comp.last_compression_rough_tokens = 90_000
    comp.awaiting_real_usage_after_compression = True
    comp.update_from_response({"prompt_tokens": 60_000})
    assert comp.last_rough_tokens_when_real_prompt_fit == 90_000
    assert not comp.awaiting_real_usage_after_compression
    assert comp.should_defer_preflight_to_real_usage(93_000)
    assert not comp.should_defer_preflight_to_real_usage(100_000)


def test_unknown_profile_and_estimator_are_rejected():
    with pytest.raises(ValueError, match="profile"):
        CompressorConfig(profile="v9")
    with pytest.raises(ValueError, match="token_estimator"):
        CompressorConfig(profile=V16, token_estimator="words")


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("YES", True), ("1", True), ("no", False), (True, True)])
def test_abort_flag_string_coercion(value, expected):
    assert CompressorConfig(profile=V16, abort_on_summary_failure=value).abort_on_summary_failure is expected


def test_config_from_settings_takes_every_field_of_the_same_name():
    from dataclasses import fields

    from core.batch import AnalysisSettings
    from dashboard.memo import Settings

    dashboard = Settings(context_length=200_000, threshold_percent=0.7, protect_first_n=1, protect_last_n=9,
                         summary_target_ratio=0.3, profile="v0.15.1", token_estimator="tiktoken", model="gpt-4o",
                         abort_on_summary_failure=True)
    config = dashboard.config()
    assert config == CompressorConfig(200_000, 0.7, 1, 9, 0.3, True, "v0.15.1", "tiktoken", "gpt-4o")
    assert config.strict_redaction is False  # the dashboard's settings have no such field: the default
    batch = AnalysisSettings(context_length=64_000, strict_redaction=True, summarizer="llm", summary_model="x")
    assert batch.config() == CompressorConfig(context_length=64_000, strict_redaction=True)
    # Every compressor field is one of the batch's settings, so nothing is silently left at a default.
    assert {f.name for f in fields(CompressorConfig)} <= set(AnalysisSettings.__dataclass_fields__)
