"""Section 8, ``## Resolved Questions``: each question the user asked with the first sentence of
the agent's first reply to it."""

from __future__ import annotations

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.model import Reading
from core.summarizers.extractive.sections.common import TIER_RESOLVED, first_sentence, sentences


def answers(reading: Reading) -> dict[int, str]:
    """For each user message, the first sentence of the agent's first text reply to it."""
    found: dict[int, str] = {}
    for ask_index, (texts, _has_next) in reading.replies.items():
        if texts:
            sentence = first_sentence(texts[0][1])
            if sentence:
                found[ask_index] = sentence
    return found


def build(draft: Draft, replies: dict[int, str]) -> None:
    for line in draft.carried("resolved"):
        draft.add("resolved", line, TIER_RESOLVED, 0, carried=True)
    for index, text in draft.reading.user_asks:
        answer = replies.get(index)
        if answer is None:
            continue
        for question in (sentence for sentence in sentences(text) if sentence.endswith(("?", "？"))):
            draft.add("resolved", f"- Q: {question} A: {answer}", TIER_RESOLVED, index,
                      sources=(index, *(i for i, _t in draft.reading.replies[index][0][:1])))
