"""Fact retention drawn."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from core.facts import retention_by_kind

__all__ = ["retention_figure"]


def retention_figure(runs: Mapping[str, pd.DataFrame]) -> go.Figure:
    """Grouped bars: the share of facts kept per kind, one bar group per run (a scored table each)."""
    fig = go.Figure()
    palette = ["#3b6fb6", "#e8833a", "#3a9d5d", "#8e6cc4", "#d1495b", "#00798c", "#d9a126", "#5b6770"]
    for position, (name, scored) in enumerate(runs.items()):
        by_kind = retention_by_kind(scored)
        fig.add_trace(go.Bar(
            x=by_kind["kind"].str.replace("_", " "), y=(by_kind["score"] * 100).round(1), name=name,
            marker_color=palette[position % len(palette)],
            customdata=by_kind[["kept", "total"]].to_numpy(),
            hovertemplate="%{x}: %{customdata[0]}/%{customdata[1]} kept (%{y:.1f}%)<extra>" + name + "</extra>",
        ))
    from core.render.charts import style

    return style(fig, height=400, layout={"barmode": "group"}, xaxes={"title": {"text": "fact kind"}},
                 yaxes={"title": {"text": "facts kept verbatim (%)"}, "range": [0, 105]})
