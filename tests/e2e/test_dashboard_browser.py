"""The dashboard in headless Chromium: upload, tune a slider, compress, download, and stay safe."""

from __future__ import annotations

import json
import re
import time

import pytest

from core import CompressorConfig, ContextCompressor
from core.formats import dump, load
from core.profiles import DEFAULT_PROFILE, PROFILES
from core.summarizers.extractive import ExtractiveSummarizer
from tests.e2e.conftest import (
    CHART_SCRIPT_FETCHED,
    ROOT,
    nav_link,
    open_page,
    screenshot,
    upload,
    wait_until_idle,
)

pytestmark = pytest.mark.browser

SAMPLES = ROOT / "sample_conversations"
LONG_SAMPLE = SAMPLES / "long_coding_session.json"
XSS = ROOT / "tests" / "app" / "data" / "xss_transcript.json"
# The sidebar's defaults (gpt-4o, 128,000 tokens and its 16,384-token output reserve, Hermes' parameters).
DEFAULTS = {"context_length": 128_000, "model": "gpt-4o", "max_tokens": 16_384}


def metric_value(page, label: str) -> str:
    metric = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return metric.locator("[data-testid='stMetricValue']").inner_text().strip()


def to_int(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text.split()[0]))


def slider(page, label: str):
    """The slider's thumb: an <input type=range>, whose ARIA role is "slider"."""
    return page.get_by_role("slider", name=label)


def test_first_page_opens_on_the_long_sample(page):
    started = time.monotonic()
    page.get_by_text("Headline figures").wait_for()
    wait_until_idle(page)
    messages = load(LONG_SAMPLE).messages
    assert to_int(metric_value(page, "Messages")) == len(messages)
    page.get_by_text("By tool").click()
    page.wait_for_timeout(500)
    screenshot(page, "01_overview_long_sample")
    print(f"first page usable after {time.monotonic() - started:.1f} s")
    assert not page.page_errors


def test_upload_tune_compress_and_download(page):
    path = SAMPLES / "claude_code_session.jsonl"
    upload(page, path)
    # The log opens as the context after its own compaction; this walk-through tunes its full history.
    page.get_by_text("The context the model last saw", exact=False).first.wait_for()
    wait_until_idle(page)
    assert to_int(metric_value(page, "Messages")) == len(load(path).live_context().messages)
    page.get_by_text("Full history (before the agent's compaction", exact=False).first.click()
    page.get_by_text("The full history: all", exact=False).first.wait_for()
    wait_until_idle(page)
    messages = load(path).messages
    assert to_int(metric_value(page, "Messages")) == len(messages)
    page.get_by_text("Read as").first.wait_for()
    screenshot(page, "02_overview_upload")

    open_page(page, "Zones")
    before = CompressorConfig(**DEFAULTS)
    result = ContextCompressor(before).compress(messages)
    assert to_int(metric_value(page, "Head")) == result.plan.compress_start

    # Keyboard on the real slider: one step right on "Protect first N messages".
    knob = slider(page, "Protect first N messages")
    knob.focus()
    knob.press("ArrowRight")
    expected = ContextCompressor(CompressorConfig(**DEFAULTS, protect_first_n=4)).compress(messages)
    page.locator("[data-testid='stMetric']").filter(has_text="Head").filter(
        has_text=f"{expected.plan.compress_start} msgs"
    ).wait_for()
    wait_until_idle(page)
    assert knob.input_value() == "4"
    assert to_int(metric_value(page, "Middle")) == expected.plan.compress_end - expected.plan.compress_start
    assert page.locator(".js-plotly-plot").count() >= 1
    screenshot(page, "03_zones_after_slider")

    open_page(page, "Phase savings")
    assert slider(page, "Protect first N messages").input_value() == "4"
    page.get_by_text("Saved by Phase 1").wait_for()
    screenshot(page, "04_phase_savings")

    open_page(page, "Compress & preview")
    page.get_by_role("button", name="Run the compressor").click()
    page.get_by_text("Summarised.").wait_for()
    wait_until_idle(page)
    config = CompressorConfig(**DEFAULTS, protect_first_n=4)
    compressed = ContextCompressor(config, summarizer=ExtractiveSummarizer()).compress(messages)
    assert to_int(metric_value(page, "Messages")) == len(compressed.messages)
    assert page.get_by_text("SUMMARY", exact=True).count() >= 1
    screenshot(page, "05_compress_preview")

    page.get_by_role("tab", name="Summary").click()
    first_heading = PROFILES[DEFAULT_PROFILE].template_headings[0]
    page.locator("[role=tabpanel]:visible").get_by_text(first_heading).first.wait_for()
    page.get_by_role("tab", name="Download").click()
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download as OpenAI chat JSON").click()
    download = download_info.value
    content = open(download.path(), encoding="utf-8").read()
    assert content == dump(compressed.messages, "openai-chat")
    assert json.loads(content)["messages"] == compressed.messages
    screenshot(page, "06_compress_download")
    assert not page.page_errors


