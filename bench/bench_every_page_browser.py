"""Every page's first visit in a real browser, opened at once after a new upload.

    python -m bench.bench_every_page_browser [--repeat N]

``bench.bench_at_once_browser``'s rounds for each page that reads the uploaded conversation (the
overview, where the upload is made, and the Live and Sessions pages, which read their own folders,
aside): a 2.6 MB log of ``bench.bench_first_visit`` with texts of its own, uploaded under a name of
its own, and the page clicked as soon as the name shows, while the work ahead (``dashboard.ahead``) runs. From the click to
the page's last change. Results go to ``bench/results/every_page_browser.json``.
"""

from __future__ import annotations

from typing import Any

from bench.bench_at_once_browser import run
from bench.bench_browser import browser_main
from dashboard.sections import OWN_INPUT_PAGES, SECTIONS

OPENED = tuple(title for pages in SECTIONS.values() for name, title, _icon in pages
               if name != "overview" and name not in OWN_INPUT_PAGES)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return browser_main(argv, description=__doc__.split("\n")[0], repeat=3,
                        run=lambda repeat: run(repeat, OPENED), name="every_page_browser",
                        title=lambda results: f"Chromium: every page opened at once after a {results['MB']} MB upload, "
                                              "from the click (seconds)")


if __name__ == "__main__":
    main()
