"""Every page in headless Chromium at 1400x900 and 800x900, light and dark, and the drill-down.

Each page is opened from the navigation (the Compress page after a run) and screenshotted into
``test-artifacts/screenshots/``; no metric may cut its value or its label, the sidebar's sliders
are above the fold, the sidebar gets out of the way on a narrow screen, a click on the zone map,
the waterfall or the preview opens the clicked message, the run's before/after chart is drawn,
the dark theme renders the charts on a dark page, and the settings travel in the URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.formats import load
from core.summarizers.extractive import ExtractiveSummarizer
from tests.e2e.conftest import (
    ROOT,
    UI_TIMEOUT_MS,
    dashboard_server,
    open_dashboard,
    open_page,
    page_sections,
    screenshot,
    upload,
    wait_until_idle,
)

pytestmark = pytest.mark.browser

LONG_SAMPLE = ROOT / "sample_conversations" / "long_coding_session.json"
XSS = ROOT / "tests" / "app" / "data" / "xss_transcript.json"
PAGES = [(stem, title) for entries in page_sections().values() for stem, title in entries]
HEIGHT = 900
# The sidebar's defaults: gpt-4o (128,000 tokens, a 16,384-token output reserve) and Hermes' parameters.
DEFAULTS = {"context_length": 128_000, "model": "gpt-4o", "max_tokens": 16_384}

# Texts wider than their box: a metric's value or label cut off or spilling over; a widget's
# label, a button's or a tab's text cut off (an ellipsis or a clipping box). Not the sidebar's
# while it is folded away, nor the one-pixel boxes that hold the inputs for screen readers.
CUT_TEXT = """() => {
  const wider = e => e.clientWidth > 1 && e.scrollWidth > e.clientWidth + 1;
  const clipped = e => wider(e) && (getComputedStyle(e).textOverflow === 'ellipsis'
                                    || getComputedStyle(e).overflowX !== 'visible');
  const shown = box => box.getClientRects().length > 0
    && !box.closest('[data-testid="stSidebar"][data-collapsed="true"]');
  const metrics = [...document.querySelectorAll('[data-testid="stMetricValue"], [data-testid="stMetricLabel"]')]
    .filter(shown).filter(box => [box, ...box.querySelectorAll('*')].some(wider));
  const widgets = [...document.querySelectorAll(['[data-testid="stWidgetLabel"]', '[data-testid="stCheckbox"]',
      '[data-testid="stRadio"] label', '[data-testid="stToggle"]', '[data-testid="stMain"] button',
      '[data-testid="stTab"]'].join(', '))]
    .filter(shown).filter(box => [box, ...box.querySelectorAll('*')].some(clipped));
  return [...metrics, ...widgets].map(box => box.innerText);
}"""
# The marker labels of the HTML bars ([data-chart]) whose boxes overlap, as pairs of texts.
OVERLAPPING_MARKER_LABELS = """() => {
  const pairs = [];
  for (const chart of document.querySelectorAll('[data-chart]')) {
    const spans = [...chart.querySelectorAll('div[style*="width:0"] > span')];
    for (let i = 0; i < spans.length; i++) for (let j = i + 1; j < spans.length; j++) {
      const a = spans[i].getBoundingClientRect(), b = spans[j].getBoundingClientRect();
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        pairs.push([spans[i].innerText, spans[j].innerText]);
    }
  }
  return pairs;
}"""
# Texts of a Plotly chart (tick labels, axis titles, notes, legend entries) whose boxes overlap by
# more than a pixel, as pairs, and those reaching out of the chart, paired with "outside": the
# charts with fixed margins place their labels themselves.
OVERLAPPING_CHART_TEXTS = """() => {
  const pairs = [];
  const inset = (r) => ({left: r.left + 1, right: r.right - 1, top: r.top + 1, bottom: r.bottom - 1});
  for (const chart of document.querySelectorAll('.js-plotly-plot')) {
    const texts = [...chart.querySelectorAll(
      '.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .g-x2title text, .g-y2title text, '
      + '.annotation-text, .legendtext')].filter(t => t.textContent.trim() && t.getBBox().width > 0);
    const frame = chart.getBoundingClientRect();
    for (const text of texts) {
      const box = inset(text.getBoundingClientRect());
      if (box.left < frame.left || box.right > frame.right || box.top < frame.top || box.bottom > frame.bottom)
        pairs.push([text.textContent, 'outside']);
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = inset(texts[i].getBoundingClientRect()), b = inset(texts[j].getBoundingClientRect());
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        pairs.push([texts[i].textContent, texts[j].textContent]);
    }
  }
  return pairs;
}"""
# Per HTML table with shares, whether each share's figure went below its bar: a list per table.
SHARES_WRAPPED = """() => [...document.querySelectorAll('[data-table]')].map(table =>
  [...table.querySelectorAll('td[data-share]')].map(cell => {
    const [bar, figure] = cell.children;
    return figure.getBoundingClientRect().top >= bar.getBoundingClientRect().bottom;
  })).filter(rows => rows.length > 0)"""
# The HTML tables wider than their box (a column to scroll to sideways), by their names.
WIDE_HTML_TABLES = """() => [...document.querySelectorAll('[data-table]')]
  .filter(box => box.scrollWidth > box.clientWidth + 1).map(box => box.dataset.table)"""
# The same, and the data grids wider than their box, by their first headings. Not the Sessions page's
# list (hundreds of sessions: its figures come first, paths scroll).
WIDE_GRIDS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].filter(grid => {
  if (grid.closest('.st-key-sessions_list')) return false;
  const scroller = grid.querySelector('.dvn-scroller');
  return scroller && scroller.scrollWidth > scroller.clientWidth + 1;
}).map(grid => [...grid.querySelectorAll('[role="columnheader"]')].slice(0, 3).map(h => h.innerText).join(' | '))
  .concat((""" + WIDE_HTML_TABLES + """)())"""
