"""Section 10, ``## Relevant Files``: files read or changed, each with what was done to it."""

from __future__ import annotations

import re

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.sections.common import (
    TIER_FILE_MENTIONED,
    TIER_FILE_MODIFIED,
    TIER_FILE_READ,
)


def build(draft: Draft) -> None:
    files = draft.reading.files
    for line in draft.carried("files"):
        path = re.split(r" — | \(", line.lstrip("- "), maxsplit=1)[0]
        if path not in files:
            draft.add("files", line, TIER_FILE_READ, 0, carried=True)
    for path, entry in files.items():
        notes = entry["notes"]
        tier = (
            TIER_FILE_MODIFIED if {"written", "patched"} & set(notes)
            else TIER_FILE_READ if "read" in notes
            else TIER_FILE_MENTIONED
        )
        draft.add("files", f"- {path} — {', '.join(notes)}", tier, entry["last"], sources=entry["indices"])
