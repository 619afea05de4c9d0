"""What a new user tripped over, checked in headless Chromium at 1400 and 800 px, light and dark.

Each test runs in the four combinations and leaves screenshots in ``test-artifacts/screenshots``
(``trust_<what>_<width>_<scheme>.png``): the message panel comes into view when a chart is
clicked, the release sentence reads as English, the strategies say what each gives up and show
the other rows while the Codex-style reset summarises a long log, the timeline caption names what the chart draws, the source line is one line, the transcript's model
brings no invented reserve and the config export names it, rejected uploads leave the picker, and
the conversation view reads a 10,000-message log a page at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from core.profiles import HISTORICAL_PREFIX_V0_16_0
from tests.e2e.conftest import (
    CHART_SCRIPT_FETCHED,
    ROOT,
    SCREENS,
    UI_TIMEOUT_MS,
    nav_link,
    open_page,
    screenshot,
    upload,
    wait_until_idle,
)
from tests.e2e.test_layout_browser import SIDEBAR_OPEN
from tests.e2e.test_layout_browser import _tallest_bar as tallest_bar

pytestmark = pytest.mark.browser

HEIGHT = 900
COMBINATIONS = SCREENS
ANTHROPIC_SAMPLE = ROOT / "sample_conversations" / "anthropic_messages_session.json"


@pytest.fixture(params=COMBINATIONS, ids=lambda c: f"{c[0]}-{c[1]}")
def tab(request: Any, chromium: Any, server_url: str) -> Iterator[Any]:
    width, scheme = request.param
    context = chromium.new_context(viewport={"width": width, "height": HEIGHT}, color_scheme=scheme,
                                   accept_downloads=True)
    context.set_default_timeout(UI_TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server_url)
    page.get_by_text("Headline figures").wait_for()
    wait_until_idle(page)
    page.page_errors = errors  # type: ignore[attr-defined]
    page.shot = lambda name: screenshot(page, f"trust_{name}_{width}_{scheme}")  # type: ignore[attr-defined]
    page.width = width  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        assert not errors, errors
        context.close()


def drop(page: Any, *paths: Path) -> None:
    """Drop files on the uploader and wait for the run that reads them to end."""
    page.locator("[data-testid='stFileUploader'] input[type=file]").set_input_files([str(p) for p in paths])
    page.wait_for_timeout(500)
    wait_until_idle(page)


def in_view(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] < HEIGHT and box["y"] + min(box["height"], 200) > 0


def test_a_chart_click_brings_the_message_panel_into_view(tab: Any) -> None:
    open_page(tab, "Zones")
    tab.locator(".js-plotly-plot .barlayer .point").first.wait_for()
    index, box = tallest_bar(tab, "MIDDLE")
    assert 0 <= box["y"] < HEIGHT  # the chart is in view, the panel is not
    panel = tab.locator(".st-key-drilldown-zones")
    assert not in_view(tab, panel)
    tab.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    panel.get_by_text(f"message #{index} ·", exact=False).first.wait_for()
    wait_until_idle(tab)
    tab.wait_for_timeout(1_200)  # the smooth scroll
    assert in_view(tab, panel), panel.bounding_box()
    # The panel reads the message as a thread card, its number in the card's head.
    assert panel.locator(".cl-msg .cl-num").first.is_visible()
    tab.screenshot(path=str(ROOT / "test-artifacts" / "screenshots" /
                            f"trust_click_panel_viewport_{tab.width}_{'dark' if is_dark(tab) else 'light'}.png"))


def is_dark(page: Any) -> bool:
    return bool(page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches"))


def test_the_source_line_is_one_line_and_the_transcripts_model_keeps_no_invented_reserve(tab: Any) -> None:
    drop(tab, ANTHROPIC_SAMPLE)
    open_page(tab, "Zones")
    line = tab.locator(".st-key-source-line")
    line.wait_for()
    height = line.bounding_box()["height"]
    assert height <= (48 if tab.width >= 1400 else 90), height  # one line (a button is 40 px high)
    button = line.get_by_role("button", name="Use claude-sonnet-4-5")
    button.click()
    wait_until_idle(tab)
    line.get_by_role("button", name="Use claude-sonnet-4-5").wait_for(state="detached")
    reserve = tab.get_by_role("spinbutton", name="Output reserve (max_tokens)")
    if not reserve.is_visible():  # the sidebar starts folded at 800 px
        tab.locator("[data-testid='stExpandSidebarButton']").first.click()
    assert reserve.input_value() == "0"
    assert "claude-sonnet-4-5" in line.inner_text()
    tab.shot("source_line")


def test_the_config_export_names_the_logs_model(tab: Any) -> None:
    drop(tab, ANTHROPIC_SAMPLE)
    open_page(tab, "Compress & preview")
    tab.get_by_role("button", name="Run the compressor").click()
    tab.get_by_text("Before and after this run").wait_for()
    wait_until_idle(tab)
    tab.get_by_role("tab", name="Download").click()
    snippet = tab.locator("[data-testid='stCode']").filter(has_text="compression:").first
    snippet.wait_for()
    assert "default: claude-sonnet-4-5" in snippet.inner_text()
    assert "gpt-4o" not in snippet.inner_text()
    snippet.scroll_into_view_if_needed()
    tab.shot("config_export")


def hermes_log(path: Path) -> Path:
    summary = HISTORICAL_PREFIX_V0_16_0 + "\n## Active Task\nFinish the parser.\n## Done\nRead the files."
    messages = [{"role": "system", "content": "You are Hermes."}, {"role": "user", "content": summary},
                {"role": "user", "content": "Go on."}, {"role": "assistant", "content": "On it."}]
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


def test_release_detection_reads_as_sentences_and_rejected_uploads_leave_the_picker(tab: Any, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nNot a transcript.\n", encoding="utf-8")
    picture = tmp_path / "shot.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    drop(tab, hermes_log(tmp_path / "gateway.json"), notes, picture)
    box = tab.locator("[data-testid='stAlertContentInfo']").filter(has_text="handoff summary").first
    box.wait_for()
    text = box.inner_text()
    assert "written by a Hermes build between v0.15.1 and v0.16.0." in text
    assert "Hermes a build" not in text and "1 with" not in text
    for name in ("notes.md", "shot.png"):
        tab.locator("[data-testid='stAlertContentError']").filter(has_text=f"{name} was not loaded").first.wait_for()
    picker = tab.get_by_role("combobox", name="Conversation to analyse")
    assert picker.input_value() == "Uploaded: gateway.json"
    picker.click()
    options = tab.locator("[role='option']").all_inner_texts()
    tab.keyboard.press("Escape")
    assert "Uploaded: gateway.json" in options
    assert not any("notes.md" in o or "shot.png" in o for o in options)
    tab.shot("release_and_rejected")


def test_the_uploader_shows_every_file_it_holds(tab: Any) -> None:
    files = sorted((ROOT / "sample_conversations").glob("*.json"))[:7]
    drop(tab, *files)
    chips = tab.locator("[data-testid='stFileChip']")
    assert chips.count() == len(files)
    listing = tab.locator("[data-testid='stFileChips']").bounding_box()
    for index in range(len(files)):
        chip = chips.nth(index).bounding_box()
        assert chip["y"] + chip["height"] <= listing["y"] + listing["height"] + 1, index  # not cut off
    tab.locator("[data-testid='stFileUploader']").scroll_into_view_if_needed()
    tab.shot("uploader")


def test_strategies_say_what_each_keeps_and_gives_up(tab: Any) -> None:
    open_page(tab, "Strategies")
    heading = tab.get_by_text("What each strategy keeps, and what it gives up")
    heading.wait_for()
    listing = tab.locator("[data-testid='stMarkdownContainer']").filter(has_text="Codex-style keeps").last
    text = listing.inner_text()
    for label in ("Hermes", "Truncation", "Observation masking", "Codex-style"):
        assert f"{label} keeps" in text
    # The errors the log already has are said apart from the strategies' (the default sample has some).
    from core.formats import load
    from core.inspections.lint import error_count, lint
    from dashboard.memo import SAMPLE_DIR, default_sample

    sample = default_sample(sorted(SAMPLE_DIR.glob("*.json*")))
    assert sample is not None
    inherited = error_count(lint(load(sample).messages), "anthropic")
    assert inherited > 0
    said = tab.get_by_text("The log as uploaded already has")
    assert f"already has {inherited} Anthropic errors" in said.inner_text()
    heading.scroll_into_view_if_needed()
    tab.shot("strategies")


def test_a_strategys_output_reads_as_a_thread_with_its_summary_marked(tab: Any) -> None:
    """The output picked on Strategies is read as every other conversation is: cards by role, tool
    calls folded, the summary's card marked; the notes sit under the table, not in a column."""
    open_page(tab, "Strategies")
    notes = tab.locator(".st-key-strategies_notes")
    notes.wait_for()
    assert "Observation masking" in notes.inner_text() and "Codex-style" in notes.inner_text()
    assert "notes" not in tab.locator("[data-table='strategies_table'] th").all_inner_texts()
    summary = tab.locator("#cl-strategies-4")
    summary.scroll_into_view_if_needed()
    head = summary.locator(".cl-head").text_content() or ""
    assert head.startswith("output #4user") and "SUMMARY" in head and "FROM #" not in head
    assert "FROM #1" in (tab.locator("#cl-strategies-1 .cl-head").text_content() or "")
    assert (summary.locator(".cl-body").text_content() or "").lstrip().startswith("[CONTEXT COMPACTION")
    # A tool call is folded under its name until clicked.
    call = tab.locator("#cl-strategies-2 details").first
    assert call.get_attribute("open") is None and "search_files" in (call.text_content() or "")
    tab.wait_for_timeout(300)
    tab.shot("strategies_thread")


