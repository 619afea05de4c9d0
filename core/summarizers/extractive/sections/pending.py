"""Section 9 (``## Pending User Asks``, ``## Historical Pending User Asks``): earlier asks that got
no reply (the latest ask is the task, not a pending one)."""

from __future__ import annotations

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.reading import first_line
from core.summarizers.extractive.sections.common import CLOSING_REMARK_RE, TIER_PENDING


def build(draft: Draft, active: str, replies: dict[int, str]) -> None:
    for line in draft.carried("pending"):
        if line != active:
            draft.add("pending", line, TIER_PENDING - 1, 0, carried=True)
    asks = draft.reading.user_asks
    for position, (index, text) in enumerate(asks):
        if index not in replies and position != len(asks) - 1 and not CLOSING_REMARK_RE.match(text):
            draft.add("pending", f"- {first_line(text, 300)}", TIER_PENDING, index)
