"""``python -m dashboard.serve`` (what ``make run`` starts): Streamlit's own ``run`` of the
dashboard, with the first page's modules loaded once the server listens."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import pathlib
import socket
import subprocess
import sys
import textwrap
import urllib.request

import pytest

from tests.app.conftest import APP, ROOT

# Packages whose loading the first page waited for (pandas and what it loads, the project's
# modules, Pillow, the Markdown parser); Streamlit's own are loaded with the server.
WATCHED = ("pandas", "numpy", "pyarrow", "core", "dashboard", "PIL", "markdown_it")

FIRST_PAGE_PROBE = textwrap.dedent(
    """
    import json, sys
    from dashboard.serve import load_first_page_modules

    failed = load_first_page_modules()
    loaded = set(sys.modules)
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file({app!r}, default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.get("html"), "the first page should draw its charts"
    watched = {watched!r}
    late = sorted(name for name in set(sys.modules) - loaded if name.split(".")[0] in watched)
    print(json.dumps({{"failed": failed, "late": late}}))
    """
)


def test_the_first_page_finds_every_module_it_needs_loaded():
    completed = subprocess.run(
        [sys.executable, "-c", FIRST_PAGE_PROBE.format(app=str(APP), watched=WATCHED)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    assert result == {"failed": [], "late": []}


PREPARE_PROBE = textwrap.dedent(
    """
    import json, sys, threading, time
    import dashboard.serve as serve
    from dashboard.process import loading, wait_for_preload

    listening = threading.Event()
    serve.server_listening = listening.is_set
    serve._POLL_S = 0.001
    thread = threading.Thread(target=serve._prepare)
    thread.start()
    time.sleep(0.2)
    polling = {{"pandas": "pandas" in sys.modules, "loading": loading()}}
    if {run_first}:
        wait_for_preload(0)  # a script run starts before the thread has begun to load
    listening.set()
    deadline = time.monotonic() + 10
    while not loading() and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.0005)
    waiting = loading()  # the thread is loading: a run that starts now waits
    done = wait_for_preload(120)
    loaded = all(name in sys.modules for name in serve.FIRST_PAGE_MODULES)
    thread.join(10)
    print(json.dumps({{"polling": polling, "loading": waiting, "waited": done, "loaded": loaded}}))
    """
)


def _prepare_probe(run_first: bool) -> dict:
    completed = subprocess.run([sys.executable, "-c", PREPARE_PROBE.format(run_first=run_first)], cwd=ROOT,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_the_modules_are_loaded_once_the_server_listens_and_a_run_waits_for_them():
    # While the thread only polls for the server, nothing is loaded and no script run waits.
    assert _prepare_probe(run_first=False) == {
        "polling": {"pandas": False, "loading": False}, "loading": True, "waited": True, "loaded": True}


def test_a_run_that_starts_first_imports_the_modules_itself_and_the_thread_leaves_them():
    # Two threads importing the same modules at once can fail one import ("partially initialized
    # module"): once a run has started, the thread loads nothing.
    assert _prepare_probe(run_first=True) == {
        "polling": {"pandas": False, "loading": False}, "loading": False, "waited": True, "loaded": False}


def test_a_run_never_waits_on_a_thread_that_ended_in_error(monkeypatch):
    import threading

    import dashboard.process as process
    import dashboard.serve as serve
    from dashboard.process import wait_for_preload

    monkeypatch.setattr(process, "_RUN_STARTED", threading.Event())  # no run has started in this process
    monkeypatch.setattr(serve, "server_listening", lambda: True)

    def broken(*_args: object) -> list[str]:
        raise RuntimeError("broken")

    monkeypatch.setattr(serve, "_decide_use_warning", broken)
    with pytest.raises(RuntimeError):
        serve._prepare()
    assert wait_for_preload(0)


def test_a_module_that_fails_is_reported_and_the_rest_still_load():
    from dashboard.serve import load_first_page_modules

    assert load_first_page_modules(("core.no_such_module", "json")) == ["core.no_such_module"]


def test_it_is_streamlit_run_of_the_dashboard_with_the_options_given(monkeypatch):
    import streamlit.web.cli as cli

    import dashboard.serve as serve

    seen: dict[str, list[str]] = {}
    monkeypatch.setattr(cli, "main", lambda: seen.setdefault("argv", list(sys.argv)))
    monkeypatch.setattr(serve, "_prepare", lambda: None)
    monkeypatch.setattr(serve, "tune_server_process", lambda: seen.setdefault("tuned", []))
    monkeypatch.setattr(serve, "compile_bytecode", lambda: seen.setdefault("compiled", []))
    monkeypatch.setattr(serve, "send_responses_at_once", lambda: seen.setdefault("at once", []))
    monkeypatch.setattr(sys, "argv", ["serve"])
    serve.main(["--server.port", "9", "--server.headless", "true"])
    assert seen == {"compiled": [], "tuned": [], "at once": [],
                    "argv": ["streamlit", "run", str(APP), "--server.port", "9", "--server.headless", "true"]}


def _accepted_connection_delays_replies(listening: socket.socket) -> bool:
    """Whether a connection accepted on ``listening`` by an asyncio server (as uvicorn accepts
    Streamlit's) still has Nagle's algorithm on: its replies' later parts wait for acknowledgements."""

    async def accept_one() -> bool:
        loop = asyncio.get_running_loop()
        accepted: asyncio.Future[int] = loop.create_future()

        class Accepting(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                accepted.set_result(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP,
                                                                                   socket.TCP_NODELAY))

        server = await loop.create_server(Accepting, sock=listening)
        _reader, writer = await asyncio.open_connection(*listening.getsockname()[:2])
        try:
            return not await asyncio.wait_for(accepted, 30)
        finally:
            writer.close()
            server.close()
            await server.wait_closed()

    # In a thread of its own: a test run before this one in the same process (a browser test) may
    # have left an event loop set in this thread, where ``asyncio.run`` refuses to start another.
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, accept_one()).result(timeout=60)


