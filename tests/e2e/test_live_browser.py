"""The Live page in headless Chromium: a session file in the server's session folder is appended to
while the page is open, and the gauge's numbers move within 2 s; at 1400 and 800 px, light and dark.

The server lists ``LIVE_ROOT`` (``tests/e2e/conftest.py``), a folder under ``test-artifacts/``,
never the user's own agents' folders.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from core.formats import load
from tests.e2e.conftest import LIVE_ROOT, ROOT, SCREENS, UI_TIMEOUT_MS, open_dashboard, open_page, screenshot

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = [pytest.mark.browser, pytest.mark.serial]

CODEX = ROOT / "sample_conversations" / "codex_rollout.jsonl"
MOVE_DEADLINE_S = 2.0
METRIC_VALUE = """([label, wanted]) => {
  const metric = Array.from(document.querySelectorAll('[data-testid="stMetric"]'))
    .find(m => m.querySelector('[data-testid="stMetricLabel"]')?.textContent.trim() === label);
  const value = metric?.querySelector('[data-testid="stMetricValue"]')?.textContent.trim();
  return wanted === null ? (value ?? false) : value === wanted;
}"""


def _metric(tab: Any, label: str) -> str:
    return str(tab.wait_for_function(METRIC_VALUE, arg=[label, None], timeout=UI_TIMEOUT_MS).json_value())


def _gauge(tab: Any) -> str:
    return tab.locator("[data-chart='live-gauge']").first.inner_html()


def _empty_live_root() -> None:
    LIVE_ROOT.mkdir(parents=True, exist_ok=True)
    for old in LIVE_ROOT.glob("*.jsonl"):
        old.unlink()


def _open(chromium: Any, server_url: str, width: int, scheme: str, title: str) -> tuple[Any, Any, list[str]]:
    """A new browser session on the page ``title``: its context (close it after), tab and page errors."""
    tab = open_dashboard(chromium, server_url, width, scheme)
    open_page(tab, title)
    return tab.context, tab, tab.page_errors


@pytest.mark.parametrize(("width", "scheme"), SCREENS)
def test_the_gauge_moves_within_2_s_of_an_append(chromium: Any, server_url: str, width: int, scheme: str) -> None:
    lines = CODEX.read_bytes().splitlines(keepends=True)
    _empty_live_root()
    path = LIVE_ROOT / f"rollout-{width}-{scheme}.jsonl"
    path.write_bytes(b"".join(lines[:16]))
    context, tab, errors = _open(chromium, server_url, width, scheme, "Live")
    try:
        tab.get_by_text("Following").first.wait_for()
        before = len(load(path).live_context().messages)  # the context after the agent's last compaction
        assert _metric(tab, "Messages") == f"{before:,}"
        request_before, gauge_before = _metric(tab, "Whole request"), _gauge(tab)

        for piece in (lines[16:24], lines[24:]):  # two appends, the page open all along
            previous = len(load(path).live_context().messages)
            written = time.monotonic()
            with open(path, "ab") as handle:
                handle.write(b"".join(piece))
            expected = len(load(path).live_context().messages)
            assert expected != previous  # it grows, or shrinks where the appended part holds a compaction
            tab.wait_for_function(METRIC_VALUE, arg=["Messages", f"{expected:,}"], timeout=15_000)
            moved = time.monotonic() - written
            print(f"live page, {width} px {scheme}: the append showed after {moved:.2f} s")
            assert moved <= MOVE_DEADLINE_S, f"the page showed the append after {moved:.2f} s"
        assert _metric(tab, "Whole request") != request_before
        assert _gauge(tab) != gauge_before
        assert tab.locator("[data-testid='stException']").count() == 0
        shot = screenshot(tab, f"live_{width}_{scheme}")
        assert shot.stat().st_size > 10_000
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize(("width", "scheme"), SCREENS)
def test_the_sessions_page_lists_the_folder_and_follows_a_session(chromium: Any, server_url: str, width: int,
                                                                    scheme: str) -> None:
    _empty_live_root()
    claude = ROOT / "sample_conversations" / "claude_code_v2_session.jsonl"
    (LIVE_ROOT / "rollout-a.jsonl").write_bytes(CODEX.read_bytes())
    (LIVE_ROOT / "session-b.jsonl").write_bytes(claude.read_bytes())
    context, tab, errors = _open(chromium, server_url, width, scheme, "Sessions")
    try:
        tab.get_by_text("2 session(s)").first.wait_for()
        assert tab.locator("[data-testid='stDataFrame']").count() == 1
        assert tab.locator("[data-testid='stException']").count() == 0
        shot = screenshot(tab, f"sessions_{width}_{scheme}")
        assert shot.stat().st_size > 10_000
        tab.get_by_role("button", name="Follow live").click()
        tab.get_by_role("heading", name="Live").first.wait_for()
        tab.get_by_text("Following").first.wait_for()
        picked = tab.get_by_role("textbox", name="Session file").input_value()
        shown = _metric(tab, "Messages")
        assert shown == f"{len(load(picked).messages):,}"
        assert not errors, errors
    finally:
        context.close()
