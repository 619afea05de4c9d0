"""Settings of the dashboard's server process (one process serves every session)."""

from __future__ import annotations

import gc

# The cyclic collector's thresholds for a process holding whole transcripts. With the default
# (700, 10, 10) a page's analyses of a 2.6 MB log started a full collection once or twice a run,
# each walking every live object of every loaded log (0.07-0.14 s); transcripts are acyclic and
# freed by reference counting, so waiting longer before a collection only delays freeing the
# few cycles made meanwhile. The command line and workers pause the collector for a whole job
# instead (``core.bulk_work``); a server of many sessions cannot.
COLLECTOR_THRESHOLDS = (20_000, 20, 20)


def tune_collector() -> None:
    """Set the collector's thresholds for a dashboard server (idempotent: each script run calls it)."""
    if gc.get_threshold() != COLLECTOR_THRESHOLDS:
        gc.set_threshold(*COLLECTOR_THRESHOLDS)
