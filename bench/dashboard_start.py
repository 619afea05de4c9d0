"""Time from ``streamlit run`` to the first rendered page, measured in headless Chromium."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def time_to_first_render(script: Path, expected_text: str, timeout: float = 90.0) -> float:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page()
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
             "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=Path(__file__).resolve().parents[1], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            deadline = start + timeout
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}/", timeout=2_000)
                    break
                except Exception:
                    if time.perf_counter() > deadline:
                        raise TimeoutError(f"{script.name} did not start within {timeout:.0f} s") from None
                    time.sleep(0.1)
            page.get_by_text(expected_text).first.wait_for(timeout=timeout * 1000)
            return time.perf_counter() - start
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            browser.close()
