"""Parameter sweep: final size and savings across threshold x summary ratio, without any summary call."""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from core.inspections.request import TRIGGER_SOURCE_WORDS
from core.render.sweep import sweep_heatmap
from core.views.sweep import (
    DEFAULT_RATIOS,
    DEFAULT_THRESHOLDS,
    best_cells,
    prepare_sweep,
    sweep,
    uniform_cells,
)
from dashboard.sidebar import (
    escape_markdown,
    keep,
    offline_compression,
    page_setup,
    require_transcript,
    source_caption,
    trigger_advice,
    whole_request,
)
from dashboard.ui import chart, columns_first, table

FINAL = "Final tokens"
SAVINGS = "Savings %"
FIRST_CHOICES = (0, 1, 2, 3, 5, 8)

st.title("Parameter sweep")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
st.caption(
    "Every cell runs the compressor's trigger test, Phase 1 and the zone boundaries with that cell's threshold "
    "and summary target ratio (the other parameters come from the sidebar). No summary is written: **the "
    "summary is assumed to be exactly its budget** (20% of the summarised turns, at least 2,000 tokens, at most "
    "5% of the window), so read each cell as the compressor's intended result. A real summary may be shorter, "
    "or up to 1.3x longer."
)

a, b, c = st.columns([2, 2, 2])
with a:
    metric = st.radio("Colour by", [FINAL, SAVINGS], horizontal=True, **keep("sweep_metric", FINAL))
with b:
    firsts = sorted({*FIRST_CHOICES, settings.protect_first_n})
    first = st.selectbox("Protect first N", firsts, index=firsts.index(settings.protect_first_n),
                         key="sweep_first")
with c:
    respect = st.checkbox("Only where compression triggers", **keep("sweep_respect_trigger", True),
                          help="Cells whose threshold the conversation never reaches stay uncompressed, as in a "
                               "live session. Untick to see what a forced /compress would do.")

current_threshold = round(settings.threshold_percent, 4)
current_ratio = round(min(max(settings.summary_target_ratio, 0.10), 0.80), 4)
thresholds = tuple(sorted({*DEFAULT_THRESHOLDS, current_threshold}))
ratios = tuple(sorted({*DEFAULT_RATIOS, current_ratio}))
config = settings.config()
# Each cell's trigger sees what Hermes' host measures: the whole request (or the last recorded prompt).
trigger_tokens, trigger_source = whole_request(transcript, settings).trigger_size
try:
    base = transcript.memo(("sweep-base", settings.token_estimator, settings.model),
                           lambda: prepare_sweep(transcript.messages, settings.token_estimator, settings.model,
                                                 plan=transcript.prune_plan(config)))

    def timed_grid(head: int) -> tuple[Any, float]:
        # One head size's grid at a time, the one shown: each other is computed when it is chosen. Kept
        # with the time it took, which the caption gives (not the time to read it back).
        def compute() -> tuple[Any, float]:
            started = time.perf_counter()
            cells = sweep(base, config, thresholds=thresholds, ratios=ratios, protect_first_ns=[head],
                          respect_trigger=respect, trigger_tokens=trigger_tokens)
            return cells, time.perf_counter() - started

        return transcript.memo(("sweep", settings, thresholds, ratios, head, respect, trigger_tokens), compute)

    shown, elapsed = timed_grid(first)
    own = shown if first == settings.protect_first_n else timed_grid(settings.protect_first_n)[0]
except Exception as exc:  # any failure ends as a readable message
    st.error("The sweep could not run: " + escape_markdown(f"{type(exc).__name__}: {exc}"))
    st.stop()

metric_column = "final_tokens" if metric == FINAL else "savings_pct"
same = uniform_cells(shown, metric_column, protect_first_n=first)
if same:
    # One value everywhere: a colour scale would only suggest differences that are not there.
    st.info(escape_markdown(same))
    if set(shown["outcome"]) == {"not triggered"}:
        trigger_advice(trigger_tokens, settings, "sweep_option")
else:
    fig = sweep_heatmap(shown, metric_column, protect_first_n=first)
    column, row = ratios.index(current_ratio), thresholds.index(current_threshold)
    fig.add_shape(type="rect", xref="x", yref="y", x0=column - 0.5, x1=column + 0.5, y0=row - 0.5, y1=row + 0.5,
                  line={"color": "#c0392b", "width": 3})
    chart(fig, key="sweep_heatmap")
st.caption(
    f"{len(shown):,} cells ({len(thresholds)} thresholds × {len(ratios)} ratios) with the first {first} "
    f"message(s) protected, computed in {elapsed:.2f} s (another head size is computed when chosen above)."
    + ("" if same else f" The red frame is the sidebar's setting (threshold {current_threshold:.2f}, ratio "
                       f"{current_ratio:.2f}).")
    + f" Before compression: {int(shown['tokens_before'].iloc[0]):,} tokens of messages"
    + f" ({settings.token_estimator}); the trigger tests {trigger_tokens:,}, "
    + f"{TRIGGER_SOURCE_WORDS[trigger_source]}."
)

# The sidebar's own cell, compressed for real: the figure every other page shows for these parameters.
current = own[(own["threshold_percent"] == current_threshold) & (own["summary_target_ratio"] == current_ratio)]
if len(current) and current["outcome"].iloc[0] != "not triggered":
    real = offline_compression(transcript, settings)
    if real.assembly is not None:
        planned = int(current["final_tokens"].iloc[0])
        st.caption(
            f"The sidebar's setting, planned here at **{planned:,}** tokens with the summary at its budget, ends at "
            f"**{int(real.assembly.tokens_after):,}** tokens ({settings.token_estimator}) once the offline summary "
            "is actually written: the figure Compress & preview and Release comparison show for it."
        )

forced = shown[shown["tail_forced_small"]]
if len(forced):
    st.info(
        f"In {len(forced)} cell(s) the tail walk's limit (1.5 x the tail budget) holds everything after the head, "
        "so the walk reaches the head and Hermes falls back to a minimal tail (the last 3 messages, stretched "
        "back to the newest user message): a bigger tail budget then keeps *less*. This is the reference "
        "behaviour, not an artefact of the sweep."
    )

untriggered = shown[shown["outcome"] == "not triggered"]
if len(untriggered) == len(shown):
    st.info("Untick **Only where compression triggers** to see what a forced /compress would do, or use one of "
            "the changes above to make the conversation reach a threshold.")

# Each cell's parameters, then its result, then how it came about: at 800 pixels the columns past the
# eighth scroll out of sight, and the result was the ninth.
RESULT_FIRST = ["threshold_percent", "summary_target_ratio", "final_tokens", "savings_pct"]
st.subheader("Smallest results")
table(
    best_cells(shown, top=8)[[*RESULT_FIRST, "threshold_tokens", "tail_token_budget", "compress_start",
                              "compress_end", "summary_budget", "messages_after"]],
    key="sweep_best",
    column_config={"savings_pct": st.column_config.NumberColumn("savings %", format="%.1f")},
)
with st.expander("Every cell of this grid"):
    table(shown, key="sweep_all", column_order=columns_first(shown, ["protect_first_n", *RESULT_FIRST, "outcome"]),
          column_config={"savings_pct": st.column_config.NumberColumn("savings %", format="%.1f")})
