"""Two people on one dashboard, on the same transcript, in two browsers: each sees only its own run.

The first runs the compressor without a summarizer (the release's fallback summary) and opens Phase
savings; then the second runs it with the offline summary and opens Phase savings. Each page must show
that session's own run: its outcome, its figures, its summary.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import UI_TIMEOUT_MS, open_page, screenshot, wait_until_idle

pytestmark = pytest.mark.browser

FALLBACK = "No summarizer (the profile's fallback)"
OFFLINE = "Offline extractive summary (default)"


def _session(chromium: Any, server_url: str) -> Any:
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(UI_TIMEOUT_MS)
    tab = context.new_page()
    tab.goto(server_url)
    tab.get_by_text("Headline figures").wait_for()
    wait_until_idle(tab)
    return tab


def _metric(tab: Any, label: str) -> str:
    metric = tab.locator("[data-testid='stMetric']").filter(has_text=label).first
    return metric.locator("[data-testid='stMetricValue']").inner_text().strip()


def _run(tab: Any, summarizer: str) -> str:
    """Run the compressor with ``summarizer``; the run's exact tokens after, as the page shows them."""
    open_page(tab, "Compress & preview")
    tab.get_by_text(summarizer, exact=True).click()
    wait_until_idle(tab)
    tab.get_by_role("button", name="Run the compressor").click()
    tab.get_by_text("Before and after this run").wait_for()
    wait_until_idle(tab)
    return _metric(tab, "Tokens (tiktoken)")


def test_two_browsers_on_one_transcript_each_see_their_own_run(chromium: Any, server_url: str) -> None:
    first, second = _session(chromium, server_url), _session(chromium, server_url)
    try:
        first_after = _run(first, FALLBACK)
        open_page(first, "Phase savings")
        assert _metric(first, "Final") == first_after
        assert "fallback summary stands in" in first.inner_text("body")

        second_after = _run(second, OFFLINE)
        assert second_after != first_after
        open_page(second, "Phase savings")
        body = second.inner_text("body")
        assert _metric(second, "Final") == second_after, "the second session shows the first one's figures"
        assert "fallback summary stands in" not in body
        assert "offline extractive summary" in body
        screenshot(second, "sessions_second_savings")

        # The first session, back on the page after the second one's run, still sees its own run.
        open_page(first, "Zones")
        open_page(first, "Phase savings")
        assert _metric(first, "Final") == first_after
        assert "fallback summary stands in" in first.inner_text("body")
    finally:
        first.context.close()
        second.context.close()
