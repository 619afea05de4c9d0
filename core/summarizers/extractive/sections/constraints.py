"""Section 2, ``## Constraints & Preferences``: instructions and limits the user stated."""

from __future__ import annotations

import re

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.sections.common import TIER_CONSTRAINT, latest_by_shape, sentences

# A stated constraint: a clause that opens with an instruction word ("Don't …", "please never
# …", "and always …"), a modal with a subject ("it must …", "tests should not …"), or a
# preference/limit anywhere ("use X instead of Y", "at most 3", "no more than"). A question that
# merely contains "don't" ("confirm the fixtures don't write …") is not one.
_CONSTRAINT_RE = re.compile(
    r"^(?:(?:please|and|but|also|so|just|then)\s+)*"
    r"(?:don't|do not|never|always|avoid|prefer|make sure|keep|only|stick to|stay)\b"
    r"|\b(?:you|we|it|this|that|they|everything|code|tests?|builds?|changes?|image|results?)\s+"
    r"(?:must|mustn't|must not|should|shouldn't|should not|need to|needs to|has to|have to)\b"
    r"|\b(?:instead of|rather than|at most|at least|no more than|not allowed|no longer|under \d)"
    r"|\binstead\s*[.!]?$"
    r"|^(?:keine?|nie|immer|bitte nicht|ne (?:pas|jamais)|jamais|toujours|no (?:cambies|uses)|nunca|siempre|"
    r"必ず|絶対に|不要|必须|禁止)",
    re.IGNORECASE,
)
_CLAUSE_SPLIT_RE = re.compile(r"[,;:]\s+|(?<!\s)\s++-\s+")  # a blank run is tried once, from its start


def states_constraint(sentence: str) -> bool:
    return any(_CONSTRAINT_RE.search(clause.strip()) for clause in _CLAUSE_SPLIT_RE.split(sentence))


def build(draft: Draft) -> None:
    for line in draft.carried("constraints"):
        draft.add("constraints", line, TIER_CONSTRAINT, 0, carried=True)
    found = latest_by_shape(
        (index, sentence)
        for index, text in draft.reading.user_asks
        for sentence in sentences(text)
        if states_constraint(sentence)
    )
    for index, sentence in found:
        draft.add("constraints", f"- {sentence}", TIER_CONSTRAINT, index)
