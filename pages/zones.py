"""Zones: where HEAD, MIDDLE and TAIL fall for the sidebar's parameters, and why."""

from __future__ import annotations

from typing import Any

import streamlit as st

import core.render.charts as charts
from core.inspections.request import TRIGGER_SOURCE_WORDS
from core.render.formatting import integer
from core.views.zones import analyze_zones
from dashboard.drilldown import drilldown_panel, on_chart_click
from dashboard.repair_losses import current_repair_losses, repair_losses_notice
from dashboard.sidebar import (
    escape_markdown,
    last_run_for,
    message_table,
    offline_compression,
    page_setup,
    require_transcript,
    run_view,
    source_caption,
    whole_request,
)
from dashboard.ui import chart, grid_height, metric_row, table


def _drilldown() -> Any:
    """The details of the zone map's messages: the user's last run with these parameters, else the
    offline compression (the same plan, assembled with the offline summary)."""
    from core.views.drilldown import Drilldown

    run = last_run_for(transcript, settings)
    counter = transcript.counter(settings.encoding)
    if run is not None:  # the session's own run: kept with it, never on the shared transcript
        return run_view(run, ("drilldown", settings), lambda: Drilldown(run["result"], counter))
    result = offline_compression(transcript, settings)
    return transcript.memo(("drilldown", settings, "offline"), lambda: Drilldown(result, counter))

st.title("Zones")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
frame = message_table(transcript, settings)
config = settings.config()
# Hermes' host decides on the whole request (the last recorded prompt size when the log has one).
sized, source = whole_request(transcript, settings).trigger_size
how = TRIGGER_SOURCE_WORDS[source]
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

if zones.small_conversation:
    boundaries = [("Head", "—"), ("Middle", "—"), ("Tail", "—"), ("Prune boundary", "—")]
else:
    boundaries = [
        ("Head", f"{zones.head_count:,} msgs", {"help": f"messages 0–{zones.compress_start - 1}"}),
        ("Middle", f"{zones.middle_count:,} msgs", {"help": "replaced by one summary"}),
        ("Tail", f"{zones.tail_count:,} msgs", {"help": "kept verbatim"}),
        ("Prune boundary", integer(zones.prune_boundary),
         {"help": "Phase 1 may shorten tool results and arguments before this message."}),
    ]
metric_row("zones", [
    ("Threshold", integer(zones.threshold_tokens), {"help": zones.explanations[0] if zones.explanations else None}),
    ("Tail budget", integer(zones.tail_token_budget), {"help": f"Walk limit 1.5× = {zones.soft_ceiling:,}"}),
    *boundaries,
])

if not zones.small_conversation:
    repair_losses_notice(current_repair_losses(transcript, settings), "zones")

chart(transcript.memo(("zone-map", settings), lambda: charts.zone_map_figure(zones)), key="zone_map",
      on_select=on_chart_click("zones", "zone_map"))
binned = zones.n_messages > charts.ZONE_MAP_MAX_BARS
st.caption(
    ("Bars: exact tokens per bin of consecutive messages of one zone (one bar per message would be narrower than a "
     "pixel at this length), coloured by zone; " if binned else "Bars: exact tokens per message, coloured by zone; ")
    # Only the marks this chart has: no faded part when Phase 1 cuts nothing, no band when it protects nothing.
    + ("the faded part of a bar is what Phase 1 cuts from it. "
       if (zones.table["tokens"] > zones.table["after_phase1"]).any() else "Phase 1 cuts nothing here. ")
    + ("The grey band is the region Phase 1 leaves alone. "
       if zones.prune_boundary is not None and zones.prune_boundary < zones.n_messages else "")
    + "Lines: the prompt size after each message against the threshold, and the running total from the end "
    "against the tail "
    "budget — both with the estimator that makes the decisions. "
    + ("**Click a bar** to open its first message below." if binned else "**Click a bar** to open that message below.")
)
run = last_run_for(transcript, settings)
where = (f"your last run ({escape_markdown(run['summarizer_label'])})" if run is not None
         else "the offline summary (what Compress & preview runs by default)")
drilldown_panel("zones", _drilldown, input_size=len(transcript.messages),
                hint=f"Click a bar of the zone map, or type a message number, to read it in full: its zone, tokens, "
                     f"what each phase did to it and its tool pair. Phases 3 and 4 come from {where}.")

st.subheader("Why the boundaries fell here")
st.markdown("\n".join(f"- {line}" for line in zones.explanations))

with st.expander("Per-message zones"):
    table(
        zones.table[["index", "role", "zone", "tokens", "budget_tokens", "prompt_so_far", "phase1"]],
        height=grid_height(len(zones.table)),
        column_config={
            "index": st.column_config.NumberColumn("#", width="small", format="localized"),
            "tokens": st.column_config.NumberColumn("tokens (tiktoken)", format="localized"),
            "budget_tokens": st.column_config.NumberColumn(f"tokens ({zones.estimator})", format="localized"),
        },
    )
