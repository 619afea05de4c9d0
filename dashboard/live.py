"""The Live and Sessions pages' parts: the folders, the sessions index, the followed session, and
opening a session in the rest of the dashboard.

* The folders are the user's (a field on both pages, kept for the browser session); their defaults
  are ``$CONTEXT_LENS_LIVE_ROOTS`` (folders, ``os.pathsep`` apart) or the agents' own folders
  (``core.live.index.default_roots``). The index's cache is ``core.live``'s, outside them.
* Each browser session holds its own :class:`~core.live.index.SessionIndex` and one
  :class:`~core.live.follower.SessionFollower` in ``st.session_state``: a refresh of the live panel
  reads only what was appended since the last one.
* Opening a session in the dashboard reuses the upload path (``dashboard.loading``): the file's
  bytes as they are now (for a log, up to where the live figures were read) become an upload of
  this session, and the choice of conversation; every other page then analyses it.

Nothing here writes to the watched files or folders.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import streamlit as st

from core.config import CompressorConfig
from core.live.follower import SessionFollower
from core.live.index import SessionIndex, default_roots
from core.live.status import LiveStatus
from core.render.formatting import integer, percent
from dashboard.loading import AUTO_FORMAT, UPLOAD_PREFIX
from dashboard.memo import content_digest
from dashboard.state import escape_markdown, keep, kept, set_kept

#: Folders to list sessions from, ``os.pathsep`` apart (the defaults of the folders field).
ROOTS_ENV = "CONTEXT_LENS_LIVE_ROOTS"
#: Seconds between two looks at the followed file (the live panel's ``run_every``): with the time an
#: update takes on a busy machine, a write shows well within 2 s.
REFRESH_SECONDS = 0.5
#: Sessions offered in the Live page's picker (the most recently active; the Sessions page lists all).
PICKER_SESSIONS = 300
#: Files indexed before the first rows are listed: a larger first scan shows its progress.
PROGRESS_FROM = 20
_FOLLOWER = "_live_follower"
_INDEX = "_live_index"
LIVE_PATH = "live_path"
LIVE_SESSION = "live_session"
LIVE_PAUSED = "live_paused"

STATE_WORDS = {
    "live": "Following",
    "waiting": "Waiting",
    "missing": "File missing",
    "unreadable": "Cannot read the file",
    "invalid": "Not a transcript",
    "error": "Could not measure",
}


# --- the folders and the index -------------------------------------------------------------------


def default_roots_text() -> str:
    configured = [part for part in os.environ.get(ROOTS_ENV, "").split(os.pathsep) if part.strip()]
    return "\n".join(configured or [str(root) for root in default_roots()])


def roots_field() -> list[str]:
    """The folders field (one per line, shared by the Live and Sessions pages); the folders in it."""
    st.text_area("Session folders (one per line)", height=110,
                 help="The agents' folders by default. Only read: nothing is ever written in them.",
                 **keep("live_roots", default_roots_text()))
    return configured_roots()


def configured_roots() -> list[str]:
    text = kept("live_roots") or default_roots_text()
    return [line.strip() for line in str(text).splitlines() if line.strip()]


def session_index(roots: list[str], config: CompressorConfig) -> SessionIndex | None:
    """This browser session's index of ``roots`` (a new one when the folders or the measuring unit
    changed); None, with the reason on the page, when it cannot be opened."""
    key = (tuple(roots), config.token_estimator, config.model)
    held = st.session_state.get(_INDEX)
    if held is not None and held[0] == key:
        index: SessionIndex = held[1]
        index.config = config  # would-compress is decided when the rows are listed
        return index
    if held is not None:
        held[1].close()
        st.session_state.pop(_INDEX, None)
    try:
        index = SessionIndex(roots, config=config)
    except (ValueError, OSError) as exc:
        st.error(escape_markdown(f"The sessions index cannot be opened: {exc}"))
        return None
    st.session_state[_INDEX] = (key, index)
    return index


def refresh(index: SessionIndex) -> Any:
    """Bring the index up to date (only what changed is read); a progress bar while a long first
    scan runs; missing and unreadable folders said on the page."""
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if total < PROGRESS_FROM:
            return
        if bar is None:
            bar = st.progress(0.0)
        bar.progress(min(1.0, done / total), text=f"Indexing the sessions: {done:,} of {total:,} files read")

    summary = index.refresh(progress=progress)
    if bar is not None:
        bar.empty()
    if summary.missing_roots:
        st.caption("Not found: " + escape_markdown(", ".join(summary.missing_roots)))
    if summary.unreadable:
        shown = "\n".join(f"- {escape_markdown(item)}" for item in summary.unreadable[:5])
        more = len(summary.unreadable) - 5
        st.warning(f"**{len(summary.unreadable):,} folder(s) or file(s) cannot be read**, so their sessions are "
                   f"not listed (check their permissions):\n\n{shown}" + (f"\n\n… and {more:,} more" if more > 0 else ""),
                   icon=":material/lock:")
    return summary


def session_label(row: Any) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.last_activity)) if row.last_activity else "?"
    what = (row.title or row.project or Path(row.file).name or "")[:70]
    messages = f"{row.messages:,} msgs" if row.messages is not None else "unreadable"
    return f"{when} · {row.tool or 'transcript'} · {what} · {messages}"


# --- the followed session ------------------------------------------------------------------------


def follow(path: str, session: str | None, config: CompressorConfig) -> SessionFollower:
    """This browser session's follower of ``path`` (a new one when the file or session changed; the
    same one measured again when only the parameters did)."""
    held: SessionFollower | None = st.session_state.get(_FOLLOWER)
    if held is None or held.path != path or held.session != session:
        held = SessionFollower(path, config, session=session, name=path)
        st.session_state[_FOLLOWER] = held
    elif held.config != config:
        held.reconfigure(config)
    return held


def forget_follower() -> None:
    st.session_state.pop(_FOLLOWER, None)


def unread_bytes(follower: SessionFollower) -> int | None:
    """Bytes the file holds beyond what the figures were read from (a log only), None when unknown."""
    status = follower.last
    if status is None or status.file_bytes is None or getattr(follower.source, "kind", "") != "lines":
        return None
    try:
        return max(0, os.stat(follower.path).st_size - status.file_bytes)
    except OSError:
        return None


def state_line(status: LiveStatus | None, paused: bool, behind: int | None) -> None:
    """What the panel shows: following, paused (and how far behind), or why the file is not read."""
    if status is None:
        st.info("Reading the session…")
        return
    when = time.strftime("%H:%M:%S", time.localtime(status.time))
    note = escape_markdown(status.note) if status.note else ""
    if paused:
        lag = f"; the file has grown by {behind:,} bytes since" if behind else ""
        st.warning(f"**Paused**: the figures are those of {when}{lag}. Turn the pause off to catch up.",
                   icon=":material/pause_circle:")
    elif not status.live:
        word = STATE_WORDS.get(status.state, status.state)
        kept_figures = " The figures below are the last ones read." if status.measurement is not None else ""
        st.error(f"**{word}** (since {when}): {note or 'no reason given'}.{kept_figures}", icon=":material/error:")
    elif behind:
        st.info(f"**Behind**: {behind:,} bytes written since the last update ({when}) are being read.",
                icon=":material/hourglass_top:")
    else:
        what = {"start": "read", "appended": f"{status.appended_lines:,} line(s) appended",
                "reconfigured": "measured again with the sidebar's parameters"}.get(status.event, status.event)
        extra = f" ({note})" if note and status.event not in ("start", "appended") else ""
        st.success(f"**Following** · updated {when}: {escape_markdown(what)}{extra}", icon=":material/sensors:")


def figures(status: LiveStatus) -> list[tuple[str, str, dict[str, Any]] | tuple[str, str]]:
    """The live metrics: messages, whole request, the trigger against the threshold, the forecast."""
    m = status.measurement
    assert m is not None
    trigger_label = "Last recorded prompt" if m.trigger_source == "recorded" else "Trigger size"
    if m.would_compress:
        forecast = "now"
    elif m.turns_to_threshold is not None:
        forecast = f"~{m.turns_to_threshold:,} requests"
    else:
        forecast = "not growing"
    return [
        ("Messages", integer(m.messages)),
        ("Whole request", integer(m.request_tokens), {"help": f"Every message and the system prompt, in {m.request_unit} "
                                                               "tokens (as analyze --json's request.total)."}),
        (trigger_label, integer(m.trigger_tokens), {"help": "What Hermes' trigger compares with the threshold."}),
        ("Of the threshold", percent(m.share_of_threshold), {"help": f"Threshold {m.threshold_tokens:,} tokens of a "
                                                                     f"{m.context_length:,}-token window."}),
        ("Growth per request", integer(m.growth_per_turn) if m.growth_per_turn else "–"),
        ("Compaction in", forecast),
    ]


def compaction_lines(status: LiveStatus) -> list[str]:
    """The compactions the log recorded (the session's total, and those new in this update)."""
    m = status.measurement
    lines = []
    for item in status.new_compactions:
        where = f" at message {item['position']:,}" if item.get("position") is not None else ""
        before = f", {item['pre_tokens']:,} tokens before" if item.get("pre_tokens") else ""
        lines.append(f"New in the last update: a compaction ({item['kind']}){where}{before}")
    if m is not None and m.compactions:
        lines.append(f"{m.compactions:,} compaction(s) recorded in this log so far")
    return lines


# --- opening a session in the dashboard ------------------------------------------------------------


def snapshot_bytes(path: str, kind: str | None, file_bytes: int | None) -> bytes:
    """The file as the dashboard should read it now: a log up to where the live figures were read, a
    SQLite store as its read-only connection sees it (the pages still in its -wal included), any
    other file whole. Raises ``OSError`` / ``FormatError`` with the reason."""
    if kind == "folder" or os.path.isdir(path):
        raise OSError(f"{path} is a folder: open one of its session files instead")
    if kind == "store" or path.endswith((".db", ".sqlite", ".sqlite3")):
        from core.formats.source import InputSource, open_sqlite

        connection = open_sqlite(InputSource(name=path, path=Path(path)))
        try:
            return bytes(connection.serialize())
        finally:
            connection.close()
    with open(path, "rb") as handle:
        return handle.read(file_bytes) if kind == "lines" and file_bytes else handle.read()


def open_in_dashboard(path: str, session: str | None = None, *, kind: str | None = None,
                      file_bytes: int | None = None, label: str | None = None) -> None:
    """Make the session at ``path`` (as it is now) the conversation every page analyses, and go to
    the overview; a clear message when the file cannot be read."""
    from core.formats import FormatError

    try:
        data = snapshot_bytes(path, kind, file_bytes)
    except (OSError, FormatError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        st.error(escape_markdown(f"{path}: cannot be opened: {reason}"))
        return
    name = label or f"{Path(path).name} (live {time.strftime('%H:%M:%S')})"
    uploads = [item for item in st.session_state.get("uploaded_files", []) if item.get(LIVE_PATH) != path]
    uploads.append({"name": name, "data": data, "digest": content_digest(data), LIVE_PATH: path})
    st.session_state["uploaded_files"] = uploads
    set_kept("conversation_choice", UPLOAD_PREFIX + name)
    set_kept("format_choice", AUTO_FORMAT)
    set_kept("session_choice", session)
    set_kept("session_label", None)
    st.switch_page("pages/overview.py")


def follow_on_live_page(path: str, session: str | None) -> None:
    """Follow ``path`` on the Live page (from the sessions list)."""
    set_kept(LIVE_PATH, path)
    set_kept(LIVE_SESSION, session)
    set_kept("live_source", "Type a path")
    forget_follower()
    st.switch_page("pages/live.py")


def paused() -> bool:
    return bool(kept(LIVE_PAUSED, False))