# The HTML tables a page draws on the default sample, once it has drawn them all (Strategies draws its
# table again once the Codex-style reset is made): waited for before the width is checked.
DRAWN_TABLES = {"strategies": "strategies_table", "timeline_replay": "replay_compactions"}
SIDEBAR_OPEN = "() => document.querySelector('[data-testid=\"stSidebar\"]')?.dataset.collapsed === 'false'"


def _context(chromium: Any, width: int, scheme: str = "light") -> Any:
    context = chromium.new_context(viewport={"width": width, "height": HEIGHT}, color_scheme=scheme,
                                   accept_downloads=True)
    context.set_default_timeout(UI_TIMEOUT_MS)
    return context


def _open(chromium: Any, server_url: str, width: int, scheme: str = "light") -> Any:
    """A new browser session on the first page, ``width`` x 900 (close ``tab.context`` after)."""
    return open_dashboard(chromium, server_url, width, scheme, height=HEIGHT)


@pytest.fixture
def narrow(chromium: Any, server_url: str) -> Iterator[Any]:
    tab = _open(chromium, server_url, 800)
    yield tab
    tab.context.close()


@pytest.fixture
def wide(chromium: Any, server_url: str) -> Iterator[Any]:
    tab = _open(chromium, server_url, 1400)
    yield tab
    tab.context.close()


def _run_compressor(tab: Any) -> None:
    tab.get_by_role("button", name="Run the compressor").click()
    tab.get_by_text("Before and after this run").wait_for()
    wait_until_idle(tab)


def _cut_texts(tab: Any) -> list[str]:
    return list(tab.evaluate(CUT_TEXT))


@pytest.mark.parametrize("width", [1400, 800])
def test_every_page_holds_at_this_width(chromium: Any, server_url: str, width: int) -> None:
    tab = _open(chromium, server_url, width)
    problems: list[str] = []
    shots: list[Path] = []
    try:
        for stem, title in PAGES:
            open_page(tab, title)
            if stem == "compress":
                _run_compressor(tab)
            tab.wait_for_timeout(300)
            if tab.locator("[data-testid='stException']").count():
                problems.append(f"{title}: an exception is shown")
            cut = _cut_texts(tab)
            if cut:
                problems.append(f"{title}: texts cut at {width} px: {cut}")
            if stem in DRAWN_TABLES:
                tab.locator(f"[data-table='{DRAWN_TABLES[stem]}']").wait_for(state="attached")
            if width >= 1400 and (wide := tab.evaluate(WIDE_GRIDS)):
                problems.append(f"{title}: tables to scroll sideways at {width} px: {wide}")
            # At 800 px too, a plain table holds (a data grid may scroll): Strategies lists its notes under
            # its table, Timeline replay puts each before and after in one column.
            if width < 1400 and (wide := tab.evaluate(WIDE_HTML_TABLES)):
                problems.append(f"{title}: HTML tables to scroll sideways at {width} px: {wide}")
            overlapping = tab.evaluate(OVERLAPPING_CHART_TEXTS)
            if overlapping:
                problems.append(f"{title}: chart texts overlap or reach out of the chart at {width} px: {overlapping}")
            shots.append(screenshot(tab, f"layout_{width}_{stem}"))
        assert not tab.page_errors, tab.page_errors
    finally:
        tab.context.close()
    assert not problems, problems
    assert all(path.stat().st_size > 10_000 for path in shots)


