"""Redaction preview in headless Chromium: masks are highlighted, transcript markup stays text."""

from __future__ import annotations

import pytest

from core import CompressorConfig
from core.formats import load
from core.views.redaction import redaction_view
from tests.e2e.conftest import ROOT, open_page, screenshot, upload, wait_until_idle

pytestmark = pytest.mark.browser

SAMPLES = ROOT / "sample_conversations"
XSS = ROOT / "tests" / "app" / "data" / "xss_transcript.json"


def test_masks_are_highlighted_and_markup_never_runs(page):
    upload(page, SAMPLES / "secrets_in_tool_output.json")
    open_page(page, "Redaction preview")
    page.locator("mark[title='reference: database-url']").first.wait_for()
    # The sidebar's defaults: gpt-4o, its 16,384-token output reserve, the newest release.
    expected = redaction_view(load(SAMPLES / "secrets_in_tool_output.json").messages,
                              CompressorConfig(model="gpt-4o", max_tokens=16_384))
    assert page.locator("mark[title^='reference: ']").count() == len(expected.spans) == 7
    # Strict redaction is on by default for the offline summary: the AWS secret is masked.
    switch = page.get_by_role("switch", name="Strict redaction")
    assert switch.is_checked()
    page.locator("mark[title^='strict: ']").first.wait_for()
    main = page.locator("[data-testid='stMain']")
    assert "FaKe/SeCrEt+KeY" not in main.inner_text()
    screenshot(page, "14_redaction_preview")
    # Off, the reference masks alone let it through, and the page shows it.
    page.get_by_text("Strict redaction").first.click()
    wait_until_idle(page)
    page.locator("mark[title^='strict: ']").first.wait_for(state="detached")
    assert not switch.is_checked() and "FaKe/SeCrEt+KeY" in main.inner_text()

    open_page(page, "Upload & overview")
    upload(page, XSS)
    open_page(page, "Redaction preview")
    page.get_by_text("<script>window.__xss = 'script'</script>", exact=False).first.wait_for()
    assert page.get_by_text("<img src=x onerror=", exact=False).count() >= 1
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script:text('__xss')").count() == 0
    assert not page.page_errors
