"""The Live page's pictures: the gauge, the growth per request with its forecast, the would-be zones.

Pure functions of a live measurement's figures (``core.live.status.Measurement`` and its ``Zones``,
read by attribute): the gauge and the zones are HTML bars (``core.render.html_charts``: drawn at
once at every refresh, in any theme), the growth a Plotly figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from core.render.charts import style
from core.render.html_charts import Marker, Segment, stacked_bar
from core.render.palette import MUTED_COLOR, THRESHOLD_COLOR, ZONE_COLORS

__all__ = ["NEAR_SHARE", "gauge_color", "gauge_html", "growth_figure", "zones_html"]

#: From this share of the threshold on, the gauge turns from calm to near.
NEAR_SHARE = 0.8
_CALM, _NEAR = ZONE_COLORS["TAIL"], ZONE_COLORS["MIDDLE"]
# The forecast is drawn over at least this many requests ahead, at most twice the history shown.
FORECAST_MIN_REQUESTS = 16


def gauge_color(share: float) -> str:
    """Green below ``NEAR_SHARE`` of the threshold, orange up to it, red at or past it."""
    return THRESHOLD_COLOR if share >= 1 else _NEAR if share >= NEAR_SHARE else _CALM


def gauge_html(measurement: Any) -> str:
    """What Hermes' trigger compares (the last recorded prompt, else the whole request) in one bar
    against the threshold and the window."""
    m = measurement
    label = "last recorded prompt" if m.trigger_source == "recorded" else "whole request"
    markers = [Marker(f"threshold {m.threshold_tokens:,}", m.threshold_tokens, THRESHOLD_COLOR, dashed=True),
               Marker(f"window {m.context_length:,}", m.context_length, MUTED_COLOR)]
    segment = Segment(f"{label} {m.trigger_tokens:,}", m.trigger_tokens, gauge_color(m.share_of_threshold))
    return stacked_bar("live-gauge", [segment], markers=markers, span=m.context_length)


def zones_html(zones: Any, messages: int) -> str:
    """HEAD / MIDDLE / TAIL in messages: what Hermes would keep and summarise if it compressed now."""
    if zones is None:
        return ""
    if zones.middle:
        segments = [Segment(f"HEAD {zones.head:,}", zones.head, ZONE_COLORS["HEAD"]),
                    Segment(f"MIDDLE (summarised) {zones.middle:,}", zones.middle, ZONE_COLORS["MIDDLE"]),
                    Segment(f"TAIL {zones.tail:,}", zones.tail, ZONE_COLORS["TAIL"])]
    else:
        segments = [Segment(f"HEAD {zones.head:,}", zones.head, ZONE_COLORS["HEAD"]),
                    Segment(f"nothing to summarise {zones.tail:,}", zones.tail, ZONE_COLORS["UNCHANGED"])]
    return stacked_bar("live-zones", segments, span=messages, unit="messages")


def growth_figure(series: Sequence[int], threshold: int, turns_to_threshold: int | None,
                  *, unit: str = "tokens") -> go.Figure:
    """The trigger's size at each recent request (the last one is now, at 0) against the threshold,
    and the forecast: the recent growth carried on to the threshold."""
    fig = go.Figure()
    steps = list(range(1 - len(series), 1))
    fig.add_trace(go.Scatter(x=steps, y=list(series), mode="lines+markers", name=f"request size ({unit})",
                             line={"color": ZONE_COLORS["HEAD"], "width": 2}, marker={"size": 5},
                             hovertemplate="request %{x}: %{y:,} " + unit + "<extra></extra>"))
    right = 1
    if series and turns_to_threshold and series[-1] < threshold:
        # A far threshold is drawn towards, not reached: the recent history keeps the width.
        right = min(turns_to_threshold, max(FORECAST_MIN_REQUESTS, 2 * len(series)))
        end = series[-1] + (threshold - series[-1]) * right / turns_to_threshold
        fig.add_trace(go.Scatter(x=[0, right], y=[series[-1], end], mode="lines",
                                 name=f"forecast: threshold in ~{turns_to_threshold:,} requests",
                                 line={"color": _NEAR, "width": 2, "dash": "dot"},
                                 hovertemplate="request +%{x}: %{y:,.0f} " + unit + "<extra></extra>"))
    fig.add_trace(go.Scatter(x=[min(steps, default=0), right], y=[threshold, threshold], mode="lines",
                             name=f"threshold {threshold:,}", line={"color": THRESHOLD_COLOR, "dash": "dash"},
                             hoverinfo="skip"))
    return style(fig, height=300, legend="bottom", xaxes={"title": {"text": "requests from now"}},
                 yaxes={"title": {"text": unit}, "rangemode": "tozero"})
