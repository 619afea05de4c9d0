"""Phase savings: tokens after each step, from the original conversation to the compressed one."""

from __future__ import annotations

import streamlit as st

from core.analysis import charts
from core.analysis.overview import message_frame
from core.analysis.savings import PHASE1_STEPS, before_after, phase_savings, touched_messages
from pages._shared import (
    escape_markdown,
    keep,
    last_run_for,
    message_table,
    offline_compression,
    page_setup,
    require_transcript,
    source_caption,
)

st.title("Phase savings")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
frame = message_table(transcript, settings)
counter = transcript.counter(settings.encoding)

run = last_run_for(transcript, settings)
if run is not None:
    result = run["result"]
    origin = f"your last run on **Compress & preview** ({escape_markdown(run['summarizer_label'])})"
    memo_key = ("savings", settings, run["run_id"])
else:
    with st.spinner("Writing the offline summary…"):
        result = offline_compression(transcript, settings)
    origin = "the built-in offline extractive summary (run **Compress & preview** to use a model)"
    memo_key = ("savings", settings, "offline")
config = settings.config()
savings = transcript.memo(
    memo_key, lambda: phase_savings(transcript.messages, config, counter, result, plan=transcript.prune_plan(config))
)

st.caption(f"The summary step uses {origin}.")
first, last = savings.steps[0], savings.steps[-1]
phase1_saved = -sum(savings.step(key).exact_delta for key in PHASE1_STEPS)
c1, c2, c3, c4 = st.columns(4)
c1.metric("Original", f"{first.exact_tokens:,}", help="exact tokens (tiktoken)")
c2.metric("Saved by Phase 1", f"{phase1_saved:,}", help="without any LLM call")
c3.metric("Final", f"{last.exact_tokens:,}", delta=f"{last.exact_delta:+,}", delta_color="inverse")
share = (first.exact_tokens - last.exact_tokens) / first.exact_tokens if first.exact_tokens else 0.0
c4.metric("Saved overall", f"{share:.0%}")

if savings.outcome == "too_small":
    st.info("The conversation is too short to compress: the compressor returns it unchanged, so every step is zero.")
elif savings.outcome == "nothing_to_compress":
    st.info("The middle is empty, so only Phase 1 changes anything.")
elif savings.outcome == "aborted":
    st.warning("The summary failed and abort on failure is on: the conversation would stay as it is.")
elif savings.outcome == "fallback":
    reason = escape_markdown(result.failure_reason or "no summarizer")
    st.warning(f"The summary failed ({reason}); the profile's fallback summary stands in for it.")

units = st.radio("Count with", ["tiktoken (exact)", "hermes estimate"], horizontal=True,
                 **keep("waterfall_units", "tiktoken (exact)"))
estimate = units.startswith("hermes")
waterfall = transcript.memo((*memo_key, "waterfall", estimate), lambda: charts.waterfall_figure(savings, estimate=estimate))
st.plotly_chart(waterfall, width="stretch", key="waterfall")

table = savings.table
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={
        "step": st.column_config.TextColumn("step", width="medium"),
        "exact_tokens": st.column_config.NumberColumn("tokens (tiktoken)"),
        "exact_change": st.column_config.NumberColumn("change"),
        "hermes_tokens": st.column_config.NumberColumn("hermes estimate"),
        "hermes_change": st.column_config.NumberColumn("change (hermes)"),
        "messages_touched": st.column_config.NumberColumn("messages"),
        "which": st.column_config.TextColumn("which messages", width="medium"),
    },
    key="savings_table",
)

st.subheader("Before and after")
role_tab, tool_tab, category_tab = st.tabs(["By role", "By tool", "By category"])
for tab, by, colors in (
    (role_tab, "role", charts.ROLE_COLORS),
    (tool_tab, "tool", None),
    (category_tab, "category", charts.CATEGORY_COLORS),
):
    with tab:
        final_frame = transcript.memo((*memo_key, "final-frame"), lambda: message_frame(savings.final, counter))
        compared = transcript.memo(
            (*memo_key, "before-after", by),
            lambda by=by, final_frame=final_frame: before_after(
                savings.original, savings.final, counter, by, original_frame=frame, final_frame=final_frame
            ),
        )
        if compared.empty:
            st.info("Nothing to compare.")
            continue
        left, right = st.columns([3, 2])
        figure = transcript.memo(
            (*memo_key, "before-after-figure", by),
            lambda by=by, compared=compared, colors=colors: charts.before_after_figure(compared, by, colors=colors),
        )
        left.plotly_chart(figure, width="stretch",
                          key=f"before_after_{by}")
        right.dataframe(compared, hide_index=True, width="stretch")

st.subheader("Messages Phase 1 touched")
touched = transcript.memo((*memo_key, "touched"), lambda: touched_messages(savings, frame, counter))
if touched.empty:
    st.info("Phase 1 leaves every message as it is with these parameters.")
else:
    st.dataframe(
        touched,
        hide_index=True,
        width="stretch",
        height=min(360, 35 * (len(touched) + 1) + 3),
        column_config={"index": st.column_config.NumberColumn("#", width="small")},
        key="touched_table",
    )
