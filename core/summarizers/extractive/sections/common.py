"""What the section builders share: priority tiers and sentence helpers."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

# Priority tiers: higher survives a tight budget. Recency adds up to 1 within a tier.
TIER_GOAL = 9.5
TIER_BLOCKED = 8.0
TIER_PENDING = 8.0
TIER_CONSTRAINT = 8.0
TIER_IN_PROGRESS = 7.5
TIER_CAUSE = 8.5
TIER_STATE = 7.0
TIER_REMAINING = 6.5
TIER_DECISION = 6.0
TIER_ERROR_CONTEXT = 5.5
TIER_ACTION = 5.0
TIER_FILE_MODIFIED = 5.0
TIER_FILE_READ = 4.5
TIER_RESOLVED = 4.0
TIER_VALUE_CONTEXT = 4.0
# A line an output said: an error line weighs like an earlier error, any other like a mentioned value.
TIER_FINDING_ERROR = 5.5
TIER_FINDING = 3.8
TIER_NOTE = 3.3
TIER_FILE_MENTIONED = 3.5
TIER_QUANTITY_CONTEXT = 3.0
TIER_IDENTIFIER_CONTEXT = 2.5

MAX_SENTENCE_CHARS = 240
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(\[])|(?<=[。！？])\s*|\n+")

CLOSING_REMARK_RE = re.compile(
    r"^\s*(?:thanks?|thank you|thx|great|perfect|cool|nice|ok|okay|that's all|that is all|"
    r"looks good|lgtm|done|bye|danke|merci|gracias|ありがとう|谢谢)"
    r"(?:[\s,!.]+(?:thanks?|thank you|that's all|a lot|so much|again))*[\s!.！。]*$",
    re.IGNORECASE,
)


def sentences(text: str) -> Iterator[str]:
    """The sentences of a text (list markers stripped), each cut to ``MAX_SENTENCE_CHARS``."""
    for sentence in _SENTENCE_SPLIT_RE.split(text):
        sentence = sentence.strip().lstrip("-*• ").strip()
        if sentence:
            yield sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[: MAX_SENTENCE_CHARS - 1] + "…"


def first_sentence(text: str) -> str:
    return next(iter(sentences(text)), "")


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def latest_by_shape(found: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """Keep the latest of sentences that differ only in their numbers: a constraint or a decision
    restated with another limit, issue or name suffix supersedes the earlier form."""
    latest: dict[str, tuple[int, str]] = {}
    for index, sentence in found:
        shape = re.sub(r"\d+", "0", sentence)
        latest.pop(shape, None)
        latest[shape] = (index, sentence)
    return list(latest.values())


BACKTICKED_GROUPS = frozenset({"Commands", "Started in background"})


def group_line(line: str, groups: Mapping[str, float]) -> tuple[str, list[str]] | None:
    """(group, values) when a carried line is one of the grouped lines this summarizer writes
    (``- Identifiers: a, b``), so merging extends the group instead of repeating the label."""
    if not line.startswith("- ") or ": " not in line:
        return None
    label, rest = line[2:].split(": ", 1)
    if label not in groups:
        return None
    if label in BACKTICKED_GROUPS:
        values = re.findall(r"`[^`]*`", rest)
    else:
        values = [value.strip() for value in rest.split(", ") if value.strip()]
    return (label, values) if values else None
