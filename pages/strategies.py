"""Strategies: Hermes beside truncation, observation masking and a Codex-style reset, on one transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from core.formats import dump
from core.render.strategies import strategy_html
from core.strategies import CODEX_USER_TOKENS, DEFAULT_KEEP_LAST
from core.views.strategies import strategy_overview, strategy_tradeoffs, tradeoff_note, upload_errors_note
from dashboard.conversation import conversation_view
from dashboard.runs import (
    HERMES_BUDGET,
    OFFLINE_SUMMARIZER,
    OWN_BUDGET,
    OWN_BUDGET_DEFAULT,
    STRATEGY_BUDGET_MODES,
    STRATEGY_SUMMARIZERS,
    strategy_comparisons,
    strategy_options,
)
from dashboard.sidebar import escape_markdown, keep, page_setup, require_transcript, source_caption
from dashboard.ui import columns_first, metric_row, plain_text, small_table, table

HEADERS = {"messages_after": "messages after", "messages_kept": "original messages kept",
           "tokens_after": "tokens after", "openai_errors": "OpenAI errors", "anthropic_errors": "Anthropic errors",
           "retention_all": "facts kept (all)", "retention_compacted": "facts kept (compacted part)",
           "pairs_ok": "pairs OK", "fits_budget": "fits budget"}
# Left out of the table: the counts behind the shares (the shares say them), the violations behind
# "pairs OK" (a broken pair is spelled out under the table) and the notes (listed under it: a column
# of sentences was cut at the edge of an 800-pixel page).
LEFT_OUT = ["facts_kept", "compacted_facts", "compacted_kept", "pair_violations", "notes"]
# What decides between the strategies first (size, facts, a valid request): on a narrow page the
# rest scrolls out of sight first.
COLUMN_ORDER = ["strategy", "tokens_after", "fits_budget", "retention_all", "retention_compacted", "pairs_ok",
                "openai_errors", "anthropic_errors", "messages_after", "messages_kept"]


st.title("Strategies")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
st.caption(
    strategy_overview() + " Tokens are exact (tiktoken); facts are identifiers that must survive verbatim; "
    "API errors come from the API validity lint."
)

with st.container(border=True):
    a, b = st.columns([3, 2])
    with a:
        st.radio("Summarizer", STRATEGY_SUMMARIZERS, horizontal=True,
                 **keep("strategies_summarizer", OFFLINE_SUMMARIZER))
    with b:
        mode = st.radio("Token budget for truncation", STRATEGY_BUDGET_MODES, horizontal=True,
                        **keep("strategies_budget_mode", HERMES_BUDGET))
    st.checkbox(
        "Hermes with every release", **keep("strategies_every_release", False),
        help="Runs the compressor once per release (six compressions, each with its summary) instead of "
             "only the sidebar's profile: several seconds more on a long log.")
    c, d, e = st.columns(3)
    with c:
        st.number_input("Budget (tokens)", min_value=100, max_value=10_000_000, step=1_000,
                        disabled=mode != OWN_BUDGET, **keep("strategies_budget", OWN_BUDGET_DEFAULT))
    with d:
        st.number_input("Masking: tool outputs kept", min_value=0, max_value=1_000,
                        **keep("strategies_keep_last", DEFAULT_KEEP_LAST),
                        help="Every tool output except the last N becomes a short placeholder.")
    with e:
        st.number_input("Codex-style: user-message tokens", min_value=0, max_value=1_000_000,
                        step=1_000, **keep("strategies_user_tokens", CODEX_USER_TOKENS),
                        help="The user's messages are kept newest first up to this many tokens.")


def overview(comparison: Any, key: str) -> None:
    """The figures, the chart and the table of a comparison."""
    metric_row(key, [
        # The unit in the help, as on Phase savings: "34,016 tokens" wrapped in a metric's width.
        ("Original", f"{comparison.tokens_before:,}", {"help": "exact tokens (tiktoken)"}),
        ("Budget", f"{comparison.budget_tokens:,}",
         {"help": "Exact tokens (tiktoken): what Hermes with the sidebar's profile kept, unless you set your own."}),
        ("Facts in the conversation", f"{comparison.table.attrs.get('facts_total', 0):,}"),
    ])
    with st.container(key=f"{key}_chart"):
        st.html(strategy_html(comparison))
    # Plain HTML: the headings wrap, so every column sits on a 1400-pixel page (a data grid put the last
    # seven past its edge).
    shown = comparison.table.drop(columns=LEFT_OUT)
    small_table(shown[columns_first(shown, COLUMN_ORDER)], f"{key}_table",
                share_columns=("retention_all", "retention_compacted"), headers=HEADERS)
    noted = comparison.table[comparison.table["notes"].astype(bool)]
    if not noted.empty:
        with st.container(key=f"{key}_notes"):
            st.caption("Notes:\n" + "\n".join(f"- **{escape_markdown(name)}**: {escape_markdown(notes)}"
                                               for name, notes in zip(noted["strategy"], noted["notes"], strict=True)))


# The widgets' values as kept (the work ahead of a new upload reads the same).
options = strategy_options()
steps = strategy_comparisons(transcript, settings, options)
first_view = st.empty()
try:
    with st.spinner("Running every strategy…"):
        comparison = next(steps)
    if comparison.left_out:
        # The strategies that summarise the whole log take longest: the others are shown meanwhile.
        left_out = " and ".join(comparison.left_out)
        with first_view.container(), st.spinner(f"{left_out}: summarising the whole log; the rows below are "
                                                 "final…"):
            overview(comparison, "strategies_first")
            comparison = next(steps)
        first_view.empty()
except Exception as exc:  # any failure ends as a readable message
    st.error("The strategies could not run: " + escape_markdown(f"{type(exc).__name__}: {exc}"))
    st.stop()

strategies_table = comparison.table
overview(comparison, "strategies")
st.caption(
    "facts kept (all): every fact of the conversation, the same denominator for every strategy. "
    "facts kept (compacted part): the facts of the messages each strategy dropped or changed. "
    "pairs OK: every tool call has its result, and every result its call. "
    "Anthropic errors for the Codex-style reset are expected: it sends several user messages in a row."
)
inherited = upload_errors_note(comparison)
if inherited:
    st.caption(escape_markdown(inherited))
note = tradeoff_note(comparison)
if note:
    st.info(escape_markdown(note), icon=":material/balance:")
st.markdown("**What each strategy keeps, and what it gives up**")
st.markdown("\n".join(
    f"- **{escape_markdown(row.strategy)}** keeps {escape_markdown(row.keeps)}. Gives up "
    f"{escape_markdown(row.gives_up)}."
    for row in strategy_tradeoffs().itertuples()
))
broken = strategies_table[~strategies_table["pairs_ok"]]
for name, notes in zip(broken["strategy"], broken["notes"], strict=True):
    st.error(escape_markdown(f"{name}: {notes}"))

st.subheader("One strategy's output")
names = strategies_table["strategy"].tolist()
if st.session_state.get("strategies_pick") not in names:
    st.session_state.pop("strategies_pick", None)  # e.g. the masking row was renamed by a new N
picked = st.selectbox("Strategy", names, key="strategies_pick")
run = comparison.run(picked)
notes = strategies_table.loc[strategies_table["strategy"] == picked, "notes"].item()
if notes:
    st.caption("Notes: " + escape_markdown(notes))
# The verdict above the messages, each at the page's full width: side by side, an 800-pixel page cut
# the violations' details and the messages' text.
violations = comparison.violations[picked]
if violations.empty:
    st.success("Valid for both the OpenAI and the Anthropic API.")
else:
    table(violations, key="strategies_violations")
# The output read as the other pages read a conversation: a paged thread, tool calls and results folded.
counter = transcript.counter(settings.encoding)
conversation_view("strategies", run.messages, source_key=("strategies", transcript.key, settings, options, picked),
                  label="output #", tokens=lambda n: counter.count_message(run.messages[n]), badges=run.badges)
if run.summary_text:
    with st.expander("The summary it inserted"):
        plain_text(run.summary_text, "strategies_summary", height=600)
stem = Path(transcript.filename).stem or "conversation"
slug = "".join(ch if ch.isalnum() else "-" for ch in picked.lower()).strip("-")
st.download_button(
    "Download this output (OpenAI chat JSON)",
    dump(run.messages, "openai-chat"),
    file_name=f"{stem}.{slug}.json",
    mime="application/json",
    key="strategies_download",
)
