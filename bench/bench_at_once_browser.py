"""Pages opened at once after a new upload, in a real browser: what the work ahead costs the pages beside it.

    python -m bench.bench_at_once_browser [--repeat N]

The dashboard as ``make run`` serves it (``bench.bench_browser.Server``), driven by Playwright through
``/usr/bin/chromium`` at 1400 px, every page opened once on the default sample first. Each round
uploads a 2.6 MB log of ``bench.bench_first_visit`` with texts of its own (a variant: the server
remembers nothing of it) under a name of its own and clicks a page as soon as the upload's name
shows, while the work ahead for it (``dashboard.ahead``) runs:

- *Zones* needs the work ahead's first result (the offline Hermes run): it waits for it;
- *Timeline replay* needs none of it: the work ahead only shares the machine with it.

The figure is the time from the click to the page's last change, once its script has ended and
nothing has changed for ``QUIET_MS`` (``settled``). Strategies, the page the work ahead is for, has its own benchmark
(``bench.bench_strategies_browser``). Results go to ``bench/results/at_once_browser.json``.
"""

from __future__ import annotations

import os
import time
from typing import Any

from bench.bench_browser import _MARK, _nav_link, _open, _settle, browser_main, dashboard_page
from bench.bench_first_visit import TARGET_S, log_bytes
from bench.bench_strategies_browser import _upload, open_every_page
from bench.common import timing_row

OPENED = ("Zones", "Timeline replay")


def run(repeat: int = 5, opened: tuple[str, ...] = OPENED) -> dict[str, Any]:
    data = log_bytes()
    settled: dict[str, list[float]] = {title: [] for title in opened}
    uploads = 0
    with dashboard_page() as (url, page):
        open_every_page(page, url)
        for number in range(repeat):
            for title in opened:
                _open(page, url, chart=False)
                uploads += 1  # a log of texts the server has not seen (``log_bytes``)
                _upload(page, f"at_once_{number}_{len(settled[title])}_{title[:4]}.json",
                        log_bytes(variant=uploads), settle=False)
                link = _nav_link(page, title)
                page.evaluate(_MARK)
                link.click()
                settled[title].append(_settle(page)["settled s"])
                print({"page": title, "settled s": settled[title][-1]}, flush=True)
    rows = [timing_row(f"{title} at once: settled s", times, TARGET_S) for title, times in settled.items()]
    return {"MB": round(len(data) / 1e6, 2), "settled": settled, "rows": rows,
            "when": time.strftime("%Y-%m-%d %H:%M"), "load average": os.getloadavg()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return browser_main(argv, description=__doc__.split("\n")[0], repeat=5, run=run, name="at_once_browser",
                        title=lambda results: f"Chromium: pages opened at once after a {results['MB']} MB upload, "
                                              "from the click (seconds)")


if __name__ == "__main__":
    main()
