"""Zones: where HEAD, MIDDLE and TAIL fall for the sidebar's parameters, and why."""

from __future__ import annotations

import streamlit as st

from core.analysis import charts
from core.analysis.zones import analyze_zones
from pages._shared import message_table, page_setup, require_transcript, source_caption, whole_request

st.title("Zones")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
frame = message_table(transcript, settings)
config = settings.config()
# Hermes' host decides on the whole request (the last recorded prompt size when the log has one).
sized, source = whole_request(transcript, settings).trigger_size
how = "the last prompt size the log recorded" if source == "recorded" else "the whole-request estimate"
zones = transcript.memo(
    ("zones", settings, sized),
    lambda: analyze_zones(transcript.messages, config, frame["tokens"].tolist(),
                          transcript.counter(settings.encoding).count_message, plan=transcript.prune_plan(config),
                          trigger_tokens=sized),
)
extra = "" if sized == zones.prompt_tokens else f" (the messages alone: {zones.prompt_tokens:,})"
if zones.would_compress:
    first = (f"; the messages alone first reach it at message {zones.first_trigger_index}"
             if zones.first_trigger_index is not None else "")
    st.success(
        f"**Compression would trigger.** {how.capitalize()} is {sized:,}{extra}, at or above the threshold "
        f"of {zones.threshold_tokens:,}{first}."
    )
else:
    st.info(
        f"**Compression would not trigger on its own.** {how.capitalize()} is {sized:,}{extra}, "
        f"below the threshold of {zones.threshold_tokens:,} "
        f"({sized / max(zones.threshold_tokens, 1):.0%} of it). The preview below shows what a "
        "manual /compress would do."
    )

cols = st.columns(6)
cols[0].metric("Threshold", f"{zones.threshold_tokens:,}", help=zones.explanations[0] if zones.explanations else None)
cols[1].metric("Tail budget", f"{zones.tail_token_budget:,}", help=f"Walk limit 1.5× = {zones.soft_ceiling:,}")
if zones.small_conversation:
    cols[2].metric("Head", "—")
    cols[3].metric("Middle", "—")
    cols[4].metric("Tail", "—")
    cols[5].metric("Prune boundary", "—")
else:
    cols[2].metric("Head", f"{zones.head_count:,} msgs", help=f"messages 0–{zones.compress_start - 1}")
    cols[3].metric("Middle", f"{zones.middle_count:,} msgs", help="replaced by one summary")
    cols[4].metric("Tail", f"{zones.tail_count:,} msgs", help="kept verbatim")
    cols[5].metric("Prune boundary", f"{zones.prune_boundary:,}",
                   help="Phase 1 may shorten tool results and arguments before this message.")

st.plotly_chart(transcript.memo(("zone-map", settings), lambda: charts.zone_map_figure(zones)), width="stretch", theme=None,
                key="zone_map")
st.caption(
    "Bars: exact tokens per message, coloured by zone; the faded part of a bar is what Phase 1 cuts from it; the "
    "grey band is the region Phase 1 leaves alone. Lines: the prompt size after each message against the threshold, and the "
    "running total from the end against the tail budget — both with the estimator that makes the decisions."
)

st.subheader("Why the boundaries fell here")
st.markdown("\n".join(f"- {line}" for line in zones.explanations))

with st.expander("Per-message zones"):
    st.dataframe(
        zones.table[["index", "role", "zone", "tokens", "budget_tokens", "prompt_so_far", "phase1"]],
        hide_index=True,
        width="stretch",
        height=380,
        column_config={
            "index": st.column_config.NumberColumn("#", width="small"),
            "tokens": st.column_config.NumberColumn("tokens (tiktoken)"),
            "budget_tokens": st.column_config.NumberColumn(f"tokens ({zones.estimator})"),
            "prompt_so_far": st.column_config.NumberColumn("prompt so far"),
            "phase1": st.column_config.TextColumn("Phase 1"),
        },
    )
