"""Fact retention: which identifiers of the compacted part survive verbatim, and which are lost."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.facts import retention_by_kind
from core.render.retention import retention_figure
from core.views.retention import lost_facts, retention_summary
from dashboard.repair_losses import losses_of_run, offline_repair_losses, repair_losses_notice
from dashboard.runs import OFFLINE_SUMMARIZER, strategy_comparisons, strategy_options
from dashboard.sidebar import (
    escape_markdown,
    fact_index,
    keep,
    last_run_for,
    offline_compression,
    page_setup,
    replay_run,
    require_transcript,
    source_caption,
    trigger_advice,
)
from dashboard.summary_compare import summary_comparison_section
from dashboard.ui import chart, metric_row, small_table, table

HERMES = "Hermes compression"
STRATEGIES = "Every strategy"
REPLAY = "Timeline replay compactions"
SOURCES = [HERMES, STRATEGIES, REPLAY]


def _offline() -> Any:
    from core.summarizers.factory import make_summarizer

    return make_summarizer("extractive")


def _compacted(result: Any) -> list[int]:
    """Original indices a single compression summarised (none when it did not compress)."""
    if not result.compressed or result.plan.compress_start is None or result.plan.compress_end is None:
        return []
    return list(range(result.plan.compress_start, result.plan.compress_end))


st.title("Fact retention")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
st.caption(
    "Facts are the identifiers a continuing agent needs: file paths, commands, error lines, URLs, numbers with "
    "units, function and class names, issue numbers and the latest user request. A fact of the compacted part "
    "is kept when it appears verbatim anywhere in the compressed conversation. Lines of passing tests, progress "
    "bars, directory listings and repeated log lines hold no facts, and a value a redaction would mask (a "
    "credential) is not a fact: masking it loses nothing, and it is never shown here."
)

source = st.radio("Runs to inspect", SOURCES, horizontal=True, **keep("retention_source", HERMES),
                  help="Every strategy: the Strategies page's comparison, with the options last set there (its "
                       "defaults before that page is opened).")
runs: dict[str, tuple[list[int], list[Any]]] = {}
# What Hermes' tool-pair repair removed in each Hermes run: facts it loses without the summary ever reading them.
repairs: dict[str, Any] = {}
try:
    with st.spinner("Compressing and scoring…"):
        if source == HERMES:
            offline = offline_compression(transcript, settings)
            runs["Hermes (sidebar parameters, offline summary)"] = (_compacted(offline), offline.messages)
            repairs["Hermes (sidebar parameters, offline summary)"] = offline_repair_losses(transcript, settings)
            last = last_run_for(transcript, settings)
            if last is not None:
                label = f"Your last run on Compress & preview ({last['summarizer_label']})"
                runs[label] = (_compacted(last["result"]), last["result"].messages)
                repairs[label] = losses_of_run(last)
        elif source == STRATEGIES:
            # The Strategies page's comparison, with the options last set there (shared, and made ahead).
            *_, comparison = strategy_comparisons(transcript, settings, strategy_options())
            for run in comparison.runs:
                runs[run.name] = (run.compacted(len(transcript.messages)), run.messages)
        else:
            result = replay_run(transcript, settings, OFFLINE_SUMMARIZER, _offline)
            for record in result.compressed:
                runs[f"Replay compaction #{record.number} (message {record.message_index})"] = (
                    record.compacted_indices, record.messages)
except Exception as exc:  # any failure ends as a readable message
    st.error("The runs could not be computed: " + escape_markdown(f"{type(exc).__name__}: {exc}"))
    st.stop()

# After the runs: right after an upload the work ahead is making Hermes' run, whose summary reads the
# facts and masks of the middle's texts; made first beside it, the index would make them a second time.
facts = fact_index(transcript)
scored = {name: facts.retention_of(indices, messages) for name, (indices, messages) in runs.items()}
summary = pd.DataFrame(
    [{"run": name, "messages compacted": len(runs[name][0]), **retention_summary(run_table)}
     for name, run_table in scored.items()],
    columns=["run", "messages compacted", "total", "kept", "lost", "score"],
)
if repairs:  # facts the repair removed are not facts of the compacted part: counted apart, never in the score
    summary["lost by the repair"] = [len(repairs[name].lost_facts) if name in repairs else None for name in summary["run"]]
if summary.empty:
    if source == REPLAY:
        st.info("Nothing was compacted in these runs, so there is no fact to keep or lose: the replay's prompt "
                f"never reached the threshold (its peak was {result.peak_prompt:,}). Pick another source, or:")
        if not trigger_advice(result.peak_prompt, settings, "retention_option"):
            st.caption("Nothing the sidebar offers brings the threshold down to that peak.")
    else:
        st.info("Nothing was compacted in these runs, so there is no fact to keep or lose. Pick another source.")
    summary_comparison_section(transcript, settings)
    st.stop()

# Plain HTML: a run's long name wraps instead of pushing the last columns past a 1400-pixel page.
small_table(summary, "retention_summary", share_columns=("score",), headers={"score": "kept verbatim"})
nothing = summary[summary["messages compacted"] == 0]["run"].tolist()
if nothing:
    st.caption("Nothing was compacted in: " + escape_markdown(", ".join(nothing)) + " (score 100% by definition).")
chart(retention_figure(scored), key="retention_chart")

st.subheader("Kept and lost, one run at a time")
names = list(scored)
if st.session_state.get("retention_pick") not in names:
    st.session_state.pop("retention_pick", None)
picked = st.selectbox("Run", names, key="retention_pick")
picked_table = scored[picked]
stats = retention_summary(picked_table)
picked_repair = repairs.get(picked)
metric_row("retention", [
    ("Facts in the compacted part", f"{stats['total']:,}"),
    ("Kept verbatim", f"{stats['kept']:,}", {"help": f"{stats['score']:.0%}"}),
    ("Lost by the summary", f"{stats['lost']:,}",
     {"help": "Facts of the compacted (summarised) part that appear nowhere in the output."}),
    *([("Lost by the repair", f"{len(picked_repair.lost_facts):,}",
        {"help": "Facts of messages Hermes' tool-pair repair removed outside the summarised part: the summarizer "
                 "never read them (not counted in the score)."})] if picked_repair is not None else []),
])
if picked_repair is not None:
    repair_losses_notice(picked_repair, "retention")
by_kind = retention_by_kind(picked_table)
if len(by_kind):
    table(by_kind, key="retention_by_kind",
          column_config={"score": st.column_config.ProgressColumn("share kept", format="percent", min_value=0,
                                                                  max_value=1)})
lost = lost_facts(picked_table)
if len(lost):
    st.markdown("**Lost facts** (where each first appeared in the original conversation)")
    table(lost, key="retention_lost")
elif stats["total"]:
    repaired_away = len(picked_repair.lost_facts) if picked_repair is not None else 0
    st.success("Every fact of the compacted part survived verbatim."
               + (f" The {repaired_away:,} fact(s) the tool-pair repair removed (above) are outside it." if repaired_away
                  else ""))
with st.expander("All facts of the compacted part"):
    table(picked_table, key="retention_all_facts")

summary_comparison_section(transcript, settings)
