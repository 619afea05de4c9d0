"""Redaction preview: exactly the text the summarizer would receive, with every mask highlighted."""

from __future__ import annotations

import dataclasses
import html
from pathlib import Path
from typing import Any

import streamlit as st

from dashboard.memo import Settings, Transcript
from dashboard.sidebar import (
    LOCAL_SUMMARIZER,
    NO_SUMMARIZER,
    OFFLINE_SUMMARIZER,
    REMOTE_SUMMARIZER,
    escape_markdown,
    keep,
    page_setup,
    require_transcript,
    source_caption,
    strict_redaction_switch,
    summarizer_choice,
)
from dashboard.ui import metric_row, plain_text, table

BLOCKS_PER_PAGE = 20
PLAIN_TEXT_LIMIT = 200_000
LAYER_COLORS = {"reference": "#ffe08a", "strict": "#ffb3b3"}
WHERE_IT_GOES = {
    REMOTE_SUMMARIZER: "This text leaves the machine: it goes to the provider of the litellm model.",
    OFFLINE_SUMMARIZER: "The offline extractive summary reads these turns on this machine.",
    LOCAL_SUMMARIZER: "The local model reads this text on this machine (127.0.0.1).",
    NO_SUMMARIZER: "Without a summarizer nothing is sent; the fallback summary is built from these turns, "
                   "with the same redaction.",
}


def _view(transcript: Transcript, settings: Settings, strict: bool) -> Any:
    from core.plan import plan
    from core.views.redaction import redaction_view

    config = dataclasses.replace(settings.config(), strict_redaction=strict)

    def compute() -> Any:
        decided = plan(transcript.messages, config, prune_plan=transcript.prune_plan(config))
        return redaction_view(transcript.messages, config, decided=decided)

    return transcript.memo(("redaction-view", settings, strict), compute)


def _highlighted(view: Any, blocks: list[int]) -> str:
    """The chosen turn blocks as HTML: every piece of transcript text escaped, masks in <mark>."""
    parts = ['<div style="font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.82rem;">']
    for block in blocks:
        start, end = view.blocks[block]
        parts.append(
            '<div style="opacity:0.7; margin:0.7rem 0 0.2rem 0; font-family: sans-serif;">'
            f"message #{view.turn_index(block)}</div>"
            '<pre style="white-space: pre-wrap; word-break: break-word; margin: 0; padding: 0.5rem 0.7rem; '
            'background: rgba(128, 128, 128, 0.08); border: 1px solid rgba(128, 128, 128, 0.3); '
            'border-radius: 6px;">'
        )
        for text, span in view.segments(start, end):
            if span is None:
                parts.append(html.escape(text))
            else:
                color = LAYER_COLORS.get(span.layer, "#e0e0e0")
                title = html.escape(f"{span.layer}: {span.kind}", quote=True)
                # Dark text on the light mark colour, whichever theme is on.
                parts.append(f'<mark title="{title}" style="background:{color}; color:#1b1b1b; padding:0 1px;">'
                             f"{html.escape(text)}</mark>")
        parts.append("</pre>")
    parts.append("</div>")
    return "".join(parts)


st.title("Redaction preview")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
st.caption(
    "Exactly the turns block of the summary prompt for this conversation and these parameters: the turns "
    "Phase 2 hands to the summary, serialised and redacted as the compressor does it, without calling any model. "
    "Reference masks are the profile's own (what Hermes masks); strict masks come from the strict layer."
)

choice = summarizer_choice()
with st.container(border=True):
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.markdown(f"**Summarizer** (chosen on Compress & preview): {escape_markdown(choice)}")
    left.caption(WHERE_IT_GOES.get(choice, ""))
    with right:
        strict = strict_redaction_switch(choice, key="preview_strict", label="Strict redaction")

try:
    with st.spinner("Serialising and redacting the turns…"):
        view = _view(transcript, settings, strict)
        other = _view(transcript, settings, not strict)
except Exception as exc:  # any failure ends as a readable message
    st.error("The preview could not be computed: " + escape_markdown(f"{type(exc).__name__}: {exc}"))
    st.stop()

