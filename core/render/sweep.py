"""The parameter sweep drawn as a heat map."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = ["sweep_heatmap"]


def sweep_heatmap(table: pd.DataFrame, metric: str = "final_tokens", protect_first_n: int | None = None) -> go.Figure:
    """Heat map of ``metric`` (``final_tokens`` or ``savings_pct``) over threshold x ratio.

    Cells that do not compress are labelled with their outcome (for example ``not triggered``).
    """
    if metric not in ("final_tokens", "savings_pct"):
        raise ValueError("metric must be 'final_tokens' or 'savings_pct'")
    data = table
    if protect_first_n is not None:
        data = table[table["protect_first_n"] == protect_first_n]
    elif data["protect_first_n"].nunique() > 1:
        data = table[table["protect_first_n"] == table["protect_first_n"].iloc[0]]
    thresholds = sorted(data["threshold_percent"].unique())
    ratios = sorted(data["summary_target_ratio"].unique())
    z = np.full((len(thresholds), len(ratios)), np.nan)
    text = [["" for _ in ratios] for _ in thresholds]
    for _, row in data.iterrows():
        y = thresholds.index(row["threshold_percent"])
        x = ratios.index(row["summary_target_ratio"])
        value = row[metric]
        z[y][x] = value
        if row["outcome"] == "summarized":
            text[y][x] = f"{int(row['final_tokens']):,}<br>{row['savings_pct']:.0f}%"
        else:
            text[y][x] = f"{int(row['final_tokens']):,}<br>{row['outcome']}"
    label = "final tokens" if metric == "final_tokens" else "savings %"
    fig = go.Figure(go.Heatmap(
        z=z, x=[f"{r:.2f}" for r in ratios], y=[f"{t:.2f}" for t in thresholds], text=text,
        texttemplate="%{text}", colorscale="Blues" if metric == "savings_pct" else "Oranges",
        colorbar={"title": {"text": label}},
        hovertemplate="threshold %{y}, ratio %{x}<br>%{text}<extra></extra>",
    ))
    from core.render.charts import style

    # No background of its own: the dashboard's light or dark theme shows through.
    return style(fig, height=120 + 48 * len(thresholds), legend=None,
                 xaxes={"title": {"text": "summary target ratio"}, "type": "category"},
                 yaxes={"title": {"text": "threshold (share of the window)"}, "type": "category", "showgrid": False})
