"""The timeline replay drawn: the sawtooth prompt curve, the threshold, the compactions, the log's own."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from core.render.charts import AFTER_COLOR, FALLBACK_COLOR, THRESHOLD_COLOR, ZONE_COLORS
from core.views.replay import Replay

__all__ = ["replay_caption", "replay_figure"]


CURVE_COLOR = AFTER_COLOR


SUMMARIZED_COLOR = ZONE_COLORS["MIDDLE"]


FALLBACK_MARK_COLOR = FALLBACK_COLOR


REAL_EVENT_COLOR = "#8e6cc4"


LOGGED_COLOR = "#00798c"


THRESHOLD_LINE_COLOR = THRESHOLD_COLOR


WINDOW_COLOR = "#333333"


def _sawtooth(points: pd.DataFrame) -> tuple[list[int], list[int]]:
    xs: list[int] = []
    ys: list[int] = []
    for index, before, after in zip(points["message_index"], points["prompt_before"], points["prompt_after"],
                                    strict=True):
        xs.append(int(index))
        ys.append(int(before))
        if after != before:  # a compaction, or a compress() that only pruned (nothing_to_compress)
            xs.append(int(index))
            ys.append(int(after))
    return xs, ys


def replay_figure(
    result: Replay,
    real_events: pd.DataFrame | None = None,
    logged: pd.DataFrame | None = None,
    estimated: pd.DataFrame | None = None,
) -> go.Figure:
    """The sawtooth prompt-size curve, the threshold, the replay's compactions and, when given,
    the log's own compactions, its recorded prompt sizes and the estimate of those same requests
    (``estimated``: ``message_index``, ``estimate``, e.g. ``RequestBreakdown.turn_table()``) on the
    same axes (message index)."""
    unit = "estimated tokens (hermes)" if result.estimator == "hermes" else "tokens (tiktoken)"
    if result.sized_by_recorded:
        unit = "tokens (recorded where the log has them)"
    xs, ys = _sawtooth(result.points)
    traces: list[go.Scatter] = [
        go.Scatter(x=xs, y=ys, mode="lines", name="prompt size (replay)", line={"color": CURVE_COLOR, "width": 2},
                   hovertemplate="message %{x}: %{y:,} tokens<extra>replay</extra>")
    ]
    for outcome, color, label in (("summarized", SUMMARIZED_COLOR, "compaction (summary)"),
                                  ("fallback", FALLBACK_MARK_COLOR, "compaction (fallback)")):
        chosen = [r for r in result.compactions if r.outcome == outcome]
        if chosen:
            traces.append(go.Scatter(
                x=[r.message_index for r in chosen], y=[r.tokens_before for r in chosen], mode="markers",
                name=label, marker={"symbol": "triangle-down", "size": 12, "color": color},
                customdata=[[r.number, r.tokens_after, r.savings_pct] for r in chosen],
                hovertemplate="compaction #%{customdata[0]} at message %{x}<br>%{y:,} → %{customdata[1]:,} tokens"
                              "<br>saved %{customdata[2]:.1f}%<extra></extra>",
            ))
    other = [r for r in result.compactions if not r.compressed]
    if other:
        traces.append(go.Scatter(
            x=[r.message_index for r in other], y=[r.tokens_before for r in other], mode="markers",
            name="compress() without compaction", marker={"symbol": "x", "size": 9, "color": FALLBACK_MARK_COLOR},
            customdata=[[r.outcome, f"<br>{r.why}" if r.why else ""] for r in other],
            hovertemplate="message %{x}: %{customdata[0]}%{customdata[1]}<extra></extra>",
        ))
    if estimated is not None and len(estimated):
        traces.append(go.Scatter(
            x=estimated["message_index"], y=estimated["estimate"], mode="lines", name="log's prompt (estimate)",
            line={"color": LOGGED_COLOR, "width": 1, "dash": "dash"},
            hovertemplate="message %{x}: %{y:,} tokens<extra>estimate of the log's request</extra>",
        ))
    if logged is not None and len(logged):
        traces.append(go.Scatter(
            x=logged["message_index"], y=logged["prompt_tokens"], mode="lines+markers", name="prompt size (log usage)",
            line={"color": LOGGED_COLOR, "width": 1, "dash": "dot"}, marker={"size": 4},
            hovertemplate="message %{x}: %{y:,} tokens<extra>log usage</extra>",
        ))
    shapes: list[dict[str, Any]] = [
        {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": result.threshold_tokens,
         "y1": result.threshold_tokens, "line": {"color": THRESHOLD_LINE_COLOR, "dash": "dash", "width": 1.5}},
    ]
    notes: list[dict[str, Any]] = [
        {"text": f"threshold {result.threshold_tokens:,}", "x": 0, "xref": "paper", "xanchor": "left",
         "y": result.threshold_tokens, "yref": "y", "yanchor": "bottom", "showarrow": False,
         "font": {"size": 11, "color": THRESHOLD_LINE_COLOR}},
    ]
    event_tokens = ([int(v) for v in real_events["pre_tokens"] if pd.notna(v)]
                    if real_events is not None and "pre_tokens" in real_events else [])
    top = max([result.threshold_tokens, *ys, *event_tokens,
               *(logged["prompt_tokens"].tolist() if logged is not None else []),
               *(estimated["estimate"].tolist() if estimated is not None else [])])
    if top >= 0.7 * result.context_length:
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": result.context_length,
                       "y1": result.context_length, "line": {"color": WINDOW_COLOR, "width": 1.5}})
        notes.append({"text": f"window {result.context_length:,}", "x": 1, "xref": "paper", "xanchor": "right",
                      "y": result.context_length, "yref": "y", "yanchor": "bottom", "showarrow": False,
                      "font": {"size": 11}})
        top = max(top, result.context_length)
    if real_events is not None and len(real_events):
        for position, kind in zip(real_events["position"], real_events["kind"], strict=True):
            shapes.append({"type": "line", "xref": "x", "x0": position - 0.5, "x1": position - 0.5, "yref": "paper",
                           "y0": 0, "y1": 1, "line": {"color": REAL_EVENT_COLOR, "dash": "dot", "width": 1.5}})
            notes.append({"text": f"log: {kind}", "x": position - 0.5, "xref": "x", "xanchor": "left", "y": 1,
                          "yref": "paper", "yanchor": "top", "showarrow": False,
                          "font": {"size": 10, "color": REAL_EVENT_COLOR}})
        with_tokens = real_events.dropna(subset=["pre_tokens"]) if "pre_tokens" in real_events else real_events[:0]
        traces.append(go.Scatter(
            x=(real_events["position"] - 0.5).tolist(),
            y=[int(v) if pd.notna(v) else None for v in real_events["pre_tokens"]] if len(with_tokens)
            else [result.threshold_tokens] * len(real_events),
            mode="markers", name="compaction in the log",
            marker={"symbol": "diamond", "size": 10, "color": REAL_EVENT_COLOR},
            customdata=real_events[["kind"]].to_numpy(),
            hovertemplate="log compaction (%{customdata[0]}) before message %{x:.0f}<extra></extra>",
        ))
    from core.render.charts import style

    fig = go.Figure(data=traces)
    # No background of its own: the dashboard's theme shows through.
    return style(fig, height=480, layout={"shapes": shapes, "annotations": notes},
                 xaxes={"title": {"text": "message index (uploaded conversation)"},
                        "range": [-0.5, max(result.n_messages, 1) - 0.5]},
                 yaxes={"title": {"text": unit}, "range": [0, top * 1.08 if top else 1]})


def replay_caption(
    result: Replay,
    real_events: pd.DataFrame | None = None,
    logged: pd.DataFrame | None = None,
    estimated: pd.DataFrame | None = None,
) -> str:
    """What :func:`replay_figure` draws for the same arguments, in words: only the marks it has."""
    parts = ["The blue line is the request before each assistant message"]
    outcomes = {r.outcome for r in result.compactions if r.compressed}
    if outcomes:
        marks = " and ".join(
            f"{color} down-triangles mark compactions with {what}"
            for outcome, color, what in (("summarized", "orange", "a summary"), ("fallback", "grey", "the fallback summary"))
            if outcome in outcomes
        )
        parts.append(f"it drops where a compaction fired ({marks})")
    if any(not r.compressed for r in result.compactions):
        parts.append("grey crosses mark compress() calls that compacted nothing")
    sentences = ["; ".join(parts) + ".", "The dashed red line is the threshold."]
    if real_events is not None and len(real_events):
        sentences.append("Purple diamonds and dotted lines are the compactions the agent that wrote the log performed.")
    if logged is not None and len(logged):
        sentences.append("The dotted teal line is the prompt size the log recorded"
                         + (" and the dashed teal one the estimate of that same request." if estimated is not None
                            and len(estimated) else "."))
    elif estimated is not None and len(estimated):
        sentences.append("The dashed teal line is the estimate of the log's own requests.")
    if not result.compactions:
        sentences.append("The prompt never reached the threshold, so the line never drops.")
    return " ".join(sentences)
