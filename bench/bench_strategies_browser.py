"""Strategies' first visit on a 2.6 MB log, in a real browser: when its first rows show, and when it is whole.

    python -m bench.bench_strategies_browser [--repeat N]

The dashboard as ``make run`` serves it (``bench.bench_browser.Server``), driven by Playwright through
``/usr/bin/chromium`` at 1400 px. Each round uploads a 2.6 MB log of ``bench.bench_first_visit`` with
texts of its own, under a name of its own (a new transcript: nothing of it is remembered), waits for
the overview to settle, then clicks Strategies in the navigation. From that click:

- *first rows*: the chart names Truncation (the strategies that do not summarise the whole log are
  shown while the Codex-style reset summarises it);
- *whole*: the chart names Codex-style too;
- *settled*: the page has been quiet for ``QUIET_MS`` after its script ended.

Each round is made twice: once *after reading* (the overview has settled, as when a user reads it
before going on: the analyses the pages share are made ahead meanwhile, ``dashboard.ahead``), and
once *at once* (Strategies clicked as soon as the upload's name shows: the page waits for that work
or makes it). Before the rounds, every page is opened once on the default sample (the page modules
are loaded, as in ``bench.bench_first_visit``'s warm figure). Results go to
``bench/results/strategies_browser.json``.
"""

from __future__ import annotations

import os
import time
from typing import Any

from bench.bench_browser import _MARK, TIMEOUT_S, _nav_link, _open, _settle, browser_main, dashboard_page
from bench.bench_first_visit import PAGES, TARGET_S, log_bytes
from bench.common import timing_row

# The strategies' names as the tokens chart shows them (HTML bars, ``core.render.strategies``).
_CHART_NAMES = """() => Array.from(document.querySelectorAll('[data-chart="strategy_tokens"]'))
  .map((chart) => chart.textContent).join(' ')"""


WAYS = ("after reading", "at once")


def _upload(page: Any, name: str, data: bytes, *, settle: bool) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": name, "mimeType": "application/json", "buffer": data}])
    page.wait_for_function(f"() => document.body.innerText.includes({name!r})", timeout=TIMEOUT_S * 1000)
    if settle:
        page.evaluate(_MARK)
        _settle(page)


def open_every_page(page: Any, url: str) -> None:
    """Every page once on the default sample: the server has loaded their modules, the browser the
    scripts of their elements (as for a user who has looked around before uploading)."""
    _open(page, url)
    for other in PAGES[1:]:
        _open(page, f"{url}/{other}", chart=False)


def _visit(page: Any) -> dict[str, float]:
    link = _nav_link(page, "Strategies")
    started = time.perf_counter()
    link.click()
    first = whole = None
    deadline = started + TIMEOUT_S
    while whole is None and time.perf_counter() < deadline:
        names = page.evaluate(_CHART_NAMES)
        now = time.perf_counter() - started
        if first is None and "Truncation" in names:
            first = now
        if "Codex-style" in names:
            whole = now
            first = first if first is not None else now
        time.sleep(0.02)
    if whole is None:
        raise TimeoutError(f"Strategies was not whole within {TIMEOUT_S} s")
    page.evaluate(_MARK)
    settled = _settle(page)["settled s"]
    return {"first rows s": first, "whole s": whole, "settled s": whole + settled}


def run(repeat: int = 5) -> dict[str, Any]:
    data = log_bytes()
    rounds: list[dict[str, float]] = []
    with dashboard_page() as (url, page):
        open_every_page(page, url)
        for number in range(repeat):
            for way in WAYS:
                _open(page, url, chart=False)
                # A log of texts the server has not seen (``log_bytes``): nothing of it is remembered.
                _upload(page, f"big_log_{number}_{way.replace(' ', '_')}.json", log_bytes(variant=len(rounds) + 1),
                        settle=way == "after reading")
                rounds.append({"way": way, **_visit(page)})
                print(rounds[-1], flush=True)
    rows = [timing_row(f"{way}: {figure}", [r[figure] for r in rounds if r["way"] == way], TARGET_S)
            for way in WAYS for figure in ("first rows s", "whole s", "settled s")]
    return {"MB": round(len(data) / 1e6, 2), "rounds": rounds, "rows": rows, "when": time.strftime("%Y-%m-%d %H:%M"),
            "load average": os.getloadavg()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return browser_main(argv, description=__doc__.split("\n")[0], repeat=5, run=run, name="strategies_browser",
                        title=lambda results: f"Chromium: Strategies' first visit on a {results['MB']} MB log, "
                                              "from the click (seconds)")


if __name__ == "__main__":
    main()
