"""Section 5 (``## In Progress``, ``## Historical In-Progress State``): what was running when the
turns were cut: calls without a result and the agent's last note; for a harness that acts through
text, the beginning of the last output the agent read, quoted as it was."""

from __future__ import annotations

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.model import NO_RESULT
from core.summarizers.extractive.sections.common import TIER_IN_PROGRESS, clip, sentences

MAX_NOTE_CHARS = 300
# The beginning of the last output the agent read, quoted as it was (line breaks included).
MAX_OUTPUT_CHARS = 300


def build(draft: Draft) -> None:
    reading = draft.reading
    if reading.last_observation is not None:
        index, text = reading.last_observation
        quoted = text if len(text) <= MAX_OUTPUT_CHARS else text[:MAX_OUTPUT_CHARS].rstrip() + " …"
        draft.add("in_progress", f"- Last output read:\n{quoted}", TIER_IN_PROGRESS, index, essential=True)
    if not reading.ends_mid_work:
        return
    pending = [action for action in reading.actions if action.outcome == NO_RESULT]
    for action in pending:
        draft.add("in_progress", f"- {action.verb} {action.target} [tool: {action.tool}] (no result yet)",
                  TIER_IN_PROGRESS, action.index)
    if not pending and reading.actions:
        last = reading.actions[-1]
        draft.add("in_progress", f"- Last step: {last.verb} {last.target}" + (f" — {last.outcome}" if last.outcome else ""),
                  TIER_IN_PROGRESS, last.index, sources=last.sources)
    if reading.assistant_texts:
        index, text = reading.assistant_texts[-1]
        statement = clip(" ".join(sentences(text)), MAX_NOTE_CHARS)
        if statement:
            draft.add("in_progress", f"- Agent's last note: {statement}", TIER_IN_PROGRESS, index)
