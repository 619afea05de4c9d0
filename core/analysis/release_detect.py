"""Which Hermes release wrote the handoff summaries in a transcript.

Each release writes its summaries its own way: v0.15.1, v0.16.0 and v0.17.0 each have their own
handoff prefix (v0.18.0 keeps v0.17.0's); v0.17.0 renamed four template headings and flags the
summary message with ``_compressed_summary``; v0.18.0 merges a summary after the tail message's own
text (``[PRIOR CONTEXT …]`` … ``[END OF PRIOR CONTEXT …]``), writes fixed texts in two sections of its
fallback and replaces stripped tool calls with ``(tool call removed)``. :func:`detect_release` reads
these traces and names the release family, with the evidence, so the dashboard can offer the profile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core import profiles as P
from core.message_view import content_text, role_of

__all__ = ["ReleaseGuess", "detect_release"]

# Prefixes in the order they are checked: a longer one is never the start of a shorter one here.
_PREFIXES: tuple[tuple[str, str], ...] = (
    (P.SUMMARY_PREFIX_V0_17_0, "v0.17.0"),
    (P.SUMMARY_PREFIX_V0_16_0, "v0.16.0"),
    (P.SUMMARY_PREFIX_V0_15_1, "v0.15.1"),
    (P.HISTORICAL_PREFIX_V0_16_0, "before v0.16.0"),
    (P.LEGACY_SUMMARY_PREFIX, "legacy"),
)


@dataclass
class ReleaseGuess:
    """The release family whose summaries the transcript holds, and why."""

    family: str  # e.g. "v0.16.x", "v0.17.x", "v0.18.x", "v0.17.x or v0.18.x"
    profile: str | None  # the profile to offer (None when no profile writes this layout)
    summaries: int  # handoff summaries found
    evidence: list[str] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)  # messages carrying a summary

    @property
    def sentence(self) -> str:
        if self.summaries == 1:
            return f"The handoff summary here was written by Hermes {self.family}."
        return f"The {self.summaries} handoff summaries here were written by Hermes {self.family}."


def _summary_text(text: str) -> str:
    """The handoff inside a message: after the first merge delimiter when there is one (v0.18.0)."""
    if P.PRIOR_CONTEXT_DELIMITER in text:
        return text.split(P.PRIOR_CONTEXT_DELIMITER, 1)[1].lstrip()
    return text.lstrip()


def detect_release(messages: Sequence[Any]) -> ReleaseGuess | None:
    """The release family of the handoff summaries in ``messages``; None when there are none."""
    prefixes: dict[str, int] = {}
    indices: list[int] = []
    merged_after = historical_headings = flagged = v18_fallback = stripped_calls = stubs = 0
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        text = content_text(message.get("content"))
        if P.TOOL_CALL_REMOVED == text.strip() and role_of(message) == "assistant":
            stripped_calls += 1
        if role_of(message) == "tool" and text.strip() == P.STUB_RESULT:
            stubs += 1
        body = _summary_text(text)
        found = next((name for prefix, name in _PREFIXES if body.startswith(prefix)), None)
        if found is None:
            continue
        indices.append(index)
        prefixes[found] = prefixes.get(found, 0) + 1
        if P.PRIOR_CONTEXT_DELIMITER in text and text.lstrip().startswith(P.PRIOR_CONTEXT_HEADER):
            merged_after += 1
        if P.HISTORICAL_TASK_HEADING in body:
            historical_headings += 1
        if message.get(P.COMPRESSED_SUMMARY_KEY) is True:
            flagged += 1
        if P.FALLBACK_IN_PROGRESS_V0_18_0 in body:
            v18_fallback += 1
    if not indices:
        return None

    evidence = [f"{count} with the {name} handoff prefix" for name, count in prefixes.items()]
    newest = next(name for _prefix, name in _PREFIXES if name in prefixes)
    if newest == "v0.17.0":
        v18_signs = [
            (merged_after, "merged after the tail message's own text ([PRIOR CONTEXT …] … [END OF PRIOR CONTEXT …])"),
            (v18_fallback, "a fallback whose In-Progress section no longer repeats the last ask"),
            (stripped_calls, "assistant messages whose orphaned calls were stripped: (tool call removed)"),
        ]
        for count, what in v18_signs:
            if count:
                evidence.append(f"{count} {what}")
        if historical_headings:
            evidence.append(f"{historical_headings} with the historical headings (## Historical Task Snapshot)")
        if flagged:
            evidence.append(f"{flagged} flagged _compressed_summary")
        if stubs:
            evidence.append(f"{stubs} stub tool results, which v0.18.0 no longer adds")
        if any(count for count, _what in v18_signs):
            family, profile = "v0.18.x", "v0.18.0"
        elif stubs:
            family, profile = "v0.17.x", "v0.17.0"
        else:  # both write this layout; the newest is the likelier one to be running
            family, profile = "v0.17.x or v0.18.x", "v0.18.0"
    elif newest == "v0.16.0":
        family, profile = "v0.16.x", "v0.16.0"
    elif newest == "v0.15.1":
        family, profile = "v0.15.x", "v0.15.1"
    elif newest == "before v0.16.0":
        family, profile = "a build between v0.15.1 and v0.16.0", "v0.16.0"
    else:
        family, profile = "an early release ([CONTEXT SUMMARY]: prefix)", None
    return ReleaseGuess(family=family, profile=profile, summaries=len(indices), evidence=evidence, indices=indices)
