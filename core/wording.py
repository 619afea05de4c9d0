"""Small English helpers shared by the sentences the views write and the rendered text."""

from __future__ import annotations

import re

__all__ = ["article"]

_VOWEL_START = re.compile(r"^(?:[aeio]|u(?!ni|s[aeiou]|ser)|hour|honest)", re.IGNORECASE)
_ACRONYM = re.compile(r"^[A-Z0-9]{2,}\b")


def article(word: str) -> str:
    """``a`` or ``an`` for ``word``: "an assistant message", "a user message", "an HTML report"."""
    word = word.strip()
    if _ACRONYM.match(word):
        return "an" if word[0] in "AEFHILMNORSX8" else "a"
    return "an" if _VOWEL_START.match(word) else "a"
