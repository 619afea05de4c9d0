"""The strategies compared, drawn."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.render.palette import STRATEGY_COLORS
from core.views.strategies import StrategyComparison

__all__ = ["strategy_figure"]


def strategy_figure(comparison: StrategyComparison) -> go.Figure:
    """Tokens after each strategy (with the budget and the original size) beside its fact retention.

    Horizontal bars, so the strategy names have room at any width; the budget and the original
    size are lines named in the legend, not text on the plot.
    """
    from core.render.charts import GRID_COLOR, MUTED_COLOR, style

    table = comparison.table
    colors = [STRATEGY_COLORS.get(run.family, "#8c96a0") for run in comparison.runs]
    labels = list(table["strategy"])
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, subplot_titles=("tokens after (tiktoken)",
                                                                           "facts kept verbatim (%)"),
                        horizontal_spacing=0.06)
    fig.add_trace(go.Bar(y=labels, x=table["tokens_after"], orientation="h", marker_color=colors, showlegend=False,
                         text=[f"{v:,}" for v in table["tokens_after"]], textposition="outside", cliponaxis=False,
                         hovertemplate="%{y}: %{x:,} tokens<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Bar(y=labels, x=(table["retention_all"] * 100).round(1), orientation="h", marker_color=colors,
                         showlegend=False, text=[f"{v:.0%}" for v in table["retention_all"]], textposition="outside",
                         cliponaxis=False, hovertemplate="%{y}: %{x:.1f}% of all facts<extra></extra>"), row=1, col=2)
    shapes = []
    for value, name, color, dash in ((comparison.budget_tokens, f"budget {comparison.budget_tokens:,}", "#3a9d5d",
                                      "dash"),
                                     (comparison.tokens_before, f"original {comparison.tokens_before:,}", MUTED_COLOR,
                                      "dot")):
        shapes.append({"type": "line", "xref": "x", "x0": value, "x1": value, "yref": "y domain", "y0": 0, "y1": 1,
                       "line": {"color": color, "dash": dash, "width": 1.5},
                       "layer": "below"})  # under the bars' value labels, which it would cross
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                                 line={"color": color, "dash": dash, "width": 1.5}), row=1, col=1)
    style(fig, height=max(300, 46 * len(labels) + 140))
    fig.update_layout(shapes=shapes)
    top = max(comparison.tokens_before, int(table["tokens_after"].max() or 0))
    fig.update_xaxes(range=[0, top * 1.22 or 1], row=1, col=1, showgrid=True, gridcolor=GRID_COLOR,
                     separatethousands=True)
    fig.update_xaxes(range=[0, 122], row=1, col=2, showgrid=True, gridcolor=GRID_COLOR)
    fig.update_yaxes(showgrid=False, autorange="reversed")  # the table's order, top to bottom
    return fig
