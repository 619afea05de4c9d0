"""The releases in headless Chromium: the picker, the output reserve, the detected release, the comparison."""

from __future__ import annotations

import json

import pytest

from core import CompressorConfig
from core.profiles import PROFILES, SUMMARY_PREFIX_V0_16_0
from tests.e2e.conftest import ROOT, UI_TIMEOUT_MS, open_page, screenshot, upload, wait_until_idle

pytestmark = pytest.mark.browser

SAMPLES = ROOT / "sample_conversations"


def _sidebar(page):
    return page.locator("[data-testid='stSidebar']")


def _expect_value(field, value: str, sidebar) -> None:
    """The field shows ``value`` once the page has settled (a rerun may redraw the sidebar); if it
    never does, the failure says what the sidebar showed instead."""
    from playwright.sync_api import expect

    try:
        expect(field).to_have_value(value, timeout=UI_TIMEOUT_MS)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nthe sidebar showed:\n{sidebar.inner_text()[:2000]}") from None


def test_the_picker_lists_the_releases_newest_first_and_the_reserve_moves_the_threshold(page):
    page.get_by_text("Headline figures").wait_for()
    sidebar = _sidebar(page)
    picker = sidebar.get_by_role("combobox", name="Hermes release")
    assert "v0.19.0" in picker.input_value()
    picker.click()
    options = [o.inner_text() for o in page.get_by_role("option").all()]
    assert [o.split()[0] for o in options] == ["v0.19.0", "v0.18.1", "v0.18.0", "v0.17.0", "v0.16.0", "v0.15.1"]
    assert options[0] == f"v0.19.0 ({PROFILES['v0.19.0'].released})"
    page.keyboard.press("Escape")
    # gpt-4o's output limit fills the reserve; on a 128K window v0.19.0's floor is 75 % of what is left.
    reserve = sidebar.get_by_role("spinbutton", name="Output reserve (max_tokens)")
    _expect_value(reserve, "16384", sidebar)
    first = CompressorConfig(model="gpt-4o", max_tokens=16_384).threshold_tokens
    assert first == (128_000 - 16_384) * 3 // 4
    sidebar.get_by_text(f"Threshold: {first:,} tokens").first.wait_for()
    # A 100K window with a 65,536-token reserve: 50 % of the 34,464 left, floored, which the window
    # cannot serve, so 85 % of what is left.
    window = sidebar.get_by_role("spinbutton", name="Context length (tokens)")
    window.fill("100000")
    window.press("Enter")
    wait_until_idle(page)
    reserve.fill("65536")
    reserve.press("Enter")
    wait_until_idle(page)
    expected = CompressorConfig(context_length=100_000, max_tokens=65_536).threshold_tokens
    assert expected == 29_294
    sidebar.get_by_text(f"Threshold: {expected:,} tokens").first.wait_for()
    without = CompressorConfig(context_length=100_000).threshold_tokens
    assert without == 75_000  # v0.19.0's floor: 75 % of a window under 512K
    sidebar.get_by_text(f"Without the 65,536-token reserve: {without:,}.").first.wait_for()
    screenshot(page, "17_release_picker_and_reserve")
    assert not page.page_errors


def test_the_overview_names_the_release_that_wrote_the_summaries(page, tmp_path):
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the login test."},
        {"role": "user", "content": SUMMARY_PREFIX_V0_16_0 + "\n## Active Task\nUser asked: 'Fix the login test.'"},
        {"role": "assistant", "content": "Continuing from the summary."},
    ]
    path = tmp_path / "resumed.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    upload(page, path)
    page.get_by_text("written by Hermes v0.16.0").first.wait_for()
    screenshot(page, "18_detected_release")
    page.get_by_role("button", name="Use profile v0.16.0").click()
    wait_until_idle(page)
    assert "v0.16.0" in _sidebar(page).get_by_role("combobox", name="Hermes release").input_value()
    assert not page.page_errors


