"""Running one bulk job (load a transcript, analyse it) without the cyclic garbage collector.

Loading and analysing a transcript makes millions of small acyclic objects (message dicts, their
Phase-1 copies, per-message lists). The cyclic collector walks every live container on each full
collection, and full collections come more often the more objects there are: on a 400,000-message
file that is about half of the time. Reference counting frees all of it anyway; the few cycles
made meanwhile are collected once the collector is back on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block (restored as it was on exit).

    Only for a process (or a worker) doing one job at a time: the switch is process-wide.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
