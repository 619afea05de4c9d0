"""Phase savings: tokens after each step, from the original conversation to the compressed one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

import core.render.charts as charts
from core.inspections.overview import message_frame
from core.render.formatting import integer, percent, signed
from core.views.drilldown import INPUT
from core.views.run import run_composition
from core.views.savings import PHASE1_STEPS, before_after, phase_savings, touched_messages
from dashboard.drilldown import drilldown_panel, on_row_click, selection_of
from dashboard.sidebar import (
    escape_markdown,
    keep,
    last_run_for,
    message_table,
    offline_compression,
    page_setup,
    require_transcript,
    run_view,
    source_caption,
)
from dashboard.ui import chart, delta_or_none, metric_row, small_table, table

STEP_KEY = "savings_step"
T = TypeVar("T")


def _pick_step() -> None:
    """The waterfall's on_select: the clicked bar's step (its customdata) lists its messages."""
    for point in selection_of("waterfall").get("points", []):
        key = point.get("customdata") if isinstance(point, dict) else None
        if isinstance(key, list | tuple):
            key = key[0] if key else None
        if isinstance(key, str):
            st.session_state[STEP_KEY] = key
            return


def _drilldown() -> Any:
    from core.views.drilldown import Drilldown

    return memo(("drilldown",), lambda: Drilldown(result, counter))


def memo(key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """A result of this page: kept with the user's run when it shows one (its session's own, under the
    run's unique id), on the transcript with every input in its key when it shows the offline summary."""
    if run is not None:
        return run_view(run, ("savings", settings, *key), compute)
    return transcript.memo(("savings", settings, "offline", *key), compute)

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
else:
    with st.spinner("Writing the offline summary…"):
        result = offline_compression(transcript, settings)
    origin = "the built-in offline extractive summary (run **Compress & preview** to use a model)"
config = settings.config()
savings = memo((), lambda: phase_savings(transcript.messages, config, counter, result,
                                         plan=transcript.prune_plan(config)))

st.caption(f"The summary step uses {origin}.")
first, last = savings.steps[0], savings.steps[-1]
phase1_saved = -sum(savings.step(key).exact_delta for key in PHASE1_STEPS)
share = (first.exact_tokens - last.exact_tokens) / first.exact_tokens if first.exact_tokens else 0.0
final_change = last.exact_tokens - first.exact_tokens
metric_row("savings", [
    ("Original", integer(first.exact_tokens), {"help": "exact tokens (tiktoken)"}),
    ("Saved by Phase 1", integer(phase1_saved), {"help": "without any LLM call"}),
    ("Final", integer(last.exact_tokens), {"delta": delta_or_none(final_change, signed(final_change)),
                                           "delta_color": "inverse"}),
    ("Saved overall", percent(share)),
])

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
waterfall = memo(("waterfall", estimate), lambda: charts.waterfall_figure(savings, estimate=estimate))
chart(waterfall, key="waterfall", on_select=_pick_step)
st.caption("**Click a bar** to list the messages that step touched, then a message to read it in full.")

# The table counts as the chart does, in one unit, and is plain HTML: the step, its change and what it
# did wrap at any width (in a data grid, an 800-pixel page cut the notes; both units side by side put
# them out of sight). The messages each step touched are listed under it, by the step's picker.
unit = "hermes" if estimate else "exact"
steps_table = savings.table[["step", f"{unit}_tokens", f"{unit}_change", "messages_touched", "note"]]
small_table(steps_table, "savings_steps",
            headers={f"{unit}_tokens": f"tokens ({'hermes estimate' if estimate else 'tiktoken'})",
                     f"{unit}_change": "change", "messages_touched": "messages", "note": "what it did"})

step_keys = [step.key for step in savings.steps if step.messages]
picked_key = st.session_state.get(STEP_KEY)
if step_keys:
    labels = {step.key: f"{step.label} ({len(step.messages):,} messages)" for step in savings.steps if step.messages}
    if picked_key not in labels:
        picked_key = step_keys[0]
    st.session_state[STEP_KEY] = picked_key
    picked_key = st.selectbox("Messages of the step", list(labels), format_func=labels.get, key=STEP_KEY)
    step = savings.step(picked_key)
    touched_rows = frame.iloc[step.messages][["index", "role", "tool", "tokens", "preview"]]
    numbers = [int(i) for i in touched_rows["index"]]
    table(touched_rows, key="step_messages", height=min(300, 35 * (len(touched_rows) + 1) + 3),
          on_select=on_row_click("savings", "step_messages", lambda row: (INPUT, numbers[row])),
          selection_mode="single-row",
          column_config={"index": st.column_config.NumberColumn("#", width="small", format="localized"),
                         "preview": st.column_config.TextColumn("text", width="large")})
drilldown_panel("savings", _drilldown, input_size=len(transcript.messages),
                hint="Click a message of the step above (or type a number) to read it in full.")

st.subheader("Before and after")
st.caption("Exact tokens of the conversation before and after the run, the summary as its own segment.")
role_tab, tool_tab, category_tab = st.tabs(["By role", "By tool", "By category"])
for tab, by, colors in (
    (role_tab, "role", charts.ROLE_COLORS),
    (tool_tab, "tool", None),
    (category_tab, "category", charts.CATEGORY_COLORS),
):
    with tab:
        final_frame = memo(("final-frame",), lambda: message_frame(savings.final, counter))
        compared = memo(
            ("before-after", by),
            # Roles and categories show the summary as its own segment; tools have no summary share.
            lambda by=by, final_frame=final_frame: (
                before_after(savings.original, savings.final, counter, "tool", original_frame=frame,
                             final_frame=final_frame)
                if by == "tool" else run_composition(frame, result, counter, by, after_frame=final_frame)
            ),
        )
        if compared.empty:
            st.info("Nothing to compare.")
            continue
        left, right = st.columns([3, 2])
        figure = memo(
            ("before-after-figure", by),
            lambda by=by, compared=compared, colors=colors: charts.before_after_figure(compared, by, colors=colors),
        )
        with left:
            chart(figure, key=f"before_after_{by}")
        with right:
            table(compared, key=f"before_after_table_{by}")

st.subheader("Messages Phase 1 touched")
touched = memo(("touched",), lambda: touched_messages(savings, frame, counter))
if touched.empty:
    st.info("Phase 1 leaves every message as it is with these parameters.")
else:
    table(
        touched,
        height=min(360, 35 * (len(touched) + 1) + 3),
        column_config={"index": st.column_config.NumberColumn("#", width="small", format="localized")},
        key="touched_table",
    )
