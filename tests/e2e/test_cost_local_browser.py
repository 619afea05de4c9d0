"""The Cost tab (the log's requests priced with their cache, the compaction with prompt caching) and a
run with the local model (its progress, then its summary) in headless Chromium, 1400 and 800 px,
light and dark."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.formats import load
from core.inspections.recorded_cost import recorded_cost
from core.render.formatting import usd
from tests.e2e.conftest import ROOT, SCREENS, nav_link, open_dashboard, screenshot, upload, wait_until_idle

CLAUDE_SAMPLE = ROOT / "sample_conversations" / "claude_code_session.jsonl"


def _open_compress(tab: Any) -> None:
    nav_link(tab, "Compress & preview").click()
    tab.get_by_role("button", name="Run the compressor").wait_for()
    wait_until_idle(tab)


@pytest.mark.parametrize(("width", "scheme"), SCREENS)
def test_the_cost_tab_prices_the_logs_requests_and_the_compaction(chromium: Any, server_url: str, width: int,
                                                                  scheme: str) -> None:
    tab = open_dashboard(chromium, server_url, width, scheme)
    try:
        upload(tab, CLAUDE_SAMPLE)
        # The sample's agent compacted it: its live context is too small to compress, the full history is not.
        tab.get_by_text("Full history (before the agent's compaction", exact=False).first.click()
        tab.get_by_text("The full history: all", exact=False).first.wait_for()
        wait_until_idle(tab)
        _open_compress(tab)
        tab.get_by_role("button", name="Run the compressor").click()
        tab.get_by_text("Before and after this run").wait_for()
        wait_until_idle(tab)
        tab.get_by_role("tab", name="Cost").click()
        tab.get_by_text("What the logged requests cost").wait_for()
        wait_until_idle(tab)
        conversation = load(CLAUDE_SAMPLE)
        total = recorded_cost(conversation.usage, conversation.model).costs()["total"]
        metric = tab.locator("[data-testid='stMetric']").filter(has_text="Total").first
        assert usd(total) in metric.inner_text()
        assert tab.get_by_text("With prompt caching", exact=True).is_visible()
        # Nothing of the section reaches past the page's right edge.
        overflow = tab.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth"
                                " - document.querySelector('[data-testid=\"stMain\"]').clientWidth")
        assert overflow <= 1, f"{overflow} px wider than the page"
        tab.get_by_text("What the logged requests cost").scroll_into_view_if_needed()
        screenshot(tab, f"cost_tab_{scheme}_{width}")
        assert not tab.page_errors, tab.page_errors
    except Exception:
        screenshot(tab, f"cost_tab_{scheme}_{width}_failed")
        raise
    finally:
        tab.context.close()


PROGRESS = re.compile(r"Compressing… \d+ s")
DONE = re.compile(r"Done in [\d.]+ s")
_NOTE_PROGRESS = """() => {
    window.progressShown = [];
    new MutationObserver((records) => {
        for (const record of records) {
            const text = record.target.textContent || "";
            if (text.length < 500 && /Compressing… \\d+ s/.test(text)) window.progressShown.push(text);
        }
    }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


@pytest.mark.local_llm
@pytest.mark.parametrize(("width", "scheme"), [(1400, "light"), (800, "dark")])
def test_a_local_model_run_shows_its_progress_and_ends_with_a_summary(chromium: Any, server_url: str, width: int,
                                                                      scheme: str) -> None:
    from core.summarizers.local import missing_parts

    if missing_parts():
        pytest.skip(f"local model not installed (missing {', '.join(missing_parts())})")
    tab = open_dashboard(chromium, server_url, width, scheme)
    try:
        _open_compress(tab)
        tab.get_by_text("Local model (SmolLM2, offline)").click()
        # The choice has taken: the local model's own note is there.
        tab.get_by_text("runs on this machine's CPU", exact=False).first.wait_for()
        wait_until_idle(tab)
        # Every status the page shows is noted as it is drawn: a run whose prompt the model has read
        # before (the other test's) can end within a second, before a check by polling looks.
        tab.evaluate(_NOTE_PROGRESS)
        tab.get_by_role("button", name="Run the compressor").click()
        running = tab.get_by_text(PROGRESS).first
        tab.get_by_text(re.compile(f"{PROGRESS.pattern}|{DONE.pattern}")).first.wait_for(timeout=120_000)
        if running.is_visible():
            screenshot(tab, f"local_model_running_{scheme}_{width}")
        tab.get_by_text(DONE).first.wait_for(timeout=180_000)
        wait_until_idle(tab)
        # The status counted the seconds while the model worked.
        assert tab.evaluate("() => window.progressShown.length") > 0
        assert tab.get_by_text("Summarised.").first.is_visible()
        screenshot(tab, f"local_model_done_{scheme}_{width}")
        assert not tab.page_errors, tab.page_errors
    except Exception as exc:
        # What the page said when it went wrong, in the test's report (the status, an error).
        screenshot(tab, f"local_model_{scheme}_{width}_failed")
        shown = tab.locator("[data-testid='stMain']").inner_text(timeout=5_000)[-1_500:]
        raise AssertionError(f"{exc}\nthe page ended with: {shown}") from exc
    finally:
        tab.context.close()