def test_the_shares_of_a_table_sit_alike_beside_or_under_their_bars(wide) -> None:
    tab = wide
    tab.evaluate("document.fonts.ready.then(() => true)")  # widths are measured in the page's own font
    seen = 0
    for width in range(700, 1450, 50):  # wherever the column is tight, one figure went under, not its neighbours
        tab.set_viewport_size({"width": width, "height": HEIGHT})
        tab.wait_for_timeout(150)
        tables = tab.evaluate(SHARES_WRAPPED)
        assert len(tables) >= 2, "the overview's request and breakdown tables show shares"
        for rows in tables:
            assert len(set(rows)) == 1, f"at {width} px some figures went under their bars and some did not: {rows}"
            seen += 1
    assert seen >= 30


def test_the_sliders_are_above_the_fold_and_the_sidebar_folds_away_on_a_narrow_screen(wide, narrow) -> None:
    assert wide.evaluate(SIDEBAR_OPEN)
    sidebar = wide.locator("[data-testid='stSidebar']")
    for name in ("Threshold (share of the window)", "Protect first N messages", "Protect last N messages",
                 "Summary target ratio"):
        box = sidebar.locator("[data-testid='stSlider']").filter(has_text=name).first.bounding_box()
        assert box is not None and box["y"] + box["height"] <= HEIGHT, (name, box)
    screenshot(wide, "layout_1400_sidebar")
    # At 800 px the sidebar starts collapsed, so the page has the width; it opens on demand.
    narrow.wait_for_function(f"() => !({SIDEBAR_OPEN[6:]})")
    main = narrow.locator("[data-testid='stMain']").bounding_box()
    assert main is not None and main["width"] >= 760
    assert not _cut_texts(narrow)
    narrow.locator("[data-testid='stExpandSidebarButton'], [data-testid='stSidebarCollapsedControl'] button").first.click()
    narrow.wait_for_function(SIDEBAR_OPEN)
    wait_until_idle(narrow)
    # With the sidebar open the page is about 470 pixels wide: still nothing cut, and the labels
    # of the request bar's threshold and window do not run into each other.
    assert not _cut_texts(narrow)
    assert not narrow.evaluate(OVERLAPPING_MARKER_LABELS)
    screenshot(narrow, "layout_800_sidebar_opened")


def _tallest_bar(tab: Any, trace_name: str) -> tuple[int, dict[str, float]]:
    """The message index and the screen box of the tallest bar of a zone-map trace."""
    found = tab.evaluate(
        """name => {
            const gd = document.querySelector('.js-plotly-plot');
            const k = gd.data.findIndex(t => t.name === name);
            // Each bar trace's group carries its trace in the bound data; each bar, its calculated
            // point, whose position p is the bar's x (the message index) on the linear axis.
            const group = Array.from(gd.querySelectorAll('.barlayer .trace'))
                .find(g => g.__data__ && g.__data__[0] && g.__data__[0].trace && g.__data__[0].trace.index === k);
            let best = null;
            for (const bar of group.querySelectorAll('.point')) {
                const box = bar.getBoundingClientRect();
                if (!best || box.height > best.box.height) best = {box, x: bar.__data__.p};
            }
            return [Number(best.x),
                    {x: best.box.x, y: best.box.y, width: best.box.width, height: best.box.height}];
        }""",
        trace_name,
    )
    return int(found[0]), found[1]


