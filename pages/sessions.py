"""Sessions: every agent session in the configured folders, sortable and searchable; open any of them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.live import (
    follow_on_live_page,
    open_in_dashboard,
    refresh,
    roots_field,
    session_index,
    session_label,
)
from dashboard.sidebar import escape_markdown, keep, kept, page_setup, set_kept
from dashboard.ui import table

# The figures first: a narrow screen shows them before it needs to scroll.
COLUMNS = ["tool", "title", "last_activity", "messages", "request_tokens", "would_compress", "compactions", "project",
           "started", "file"]

st.title("Sessions")
settings = page_setup()
config = settings.config()
st.caption("The sessions in the agents' folders, newest activity first: click a column to sort, search their "
           "text, and pick one to follow live or to open in the dashboard. Only what changed since the last look is "
           "read again; the folders are never written to.")
with st.expander("Session folders"):
    roots = roots_field()
index = session_index(roots, config)
if index is None:
    st.stop()
search, again = st.columns([4, 1], vertical_alignment="bottom")
with search:
    query = st.text_input("Search the sessions' text", placeholder="words the user or the assistant wrote",
                          **keep("sessions_search", "")).strip()
with again:
    st.button("Look again", icon=":material/refresh:", help="Read the sessions that changed since the last look.")
summary = refresh(index)
frame = index.frame(query or None)
failed = [row for row in index.rows(include_errors=True) if row.error]
if failed:
    listed = "\n".join(f"- {escape_markdown(row.file)}: {escape_markdown(row.error or '')}" for row in failed[:5])
    st.warning(f"**{len(failed):,} session file(s) could not be read** and are not listed:\n\n{listed}",
               icon=":material/warning:")
threshold = config.threshold_tokens
st.caption(f"{len(frame):,} session(s)" + (f" holding “{escape_markdown(query)}”" if query else "")
           + f" · would compress now: at or above {threshold:,} tokens (the sidebar's threshold) · "
           + escape_markdown(summary.describe(missing=False)))  # refresh() named the missing folders
if frame.empty:
    st.info("No session matches." if query else "No sessions in these folders yet.")
    st.stop()
shown = frame[COLUMNS + (["snippet"] if query else [])].copy()
shown["started"] = pd.to_datetime(shown["started"], utc=True, errors="coerce", format="ISO8601").dt.tz_convert(None)
shown[["title", "project"]] = shown[["title", "project"]].fillna("—")
# In a container of its own, named: the layout checks let this list (hundreds of sessions, the figures
# first) scroll its paths sideways.
with st.container(key="sessions_list"):
    table(
        shown, key="sessions_table",
        column_config={"tool": st.column_config.TextColumn("Tool"),
                       "project": st.column_config.TextColumn("Project"),
                       "title": st.column_config.TextColumn("Title", width="medium"),
                       "started": st.column_config.DatetimeColumn("Started (UTC)", format="YYYY-MM-DD HH:mm"),
                       "last_activity": st.column_config.DatetimeColumn("Last activity (UTC)", format="YYYY-MM-DD HH:mm"),
                       "messages": st.column_config.NumberColumn("Messages"),
                       "request_tokens": st.column_config.NumberColumn("Whole request (tokens)"),
                       "compactions": st.column_config.NumberColumn("Compactions"),
                       "would_compress": st.column_config.CheckboxColumn("Would compress now"),
                       "file": st.column_config.TextColumn("File", width="medium"),
                       "snippet": st.column_config.TextColumn("Match", width="large")},
    )
rows = index.rows(query or None)
by_key = {f"{row.file}#{row.session}": row for row in rows}
if kept("sessions_pick") not in by_key:
    set_kept("sessions_pick", next(iter(by_key)))
pick = st.selectbox("Session to open", list(by_key), format_func=lambda key: session_label(by_key[key]),
                    **keep("sessions_pick"))
row = by_key[pick]
in_store = row.file.endswith((".db", ".sqlite", ".sqlite3"))
session = row.session if in_store else None  # a store holds many sessions; a log is one
follow_button, open_button = st.columns(2)
with follow_button:
    if st.button("Follow live", icon=":material/sensors:", width="stretch"):
        follow_on_live_page(row.file, session)
with open_button:
    if st.button("Open in the dashboard", icon=":material/open_in_new:", width="stretch"):
        open_in_dashboard(row.file, session, kind="store" if in_store else None)
