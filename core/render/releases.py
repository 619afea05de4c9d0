"""The release comparison drawn: one band of zones per release."""

from __future__ import annotations

import plotly.graph_objects as go

from core.render.charts import ZONE_COLORS
from core.views.releases import ReleaseComparison

__all__ = ["release_zone_figure"]


def release_zone_figure(comparison: ReleaseComparison) -> go.Figure:
    """One horizontal band per release: HEAD, MIDDLE and TAIL over the message positions."""
    fig = go.Figure()
    shown: set[str] = set()
    for run in comparison.runs:
        start = 0
        zones = run.zones
        while start < len(zones):
            zone = zones[start]
            end = start
            while end < len(zones) and zones[end] == zone:
                end += 1
            fig.add_trace(go.Bar(
                x=[end - start], y=[run.release], base=[start], orientation="h", name=zone,
                marker_color=ZONE_COLORS[zone], legendgroup=zone, showlegend=zone not in shown,
                hovertemplate=f"{run.release}: {zone} messages {start}–{end - 1}<extra></extra>",
            ))
            shown.add(zone)
            start = end
    from core.render.charts import style

    style(fig, height=150 + 48 * len(comparison.runs))
    fig.update_layout(barmode="overlay", xaxis_title="message", yaxis={"autorange": "reversed", "showgrid": False})
    fig.update_xaxes(range=[0, max(comparison.n_messages, 1)])
    return fig
