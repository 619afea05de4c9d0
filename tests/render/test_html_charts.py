"""The HTML bars: marker labels kept apart, every label escaped, bars and markers to one scale."""

from __future__ import annotations

import re

from core.render.html_charts import Bar, Marker, Segment, bar_rows, stacked_bar


def _label_rows(html: str) -> dict[str, float]:
    """Each marker label's row offset (rem), read from the absolutely placed label boxes."""
    found = re.findall(r'top:([\d.]+)rem; width:0;"><span[^>]*>([^<]+)</span>', html)
    return {label: float(top) for top, label in found}


def test_labels_that_run_towards_each_other_go_on_two_rows() -> None:
    # threshold at about 39% runs right, window at about 78% runs left: they would meet on a narrow bar.
    html = stacked_bar("request", [Segment("messages", 160_000, "#3b6fb6")],
                       markers=[Marker("threshold 64,000", 64_000), Marker("window 128,000", 128_000)])
    rows = _label_rows(html)
    assert rows["threshold 64,000"] != rows["window 128,000"]


def test_labels_far_apart_share_a_row_and_labels_are_escaped() -> None:
    html = stacked_bar("request", [Segment("<b>messages</b>", 100, "#3b6fb6")],
                       markers=[Marker("low <i>", 5), Marker("high", 95)], span=100)
    rows = _label_rows(html)
    assert rows == {"low &lt;i&gt;": 0.0, "high": 0.0}
    assert "<b>" not in html and "&lt;b&gt;messages&lt;/b&gt;" in html


def test_the_scale_ends_at_a_figure_the_bar_shows() -> None:
    # A request larger than the window: the scale's end is the request itself, not a padded number.
    html = stacked_bar("request", [Segment("messages", 150_000, "#3b6fb6"), Segment("tools", 10_457, "#888888")],
                       markers=[Marker("window 128,000", 128_000)], span=128_000)
    assert re.search(r"<span>160,457 tokens</span>", html)
    html = stacked_bar("request", [Segment("messages", 40_000, "#3b6fb6")], span=128_000)
    assert re.search(r"<span>128,000 tokens</span>", html)


def _bar_widths(html: str) -> list[float]:
    return [float(width) for width in re.findall(r"flex-shrink:0; height:1.25rem; width:([\d.]+)%", html)]


def _marker_lefts(html: str) -> list[float]:
    return [float(left) for left in re.findall(r"z-index:0; left:([\d.]+)%", html)]


def test_bar_rows_draw_markers_on_the_bars_scale() -> None:
    bars = [Bar("small", (Segment("tokens", 2_000, "#111111"),)), Bar("large", (Segment("tokens", 6_000, "#222222"),))]
    # The original size (8,000) is larger than any bar: it sets the scale, and it crosses every row.
    html = bar_rows("sizes", bars, markers=[Marker("budget 3,000", 3_000, dashed=True), Marker("original 8,000", 8_000)])
    assert _bar_widths(html) == [19.5, 58.5]  # 2,000 and 6,000 of 8,000, on 78 % of the column
    assert _marker_lefts(html) == [29.25, 78.0] * 2  # one line per row, at the same place in each
    assert html.count("dashed") == 2 + 1  # the budget's line in both rows and in the legend
    assert "budget 3,000" in html and "original 8,000" in html  # the legend names them
    # The budget's line runs just past the small bar: its note starts after the line, not through it.
    assert re.findall(r"opacity:0.85;( margin-left:[\d.]+%;)?\"", html) == [" margin-left:9.750%;", ""]
    # Without markers, the largest bar sets the scale, and no legend is written.
    plain = bar_rows("sizes", bars)
    assert _bar_widths(plain) == [26.0, 78.0] and not _marker_lefts(plain) and "budget" not in plain


def test_bar_rows_span_sets_the_scale_for_shares() -> None:
    bars = [Bar("half", (Segment("kept", 500, "#111111", detail="50.0 % kept"),), note="50%")]
    assert _bar_widths(bar_rows("shares", bars, span=1_000, unit="")) == [39.0]
    assert _bar_widths(bar_rows("shares", bars, unit="")) == [78.0]
    assert 'title="half · kept: 50.0 % kept"' in bar_rows("shares", bars, unit="")
