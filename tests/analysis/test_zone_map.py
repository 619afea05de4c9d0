"""The zone map: a valid figure whose bars and lines carry the zones table, one bar per message or
per bin of consecutive messages of one zone on long conversations."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from core import CompressorConfig
from core.analysis import charts
from core.analysis.zones import analyze_zones
from core.plan import prepare
from tests.core.helpers import long_agent_run


def _zones(rounds: int, **config):
    messages = long_agent_run(rounds, size=1_500)
    settings = CompressorConfig(context_length=64_000, protect_last_n=6, **config)
    return analyze_zones(messages, settings, plan=prepare(messages, settings))


def _bars(figure: go.Figure) -> list:
    return [trace for trace in figure.data if trace.type == "bar"]


@pytest.mark.parametrize("rounds", [3, 40, 1_200])
def test_the_figure_is_valid_plotly(rounds):
    figure = charts.zone_map_figure(_zones(rounds))
    go.Figure(figure.to_dict())  # validates every property the unvalidated build wrote


def test_one_bar_per_message_carries_the_table():
    zones = _zones(40)
    figure = charts.zone_map_figure(zones)
    table = zones.table
    kept = [t for t in _bars(figure) if t.name != "cut by Phase 1"]
    assert sorted(int(x) for t in kept for x in t.x) == list(range(zones.n_messages))
    by_index = {int(x): int(y) for t in kept for x, y in zip(t.x, t.y, strict=True)}
    assert [by_index[i] for i in range(zones.n_messages)] == table["after_phase1"].tolist()
    for trace in kept:
        assert {table["zone"].iloc[int(x)] for x in trace.x} == {trace.name}
    cut = {int(x): int(y) for t in _bars(figure) if t.name == "cut by Phase 1" for x, y in zip(t.x, t.y, strict=True)}
    assert cut == {i: int(a - b) for i, (a, b) in enumerate(zip(table["tokens"], table["after_phase1"], strict=True))
                   if a > b}
    prompt = next(t for t in figure.data if t.name == "prompt so far")
    assert list(prompt.y) == table["prompt_so_far"].tolist()


def test_a_long_conversation_is_drawn_in_bins_of_one_zone():
    zones = _zones(1_200)  # 2,402 messages
    starts = charts.zone_map_bins(zones, max_bars=500)
    n = zones.n_messages
    assert starts[0] == 0 and list(starts) == sorted(set(starts.tolist())) and starts[-1] < n
    ends = np.append(starts[1:], n)
    assert len(starts) <= 500 + 3
    for boundary in (zones.compress_start, zones.compress_end, zones.prune_boundary):
        assert boundary in set(starts.tolist()) | {n}
    zone_of = zones.table["zone"].to_numpy()
    assert all(len(set(zone_of[a:b])) == 1 for a, b in zip(starts, ends, strict=True))

    figure = charts.zone_map_figure(zones)
    kept = [t for t in _bars(figure) if t.name != "cut by Phase 1"]
    assert sum(len(t.x) for t in kept) == len(charts.zone_map_bins(zones)) < n
    assert sum(sum(t.y) for t in kept) == zones.table["after_phase1"].sum()
    cut = sum(sum(t.y) for t in _bars(figure) if t.name == "cut by Phase 1")
    assert cut == (zones.table["tokens"] - zones.table["after_phase1"]).sum()
    prompt = next(t for t in figure.data if t.name == "prompt so far")
    assert prompt.y[-1] == zones.table["prompt_so_far"].iloc[-1] and len(prompt.y) < n
