"""Section 11 (``## Remaining Work``, ``## Historical Remaining Work``): what is left, as pointers to
the sections that hold it."""

from __future__ import annotations

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.sections.common import TIER_REMAINING


def build(draft: Draft, has_blockers: bool) -> None:
    last = draft.reading.n_turns - 1
    if has_blockers:
        draft.add("remaining", f"- Errors were still unresolved at the last attempt (see {draft.heading_name('blocked')}).", TIER_REMAINING, last)
    if draft.has("pending"):
        draft.add("remaining", f"- Some earlier user asks had no answer yet (see {draft.heading_name('pending')}).", TIER_REMAINING, last)
    if draft.reading.ends_mid_work:
        draft.add("remaining", f"- The agent was mid-step when these turns were compacted (see {draft.heading_name('in_progress')}).",
                  TIER_REMAINING, last)
    for line in draft.carried("remaining"):
        draft.add("remaining", line, TIER_REMAINING - 1, 0, carried=True)
