"""Plotly figures for the dashboard, all drawn from one palette and one style.

Zones, pipeline steps, roles and categories each have a fixed colour used by every chart, so a
colour means the same thing wherever it appears. :func:`style` is the one layout every figure of
the dashboard takes (the analyses' own figures too): no background of its own, so Streamlit's
light and dark themes both show through, neutral grid lines that read on either, legends under
the plot where no toolbar covers them, and no text written on a line (lines are named in the
legend; boundaries are labelled above the plot, staggered when they are close).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.render.palette import (  # noqa: F401  (re-exported: the pages read the colours from here)
    AFTER_COLOR,
    BEFORE_COLOR,
    BUDGET_COLOR,
    CATEGORY_COLORS,
    FALLBACK_COLOR,
    GRID_COLOR,
    MUTED_COLOR,
    PALETTE,
    PROTECTED_FILL,
    ROLE_COLORS,
    STEP_COLORS,
    SUMMARY_COLOR,
    THRESHOLD_COLOR,
    ZONE_COLORS,
)

if TYPE_CHECKING:
    from core.views.savings import SavingsAnalysis
    from core.views.zones import ZoneAnalysis

_FONT = {"family": "Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": 13}
# What the dashboard passes to st.plotly_chart: Plotly's own toolbar would cover legends and
# titles at the top of a chart (Streamlit's element toolbar keeps full screen; drag still zooms
# and a double click resets).
PLOTLY_CONFIG: dict[str, object] = {"displayModeBar": False, "displaylogo": False, "responsive": True}


def style(fig: go.Figure, *, height: int, title: str | None = None, legend: str | None = "bottom",
          legend_title: str | None = None, layout: dict[str, object] | None = None,
          xaxes: dict[str, object] | None = None, yaxes: dict[str, object] | None = None) -> go.Figure:
    """The dashboard's layout: ``legend`` is ``"bottom"`` (under the plot), ``"top"`` or None (hidden).

    No background colour is set: Streamlit's theme (light or dark) supplies it, and the fonts
    take the theme's text colour. ``layout``, ``xaxes`` and ``yaxes`` are the figure's own settings
    on top (what ``update_layout``, ``update_xaxes`` and ``update_yaxes`` after the style would set),
    applied with it in one go (see :func:`relayout`).
    """
    return relayout(fig, _merged(style_layout(height=height, title=title, legend=legend, legend_title=legend_title),
                                 layout),
                    xaxes=_merged(STYLE_XAXES, xaxes), yaxes=_merged(STYLE_YAXES, yaxes))


# Every axis of a styled figure.
STYLE_XAXES: dict[str, object] = {"showgrid": False, "zeroline": False, "automargin": True}
STYLE_YAXES: dict[str, object] = {"gridcolor": GRID_COLOR, "zeroline": False, "separatethousands": True,
                                  "automargin": True}


def style_layout(*, height: int, title: str | None = None, legend: str | None = "bottom",
                 legend_title: str | None = None) -> dict[str, object]:
    """The layout :func:`style` gives a figure, its axes aside (``STYLE_XAXES``, ``STYLE_YAXES``)."""
    legend_layout: dict[str, object] = {"orientation": "h", "xanchor": "left", "x": 0,
                                        "title": {"text": legend_title} if legend_title else None}
    if legend == "bottom":
        legend_layout.update({"yref": "container", "y": 0, "yanchor": "bottom"})
    elif legend == "top":
        legend_layout.update({"y": 1.02, "yanchor": "bottom"})
    return {
        "height": height,
        "margin": {"l": 10, "r": 16, "t": 56 if title else 24, "b": 70 if legend == "bottom" else 16},
        "font": _FONT,
        "title": {"text": title, "x": 0, "xanchor": "left"} if title else None,
        "showlegend": legend is not None,
        "legend": legend_layout,
        "hoverlabel": {"font": {"size": 12}},
    }


def relayout(fig: go.Figure, changes: dict[str, object], *, xaxes: dict[str, object] | None = None,
             yaxes: dict[str, object] | None = None) -> go.Figure:
    """What ``fig.update_layout(changes)`` and ``fig.update_xaxes(xaxes)`` / ``update_yaxes(yaxes)``
    (every x or y axis of the figure) do, in one assignment of the merged layout.

    Plotly's update methods parse a path for every key and validate each step on its own, about
    20 ms for the dashboard's style of one figure; a layout built whole takes a fifth of it, and a
    page draws up to a dozen figures on each run. ``changes`` uses nested dicts (no "a_b" paths); a
    None value unsets the property, as in ``update_layout``."""
    layout = fig.layout.to_plotly_json()
    if layout.get("template") == _default_template():
        # Plotly applies its default template again when the figure is drawn; validated again here,
        # it would cost more than all the rest.
        del layout["template"]
    _merge(layout, changes)
    for prefix, axis_changes in (("xaxis", xaxes), ("yaxis", yaxes)):
        if axis_changes:
            axes = [key for key in layout if key == prefix or (key.startswith(prefix) and key[len(prefix):].isdigit())]
            for key in axes or [prefix]:
                axis = layout.get(key)
                layout[key] = axis = dict(axis) if isinstance(axis, dict) else {}
                _merge(axis, axis_changes)
    fig.layout = go.Layout(layout)
    return fig


@lru_cache(maxsize=1)
def _default_template() -> object:
    import plotly.io as pio

    default = pio.templates.default
    return None if default is None else pio.templates[default].to_plotly_json()


def _merged(base: dict[str, object], changes: dict[str, object] | None) -> dict[str, object]:
    merged = dict(base)
    _merge(merged, changes or {})
    return merged


def _merge(into: dict[str, object], changes: dict[str, object]) -> None:
    """``changes`` merged into ``into`` as Plotly's updates merge: a dict into a dict, key by key
    (copied, so shared dicts such as ``_FONT`` are never changed), None unsets, anything else in its
    place."""
    for key, value in changes.items():
        present = into.get(key)
        if value is None:
            into.pop(key, None)
        elif isinstance(value, dict) and isinstance(present, dict):
            merged = dict(present)
            _merge(merged, value)
            into[key] = merged
        else:
            into[key] = dict(value) if isinstance(value, dict) else value


def fix_margins(fig: go.Figure, **margins: int) -> go.Figure:
    """Fixed margins (``l``, ``b``, ...) instead of automatic ones, on every axis of ``fig``.

    Streamlit draws a chart anew whenever it changes; with automatic margins each draw measures
    the tick labels and titles and pushes the margins out, about half of the draw's time. A chart
    whose labels have a known size sets its margins to fit them. (The legend still pushes its own.)
    """
    return relayout(fig, {"margin": margins}, xaxes={"automargin": False}, yaxes={"automargin": False})


def line_figure(frame: pd.DataFrame, x: str, columns: Sequence[str], *, x_title: str, y_title: str,
                height: int = 260, names: dict[str, str] | None = None) -> go.Figure:
    """One line per column of ``frame`` against ``x`` (a marker at each point), in the palette's order;
    ``names`` relabels the legend. One line hides the legend (the axis title names it)."""
    fig = go.Figure()
    for index, column in enumerate(columns):
        fig.add_trace(go.Scatter(x=frame[x], y=frame[column], mode="lines+markers",
                                 name=(names or {}).get(column, column),
                                 line={"color": PALETTE[index % len(PALETTE)], "width": 2}, marker={"size": 6}))
    xaxes: dict[str, object] = {"title": {"text": x_title}}
    if pd.api.types.is_integer_dtype(frame[x]) and len(frame):
        # Counted steps (compactions, turns): ticks on whole numbers only; Plotly's own put two
        # compactions at 1, 1.2, 1.4, ... 2.
        low, high = int(frame[x].min()), int(frame[x].max())
        xaxes.update(tickmode="linear", tick0=low, dtick=max(1, -(-(high - low) // 8)))
    return style(fig, height=height, legend="bottom" if len(columns) > 1 else None, xaxes=xaxes,
                 yaxes={"title": {"text": y_title}, "rangemode": "tozero"})


def wrap_label(text: str, width: int = 14) -> str:
    """A category label broken into lines of about ``width`` characters (``<br>`` between them)."""
    words = str(text).split()
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return "<br>".join(lines) or str(text)


def _legend_line(name: str, color: str, dash: str, *, xaxis: str = "x", yaxis: str = "y",
                 x: Sequence[float] | None = None, y: float | None = None, group: str | None = None) -> go.Scatter:
    """A horizontal reference line drawn as a trace, so the legend (not text on the line) names it.

    Without ``x``/``y`` the trace only carries the legend entry (the line itself is off the plot).
    """
    xs = list(x) if x is not None and y is not None else [None]
    ys = [y] * len(xs) if y is not None and x is not None else [None]
    return go.Scatter(x=xs, y=ys, mode="lines", name=name, xaxis=xaxis, yaxis=yaxis, legendgroup=group,
                      line={"color": color, "dash": dash, "width": 1.5}, hoverinfo="skip" if y is None else None,
                      hovertemplate=f"{name}<extra></extra>" if y is not None else None)


def staggered_labels(positions: Sequence[float], span: float, *, min_gap: float = 0.14) -> list[int]:
    """A row (0, 1, ...) for each label at ``positions`` so that labels closer than ``min_gap`` of
    ``span`` never share a row."""
    rows: list[int] = []
    last_in_row: dict[int, float] = {}
    for position in positions:
        row = 0
        while row in last_in_row and abs(position - last_in_row[row]) < min_gap * max(span, 1e-9):
            row += 1
        last_in_row[row] = position
        rows.append(row)
    return rows


def adaptive_top(values: Sequence[float], lines: Sequence[float], *, reach: float = 2.5,
                 headroom: float = 1.08) -> tuple[float, list[bool]]:
    """The top of a y axis that fits the data, and which reference ``lines`` fall inside it.

    A line is drawn when it is within ``reach`` times the data's maximum; a far line (a threshold
    of 500K above a 60K conversation) would squash the data onto the axis, so it is left out of
    the range (its legend entry says so).
    """
    data_top = max([0.0, *[float(v) for v in values]])
    inside = [line <= max(data_top, 1.0) * reach for line in lines]
    top = max([data_top, *[line for line, shown in zip(lines, inside, strict=True) if shown]])
    return (top * headroom if top > 0 else 1.0), inside


def color_for(mapping: dict[str, str], key: str) -> str:
    return mapping.get(key, FALLBACK_COLOR)




def _note(text: str, *, x: float, y: float, xref: str, yref: str, color: str | None = None,
          **extra: object) -> dict:
    return {"text": text, "x": x, "y": y, "xref": xref, "yref": yref, "showarrow": False,
            "font": {"size": 11, "color": color}, **extra}


# Beyond this many messages the zone map draws bins of consecutive messages: a bar per message
# would be thousands of SVG shapes, slow to draw and narrower than a pixel anyway (the plot is about
# 1,100 pixels wide at 1400, 450 at 800). Zones opened at once after a 1,395-message upload took
# 1.70, 1.44, 1.13 s with a bar per message, 1.18, 0.96, 1.11 s in bins of two (`make bench`).
ZONE_MAP_MAX_BARS = 700


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

    Top: one bar per message (exact tokens), coloured HEAD / MIDDLE / TAIL, with the part Phase 1
    cuts stacked on it in a fainter shade, and the region Phase 1 protects shaded. Bottom: the
    prompt size after each message against the threshold, and the running total from the end
    against the tail budget and its 1.5x soft ceiling (both with the estimator that makes the
    decisions). Every line is named in the legend; the two boundaries are labelled above the plot.
    Past ``ZONE_MAP_MAX_BARS`` messages each bar is a bin of consecutive messages of one zone (its
    tokens summed) and the lines are drawn at the bins' ends. A click on a bar selects it: the
    point's customdata starts with the index of its (first) message.
    """
    # Plain dicts, and a figure built without validation: validating thousands of values on every
    # slider move costs more than drawing them.
    table = zones.table
    n = zones.n_messages
    unit = "estimated tokens" if zones.estimator == "hermes" else "tokens (tiktoken)"
    x_range = [-0.5, max(n, 1) - 0.5]
    starts = zone_map_bins(zones)
    binned = len(starts) < n
    ends = np.append(starts[1:], n).astype(np.int64) if len(starts) else starts
    tokens = table["tokens"].to_numpy()
    after = table["after_phase1"].to_numpy()
    zone_of = table["zone"].to_numpy()
    phase1 = table["phase1"].to_numpy()
    if binned:
        kept = np.add.reduceat(after, starts) if len(starts) else after[:0]
        whole = np.add.reduceat(tokens, starts) if len(starts) else tokens[:0]
        labels = np.array([f"#{a:,}–{b - 1:,} ({b - a:,} messages)"
                           for a, b in zip(starts.tolist(), ends.tolist(), strict=True)], dtype=object)
        centres = (starts + ends - 1) / 2.0
        widths = (ends - starts).astype(np.float64) * 0.95
        line_at = ends - 1
    else:
        kept, whole = after, tokens
        labels = np.array([f"#{i:,} {role}" for i, role in enumerate(table["role"].tolist())], dtype=object)
        centres, widths, line_at = starts.astype(np.float64), None, np.arange(n)
    bar_zone = zone_of[starts] if len(starts) else zone_of
    notes_of = phase1[starts] if binned else phase1
    details = np.column_stack([starts, labels, whole, np.where(notes_of == "", "—", notes_of)])
    traces: list[dict] = []
    cut_shown = False
    for zone in ("HEAD", "MIDDLE", "TAIL", "UNCHANGED"):
        picked = np.flatnonzero(bar_zone == zone)
        if not picked.size:
            continue
        bar = {"type": "bar", "x": centres[picked], "y": kept[picked], "name": zone, "legendgroup": zone,
               "xaxis": "x", "yaxis": "y", "marker": {"color": ZONE_COLORS[zone], "line": {"width": 0}},
               "customdata": details[picked],
               # A click selects one bar: the others stay readable (Plotly's default fades them to 0.2).
               "selected": {"marker": {"opacity": 1}}, "unselected": {"marker": {"opacity": 0.6}},
               "hovertemplate": "%{customdata[1]}<br>%{customdata[2]:,} tokens, %{y:,} after Phase 1"
                                f"<br>Phase 1: %{{customdata[3]}}<br>click to open<extra>{zone}</extra>"}
        if widths is not None:
            bar["width"] = widths[picked]
        traces.append(bar)
        cut = picked[whole[picked] > kept[picked]]
        if cut.size:
            faded = {"type": "bar", "x": centres[cut], "y": whole[cut] - kept[cut], "name": "cut by Phase 1",
                     "legendgroup": "cut", "showlegend": not cut_shown, "xaxis": "x", "yaxis": "y",
                     "marker": {"color": _hex_rgba(ZONE_COLORS[zone], 0.3), "line": {"width": 0}},
                     "customdata": details[cut], "unselected": {"marker": {"opacity": 0.6}},
                     "hovertemplate": "%{customdata[1]}: %{customdata[2]:,} tokens before Phase 1"
                                      "<br>%{customdata[3]}<extra>Phase 1</extra>"}
            if widths is not None:
                faded["width"] = widths[cut]
            traces.append(faded)
            cut_shown = True
    shapes: list[dict] = []
    notes: list[dict] = []
    if zones.prune_boundary is not None and zones.prune_boundary < n:
        shapes.append({"type": "rect", "xref": "x", "yref": "y domain", "x0": zones.prune_boundary - 0.5,
                       "x1": n - 0.5, "y0": 0, "y1": 1, "fillcolor": PROTECTED_FILL, "line": {"width": 0},
                       "layer": "below"})
        traces.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers", "xaxis": "x", "yaxis": "y",
                       "name": f"left alone by Phase 1 (from #{zones.prune_boundary:,})",
                       "marker": {"symbol": "square", "size": 14, "color": "rgba(128, 128, 128, 0.35)"},
                       "hoverinfo": "skip"})
    prompt = table["prompt_so_far"].to_numpy()[line_at] if n else np.zeros(0, dtype=np.int64)
    walk = table["tail_walk"].to_numpy()[starts] if len(starts) else np.zeros(0, dtype=np.int64)
    lines = [(zones.threshold_tokens, f"threshold {zones.threshold_tokens:,}", THRESHOLD_COLOR, "dash"),
             (zones.soft_ceiling, f"tail walk limit (1.5×) {zones.soft_ceiling:,}", BUDGET_COLOR, "dot"),
             (zones.tail_token_budget, f"tail budget {zones.tail_token_budget:,}", BUDGET_COLOR, "dash")]
    data_top = max(int(prompt.max()) if prompt.size else 0, int(walk.max()) if walk.size else 0)
    top_y, inside = adaptive_top([data_top], [value for value, *_ in lines])
    traces.append({"type": "scatter", "x": line_at.astype(np.float64), "y": prompt, "name": "prompt so far",
                   "mode": "lines", "xaxis": "x2", "yaxis": "y2", "line": {"color": AFTER_COLOR, "width": 2},
                   "hovertemplate": "after #%{x}: %{y:,}<extra>prompt so far</extra>"})
    traces.append({"type": "scatter", "x": starts.astype(np.float64), "y": walk, "name": "tail walk (from the end)",
                   "mode": "lines", "xaxis": "x2", "yaxis": "y2", "line": {"color": BUDGET_COLOR, "width": 2},
                   "hovertemplate": "#%{x} to the end: %{y:,}<extra>tail walk</extra>"})
    for (value, name, color, dash), shown in zip(lines, inside, strict=True):
        if shown:
            traces.append(_legend_line(name, color, dash, xaxis="x2", yaxis="y2", x=x_range, y=value).to_plotly_json())
        else:
            traces.append(_legend_line(f"{name} (above the chart)", color, dash, xaxis="x2", yaxis="y2").to_plotly_json())
    if not zones.middle_empty:
        marks = [(b, label) for b, label in ((zones.compress_start, "middle starts"), (zones.compress_end, "tail starts"))
                 if b is not None and b < n]
        rows = staggered_labels([b for b, _ in marks], n, min_gap=0.16)
        for (boundary, label), row in zip(marks, rows, strict=True):
            for axis in ("y", "y2"):
                shapes.append({"type": "line", "xref": "x", "yref": f"{axis} domain", "x0": boundary - 0.5,
                               "x1": boundary - 0.5, "y0": 0, "y1": 1,
                               "line": {"color": MUTED_COLOR, "dash": "dot", "width": 1}})
            anchor = "right" if boundary > n * 0.8 else "left"
            notes.append(_note(f"{label} · #{boundary:,}", x=boundary - 0.5, y=1.0, xref="x", yref="y domain",
                               xanchor=anchor, yanchor="bottom", yshift=2 + 16 * row))
    # The x axis's title is a note in the left margin, level with its tick labels: the margins are
    # fixed (see below), and under the labels it would run into the legend's rows at narrow widths.
    notes.append(_note("message #", x=0, y=0, xref="paper", yref="paper", xanchor="right", yanchor="top",
                       xshift=-12, yshift=-4, font={"size": 12}))
    per = f"per bin of {int(ends[0] - starts[0]):,} messages" if binned else "per message"
    layout = {
        "barmode": "stack",
        "bargap": 0.05,
        "xaxis": {"domain": [0, 1], "anchor": "y", "showticklabels": False, "range": x_range},
        "yaxis": {"domain": [0.5, 0.94], "title": {"text": f"{exact_label}<br>{per}"}},
        "xaxis2": {"domain": [0, 1], "anchor": "y2", "matches": "x"},
        "yaxis2": {"domain": [0, 0.4], "title": {"text": f"prompt and tail walk<br>({unit})"},
                   "range": [0, top_y]},
        "shapes": shapes,
        "annotations": notes,
        "clickmode": "event+select",
    }
    fig = go.Figure({"data": traces, "layout": layout}, _validate=False)
    style(fig, height=640)
    # Redrawn on every slider move: fixed margins (tick labels at most "2,000" or "150k" wide).
    return fix_margins(fig, l=90, t=40, b=110)