if not view.calls_summarizer:
    # What to move is named as the sidebar names it: a too small conversation is one the protected head
    # leaves no room in; an empty middle is taken by the tail.
    if view.plan.outcome == "too_small":
        reason = ("the conversation is too small to compress (the protected first messages and the shortest "
                  "tail leave nothing between them). Lower **Protect first N messages**")
    else:
        reason = ("the middle zone is empty with these parameters. Lower **Protect last N messages** or the "
                  "**Summary target ratio** (the tail's share of the threshold), or **Protect first N messages**,")
    st.info(f"Nothing would be sent to a summarizer: {reason} in the sidebar to see a summary request.")
    st.stop()

counts = view.count_frame()
reference_total = int(counts.loc[counts["layer"] == "reference", "masked"].sum())
strict_total = int(counts.loc[counts["layer"] == "strict", "masked"].sum())
metric_row("redaction", [
    ("Characters sent", f"{len(view.text):,}"),
    ("Turns", f"{len(view.plan.turns):,}",
     {"help": f"Messages {view.plan.turns_start}–{(view.plan.compress_end or 1) - 1} of the conversation."}),
    ("Reference masks", f"{reference_total:,}"),
    ("Strict masks", f"{strict_total:,}"),
])
other_total = int(other.count_frame()["masked"].sum())
st.caption(
    f"Strict {'on' if strict else 'off'}: {reference_total + strict_total:,} masked values. "
    f"With strict {'off' if strict else 'on'}: {other_total:,}. Flip the switch to compare."
)
if view.plan.previous_summary:
    st.caption(
        f"The prompt also carries the earlier handoff summary found before message {view.plan.turns_start} "
        f"({len(view.plan.previous_summary):,} characters) as it stands in the conversation."
    )
if not view.located:
    st.warning("The masks could not be placed in this text, so they are not highlighted; the text itself is exact.")

if len(counts):
    st.markdown("**Masked values by kind**")
    table(counts, key="redaction_counts")
else:
    st.success("No credential was found in these turns: nothing is masked.")

only_masked = st.checkbox("Only messages with a mask", **keep("redaction_only_masked", True),
                          disabled=not len(counts))
masked_blocks = sorted({span.turn for span in view.spans})
blocks = masked_blocks if only_masked and masked_blocks else list(range(len(view.blocks)))
pages = max(1, (len(blocks) + BLOCKS_PER_PAGE - 1) // BLOCKS_PER_PAGE)
page = 1
legend_col: Any = st
if pages > 1:
    page_col, legend_col = st.columns([1, 3], vertical_alignment="bottom")
    page = int(page_col.number_input(f"Page (of {pages})", min_value=1, max_value=pages, value=1,
                                     key="redaction_page"))
legend_col.html(
    '<span style="font-size:0.85rem;">'
    f'<mark style="background:{LAYER_COLORS["reference"]}; color:#1b1b1b;">reference</mark> the profile\'s masks · '
    f'<mark style="background:{LAYER_COLORS["strict"]}; color:#1b1b1b;">strict</mark> the strict layer\'s · '
    "hover a mask for its kind</span>"
)
shown = blocks[(page - 1) * BLOCKS_PER_PAGE: page * BLOCKS_PER_PAGE]
if view.located and view.blocks:
    st.html(_highlighted(view, shown))

if len(counts):
    with st.expander("Every mask"):
        table(view.span_frame()[["turn", "layer", "kind", "mask"]],
                     key="redaction_spans",
                     column_config={"turn": st.column_config.NumberColumn("message")})
with st.expander("The whole text, as sent"):
    if len(view.text) > PLAIN_TEXT_LIMIT:
        st.caption(f"The first {PLAIN_TEXT_LIMIT:,} of {len(view.text):,} characters; download the text for all of it.")
    plain_text(view.text[:PLAIN_TEXT_LIMIT], "summary_input", height=600)
    stem = Path(transcript.filename).stem or "conversation"
    st.download_button("Download this text", view.text, file_name=f"{stem}.summary-input.txt", mime="text/plain",
                       key="download_summary_input")