def test_markup_in_a_transcript_is_shown_as_text_and_never_runs(page):
    upload(page, XSS)
    open_page(page, "Compress & preview")
    page.get_by_role("button", name="Run the compressor").click()
    page.get_by_text("Run the compressor").first.wait_for()
    wait_until_idle(page)
    # The system message and the user's message, opened in the preview's panel, are shown as text.
    panel = page.locator(".st-key-drilldown-preview")
    for number, markup in ((0, "<script>window.__xss = 'script'</script>"), (1, "<img src=x onerror=")):
        box = page.get_by_role("spinbutton", name="Output message #")
        box.fill(str(number))
        box.press("Enter")
        panel.get_by_text(markup, exact=False).first.wait_for()
        wait_until_idle(page)
    assert page.evaluate("() => window.__xss") is None
    # No element the transcript described was created.
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("a[href^='javascript:']").count() == 0
    page.get_by_role("tab", name="Before / after").click()
    page.wait_for_timeout(500)
    assert page.evaluate("() => window.__xss") is None
    screenshot(page, "07_markup_as_text")
    assert not page.page_errors


def test_a_binary_upload_is_a_readable_error(page, tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 20)
    # No format reads it, so it never becomes the conversation analysed: it leaves the picker, with why.
    page.locator("[data-testid='stFileUploader'] input[type=file]").set_input_files(str(junk))
    alert = page.locator("[data-testid='stAlert']").filter(has_text="binary file")
    alert.first.wait_for()
    wait_until_idle(page)
    assert "junk.bin" in alert.first.inner_text()
    assert page.get_by_role("combobox", name="Conversation to analyse").input_value() != "Uploaded: junk.bin"
    assert page.get_by_text("Traceback").count() == 0
    screenshot(page, "08_bad_file")


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Timeline replay", "09_timeline_replay"),
        ("Strategies", "10_strategies"),
        ("Fact retention", "11_fact_retention"),
        ("Parameter sweep", "12_parameter_sweep"),
        ("API validity", "13_api_validity"),
        ("Release comparison", "16_release_comparison"),
    ],
)
def test_every_analysis_view_renders_without_an_exception(page, title, name):
    page.get_by_text("Headline figures").wait_for()
    open_page(page, title)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, name)
    assert not page.page_errors


# Each slider of the sidebar gets a mark in the browser; after a page switch, the marks still there.
_MARK_SIDEBAR = """() => {
  const sliders = document.querySelectorAll('[data-testid="stSidebarUserContent"] [data-testid="stSlider"]');
  sliders.forEach((slider) => { slider.dataset.lensMark = "1"; });
  return sliders.length;
}"""
_MARKED = """() => document.querySelectorAll(
  '[data-testid="stSidebarUserContent"] [data-testid="stSlider"][data-lens-mark="1"]').length"""


def test_the_sidebar_stays_in_place_from_page_to_page(page):
    """``app.py`` draws the sidebar once for every page: a page switch neither removes nor rebuilds
    its widgets in the browser (a sidebar a page drew was built again on each switch), and a value
    moved there holds."""
    page.get_by_text("Headline figures").wait_for()
    wait_until_idle(page)
    thumb = slider(page, "Protect first N messages")
    thumb.focus()
    thumb.press("ArrowRight")
    wait_until_idle(page)
    sliders = page.evaluate(_MARK_SIDEBAR)
    assert sliders >= 4
    for title in ("Zones", "API validity", "Upload & overview"):
        open_page(page, title)
        wait_until_idle(page)
        assert page.evaluate(_MARKED) == sliders, title
        assert slider(page, "Protect first N messages").input_value() == "4", title
    assert not page.page_errors


# Streamlit's running indicator, held in the page: to the browser, a run that does not end.
_HOLD_RUNNING = """() => { const held = document.createElement('div'); held.id = 'held-running';
  held.dataset.testid = 'stStatusWidget'; document.body.appendChild(held); }"""


def test_the_chart_script_is_loaded_ahead_only_once_no_page_runs(page):
    """The chart script loaded ahead waits until no script has run for a while: it never shares the
    browser with a page being drawn (a page opened right after an upload)."""
    page.get_by_text("Headline figures").wait_for()
    wait_until_idle(page)
    assert not page.evaluate(CHART_SCRIPT_FETCHED)
    page.evaluate(_HOLD_RUNNING)
    thumb = slider(page, "Protect first N messages")
    thumb.focus()
    thumb.press("ArrowRight")  # the session's second run: its page carries the script
    page.wait_for_function("() => window.contextLensChartsAhead === true", timeout=60_000)
    page.wait_for_timeout(2_500)  # well past the quiet time the script waits for
    assert not page.evaluate(CHART_SCRIPT_FETCHED)
    page.evaluate("() => document.getElementById('held-running').remove()")
    page.wait_for_function("() => window.contextLensChartsAhead === 'loaded'", timeout=60_000)
    assert page.evaluate(CHART_SCRIPT_FETCHED)
    assert page.locator(".js-plotly-plot").count() == 0  # still the overview: nothing drawn with it


def test_a_chart_page_has_the_chart_script_loaded_at_once(page):
    """A page that draws Plotly charts as it opens needs the script anyway: it is loaded in the
    browser's next idle moment, without waiting for the dashboard to be quiet."""
    page.get_by_text("Headline figures").wait_for()
    wait_until_idle(page)
    page.evaluate(_HOLD_RUNNING)
    nav_link(page, "Zones").click()
    page.get_by_role("heading", name="Zones").first.wait_for()
    page.wait_for_function("() => window.contextLensChartsAhead === 'loaded'", timeout=60_000)
    assert page.evaluate("() => document.getElementById('held-running') !== null")
