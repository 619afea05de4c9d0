"""Ctrl-C on ``batch``: the process ends within seconds, with one line, no traceback, nothing half-written.

Each test starts a real ``context-lens batch`` in its own process group (as a terminal runs it) over
files that take several seconds each, waits until the work is under way, and presses Ctrl-C (a
SIGINT to the group) once, twice or three times.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.corpus import agent_messages, write_openai

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

ROOT = Path(__file__).resolve().parents[2]
EXIT_WITHIN_S = 5.0


@pytest.fixture(scope="module")
def slow_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("slow_corpus")
    first = write_openai(folder / "slow_0.json", agent_messages(7, 2200, 1500))
    for index in range(1, 4):
        (folder / f"slow_{index}.json").write_bytes(first.read_bytes())
    return folder


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat_file:
                    if int(stat_file.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        found.add(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            return stat_file.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
@pytest.mark.parametrize("workers", ["1", "2"], ids=["in-process", "pool"])
@pytest.mark.parametrize("presses", [1, 2, 3])
def test_ctrl_c_ends_the_batch_at_once_and_writes_nothing(slow_corpus: Path, tmp_path: Path, workers: str,
                                                          presses: int) -> None:
    report = tmp_path / "report.csv"
    process = subprocess.Popen(
        [sys.executable, "-m", "core", "batch", str(slow_corpus), "-o", str(report), "--workers", workers],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        # Under way: the pool's workers exist, or the single process has been at it for a while.
        while time.monotonic() < deadline and (workers == "2" and len(_children(process.pid)) < 2):
            time.sleep(0.2)
        time.sleep(3.0)
        assert process.poll() is None, "the batch ended before it could be interrupted"
        children = _children(process.pid)
        for press in range(presses):
            os.killpg(process.pid, signal.SIGINT)
            if press < presses - 1:
                time.sleep(0.3)
        last_press = time.monotonic()
        _out, err = process.communicate(timeout=30)
        took = time.monotonic() - last_press
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    text = err.decode("utf-8", "replace")
    assert took < EXIT_WITHIN_S, f"{took:.1f} s after the last press: {text}"
    assert process.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert "interrupted" in text
    assert not report.exists()
    assert not list(tmp_path.glob("*.partial")), "a half-written report was left behind"
    time.sleep(0.5)
    assert not [pid for pid in children if _alive(pid)], "a worker outlived the batch"


def test_a_press_swallowed_by_a_weak_reference_callback_reaches_the_command_and_prints_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    import weakref

    from core.interrupts import Interrupts

    class Thing:
        pass

    def callback(_ref: object) -> None:
        signal.raise_signal(signal.SIGINT)  # the press arrives while Python runs this callback
        for _ in range(1000):  # the handler runs here, where its exception is only printed
            pass

    interrupts = Interrupts()
    interrupts.install()
    thing = Thing()
    reference = weakref.ref(thing, callback)
    try:
        with pytest.raises(KeyboardInterrupt):
            del thing
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:  # the press, sent again, ends up in the command's code
                pass
    finally:
        interrupts.uninstall()
    assert reference() is None
    assert interrupts.presses == 1, "the press was counted twice (a second press ends the process)"
    err = capsys.readouterr().err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


# Each script runs in a fresh interpreter, where the fork server is started by the script and not by
# an earlier test, and the press is made at the moment the server is spawned.
_PRESS_AS_THE_SERVER_STARTS = (
    "import os, signal, threading, time\n"
    "from multiprocessing import util\n"
    "spawn = util.spawnv_passfds\n"
    "def pressed(*args):\n"
    "    {press}\n"
    "    return {spawned}\n"
    "util.spawnv_passfds = pressed\n"
)


def _script(press: str, spawned: str, body: str) -> str:
    return _PRESS_AS_THE_SERVER_STARTS.format(press=press, spawned=spawned) + body


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_the_fork_server_outlives_a_press_while_it_imports_and_the_command_keeps_its_handler() -> None:
    # A press that reached the server while it imported its modules ended it with a traceback of its own
    # on the command's terminal, and the command's next child had no server to fork from.
    script = _script(
        "pass", "os.kill(pid := spawn(*args), signal.SIGINT) or pid",
        "from core.budget import forkserver_context\n"
        "context = forkserver_context(['core.formats'])\n"
        "time.sleep(1.0)\n"
        "child = context.Process(target=os.getpid)\n"
        "child.start(); child.join(30)\n"
        "print(child.exitcode)\n"
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
        "print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))\n",
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["0", "True", "False"], done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_a_press_while_the_fork_server_starts_stops_the_command() -> None:
    # The kernel hands a press to any thread that does not hold it back: with the starting thread's
    # Ctrl-C ignored for that moment, one taken by another thread (the budget's watchdog, a worker
    # masking ahead) was dropped, and the batch ran on to its end as if no key had been pressed.
    script = _script(
        "os.kill(os.getpid(), signal.SIGINT)", "spawn(*args)",
        "from core.budget import forkserver_context\n"
        "from core.interrupts import Interrupts\n"
        "Interrupts().install()\n"
        "idle = threading.Event()\n"
        "threading.Thread(target=idle.wait, daemon=True).start()\n"
        "try:\n"
        "    forkserver_context(['core.formats'])\n"
        "    for _ in range(300):\n"
        "        time.sleep(0.01)\n"
        "    print('ran on')\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped')\n",
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["stopped"], done.stderr
