"""Live: follow a running agent's session and see compaction coming."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from core.render.live import gauge_html, growth_figure, zones_html
from dashboard.live import (
    LIVE_PATH,
    LIVE_PAUSED,
    LIVE_SESSION,
    PICKER_SESSIONS,
    REFRESH_SECONDS,
    compaction_lines,
    figures,
    follow,
    open_in_dashboard,
    paused,
    refresh,
    roots_field,
    session_index,
    session_label,
    state_line,
    unread_bytes,
)
from dashboard.sidebar import escape_markdown, keep, kept, page_setup, set_kept
from dashboard.ui import chart, metric_row

FROM_FOLDERS, FROM_PATH = "From the session folders", "Type a path"

st.title("Live")
settings = page_setup()
config = settings.config()
st.caption("Follows a session file while its agent writes it: the whole request against the threshold, how fast it "
           "grows, and what Hermes would summarise now. Files are only read, never written.")

source = st.radio("Session", [FROM_FOLDERS, FROM_PATH], horizontal=True, label_visibility="collapsed",
                  **keep("live_source", FROM_FOLDERS))
path, session = None, None
if source == FROM_FOLDERS:
    with st.expander("Session folders"):
        roots = roots_field()
    index = session_index(roots, config)
    rows = []
    if index is not None:
        refresh(index)
        rows = index.rows(sort_by="last_activity")[:PICKER_SESSIONS]
    if not rows:
        st.info("No sessions in these folders yet. Add a folder above, or type a path.")
        st.stop()
    by_key = {f"{row.file}#{row.session}": row for row in rows}
    if kept("live_pick") not in by_key:
        set_kept("live_pick", next(iter(by_key)))
    pick = st.selectbox("Session (most recent activity first)", list(by_key),
                        format_func=lambda key: session_label(by_key[key]), **keep("live_pick"))
    chosen = by_key[pick]
    path = chosen.file
    # A store holds many sessions: follow the one picked; a log is one session.
    session = chosen.session if chosen.file.endswith((".db", ".sqlite", ".sqlite3")) else None
else:
    typed = st.text_input("Session file", placeholder="~/.claude/projects/<project>/<session>.jsonl",
                          **keep(LIVE_PATH, ""))
    path = typed.strip() or None
    session = kept(LIVE_SESSION)
    if path is None:
        st.info("Type the path of a session file (a Claude Code, Codex, Gemini CLI or Hermes log, or a state.db).")
        st.stop()
    path = str(Path(path).expanduser())

follower = follow(path, session, config)
if follower.last is None and not paused():
    follower.poll()  # the first reading, before the controls that depend on it
controls = st.columns([1, 2, 3], vertical_alignment="center")
with controls[0]:
    st.toggle("Pause", help="Stop reading the file; the figures stay as they are.", **keep(LIVE_PAUSED, False))
with controls[1]:
    opened = st.button("Open in the dashboard", icon=":material/open_in_new:",
                       help="Every other page then analyses this session as it is now.")
with controls[2]:
    st.caption(f"{escape_markdown(path)}" + (f" · session {escape_markdown(session)}" if session else ""))
if opened:
    last = follower.last
    open_in_dashboard(path, session, kind=getattr(follower.source, "kind", None),
                      file_bytes=last.file_bytes if last is not None and last.live else None)


@st.fragment(run_every=REFRESH_SECONDS)
def live_panel() -> None:
    if not paused():
        follower.poll()
    status = follower.last
    state_line(status, paused(), unread_bytes(follower))
    if status is None or status.measurement is None:
        return
    m = status.measurement
    metric_row("live", figures(status))
    st.subheader("Gauge")
    st.html(gauge_html(m))
    if len(m.series) >= 2:
        st.subheader("Growth per request")
        unit = "recorded prompt tokens" if m.trigger_source == "recorded" else "tokens"
        chart(growth_figure(m.series, m.threshold_tokens, m.turns_to_threshold, unit=unit), key="live_growth")
    zones = m.zones
    if zones is not None:
        st.subheader("If Hermes compressed now")
        if zones.middle and zones.compress_start is not None and zones.compress_end is not None:
            verb = "Hermes would compress now" if m.would_compress else "If it compressed now, Hermes would"
            st.caption(f"{verb} summarise messages {zones.compress_start:,}–{zones.compress_end - 1:,} "
                       f"({zones.middle:,} messages), keeping the first {zones.head:,} and the last {zones.tail:,}.")
        else:
            st.caption("Nothing to summarise yet: the conversation is too short for a MIDDLE.")
        st.html(zones_html(zones, m.messages))
    for line in compaction_lines(status):
        st.caption(escape_markdown(line))


live_panel()
st.caption(f"Updated every {REFRESH_SECONDS:g} s; each update reads only what was appended to the file. "
           "The parameters are the sidebar's.")
