"""API validity: would OpenAI and Anthropic accept the upload, and every compressed output, as a request?"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.inspections.lint import RULES, lint, lint_summary
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
from dashboard.ui import table

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

rows = []
for name, violations in found.items():
    per_api = lint_summary(violations).set_index("api")
    openai_errors, anthropic_errors = int(per_api.loc["openai", "errors"]), int(per_api.loc["anthropic", "errors"])
    rows.append({
        # The verdicts beside the names: on a narrow page the counts after them scroll out of sight, not they.
        "conversation": name, "valid_openai": openai_errors == 0, "valid_anthropic": anthropic_errors == 0,
        "messages": len(outputs[name]),
        "openai_errors": openai_errors, "openai_warnings": int(per_api.loc["openai", "warnings"]),
        "anthropic_errors": anthropic_errors, "anthropic_warnings": int(per_api.loc["anthropic", "warnings"]),
    })
overview = pd.DataFrame(rows)
table(
    overview,
    key="lint_overview",
    column_config={"openai_errors": st.column_config.NumberColumn("OpenAI errors"),
                   "openai_warnings": st.column_config.NumberColumn("OpenAI warnings"),
                   "anthropic_errors": st.column_config.NumberColumn("Anthropic errors"),
                   "anthropic_warnings": st.column_config.NumberColumn("Anthropic warnings"),
                   "valid_openai": st.column_config.CheckboxColumn("OpenAI OK"),
                   "valid_anthropic": st.column_config.CheckboxColumn("Anthropic OK")},
)

upload_errors = int(overview.loc[0, "openai_errors"] + overview.loc[0, "anthropic_errors"])
for row in overview.iloc[1:].itertuples():
    added = row.openai_errors + row.anthropic_errors - upload_errors
    if added > 0:
        st.warning(escape_markdown(f"{row.conversation}: {added} more error(s) than the conversation it came from."))

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
