"""Work ahead: the analyses most pages share, made for a new upload while its first page is read.

Once the page that read an upload is drawn, one thread of the server makes, under the sidebar's
parameters of that run, the Hermes run with the offline summary (Zones, Savings, Fact retention,
API validity, the sweep and Strategies show it), the fact index (Fact retention and Strategies),
and then Strategies' comparison with the session's choices there (the longest first visit: the
Codex-style reset summarises the whole log), exactly as those pages would make them. The reset's
texts are masked in a worker process from the start, beside the first two. A page that needs one of them while it is
being made waits for it (``Transcript.memo``) rather than making it again, so nothing is computed
twice and every result is the one the page would have computed itself.

One thread serves the whole server and takes one upload at a time, so the work ahead never holds
more than one core. It only holds a transcript while working on it: a transcript let go meanwhile
(no session holds it any more) is skipped. Its failures are not shown: a page that needs the same
result computes it again and shows its error there. The bundled samples get none: they are small,
and the first page of a new session must not share the machine with work no one asked for.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque

import streamlit as st

from core.budget import BudgetExceeded
from dashboard.memo import Settings, Transcript, unattended
from dashboard.runs import StrategyOptions, strategy_options

# Session keys: the upload read by this run (a weak reference), and this run's parameters.
_PLANNED = "_work_ahead_transcript"
_SETTINGS = "_work_ahead_settings"
# Uploads waiting for the thread, oldest first; past this many the oldest are dropped (a busy server
# makes them when a page asks, as without the work ahead).
QUEUE_LIMIT = 8


class _Worker:
    """The server's one thread of work ahead and its queue."""

    def __init__(self) -> None:
        self._jobs: deque[tuple[weakref.ref[Transcript], Settings, StrategyOptions]] = deque()
        self._busy = 0  # jobs queued or running
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, transcript: Transcript, settings: Settings, options: StrategyOptions) -> None:
        with self._changed:
            if len(self._jobs) >= QUEUE_LIMIT:
                self._jobs.popleft()
                self._busy -= 1
            self._jobs.append((weakref.ref(transcript), settings, options))
            self._busy += 1
            self._changed.notify_all()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="context-lens-work-ahead", daemon=True)
                self._thread.start()

    def wait_idle(self, timeout: float) -> bool:
        """Whether every job added so far is done within ``timeout`` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: self._busy == 0, timeout)

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._jobs))
                reference, settings, options = self._jobs.popleft()
            try:
                transcript = reference()
                if transcript is not None:
                    _work_on(transcript, settings, options)
                del transcript  # not held while the thread waits for the next upload
            finally:
                with self._changed:
                    self._busy -= 1
                    self._changed.notify_all()


def _work_on(transcript: Transcript, settings: Settings, options: StrategyOptions) -> None:
    from dashboard.runs import fact_index, offline_compression, strategy_comparisons, strategy_masking

    with unattended():
        try:
            strategy_masking(transcript, settings, options)  # another process: beside the next two
            offline_compression(transcript, settings)
            fact_index(transcript)
            for _step in strategy_comparisons(transcript, settings, options):
                pass
        except (Exception, BudgetExceeded):  # the page that needs it computes it and says why
            return


_WORKER = _Worker()


def plan(transcript: Transcript) -> None:
    """This run read an upload: once its page is drawn, the shared analyses are made ahead for it."""
    st.session_state[_PLANNED] = weakref.ref(transcript)


def note_settings(settings: Settings) -> None:
    """The sidebar's parameters of this run (the ones the work ahead uses)."""
    st.session_state[_SETTINGS] = settings


def start() -> None:
    """After a page is drawn: hand the upload this run read, if any, to the thread."""
    reference = st.session_state.pop(_PLANNED, None)
    settings = st.session_state.get(_SETTINGS)
    transcript = reference() if reference is not None else None
    if transcript is not None and isinstance(settings, Settings):
        _WORKER.add(transcript, settings, strategy_options())


def wait_idle(timeout: float = 60.0) -> bool:
    """Whether the work ahead has finished everything handed to it within ``timeout`` seconds."""
    return _WORKER.wait_idle(timeout)

