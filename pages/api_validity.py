"""API validity: would OpenAI and Anthropic accept the upload, and every compressed output, as a request?"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.inspections.lint import API_NAMES, RULES, lint, lint_summary
from dashboard.runs import OFFLINE_SUMMARIZER, strategy_comparisons, strategy_options
from dashboard.sidebar import (
    escape_markdown,
    keep,
    last_run_for,
    offline_compression,
    page_setup,
    replay_run,
    require_transcript,
    source_caption,
)
from dashboard.ui import small_table, table

UPLOAD = "The conversation as loaded"


def _offline() -> Any:
    from core.summarizers.factory import make_summarizer

    return make_summarizer("extractive")


st.title("API validity")
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
st.caption(
    "Each conversation is checked as a request. OpenAI chat: roles, content types, well-formed tool calls, every "
    "tool call answered by a tool message with its id before the next non-tool message, no orphan results. "
    "Anthropic messages (after converting: system first, tool results folded into user turns): first message "
    "from the user, strict user/assistant alternation, every tool_use answered in the very next user turn, no "
    "empty message. Errors mean the API would reject the request; warnings are accepted but suspicious."
)

a, b = st.columns(2)
with a:
    with_strategies = st.checkbox("Also check every strategy's output", **keep("lint_strategies", False),
                                  help="The Strategies page's comparison, with the options last set there "
                                       "(its defaults before that page is opened).")
with b:
    with_replay = st.checkbox("Also check the context after the timeline replay", **keep("lint_replay", False))

outputs: dict[str, list[Any]] = {UPLOAD: transcript.messages}
try:
    with st.spinner("Compressing and checking…"):
        outputs["Hermes compression (sidebar parameters, offline summary)"] = offline_compression(
            transcript, settings).messages
        last = last_run_for(transcript, settings)
        if last is not None:
            outputs[f"Your last run on Compress & preview ({last['summarizer_label']})"] = last["result"].messages
        if with_strategies:
            *_, comparison = strategy_comparisons(transcript, settings, strategy_options())  # the whole one
            for run in comparison.runs:
                outputs[f"Strategy: {run.name}"] = run.messages
        if with_replay:
            result = replay_run(transcript, settings, OFFLINE_SUMMARIZER, _offline)
            outputs["Timeline replay: the final context"] = result.final_messages
        found = {name: lint(messages) for name, messages in outputs.items()}
except Exception as exc:  # any failure ends as a readable message
    st.error("The check could not run: " + escape_markdown(f"{type(exc).__name__}: {exc}"))
    st.stop()

def verdict(errors: int, warnings: int) -> str:
    """One API's answer to a conversation, in words: whether it is accepted, and what the lint counted."""
    said = "accepted" if errors == 0 else f"rejected: {errors:,} error{'s' if errors != 1 else ''}"
    return said + (f", {warnings:,} warning{'s' if warnings != 1 else ''}" if warnings else "")


HEADINGS = {name: api for api, name in API_NAMES.items()}  # each column's heading, and its API in the lint
counts = []  # per conversation: (errors, warnings) by heading
for violations in found.values():
    per_api = lint_summary(violations).set_index("api")
    counts.append({heading: (int(per_api.loc[api, "errors"]), int(per_api.loc[api, "warnings"]))
                   for heading, api in HEADINGS.items()})
# Plain HTML: its text wraps at any width (a data grid of the counts scrolled sideways at 800 pixels).
small_table(
    [{"conversation": name, **{heading: verdict(*count[heading]) for heading in HEADINGS},
      "messages": len(outputs[name])} for name, count in zip(found, counts, strict=True)],
    "lint_overview",
    cell_styles={(row, heading): "font-weight: 600;" for row, count in enumerate(counts)
                 for heading, (errors, _warnings) in count.items() if errors},
)

upload_errors = sum(errors for errors, _warnings in counts[0].values())
for name, count in list(zip(found, counts, strict=True))[1:]:
    added = sum(errors for errors, _warnings in count.values()) - upload_errors
    if added > 0:
        st.warning(escape_markdown(f"{name}: {added} more error(s) than the conversation it came from."))

st.subheader("Violations")
names = list(found)
if st.session_state.get("lint_pick") not in names:
    st.session_state.pop("lint_pick", None)
picked = st.selectbox("Conversation", names, key="lint_pick")
violations = found[picked]
if violations.empty:
    st.success("No violations: both APIs would accept this conversation.")
else:
    api = st.radio("API", ["both", "openai", "anthropic"], horizontal=True, key="lint_api")
    shown = violations if api == "both" else violations[violations["api"] == api]
    table(shown, key="lint_violations")
    with st.expander("What the rules mean"):
        used = sorted(set(violations["rule"]))
        table(pd.DataFrame({"rule": used, "meaning": [RULES[r] for r in used]}), key="lint_rules")
