"""End-to-end runs in a separate process: ``python -m core``, the console script, and ``serve``."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dashboard.serve import PORT_TAKEN, free_port
from tests.cli.conftest import Run, assert_one_line_error

REPO = Path(__file__).resolve().parents[2]


def _run(*argv: str | Path, timeout: float = 300) -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "core", *map(str, argv)], cwd=REPO, capture_output=True, text=True, timeout=timeout
    )
    return Run(done.returncode, done.stdout, done.stderr)


def test_python_m_core_analyze_json(cli, corpus):
    run = _run("analyze", corpus.big, "--json")
    assert run.code == 0, run.err
    assert run.json() == cli("analyze", corpus.big, "--json").json()


def test_python_m_core_bad_file(corpus):
    run = _run("compress", corpus.truncated, "-o", corpus.root / "never-written.json")
    assert run.code == 2
    assert_one_line_error(run, "truncated.json", "truncated")
    assert not (corpus.root / "never-written.json").exists()


def test_console_script(corpus, tmp_path):
    script = shutil.which("context-lens", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.fail("the context-lens console script is not installed (pip install -e .)")
    out = tmp_path / "r.csv"
    done = subprocess.run([script, "batch", str(corpus.mid), str(corpus.binary), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "2 files, 2 rows, 1 failed" in done.stdout
    assert out.read_text(encoding="utf-8").count("\n") == 3  # header + two rows


def _serve(tmp_path: Path) -> tuple[subprocess.Popen, int, bool, str]:
    """``core serve`` on a free port until it answers or exits: the process, its port, whether it
    answered, and what it printed so far."""
    port = free_port()
    log = (tmp_path / f"serve-{port}.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "core", "serve", "--port", str(port)],
        cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    with log:
        deadline = time.monotonic() + 180
        healthy = False
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as reply:
                    healthy = reply.status == 200 and reply.read().strip() == b"ok"
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                time.sleep(0.5)
        log.seek(0)
        return process, port, healthy, log.read()


@pytest.mark.timeout(240)
def test_serve_starts_the_dashboard(tmp_path):
    for _attempt in range(3):
        process, port, healthy, output = _serve(tmp_path)
        # Another process can take the probed port before the server binds it: another port then.
        if healthy or PORT_TAKEN not in output:
            break
    try:
        assert healthy, f"dashboard never answered on port {port}: {output[-2000:]}"
        assert f"http://127.0.0.1:{port}" in output
    finally:
        if process.poll() is None:
            process.terminate()  # the command's own process: serve replaced itself with the dashboard
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
    # Stopping the command stopped the dashboard itself: nothing listens on the port any more.
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))


def test_serve_rejects_a_bad_port(cli):
    assert_one_line_error(cli("serve", "--port", "70000"), "--port")
