"""What-ifs for short sessions: the no-floor threshold leaves every release alone, and every piece of
trigger advice is a change of the controls that really makes the prompt reach the threshold."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from core import CompressorConfig
from core.inspections.what_if import THRESHOLD_STEPS, WINDOW_SCALES, trigger_options, what_if_words
from core.phases.trigger import THRESHOLD_RULES
from core.profiles import PROFILES
from core.views.sweep import sweep, uniform_cells
from dashboard.memo import Settings
from tests.helpers import asst, call, tool, user
from tests.helpers import sys as system


@pytest.mark.parametrize("profile", list(PROFILES))
def test_the_releases_thresholds_do_not_change(profile):
    for window, reserve in ((128_000, None), (128_000, 16_384), (32_000, 8_192), (200_000, 64_000)):
        config = CompressorConfig(context_length=window, profile=profile, max_tokens=reserve)
        rule = THRESHOLD_RULES[PROFILES[profile].threshold_rule]
        assert config.what_if_no_floor is False
        assert config.threshold_tokens == rule(window, 0.5, reserve)


def test_dropping_the_floor_keeps_only_the_percentage():
    assert CompressorConfig(profile="v0.17.0", what_if_no_floor=True, threshold_percent=0.05).threshold_tokens == 6_400
    # From v0.18.0 the percentage is of the window left after the output reserve: 0.05 x 111,616.
    assert CompressorConfig(max_tokens=16_384, what_if_no_floor=True, threshold_percent=0.05).threshold_tokens == 5_580
    assert CompressorConfig(what_if_no_floor="true").what_if_no_floor is True


def test_settings_scale_the_window_for_the_analyses_only():
    settings = Settings(context_length=128_000, window_scale=0.09, max_tokens=16_384)
    config = settings.config()
    assert (settings.context_length, settings.window, config.context_length) == (128_000, 11_520, 11_520)
    assert config.threshold_tokens == 9_792  # the reserve leaves nothing, so v0.18.0 takes 85 % of 11,520
    assert settings.what_if and not Settings().what_if
    assert what_if_words(0.09, True, 128_000, 11_520) == (
        "What-if: the window scaled to 9 %, 128,000 → 11,520 tokens; the 64K floor dropped (not what Hermes does).")
    assert what_if_words(1.0, False, 128_000, 128_000) is None


def _applied(config: CompressorConfig, window: int, scale: float, changes: dict) -> CompressorConfig:
    scale = changes.get("window_scale", scale)
    fields = {k: v for k, v in changes.items() if k in ("threshold_percent", "what_if_no_floor", "profile")}
    return dataclasses.replace(config, context_length=round(window * scale), **fields)


@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize("peak", [2_500, 10_000, 40_000, 60_000])
def test_every_option_makes_the_peak_reach_the_threshold(profile, peak):
    config = CompressorConfig(profile=profile, max_tokens=16_384)
    options = trigger_options(peak, config, 128_000)
    assert options, "a short session always has a way to compress"
    for option in options:
        changed = _applied(config, 128_000, 1.0, option.changes)
        assert changed.threshold_tokens == option.threshold_tokens <= peak
        assert option.hermes is not changed.what_if_no_floor
        assert set(option.changes) <= {"threshold_percent", "window_scale", "what_if_no_floor", "profile"}
        assert option.changes.get("threshold_percent", 0.05) in THRESHOLD_STEPS
        assert option.changes.get("window_scale", 1.0) in WINDOW_SCALES


def test_a_10k_session_with_the_floor_is_told_what_hermes_can_do_first():
    older = trigger_options(10_000, CompressorConfig(profile="v0.17.0"), 128_000)
    # No threshold of v0.17.0 goes below 64,000: the honest way is the newest release with a small window.
    assert older[0].changes == {"profile": "v0.19.0", "window_scale": 0.09}
    assert "No threshold of v0.17.0 is below 64,000 tokens" in older[0].text and older[0].hermes
    assert not older[-1].hermes and "not what Hermes does" in older[-1].text
    assert older[-1].changes == {"what_if_no_floor": True, "threshold_percent": 0.05}
    # Where the threshold slider alone is enough, the floor is not mentioned.
    reachable = trigger_options(90_000, CompressorConfig(context_length=200_000, max_tokens=16_384,
                                                         profile="v0.18.1"), 200_000)
    assert [o.hermes for o in reachable] == [True, True]
    assert reachable[0].changes == {"threshold_percent": 0.35}
    # v0.19.0 raises any percentage below 75 % under a 512K window: the slider cannot help, a window can.
    raised = trigger_options(90_000, CompressorConfig(context_length=200_000, max_tokens=16_384), 200_000)
    assert "threshold_percent" not in raised[0].changes and raised[0].changes == {"window_scale": 0.5}
    assert raised[0].hermes and not raised[-1].hermes


def test_no_advice_when_the_threshold_is_reached_or_nothing_helps():
    assert trigger_options(96_000, CompressorConfig(), 128_000) == []  # v0.19.0: 75 % of 128,000
    assert trigger_options(0, CompressorConfig(), 128_000) == []


def test_a_sweep_of_equal_cells_says_why():
    messages = [system(), user("Fix the build.")]
    for j in range(8):
        messages += [asst(None, [call(f"c{j}", "read_file", {"path": f"m{j}.py"})]), tool(f"c{j}", "x" * 200)]
    table = sweep(messages, CompressorConfig(), protect_first_ns=(3,))
    sentence = uniform_cells(table, "final_tokens", protect_first_n=3)
    lowest = int(table["threshold_tokens"].min())
    assert sentence == (f"All {len(table)} cells give the same result ({int(table['final_tokens'].iloc[0]):,} tokens, "
                        f"0 % saved): the conversation's {int(table['tokens_before'].iloc[0]):,} tokens never reach a "
                        f"threshold of the grid (the lowest is {lowest:,}), so nothing compresses.")
    # Forced, every cell summarises, and the 2,000-token minimum summary makes them all alike too.
    forced = sweep(messages, CompressorConfig(), protect_first_ns=(3,), respect_trigger=False)
    assert uniform_cells(forced, "final_tokens", 3) == (
        f"All {len(forced)} cells give the same result ({int(forced['final_tokens'].iloc[0]):,} tokens, "
        f"{float(forced['savings_pct'].iloc[0]):.0f} % saved); outcome: summarized.")
    assert uniform_cells(pd.DataFrame({"protect_first_n": [3, 3], "final_tokens": [1, 2], "outcome": ["a", "b"]}),
                         "final_tokens", 3) is None
