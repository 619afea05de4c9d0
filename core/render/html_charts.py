"""Small bar charts as plain HTML and CSS: drawn at once, in any theme, with no script at all.

The first page's charts (where a conversation's tokens go) are simple bars; drawing them with
Plotly would make the browser load and compile 4.7 MB of JavaScript before the page is usable.
These functions return self-contained HTML fragments instead (used by the overview page and the
HTML report): widths in percent so they hold at any screen width, colours from the dashboard's
palette, neutral greys that read on a light and on a dark background, every label escaped, and a
``title`` on each bar for the exact figure. Each chart carries ``data-chart="<name>"``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.render.formatting import integer

__all__ = ["Bar", "Marker", "Segment", "bar_rows", "breakdown_html", "request_html", "stacked_bar",
           "tool_breakdown_html"]

_GREY_TRACK = "rgba(128, 128, 128, 0.14)"
_GREY_LINE = "rgba(128, 128, 128, 0.85)"
_FONT = "font-family: inherit; font-size: 0.85rem; line-height: 1.35;"


# The room (percent of the bar) two marker labels on one row need: a quarter of the bar when both
# run the same way, half when the left one runs right and the right one runs left (towards each
# other), so that two labels of about 16 characters stay apart on a 470-pixel-wide bar.
_LABEL_GAP = {(False, False): 24.0, (True, True): 24.0, (False, True): 50.0, (True, False): 0.0}


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _pct(value: float, span: float) -> float:
    return max(0.0, min(100.0, value / span * 100)) if span > 0 else 0.0


@dataclass(frozen=True)
class Segment:
    label: str
    value: int
    color: str
    detail: str = ""  # the bar's title says this instead of the value (e.g. "messages 4–302")


@dataclass(frozen=True)
class Marker:
    label: str
    value: int
    color: str = _GREY_LINE
    dashed: bool = False


def _legend(segments: Sequence[Segment], markers: Sequence[Marker]) -> str:
    items = [
        f'<span style="display:inline-flex; align-items:center; gap:0.3rem; margin-right:1rem;">'
        f'<span style="width:0.75rem; height:0.75rem; border-radius:2px; background:{s.color};"></span>'
        f"{_e(s.label)}</span>"
        for s in segments if s.value > 0
    ]
    items += [
        f'<span style="display:inline-flex; align-items:center; gap:0.3rem; margin-right:1rem;">'
        f'<span style="width:0; height:0.9rem; border-left:2px {"dashed" if m.dashed else "solid"} {m.color};">'
        f"</span>{_e(m.label)}</span>"
        for m in markers
    ]
    return f'<div style="{_FONT} margin-top:0.45rem; opacity:0.9;">{"".join(items)}</div>'


def stacked_bar(name: str, segments: Sequence[Segment], *, markers: Sequence[Marker] = (),
                span: int | None = None, unit: str = "tokens") -> str:
    """One horizontal bar split into ``segments``, with vertical ``markers`` (a threshold, a window).

    ``span`` is the value at the right edge (at least the total and every marker). Marker labels
    sit above the bar, anchored towards the middle so one at either edge is never cut off; two
    close labels are put on separate rows.
    """
    total = sum(max(0, s.value) for s in segments)
    # The right edge is the largest value shown, unpadded: the scale's end label is a real figure
    # (the window, or the request itself when it is larger), never a number of its own.
    right = max([span or 0, total, *(m.value for m in markers)]) or 1
    parts = "".join(
        f'<div title="{_e(s.label)}: {integer(s.value)} {_e(unit)}" '
        f'style="width:{_pct(s.value, right):.3f}%; background:{s.color}; height:100%;"></div>'
        for s in segments if s.value > 0
    )
    rows: list[tuple[float, bool]] = []  # per row, the last label's position and whether it runs left
    labels, lines = [], []
    for marker in sorted(markers, key=lambda m: m.value):
        at = _pct(marker.value, right)
        runs_left = at > 60
        row = 0
        while row < len(rows) and at - rows[row][0] < _LABEL_GAP[(rows[row][1], runs_left)]:
            row += 1
        if row == len(rows):
            rows.append((at, runs_left))
        else:
            rows[row] = (at, runs_left)
        anchor = "right: 0;" if runs_left else "left: 0;"
        labels.append(
            f'<div style="position:absolute; left:{at:.3f}%; top:{row * 1.3:.2f}rem; width:0;">'
            f'<span style="position:absolute; {anchor} white-space:nowrap; padding:0 0.3rem; color:{marker.color};">'
            f"{_e(marker.label)}</span></div>"
        )
        style = "dashed" if marker.dashed else "solid"
        lines.append(f'<div style="position:absolute; left:{at:.3f}%; top:-0.2rem; bottom:-0.2rem; '
                     f'border-left:2px {style} {marker.color};"></div>')
    label_height = 1.3 * max(1, len(rows)) if markers else 0
    return (
        f'<div data-chart="{_e(name)}" style="{_FONT} margin:0.4rem 0 0.8rem;">'
        f'<div style="position:relative; height:{label_height:.2f}rem;">{"".join(labels)}</div>'
        f'<div style="position:relative; height:2.1rem; background:{_GREY_TRACK}; border-radius:4px;">'
        f'<div style="display:flex; height:100%; border-radius:4px; overflow:hidden;">{parts}</div>'
        f'{"".join(lines)}</div>'
        f'<div style="display:flex; justify-content:space-between; opacity:0.75; margin-top:0.15rem;">'
        f"<span>0</span><span>{integer(round(right))} {_e(unit)}</span></div>"
        + _legend(segments, markers) + "</div>"
    )


# The longest bar takes this share of its column: the rest is room for its note.
_BAR_SHARE = 0.78
# How far past a bar's end (percent of the column) a marker would run through the bar's note.
_NOTE_ROOM = 12.0


@dataclass(frozen=True)
class Bar:
    label: str
    parts: tuple[Segment, ...]  # one segment for a plain bar, several for a stacked one
    note: str = ""  # written after the bar, e.g. "141,225 (88%)"


def bar_rows(name: str, bars: Sequence[Bar], *, unit: str = "tokens", legend: bool = False,
             label_width: str = "minmax(5rem, 11rem)", markers: Sequence[Marker] = (),
             span: int | None = None) -> str:
    """Horizontal bars, one row each (label, bar, note), scaled to the largest.

    ``legend`` names the segment colours (for stacked bars) and the markers; ``label_width`` is the
    labels' column (a CSS grid track: short labels can give the bars the room); ``markers`` are
    vertical lines through every row at their value (a budget, an original size), drawn under the
    bars and the notes; ``span`` is the value of the longest bar's length at least (100 % for shares).
    """
    top = max([span or 0, *(sum(p.value for p in bar.parts) for bar in bars), *(m.value for m in markers)]) or 1
    marker_at = [_pct(m.value, top) * _BAR_SHARE for m in markers]  # percent of the bar's column
    # The gap between rows is bridged (top/bottom beyond the row), so a marker reads as one line.
    lines = "".join(
        f'<div style="position:absolute; z-index:0; left:{at:.3f}%; top:-0.3rem; '
        f'bottom:-0.3rem; border-left:2px {"dashed" if m.dashed else "solid"} {m.color}; pointer-events:none;">'
        f"</div>"
        for m, at in zip(markers, marker_at, strict=True)
    )
    rows = []
    for bar in bars:
        total = sum(p.value for p in bar.parts)
        end = _pct(total, top) * _BAR_SHARE
        # A marker just past the bar would run through its note: the note starts after that marker.
        crossed = [at for at in marker_at if end <= at <= end + _NOTE_ROOM]
        shift = f" margin-left:{max(crossed) - end:.3f}%;" if crossed else ""
        segments = "".join(
            f'<div title="{_e(bar.label)} · {_e(p.label)}: {_e(p.detail) if p.detail else integer(p.value)}'
            f'{"" if p.detail else " " + _e(unit)}" '
            f'style="width:{_pct(p.value, total):.3f}%; background:{p.color}; height:100%;"></div>'
            for p in bar.parts if p.value > 0
        )
        rows.append(
            f'<div style="display:grid; grid-template-columns: {label_width} 1fr; gap:0.6rem; '
            f'align-items:center; margin:0.3rem 0;">'
            f'<div style="text-align:right; overflow-wrap:anywhere;">{_e(bar.label)}</div>'
            f'<div style="position:relative; display:flex; align-items:center; gap:0.4rem; min-width:0;">'
            # The bar never shrinks for its note (a long note on a narrow page would shorten that bar
            # alone, and the bars would no longer be to scale): the note wraps instead.
            f'<div style="position:relative; z-index:1; display:flex; flex-shrink:0; height:1.25rem; '
            f'width:{end:.3f}%; min-width:2px; border-radius:3px; overflow:hidden;">{segments}</div>'
            f'<span style="position:relative; z-index:1; min-width:0; opacity:0.85;{shift}">{_e(bar.note)}</span>'
            f"{lines}</div></div>"
        )
    legend_html = ""
    if (legend or markers) and bars:
        seen: dict[str, Segment] = {}
        if legend:
            for bar in bars:
                for part in bar.parts:
                    seen.setdefault(part.label, part)
        legend_html = _legend(list(seen.values()), markers)
    return f'<div data-chart="{_e(name)}" style="{_FONT} margin:0.4rem 0;">{"".join(rows)}{legend_html}</div>'


# --- the overview's charts -------------------------------------------------------------------------


def request_html(breakdown: Any, context_length: int, threshold_tokens: int) -> str:
    """The whole request by part in one bar (a ``core.inspections.request.RequestBreakdown``), against
    the window and the threshold, with the last recorded prompt size when the log has one."""
    from core.inspections.request import PART_LABELS
    from core.render.palette import MUTED_COLOR, PART_COLORS, RECORDED_COLOR, THRESHOLD_COLOR

    unit = "estimated tokens" if breakdown.unit == "hermes" else f"tokens ({breakdown.unit})"
    segments = [Segment(PART_LABELS[name], int(tokens), PART_COLORS[name])
                for name, tokens in breakdown.parts.items()]
    markers = [Marker(f"threshold {threshold_tokens:,}", threshold_tokens, THRESHOLD_COLOR, dashed=True),
               Marker(f"window {context_length:,}", context_length, MUTED_COLOR)]
    if breakdown.recorded_last_prompt is not None:
        markers.append(Marker(f"recorded last prompt {breakdown.recorded_last_prompt:,}",
                              int(breakdown.recorded_last_prompt), RECORDED_COLOR))
    return stacked_bar("whole-request", segments, markers=markers, span=context_length, unit=unit)


def breakdown_html(table: Any, key: str, *, colors: dict[str, str] | None = None, name: str | None = None) -> str:
    """Tokens per ``key`` (role or category), largest first, with the share."""
    from core.render.palette import FALLBACK_COLOR

    rows = table[table["tokens"] > 0] if "tokens" in table else table
    bars = [Bar(str(label), (Segment("tokens", int(tokens), (colors or {}).get(str(label), FALLBACK_COLOR)),),
                f"{int(tokens):,} ({share:.0%})")
            for label, tokens, share in zip(rows[key], rows["tokens"], rows["share"], strict=True)]
    bars.sort(key=lambda bar: -bar.parts[0].value)
    return bar_rows(name or f"by-{key}", bars)


def tool_breakdown_html(by_tool: Any, *, top: int = 15) -> str:
    """Tokens per tool (the largest ``top``), each split into the calls' arguments and the results."""
    from core.render.palette import CATEGORY_COLORS

    bars = [
        Bar(str(tool), (Segment("tool calls", int(calls), CATEGORY_COLORS["tool calls"]),
                        Segment("tool results", int(results), CATEGORY_COLORS["tool results"])),
            f"{int(tokens):,} ({share:.0%})")
        for tool, calls, results, tokens, share in zip(
            by_tool["tool"], by_tool["call_tokens"], by_tool["result_tokens"], by_tool["tokens"], by_tool["share"],
            strict=True)
    ][:top]
    return bar_rows("by-tool", bars, legend=True)
