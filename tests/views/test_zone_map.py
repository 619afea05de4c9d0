"""The zone map: a valid figure whose bars and lines carry the zones table, one bar per message, or
per bin of consecutive messages of one zone on long conversations."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

import core.render.charts as charts
from core import CompressorConfig
from core.plan import prepare
from core.views.zones import ZONE_NAMES, analyze_zones
from tests.helpers import long_agent_run


def _zones(rounds: int, **config):
    messages = long_agent_run(rounds, size=1_500)
    settings = CompressorConfig(context_length=64_000, protect_last_n=6, **config)
    return analyze_zones(messages, settings, plan=prepare(messages, settings))


def _bars(figure: go.Figure, name: str | None = None) -> list:
    return [t for t in figure.data if t.type == "bar" and (name is None or t.name == name)]


def _heights(traces) -> dict[int, float]:
    """First message of each bar (customdata[0]) -> its height."""
    out: dict[int, float] = {}
    for trace in traces:
        for custom, height in zip(trace.customdata, trace.y, strict=True):
            out[int(custom[0])] = height
    return out


@pytest.mark.parametrize("rounds", [3, 40, 1_200])
def test_the_figure_is_valid_plotly(rounds):
    figure = charts.zone_map_figure(_zones(rounds))
    go.Figure(figure.to_dict())  # validates every property the unvalidated build wrote


def test_one_bar_per_message_carries_the_table():
    zones = _zones(40)
    figure = charts.zone_map_figure(zones)
    table = zones.table
    kept = [t for t in _bars(figure) if t.name in ZONE_NAMES]
    for trace in kept:  # every bar of a zone's trace is a message of that zone, at its index
        assert {table["zone"].iloc[int(x)] for x in trace.x} == {trace.name}
        assert [int(c[0]) for c in trace.customdata] == [int(x) for x in trace.x]
    heights = _heights(kept)
    assert sorted(heights) == list(range(zones.n_messages))
    assert [heights[i] for i in range(zones.n_messages)] == table["after_phase1"].tolist()
    cut = _heights(_bars(figure, "cut by Phase 1"))
    expected = {i: a - b for i, (a, b) in enumerate(zip(table["tokens"], table["after_phase1"], strict=True)) if a > b}
    assert expected and cut == expected
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
    bins = charts.zone_map_bins(zones)
    assert len(bins) < n
    kept = [t for t in _bars(figure) if t.name in ZONE_NAMES]
    heights = _heights(kept)
    assert sorted(heights) == bins.tolist()
    summed = np.add.reduceat(zones.table["after_phase1"].to_numpy(), bins)
    assert [heights[start] for start in bins.tolist()] == summed.tolist()
    whole = np.add.reduceat(zones.table["tokens"].to_numpy(), bins)
    cut = _heights(_bars(figure, "cut by Phase 1"))
    assert all(cut[start] == whole[k] - summed[k] for k, start in enumerate(bins.tolist()) if start in cut)
    prompt = next(t for t in figure.data if t.name == "prompt so far")
    assert prompt.y[-1] == zones.table["prompt_so_far"].iloc[-1] and len(prompt.y) < n
    assert "per bin of" in figure.layout.yaxis.title.text


def test_the_zone_table_is_built_once_on_first_read_by_any_number_of_threads():
    from concurrent.futures import ThreadPoolExecutor

    zones = _zones(40)
    assert zones.table_columns and zones._table is None  # nothing built until a view reads it
    with ThreadPoolExecutor(max_workers=8) as pool:
        tables = list(pool.map(lambda _: zones.table, range(32)))
    assert all(table is tables[0] for table in tables)
    table = tables[0]
    assert len(table) == zones.n_messages and list(table["zone"]) == zones.zones
    assert list(table.columns) == ["index", "role", "zone", "tokens", "after_phase1", "budget_tokens",
                                   "prompt_so_far", "tail_walk", "prune_protected", "phase1"]
    assert zones.table_columns == {}  # the frame holds the only copy
    assert zones.explanations[1].startswith("HEAD: the system prompt")  # read without the table
