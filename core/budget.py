"""A budget of time and memory for the work on one file, with a clear message when it is hit.

One hostile file must not hold a process (or every session of the dashboard) for minutes, nor take
all of its memory: reading and analysing a file runs :func:`within` a :class:`Budget`. A watchdog
thread checks every active budget a few times a second and, when one is spent, raises
:class:`BudgetExceeded` in the thread doing the work (at its next Python instruction: the patterns
and the exact counts never hold a thread in one long call, see ``core.pattern_audit`` and
``core.tokens.safe_cuts``). The memory budget is the growth of the process's resident memory while
the work runs, so it is only meaningful where one file is worked on at a time (the command line, a
batch worker, :func:`run_isolated`'s child).

:func:`run_isolated` runs a function in a child process instead, and stops it (killed, whatever it
is doing) past the budget: the dashboard reads uploads there, so a file that takes gigabytes to
read costs the server nothing.

Nothing here imports Streamlit.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing.context
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_MEMORY_MB", "DEFAULT_SECONDS", "Budget", "BudgetExceeded", "Pending", "run_in_worker",
           "run_isolated", "within"]

#: The default budget of one file: far above what the largest accepted file (200 MB) needs to be read
#: and analysed here (about 2.5 GB of growth for 200 MB of tiny messages, under a minute).
DEFAULT_SECONDS = 300.0
DEFAULT_MEMORY_MB = 4096
# How often the watchdog looks.
_POLL_S = 0.05


class BudgetExceeded(BaseException):
    """The work on one file went past its budget of time or memory.

    A ``BaseException``, like ``KeyboardInterrupt``: the ``except Exception`` of a reader trying one
    format after another must not swallow it and carry on without a limit. The watchdog raises the
    bare class in the working thread; its text is then the reason the watchdog gave for that thread.
    """

    def __str__(self) -> str:
        return super().__str__() or _FIRED.get(threading.get_ident(), "went past its budget")


@dataclass(frozen=True)
class Budget:
    """Seconds of wall time and megabytes of memory growth; None is no limit. ``scope`` names the limit
    in the messages."""

    seconds: float | None = DEFAULT_SECONDS
    memory_mb: float | None = DEFAULT_MEMORY_MB
    scope: str = "the per-file limit"

    @property
    def unlimited(self) -> bool:
        return not self.seconds and not self.memory_mb

    def time_message(self) -> str:
        return f"timed out after {self.seconds:g} s ({self.scope})"

    def memory_message(self) -> str:
        return f"needed more than {self.memory_mb:,.0f} MB of memory ({self.scope})"


def resident_bytes(pid: int | None = None) -> int | None:
    """The resident memory of a process (this one by default), or None where it cannot be read."""
    try:
        with open(f"/proc/{pid or 'self'}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        if pid is None:
            import resource  # POSIX without /proc: the peak, which is what the budget bounds anyway

            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            return peak * (1 if os.uname().sysname == "Darwin" else 1024)
        return None


@dataclass
class _Watch:
    thread_id: int
    budget: Budget
    started: float
    baseline: int | None
    fired: str | None = None


_LOCK = threading.Lock()
_ACTIVE: dict[int, _Watch] = {}
_WATCHDOG: list[threading.Thread] = []
_WAKE = threading.Event()  # set when a budget starts: the watchdog looks at its deadline at once
_FIRED: dict[int, str] = {}  # thread ident → why the watchdog last stopped its work


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Raise ``exception`` in another thread at its next instruction (None clears a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception is not None else ctypes.c_void_p(None)
    )


def _next_look() -> float:
    """How long the watchdog may sleep: its usual interval, or less when a deadline comes sooner."""
    now = time.monotonic()
    with _LOCK:
        deadlines = [w.started + w.budget.seconds for w in _ACTIVE.values() if w.budget.seconds and w.fired is None]
    return max(0.002, min([_POLL_S, *(deadline - now for deadline in deadlines)]))


def _watch_loop() -> None:
    while True:
        _WAKE.wait(_next_look())
        _WAKE.clear()
        with _LOCK:
            if not _ACTIVE:
                continue
            now = time.monotonic()
            resident = resident_bytes() if any(w.budget.memory_mb for w in _ACTIVE.values()) else None
            for watch in _ACTIVE.values():
                if watch.fired is not None:
                    continue
                budget = watch.budget
                if budget.seconds and now - watch.started > budget.seconds:
                    watch.fired = budget.time_message()
                elif (budget.memory_mb and resident is not None and watch.baseline is not None
                      and resident - watch.baseline > budget.memory_mb * 1024 * 1024):
                    watch.fired = budget.memory_message()
                if watch.fired is not None:
                    _FIRED[watch.thread_id] = watch.fired
                    _raise_in(watch.thread_id, BudgetExceeded)


def _ensure_watchdog() -> None:
    if not _WATCHDOG or not _WATCHDOG[0].is_alive():
        thread = threading.Thread(target=_watch_loop, name="context-lens-budget", daemon=True)
        thread.start()
        _WATCHDOG[:] = [thread]


def in_budget() -> bool:
    """Whether this thread's work runs within a budget (the dashboard's and the command line's does)."""
    return threading.get_ident() in _ACTIVE


