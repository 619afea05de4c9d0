"""Time from ``streamlit run`` to a page being rendered or usable, measured in headless Chromium."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TypeVar

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]

# What "usable" means on the dashboard's first page: the uploader takes a file, and the first chart
# is drawn with its data: bars of an HTML chart (the overview's) or of a Plotly chart's SVG, not an
# empty frame.
UPLOADER_USABLE = ("uploader usable",
                   "() => { const box = document.querySelector('[data-testid=stFileUploader] input[type=file]');"
                   " return !!box && !box.disabled; }")
FIRST_CHART_DRAWN = ("first chart drawn",
                     "() => !!document.querySelector('[data-chart] div[title], "
                     ".js-plotly-plot .main-svg .barlayer .point path')")


# The mark every timing also takes: the browser's load event (Streamlit's page and scripts loaded,
# before its websocket's first script run). What comes after it is the run and the drawing.
PAGE_LOADED = "page loaded"


def text_shown(text: str) -> tuple[str, str]:
    """A condition: ``text`` is somewhere on the page."""
    return (f"text {text!r}", f"() => !!document.body && document.body.innerText.includes({text!r})")


APP = Path(__file__).resolve().parents[1] / "app.py"
T = TypeVar("T")


def server_command(script: Path, *, replies_at_once: bool = False) -> list[str]:
    """How ``script`` is started: the dashboard as ``make run`` starts it (``python -m
    dashboard.serve``), any other script with ``streamlit run`` (with ``replies_at_once``, after
    ``dashboard.process.send_responses_at_once``, as ``make run`` serves the dashboard)."""
    if script.resolve() == APP:
        return [sys.executable, "-m", "dashboard.serve"]
    if replies_at_once:
        return [sys.executable, "-c", _RUN_REPLYING_AT_ONCE, str(script)]
    return [sys.executable, "-m", "streamlit", "run", str(script)]


_RUN_REPLYING_AT_ONCE = (
    "import sys\n"
    "from dashboard.process import send_responses_at_once\n"
    "send_responses_at_once()\n"
    "from streamlit.web import cli\n"
    "sys.argv = ['streamlit', 'run', *sys.argv[1:]]\n"
    "cli.main()\n"
)


PORT_ATTEMPTS = 3


class PortTaken(Exception):
    """A server exited because another process took its probed port before it bound it."""


def on_free_port(start: Callable[[int], T], what: str) -> T:
    """``start(port)`` on a probed free port, and again on another (up to ``PORT_ATTEMPTS`` in all)
    each time it raises :class:`PortTaken` (an outgoing connection gets a port from the same range)."""
    from dashboard.serve import free_port

    for _attempt in range(PORT_ATTEMPTS):
        try:
            return start(free_port())
        except PortTaken:
            continue
    raise RuntimeError(f"{what} found no free port in {PORT_ATTEMPTS} attempts")


def check_running(process: subprocess.Popen, log: IO[bytes], what: str) -> None:
    """Nothing while ``process`` runs. Once it has exited: :class:`PortTaken` when its log (the file
    its stderr went to) says its port was taken, else a ``RuntimeError`` saying ``what``, with the
    end of the log."""
    from dashboard.serve import PORT_TAKEN

    if process.poll() is None:
        return
    log.seek(0)
    printed = log.read().decode("utf-8", "replace")
    if PORT_TAKEN in printed:
        raise PortTaken(printed[-300:])
    raise RuntimeError(f"{what}: {printed[-2000:]}") from None


def time_to(script: Path, conditions: Sequence[tuple[str, str]], timeout: float = 90.0, *,
            replies_at_once: bool = False) -> dict[str, float]:
    """Seconds from starting ``script``'s server (:func:`server_command`) to each condition (a JS
    predicate) holding, and to :data:`PAGE_LOADED`.

    The clock starts before the server process does, so the figure includes Python's and
    Streamlit's start, the browser loading the page, the script run and the drawing. A server that
    exits because another process took its probed port before it bound it is started again on
    another port, with the clock started again (the failed start is not part of any figure).
    """
    return on_free_port(lambda port: _time_on(port, script, conditions, timeout, replies_at_once), script.name)


def _time_on(port: int, script: Path, conditions: Sequence[tuple[str, str]], timeout: float,
             replies_at_once: bool) -> dict[str, float]:
    """:func:`time_to` on ``port`` (:class:`PortTaken` when the server exited because it was taken)."""
    import tempfile

    from playwright.sync_api import sync_playwright

    from dashboard.serve import local_options

    command = server_command(script, replies_at_once=replies_at_once)
    marks: dict[str, float] = {}
    with sync_playwright() as p, tempfile.TemporaryFile() as log:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*command, *local_options(port)],
            cwd=Path(__file__).resolve().parents[1], stdout=subprocess.DEVNULL, stderr=log,
        )
        try:
            deadline = start + timeout
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}/", timeout=2_000)
                    break
                except Exception:
                    check_running(proc, log, f"{script.name} exited before its page loaded")
                    if time.perf_counter() > deadline:
                        raise TimeoutError(f"{script.name} did not start within {timeout:.0f} s") from None
                    time.sleep(0.05)
            marks[PAGE_LOADED] = time.perf_counter() - start
            for name, predicate in conditions:
                page.wait_for_function(predicate, timeout=timeout * 1000, polling=25)
                marks[name] = time.perf_counter() - start
            return marks
        finally:
            proc.terminate()
            proc.wait(timeout=20)
            browser.close()


def time_to_first_render(script: Path, expected_text: str, timeout: float = 90.0) -> float:
    """Seconds until ``expected_text`` is on the page."""
    return time_to(script, [text_shown(expected_text)], timeout)[text_shown(expected_text)[0]]