# The releases named by the zone bands, top to bottom, and the right edge of each band's row.
BAND_RELEASES = """() => [...document.querySelectorAll('[data-chart="release_zones"] > div:not(:last-child)')]
  .map(row => row.firstElementChild.textContent)"""
BAND_EDGES = """() => [...document.querySelectorAll('[data-chart="release_zones"] [title]')]
  .map(bar => bar.getBoundingClientRect().right)"""

# Each band's left and right edge (every release places the same messages: one length for all).
BAND_SPANS = """() => [...document.querySelectorAll('[data-chart="release_zones"] > div:not(:last-child)')]
  .map(row => { const bar = row.querySelector('[title]').parentElement.getBoundingClientRect();
                return [bar.left, bar.right]; })"""


def _assert_bands_to_scale(page) -> None:
    """Every band starts and ends where the others do, whatever the length of the counts beside it
    (a band once shrank for its longer counts at 800 px)."""
    spans = page.evaluate(BAND_SPANS)
    assert len(spans) == 6 and spans[0][1] - spans[0][0] > 100, spans
    assert all(abs(left - spans[0][0]) <= 1 and abs(right - spans[0][1]) <= 1 for left, right in spans), spans


# Each data grid of the page: the width of its columns and the width it is shown at.
GRID_WIDTHS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')]
  .map(scroller => [scroller.scrollWidth, scroller.clientWidth])"""


# Each plain table of the page (the figures, the writing): its own width and the width it is shown at
# (it would scroll sideways past it).
TABLE_WIDTHS = """() => Object.fromEntries(['releases_table', 'releases_writing'].map(name => {
  const box = document.querySelector(`[data-table="${name}"]`); return [name, [box.scrollWidth, box.clientWidth]]; }))"""
# How many of a table's headings end inside the main column.
CELLS_SHOWN = """(name) => { const right = document.querySelector('[data-testid="stMainBlockContainer"]')
  .getBoundingClientRect().right;
  return [...document.querySelectorAll(`[data-table="${name}"] th`)]
    .filter(th => th.getBoundingClientRect().right <= right + 1).length; }"""


def test_the_release_comparison_view(page):
    page.get_by_text("Headline figures").wait_for()
    open_page(page, "Release comparison")
    page.get_by_text("What changes from one release to the next").wait_for()
    wait_until_idle(page)
    main = page.locator("[data-testid='stMain']")
    text = main.inner_text()
    assert "v0.17.0 → v0.18.0" in text and "envelope" in text
    # Where each release puts every message: six bands drawn as HTML with the page (no chart script).
    bands = page.locator('[data-chart="release_zones"]')
    bands.wait_for()
    assert page.locator(".js-plotly-plot").count() == 0
    assert page.evaluate(BAND_RELEASES) == ["v0.15.1", "v0.16.0", "v0.17.0", "v0.18.0", "v0.18.1", "v0.19.0"]
    _assert_bands_to_scale(page)
    assert page.locator("[data-testid='stException']").count() == 0
    # At 1440 px every table of the page holds all its columns: nothing to scroll to on the right. The
    # figures and the writing are plain tables; the moves, a data grid.
    widths = page.evaluate(GRID_WIDTHS)
    assert len(widths) == 1 and all(inner <= outer + 1 for inner, outer in widths), widths
    assert all(inner <= outer + 1 for inner, outer in page.evaluate(TABLE_WIDTHS).values())
    screenshot(page, "19_release_comparison")
    page.set_viewport_size({"width": 800, "height": 900})
    page.wait_for_timeout(500)
    # At 800 px the bands still fit the page: each ends inside the main column.
    right_edge = page.evaluate("""() => document.querySelector('[data-testid="stMainBlockContainer"]')
      .getBoundingClientRect().right""")
    assert all(edge <= right_edge + 1 for edge in page.evaluate(BAND_EDGES)), (page.evaluate(BAND_EDGES), right_edge)
    _assert_bands_to_scale(page)
    # How each release writes its summary: an HTML table whose text wraps, so all five of its columns are
    # on the page at 800 px, even beside the open sidebar (a data grid showed two, the rest by scrolling).
    widths = page.evaluate(TABLE_WIDTHS)
    inner, outer = widths["releases_writing"]
    assert inner <= outer + 1 and outer <= right_edge, (inner, outer, right_edge)
    assert page.evaluate(CELLS_SHOWN, "releases_writing") == 5
    # The figures' twelve columns need more than the 470 pixels the open sidebar leaves: they scroll in
    # their own box, never the page.
    assert widths["releases_table"][1] <= right_edge
    assert page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth")
    # With the sidebar folded (as an 800-pixel page opens), every column of the figures is on the page.
    page.evaluate("""() => document.querySelector('[data-testid="stSidebarCollapseButton"] button').click()""")
    page.wait_for_function("""() => document.querySelector('[data-testid="stSidebar"]')
      .dataset.collapsed === 'true'""")
    page.wait_for_timeout(500)
    inner, outer = page.evaluate(TABLE_WIDTHS)["releases_table"]
    assert inner <= outer + 1, (inner, outer)
    figures = page.locator('[data-table="releases_table"] th')
    assert page.evaluate(CELLS_SHOWN, "releases_table") == figures.count() >= 11
    page.locator('[data-table="releases_table"]').scroll_into_view_if_needed()
    screenshot(page, "19_release_comparison_figures_800")
    page.locator('[data-table="releases_writing"]').scroll_into_view_if_needed()
    screenshot(page, "19_release_comparison_writing_800")
    bands.scroll_into_view_if_needed()
    screenshot(page, "19_release_comparison_800")
    assert not page.page_errors


def test_bands_stay_to_scale_whatever_the_counts_beside_them(chromium):
    """Bands of one length (every release places the same messages) with counts of different lengths,
    on a narrow page: each band keeps its length and the longer counts wrap, as the bars of the
    first page do (``bar_rows``)."""
    from core.render.html_charts import Bar, Segment, bar_rows

    bars = [Bar(name, (Segment("HEAD", 4, "#3b6fb6"), Segment("MIDDLE", middle, "#e8833a"),
                       Segment("TAIL", 87 - 4 - middle, "#3a9d5d")), note=note)
            for name, middle, note in [("v0.15.1", 78, "HEAD 4 · MIDDLE 78 · TAIL 5"),
                                       ("v0.17.0", 48, "HEAD 4 · MIDDLE 48 · TAIL 35 and a longer note")]]
    # The first page's bars: different totals, to scale to the largest.
    sizes = [Bar("tool", (Segment("tool", 141_225, "#888888"),), note="141,225 tokens (88 %) of the whole log"),
             Bar("assistant", (Segment("assistant", 17_801, "#888888"),), note="17,801")]
    tab = chromium.new_page(viewport={"width": 420, "height": 600})
    try:
        tab.set_content("<body>" + bar_rows("bands", bars, unit="messages", label_width="max-content")
                        + bar_rows("sizes", sizes) + "</body>")
        widths = tab.evaluate("""() => [...document.querySelectorAll('[data-chart] [title]')]
          .map(segment => segment.parentElement.getBoundingClientRect().width)""")
        band_one, band_two, tool, assistant = widths[0], widths[3], widths[6], widths[7]
        assert abs(band_one - band_two) <= 1, widths
        assert abs(tool / assistant - 141_225 / 17_801) < 0.15, widths
        # Each bar is its segments, end to end: a smaller bar's colour fills it (it once covered only
        # the bar's share of the largest: 2.7 of 21 pixels).
        filled = tab.evaluate("""() => [...document.querySelectorAll('[data-chart] [title]')]
          .map(segment => segment.parentElement)
          .filter((bar, index, all) => all.indexOf(bar) === index)
          .map(bar => [bar.getBoundingClientRect().width,
                       [...bar.children].reduce((sum, part) => sum + part.getBoundingClientRect().width, 0)])""")
        assert all(abs(width - parts) <= 1 for width, parts in filled), filled
    finally:
        tab.close()
