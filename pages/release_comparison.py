"""Release comparison: what upgrading (or pinning) Hermes changes for this session."""

from __future__ import annotations

import streamlit as st

from core.profiles import PROFILES
from core.render.formatting import human_column, integer, whole_when_whole
from core.render.releases import release_zones_html
from core.views.releases import is_release_difference
from dashboard.runs import (
    DEFAULT_RELEASE_FAILURE,
    DEFAULT_RELEASE_OPTIONS,
    FAILING_SUMMARIZER,
    RELEASE_SUMMARIZERS,
    ReleaseOptions,
    release_comparison,
)
from dashboard.sidebar import (
    RELEASES,
    escape_markdown,
    keep,
    kept,
    page_setup,
    require_transcript,
    source_caption,
)
from dashboard.ui import columns_first, plain_text, small_table, table

COMPARED = ["threshold_tokens", "triggers", "outcome", "head", "middle", "tail", "messages_after", "tokens_after",
            "summary_layout", "repairs", "focus", "cooldown_s"]
# How each release writes its summary: a table of its own under the figures (in one table, these text
# columns were past the right edge of a 1400-pixel page).
WRITING = ["summary_layout", "repairs", "focus", "cooldown_s"]

st.title("Release comparison")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
st.caption(
    "The same conversation and sidebar parameters compressed by every Hermes release: thresholds, zones, the messages "
    "that move between zones, tokens after, the summary message and the tool-pair repairs. Each row is a real "
    "compression by that release, with the same summarizer and the same date for all."
)

# One under the other: side by side, a third of an 800-pixel page cut the checkbox's label.
choice = st.radio("Summarizer", RELEASE_SUMMARIZERS, horizontal=True,
                  **keep("releases_summarizer", DEFAULT_RELEASE_OPTIONS.summarizer))
failure = ""
if choice == FAILING_SUMMARIZER:
    from core.summarizers.failing import FAILURE_MODES

    failure = st.selectbox("How every summary call fails", list(FAILURE_MODES),
                           format_func=lambda k: FAILURE_MODES[k].label, **keep("releases_failure", DEFAULT_RELEASE_FAILURE),
                           help="Each release classifies the failure its own way: a fallback summary or an abort, "
                                "and the cooldown before it tries again.")
force = st.checkbox("Compress even below the threshold", **keep("releases_force", DEFAULT_RELEASE_OPTIONS.force),
                    help="Like /compress. The table still says whether each release's threshold is reached.")

comparison = release_comparison(transcript, settings, ReleaseOptions(choice, failure, force))
releases_table = comparison.table
differs = [column for column in COMPARED if is_release_difference(releases_table, column)]
sidebar_release = kept("profile")


def _marks() -> dict[tuple[int, str], str]:
    """The cells to point out, by row and column: a value that differs from the release before it,
    and the sidebar's release (in bold)."""
    marks = {}
    for index, row in releases_table.iterrows():
        for column in releases_table.columns:
            if index > 0 and column in differs and str(releases_table.at[index - 1, column]) != str(row[column]):
                marks[(index, column)] = "background-color: rgba(232, 131, 58, 0.22)"
            if column == "release" and row[column] == sidebar_release:
                marks[(index, column)] = "font-weight: bold"
    return marks


marks = _marks()


if differs:
    st.markdown("**What differs between the releases here:** " + ", ".join(human_column(c) for c in differs) + ".")
else:
    st.success("Every release treats this conversation the same way with these parameters.")
# The outcome and its size right after the threshold, the zones that explain them after.
RESULT_FIRST = ["release", "threshold_tokens", "triggers", "outcome", "tokens_after", "savings_pct", "messages_after"]
shown_columns = releases_table.drop(columns=WRITING)
# The same count in every row says nothing about the releases; said once under the table, it leaves the
# others room (a 1400-pixel page cut the thirteenth column).
same_before = releases_table["tokens_before"].nunique() == 1
shown_order = [column for column in columns_first(shown_columns, RESULT_FIRST)
               if not (same_before and column == "tokens_before")]
# Plain HTML, its headings wrapped: every column sits on an 800-pixel page (a data grid put the zones'
# boundaries past its edge, to be scrolled to sideways). The share saved is drawn with a bar.
figures = shown_columns[shown_order].assign(savings_pct=shown_columns["savings_pct"] / 100)
small_table(figures, "releases_table", cell_styles=marks, share_columns=("savings_pct",),
            headers={"threshold_tokens": "threshold", "triggers": "reaches it", "compress_start": "middle from",
                     "compress_end": "tail from", "messages_after": "messages after",
                     "tokens_before": "tokens before", "tokens_after": "tokens after", "savings_pct": "saved"})
st.caption((f"Tokens before: {integer(int(releases_table['tokens_before'].iloc[0]))} for every release. "
            if same_before else "") + "Bold: the sidebar's release; shaded: what differs from the release above.")
st.markdown("**How each release writes the summary message**")
# Plain HTML: its text wraps at any width (in a data grid, an 800-pixel page showed two of its five
# columns, the others only by scrolling sideways).
writing = releases_table[["release", *WRITING]].copy()
writing["cooldown_s"] = whole_when_whole(writing["cooldown_s"])
small_table(writing, "releases_writing", cell_styles=marks,
            headers={"summary_layout": "summary message", "repairs": "tool-pair repair",
                     "focus": "focus of the summary", "cooldown_s": "cooldown (s)"})
st.caption("Cooldown: how long the release waits before it calls the summarizer again after a failed summary "
           "(0: none).")

st.subheader("What changes from one release to the next")
if comparison.explanations:
    st.markdown("\n".join(f"- {escape_markdown(line)}" for line in comparison.explanations))
else:
    st.caption("Nothing: each release gives the same zones, output size and summary layout here.")

st.markdown("**Where each release puts every message**")
st.html(release_zones_html(comparison))

st.subheader("Messages that move between zones")
left, right = st.columns(2)
# By default: from the sidebar's release (or the one before the newest) to the newest.
default_old = sidebar_release if sidebar_release in PROFILES and sidebar_release != RELEASES[0] else RELEASES[1]
older = left.selectbox("From", list(PROFILES), index=list(PROFILES).index(default_old), key="releases_from")
newer = right.selectbox("To", list(PROFILES), index=len(PROFILES) - 1, key="releases_to")
moves = comparison.moves(older, newer)
if moves.empty:
    st.caption(f"No message changes zone between {older} and {newer}.")
else:
    table(moves, key="releases_moves")

with st.expander("Each release's summary message"):
    tabs = st.tabs(list(PROFILES))
    for tab, run in zip(tabs, comparison.runs, strict=True):
        with tab:
            if run.result.assembly is not None and run.result.assembly.summary_text:
                st.caption(run.summary_layout)
                plain_text(run.result.assembly.summary_text, f"releases_summary_{run.release}", height=600)
            else:
                st.caption(f"No summary: {run.outcome.replace('_', ' ')}.")