def long_log(path: Path) -> Path:
    """A coding session of about 2 MB: long enough that the Codex-style reset's whole-log summary
    takes a visible while after the other strategies are drawn."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for step in range(700):
        call = f"call_{step}"
        output = "\n".join(f"tests/test_mod{step}.py::test_case_{line} PASSED [{line}%] in {step}.{line}s"
                            for line in range(30))
        messages += [
            {"role": "user", "content": f"Fix the failure in src/module_{step}.py (issue #{step})."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call, "type": "function",
                 "function": {"name": "terminal", "arguments": json.dumps({"command": f"pytest tests/test_mod{step}.py"})}}]},
            {"role": "tool", "tool_call_id": call, "content": output + f"\nFAILED tests/test_mod{step}.py::test_edge - "
                                                                       f"AssertionError: {step} != {step + 1}"},
            {"role": "assistant", "content": f"Patched src/module_{step}.py: the bound was off by one."},
        ]
    path.write_text(json.dumps(messages), encoding="utf-8")
    return path


RESET_SPINNER = "Codex-style: summarising the whole log"
STRATEGY_CHART = "[data-chart='strategy_tokens']"
CHART_TEXT = f"() => Array.from(document.querySelectorAll({STRATEGY_CHART!r})).map((c) => c.textContent).join(' ')"
RECORD_CHART_STATES = f"""() => {{
  window.chartStates = [];
  window.spinnerSeen = false;
  const chartText = {CHART_TEXT};
  new MutationObserver(() => {{
    const chart = chartText();
    const states = window.chartStates;
    if (chart && (!states.length || states[states.length - 1].chart !== chart)) {{
      states.push({{chart, at: performance.now()}});
    }}
    if (!chart.includes('Codex-style') && document.body.textContent.includes(RESET_SPINNER)) {{
      window.spinnerSeen = true;
    }}
  }}).observe(document.body, {{subtree: true, childList: true, characterData: true}});
}}""".replace("RESET_SPINNER", repr(RESET_SPINNER))


def test_strategies_shows_the_other_rows_while_the_codex_style_reset_summarises(tab: Any, tmp_path: Path) -> None:
    # A name of its own per screen: the server remembers a transcript by its bytes and its name.
    upload(tab, long_log(tmp_path / f"long_{tab.width}_{'dark' if is_dark(tab) else 'light'}.json"))
    # What the charts read after each change of the page, kept in the page itself: under load the
    # first rows may be replaced before a poll from here would see them.
    tab.evaluate(RECORD_CHART_STATES)
    nav_link(tab, "Strategies").click()
    # First the rows that need no whole-log summary, with the reset's spinner above them...
    tab.wait_for_function("() => window.chartStates.some((s) => s.chart.includes('Truncation'))",
                          timeout=UI_TIMEOUT_MS)
    first = tab.evaluate("() => window.chartStates.find((s) => s.chart.includes('Truncation'))")
    assert "Observation masking" in first["chart"] and "Hermes" in first["chart"]
    assert "Codex-style" not in first["chart"]
    if "Codex-style" not in tab.evaluate(CHART_TEXT):
        tab.shot("strategies_first_rows")
    # ...then the whole comparison in their place: one chart, the reset's row in it, no spinner.
    tab.wait_for_function(f"() => ({CHART_TEXT})().includes('Codex-style')", timeout=UI_TIMEOUT_MS)
    wait_until_idle(tab)
    assert tab.locator(STRATEGY_CHART).count() == 1 and tab.locator(".js-plotly-plot").count() == 0
    assert tab.locator(".st-key-strategies_chart").count() == 1 and tab.locator(".st-key-strategies_first_chart").count() == 0
    assert tab.get_by_text(RESET_SPINNER).count() == 0
    # Streamlit shows a spinner after half a second of waiting: the rows were up longer, so it showed.
    whole_at = tab.evaluate("() => window.chartStates.find((s) => s.chart.includes('Codex-style')).at")
    if whole_at - first["at"] > 700:
        assert tab.evaluate("() => window.spinnerSeen")
    whole = tab.evaluate(CHART_TEXT)
    for label in ("Hermes", "Truncation", "Observation masking", "Codex-style"):
        assert label in whole
    tab.shot("strategies_whole")




def test_after_an_upload_the_chart_script_is_loaded_before_a_chart_page_asks_for_it(tab: Any, tmp_path: Path) -> None:
    # The first page draws no Plotly chart and does not load its script...
    assert tab.locator(".js-plotly-plot").count() == 0
    assert not tab.evaluate(CHART_SCRIPT_FETCHED)
    # ...after the upload's run, the browser loads and runs it while the overview is read.
    path = tmp_path / f"charts_ahead_{tab.width}_{'dark' if is_dark(tab) else 'light'}.json"
    path.write_bytes(ANTHROPIC_SAMPLE.read_bytes())
    upload(tab, path)
    tab.wait_for_function("() => window.contextLensChartsAhead === 'loaded'", timeout=UI_TIMEOUT_MS)
    assert tab.evaluate(CHART_SCRIPT_FETCHED)
    assert tab.locator(".js-plotly-plot").count() == 0  # still the overview, unchanged
    open_page(tab, "Zones")
    tab.locator(".js-plotly-plot").first.wait_for()


def test_the_timeline_caption_names_only_what_the_chart_draws(tab: Any) -> None:
    open_page(tab, "Timeline replay")
    chart = tab.locator(".js-plotly-plot").first
    chart.wait_for()
    legend = chart.locator(".legend").first.text_content() or ""
    caption = tab.locator("[data-testid='stCaptionContainer']").filter(has_text="The blue line").first.inner_text()
    assert ("triangles" in caption) == ("compaction (summary)" in legend or "compaction (fallback)" in legend)
    assert ("Purple" in caption) == ("compaction in the log" in legend)
    assert ("teal" in caption) == ("log usage" in legend or "estimate" in legend)
    chart.scroll_into_view_if_needed()
    tab.shot("timeline")


# The compactions table's cells by column, row by row (its headings carry the columns' names).
COMPACTION_CELLS = """() => { const box = document.querySelector('[data-table="replay_compactions"]');
  const names = [...box.querySelectorAll('th')].map(h => h.dataset.column);
  return [...box.querySelectorAll('tbody tr')].map(row =>
    Object.fromEntries([...row.querySelectorAll('td')].map((cell, i) => [names[i], cell.textContent.trim()]))); }"""


def test_the_compactions_table_fits_and_lists_why_a_call_compacted_nothing(tab: Any, tmp_path: Path) -> None:
    from tests.views.test_replay import stuck_on_a_dump

    tab.goto(tab.url.split("?")[0] + "?release=v0.16.0")  # the release whose handoff outweighs a small middle
    tab.get_by_text("Headline figures").wait_for()
    wait_until_idle(tab)
    path = tmp_path / f"stuck_{tab.width}.json"
    path.write_text(json.dumps(stuck_on_a_dump()), encoding="utf-8")
    upload(tab, path)
    open_page(tab, "Timeline replay")
    table = tab.locator("[data-table='replay_compactions']")
    table.wait_for()
    assert table.evaluate("box => box.scrollWidth <= box.clientWidth + 1")  # nothing to scroll to sideways
    rows = tab.evaluate(COMPACTION_CELLS)
    assert "why" not in rows[0] and rows[0]["tail_tokens"] == "—"  # no tail where nothing was compacted
    assert all(".00" not in row["tail_tokens"] for row in rows)  # token counts are whole numbers
    uncompacted = [row for row in rows if row["outcome"] == "not_smaller"]
    reasons = tab.locator(".st-key-replay_why")
    reasons.scroll_into_view_if_needed()
    listed = reasons.inner_text()
    assert uncompacted and listed.count("outweighs") == len(uncompacted)
    for row in uncompacted:
        assert f"#{row['compaction']} (at message {row['message_index']}):" in listed
    tab.shot("compactions_why")


def ten_thousand(path: Path) -> Path:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the **build** (see `make test`)."}]
    step = 0
    while len(messages) < 10_000:
        call = f"c{step}"
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call, "type": "function",
                 "function": {"name": "run_shell", "arguments": json.dumps({"command": f"make step{step}"})}}]},
            {"role": "tool", "tool_call_id": call, "content": f"step {step}: ok\n" * (40 if step % 7 == 0 else 2)},
            {"role": "assistant", "content": f"Step **{step}** done; next is `step{step + 1}`."},
        ]
        step += 1
    path.write_text(json.dumps({"messages": messages[:10_000]}), encoding="utf-8")
    return path


def test_the_conversation_view_reads_a_10k_message_log(tab: Any, tmp_path: Path) -> None:
    upload(tab, ten_thousand(tmp_path / "ten_thousand.json"))
    thread = tab.locator(".st-key-thread-overview")
    thread.locator(".cl-msg").first.wait_for()
    assert thread.locator(".cl-msg").count() == 50
    # A card out of view is neither laid out nor painted until it comes into view.
    last = thread.locator(".cl-msg").last
    assert last.evaluate("card => getComputedStyle(card).contentVisibility") == "auto"
    assert last.locator(".cl-num").evaluate("num => num.checkVisibility({contentVisibilityAuto: true})") is False
    first_call = thread.locator("details.cl-tool").first
    assert "run_shell" in first_call.inner_text() and first_call.get_attribute("open") is None
    first_call.locator("summary").click()
    assert first_call.get_attribute("open") is not None
    thread.scroll_into_view_if_needed()
    tab.shot("thread_first_page")
    jump = tab.get_by_role("spinbutton", name="Jump to message #")
    jump.fill("9876")
    jump.press("Enter")
    card = tab.locator("#cl-overview-9876")
    card.wait_for()
    wait_until_idle(tab)
    tab.wait_for_timeout(1_200)
    assert in_view(tab, card)
    assert tab.get_by_role("spinbutton", name="Page (of 200)").input_value() == str(9876 // 50 + 1)
    tab.screenshot(path=str(ROOT / "test-artifacts" / "screenshots" /
                            f"trust_thread_jump_{tab.width}_{'dark' if is_dark(tab) else 'light'}.png"))
    # Scrolled into a long message (step 3,290's 40-line output), its number stays in sight.
    long_card = tab.locator("#cl-overview-9872")
    long_card.locator("details.cl-tool summary").first.click()
    long_card.evaluate("""card => {
        card.scrollIntoView({block: "start"});
        let box = card.parentElement;
        while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement;
        (box || document.scrollingElement).scrollBy(0, 320);
    }""")
    tab.wait_for_timeout(300)
    head, body = long_card.locator(".cl-head").bounding_box(), long_card.bounding_box()
    assert body["y"] < 0 < head["y"] < 120, (head, body)  # the card's top is gone, its number is not
    assert "#9,872" in long_card.locator(".cl-head").inner_text()
    tab.screenshot(path=str(ROOT / "test-artifacts" / "screenshots" /
                            f"trust_thread_sticky_{tab.width}_{'dark' if is_dark(tab) else 'light'}.png"))


def test_the_preview_and_the_diff_read_as_threads(tab: Any) -> None:
    open_page(tab, "Compress & preview")
    tab.get_by_role("button", name="Run the compressor").click()
    tab.get_by_text("Before and after this run").wait_for()
    wait_until_idle(tab)
    preview = tab.locator(".st-key-thread-preview")
    preview.locator(".cl-msg").first.wait_for()
    summary = preview.locator(".cl-msg").filter(has=tab.locator(".cl-badge", has_text="SUMMARY")).first
    # A card out of view is not rendered (content-visibility): read it where a user reads it.
    summary.scroll_into_view_if_needed()
    expect(summary.locator(".cl-num")).to_contain_text("output #", use_inner_text=True)
    tab.shot("preview_thread")
    tab.get_by_role("tab", name="Before / after").click()
    tab.locator(".st-key-diff_mode button").filter(has_text="Side by side").click()
    wait_until_idle(tab)
    cards = tab.locator("[data-testid='stTabPanel']:visible .cl-msg")
    cards.first.wait_for()
    assert cards.count() >= 2
    heads = [h.strip() for h in cards.locator(".cl-num").all_text_contents()]  # out of view too
    assert any(h.startswith("#") for h in heads) and any(h.startswith("output #") for h in heads)
    cards.first.scroll_into_view_if_needed()
    tab.shot("diff_side_by_side")


def test_the_model_is_picked_as_a_provider_then_one_of_its_models(tab: Any) -> None:
    from core.models import chat_models_by_provider, context_window

    sidebar = tab.locator("[data-testid='stSidebar']")
    if not tab.evaluate(SIDEBAR_OPEN):  # the sidebar starts folded at 800 px
        tab.locator("[data-testid='stExpandSidebarButton']").first.click()
        tab.wait_for_function(SIDEBAR_OPEN)
        wait_until_idle(tab)
    provider = sidebar.get_by_role("combobox", name="Provider")
    model = sidebar.get_by_role("combobox", name="Model")
    assert provider.input_value() == "openai" and model.input_value() == "gpt-4o"
    # The Model box lists the provider's models only (and the custom window).
    model.click()
    listed = tab.get_by_role("option").count()
    openai = chat_models_by_provider(modes=("chat", "responses"))["openai"]
    assert 0 < listed <= len(openai) + 1 < 400, listed
    tab.keyboard.press("Escape")
    provider.click()
    provider.fill("anthropic")
    tab.get_by_role("option", name="anthropic", exact=True).click()
    wait_until_idle(tab)
    assert model.input_value() == "(custom context length)"  # gpt-4o is not an Anthropic model
    model.click()
    model.fill("claude-sonnet-4-5")
    tab.get_by_role("option", name="claude-sonnet-4-5", exact=True).click()
    wait_until_idle(tab)
    window = sidebar.get_by_role("spinbutton", name="Context length (tokens)")
    assert window.input_value() == str(context_window("claude-sonnet-4-5"))
    assert "claude-sonnet-4-5" in tab.locator(".st-key-source-line").inner_text()
    provider.scroll_into_view_if_needed()
    tab.shot("model_picker")
