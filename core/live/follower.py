"""Following one session: a status each time its file changes.

:class:`SessionFollower` is the engine of ``context-lens watch`` and of the live page: ``poll()``
looks at the file once (one ``stat`` when nothing moved), reads what changed through the source that
suits it (``core.live.sources``), and returns a :class:`~core.live.status.LiveStatus` when there is
something new to say: new figures, a compaction the log recorded, or a change of state (the file
went missing, came back, cannot be read, was truncated or replaced). :func:`follow` polls in a loop
and yields those statuses; it spaces the updates by what they cost, so a long log appended to many
times a second is measured a few times a second, never more than ``MAX_GAP`` seconds late.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace

from core.config import CompressorConfig
from core.formats import Conversation, FormatError
from core.formats.source import DEFAULT_MAX_BYTES, HEAD_BYTES
from core.live.sources import (
    CHANGED,
    GONE,
    INVALID,
    SAME,
    WAITING,
    DocumentSource,
    LinesSource,
    LiveSource,
    open_source,
)
from core.live.status import LiveStatus, Measurement, compaction_record, measure
from core.live.tail import describe_os_error

__all__ = ["DEFAULT_INTERVAL", "MAX_GAP", "Point", "SessionFollower", "follow"]

#: Seconds between two looks at the file.
DEFAULT_INTERVAL = 0.5
#: An update waits at most this long after the previous one (the cost-based spacing is capped here).
MAX_GAP = 2.0
# The pause after an update is at least this many times what the update cost: updates then take at
# most a fifth of a processor however fast the agent writes (an update re-reads what the file holds
# in memory, so its cost grows with the log; see core.live.sources).
COST_FACTOR = 4.0


#: Points kept in :attr:`SessionFollower.history`.
HISTORY_POINTS = 2_000


@dataclass(frozen=True)
class Point:
    """One live status, as a chart of the session's growth needs it."""

    time: float
    messages: int
    request_tokens: int
    trigger_tokens: int
    threshold_tokens: int
    compactions: int


def _key(record: dict[str, object]) -> tuple[object, ...]:
    return (record["kind"], record["position"], record["source"])