def test_a_click_on_the_zone_map_opens_that_message(wide) -> None:
    open_page(wide, "Zones")
    wide.locator(".js-plotly-plot .barlayer .point").first.wait_for()
    index, box = _tallest_bar(wide, "MIDDLE")
    wide.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    panel = wide.locator(".st-key-drilldown-zones")
    panel.get_by_text(f"message #{index} ·", exact=False).first.wait_for()
    wait_until_idle(wide)
    assert wide.get_by_role("spinbutton", name="Message #").input_value() == str(index)
    text = panel.inner_text()
    assert "MIDDLE" in text and "Phase 1 · prune" in text and "Phase 4 · assemble" in text
    # The message itself, as text: its first line is in the panel.
    message = load(LONG_SAMPLE).messages[index]
    from core.inspections.overview import message_text

    first_line = next(line for line in message_text(message).splitlines() if line.strip())[:40]
    assert first_line in text
    screenshot(wide, "drilldown_zone_map")
    # Next, and the jump to the summary.
    panel.get_by_role("button", name="Next").click()
    panel.get_by_text(f"message #{index + 1} ·", exact=False).first.wait_for()
    panel.get_by_role("button", name="Jump to the summary").click()
    panel.get_by_text("SUMMARY", exact=False).first.wait_for()
    wait_until_idle(wide)
    assert "Stands for messages" in panel.inner_text()
    assert not wide.page_errors


def test_a_click_on_the_waterfall_lists_that_steps_messages_and_opens_one(wide) -> None:
    open_page(wide, "Phase savings")
    bars = wide.locator(".js-plotly-plot .barlayer .point")
    bars.first.wait_for()
    labels = wide.evaluate("() => Array.from(document.querySelector('.js-plotly-plot').data[0].customdata)")
    step = labels.index("one_liners")
    box = bars.nth(step).bounding_box()
    wide.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    picker = wide.get_by_role("combobox", name="Messages of the step")
    wide.wait_for_function(
        "() => document.querySelector('input[aria-label=\"Messages of the step\"]')?.value.startsWith('Old tool results')")
    wait_until_idle(wide)
    assert picker.input_value().startswith("Old tool results → one-liners")
    wide.get_by_role("spinbutton", name="Message #").fill("3")
    wide.get_by_role("spinbutton", name="Message #").press("Enter")
    wide.locator(".st-key-drilldown-savings").get_by_text("message #3 ·", exact=False).first.wait_for()
    wait_until_idle(wide)
    assert "one-line description" in wide.locator(".st-key-drilldown-savings").inner_text()
    screenshot(wide, "drilldown_waterfall")


def test_the_run_draws_its_before_and_after_and_a_preview_row_opens_its_message(wide) -> None:
    open_page(wide, "Compress & preview")
    _run_compressor(wide)
    chart = wide.locator(".st-key-run_chart_role .js-plotly-plot")
    chart.locator(".barlayer .point").first.wait_for()
    assert chart.locator(".barlayer .point").count() >= 8  # before and after, one segment per role
    legend = chart.locator(".legend").first.text_content() or ""  # SVG: its text, not inner_text
    assert "summary" in legend and "tool" in legend
    result = ContextCompressor(CompressorConfig(**DEFAULTS), summarizer=ExtractiveSummarizer()).compress(
        load(LONG_SAMPLE).messages)
    summary = next(i for i, o in enumerate(result.assembly.origins) if o.kind == "summary")
    panel = wide.locator(".st-key-drilldown-preview")
    panel.get_by_text(f"output #{summary} · user · SUMMARY", exact=False).first.wait_for()
    # Read as a table, a click on a row (its row marker) opens that message.
    wide.locator(".st-key-preview_view button").filter(has_text="Table").click()
    wait_until_idle(wide)
    grid = wide.locator(".st-key-preview_table [data-testid='stDataFrameResizable']").first
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    row = 2
    wide.mouse.click(box["x"] + 14, box["y"] + 35 * (row + 1) + 17)
    panel.get_by_text(f"output #{row} · ", exact=False).first.wait_for()
    wait_until_idle(wide)
    assert wide.get_by_role("spinbutton", name="Output message #").input_value() == str(row)
    screenshot(wide, "drilldown_preview")
    assert not wide.page_errors


