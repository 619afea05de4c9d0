"""Plotly figures for the dashboard, all drawn from one palette.

Zones, pipeline steps, roles and categories each have a fixed colour used by every chart, so a
colour means the same thing wherever it appears.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.analysis.overview import CATEGORIES

if TYPE_CHECKING:
    from core.analysis.savings import SavingsAnalysis
    from core.analysis.zones import ZoneAnalysis

ZONE_COLORS: dict[str, str] = {
    "HEAD": "#3b6fb6",
    "MIDDLE": "#e8833a",
    "TAIL": "#3a9d5d",
    "UNCHANGED": "#9aa0a6",
}
STEP_COLORS: dict[str, str] = {
    "original": "#5b6770",
    "dedup": "#8e6cc4",
    "one_liners": "#d1495b",
    "args": "#d9a126",
    "tool_images": "#00798c",
    "summary": ZONE_COLORS["MIDDLE"],
    "repair": "#7d8590",
    "historical_images": "#4fb3bf",
    "final": "#2e4057",
}
ROLE_COLORS: dict[str, str] = {
    "system": "#6c757d",
    "developer": "#868e96",
    "user": "#3b6fb6",
    "assistant": "#3a9d5d",
    "tool": "#c9733c",
    "function": "#c9733c",
}
CATEGORY_COLORS: dict[str, str] = {
    "system": "#6c757d",
    "user text": "#3b6fb6",
    "assistant text": "#3a9d5d",
    "tool calls": "#d9a126",
    "tool results": "#c9733c",
    "images": "#00798c",
}
BEFORE_COLOR = "#b5bcc4"
AFTER_COLOR = "#2e4057"
THRESHOLD_COLOR = "#c0392b"
BUDGET_COLOR = "#3a9d5d"
PROTECTED_FILL = "rgba(120, 130, 140, 0.13)"
FALLBACK_COLOR = "#8c96a0"

_FONT = {"family": "Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": 13}


def _layout(fig: go.Figure, *, height: int, title: str | None = None) -> go.Figure:
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 50 if title else 20, "b": 10},
        font=_FONT,
        title={"text": title, "x": 0, "xanchor": "left"} if title else None,
        plot_bgcolor="white",
        paper_bgcolor="white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        hoverlabel={"font_size": 12},
    )
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(gridcolor="#eceff1", zeroline=False, separatethousands=True)
    return fig


def color_for(mapping: dict[str, str], key: str) -> str:
    return mapping.get(key, FALLBACK_COLOR)


def breakdown_bar(table: pd.DataFrame, key: str, *, colors: dict[str, str] | None = None,
                  title: str | None = None, top: int | None = None) -> go.Figure:
    """Horizontal bars of ``tokens`` per ``key`` (largest on top), labelled with tokens and share."""
    data = table if top is None else table.head(top)
    data = data.iloc[::-1]
    labels = [f"{t:,} ({s:.0%})" for t, s in zip(data["tokens"], data["share"], strict=True)]
    fig = go.Figure(
        go.Bar(
            x=data["tokens"],
            y=data[key].astype(str),
            orientation="h",
            marker_color=[color_for(colors or {}, str(k)) for k in data[key]],
            text=labels,
            textposition="auto",
            cliponaxis=False,
            hovertemplate="%{y}: %{x:,} tokens<extra></extra>",
        )
    )
    _layout(fig, height=max(180, 36 * len(data) + 70), title=title)
    fig.update_xaxes(title_text="tokens (tiktoken)", showgrid=True, gridcolor="#eceff1", separatethousands=True)
    fig.update_yaxes(showgrid=False, automargin=True)
    return fig


def tool_breakdown_figure(by_tool: pd.DataFrame, *, top: int = 15) -> go.Figure:
    """Tokens per tool, split into what the calls cost (arguments) and what the results cost."""
    data = by_tool.head(top).iloc[::-1]
    fig = go.Figure()
    for column, category in (("call_tokens", "tool calls"), ("result_tokens", "tool results")):
        fig.add_trace(
            go.Bar(
                x=data[column], y=data["tool"].astype(str), orientation="h", name=category,
                marker_color=CATEGORY_COLORS[category],
                hovertemplate=f"%{{y}}: %{{x:,}} tokens in {category}<extra></extra>",
            )
        )
    totals = [f"{t:,} ({s:.0%})" for t, s in zip(data["tokens"], data["share"], strict=True)]
    fig.add_trace(
        go.Scatter(x=data["tokens"], y=data["tool"].astype(str), mode="text", text=totals,
                   textposition="middle right", showlegend=False, hoverinfo="skip", cliponaxis=False)
    )
    _layout(fig, height=max(200, 34 * len(data) + 90))
    fig.update_layout(barmode="stack", margin={"r": 90})
    fig.update_xaxes(title_text="tokens (tiktoken)", showgrid=True, gridcolor="#eceff1", separatethousands=True)
    fig.update_yaxes(showgrid=False, automargin=True)
    return fig


def context_usage_figure(by_category: pd.DataFrame, context_length: int, threshold_tokens: int) -> go.Figure:
    """One stacked bar of the conversation's tokens by category against the window and the threshold."""
    fig = go.Figure()
    for category in CATEGORIES:
        row = by_category[by_category["category"] == category]
        tokens = int(row["tokens"].iloc[0]) if len(row) else 0
        if tokens == 0:
            continue
        fig.add_trace(
            go.Bar(
                x=[tokens],
                y=["conversation"],
                name=category,
                orientation="h",
                marker_color=color_for(CATEGORY_COLORS, category),
                hovertemplate=f"{category}: %{{x:,}} tokens<extra></extra>",
            )
        )
    total = int(by_category["tokens"].sum())
    fig.update_layout(barmode="stack", showlegend=True)
    span = max(context_length, total) * 1.04
    fig.add_vline(x=threshold_tokens, line_color=THRESHOLD_COLOR, line_dash="dash", line_width=2)
    # Labels point away from each other so they never overlap.
    threshold_first = threshold_tokens <= context_length
    fig.add_annotation(x=threshold_tokens, y=1.0, yref="paper", yanchor="bottom", showarrow=False,
                       xanchor="right" if threshold_first else "left",
                       text=f"compression threshold {threshold_tokens:,}", font={"color": THRESHOLD_COLOR})
    fig.add_vline(x=context_length, line_color="#333", line_width=2)
    fig.add_annotation(x=context_length, y=1.0, yref="paper", yanchor="bottom", showarrow=False,
                       text=f"window {context_length:,}", xanchor="left" if threshold_first else "right")
    _layout(fig, height=210)
    fig.update_layout(legend={"y": 1.25}, margin={"t": 70, "b": 30})
    fig.update_xaxes(range=[0, span], title_text="tokens (tiktoken)", showgrid=True, gridcolor="#eceff1")
    fig.update_yaxes(showticklabels=False)
    return fig


