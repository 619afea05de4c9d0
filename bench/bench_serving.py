"""How fast the dashboard's server sends files while one session's page computes.

    python -m bench.bench_serving [runs]

A Streamlit server runs a script that computes for a few seconds (pure Python, as a page's
analyses do); 90 of Streamlit's script files (what a first page loads, about 6 MB) are fetched
over 6 connections, as a browser does, once before the script runs (idle) and once while it
computes. Three servers, alternately, ``runs`` times each (3 by default), medians: Streamlit as
it is (the anchor); with the dashboard's switch interval (``dashboard.process.SWITCH_INTERVAL_S``);
and as ``make run`` serves, with that interval and each reply sent at once
(``dashboard.process.send_responses_at_once``).

Results go to ``bench/results/serving.json``.
"""

from __future__ import annotations

import concurrent.futures
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.common import ROOT, print_table, save

BUSY_S = 8.0
FILES = 90
CONNECTIONS = 6
SCRIPT = """
import time
import streamlit as st
{tune}
st.title("computing")
end = time.perf_counter() + {busy}
while time.perf_counter() < end:
    pass
"""


def _static_files() -> list[str]:
    import streamlit

    folder = Path(streamlit.__file__).parent / "static" / "static" / "js"
    return sorted(p.name for p in folder.glob("*.js"))[:FILES]


def _fetch_all(port: int, names: list[str]) -> float:
    """Seconds to fetch ``names`` over ``CONNECTIONS`` kept-alive connections, as a browser does
    (a new connection per file would hide a reply's parts waiting for acknowledgements: a fresh
    connection acknowledges at once)."""
    import http.client

    local = threading.local()
    opened: list[http.client.HTTPConnection] = []

    def get(name: str) -> int:
        if not hasattr(local, "connection"):
            local.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            opened.append(local.connection)
        local.connection.request("GET", f"/static/js/{name}")
        response = local.connection.getresponse()
        size = len(response.read())
        if response.status != 200:
            raise RuntimeError(f"/static/js/{name}: HTTP {response.status}")
        return size

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(CONNECTIONS) as pool:
        list(pool.map(get, names))
    elapsed = time.perf_counter() - start
    for connection in opened:
        connection.close()
    return elapsed


def _wait_healthy(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError("streamlit did not start within 60 s")


def one_run(tuned: bool, at_once: bool = False) -> dict[str, float]:
    """Seconds to fetch the files from an idle server, then while its script computes."""
    from playwright.sync_api import sync_playwright

    from bench.dashboard_start import CHROMIUM_ARGS, server_command
    from dashboard.serve import free_port, local_options

    names = _static_files()
    port = free_port()
    tune = "from dashboard.process import tune_switching\ntune_switching()" if tuned else ""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "computing.py"
        script.write_text(SCRIPT.format(tune=tune, busy=BUSY_S), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [*server_command(script, replies_at_once=at_once), *local_options(port)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            _wait_healthy(port, process)
            _fetch_all(port, names)  # once, so both timings read the files from the OS cache
            idle = _fetch_all(port, names)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_function("() => document.body.innerText.includes('computing')", timeout=60_000)
                time.sleep(0.3)  # the run is under way
                busy = _fetch_all(port, names)
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=20)
    return {"idle": idle, "busy": busy}


def main(runs: int = 3) -> dict[str, Any]:
    from dashboard.process import SWITCH_INTERVAL_S

    if not Path("/usr/bin/chromium").exists():
        print("serving: not measured (no /usr/bin/chromium)")
        return {"skipped": "no /usr/bin/chromium"}
    default: list[dict[str, float]] = []
    tuned: list[dict[str, float]] = []
    served: list[dict[str, float]] = []
    for _ in range(runs):
        default.append(one_run(tuned=False))
        tuned.append(one_run(tuned=True))
        served.append(one_run(tuned=True, at_once=True))

    def row(server: str, times: list[float]) -> dict[str, Any]:
        return {"server": server, "median s": statistics.median(times), "worst s": max(times)}

    switch = f"switch interval {SWITCH_INTERVAL_S * 1000:g} ms"
    rows = [
        row("Streamlit as it is, idle (anchor)", [r["idle"] for r in default + tuned]),
        row(f"Streamlit as it is, computing (switch interval {sys.getswitchinterval() * 1000:g} ms)",
            [r["busy"] for r in default]),
        row(f"computing, {switch}", [r["busy"] for r in tuned]),
        row("as make run serves (each reply at once), idle", [r["idle"] for r in served]),
        row(f"as make run serves, computing ({switch})", [r["busy"] for r in served]),
    ]
    results: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M"), "runs": runs, "files": len(_static_files()),
                               "load_average_before": os.getloadavg()[0], "rows": rows}
    print_table(f"sending {results['files']} script files over {CONNECTIONS} connections (seconds, {runs} runs)",
                rows)
    results["load_average_after"] = os.getloadavg()[0]
    path = save("serving", results)
    print(f"saved {path.relative_to(ROOT)}")
    return results


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
