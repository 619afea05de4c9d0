"""Settings of the dashboard's server process (one process serves every session)."""

from __future__ import annotations

import contextlib
import gc
import socket
import sys
import threading
from collections.abc import Iterator

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


def send_responses_at_once() -> bool:
    """Make the connections of the server Streamlit is about to start send each reply at once
    (``TCP_NODELAY``); returns whether Streamlit's listening socket is now made that way.

    Streamlit binds its listening socket itself, with protocol 0, and asyncio turns Nagle's
    algorithm off only on connections whose socket says TCP. So every reply written in two parts
    (the headers, then the body) held its second part until the browser acknowledged the first,
    which a browser delays by up to 40 ms: 90 of the page's script files over six kept-alive
    connections took 0.65 s, and 0.18 s with the option set (``bench.bench_serving``). The socket
    is the same, only named as TCP, so asyncio sets the option on each connection it accepts.
    Where Streamlit binds its socket otherwise (another version), nothing changes.
    """
    try:
        from streamlit.web.server.starlette import starlette_server
    except ImportError:
        return False
    bind = getattr(starlette_server, "_bind_socket", None)
    if not callable(bind):
        return False
    if getattr(bind, "names_tcp", False):
        return True

    def bind_named_tcp(*args, **kwargs) -> socket.socket:
        listening = bind(*args, **kwargs)
        if listening.family not in (socket.AF_INET, socket.AF_INET6) or listening.proto == socket.IPPROTO_TCP:
            return listening
        blocking = listening.getblocking()
        named = socket.socket(listening.family, listening.type, socket.IPPROTO_TCP, fileno=listening.detach())
        named.setblocking(blocking)
        return named

    bind_named_tcp.names_tcp = True  # type: ignore[attr-defined]
    # Streamlit's own (private) binding function, looked up and replaced by name: a version without
    # it is left as it is (above).
    setattr(starlette_server, "_bind_socket", bind_named_tcp)  # noqa: B010
    return True


def tune_server_process() -> None:
    """Every setting above, for the process that runs the dashboard's pages."""
    tune_collector()
    tune_switching()


# One thread at a time imports the first page's modules: two threads importing them at once can
# each hold a module the other needs, and Python then fails one import ("partially initialized
# module"). ``dashboard.serve`` loads them ahead in a thread of its own once the server listens; a
# script run waits for that load, and a run that starts before it (a first request that came
# quickly, a busy machine) imports them itself: the thread then leaves them to it.
_LOADING = threading.Lock()
_RUN_STARTED = threading.Event()
PRELOAD_WAIT_S = 60.0


@contextlib.contextmanager
def loading_ahead() -> Iterator[bool]:
    """For the thread that loads the modules ahead: while the block runs no script run imports, and
    it yields whether the load is still wanted (False once a script run has started)."""
    with _LOADING:
        yield not _RUN_STARTED.is_set()


def loading() -> bool:
    """Whether a thread is loading the modules ahead right now."""
    return _LOADING.locked()


def wait_for_preload(timeout: float = PRELOAD_WAIT_S) -> bool:
    """Before a script run imports the modules: wait for a load ahead in progress (False if it still
    is after ``timeout``); none starts after this call."""
    _RUN_STARTED.set()
    if _LOADING.acquire(timeout=timeout):
        _LOADING.release()
        return True
    return False
