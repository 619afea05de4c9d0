"""A real dashboard server and a real headless Chromium for the end-to-end tests.

Skipped when Chromium or Playwright is missing, unless CONTEXT_LENS_REQUIRE_BROWSER=1 (as in
``make test``), where that is a failure.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboard.sections import SECTIONS, section_of
from dashboard.serve import PORT_TAKEN, free_port, local_options

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
# The server's Live and Sessions pages list this folder (never the user's own agents' folders); the
# tests write session files in it. The index cache is kept beside it.
LIVE_ROOT = ROOT / "test-artifacts" / "live-sessions"
LIVE_CACHE = ROOT / "test-artifacts" / "live-cache"
REQUIRED = os.environ.get("CONTEXT_LENS_REQUIRE_BROWSER") == "1"
START_TIMEOUT_S = 90
# Generous: the machine running the tests may be busy; no test asserts on speed.
UI_TIMEOUT_MS = 60_000
PORT_ATTEMPTS = 3
# Whether the browser has fetched Streamlit's chart script (Plotly's), loaded ahead by dashboard.ui.
CHART_SCRIPT_FETCHED = ("() => performance.getEntriesByType('resource')"
                        ".some((entry) => /\\/static\\/js\\/PlotlyChart\\./.test(entry.name))")


def _missing(reason: str) -> None:
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)


def _healthy_or_port_taken(process: subprocess.Popen, url: str, log_path: Path) -> bool:
    """Wait for the server at ``url`` to answer: True when it does, False when it exited because
    its port was taken; any other end fails the test."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if process.poll() is not None:
            printed = log_path.read_text(encoding="utf-8", errors="replace")
            if PORT_TAKEN in printed:
                return False
            pytest.fail(f"streamlit exited with {process.returncode}; the end of {log_path}:\n{printed[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return True
        except OSError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"streamlit did not become healthy within {START_TIMEOUT_S} s; see {log_path}")
        time.sleep(0.3)


@contextlib.contextmanager
def dashboard_server(log_name: str = "streamlit-e2e.log") -> Iterator[str]:
    """The dashboard on a free local port, started as ``make run`` starts it (``python -m
    dashboard.serve``, i.e. ``streamlit run app.py``), while the block runs."""
    if importlib.util.find_spec("streamlit") is None:
        _missing("streamlit is not installed")
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # each test process's servers log apart
    log_path = ROOT / "test-artifacts" / (log_name.replace(".log", f"-{worker}.log") if worker else log_name)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    LIVE_ROOT.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CONTEXT_LENS_LIVE_ROOTS": str(LIVE_ROOT), "CONTEXT_LENS_CACHE": str(LIVE_CACHE)}
    for attempt in range(PORT_ATTEMPTS):
        port = free_port()
        command = [sys.executable, "-m", "dashboard.serve", *local_options(port)]
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
        url = f"http://127.0.0.1:{port}"
        if _healthy_or_port_taken(process, url, log_path):
            break
        # Between the probe and the server's bind another process (a client's outgoing connection
        # gets a port from the same range) took the port: Streamlit exits; another port is tried.
        if attempt == PORT_ATTEMPTS - 1:
            pytest.fail(f"no free port in {PORT_ATTEMPTS} attempts; see {log_path}")
    try:
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """The dashboard the browser tests share, until the session ends."""
    with dashboard_server() as url:
        yield url


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        _missing(f"{CHROMIUM} not found (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium: Any, server_url: str) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    context.set_default_timeout(UI_TIMEOUT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(server_url)
    tab.page_errors = errors  # type: ignore[attr-defined]
    try:
        yield tab
    finally:
        context.close()


def open_dashboard(chromium: Any, server_url: str, width: int, scheme: str = "light", height: int = 900) -> Any:
    """A new browser session on the first page, ``width`` x ``height`` in the ``scheme`` colours; its
    page errors in ``tab.page_errors`` (close ``tab.context`` after)."""
    context = chromium.new_context(viewport={"width": width, "height": height}, color_scheme=scheme,
                                   accept_downloads=True)
    context.set_default_timeout(UI_TIMEOUT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(server_url)
    tab.get_by_text("Headline figures").wait_for()
    wait_until_idle(tab)
    tab.page_errors = errors  # type: ignore[attr-defined]
    return tab


_IDLE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app ? app.dataset.testScriptState : 'initial';
  return !['running', 'rerunRequested', 'stopRequested'].includes(state)
    && !document.querySelector('[data-testid="stStatusWidget"]');
}"""


def wait_until_idle(page: Any) -> None:
    """Wait for the script run to end.

    Streamlit shows its status widget only once a run has lasted 500 ms, so a run that began just
    before the check would pass unseen; the app's root carries the run's state from its first message
    on. The status widget is still checked: a test may hold one in the page to stand for a long run."""
    page.wait_for_timeout(300)
    page.wait_for_function(_IDLE, timeout=UI_TIMEOUT_MS)
    # Widgets whose code the browser loads on first use show a grey placeholder until it is there.
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSkeleton\"], [data-testid=\"stSkeletonElement\"]')",
        timeout=UI_TIMEOUT_MS,
    )


def screenshot(page: Any, name: str) -> Path:
    """The whole page, however long: the viewport is stretched to the content for the shot."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate(
        "() => Math.max(...Array.from(document.querySelectorAll('[data-testid=\"stMain\"], "
        "[data-testid=\"stAppViewContainer\"], section.main, body')).map(e => e.scrollHeight))"
    )
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": int(min(max(height, size["height"]), 8000))})
    page.wait_for_timeout(400)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)
    return path


def page_sections() -> dict[str, list[tuple[str, str]]]:
    """``section -> [(file stem, title), ...]`` from the dashboard's navigation table."""
    return {section: [(name, title) for name, title, _icon in entries] for section, entries in SECTIONS.items()}


def nav_link(page: Any, title: str) -> Any:
    """The navigation link to ``title``: the navigation is across the top, one menu per section."""
    section = section_of(title)
    link = page.locator("[data-testid='stTopNavDropdownLink']").filter(has_text=title).first
    if not link.is_visible():
        page.locator("[data-testid='stTopNavSection']").filter(has_text=section).first.click()
        link.wait_for()
    return link


def open_page(page: Any, title: str) -> None:
    nav_link(page, title).click()
    page.get_by_role("heading", name=title).first.wait_for()
    wait_until_idle(page)


def upload(page: Any, path: Path) -> None:
    """Drop a file on the uploader and wait until the page analyses (or rejects) it."""
    page.locator("[data-testid='stFileUploader'] input[type=file]").set_input_files(str(path))
    page.wait_for_function(
        "name => { const box = document.querySelector('input[aria-label=\"Conversation to analyse\"]');"
        " return box !== null && box.value === 'Uploaded: ' + name; }",
        arg=path.name,
        timeout=UI_TIMEOUT_MS,
    )
    wait_until_idle(page)


#: The screens every browser test of a page runs on: both widths and both colour schemes, crossed in two
#: runs (1400 px light, 800 px dark) so each item is seen at each width and in each scheme.
SCREENS: list[tuple[int, str]] = [(1400, "light"), (800, "dark")]
