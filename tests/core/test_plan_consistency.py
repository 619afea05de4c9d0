"""Every view reads the one plan: for random conversations and settings, in every profile, the
analyses' boundaries and token figures are the plan's and ``compress()``'s."""

from __future__ import annotations

import datetime
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import CompressorConfig, ContextCompressor, plan, prepare
from core.profiles import PROFILES
from core.summarizers.base import SummaryRequest
from core.tokens import get_counter
from core.views.redaction import redaction_view
from core.views.releases import compare_releases
from core.views.savings import phase_savings
from core.views.sweep import prepare_sweep, sweep_cell
from core.views.zones import analyze_zones

from .test_properties import conversations

EXAMPLES = max(60, int(os.environ.get("CONTEXT_LENS_FUZZ_EXAMPLES", "300")) // 3)
NOW = datetime.datetime(2026, 7, 1, 9, 30, tzinfo=datetime.UTC)


class BudgetSized:
    """A summary exactly as long as the budget it is asked for (what the sweep assumes)."""

    def summarize_request(self, request: SummaryRequest) -> str:
        return "x" * (4 * request.summary_budget)

    def __call__(self, prompt: str, max_tokens: int) -> str:  # pragma: no cover - the request path is used
        raise AssertionError("the request path is used")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=conversations(), data=st.data(), profile=st.sampled_from(list(PROFILES)))
def test_every_analysis_reads_the_plan(messages, data, profile):
    config = CompressorConfig(
        context_length=data.draw(st.sampled_from([8_000, 64_000, 128_000])),
        threshold_percent=data.draw(st.sampled_from([0.3, 0.5, 0.9])),
        protect_first_n=data.draw(st.integers(0, 4)),
        protect_last_n=data.draw(st.integers(0, 25)),
        summary_target_ratio=data.draw(st.sampled_from([0.1, 0.2, 0.5])),
        max_tokens=data.draw(st.sampled_from([None, 4_096])),
        profile=profile,
    )
    prune_plan = prepare(messages, config)
    decided = plan(messages, config, prune_plan=prune_plan)
    result = ContextCompressor(config, summarizer=BudgetSized(), wall_clock=lambda: NOW).compress(
        messages, prune_plan=prune_plan)
    bounds = (decided.compress_start, decided.compress_end, decided.prune_boundary)
    assert (result.plan.compress_start, result.plan.compress_end, result.plan.prune_boundary) == bounds
    assert result.outcome == {"too_small": "too_small", "nothing_to_compress": "nothing_to_compress"}.get(
        decided.outcome, "summarized")

    zones = analyze_zones(messages, config, plan=prune_plan)
    assert (zones.compress_start, zones.compress_end, zones.prune_boundary) == bounds
    assert zones.small_conversation == (decided.outcome == "too_small")
    assert zones.tail_cut == decided.tail_cut
    if not zones.small_conversation:
        assert zones.zones.count("HEAD") == min(decided.compress_start, len(messages))

    cell = sweep_cell(prepare_sweep(messages, plan=prune_plan), config, respect_trigger=False)
    if decided.outcome != "too_small":
        assert (cell["compress_start"], cell["compress_end"], cell["prune_boundary"]) == bounds
    if result.compressed:
        assert cell["final_tokens"] == result.assembly.tokens_after
        assert cell["messages_after"] == len(result.messages)
        assert cell["summary_budget"] == decided.summary_budget

    counter = get_counter("cl100k_base")
    savings = phase_savings(messages, config, counter, result, plan=prune_plan)
    assert savings.prune_boundary == (None if decided.outcome == "too_small" else decided.prune_boundary)
    assert savings.final == result.messages
    assert savings.steps[-1].exact_tokens == counter.count_messages(result.messages)

    view = redaction_view(messages, config, decided=decided)
    if result.summarizer_call is not None:
        assert view.text == result.summarizer_call.serialized_turns
        assert decided.summary_request(result.summarizer_call.anchoring_date).prompt == result.summarizer_call.prompt
    else:
        assert view.text == ""

    own = compare_releases(messages, config, BudgetSized, releases=[profile], force=False, now=NOW).run(profile)
    assert own.result.messages == result.messages
