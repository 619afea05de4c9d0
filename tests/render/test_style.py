"""The dashboard's one chart style, applied as one merged layout: the figure Plotly's own update
methods give (``update_layout``, then ``update_xaxes`` and ``update_yaxes`` over every axis)."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from core.render import charts


def _with_plotlys_updates(fig: go.Figure, **options: object) -> go.Figure:
    """The style as Plotly's update methods make it, key by key."""
    fig.update_layout(charts.style_layout(**options))  # type: ignore[arg-type]
    fig.update_xaxes(charts.STYLE_XAXES)
    fig.update_yaxes(charts.STYLE_YAXES)
    return fig


def _set(value: object) -> object:
    """``value`` without emptied properties: Plotly's update writes an unset object as {}, where the
    merged layout leaves it out (the same figure drawn)."""
    if isinstance(value, dict):
        return {key: _set(item) for key, item in value.items() if item != {}}
    if isinstance(value, list):
        return [_set(item) for item in value]
    return value


def _bars() -> go.Figure:
    fig = go.Figure(go.Bar(x=["head", "middle", "tail"], y=[1_200, 48_000, 9_000], name="tokens"))
    fig.update_layout(barmode="stack", legend={"traceorder": "reversed"}, title={"text": "set before"})
    fig.update_xaxes(title_text="zone", showgrid=True)
    return fig


def _subplots() -> go.Figure:
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True)
    fig.add_trace(go.Scatter(x=[1, 2, 3], y=[4, 5, 6], name="before"), row=1, col=1)
    fig.add_trace(go.Scatter(x=[1, 2, 3], y=[6, 5, 4], name="after"), row=2, col=1)
    fig.update_yaxes(title_text="tokens", row=2, col=1)
    return fig


def _empty() -> go.Figure:
    return go.Figure()


@pytest.mark.parametrize("make", [_bars, _subplots, _empty], ids=["bars", "subplots", "empty"])
@pytest.mark.parametrize("options", [
    {"height": 300},
    {"height": 480, "title": "Tokens by zone", "legend": "top", "legend_title": "zone"},
    {"height": 220, "legend": None},
    {"height": 640, "title": "x", "legend": "bottom", "legend_title": None},
], ids=["plain", "titled-top", "no-legend", "titled-bottom"])
def test_the_style_is_the_layout_plotlys_updates_make(make, options) -> None:
    ours = charts.style(make(), **options).to_dict()
    plotlys = _with_plotlys_updates(make(), **options).to_dict()
    assert _set(ours) == _set(plotlys)
    assert ours["layout"]["template"], "the theme's template went missing"


def test_the_style_keeps_a_template_of_the_callers_own() -> None:
    fig = _bars()
    fig.update_layout(template="plotly_dark")
    ours = charts.style(fig, height=300).to_dict()["layout"]
    assert ours["template"] == go.Figure(layout={"template": "plotly_dark"}).to_dict()["layout"]["template"]


def test_merging_never_changes_the_shared_font() -> None:
    before = dict(charts._FONT)
    fig = charts.style(_bars(), height=300)
    fig.layout.font.size = 40
    assert charts._FONT == before