@pytest.mark.parametrize("width", [1400, 800])
def test_the_dark_theme_renders_the_pages_and_their_charts(chromium: Any, server_url: str, width: int) -> None:
    tab = _open(chromium, server_url, width, scheme="dark")
    try:
        background = tab.evaluate("() => getComputedStyle(document.querySelector('.stApp')).backgroundColor")
        assert _luminance(background) < 0.2, background
        text = tab.evaluate("() => getComputedStyle(document.querySelector('[data-testid=\"stMain\"] h1')).color")
        assert _luminance(text) > 0.7, text
        screenshot(tab, f"dark_{width}_overview")
        for title, stem in (("Zones", "zones"), ("Phase savings", "savings")):
            open_page(tab, title)
            tab.locator(".js-plotly-plot .main-svg").first.wait_for()
            svg = tab.evaluate("() => getComputedStyle(document.querySelector('.js-plotly-plot .main-svg')).backgroundColor")
            assert _luminance(svg) < 0.2 or svg in ("rgba(0, 0, 0, 0)", "transparent"), svg  # no white card
            ticks = tab.evaluate("() => getComputedStyle(document.querySelector('.js-plotly-plot .ytick text')).fill")
            assert _luminance(ticks) > 0.5, ticks  # the axis labels are light on the dark page
            assert not _cut_texts(tab)
            screenshot(tab, f"dark_{width}_{stem}")
        open_page(tab, "Compress & preview")
        _run_compressor(tab)
        screenshot(tab, f"dark_{width}_compress")
        # API validity's verdicts: an HTML table, whose text follows the theme and wraps, never scrolls.
        open_page(tab, "API validity")
        verdicts = tab.locator('[data-table="lint_overview"]')
        verdicts.wait_for()
        cell = "document.querySelector('[data-table=\"lint_overview\"] td')"
        assert _luminance(tab.evaluate(f"() => getComputedStyle({cell}).color")) > 0.5
        assert tab.evaluate("() => { const box = document.querySelector('[data-table=\"lint_overview\"]');"
                            " return box.scrollWidth <= box.clientWidth; }")
        assert "rejected" in verdicts.inner_text() or "accepted" in verdicts.inner_text()
        screenshot(tab, f"dark_{width}_api_validity")
        assert not tab.page_errors
    finally:
        tab.context.close()


def _luminance(css: str) -> float:
    values = [float(v) for v in re.findall(r"[\d.]+", css)[:3]]
    if len(values) < 3:
        return 0.0
    red, green, blue = (v / 255 for v in values)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_the_settings_travel_in_the_url(wide, chromium: Any, server_url: str) -> None:
    open_page(wide, "Zones")
    knob = wide.get_by_role("slider", name="Protect first N messages")
    knob.focus()
    knob.press("ArrowRight")
    wide.wait_for_function("() => new URL(location.href).searchParams.get('first') === '4'")
    wait_until_idle(wide)
    link = wide.url
    assert "/zones" in link
    other = _context(chromium, 1400)
    try:
        tab = other.new_page()
        tab.goto(link)
        tab.get_by_role("heading", name="Zones").first.wait_for()
        wait_until_idle(tab)
        assert tab.get_by_role("slider", name="Protect first N messages").input_value() == "4"
        expected = ContextCompressor(CompressorConfig(**DEFAULTS, protect_first_n=4)).compress(
            load(LONG_SAMPLE).messages)
        head = tab.locator("[data-testid='stMetric']").filter(has_text="Head").first.inner_text()
        assert f"{expected.plan.compress_start} msgs" in head
    finally:
        other.close()


def test_a_shared_link_opened_first_on_a_fresh_server_opens_that_view(chromium: Any) -> None:
    # Streamlit takes an app with a pages/ folder for an old-style one until st.navigation has run:
    # a link that is the server's very first request must still go through app.py.
    with dashboard_server("streamlit-e2e-deep-link.log") as url:
        context = _context(chromium, 1400)
        try:
            tab = context.new_page()
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            tab.goto(f"{url}/zones?first=5")
            tab.get_by_role("heading", name="Zones").first.wait_for()
            tab.get_by_text("Why the boundaries fell here").first.wait_for()
            wait_until_idle(tab)
            assert tab.get_by_role("slider", name="Protect first N messages").input_value() == "5"
            assert tab.locator("[data-testid='stException']").count() == 0
            assert tab.locator("[data-testid='stTopNavSection']").filter(has_text="Analyses").count() == 1
            assert tab.locator("[data-testid='stSidebarNavLink']").count() == 0  # no page list from pages/
            assert not errors
            screenshot(tab, "deep_link_first_request")
        finally:
            context.close()


