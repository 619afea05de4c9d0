"""The Live page's pictures, drawn from real measurements of the sample logs."""

from __future__ import annotations

import re
from pathlib import Path

from core.config import CompressorConfig
from core.formats import load
from core.live.status import measure
from core.render.live import NEAR_SHARE, gauge_color, gauge_html, growth_figure, zones_html
from core.render.palette import THRESHOLD_COLOR, ZONE_COLORS

SAMPLES = Path(__file__).resolve().parents[2] / "sample_conversations"


def _widths(html: str) -> list[float]:
    return [float(width) for width in re.findall(r"width:([\d.]+)%; background", html)]


def test_the_gauge_places_the_trigger_against_the_threshold_and_the_window() -> None:
    m = measure(load(SAMPLES / "codex_rollout.jsonl"), CompressorConfig(context_length=20_000))
    html = gauge_html(m)
    assert f"threshold {m.threshold_tokens:,}" in html and f"window {m.context_length:,}" in html
    assert f"last recorded prompt {m.trigger_tokens:,}" in html  # the Codex log records its prompt sizes
    # The bar's share of the width is the trigger's share of the window (the scale ends at the window).
    (width,) = _widths(html)
    assert abs(width - m.trigger_tokens / m.context_length * 100) < 0.01
    assert gauge_color(m.share_of_threshold) in html


def test_the_gauge_turns_from_calm_to_near_to_past() -> None:
    assert gauge_color(NEAR_SHARE - 0.01) == ZONE_COLORS["TAIL"]
    assert gauge_color(NEAR_SHARE) == ZONE_COLORS["MIDDLE"]
    assert gauge_color(1.0) == THRESHOLD_COLOR


def test_the_zones_bar_counts_the_plan_s_messages() -> None:
    # A log the agent never compacted (the Codex sample's live context is too small to have a middle).
    conversation = load(SAMPLES / "long_coding_session.json")
    m = measure(conversation, CompressorConfig())
    zones = m.zones
    assert zones is not None and zones.middle > 0
    html = zones_html(zones, m.messages)
    assert f"MIDDLE (summarised) {zones.middle:,}" in html
    widths = _widths(html)
    assert len(widths) == 3 and abs(sum(widths) - 100) < 0.01  # head + middle + tail = every message


def test_the_forecast_heads_for_the_threshold_at_the_recent_growth() -> None:
    series = [1_000 + 500 * step for step in range(10)]
    figure = growth_figure(series, threshold=20_000, turns_to_threshold=20)
    history, forecast, threshold = figure.data
    assert list(history.x) == list(range(-9, 1)) and list(history.y) == series
    # 20 requests away: within the drawn width (at least 16, at most twice the history), so reached.
    assert list(forecast.x) == [0, 20] and list(forecast.y) == [series[-1], 20_000]
    assert list(threshold.y) == [20_000, 20_000]
    far = growth_figure(series, threshold=20_000, turns_to_threshold=200)
    _history, forecast, _threshold = far.data
    # Far away: drawn towards the threshold over 20 requests, on the same slope.
    assert list(forecast.x) == [0, 20]
    assert abs(forecast.y[1] - (series[-1] + (20_000 - series[-1]) * 20 / 200)) < 1e-6
    assert "~200 requests" in forecast.name


def test_no_forecast_when_the_session_does_not_grow() -> None:
    figure = growth_figure([5_000, 5_000], threshold=20_000, turns_to_threshold=None)
    assert [trace.name for trace in figure.data] == ["request size (tokens)", "threshold 20,000"]
