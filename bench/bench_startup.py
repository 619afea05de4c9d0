"""Time to a usable first page: the dashboard against a bare Streamlit page, in headless Chromium.

    python -m bench.bench_startup [runs]

Each is started as its user starts it and timed from before the process starts: the bare page
with ``streamlit run``, the dashboard as ``make run`` does (``python -m dashboard.serve``). The bare page
(``st.title("Hello")``) is done when its title shows; the dashboard when its uploader takes a
file and the first chart is drawn with its data (the bundled long sample's context usage). The
two are run alternately (so a busy machine slows both alike), ``runs`` times each (5 by
default), and the medians are compared: the target is at most 1.5 times the bare page.

``make run`` also makes the server send each reply at once (``dashboard.process.
send_responses_at_once``), which the bare ``streamlit run`` does not, so the bare page is timed a
third way, served like that too, and the ratio to it is given beside the target's: how much of
the dashboard's time is its own, with the serving alike.

Each is also timed to its page loaded (the browser's load event: Streamlit's own page and
scripts, before the first script run), so the table splits the time into the start and page
load both pay, and what follows: the script run and the drawing of what it sent.

Results go to ``bench/results/startup.json``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, print_table, save

TARGET_RATIO = 1.5
APP = ROOT / "app.py"


def main(runs: int = 5) -> dict[str, Any]:
    from bench.dashboard_start import FIRST_CHART_DRAWN, PAGE_LOADED, UPLOADER_USABLE, text_shown, time_to

    if not Path("/usr/bin/chromium").exists():
        print("startup: not measured (no /usr/bin/chromium)")
        return {"skipped": "no /usr/bin/chromium"}
    results: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M"), "runs": runs,
                               "load_average_before": os.getloadavg()[0]}
    bare_marks: list[dict[str, float]] = []
    alike_marks: list[dict[str, float]] = []
    app_marks: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare.py"
        bare.write_text('import streamlit as st\nst.title("Hello")\n', encoding="utf-8")
        title = text_shown("Hello")
        for _ in range(runs):
            bare_marks.append(time_to(bare, [title]))
            app_marks.append(time_to(APP, [UPLOADER_USABLE, FIRST_CHART_DRAWN]))
            alike_marks.append(time_to(bare, [title], replies_at_once=True))
    bare_times = [marks[title[0]] for marks in bare_marks]
    alike_times = [marks[title[0]] for marks in alike_marks]
    usable = [max(marks[UPLOADER_USABLE[0]], marks[FIRST_CHART_DRAWN[0]]) for marks in app_marks]
    bare_median = statistics.median(bare_times)
    app_median = statistics.median(usable)
    rows = [
        _row("bare Streamlit page (title shown)", bare_times),
        _row("bare Streamlit page, each reply at once as make run serves", alike_times),
        _row("dashboard: uploader usable", [m[UPLOADER_USABLE[0]] for m in app_marks]),
        _row("dashboard: uploader usable and first chart drawn", usable),
    ]
    # The start and the page load, which both pay, then what each does after it (run and drawing).
    split = [
        _row("bare Streamlit page: page loaded", [m[PAGE_LOADED] for m in bare_marks]),
        _row("dashboard: page loaded", [m[PAGE_LOADED] for m in app_marks]),
        _row("bare Streamlit page: title shown after its page loaded",
             [m[title[0]] - m[PAGE_LOADED] for m in bare_marks]),
        _row("dashboard: usable after its page loaded",
             [u - m[PAGE_LOADED] for u, m in zip(usable, app_marks, strict=True)]),
    ]
    results["rows"] = rows
    results["split"] = split
    results["ratio"] = round(app_median / bare_median, 2)
    results["target_ratio"] = TARGET_RATIO
    results["met"] = results["ratio"] <= TARGET_RATIO
    results["ratio_served_alike"] = round(app_median / statistics.median(alike_times), 2)
    results["load_average_after"] = os.getloadavg()[0]
    print_table(f"time to a usable first page (seconds, {runs} alternating runs each)", rows)
    print_table("the same runs, split at the page loaded (seconds)", split)
    print(f"ratio {results['ratio']:.2f} (target ≤ {TARGET_RATIO}): {'met' if results['met'] else 'NOT met'}; "
          f"load average {results['load_average_before']:.1f} → {results['load_average_after']:.1f}")
    print(f"ratio to the bare page served alike: {results['ratio_served_alike']:.2f}")
    path = save("startup", results)
    print(f"saved {path.relative_to(ROOT)}")
    return results


def _row(label: str, seconds: list[float]) -> dict[str, Any]:
    """One line of a table: the median, best and worst of ``seconds``."""
    return {"page": label, "median s": statistics.median(seconds), "best s": min(seconds), "worst s": max(seconds)}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
