"""The HTML bars of the first page: marker labels kept apart, every label escaped."""

from __future__ import annotations

import re

from core.render.html_charts import Marker, Segment, stacked_bar


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