@contextlib.contextmanager
def within(budget: Budget | None) -> Iterator[None]:
    """Run the block within ``budget``; past it, :class:`BudgetExceeded` is raised in the block with
    the message saying which limit was hit. Nested blocks on one thread are governed by the outermost
    (the budget is the whole file's)."""
    thread_id = threading.get_ident()
    if budget is None or budget.unlimited or thread_id in _ACTIVE:
        yield
        return
    # In a process's main thread the time limit is a real-time timer signal (exact, and delivered
    # without another thread needing the interpreter first); the watchdog keeps the memory limit, and
    # both limits in any other thread.
    alarm = bool(budget.seconds) and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    watched = Budget(None if alarm else budget.seconds, budget.memory_mb, budget.scope)
    baseline = resident_bytes() if budget.memory_mb else None
    watch = _Watch(thread_id, watched, time.monotonic(), baseline)
    with _LOCK:
        _ACTIVE[thread_id] = watch
        _ensure_watchdog()
    _WAKE.set()
    previous = _start_alarm(budget) if alarm else None
    try:
        yield
    except BudgetExceeded as exc:
        if exc.args or watch.fired is None:
            raise
        raise BudgetExceeded(watch.fired) from None  # the bare class the watchdog raised, with its reason
    finally:
        # A limit delivered while the block ends is not wanted now (its work is done, and its result
        # stands); the steps are taken again, so the timer is stopped, the handler put back and the
        # thread's budget ended whatever step it interrupted.
        while True:
            try:
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, previous)
                with _LOCK:
                    _ACTIVE.pop(thread_id, None)
                    if watch.fired is not None:
                        _raise_in(thread_id, None)  # fired as the block ended: not delivered
                break
            except BudgetExceeded:
                continue


#: After the time limit, how often it is raised again until the block ends.
ALARM_REPEAT_S = 0.25


def _start_alarm(budget: Budget) -> Any:
    """A timer that raises :class:`BudgetExceeded` in the main thread past ``budget.seconds``, and
    again every :data:`ALARM_REPEAT_S` until the block ends: a library's ``except BaseException`` (or
    a destructor running when the signal is handled, where Python only prints an exception) does not
    let the work run on past its limit."""

    def expire(_signum: int, _frame: Any) -> None:
        raise BudgetExceeded(budget.time_message())

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, float(budget.seconds or 0), ALARM_REPEAT_S)
    return previous


# --- in a child process ----------------------------------------------------------------------------

#: The peak resident memory of the latest children (bytes, newest last; read by ``make bench``).
CHILD_PEAKS: list[int] = []


def _child(connection: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when the child stops
    try:
        result = ("ok", function(*args))
    except BaseException as exc:  # noqa: BLE001 (everything goes back to the parent, which decides)
        result = ("error", exc)
    try:
        connection.send(result)
    except Exception as exc:  # an unpicklable result or error: its text goes back instead
        connection.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))
    finally:
        connection.close()


# A child that forks from the server first re-runs the parent's ``__main__`` script, as
# multiprocessing does for functions defined there. Under Streamlit that script is the dashboard's
# ``app.py`` (Streamlit runs each page as ``__main__``): importing Streamlit and Plotly again, about
# 0.8 s for every upload read. Every function a child here runs lives in an importable module, so
# the children of these contexts skip that step.
if hasattr(multiprocessing.context, "ForkServerProcess"):  # POSIX
    class ContextLensChild(multiprocessing.context.ForkServerProcess):
        """A fork-server child that does not re-run the parent's ``__main__``."""

    class _ForkServerWithoutMain(multiprocessing.context.ForkServerContext):
        Process = ContextLensChild


