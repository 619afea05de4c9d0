"""Ctrl-C on the command line: a first press stops the command cleanly, a second stops it at once.

The first press raises ``KeyboardInterrupt`` as usual: the batch kills its workers instead of waiting
for them, writes nothing, and the command ends with one line. Any further press, while that cleanup
runs, kills this process's children (by their ids) and ends the process immediately, with one line
and no traceback. A report being written holds a first press until it is written whole, and a first
press that Python swallows (raised inside a finaliser or a weak reference's callback) is sent again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

EXIT_INTERRUPTED = 130
RESEND_AFTER_S = 0.05


class Interrupts:
    """Ctrl-C: the first press stops the command cleanly (a ``KeyboardInterrupt``: workers are killed,
    no output is written); any further press stops the process at once, whatever it is cleaning up
    (its children killed first), with one line and no traceback."""

    def __init__(self) -> None:
        self.presses = 0
        self.deferred = False
        self.keep = False
        self.stopped = False
        self._previous: Any = None
        self._previous_hook: Any = None

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._previous_hook = sys.unraisablehook
            sys.unraisablehook = self._unraisable

    def uninstall(self) -> None:
        if self._previous is None:
            return
        sys.unraisablehook = self._previous_hook
        if self.keep:
            # Interrupted: the command has said so and the process only winds down; a press now
            # would end the interpreter's shutdown with a signal (and its exit status) instead.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        else:
            signal.signal(signal.SIGINT, self._previous)
        self._previous = None

    def stopping(self) -> None:
        """The command is unwinding after the first press: the next one ends the process."""
        self.presses = max(self.presses, 1)
        self.deferred = False
        self.stopped = True

    @contextlib.contextmanager
    def deferred_while(self) -> Iterator[None]:
        """Hold a first press until the block is done (a report is written whole or not at all)."""
        self.deferred = True
        try:
            yield
        finally:
            self.deferred = False
        if self.presses:
            raise KeyboardInterrupt

    def _handle(self, _signum: int, _frame: Any) -> None:
        self.presses += 1
        if self.presses == 1:
            if self.deferred:
                return
            raise KeyboardInterrupt
        kill_children()
        os.write(2, b"context-lens: interrupted again; stopped at once\n")
        os._exit(EXIT_INTERRUPTED)

    def _unraisable(self, unraisable: Any) -> None:
        # A first press that lands in a finaliser or a weak reference's callback is swallowed there
        # (Python prints it and goes on): the press is taken back and sent again a moment later, once
        # this callback has returned, so that it reaches the command's own code instead of being lost
        # and printed as a traceback. (Sent at once, it would be handled still inside the callback.)
        if issubclass(unraisable.exc_type, KeyboardInterrupt) and self.presses == 1 and not self.stopped:
            self.presses = 0
            resend = threading.Timer(RESEND_AFTER_S, os.kill, args=(os.getpid(), signal.SIGINT))
            resend.daemon = True
            resend.start()
            return
        self._previous_hook(unraisable)


def kill_children() -> None:
    """Kill this process's children (pool workers, a local model, a local Ray) by their ids."""
    import multiprocessing

    for process in multiprocessing.active_children():
        with contextlib.suppress(Exception):
            process.kill()
    for pid in child_pids():
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def child_pids() -> list[int]:
    """The ids of this process's children, where /proc lists them (Linux)."""
    me = os.getpid()
    found = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    with open(f"/proc/{entry}/stat", "rb") as stat_file:
                        fields = stat_file.read().rsplit(b")", 1)[1].split()
                    if int(fields[1]) == me:
                        found.append(int(entry))
    return found
