"""The analyses give the same results with a reused Phase-1 plan as without one."""

from __future__ import annotations

import copy
import dataclasses
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from core import CompressorConfig, ContextCompressor
from core.formats import load
from core.plan import estimator_key, plan, prepare, usable_prune_plan
from core.tokens import get_counter
from core.views.savings import phase_savings
from core.views.sweep import prepare_sweep, sweep
from core.views.zones import analyze_zones
from dashboard.memo import Transcript
from tests.helpers import long_agent_run

SAMPLES = Path(__file__).resolve().parents[2] / "sample_conversations"
CONVERSATIONS = {
    "agent run": long_agent_run(30, size=2_500),
    **{
        name: load(SAMPLES / name).messages
        for name in ("long_coding_session.json", "screenshot_layout_bug.json", "resumed_with_handoff_summary.json")
    },
}
SLIDER_MOVES = [
    {},
    {"threshold_percent": 0.6, "summary_target_ratio": 0.3},
    {"protect_last_n": 4},
    {"protect_last_n": 60, "summary_target_ratio": 0.05},
    {"protect_first_n": 0, "context_length": 32_000},
    {"context_length": 16_000, "threshold_percent": 0.3, "summary_target_ratio": 0.8},
    {"protect_last_n": 0, "context_length": 1_000_000},
    {"protect_first_n": 200},
]


def _zones_fields(zones: Any) -> dict[str, Any]:
    # The table is compared as a frame; its columns (until it is built) are not compared fields.
    fields = {f.name: getattr(zones, f.name) for f in dataclasses.fields(zones) if f.compare}
    return fields


def _plan_fields(decided: Any) -> dict[str, Any]:
    fields = {f.name: getattr(decided, f.name) for f in dataclasses.fields(decided) if f.name != "prune_plan"}
    return {**fields, "serialized_turns": decided.serialized_turns, "prompt": decided.prompt()}


def _instant(prompt: str, max_tokens: int) -> str:
    return "## Active Task\nNone."


@pytest.mark.parametrize("estimator", ["hermes", "tiktoken"])
@pytest.mark.parametrize("name", list(CONVERSATIONS))
def test_every_analysis_is_the_same_with_a_reused_plan(name, estimator):
    messages = CONVERSATIONS[name]
    snapshot = copy.deepcopy(messages)
    counter = get_counter("o200k_base")
    exact = [counter.count_message(m) for m in messages]
    configs = [CompressorConfig(token_estimator=estimator, model="gpt-4o", **move) for move in SLIDER_MOVES]
    random.Random(name + estimator).shuffle(configs)
    kept = prepare(messages, configs[0])
    built = copy.deepcopy(kept.pass_lists(len(messages)))
    for config in configs:
        with_plan = analyze_zones(messages, config, exact, counter.count_message, plan=kept)
        without = analyze_zones(messages, config, exact, counter.count_message)
        assert _zones_fields(with_plan) == _zones_fields(without)
        pd.testing.assert_frame_equal(with_plan.table, without.table)

        result = ContextCompressor(config, summarizer=_instant).compress(messages)
        for given in (None, result):
            a = phase_savings(messages, config, counter, given, plan=kept)
            b = phase_savings(messages, config, counter, given)
            assert a.steps == b.steps
            assert (a.outcome, a.prune_boundary, a.phase1_actions, a.reassembly_matches) == (
                b.outcome, b.prune_boundary, b.phase1_actions, b.reassembly_matches)
            assert (a.original, a.after_phase1, a.final) == (b.original, b.after_phase1, b.final)

        assert _plan_fields(plan(messages, config, prune_plan=kept)) == _plan_fields(plan(messages, config))

    base_with = prepare_sweep(messages, estimator, "gpt-4o", plan=kept)
    base_without = prepare_sweep(messages, estimator, "gpt-4o")
    assert base_with == base_without
    pd.testing.assert_frame_equal(sweep(base_with, configs[0]), sweep(base_without, configs[0]))
    # Neither the caller's messages nor the plan's own message dicts were changed by any analysis.
    assert messages == snapshot
    assert kept.pass_lists(len(messages)) == built


def test_the_phase_savings_totals_are_the_counts_of_each_list():
    messages = CONVERSATIONS["screenshot_layout_bug.json"]
    counter = get_counter("cl100k_base")
    config = CompressorConfig(context_length=16_000, protect_last_n=2)
    result = ContextCompressor(config, summarizer=_instant).compress(messages)
    savings = phase_savings(messages, config, counter, result)
    from core.tokens import estimate_messages_tokens_rough

    assert savings.steps[0].exact_tokens == counter.count_messages(messages)
    assert savings.steps[0].hermes_tokens == estimate_messages_tokens_rough(messages)
    assert savings.steps[-1].exact_tokens == counter.count_messages(savings.final)
    assert savings.steps[-1].hermes_tokens == estimate_messages_tokens_rough(savings.final)
    assert savings.step("tool_images").hermes_tokens == estimate_messages_tokens_rough(savings.after_phase1)


def test_a_transcript_keeps_one_plan_per_estimator():
    messages = CONVERSATIONS["agent run"]
    transcript = Transcript(key="k", filename="f.json", conversation=None, messages=messages)
    hermes = transcript.prune_plan(CompressorConfig())
    assert transcript.prune_plan(CompressorConfig(threshold_percent=0.7, model="gpt-4o")) is hermes
    exact = transcript.prune_plan(CompressorConfig(token_estimator="tiktoken", model="gpt-4o"))
    assert exact is not hermes
    assert exact.key[:2] == estimator_key("tiktoken", "gpt-4o") == ("tiktoken", "o200k_base")
    assert transcript.prune_plan(CompressorConfig(token_estimator="tiktoken", model="gpt-4o-mini")) is exact
    assert transcript.prune_plan(CompressorConfig(token_estimator="tiktoken", model="gpt-4")) is not exact


def test_a_plan_of_other_messages_or_another_estimator_is_refused():
    messages = CONVERSATIONS["agent run"]
    config = CompressorConfig()
    kept = prepare(messages, config)
    assert usable_prune_plan(kept, list(messages), config) is kept
    with pytest.raises(ValueError, match="estimator|weighs"):
        analyze_zones(messages, CompressorConfig(token_estimator="tiktoken"), plan=kept)
    with pytest.raises(ValueError, match="other messages"):
        analyze_zones(copy.deepcopy(messages), config, plan=kept)
    with pytest.raises(ValueError):
        prepare_sweep(messages, "tiktoken", plan=kept)
