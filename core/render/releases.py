"""The release comparison drawn: one band of zones per release, as plain HTML bars.

Six bands of three colours need no plotting library: drawn as HTML (``core.render.html_charts``)
they show with the page, in either theme, and the page loads no chart script for them.
"""

from __future__ import annotations

from core.render.formatting import integer
from core.render.html_charts import Bar, Segment, bar_rows
from core.render.palette import ZONE_COLORS
from core.views.releases import HEAD, MIDDLE, TAIL, UNCHANGED, ReleaseComparison, runs_of

__all__ = ["release_zones_html"]


def release_zones_html(comparison: ReleaseComparison) -> str:
    """One horizontal band per release (oldest first): its HEAD, MIDDLE and TAIL over the message
    positions, each run titled with its messages, and the counts written after the band."""
    bars = []
    for run in comparison.runs:
        parts = tuple(
            Segment(zone, last - first + 1, ZONE_COLORS[zone],
                    detail=f"messages {first}–{last}" if last > first else f"message {first}")
            for zone, first, last in runs_of(run.zones)
        )
        # A conversation too small to compress is left whole: its band says so, not "HEAD 0 · ...".
        shown = (UNCHANGED,) if run.left_whole else (HEAD, MIDDLE, TAIL)
        note = " · ".join(f"{zone} {integer(run.count(zone))}" for zone in shown)
        bars.append(Bar(run.release, parts, note=note))
    # A release's name is short: its column takes no more, and the bands the rest (at 800 pixels too).
    return bar_rows("release_zones", bars, unit="messages", legend=True, label_width="max-content")
