"""How fast the dashboard answers in a real browser: slider moves and page switches in headless Chromium.

    python -m bench.bench_browser [--repeat N] [--sample NAME]

The dashboard's server as ``make run`` starts it, on a free local port, driven by Playwright through
``/usr/bin/chromium``, on the bundled long sample. Two figures per action, both measured inside
the page from the moment of the key press or click:

- *chart redrawn*: the last time a Plotly chart of the page finished drawing (its
  ``plotly_afterplot`` event) after the action;
- *settled*: the last visible change to the page (a mutation of the document, or text a table
  draws on its canvas), once Streamlit's "running" indicator is gone and nothing has changed for
  a quiet period. Changes inside a ``<canvas>`` (its fallback content, which is never displayed)
  do not count: a table rewrites its hidden accessibility copy about 0.3 s after it has painted.

Slider moves press an arrow key on the focused slider thumb of the sidebar (Streamlit sends the
new value when the key is released), alternating right and left, on the Zones page (the zone map
and the per-message table) and on the Upload & overview page. Page switches click a page in the
navigation and wait for its chart. Results go to ``bench/results/browser.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import ROOT, print_table, save
from bench.dashboard_start import APP, check_running, on_free_port, server_command
from dashboard.sections import section_of
from dashboard.serve import local_options

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
QUIET_MS = 600  # nothing changed on the page for this long: the action has settled
TIMEOUT_S = 60
SLIDER_TARGET_S = 0.4
PAGE_SWITCH_TARGET_S = 0.6

# Installed before any page script: records each Plotly redraw and each visible change. A change
# is a mutation of the document outside a <canvas>, or text drawn on a canvas: a table
# (glide-data-grid) paints its cells on a canvas and rewrites the canvas's fallback content (an
# accessibility table that is never displayed) about 0.3 s after its last paint.
_INSTRUMENT = """
(() => {
  window.__lens = {afterplot: [], mutations: []};
  const hooked = new WeakSet();
  const hook = () => {
    document.querySelectorAll('.js-plotly-plot').forEach((gd) => {
      if (hooked.has(gd) || !gd.on) return;
      hooked.add(gd);
      gd.on('plotly_afterplot', () => window.__lens.afterplot.push(performance.now()));
    });
  };
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (...args) {
    window.__lens.mutations.push(performance.now());
    return fillText.apply(this, args);
  };
  const element = (node) => (node.nodeType === 1 ? node : node.parentElement);
  const shown = (record) => {
    const el = element(record.target);
    return !!el && !el.closest('[data-testid="stStatusWidget"]') && !el.closest('canvas');
  };
  const observer = new MutationObserver((records) => {
    if (records.some(shown)) window.__lens.mutations.push(performance.now());
    hook();
  });
  const start = () => observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  if (document.body) start(); else document.addEventListener('DOMContentLoaded', start);
  setInterval(hook, 50);
})();
"""

_MARK = "() => { window.__lens.mark = performance.now(); return window.__lens.mark; }"
_STATE = """() => ({
  now: performance.now(),
  mark: window.__lens.mark,
  running: !!document.querySelector('[data-testid="stStatusWidget"]'),
  afterplot: window.__lens.afterplot.filter((t) => t >= window.__lens.mark),
  last_mutation: Math.max(0, ...window.__lens.mutations.filter((t) => t >= window.__lens.mark)),
})"""


@contextlib.contextmanager
def dashboard_page() -> Iterator[tuple[str, Any]]:
    """``(url, page)``: a dashboard server of its own and a Chromium page at 1400 px that records
    redraws and visible changes (``_INSTRUMENT``); both stopped afterwards."""
    from playwright.sync_api import sync_playwright

    server = Server()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.add_init_script(_INSTRUMENT)
            try:
                yield server.url, context.new_page()
            finally:
                browser.close()
    finally:
        server.stop()


class Server:
    """The dashboard as ``make run`` serves it, on 127.0.0.1 until stopped."""

    def __init__(self) -> None:
        on_free_port(self._start, "the dashboard")

    def _start(self, port: int) -> None:
        """Start on ``port`` and return once it answers (:class:`PortTaken` if it exits because the
        port is taken)."""
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        log = tempfile.TemporaryFile()  # not a pipe: a long run's log would fill it and stop the server
        # Started as ``make run`` starts it (``python -m dashboard.serve``): the figures are those of the
        # dashboard people run, which sends each reply at once and loads the first page's modules ahead.
        self.process = subprocess.Popen(
            [*server_command(APP), *local_options(port)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log,
        )
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        return
            except OSError:
                check_running(self.process, log, "the dashboard did not start")
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the dashboard did not start") from None
                time.sleep(0.2)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _settle(page: Any) -> dict[str, float]:
    """Wait until the run is over and the page has been quiet; seconds from the mark to each event.

    A move that leaves the chart as it was (two slider values with the same zones) redraws
    nothing: it has no chart time, only a settled time.
    """
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        state = page.evaluate(_STATE)
        quiet_for = state["now"] - max(state["last_mutation"], state["mark"])
        if not state["running"] and quiet_for >= QUIET_MS:
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page did not settle within {TIMEOUT_S} s: {state}")
        time.sleep(0.05)
    mark = state["mark"]
    chart = (max(state["afterplot"]) - mark) / 1000 if state["afterplot"] else float("nan")
    settled = (max(state["last_mutation"], mark) - mark) / 1000
    return {"chart redrawn s": chart, "settled s": settled}


def _slider_thumb(page: Any, label: str) -> Any:
    return page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text=label).locator(
        'input[type="range"]').first


def _open(page: Any, url: str, chart: bool = True) -> None:
    page.goto(url)
    page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stSlider"]', timeout=TIMEOUT_S * 1000)
    if chart:  # a Plotly chart, or the first page's HTML bars
        page.wait_for_selector(".js-plotly-plot, [data-chart]", state="attached", timeout=TIMEOUT_S * 1000)
    page.evaluate(_MARK)
    _settle(page)


def _slider_moves(page: Any, label: str, repeat: int) -> list[dict[str, float]]:
    thumb = _slider_thumb(page, label)
    timings = []
    for move in range(repeat):
        thumb.focus()
        key = "ArrowRight" if move % 2 == 0 else "ArrowLeft"
        page.evaluate(_MARK)
        page.keyboard.press(key)
        timings.append(_settle(page))
    return timings


def _nav_link(page: Any, title: str) -> Any:
    """The link to ``title`` in the navigation across the top (its section's menu opened first)."""
    link = page.locator('[data-testid="stTopNavDropdownLink"]').filter(has_text=title).first
    if not link.is_visible():
        page.locator('[data-testid="stTopNavSection"]').filter(has_text=section_of(title)).first.click()
        link.wait_for()
    return link


def _page_switch(page: Any, title: str) -> dict[str, float]:
    link = _nav_link(page, title)  # opening the menu is not part of the switch
    page.evaluate(_MARK)
    link.click()
    return _settle(page)


def _summary(case: str, timings: list[dict[str, float]], target: float) -> dict[str, Any]:
    """Medians; the target is judged on the chart redraw, or on the settled page when no chart redraws."""
    chart = [t["chart redrawn s"] for t in timings if t["chart redrawn s"] == t["chart redrawn s"]]
    settled = [t["settled s"] for t in timings]
    judged = statistics.median(chart) if chart else statistics.median(settled)
    return {
        "case": case,
        "n": len(timings),
        "redraws": len(chart),
        "chart redrawn median s": round(statistics.median(chart), 3) if chart else None,
        "chart redrawn max s": round(max(chart), 3) if chart else None,
        "settled median s": round(statistics.median(settled), 3),
        "target s": target,
        "met": judged <= target,
    }


def run(repeat: int = 8) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    with dashboard_page() as (url, page):
        # The first visit loads the sample, counts it and warms every cache of the server (it
        # opens on the overview: the pages read the shared settings it initialises).
        _open(page, url)
        for path, label in (("zones", "Protect first N messages"), ("zones", "Summary target ratio"),
                            ("", "Protect first N messages")):
            _open(page, f"{url}/{path}")
            _slider_moves(page, label, 2)  # the first moves of a page warm its caches
            timings = _slider_moves(page, label, repeat)
            rows.append(_summary(f"slider '{label}' on /{path or 'overview'}", timings, SLIDER_TARGET_S))
            print(rows[-1], flush=True)
        _open(page, f"{url}/zones")
        switches: dict[str, list[dict[str, float]]] = {}
        titles = ("Phase savings", "Zones", "Upload & overview", "Zones")
        for _round in range(max(2, repeat // 2)):
            for title in titles:
                switches.setdefault(title, []).append(_page_switch(page, title))
        for title, timings in switches.items():
            rows.append(_summary(f"switch to '{title}'", timings[1:], PAGE_SWITCH_TARGET_S))
    return {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "load average": os.getloadavg(),
        "rows": rows,
    }


def browser_main(argv: list[str] | None, *, description: str, repeat: int, run: Any, title: Any,
                 name: str) -> dict[str, Any]:
    """A browser benchmark's command line: ``--repeat``, skipped without Chromium, ``run(repeat)``'s rows
    printed under ``title(results)`` and saved as ``bench/results/<name>.json``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeat", type=int, default=repeat)
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"browser benchmark skipped: no {CHROMIUM}")
        return {"skipped": f"no {CHROMIUM}"}
    results = run(args.repeat)
    print_table(title(results), results["rows"])
    path = save(name, results)
    print(f"saved {path.relative_to(ROOT)}")
    return results


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return browser_main(argv, description=__doc__.split("\n")[0], repeat=8, run=run, name="browser",
                        title=lambda _results: "Chromium: slider moves and page switches on the long sample (seconds)")


if __name__ == "__main__":
    main()
