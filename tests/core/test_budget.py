"""The per-file budget: past its time or memory, the work stops with a message saying which limit it hit."""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.budget import Budget, BudgetExceeded, run_isolated, within
from core.formats import FormatError

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial


def _busy(seconds: float) -> int:
    end = time.monotonic() + seconds
    count = 0
    while time.monotonic() < end:
        count += 1
    return count


def test_work_past_its_time_is_stopped_with_the_reason() -> None:
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"^timed out after 0\.2 s \(the per-file limit\)$"):
        with within(Budget(seconds=0.2, memory_mb=None)):
            _busy(10)
    assert time.monotonic() - started < 3


def test_a_time_limit_swallowed_once_is_raised_again() -> None:
    """A library that catches everything (or a destructor running as the limit is raised) swallows it
    once: the work still ends within the repeat, with the same reason."""
    swallowed: list[BaseException] = []
    before = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"^timed out after 0\.2 s \(the per-file limit\)$"):
        with within(Budget(seconds=0.2, memory_mb=None)):
            try:
                _busy(10)
            except BaseException as exc:  # noqa: BLE001 (the careless library)
                swallowed.append(exc)
            _busy(10)
    assert len(swallowed) == 1 and isinstance(swallowed[0], BudgetExceeded)
    assert time.monotonic() - started < 3
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before
    _busy(0.6)  # past two more repeats: the timer is stopped, nothing is raised here


def test_work_past_its_memory_is_stopped_with_the_reason() -> None:
    hoard = []
    with pytest.raises(BudgetExceeded, match=r"needed more than 30 MB of memory \(the per-file limit\)"):
        with within(Budget(seconds=None, memory_mb=30)):
            for _ in range(400):  # up to 400 MB, a megabyte at a time
                hoard.append(bytearray(1024 * 1024))
                time.sleep(0.002)
    del hoard


def test_work_within_its_budget_is_untouched_and_nothing_fires_later() -> None:
    with within(Budget(seconds=0.3, memory_mb=None, scope="a test's limit")):
        assert _busy(0.05) > 0
    _busy(0.5)  # well past the budget after the block: nothing is raised here
    with within(Budget(seconds=5)):
        with within(Budget(seconds=0.05)):  # inside another: the outer budget governs
            _busy(0.3)


def _answer(value: int) -> int:
    return value * 2


def _refuse(name: str) -> None:
    raise FormatError(f"{name}: not a transcript")


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _hoard(megabytes: int) -> int:
    blocks = []
    for _ in range(megabytes):
        blocks.append(bytearray(1024 * 1024))
        time.sleep(0.005)
    return len(blocks)


def test_a_child_returns_its_answer_or_its_error() -> None:
    assert run_isolated(_answer, 21) == 42
    with pytest.raises(FormatError, match=r"^x\.json: not a transcript$"):
        run_isolated(_refuse, "x.json")


def test_a_child_past_its_budget_is_stopped() -> None:
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"timed out after 0\.5 s \(an upload's limit\)"):
        run_isolated(_sleep, 30, budget=Budget(seconds=0.5, memory_mb=None, scope="an upload's limit"))
    assert time.monotonic() - started < 10
    with pytest.raises(BudgetExceeded, match=r"needed more than 40 MB of memory"):
        run_isolated(_hoard, 400, budget=Budget(seconds=None, memory_mb=40))


def test_one_huge_piece_is_counted_in_a_child_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    from core import tokens

    encoding = tokens._encoding("cl100k_base")
    monkeypatch.setattr(tokens, "ISOLATED_PIECE_CHARS", 10_000)
    text = "x " * 20_000 + "A" * 50_000 + " done"  # cut in chunks, one of them a single 50,000-letter piece
    assert tokens.encoded_length(encoding, text, chunk_chars=5_000) == len(encoding.encode_ordinary(text))


def _pid() -> int:
    import os

    return os.getpid()


def test_a_worker_serves_call_after_call_and_is_replaced_when_stopped() -> None:
    from core.budget import run_in_worker

    first = run_in_worker(_pid)
    assert run_in_worker(_pid) == first  # the same worker, kept between calls
    assert run_in_worker(_answer, 4) == 8
    with pytest.raises(FormatError):
        run_in_worker(_refuse, "y.json")
    assert run_in_worker(_pid) == first  # an error is an answer: the worker stays
    with pytest.raises(BudgetExceeded):
        run_in_worker(_sleep, 30, budget=Budget(seconds=0.3, memory_mb=None))
    assert run_in_worker(_pid) != first  # stopped past its budget: a new worker answers


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return _pid()