def _hline(y: float, yref: str, color: str, dash: str) -> dict:
    return {"type": "line", "xref": f"{yref.replace('y', 'x')} domain", "x0": 0, "x1": 1, "yref": yref,
            "y0": y, "y1": y, "line": {"color": color, "dash": dash, "width": 1.5}, "layer": "above"}


def _note(text: str, *, x: float, y: float, xref: str, yref: str, color: str = "#444", **extra: object) -> dict:
    return {"text": text, "x": x, "y": y, "xref": xref, "yref": yref, "showarrow": False,
            "font": {"size": 11, "color": color}, **extra}


def zone_map_figure(zones: ZoneAnalysis, *, exact_label: str = "tokens (tiktoken)") -> go.Figure:
    """Bars per message coloured by zone, the Phase-1 protected region, and the trigger and tail walks.

    Top: one bar per message (exact tokens), coloured HEAD / MIDDLE / TAIL, hatched where Phase 1
    shortens the message, with the region Phase 1 protects shaded. Bottom: the prompt size after
    each message against the threshold, and the running total from the end against the tail budget
    and its 1.5x soft ceiling (both with the estimator that makes the decisions).
    """
    # Built as one layout dict: plotly's add_hline/add_vline per subplot cost ~0.1 s each.
    table = zones.table
    n = zones.n_messages
    unit = "estimated tokens" if zones.estimator == "hermes" else "tokens (tiktoken)"
    traces: list[go.Bar | go.Scatter] = []
    for zone in ("HEAD", "MIDDLE", "TAIL", "UNCHANGED"):
        rows = table[table["zone"] == zone]
        if rows.empty:
            continue
        traces.append(
            go.Bar(
                x=rows["index"].to_numpy(), y=rows["after_phase1"].to_numpy(), name=zone, xaxis="x", yaxis="y",
                marker={"color": ZONE_COLORS[zone], "line": {"width": 0}}, legendgroup=zone,
                customdata=np.column_stack([rows["role"].to_numpy(), rows["tokens"].to_numpy(),
                                            rows["phase1"].replace("", "—").to_numpy()]),
                hovertemplate="#%{x} %{customdata[0]}<br>%{customdata[1]:,} tokens"
                "<br>Phase 1: %{customdata[2]}" f"<extra>{zone}</extra>",
            )
        )
    removed = table[table["tokens"] > table["after_phase1"]]
    if not removed.empty:
        colors = [ZONE_COLORS[z] for z in removed["zone"]]
        traces.append(
            go.Bar(
                x=removed["index"].to_numpy(), y=(removed["tokens"] - removed["after_phase1"]).to_numpy(),
                name="cut by Phase 1", xaxis="x", yaxis="y",
                marker={"color": "rgba(255, 255, 255, 0)", "line": {"width": 1, "color": colors},
                        "pattern": {"shape": "/", "fgcolor": colors, "size": 5, "solidity": 0.35}},
                customdata=np.column_stack([removed["after_phase1"].to_numpy(), removed["tokens"].to_numpy(),
                                            removed["phase1"].to_numpy()]),
                hovertemplate="#%{x}: %{customdata[1]:,} → %{customdata[0]:,} tokens<br>%{customdata[2]}"
                "<extra>Phase 1</extra>",
            )
        )
    traces.append(
        go.Scatter(x=table["index"].to_numpy(), y=table["prompt_so_far"].to_numpy(), name="prompt so far", mode="lines",
                   xaxis="x2", yaxis="y2", line={"color": AFTER_COLOR, "width": 2},
                   hovertemplate="after #%{x}: %{y:,}<extra>prompt so far</extra>")
    )
    traces.append(
        go.Scatter(x=table["index"].to_numpy(), y=table["tail_walk"].to_numpy(), name="tail walk (from the end)", mode="lines",
                   xaxis="x2", yaxis="y2", line={"color": BUDGET_COLOR, "width": 2},
                   hovertemplate="#%{x} to the end: %{y:,}<extra>tail walk</extra>")
    )
    shapes: list[dict] = []
    notes: list[dict] = [
        _note("<b>Tokens per message</b>", x=0, y=1.0, xref="x domain", yref="y domain", xanchor="left",
              yanchor="bottom", color="#222"),
        _note(f"<b>Prompt size and tail walk</b> ({unit})", x=0, y=1.0, xref="x2 domain", yref="y2 domain",
              xanchor="left", yanchor="bottom", color="#222"),
    ]
    if zones.prune_boundary is not None and zones.prune_boundary < n:
        shapes.append({"type": "rect", "xref": "x", "yref": "y domain", "x0": zones.prune_boundary - 0.5,
                       "x1": n - 0.5, "y0": 0, "y1": 1, "fillcolor": PROTECTED_FILL, "line": {"width": 0},
                       "layer": "below"})
        notes.append(_note("Phase 1 leaves these alone", x=n - 0.5, y=1.0, xref="x", yref="y domain",
                           xanchor="right", yanchor="bottom", color="#555"))
    if not zones.middle_empty:
        for boundary, label in ((zones.compress_start, "middle starts"), (zones.compress_end, "tail starts")):
            if boundary is None or boundary >= n:
                continue
            for axis in ("y", "y2"):
                shapes.append({"type": "line", "xref": "x", "yref": f"{axis} domain", "x0": boundary - 0.5,
                               "x1": boundary - 0.5, "y0": 0, "y1": 1,
                               "line": {"color": "#444", "dash": "dot", "width": 1}})
            notes.append(_note(label, x=boundary - 0.5, y=1.0, xref="x", yref="y2 domain", xanchor="left",
                               yanchor="top"))
    shapes.append(_hline(zones.threshold_tokens, "y2", THRESHOLD_COLOR, "dash"))
    shapes.append(_hline(zones.soft_ceiling, "y2", BUDGET_COLOR, "dot"))
    shapes.append(_hline(zones.tail_token_budget, "y2", BUDGET_COLOR, "dash"))
    notes.append(_note(f"threshold {zones.threshold_tokens:,}", x=0.01, y=zones.threshold_tokens,
                       xref="x2 domain", yref="y2", xanchor="left", yanchor="bottom", color=THRESHOLD_COLOR))
    notes.append(_note(f"tail soft ceiling (1.5×) {zones.soft_ceiling:,}", x=0.99, y=zones.soft_ceiling,
                       xref="x2 domain", yref="y2", xanchor="right", yanchor="bottom", color=BUDGET_COLOR))
    notes.append(_note(f"tail budget {zones.tail_token_budget:,}", x=0.99, y=zones.tail_token_budget,
                       xref="x2 domain", yref="y2", xanchor="right", yanchor="top", color=BUDGET_COLOR))
    top_y = max(
        [zones.threshold_tokens * 1.08, *(table["prompt_so_far"].tail(1).tolist() or [0])]
    )
    layout = {
        "barmode": "stack",
        "bargap": 0.05,
        "xaxis": {"domain": [0, 1], "anchor": "y", "showticklabels": False, "range": [-0.5, max(n, 1) - 0.5]},
        "yaxis": {"domain": [0.47, 0.93], "title": {"text": exact_label}},
        "xaxis2": {"domain": [0, 1], "anchor": "y2", "matches": "x", "title": {"text": "message index"}},
        "yaxis2": {"domain": [0, 0.36], "title": {"text": unit}, "range": [0, top_y * 1.05]},
        "shapes": shapes,
        "annotations": notes,
    }
    fig = go.Figure(data=traces, layout=layout)
    _layout(fig, height=580)
    fig.update_layout(legend={"y": 1.0, "yanchor": "bottom"})
    return fig


