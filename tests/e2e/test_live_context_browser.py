"""In headless Chromium, at 1400 and 800 pixels, light and dark: a log the agent compacted opens as the
context the model last saw (with the switch to its full history), and the Zones page says what Hermes'
tool-pair repair lost, and Fact retention counts it apart. Screenshots go to test-artifacts/screenshots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import SCREENS, open_page, screenshot, upload, wait_until_idle
from tests.e2e.test_layout_browser import _open
from tests.formats.test_live_context import claude_code_log
from tests.views.test_repair_losses import repair_case


@pytest.mark.parametrize(("width", "scheme"), SCREENS)
def test_live_context_and_repair_losses_in_the_browser(chromium: Any, server_url: str, tmp_path: Path, width: int,
                                                        scheme: str) -> None:
    compacted = tmp_path / "cc-live.jsonl"
    compacted.write_bytes(claude_code_log(compactions=2))
    repaired = tmp_path / "repair.json"
    repaired.write_text(json.dumps(repair_case()), encoding="utf-8")
    tab = _open(chromium, server_url, width, scheme)
    try:
        upload(tab, compacted)
        tab.get_by_text("The context the model last saw", exact=False).first.wait_for()
        screenshot(tab, f"live_context_{scheme}_{width}_overview")
        tab.get_by_text("Full history (before the agent's compaction", exact=False).first.click()
        wait_until_idle(tab)
        tab.get_by_text("The full history: all", exact=False).first.wait_for()
        screenshot(tab, f"live_context_{scheme}_{width}_overview_full")

        upload(tab, repaired)
        open_page(tab, "Zones")
        notice = tab.get_by_text("tool-pair repair removed", exact=False).first
        notice.wait_for()
        assert notice.is_visible()
        tab.get_by_text("Removed by the tool-pair repair", exact=False).first.click()
        wait_until_idle(tab)
        screenshot(tab, f"repair_losses_{scheme}_{width}_zones")
        open_page(tab, "Fact retention")
        tab.locator("[data-testid='stMetric']").filter(has_text="Lost by the repair").first.wait_for()
        screenshot(tab, f"repair_losses_{scheme}_{width}_fact_retention")
        assert not tab.page_errors  # type: ignore[attr-defined]
    finally:
        tab.context.close()