def test_the_servers_connections_send_each_reply_at_once(monkeypatch):
    from streamlit.web.server.starlette import starlette_server

    from dashboard.process import send_responses_at_once

    streamlits_bind = starlette_server._bind_socket
    monkeypatch.setattr(starlette_server, "_bind_socket", streamlits_bind)  # put back after the test
    # Why it is there: as Streamlit binds it, each connection keeps Nagle's algorithm on.
    assert _accepted_connection_delays_replies(streamlits_bind("127.0.0.1", 0, 8))
    assert send_responses_at_once()
    wrapped = starlette_server._bind_socket
    assert send_responses_at_once() and starlette_server._bind_socket is wrapped  # not wrapped twice
    listening = wrapped("127.0.0.1", 0, 8)
    assert listening.proto == socket.IPPROTO_TCP and not listening.getblocking()
    assert not _accepted_connection_delays_replies(listening)


def test_streamlit_is_imported_before_the_thread_that_looks_at_its_runtime_starts():
    """Imported by two threads at once, Streamlit's package deadlocked on a module lock (or built its
    singletons twice) and the server exited: it is imported whole before the thread starts."""
    import subprocess

    probe = (
        "import sys, threading\n"
        "import dashboard.serve as serve\n"
        "serve.compile_bytecode = lambda: None\n"
        "serve.tune_server_process = lambda: None\n"
        "def start(thread):\n"
        "    if thread.name == 'prepare-first-page':\n"
        "        print(sorted(m for m in ('streamlit', 'streamlit.web.cli', 'streamlit.runtime.runtime')\n"
        "                     if m in sys.modules))\n"
        "        raise SystemExit(0)\n"
        "threading.Thread.start = start\n"
        "serve.main([])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          cwd=str(APP.parent), env={**os.environ, "PYTHONPATH": str(APP.parent)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['streamlit', 'streamlit.runtime.runtime', 'streamlit.web.cli']"


def test_the_projects_bytecode_is_written_before_a_start(tmp_path, monkeypatch):
    import importlib.util

    import dashboard.serve as serve

    sources = [tmp_path / "app.py", tmp_path / "core" / "a.py", tmp_path / "dashboard" / "sub" / "b.py"]
    for source in sources:
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("VALUE = 1\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("VALUE = 2\n", encoding="utf-8")
    monkeypatch.setattr(serve, "APP", tmp_path / "app.py")
    serve.compile_bytecode()
    for source in sources:
        assert pathlib.Path(importlib.util.cache_from_source(str(source))).is_file(), source
    assert not pathlib.Path(importlib.util.cache_from_source(str(tmp_path / "other.py"))).exists()


def test_the_server_answers_its_health_check_and_serves_the_page():
    from tests.e2e.conftest import dashboard_server  # starts `python -m dashboard.serve`, waits for health

    with dashboard_server("serve-health.log") as url, urllib.request.urlopen(f"{url}/", timeout=5) as response:
        assert response.status == 200
        port = int(url.rsplit(":", 1)[1])
        # Started with dashboard.serve.local_options: it listens on the loopback address only.
        assert _listening_addresses(port) == {"127.0.0.1"}


def _listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (Linux's /proc/net/tcp and tcp6)."""
    import ipaddress

    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        lines = pathlib.Path(table).read_text().splitlines()[1:] if pathlib.Path(table).exists() else []
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, local_port = local.split(":")
            if state == "0A" and int(local_port, 16) == port:  # 0A: listening
                raw = bytes.fromhex(address)
                # The kernel writes each 32-bit word of the address in host (little-endian) order.
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                found.add(str(ipaddress.ip_address(words)))
    return found