def waterfall_figure(savings: SavingsAnalysis, *, estimate: bool = False) -> go.Figure:
    """Original total, each step's change as a floating bar in its own colour, and the final total."""
    xs: list[str] = []
    bases: list[float] = []
    heights: list[float] = []
    colors: list[str] = []
    texts: list[str] = []
    previous = 0
    for step in savings.steps:
        total = step.hermes_tokens if estimate else step.exact_tokens
        xs.append(step.label)
        colors.append(color_for(STEP_COLORS, step.key))
        if step.key in ("original", "final"):
            bases.append(0)
            heights.append(total)
            texts.append(f"{total:,}")
        else:
            delta = total - previous
            bases.append(min(previous, total))
            heights.append(abs(delta))
            texts.append("0" if delta == 0 else f"{delta:+,}")
        previous = total
    fig = go.Figure(
        go.Bar(
            x=xs, y=heights, base=bases, marker_color=colors, text=texts, textposition="outside",
            cliponaxis=False, hovertemplate="%{x}: %{text}<extra></extra>",
        )
    )
    _layout(fig, height=420)
    fig.update_yaxes(title_text="estimated tokens (hermes)" if estimate else "tokens (tiktoken)", rangemode="tozero")
    fig.update_xaxes(tickangle=-20, automargin=True)
    return fig


def before_after_figure(table: pd.DataFrame, key: str, *, colors: dict[str, str] | None = None,
                        title: str | None = None) -> go.Figure:
    """Grouped before/after bars per ``key`` (role, tool or category)."""
    labels = table[key].astype(str)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=table["before"], name="before", marker_color=BEFORE_COLOR,
                         hovertemplate="%{x}: %{y:,} before<extra></extra>"))
    after_colors: Sequence[str] | str = (
        [color_for(colors, str(k)) for k in table[key]] if colors else AFTER_COLOR
    )
    fig.add_trace(go.Bar(x=labels, y=table["after"], name="after", marker_color=after_colors,
                         hovertemplate="%{x}: %{y:,} after<extra></extra>"))
    _layout(fig, height=340, title=title)
    fig.update_layout(barmode="group")
    fig.update_yaxes(title_text="tokens (tiktoken)")
    fig.update_xaxes(automargin=True)
    return fig