def waterfall_figure(savings: SavingsAnalysis, *, estimate: bool = False) -> go.Figure:
    """Original total, each step's change as a floating bar in its own colour, and the final total.

    Labels are wrapped so the axis holds at 800 px; each bar's customdata is its step key (a click
    selects the step).
    """
    xs: list[str] = []
    bases: list[float] = []
    heights: list[float] = []
    colors: list[str] = []
    texts: list[str] = []
    keys: list[str] = []
    previous = 0
    for step in savings.steps:
        total = step.hermes_tokens if estimate else step.exact_tokens
        xs.append(wrap_label(step.label, 13))
        keys.append(step.key)
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
            cliponaxis=False, customdata=keys, hovertemplate="%{x}: %{text}<br>click to list the messages"
            "<extra></extra>",
        )
    )
    top = max([b + h for b, h in zip(bases, heights, strict=True)] or [1])
    style(fig, height=440, legend=None, layout={"clickmode": "event+select"},
          xaxes={"tickangle": 0, "tickfont": {"size": 11}},
          yaxes={"title": {"text": "estimated tokens (hermes)" if estimate else "tokens (tiktoken)"},
                 "range": [0, top * 1.12]})
    # Upright labels of at most a few 11 px lines under the bars, a one-line title and tick labels
    # such as "160k" on the left.
    lines = max((label.count("<br>") + 1 for label in xs), default=1)
    return fix_margins(fig, l=64, b=14 + 14 * lines)


