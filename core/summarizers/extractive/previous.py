"""Reading an earlier summary (the previous one, or a handoff embedded in the turns) by section."""

from __future__ import annotations

from collections.abc import Sequence

from core.facts import is_summary_text
from core.summarizers.extractive.model import EMPTY_SECTION_TEXT, HEADING_KEYS, SECTION_KEYS

# Lines the v0.16.0 deterministic fallback writes that say nothing once merged.
_FALLBACK_BOILERPLATE = (
    "Recovered from a deterministic fallback",
    "Previous compaction summary was present",
    "This fallback was generated locally",
    "Secrets and credentials were redacted before preservation",
    "The summary may be incomplete; prefer verifying",
    "Unknown from deterministic fallback",
    "None recoverable",
    "Continue from the most recent unfulfilled user ask and protected tail",
    "Summary generation was unavailable",
    "Not recorded in the compacted turns",
)


def split_sections(summary: str, headings: Sequence[str] = ()) -> dict[str, list[str]]:
    """Lines of each section of a summary body by section key (boilerplate and "None." dropped).

    Headings of every release are known (``HEADING_KEYS``); ``headings`` (the request's, in
    template order) name any other. An unknown heading files its lines under its own name, and
    a "Last Dropped Turns" section counts as critical context.
    """
    by_name = {heading[3:].strip(): key for heading, key in zip(headings, SECTION_KEYS, strict=False)}
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for raw_line in summary.splitlines():
        line = raw_line.rstrip()
        if line.startswith("## "):
            name = line[3:].strip()
            current = by_name.get(name) or HEADING_KEYS.get(name) or name
            sections.setdefault(current, [])
            continue
        if current is None or not line.strip():
            continue
        stripped = line.strip()
        if stripped in (EMPTY_SECTION_TEXT, "None") or stripped.startswith(_FALLBACK_BOILERPLATE):
            continue
        if stripped.startswith("--- END OF CONTEXT SUMMARY"):
            current = None
            continue
        if stripped not in sections[current]:
            sections[current].append(stripped)
    return sections


def strip_prefix(text: str) -> str:
    """The body of a handoff message: everything from its first ``## `` heading on."""
    position = text.find("\n## ")
    if text.startswith("## "):
        return text
    return text[position + 1 :] if position >= 0 else ""


def previous_sections(embedded: Sequence[str], previous_summary: str | None, headings: Sequence[str]) -> dict[str, list[str]]:
    """The merged sections of every earlier summary: handoffs found in the turns, then the previous one."""
    texts = list(embedded)
    if previous_summary:
        texts.append(previous_summary)
    merged: dict[str, list[str]] = {}
    for text in texts:
        body = strip_prefix(text) if is_summary_text(text) else text
        for key, lines in split_sections(body, headings).items():
            target = merged.setdefault(key, [])
            target.extend(line for line in lines if line not in target)
    return merged