def test_a_worker_answers_the_next_thread_and_two_calls_at_once_use_two() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from core.budget import run_in_worker

    first = run_in_worker(_pid)
    with ThreadPoolExecutor(1) as pool:  # a dashboard session's next script run is a new thread
        assert pool.submit(run_in_worker, _pid).result() == first
    with ThreadPoolExecutor(2) as pool:  # two sessions at once never wait for one worker
        pids = list(pool.map(lambda _: run_in_worker(_pid_after, 0.5), range(2)))
    assert len(set(pids)) == 2 and first in pids


def _priority() -> tuple[int, int]:
    import os

    return os.getpid(), os.getpriority(os.PRIO_PROCESS, 0)


def _lower_own_priority(steps: int) -> int:
    import os

    return os.nice(steps)


def test_a_background_call_runs_at_a_lower_priority_and_leaves_the_worker_as_it_was() -> None:
    import os

    from core.budget import BACKGROUND_NICE, Pending, run_in_worker

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    pid, plain = run_in_worker(_priority)
    assert plain == mine
    assert run_in_worker(_priority, background=True) == (pid, min(19, mine + BACKGROUND_NICE))
    assert run_in_worker(_priority) == (pid, mine)  # the same worker, its priority back for the next call
    ok, (_pid_now, niced) = Pending(_priority, background=True).outcome()
    assert ok and niced == min(19, mine + BACKGROUND_NICE)


def test_a_worker_left_at_a_lower_priority_serves_no_other_call() -> None:
    """Where a process may not raise its priority again, a background call leaves its worker lower:
    that worker is not kept for the next call (a call lowering it itself stands for that here)."""
    import os

    from core.budget import run_in_worker

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    pid, _ = run_in_worker(_priority)
    run_in_worker(_lower_own_priority, 3)
    other, priority = run_in_worker(_priority)
    assert other != pid and priority == mine


def test_a_pending_call_runs_meanwhile_and_gives_its_answer_its_error_or_nothing_yet() -> None:
    import os

    from core.budget import Pending

    started = time.monotonic()
    slow = Pending(_pid_after, 0.6)
    assert not slow.done()  # the caller goes on at once
    assert slow.outcome(timeout=0.1) is None  # not there yet: nothing raised
    ok, pid = slow.outcome()
    assert ok and pid != os.getpid() and slow.done()
    assert time.monotonic() - started < 10
    ok, error = Pending(_refuse, "z.json").outcome()
    assert not ok and isinstance(error, FormatError) and str(error) == "z.json: not a transcript"
    ok, error = Pending(_sleep, 30, budget=Budget(seconds=0.3, memory_mb=None)).outcome()
    assert not ok and isinstance(error, BudgetExceeded)


def test_children_do_not_run_the_parents_main_script_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamlit runs the dashboard's script as ``__main__``; a child that ran it again (as
    multiprocessing does for ``__main__``'s functions) would import Streamlit for every upload."""
    import multiprocessing
    import sys
    import types
    from concurrent.futures import ProcessPoolExecutor

    from core.budget import forkserver_context, run_in_worker

    marker = tmp_path / "ran"
    script = tmp_path / "app_script.py"
    script.write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\n", encoding="utf-8")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)  # what Streamlit's script runner sets while a page runs
    monkeypatch.setitem(sys.modules, "__main__", main)

    assert run_isolated(_answer, 1) == 2
    with ThreadPoolExecutor(2) as pool:  # two at once: at least one starts a new worker
        assert list(pool.map(lambda n: run_in_worker(_pid_after, 0.3) and n, range(2))) == [0, 1]
    with ProcessPoolExecutor(1, mp_context=forkserver_context(["core.budget"])) as pool:
        assert pool.submit(_answer, 5).result() == 10
    assert not marker.exists()

    # The same script is run again by a plain fork-server child: the check above can fail.
    context = multiprocessing.get_context("forkserver")
    child = context.Process(target=_answer, args=(1,))
    child.start()
    child.join(60)
    assert marker.read_text(encoding="utf-8") == "ran\n"


class _LateAnswer:
    """The parent's end of a child's pipe whose first wait times out, as when the child answers and
    exits just after the parent stopped waiting (the answer is then in the pipe, the child gone)."""

    def __init__(self, connection) -> None:  # noqa: ANN001
        self.connection = connection
        self.waits = 0

    def poll(self, timeout: float = 0.0) -> bool:
        self.waits += 1
        return False if self.waits == 1 else self.connection.poll(timeout)

    def recv(self):  # noqa: ANN201
        return self.connection.recv()


def test_an_answer_sent_just_before_the_child_exits_is_read() -> None:
    from core.budget import _await, _child, _context

    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, sum, ([20, 22],)), daemon=True)
    child.start()
    sender.close()
    child.join(30)
    assert child.exitcode == 0  # answered and gone before the parent looks
    late = _LateAnswer(receiver)
    try:
        assert _await(late, child, Budget(), [0]) == 42
    finally:
        receiver.close()
    assert late.waits >= 2