class SessionFollower:
    """One followed transcript (see the module docstring).

    Args:
        path: The session file (or a tool's folder, or a SQLite store).
        config: The compressor parameters the figures are measured with (the defaults when None).
        format: The format instead of detecting it (one of ``core.formats.FORMAT_NAMES``).
        session: The session of a multi-session file to follow (its default one when None).
        max_bytes: Files larger than this are not read (as ``load``'s limit).
        name: How the file is named in statuses and errors (the path as given when None).
        zones: Also plan the zones (``core.plan.plan``) at each update.

    ``last`` is the last status, ``conversation`` the conversation it measured, ``history`` the live
    statuses so far (the last ``HISTORY_POINTS``) for a chart. One thread polls a follower.
    """

    def __init__(self, path: str | os.PathLike[str], config: CompressorConfig | None = None, *,
                 format: str | None = None, session: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 name: str | None = None, zones: bool = True) -> None:
        self.path = os.fspath(path)
        self.name = name or self.path
        self.config = config or CompressorConfig()
        self.format, self.session, self.max_bytes, self.zones = format, session, max_bytes, zones
        self.source: LiveSource | None = None
        self.sequence = 0
        self.last: LiveStatus | None = None
        self.measurement: Measurement | None = None
        self.conversation: Conversation | None = None
        self.seen_compactions: set[tuple[object, ...]] = set()
        self.history: deque[Point] = deque(maxlen=HISTORY_POINTS)
        self.reported: tuple[str, str] | None = None  # (state, note) of the last status that was not live
        self.was_missing = False
        self.open_error: str | None = None
        self.open_signature: object = None

    # -- the one call ------------------------------------------------------------------------------

    def poll(self) -> LiveStatus | None:
        """Look at the file once; a status when something changed (None otherwise). Never raises for
        the file's sake: every problem with it is a status."""
        started = time.process_time()
        try:
            status = self._poll()
        except Exception as exc:  # a reader or a measure failing on odd input: a status, never a traceback
            status = self._status("error", "error", f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        if status is not None:
            status.seconds = time.process_time() - started
            self.last = status
        return status

    def _poll(self) -> LiveStatus | None:
        if self.source is None:
            opened = self._open()
            if isinstance(opened, LiveStatus) or opened is None:
                return opened
            self.source = opened
        elif isinstance(self.source, DocumentSource) and self._became_lines(self.source):
            self.source = LinesSource(self.path, self.name, self.format, self.session, self.max_bytes)
        update = self.source.poll()
        lines, size = update.lines, update.bytes
        while update.more:
            update = self.source.poll()
            lines, size = lines + update.lines, size + update.bytes
        if update.state == SAME:
            return None
        if update.state == GONE:
            # Whatever comes back at this path is read afresh, and its layout found again.
            self.source, self.was_missing = None, True
            return self._status(GONE, "missing", update.note)
        if update.state != CHANGED or update.conversation is None:
            if update.state == INVALID and update.event == "reset":
                self.source = None  # rewritten as something else: its layout is found again at the next poll
            return self._status(update.state, update.event or update.state, update.note)
        event, note = update.event, update.note
        if self.was_missing:
            self.was_missing = False
            event, note = "reappeared", "the file is back; read from the start" + (f"; {note}" if note else "")
        status = self._measured(update.conversation, event, note, lines, size)
        status.file_bytes = update.size
        return status

    def _open(self) -> LiveSource | LiveStatus | None:
        try:
            st = os.stat(self.path)
            signature: object = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            return self._status(GONE, "missing", "no such file (deleted, moved away, or not created yet)")
        except OSError as exc:
            return self._status("unreadable", "unreadable", f"cannot look at the file: {describe_os_error(exc)}")
        if signature == self.open_signature and self.open_error is not None:
            return None  # the same file that is no transcript: wait for it to change
        self.open_signature = signature
        try:
            source = open_source(self.path, self.format, self.session, self.max_bytes, self.name)
        except FormatError as exc:
            text = " ".join(str(exc).split())
            self.open_error = text
            if "the file is empty" in text:
                return self._status(WAITING, "start", "the file is empty")
            return self._status(INVALID, "start", text)
        except OSError as exc:  # tried again at the next poll (a permission may be given back)
            return self._status("unreadable", "unreadable", f"cannot read the file: {describe_os_error(exc)}")
        self.open_error = None
        return source

    def _became_lines(self, source: DocumentSource) -> bool:
        """A small file first seen as one document that has grown into JSON Lines (looked at only
        when the file changed: an unchanged document costs one ``stat``)."""
        try:
            signature = source.signature_now()
            if signature == source.signature or os.path.getsize(self.path) >= HEAD_BYTES:
                return False
            return LinesSource.suits(self.path, self.name, self.max_bytes)
        except (OSError, FormatError):
            return False

    # -- statuses ----------------------------------------------------------------------------------

    def _measured(self, conversation: Conversation, event: str, note: str, lines: int, size: int) -> LiveStatus:
        """The status of a new conversation state (compactions new since the last one listed)."""
        first = self.measurement is None
        self.measurement = measure(conversation, self.config, zones=self.zones)
        self.conversation = conversation
        records = [compaction_record(item) for item in conversation.compaction_events]
        new = [] if first else [record for record in records if _key(record) not in self.seen_compactions]
        self.seen_compactions = {_key(record) for record in records}
        if event == "session" and note:
            new.append({"position": None, "kind": "session-continued", "pre_tokens": None, "source": "",
                        "summary": note})
        self.reported = None
        status = self._status("live", event, note, conversation=conversation, new=new, lines=lines, size=size)
        assert status is not None  # a live status is always said
        m = self.measurement
        self.history.append(Point(status.time, m.messages, m.request_tokens, m.trigger_tokens, m.threshold_tokens,
                                  m.compactions))
        return status

    def _status(self, state: str, event: str, note: str, *, conversation: Conversation | None = None,
                new: list[dict[str, object]] | None = None, lines: int = 0, size: int = 0) -> LiveStatus | None:
        if state != "live":
            if self.reported == (state, note):
                return None  # said already: one status per change of state, not one per poll
            self.reported = (state, note)
        self.sequence += 1
        conv = conversation or self.conversation
        return LiveStatus(
            path=self.name, state=state, event=event, sequence=self.sequence, time=time.time(), note=note,
            format=conv.format if conv is not None else None,
            session=conv.session_id if conv is not None else self.session,
            measurement=self.measurement, new_compactions=list(new or []), appended_lines=lines,
            appended_bytes=size, warnings=len(conv.warnings) if conv is not None else 0,
        )

    def reconfigure(self, config: CompressorConfig) -> LiveStatus | None:
        """Measure the current conversation again with other parameters (nothing is read)."""
        self.config = config
        if self.conversation is None or self.last is None:
            return None
        self.measurement = measure(self.conversation, config, zones=self.zones)
        self.sequence += 1
        status = replace(self.last, event="reconfigured", sequence=self.sequence, time=time.time(),
                         measurement=self.measurement, new_compactions=[], appended_lines=0, appended_bytes=0)
        self.last = status
        return status


def follow(
    path: str | os.PathLike[str],
    config: CompressorConfig | None = None,
    *,
    interval: float = DEFAULT_INTERVAL,
    stop: threading.Event | None = None,
    follower: SessionFollower | None = None,
    pause_collector: bool = False,
    **options: object,
) -> Iterator[LiveStatus]:
    """Follow ``path`` until ``stop`` is set (forever when None), yielding each status.

    ``options`` go to :class:`SessionFollower` (``format``, ``session``, ``max_bytes``, ``name``,
    ``zones``). The first status comes at once; later ones within ``interval`` of a change, spaced by
    ``COST_FACTOR`` times what the previous update cost (at most ``MAX_GAP`` seconds).
    ``pause_collector`` turns the cyclic garbage collector off during each poll (``core.bulk_work``:
    only for a process that does nothing else, such as ``watch``).
    """
    from contextlib import nullcontext

    from core.bulk_work import collector_paused

    follower = follower or SessionFollower(path, config, **options)  # type: ignore[arg-type]
    stop = stop or threading.Event()
    while not stop.is_set():
        with collector_paused() if pause_collector else nullcontext():
            status = follower.poll()
        pause = interval
        if status is not None:
            if status.event == "appended":
                # Spaced by what following costs; a first read (whole file, tokenizer loaded) says nothing of it.
                pause = max(interval, min(MAX_GAP, COST_FACTOR * status.seconds))
            yield status
        stop.wait(pause)