def _without_main(prepare: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    def preparation_data(name: str) -> dict[str, Any]:
        data = prepare(name)
        if name.startswith(ContextLensChild.__name__):  # a process's default name: class name and number
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data

    preparation_data.skips_main = True  # type: ignore[attr-defined]
    return preparation_data


def _children_without_main() -> Any:
    """A fork-server context whose processes (also a process pool's) do not re-run ``__main__``."""
    from multiprocessing import spawn

    with _LOCK:
        if not getattr(spawn.get_preparation_data, "skips_main", False):
            spawn.get_preparation_data = _without_main(spawn.get_preparation_data)
    return _ForkServerWithoutMain()


def forkserver_context(preload: Sequence[str]) -> Any:
    """A multiprocessing context whose children fork from a server that imported ``preload`` once
    (``spawn`` where there is no fork server).

    The server starts with Ctrl-C blocked. A terminal's Ctrl-C reaches every process of the command,
    and a press while the server imports would end it with a traceback of its own; blocked, the press
    waits in the server until it ignores Ctrl-C for good (as a fork server does once started). The
    command decides what a press does (``core.interrupts``), and only the mask of the thread starting
    the server changes: its handler stays, so a press in that moment, which the kernel may hand to
    any other thread, still reaches the command (ignored here, it was lost there)."""
    import multiprocessing
    from multiprocessing import forkserver, resource_tracker

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = _children_without_main()
    context.set_forkserver_preload(list(preload))
    # A child inherits the signal mask of the thread that starts it, across exec too. The resource
    # tracker is started first: starting it unblocks Ctrl-C whatever the mask was before.
    resource_tracker.ensure_running()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return context


def _context() -> Any:
    return forkserver_context(["core.formats", "dashboard.memo"])


def _await(receiver: Any, child: Any, budget: Budget, peak_of: list[int]) -> Any:
    """The answer of a child to one request, within ``budget`` (the child's memory growth measured
    from its size when the request was sent). Raises what the child raised, or BudgetExceeded."""
    started = time.monotonic()
    baseline: int | None = None
    while True:
        if receiver.poll(_POLL_S):
            try:
                status, value = receiver.recv()
            except EOFError:  # the child died without an answer (killed by the system)
                child.join(5)
                raise BudgetExceeded(f"stopped unexpectedly (exit code {child.exitcode})") from None
            if status == "error":
                raise value
            return value
        # A child that answered and exited between the wait above and this check left its
        # answer in the pipe: read it on the next turn rather than call the child lost.
        if not child.is_alive() and not receiver.poll(0):
            raise BudgetExceeded(f"stopped unexpectedly (exit code {child.exitcode})")
        if budget.seconds and time.monotonic() - started > budget.seconds:
            raise BudgetExceeded(budget.time_message())
        resident = resident_bytes(child.pid)
        if resident is not None:
            peak_of[0] = max(peak_of[0], resident)
            baseline = resident if baseline is None else min(baseline, resident)
            if budget.memory_mb and resident - baseline > budget.memory_mb * 1024 * 1024:
                raise BudgetExceeded(budget.memory_message())


def _serve(connection: Any) -> None:
    """A worker's loop: run each function sent, send back its result or its exception."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            function, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            result = ("ok", function(*args))
        except BaseException as exc:  # noqa: BLE001 (everything goes back to the caller)
            result = ("error", exc)
        try:
            connection.send(result)
        except Exception as exc:
            connection.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Worker:
    """A child process that runs one function after another (starting a child for each call would
    cost more than many of the calls)."""

    def __init__(self) -> None:
        context = _context()
        self.connection, child_end = context.Pipe(duplex=True)
        self.process = context.Process(target=_serve, args=(child_end,), daemon=True)
        self.process.start()
        child_end.close()

    def call(self, function: Callable[..., Any], args: tuple[Any, ...], budget: Budget) -> Any:
        self.connection.send((function, args))
        peak = [0]
        try:
            return _await(self.connection, self.process, budget, peak)
        finally:
            CHILD_PEAKS[:] = [*CHILD_PEAKS[-15:], peak[0]]

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.connection.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


# How much lower than its caller a background call's worker runs (``nice``: 0 is the same, 19 the lowest).
BACKGROUND_NICE = 10


def _in_background(function: Callable[..., Any], nice: int, *args: Any) -> Any:
    """In a worker: ``function(*args)`` at ``nice`` steps below the worker's priority, then back (where
    the system lets a process raise its priority again: elsewhere the worker is not used again)."""
    if not hasattr(os, "getpriority"):  # a system without process priorities: at the same one
        return function(*args)
    before = os.getpriority(os.PRIO_PROCESS, 0)
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, min(19, before + nice))
    try:
        return function(*args)
    finally:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, before)


def _same_priority(process: Any) -> bool:
    if not hasattr(os, "getpriority"):
        return True
    try:
        return os.getpriority(os.PRIO_PROCESS, process.pid) == os.getpriority(os.PRIO_PROCESS, 0)
    except OSError:
        return False


_IDLE: list[_Worker] = []  # workers waiting for their next call, the most recently used last
_IDLE_MAX = 4
_IDLE_LOCK = threading.Lock()


def _take_worker() -> _Worker:
    with _IDLE_LOCK:
        while _IDLE:
            worker = _IDLE.pop()
            if worker.process.is_alive():
                return worker
    return _Worker()


def _give_back(worker: _Worker) -> None:
    if not _same_priority(worker.process):  # left at a lower priority (a call could not raise it again)
        worker.stop()
        return
    with _IDLE_LOCK:
        if len(_IDLE) < _IDLE_MAX:
            _IDLE.append(worker)
            return
    worker.stop()


def run_in_worker(function: Callable[..., Any], *args: Any, budget: Budget | None = None,
                  background: bool = False) -> Any:
    """``function(*args)`` in a worker process no other call is using, stopped past ``budget`` (the
    worker is then killed, and a later call takes another).

    A worker that answered waits for the next call (up to ``_IDLE_MAX`` of them wait), whichever
    thread makes it: a dashboard session's every script run is a thread of its own, and starting a
    worker costs more than most calls. Two calls at once (two sessions) never share one, so one's
    long call never delays the other's.

    With ``background`` the call runs at a lower priority (``BACKGROUND_NICE``): work made ahead, that
    no one waits for yet, takes only the processor time the pages and the browser leave."""
    budget = budget or Budget()
    worker = _take_worker()
    call = (_in_background, (function, BACKGROUND_NICE, *args)) if background else (function, args)
    try:
        result = worker.call(*call, budget)
    except BaseException as exc:
        if isinstance(exc, BudgetExceeded | KeyboardInterrupt) or not worker.process.is_alive():
            worker.stop()  # its work is abandoned: another worker answers the next call
        else:
            _give_back(worker)  # an error is an answer: the worker is fine
        raise
    _give_back(worker)
    return result


class Pending:
    """:func:`run_in_worker` of ``function(*args)`` started now, in a thread of its own: the caller
    goes on with other work and takes the answer later (:meth:`result`), or never (the worker then
    finishes, or is stopped at ``budget``, all the same)."""

    def __init__(self, function: Callable[..., Any], *args: Any, budget: Budget | None = None,
                 background: bool = False) -> None:
        self._done = threading.Event()
        self._outcome: tuple[bool, Any] = (False, None)
        threading.Thread(target=self._run, args=(function, args, budget, background), daemon=True,
                         name="context-lens-pending").start()

    def _run(self, function: Callable[..., Any], args: tuple[Any, ...], budget: Budget | None,
             background: bool) -> None:
        try:
            self._outcome = (True, run_in_worker(function, *args, budget=budget, background=background))
        except BaseException as exc:  # noqa: BLE001 (the caller decides, in result())
            self._outcome = (False, exc)
        finally:
            self._done.set()

    def done(self) -> bool:
        return self._done.is_set()

    def outcome(self, timeout: float | None = None) -> tuple[bool, Any] | None:
        """``(True, answer)``, ``(False, what the call raised)``, or None past ``timeout`` seconds of
        waiting. Nothing of the call is raised here: only what reaches the waiting thread itself
        (a budget's watchdog, a stop) goes on."""
        deadline = None if timeout is None else time.monotonic() + timeout
        # Short waits: a budget's watchdog (and Streamlit's stop) reach this thread between them.
        while not self._done.wait(_POLL_S):
            if deadline is not None and time.monotonic() > deadline:
                return None
        return self._outcome


def run_isolated(function: Callable[..., Any], *args: Any, budget: Budget | None = None) -> Any:
    """``function(*args)`` in a child process, stopped past ``budget`` (raises :class:`BudgetExceeded`).

    The function, its arguments, its result and any exception it raises must be picklable; the
    exception is raised here as it was raised there.
    """
    budget = budget or Budget()
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, function, args), daemon=True)
    child.start()
    sender.close()
    peak = [0]
    try:
        return _await(receiver, child, budget, peak)
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join(5)
        CHILD_PEAKS[:] = [*CHILD_PEAKS[-15:], peak[0]]
