"""Settings of the dashboard's server process (one process serves every session)."""

from __future__ import annotations

import gc
import sys
import threading

# The cyclic collector's thresholds for a process holding whole transcripts. With the default
# (700, 10, 10) a page's analyses of a 2.6 MB log started a full collection once or twice a run,
# each walking every live object of every loaded log (0.07-0.14 s); transcripts are acyclic and
# freed by reference counting, so waiting longer before a collection only delays freeing the
# few cycles made meanwhile. The command line and workers pause the collector for a whole job
# instead (``core.bulk_work``); a server of many sessions cannot.
COLLECTOR_THRESHOLDS = (20_000, 20, 20)

# How long a thread computing a page may keep the interpreter before the server's network thread
# gets it back (Python's default is 5 ms). The network thread needs it a few times per file it
# sends, so while one session's page computed, 90 script files of a first page took 4.5 s to
# send (0.14 s idle); at 0.5 ms, 0.7 s (`python -m bench.bench_serving`). A thread alone is never
# interrupted, so a lone computation loses nothing.
SWITCH_INTERVAL_S = 0.0005


def tune_collector() -> None:
    """Set the collector's thresholds for a dashboard server (idempotent: each script run calls it)."""
    if gc.get_threshold() != COLLECTOR_THRESHOLDS:
        gc.set_threshold(*COLLECTOR_THRESHOLDS)


def tune_switching() -> None:
    """Let the server's network thread in often while a page computes (idempotent)."""
    if sys.getswitchinterval() != SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)


def tune_server_process() -> None:
    """Every setting above, for the process that runs the dashboard's pages."""
    tune_collector()
    tune_switching()


# Set while ``dashboard.serve`` loads the first page's modules in its own thread. A script run
# waits for it before importing them: two threads importing the same modules at once can each
# hold a module the other needs (Python then fails one import) and would only load them twice.
_PRELOADED = threading.Event()
_PRELOADED.set()
PRELOAD_WAIT_S = 60.0


def preload_started() -> None:
    """A thread has begun loading the first page's modules (``dashboard.serve``)."""
    _PRELOADED.clear()


def preload_finished() -> None:
    """That thread is done, whatever became of it."""
    _PRELOADED.set()


def wait_for_preload(timeout: float = PRELOAD_WAIT_S) -> bool:
    """Wait until no thread is loading the first page's modules; False if it still is after ``timeout``."""
    return _PRELOADED.wait(timeout)
