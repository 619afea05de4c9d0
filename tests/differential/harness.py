"""Runs a batch of cases on a published Hermes release (one subprocess in its venv) and on the project.

The Hermes subprocess works through the batch while the project's side runs in this process, so a
batch costs about the slower of the two.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.differential.hermes_env import hermes_env, runner_env

RUNNER = Path(__file__).with_name("hermes_runner.py")


def default_case_count(quick: int) -> int:
    """``quick`` cases per release, or the fuzz count (``CONTEXT_LENS_FUZZ_EXAMPLES``, as ``make fuzz``
    sets it) when that is larger."""
    try:
        fuzz = int(os.environ.get("CONTEXT_LENS_FUZZ_EXAMPLES", "0"))
    except ValueError:
        fuzz = 0
    return max(quick, fuzz)


class HermesBatch:
    """One runner process working through ``cases``; :meth:`results` waits for it."""

    def __init__(self, release: str, cases: list[dict[str, Any]], timeout_s: float = 1_800) -> None:
        python = hermes_env(release)
        self._home = tempfile.TemporaryDirectory(prefix="hermes-home-")
        self.timeout_s = timeout_s
        self.count = len(cases)
        self._process = subprocess.Popen(
            [str(python), "-E", "-s", str(RUNNER)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", cwd=self._home.name, env=runner_env(self._home.name),
        )
        lines = [json.dumps(case, ensure_ascii=True) + "\n" for case in cases]
        self._out: list[str] = []
        self._err: list[str] = []
        # Three pipes, three threads: the runner may block on any of them while the others fill.
        self._threads = [
            threading.Thread(target=self._feed, args=(lines,), daemon=True),
            threading.Thread(target=self._drain, args=(self._process.stdout, self._out), daemon=True),
            threading.Thread(target=self._drain, args=(self._process.stderr, self._err), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _feed(self, lines: list[str]) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        try:
            for line in lines:
                stdin.write(line)
            stdin.close()
        except (BrokenPipeError, ValueError):  # the runner died; results() reports its stderr
            pass

    @staticmethod
    def _drain(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line)

    def results(self) -> list[dict[str, Any]]:
        try:
            self._process.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
            raise RuntimeError(f"the Hermes runner took over {self.timeout_s:.0f} s; stderr:\n{self._stderr()}") from None
        finally:
            for thread in self._threads:
                thread.join(timeout=10)
            self._home.cleanup()
        results = [json.loads(line) for line in self._out if line.strip()]
        if self._process.returncode != 0 or len(results) != self.count:
            raise RuntimeError(
                f"the Hermes runner exited {self._process.returncode} after {len(results)} of {self.count} cases; "
                f"stderr:\n{self._stderr()}"
            )
        return results

    def close(self) -> None:
        """Stop the runner if it is still working (the other side failed first)."""
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._home.cleanup()

    def _stderr(self) -> str:
        return "".join(self._err)[-3000:]


def run_hermes(release: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return HermesBatch(release, cases).results()
