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


# Beyond this many messages the zone map draws bins of consecutive messages: a bar per message
# would be tens of thousands of SVG shapes, slow to draw and narrower than a pixel anyway.
ZONE_MAP_MAX_BARS = 1_500


def _hex_rgba(color: str, alpha: float) -> str:
    red, green, blue = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {alpha})"


def zone_map_bins(zones: ZoneAnalysis, max_bars: int = ZONE_MAP_MAX_BARS) -> np.ndarray:
    """Start index of each bar of the zone map (one per message up to ``max_bars`` messages).

    Longer conversations get bins of ``ceil(n / max_bars)`` consecutive messages; a bin never
    straddles the middle's start, the tail's start or the prune boundary, so each bar has one zone.
    """
    n = zones.n_messages
    if n <= max_bars:
        return np.arange(n, dtype=np.int64)
    width = -(-n // max_bars)
    cuts = {0, n}
    for boundary in (zones.compress_start, zones.compress_end, zones.prune_boundary):
        if boundary is not None and 0 < boundary < n:
            cuts.add(boundary)
    edges = sorted(cuts)
    starts = [np.arange(a, b, width, dtype=np.int64) for a, b in zip(edges, edges[1:], strict=False)]
    return np.concatenate(starts)


def zone_map_figure(zones: ZoneAnalysis, *, exact_label: str = "tokens (tiktoken)") -> go.Figure:
    """Bars per message coloured by zone, the Phase-1 protected region, and the trigger and tail walks.

    Top: one bar per message (exact tokens), coloured HEAD / MIDDLE / TAIL, with the tokens before
    Phase 1 behind it in a fainter shade (the part Phase 1 cuts), and the region Phase 1 protects
    shaded; each zone's bars are drawn as one filled step outline. Bottom:
    the prompt size after each message against the threshold, and the running total from the end
    against the tail budget and its 1.5x soft ceiling (both with the estimator that makes the
    decisions). Past ``ZONE_MAP_MAX_BARS`` messages each bar is a bin of consecutive messages (its
    tokens summed) and the lines are drawn at the bins' edges.
    """
    # Plain dicts, and a figure built without validation: validating thousands of values on every
    # slider move costs more than drawing them.
    table = zones.table
    n = zones.n_messages
    unit = "estimated tokens" if zones.estimator == "hermes" else "tokens (tiktoken)"
    starts = zone_map_bins(zones)
    binned = len(starts) < n
    ends = np.append(starts[1:], n).astype(np.int64) if len(starts) else starts
    tokens = table["tokens"].to_numpy()
    after = table["after_phase1"].to_numpy()
    zone_of = table["zone"].to_numpy()
    if binned:
        kept = np.add.reduceat(after, starts) if len(starts) else after[:0]
        whole = np.add.reduceat(tokens, starts) if len(starts) else tokens[:0]
        bar_zone = zone_of[starts]
        labels = [f"#{a}–{b - 1} ({b - a:,} messages)" for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        line_at = ends - 1
    else:
        kept, whole, bar_zone = after, tokens, zone_of
        roles = table["role"].to_numpy()
        labels = [f"#{i} {role}" for i, role in enumerate(roles.tolist())]
        line_at = np.arange(n)
    phase1 = table["phase1"].to_numpy()
    notes_of = phase1[starts] if binned else phase1
    details = np.column_stack([np.array(labels, dtype=object), whole, np.where(notes_of == "", "—", notes_of)])
    traces: list[dict] = []
    cut_shown = False
    # Each zone is one filled step outline (a bar per message or bin, drawn as one SVG path), with the
    # tokens before Phase 1 behind it in a fainter shade: far cheaper to draw than a bar per message.
    for zone in ("HEAD", "MIDDLE", "TAIL", "UNCHANGED"):
        picked = np.flatnonzero(bar_zone == zone)  # one contiguous run of bars
        if not picked.size:
            continue
        first, last = int(picked[0]), int(picked[-1])
        if binned:  # steps from each bin's left edge, closed at the right edge of the last one
            x = np.append(starts[first : last + 1] - 0.5, ends[last] - 0.5)
            shape = "hv"
        else:  # steps centred on each message, padded half a message on each side
            x = np.concatenate([[first - 0.5], np.arange(first, last + 1, dtype=np.float64), [last + 0.5]])
            shape = "hvh"
        rows = np.concatenate([picked, [last]]) if binned else np.concatenate([[first], picked, [last]])
        if (whole[picked] > kept[picked]).any():
            traces.append({
                "type": "scatter", "x": x, "y": whole[rows], "name": "cut by Phase 1", "legendgroup": "cut",
                "showlegend": not cut_shown, "mode": "lines", "line": {"shape": shape, "width": 0},
                "fill": "tozeroy", "fillcolor": _hex_rgba(ZONE_COLORS[zone], 0.28), "hoverinfo": "skip",
                "xaxis": "x", "yaxis": "y",
            })
            cut_shown = True
        traces.append({
            "type": "scatter", "x": x, "y": kept[rows], "name": zone, "legendgroup": zone, "mode": "lines",
            "line": {"shape": shape, "width": 0, "color": ZONE_COLORS[zone]}, "fill": "tozeroy",
            "fillcolor": ZONE_COLORS[zone], "xaxis": "x", "yaxis": "y", "customdata": details[rows],
            "hovertemplate": "%{customdata[0]}<br>%{customdata[1]:,} tokens, %{y:,} after Phase 1"
                             f"<br>Phase 1: %{{customdata[2]}}<extra>{zone}</extra>",
        })
    x_lines = line_at.astype(np.float64)
    traces.append({
        "type": "scatter", "x": x_lines, "y": table["prompt_so_far"].to_numpy()[line_at], "name": "prompt so far",
        "mode": "lines", "xaxis": "x2", "yaxis": "y2", "line": {"color": AFTER_COLOR, "width": 2},
        "hovertemplate": "after #%{x}: %{y:,}<extra>prompt so far</extra>",
    })
    tail_walk = table["tail_walk"].to_numpy()
    traces.append({
        "type": "scatter", "x": starts.astype(np.float64), "y": tail_walk[starts] if len(starts) else tail_walk,
        "name": "tail walk (from the end)", "mode": "lines", "xaxis": "x2", "yaxis": "y2",
        "line": {"color": BUDGET_COLOR, "width": 2},
        "hovertemplate": "#%{x} to the end: %{y:,}<extra>tail walk</extra>",
    })
    shapes: list[dict] = []
    top_note = "<b>Tokens per message</b>" if not binned else (
        f"<b>Tokens per bin of {int(ends[0] - starts[0]):,} messages</b> ({n:,} messages)")
    notes: list[dict] = [
        _note(top_note, x=0, y=1.0, xref="x domain", yref="y domain", xanchor="left", yanchor="bottom", color="#222"),
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
    last_prompt = int(table["prompt_so_far"].iloc[-1]) if n else 0
    top_y = max(zones.threshold_tokens * 1.08, last_prompt)
    layout = {
        "barmode": "stack",
        "bargap": 0.05,
        "xaxis": {"domain": [0, 1], "anchor": "y", "showticklabels": False, "range": [-0.5, max(n, 1) - 0.5],
                  "showgrid": False, "zeroline": False},
        "yaxis": {"domain": [0.47, 0.93], "title": {"text": exact_label if not binned else f"{exact_label} per bin",
                                                    "font": {"size": 13}},
                  "gridcolor": "#eceff1", "zeroline": False, "separatethousands": True},
        "xaxis2": {"domain": [0, 1], "anchor": "y2", "matches": "x", "title": {"text": "message index", "font": {"size": 13}},
                   "showgrid": False, "zeroline": False},
        "yaxis2": {"domain": [0, 0.36], "title": {"text": unit, "font": {"size": 13}}, "range": [0, top_y * 1.05],
                   "gridcolor": "#eceff1", "zeroline": False, "separatethousands": True},
        "shapes": shapes,
        "annotations": notes,
        "height": 580,
        # Fixed margins wide enough for the tick labels and titles: automatic margins cost the
        # browser a second layout pass on every redraw.
        "margin": {"l": 78, "r": 12, "t": 36, "b": 50},
        "font": _FONT,
        "plot_bgcolor": "white",
        "paper_bgcolor": "white",
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0},
        "hoverlabel": {"font": {"size": 12}},
    }
    return go.Figure({"data": traces, "layout": layout}, _validate=False)


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
