"""The "Offline summary vs Hermes fallback" section of the Fact retention page."""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from dashboard.memo import Settings, Transcript
from dashboard.runs import offline_compression
from dashboard.sidebar import OFFLINE_SUMMARIZER, escape_markdown, kept, strict_redaction_for
from dashboard.ui import plain_text
from dashboard.ui import table as ui_table


def _written(transcript: Transcript, settings: Settings, config: Any, focus: str | None) -> tuple[Any, str | None]:
    """(plan, stored summary) of the offline compression the other pages share, when it summarised the
    same turns with the same configuration: the comparison then does not write that summary again."""
    if focus is not None or config != settings.config():
        return None, None
    offline = offline_compression(transcript, settings)
    call = offline.summarizer_call
    if call is None or call.error or call.plan is not offline.plan or not call.response:
        return offline.plan, None
    return offline.plan, call.response


def _comparison(transcript: Transcript, settings: Settings, focus: str | None, strict: bool) -> Any:
    from core.views.summary_compare import compare_summaries

    config = dataclasses.replace(settings.config(), strict_redaction=strict)

    def compare() -> Any:
        decided, written = _written(transcript, settings, config, focus)
        return compare_summaries(transcript.messages, config, focus_topic=focus, encoding=settings.encoding,
                                 decided=decided, written=written)

    return transcript.memo(("summary-compare", settings, focus, strict), compare)


def summary_comparison_section(transcript: Transcript, settings: Settings) -> None:
    from core.views.summary_compare import EXTRACTIVE, EXTRACTIVE_SAME_SIZE, FALLBACK

    st.subheader("Offline summary vs Hermes fallback")
    focus = (kept("focus_topic") or "").strip() or None
    strict = strict_redaction_for(OFFLINE_SUMMARIZER)
    try:
        with st.spinner("Writing both summaries…"):
            comparison = _comparison(transcript, settings, focus, strict)
    except Exception as exc:  # any failure ends as a readable message
        st.error("The summaries could not be compared: " + escape_markdown(f"{type(exc).__name__}: {exc}"))
        return
    if comparison is None:
        st.info("With these parameters the compressor would summarise nothing, so there is nothing to compare.")
        return
    pending = comparison.plan
    st.caption(
        f"Both summarise the same turns (messages {pending.turns_start}–{(pending.compress_end or 1) - 1}, as the "
        "compressor would hand them over with the sidebar parameters): the offline extractive summary from the "
        "summary request, and the deterministic fallback Hermes v0.16.0 writes when no summary model answers, "
        "with the same profile and redaction"
        + (" (strict on)" if strict else "")
        + ". Retention counts the facts of those turns found verbatim in each summary; *original* counts the "
        "facts of the unpruned messages. *At the fallback's size* is the offline summary written again within "
        "the fallback's own token count (cl100k_base), so the two are compared at equal size."
    )
    table = comparison.table()
    ui_table(
        table,
        key="summary_compare_table",
        column_config={
            "retention": st.column_config.ProgressColumn("kept verbatim", format="percent", min_value=0, max_value=1),
            "original retention": st.column_config.ProgressColumn("original kept verbatim", format="percent",
                                                                  min_value=0, max_value=1),
        },
    )
    names = list(comparison.summaries)
    labels = {EXTRACTIVE: "the offline summary", EXTRACTIVE_SAME_SIZE: "the offline summary at the fallback's size",
              FALLBACK: "the fallback"}
    keys = {EXTRACTIVE: "summary_compare_lost_extractive", EXTRACTIVE_SAME_SIZE: "summary_compare_lost_same_size",
            FALLBACK: "summary_compare_lost_fallback"}
    # One tab per summary, each list the page's width: side by side, a third of it cut paths and URLs.
    losses = {name: comparison.lost(name) for name in names}
    tabs = st.tabs([f"Lost by {labels[name]} ({len(losses[name]):,})" for name in names])
    for tab, name in zip(tabs, names, strict=True):
        with tab:
            if len(losses[name]):
                ui_table(losses[name], key=keys[name])
            else:
                st.caption("Nothing: every fact of these turns is in it verbatim.")
    with st.expander("The summaries"):
        for tab, (name, body) in zip(st.tabs(names), comparison.summaries.items(), strict=True):
            with tab:
                plain_text(body, f"summary_compare_{name}", height=600)
