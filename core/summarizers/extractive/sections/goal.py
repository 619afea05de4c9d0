"""Section 1, ``## Goal``: the session's objective in the user's own words.

The first request (the first that asks no question, else the first), then each later ask that
changes direction ("actually…", "forget…", "never mind…", in several languages), so a continuing
agent sees how the objective moved. An earlier summary's goal is carried first.
"""

from __future__ import annotations

import re

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.sections.common import CLOSING_REMARK_RE, TIER_GOAL, clip
from core.summarizers.extractive.sections.task import unquote_ask

MAX_GOAL_CHARS = 400
MAX_DIRECTION_CHARS = 300
_SAME_AS_TASK = "Same as the Active Task."
# Words that open a change of direction.
_REDIRECT_RE = re.compile(
    r"^\W*(?:actually|instead|never ?mind|forget|scratch that|change of plans?|new plan|stop\b|wait\b|no,|"
    r"rather\b|on second thought|let'?s (?:switch|pivot|change|not|instead)|hmm,? (?:never|forget|actually)|"
    r"eigentlich|stattdessen|vergiss|lass (?:das|uns)|doch lieber|en fait|plutôt|oublie|laisse tomber|"
    r"en realidad|mejor\b|olvida|en vez de|déjalo|やっぱり|代わりに|やめて|算了|改为|不要)"
    r"|\b(?:instead of|forget (?:about )?the|never ?mind the|rather than|no longer)\b",
    re.IGNORECASE,
)


_ACKNOWLEDGEMENT_RE = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yep|good|great|nice|perfect|cool|thanks?|thank you|good (?:find|catch|job)|well done|"
    r"super|danke|merci|parfait|gracias|perfecto|genial)\b[^.!?\n]{0,20}[.!]\s+)+",
    re.IGNORECASE,
)


def _without_acknowledgement(text: str) -> str:
    """``text`` without a leading "Good find." or "Thanks!" (the goal is what follows)."""
    rest = _ACKNOWLEDGEMENT_RE.sub("", text, count=1)
    return rest if rest.strip() else text


def build(draft: Draft) -> None:
    carried = draft.carried("goal")
    for line in carried:
        if line == _SAME_AS_TASK and draft.carried("task"):
            # An earlier goal that pointed at its task: keep that task's words, not the reference.
            line = unquote_ask("\n".join(draft.carried("task")))
        draft.add("goal", line, TIER_GOAL, 0, carried=True)
    asks = [(index, text) for index, text in draft.reading.user_asks if not CLOSING_REMARK_RE.match(text)]
    if not asks:
        return
    if not carried:
        first_index, first_ask = next(((i, t) for i, t in asks if "?" not in t), asks[0])
        draft.add("goal", clip(_without_acknowledgement(first_ask.split("\n\n", 1)[0]), MAX_GOAL_CHARS), TIER_GOAL,
                  first_index)
    else:
        first_index = -1
    for index, text in asks:
        if index != first_index and _REDIRECT_RE.search(text):
            draft.add("goal", f"- Then: {clip(text.split(chr(10) + chr(10), 1)[0], MAX_DIRECTION_CHARS)}",
                      TIER_GOAL - 0.5, index)