def test_the_html_report_of_a_run_keeps_the_transcript_as_text(page) -> None:
    upload(page, XSS)
    open_page(page, "Compress & preview")
    _run_compressor(page)
    page.get_by_role("tab", name="Download").click()
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download the HTML report").click()
    report = Path(download_info.value.path()).read_text(encoding="utf-8")
    assert report.startswith("<!DOCTYPE html>")
    assert "&lt;script&gt;window.__xss = &#x27;script&#x27;&lt;/script&gt;" in report
    assert "<script" not in report and "<img" not in report and 'href="javascript' not in report
    assert "xss_transcript.json" in report and "Why the boundaries fell here" in report
    # Opened as a page, it runs nothing and fetches nothing.
    requested: list[str] = []
    report_page = page.context.new_page()
    report_page.on("request", lambda request: requested.append(request.url))
    report_page.set_content(report)
    assert report_page.evaluate("() => window.__xss") is None
    assert report_page.locator("img").count() == 0
    assert requested == []
    report_page.close()
    assert not page.page_errors


def test_a_text_block_shows_every_character_in_a_browser(chromium: Any) -> None:
    """What the browser makes of the block's HTML is the text itself: the line feed HTML drops after
    ``<pre>``, markup, entities, tabs and spaces included."""
    from core.render.text_blocks import text_block_html

    texts = ["\nstarts with a line feed", "\n\n  two, then spaces", "<b>not bold</b> &amp; &lt;x&gt;\tend\n\n",
             "plain"]
    tab = chromium.new_page()
    try:
        for text in texts:
            tab.set_content("<body>" + text_block_html(text, name="t") + "</body>")
            assert tab.evaluate("() => document.querySelector('pre[data-text=t]').textContent") == text
            assert tab.evaluate("() => document.querySelectorAll('pre b').length") == 0
    finally:
        tab.close()


# A summary block as the reader sees it: where it is, how it is drawn, whether it scrolls or spills.
TEXT_BLOCK = """name => {
  const block = document.querySelector(`pre[data-text="${name}"]`);
  if (!block) return null;
  const style = getComputedStyle(block);
  const page = getComputedStyle(document.querySelector('.stApp'));
  return {font: style.fontFamily, color: style.color, background: page.backgroundColor,
          wrap: style.whiteSpace, height: block.clientHeight, scrolls: block.scrollHeight > block.clientHeight,
          spills: block.scrollWidth > block.clientWidth + 1, width: block.getBoundingClientRect().width,
          main: document.querySelector('[data-testid="stMainBlockContainer"]').clientWidth,
          text: block.innerText.length};
}"""


@pytest.mark.parametrize(("width", "scheme"), [(1400, "light"), (800, "dark"), (800, "light"), (1400, "dark")])
def test_a_summary_is_plain_text_that_reads_in_either_theme_and_never_loads_the_code_highlighter(
        chromium: Any, server_url: str, width: int, scheme: str) -> None:
    """Timeline's and Strategies' summaries are monospace text blocks that wrap within the page, the
    Timeline's scrolling past 480 px, legible in the theme; neither page fetches Streamlit's syntax
    highlighter (1.5 MB of JavaScript, 0.3 s of the browser's time before the page could draw)."""
    tab = open_dashboard(chromium, server_url, width, scheme)
    fetched: list[str] = []
    tab.on("request", lambda request: fetched.append(request.url))
    try:
        open_page(tab, "Timeline replay")
        block = tab.locator("pre[data-text='replay_summary']")
        block.scroll_into_view_if_needed()
        timeline = tab.evaluate(TEXT_BLOCK, "replay_summary")
        screenshot(tab, f"summary_{width}_{scheme}_timeline")
        open_page(tab, "Strategies")
        tab.get_by_text("The summary it inserted").click()
        tab.locator("pre[data-text='strategies_summary']").wait_for()
        strategies = tab.evaluate(TEXT_BLOCK, "strategies_summary")
        screenshot(tab, f"summary_{width}_{scheme}_strategies")
        assert not tab.page_errors, tab.page_errors
    finally:
        tab.context.close()
    for shown in (timeline, strategies):
        assert shown is not None and shown["text"] > 1_000
        assert "monospace" in shown["font"] and shown["wrap"] == "pre-wrap"
        assert not shown["spills"] and shown["width"] <= shown["main"] + 1
        text, page = _luminance(shown["color"]), _luminance(shown["background"])
        assert (text < 0.3 < 0.8 < page) if scheme == "light" else (page < 0.2 < 0.7 < text), shown
    assert timeline["height"] <= 480 and timeline["scrolls"]
    assert not [url for url in fetched if "StreamlitSyntaxHighlighter" in url]
