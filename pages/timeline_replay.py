"""Timeline replay: the session as the agent lived it, with compression firing along the way."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core.render.charts import line_figure
from core.render.formatting import whole_when_whole
from core.render.html_tables import before_after
from core.render.replay import replay_caption, replay_figure
from core.views.replay import (
    compactions_table,
    logged_prompt_tokens,
    real_compactions,
    summary_evolution,
)
from dashboard.runs import FAILING_SUMMARIZER, NO_SUMMARIZER, OFFLINE_SUMMARIZER
from dashboard.sidebar import (
    escape_markdown,
    keep,
    page_setup,
    replay_run,
    require_transcript,
    source_caption,
    trigger_advice,
    whole_request,
)
from dashboard.ui import chart, grid_height, metric_row, plain_text, small_table, table

BY_RECORDED = "Recorded prompt sizes where the log has them"
BY_ESTIMATE = "The whole-request estimate"
# Up to this many compactions the table is plain HTML; more go in a data grid (see below).
COMPACTIONS_AS_HTML = 30


def _summarizer(choice: str, failure: str) -> Any:
    if choice == NO_SUMMARIZER:
        return None
    from core.summarizers.factory import make_summarizer

    if choice == FAILING_SUMMARIZER:
        return make_summarizer("failing", failure=failure)
    return make_summarizer("extractive")


st.title("Timeline replay")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
request = whole_request(transcript, settings)
st.caption(
    "The conversation is replayed message by message. Before every assistant message the request is sized as "
    f"the agent's host sizes it: the whole request ({settings.token_estimator} estimator: the messages, plus the "
    "system prompt, tool schemas, injected context and unrecorded overhead the log implies), or the prompt size "
    "the log recorded for it. When it reaches the threshold, one compressor (kept for the whole replay, so "
    "summaries are updated iteratively and anti-thrashing and cooldowns apply) compresses the context, and the "
    "replay continues from the compressed context. The recorded sizes are the real agent's, never compressed by "
    "Hermes: after the first compaction every request is the replayed conversation's own size (its messages, "
    "plus the overhead beyond them as it stood at that compaction). `context-lens replay FILE --json` prints "
    "the same figures."
)

left, middle, right = st.columns([2, 2, 1])
with left:
    choice = st.radio("Summarizer", [OFFLINE_SUMMARIZER, NO_SUMMARIZER, FAILING_SUMMARIZER], horizontal=True,
                      **keep("replay_summarizer", OFFLINE_SUMMARIZER))
    failure = ""
    if choice == FAILING_SUMMARIZER:
        from core.summarizers.failing import FAILURE_MODES

        failure = st.selectbox("How every summary call fails", list(FAILURE_MODES),
                               format_func=lambda k: FAILURE_MODES[k].label, **keep("replay_failure", "timeout"))
with middle:
    if request.has_recorded_sizes:
        sizing = st.radio(
            "Size each request by", [BY_RECORDED, BY_ESTIMATE], **keep("replay_sizing", BY_RECORDED),
            help="Hermes' loop compresses on the prompt size the provider reported (last_prompt_tokens) and falls "
                 "back to its own estimate; the log's recorded sizes stand in for the first.",
        )
    else:
        sizing = BY_ESTIMATE
        st.caption("The log records no prompt sizes: every request is sized by the whole-request estimate.")
with right:
    seconds = st.number_input(
        "Seconds between turns", min_value=0, max_value=3_600, step=10, **keep("replay_seconds", 30),
        help="Simulated time per assistant turn; it decides when a summary-failure cooldown ends (30, 60 or 600 s; "
             "from v0.19.0 timeouts back off 60, 300, then 900 s).",
    )

try:
    with st.spinner("Replaying the conversation…"):
        key = f"{choice}:{failure}" if failure else choice  # the same key as the pages sharing the offline replay
        result = replay_run(transcript, settings, key, lambda: _summarizer(choice, failure), int(seconds),
                            use_recorded=sizing == BY_RECORDED)
except Exception as exc:  # any failure ends as a readable message
    st.error("The replay could not run: " + escape_markdown(f"{type(exc).__name__}: {exc}"))
    st.stop()

compressed = result.compressed
final = int(result.points["prompt_after"].iloc[-1]) if len(result.points) else 0
errors = request.estimate_errors()
if errors["turns"]:
    estimate_error = (f"{errors['estimate']:.1f} %",
                      {"help": f"Mean absolute error of the whole-request estimate against the {errors['turns']} "
                               "prompt sizes the log recorded after its first, each turn estimated from the turns "
                               f"before it (worst turn {errors['estimate_max']:.1f} %; the messages alone: "
                               f"{errors['messages_only']:.1f} %)"
                               + (f"; the counted tokens are scaled by {errors['factor']:.2f}, the log's own "
                                  "ratio of recorded to counted growth." if errors["fitted"] else ".")})
else:
    estimate_error = ("n/a", {"help": "The log records no prompt sizes to compare the estimate with."})
metric_row("replay", [
    ("Assistant turns", f"{len(result.points):,}"),
    ("Compactions", f"{len(compressed):,}",
     {"help": f"{len(result.compactions)} compress() call(s) in all, including ones that changed nothing."}),
    ("Peak prompt", f"{result.peak_prompt:,}", {"help": f"threshold {result.threshold_tokens:,}"}),
    ("Last prompt", f"{final:,}"),
    ("Estimate error", *estimate_error),
])

for warning in result.warnings:
    st.warning(escape_markdown(warning))
if not result.compactions:
    st.info(
        f"The prompt never reached the threshold ({result.threshold_tokens:,} tokens; the peak was "
        f"{result.peak_prompt:,}), so nothing was compressed."
    )
    if not trigger_advice(result.peak_prompt, settings, "replay_option"):
        st.caption("Nothing the sidebar offers brings the threshold down to that peak.")

conversation = transcript.conversation
events = real_compactions(conversation)
logged = logged_prompt_tokens(conversation)
show_log = False
if len(events) or len(logged):
    show_log = st.checkbox(
        "Show what the log itself recorded (its own compactions and prompt sizes)",
        **keep("replay_show_log", True),
    )
estimated = request.turn_table() if show_log and len(logged) else None
drawn = (result, events if show_log else None, logged if show_log else None, estimated)
chart(replay_figure(*drawn), key="replay_chart")
st.caption(replay_caption(*drawn))
if estimated is not None:
    with st.expander("Recorded and estimated prompt sizes, turn by turn"):
        table(estimated, key="replay_sizes")

if result.compactions:
    st.subheader("Compactions")
    # Plain HTML: the headings wrap, so the columns sit on a 1400-pixel page (a data grid put the last
    # five past its edge); each before and after shares a column, so they sit on an 800-pixel page too.
    # A long replay's many rows go in a grid, which scrolls within its height and keeps its headings in view.
    compactions = compactions_table(result)
    # Only a call that would not shrink the prompt says why. The reasons are sentences: listed under the
    # table (a column of them made rows taller than a screen and the table wider than 800 pixels).
    explained = compactions.dropna(subset=["why"])
    compactions = compactions.drop(columns=["why"])
    labels = {"compaction": "#", "message_index": "at message", "savings_pct": "saved",
              "tail_tokens": "protected tail tokens", "ineffective_strikes": "anti-thrash strikes",
              "cooldown_s": "cooldown (s)"}
    if len(compactions) <= COMPACTIONS_AS_HTML:
        compactions["savings_pct"] = compactions["savings_pct"] / 100
        compactions["cooldown_s"] = whole_when_whole(compactions["cooldown_s"])
        small_table(before_after(compactions, ("tokens", "messages")), "replay_compactions",
                    share_columns=("savings_pct",),
                    headers=labels | {"tokens": "tokens before → after", "messages": "messages before → after"})
    else:
        table(compactions, key="replay_compactions", height=grid_height(len(compactions)),
              column_config={**labels, "savings_pct": st.column_config.NumberColumn("saved", format="%.1f %%")})
    if not explained.empty:
        reasons = "\n".join(f"- **#{number}** (at message {index}): {escape_markdown(why)}" for number, index, why
                            in zip(explained["compaction"], explained["message_index"], explained["why"], strict=True))
        with st.container(key="replay_why"):
            st.caption("Why no compaction:\n" + reasons)
    st.caption("Saved: (tokens before − tokens after) / tokens before, of the row. Messages summarised: the messages "
               "of the context folded into the summary, an earlier summary included.")

evolution = summary_evolution(result)
if len(evolution):
    st.subheader("How the summary evolved")
    # 260 px: at 180 the axis title was cut and the tick labels ran into each other.
    chart(line_figure(evolution, "compaction", ["chars"], x_title="compaction", y_title="characters"),
          key="replay_summary_chars")
    labels = [f"#{c} at message {m} ({o}, {n:,} characters)" for c, m, o, n in
              zip(evolution["compaction"], evolution["message_index"], evolution["outcome"], evolution["chars"],
                  strict=True)]
    picked = st.selectbox("Summary", labels, index=len(labels) - 1, key="replay_summary_pick")
    body = evolution["body"].iloc[labels.index(picked)]
    plain_text(body, "replay_summary", height=480)

if len(events):
    st.subheader("Compactions recorded in the log")
    table(events, key="replay_real_events")
    summaries = [e for e in getattr(conversation, "compaction_events", []) if getattr(e, "summary", None)]
    if summaries:
        with st.expander("The log's own summaries"):
            for event in summaries:
                st.caption(f"{event.kind} before message {event.position}")
                plain_text(event.summary, "replay_log_summary", height=480)
