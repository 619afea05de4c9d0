"""Section 7, ``## Key Decisions``: decisions the agent stated, and root causes it found.

A decision reads "I'll use…", "switching to…", "decided…"; a root cause reads "root cause…",
"because…", "caused by…", "masked the bug…" (and the same in a few other languages). A root cause
is worth more under a tight budget than a decision: it is what the diagnosis cost.
"""

from __future__ import annotations

import re

from core.remembered import recall
from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.sections.common import TIER_CAUSE, TIER_DECISION, latest_by_shape, sentences

_DECISION_RE = re.compile(
    r"\b(?:I'll|I will|we'll|we will|let's|I'm going to|we're going to)\s+"
    r"(?:use|go with|switch|keep|replace|avoid|adopt|stick with|rely on|move|change|implement|rewrite|"
    r"refactor|drop|pin|make|apply|call|store|aggregate|sniff|narrow|guard|accept|re-export|stop|link|read|"
    r"take|remove|default)\b"
    r"|\b(?:decided|decide to|instead of|rather than|chose|going with|opted for|switch(?:ed|ing) (?:to|from))\b"
    r"|^Decided\b",
    re.IGNORECASE,
)
_CAUSE_RE = re.compile(
    r"\b(?:root cause|the cause|caused by|because|due to|the (?:problem|issue|bug|reason) (?:is|was)|"
    r"turns out|it fails because|masked|masks|leaks?\b|off by one|circular import|race\b|regression)"
    r"|Ursache|weil\b|parce que|la cause|porque|la causa|原因|因为|ので|ため",
    re.IGNORECASE,
)


_RULE = "extractive-decision-sentences"


def _stated(text: str) -> tuple[tuple[str, bool], ...]:
    """(sentence, whether it states a cause) of each sentence of ``text`` stating a decision or a
    cause: remembered per text, as every compression of a transcript reads the same replies."""
    found = []
    for sentence in sentences(text):
        cause = bool(_CAUSE_RE.search(sentence))
        if cause or _DECISION_RE.search(sentence):
            found.append((sentence, cause))
    return tuple(found)


def build(draft: Draft) -> None:
    for line in draft.carried("decisions"):
        draft.add("decisions", line, TIER_DECISION, 0, carried=True)
    found: list[tuple[int, str, bool]] = []
    for index, text in draft.reading.assistant_texts:
        found.extend((index, sentence, cause) for sentence, cause in recall(_RULE, text, _stated))
    causes = {sentence for _index, sentence, cause in found if cause}
    for index, sentence in latest_by_shape((index, sentence) for index, sentence, _cause in found):
        cause = sentence in causes
        # A root cause is what the diagnosis cost: it is kept first under a tight budget.
        draft.add("decisions", f"- {sentence}", TIER_CAUSE if cause else TIER_DECISION, index, essential=cause)
