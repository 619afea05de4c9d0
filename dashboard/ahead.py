"""Work ahead: the analyses most pages share, made for a new upload while its first page is read.

Once the page that read an upload is drawn, one thread of the server makes, under the sidebar's
parameters of that run, the Hermes run with the offline summary (Zones, Savings, Fact retention,
API validity, the sweep and Strategies show it), the fact index (Fact retention and Strategies),
exactly as those pages would make them; then, while no page has run since (the user reads the
first page), Strategies' comparison with the session's choices there (the longest first visit: the
Codex-style reset summarises the whole log), then Release comparison's six compressions with the
session's choices there (the sidebar release's is the offline run made before). The reset's texts
are sent to be masked in a worker process first, whatever page opens: it runs at a lower priority,
beside the rest.
A page that needs one of them while it is being made waits for it (``Transcript.memo``) rather
than making it again, so nothing is computed twice and every result is the one the page would
have computed itself.

It takes no step in this process while a page runs in any session (:func:`page_running`): two
threads of one process compute no faster than one, so a page that needs none of it (Timeline,
Redaction preview) would only run slower beside it, and a page that needs it makes the steps left
itself. A step begun goes on. Strategies' comparison steps are only taken while the user reads:
after another page was opened they would take the processor from the browser drawing it (``make
bench``: Timeline clicked at once after an upload), and Strategies opened makes them itself; the same
holds for Release comparison's, which is made one release at a time and stops between two once a
page starts (a new upload's page among them): begun while the user read, it would otherwise hold
the interpreter for seconds beside that page, five compressions of the log.

One thread serves the whole server and takes one upload at a time, so its own work never holds
more than one core (the masking worker runs at a lower priority). It holds a transcript only within
a step, a weak reference between steps: a transcript let go meanwhile (no session holds it any
more) is skipped. Its failures are not shown: a page that needs the same
result computes it again and shows its error there. The bundled samples get none: they are small,
and the first page of a new session must not share the machine with work no one asked for.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator

import streamlit as st

from core.budget import BudgetExceeded
from dashboard.memo import Settings, Transcript, unattended
from dashboard.runs import (
    DEFAULT_RELEASE_OPTIONS,
    ReleaseOptions,
    StrategyOptions,
    fact_index,
    offline_compression,
    release_comparison,
    release_options,
    strategy_comparisons,
    strategy_masking,
    strategy_options,
)

# Session keys: the upload read by this run (a weak reference), and this run's parameters.
_PLANNED = "_work_ahead_transcript"
_SETTINGS = "_work_ahead_settings"
# Uploads waiting for the thread, oldest first; past this many the oldest are dropped (a busy server
# makes them when a page asks, as without the work ahead).
QUEUE_LIMIT = 8


class _Worker:
    """The server's one thread of work ahead and its queue."""

    def __init__(self) -> None:
        self._jobs: deque[tuple[weakref.ref[Transcript], Settings, StrategyOptions, ReleaseOptions, int]] = deque()
        self._busy = 0  # jobs queued or running
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, transcript: Transcript, settings: Settings, options: StrategyOptions,
            releases: ReleaseOptions = DEFAULT_RELEASE_OPTIONS) -> None:
        with self._changed:
            if len(self._jobs) >= QUEUE_LIMIT:
                self._jobs.popleft()
                self._busy -= 1
            self._jobs.append((weakref.ref(transcript), settings, options, releases, _PAGES.started))
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
                reference, settings, options, releases, pages_started = self._jobs.popleft()
            try:
                _work_on(reference, settings, options, pages_started, releases=releases)
            finally:
                with self._changed:
                    self._busy -= 1
                    self._changed.notify_all()


class _RunningPages:
    """How many page scripts run right now, and how many have started, in every session of the server."""

    def __init__(self) -> None:
        self._count = 0
        self.started = 0
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        with self._changed:
            self._count += 1
            self.started += 1
        try:
            yield
        finally:
            with self._changed:
                self._count -= 1
                self._changed.notify_all()

    def wait_for_none(self) -> None:
        with self._changed:
            self._changed.wait_for(lambda: self._count == 0)


_PAGES = _RunningPages()


def page_running() -> contextlib.AbstractContextManager[None]:
    """Around a page's script run: the work ahead takes no step meanwhile."""
    return _PAGES.running()


# When a step is taken: straight away (it only starts a worker process at a lower priority, so a page
# running meanwhile keeps this process's thread), once no page runs, or once no page runs and only
# while the user reads (no page started since the hand-over).
AT_ONCE, BETWEEN_PAGES, WHILE_READING = "at once", "between pages", "while reading"


def _steps(settings: Settings, options: StrategyOptions, releases: ReleaseOptions = DEFAULT_RELEASE_OPTIONS,
           reading: Callable[[], bool] = lambda: True) -> list[tuple[str, Callable[[Transcript], object]]]:
    """The work ahead in the order it is made, each step with when it is taken. ``reading``: whether
    the user still reads (no page started since): Release comparison's step, the longest, asks it
    between releases and stops when not."""
    return [
        # The Codex-style reset's texts, masked in a worker meanwhile: Strategies opened right after the
        # upload waits less for them (``make bench``, Strategies at once: its whole comparison sooner).
        (AT_ONCE, lambda t: strategy_masking(t, settings, options)),
        (BETWEEN_PAGES, lambda t: offline_compression(t, settings)),
        (BETWEEN_PAGES, fact_index),
        (WHILE_READING, lambda t: next(strategy_comparisons(t, settings, options))),  # the first rows (or the whole)
        (WHILE_READING, lambda t: deque(strategy_comparisons(t, settings, options), maxlen=0)),  # the whole
        (WHILE_READING, lambda t: release_comparison(t, settings, releases, keep_going=reading)),
    ]


def _work_on(reference: weakref.ref[Transcript], settings: Settings, options: StrategyOptions,
             pages_started: int | None = None, *, releases: ReleaseOptions = DEFAULT_RELEASE_OPTIONS) -> None:
    """Each step when :func:`_steps` says (all but the masking once no page runs), on the transcript
    while a session holds it (only a weak reference is held between steps). ``pages_started``: the
    count of pages started when the work was handed over (None: now)."""
    begun = _PAGES.started if pages_started is None else pages_started
    with unattended():
        for when, step in _steps(settings, options, releases, reading=lambda: _PAGES.started == begun):
            if when != AT_ONCE:
                _PAGES.wait_for_none()
            if when == WHILE_READING and _PAGES.started != begun:
                return
            transcript = reference()
            if transcript is None:
                return
            try:
                step(transcript)
            except (Exception, BudgetExceeded):  # the page that needs it computes it and says why
                return
            finally:
                del transcript


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
        _WORKER.add(transcript, settings, strategy_options(), release_options())


def wait_idle(timeout: float = 60.0) -> bool:
    """Whether the work ahead has finished everything handed to it within ``timeout`` seconds."""
    return _WORKER.wait_idle(timeout)