def before_after_figure(table: pd.DataFrame, key: str, *, colors: dict[str, str] | None = None,
                        title: str | None = None) -> go.Figure:
    """Two stacked bars, before and after, split by ``key`` (role, tool or category).

    Each segment has its key's colour, and the legend names the keys (so a colour always means one
    key); a ``summary`` row is drawn as its own segment in the summary colour. The totals are
    written above the bars.
    """
    fig = go.Figure()
    palette = dict(colors or {})
    palette.setdefault("summary", SUMMARY_COLOR)
    sides = ["before", "after"]
    for position, row in enumerate(table.itertuples(index=False)):
        name = str(getattr(row, key))
        values = [int(row.before), int(row.after)]
        if not any(values):
            continue
        color = palette.get(name) or PALETTE[position % len(PALETTE)]
        fig.add_trace(go.Bar(
            x=sides, y=values, name=name, marker_color=color,
            customdata=[[name, values[0]], [name, values[1]]],
            hovertemplate="%{customdata[0]}: %{y:,} tokens %{x}<extra></extra>",
        ))
    totals = [int(table["before"].sum()), int(table["after"].sum())]
    fig.add_trace(go.Scatter(x=sides, y=totals, mode="text", text=[f"{t:,}" for t in totals],
                             textposition="top center", showlegend=False, hoverinfo="skip", cliponaxis=False))
    style(fig, height=380, title=title, layout={"barmode": "stack", "bargap": 0.35, "legend": {"traceorder": "normal"}},
          yaxes={"title": {"text": "tokens (tiktoken)"}, "range": [0, max(totals or [1]) * 1.12 or 1]})
    # "before" and "after" under the bars, tick labels such as "150k" and a one-line title on the left.
    return fix_margins(fig, l=64, b=96)
