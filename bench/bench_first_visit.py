"""First visit to each page on a 2.6 MB log: the page's whole script run, through Streamlit's AppTest.

    python -m bench.bench_first_visit [--cold] [page ...]

The log is ``bench.corpus.generate_transcript`` grown to 2.6 MB (long tool outputs, some repeated),
uploaded as JSON. Each page is measured in a process of its own, so nothing another page computed
from the log is in memory. A dashboard server has served pages before a user uploads a log: its
libraries are imported and its tokenizers loaded. So the process first opens every page on the
bundled default sample (``--cold`` leaves that out: each page then also pays for the imports and
tokenizers it is the first to need), then the log is uploaded (for the overview, that run is the
one timed: it reads the log), then the page is opened and its first run timed. Both wall time and
the process's CPU time are kept: on a shared machine the wall time also counts waiting for a core.
Each page is run ``REPEAT`` times, the pages in turn, and its figure is the median (the worst run
beside it). The target: every first visit within 1.5 s.

Results go to ``bench/results/first_visit.json``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from functools import lru_cache
from typing import Any

from bench.common import ROOT, print_table, save

TARGET_S = 1.5
REPEAT = 3  # runs of each page; its figure is their median
LOG_MB = 2.6
PAGES = ("overview", "zones", "timeline_replay", "strategies", "fact_retention", "savings", "parameter_sweep",
         "release_comparison", "api_validity", "redaction_preview", "compress")


def log_bytes(megabytes: float = LOG_MB, variant: int = 0) -> bytes:
    """The bench's log as uploaded JSON. Each ``variant`` is a log of other texts (another seed of the
    generator) cut to variant 0's size: the server remembers analyses of a text across uploads (the
    fact and credential caches are keyed by text), so a bench that uploads a log again to time a
    *new* upload gives each upload a variant of its own."""
    from bench.corpus import generate_transcript

    probe = generate_transcript(400, seed=3)
    per_message = len(json.dumps(probe)) / len(probe)
    count = int(megabytes * 1e6 / per_message)
    if not variant:
        return json.dumps(generate_transcript(count, seed=3)).encode()
    size = _log_size(megabytes)
    messages = generate_transcript(int(count * 1.2), seed=1000 + variant)
    kept, length = [], 2  # the list's brackets
    for message in messages:
        length += len(json.dumps(message)) + (2 if kept else 0)  # ", " between messages
        if length > size:
            break
        kept.append(message)
    return json.dumps(kept).encode()


@lru_cache(maxsize=4)
def _log_size(megabytes: float) -> int:
    """Variant 0's size in bytes (made once per size, not once per variant)."""
    return len(log_bytes(megabytes))


def visit(page: str, *, warm: bool = True) -> dict[str, Any]:
    """In this process: start the app (with ``warm``, open every page on the default sample), upload
    the log, open ``page`` and time its first run."""
    from streamlit.testing.v1 import AppTest

    data = log_bytes()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    if warm:
        for other in PAGES[1:]:
            at.switch_page(f"pages/{other}.py")
            at.run()
        at.switch_page("pages/overview.py")
        at.run()
    at.file_uploader(key="uploader").set_value(("big_log.json", data, "application/json"))
    if page != "overview":  # the overview's first visit is the run that reads the upload
        at.run()
        at.switch_page(f"pages/{page}.py")
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    errors = [str(e.value)[:200] for e in at.exception]
    return {"page": page, "MB": round(len(data) / 1e6, 2), "wall s": wall, "CPU s": cpu, "errors": errors}


def _visit_in_child(page: str, cold: bool) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "bench.bench_first_visit", "--cold-one" if cold else "--one", page],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"page": page, "wall s": None, "CPU s": None, "errors": ["failed: " + done.stderr[-300:]]}
    return json.loads(lines[-1])


def main(pages: list[str], *, cold: bool = False, repeat: int = REPEAT) -> dict[str, Any]:
    results: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M"), "target_s": TARGET_S,
                               "server": "cold" if cold else "warm", "runs_per_page": repeat,
                               "load_average_before": os.getloadavg()[0]}
    rows = []
    for page in pages:
        # The pages' runs alternate (a slow minute of the machine slows every page alike); each
        # page's figure is the median of its runs.
        rows.append({"page": page, "runs": []})
    for _ in range(repeat):
        for row in rows:
            row["runs"].append(_visit_in_child(row["page"], cold))
    for row in rows:
        runs = row["runs"]
        errors = [error for run in runs for error in run.get("errors") or []]
        walls = [run["wall s"] for run in runs if run.get("wall s") is not None]
        cpus = [run["CPU s"] for run in runs if run.get("CPU s") is not None]
        row["wall s"] = statistics.median(walls) if walls and not errors else None
        row["CPU s"] = statistics.median(cpus) if cpus and not errors else None
        row["worst wall s"] = max(walls) if walls else None
        row["errors"] = errors
        row["met"] = "yes" if row["wall s"] is not None and row["wall s"] <= TARGET_S else (
            "failed: " + errors[0][:200] if errors else "no")
    results["rows"] = rows
    results["load_average_after"] = os.getloadavg()[0]
    print_table(f"first visit to each page on a {LOG_MB} MB log, {results['server']} server (target ≤ {TARGET_S} s)",
                [{key: row.get(key) for key in ("page", "wall s", "CPU s", "worst wall s", "met")} for row in rows])
    print(f"load average {results['load_average_before']:.1f} → {results['load_average_after']:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"saved {save('first_visit_cold' if cold else 'first_visit', results).relative_to(ROOT)}")
    return results


if __name__ == "__main__":
    if sys.argv[1:2] in (["--one"], ["--cold-one"]):
        print(json.dumps(visit(sys.argv[2], warm=sys.argv[1] == "--one")))
    else:
        chosen = [page for page in sys.argv[1:] if page != "--cold"] or list(PAGES)
        if sys.argv[1:]:
            main(chosen, cold="--cold" in sys.argv[1:])
        else:  # make bench: the warm server (the target's measure), then the cold one beside it
            main(chosen)
            main(chosen, cold=True)
