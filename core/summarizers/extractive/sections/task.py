"""Section 0, the task (``## Active Task``, ``## Historical Task Snapshot``): the latest ask, verbatim.

It is the one mandatory line: the user's most recent words, quoted, cut to a share of the budget
when they are long (a pasted log keeps its beginning); "None." after a closing remark.
"""

from __future__ import annotations

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.model import EMPTY_SECTION_TEXT
from core.summarizers.extractive.sections.common import CLOSING_REMARK_RE
from core.summarizers.extractive.tokens import count_tokens

# The task may take at most this share of the budget (a pasted log is cut, not the headings).
ACTIVE_TASK_SHARE = 0.4
MIN_ACTIVE_TASK_TOKENS = 16
_ASKED = "User asked: '"


def quote_ask(text: str, limit_tokens: int) -> str:
    """``User asked: '<text>'`` in at most ``limit_tokens`` tokens; a longer ask keeps its
    beginning and is marked as cut."""
    quoted = f"{_ASKED}{text}'"
    if count_tokens(quoted) <= limit_tokens:
        return quoted
    low, high = 0, min(len(text), limit_tokens * 8)  # the longest kept prefix that fits, by bisection
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(f"{_ASKED}{text[:middle].rstrip()} …[truncated]'") <= limit_tokens:
            low = middle
        else:
            high = middle - 1
    return f"{_ASKED}{text[:low].rstrip()} …[truncated]'"


def unquote_ask(text: str) -> str:
    if text.startswith(_ASKED) and text.endswith("'"):
        return text[len(_ASKED) : -1]
    return text


def build(draft: Draft, skeleton_tokens: int) -> str:
    """Add the task line; returns its text ("None." when there is none)."""
    asks = draft.reading.user_asks
    if asks:
        index, last_ask = asks[-1]
        if CLOSING_REMARK_RE.match(last_ask):
            return EMPTY_SECTION_TEXT
        room = max(MIN_ACTIVE_TASK_TOKENS - 2, min(int(draft.limit * ACTIVE_TASK_SHARE), draft.limit - skeleton_tokens - 2))
        active = quote_ask(last_ask, room)
        draft.add("task", active, 0, index, mandatory=True)
        return active
    carried = draft.carried("task")
    if carried:
        active = "\n".join(carried)
        draft.add("task", active, 0, 0, mandatory=True, carried=True)
        return active
    return EMPTY_SECTION_TEXT
