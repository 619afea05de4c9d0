"""Which Hermes release wrote the handoff summaries in a transcript.

Each release writes its summaries its own way, and the profile table says how: the handoff prefix
(v0.18.x keep v0.17.0's; v0.19.0 adds a sentence), the merge layout (a ``[PRIOR CONTEXT …]`` header and
delimiter from v0.18.0), the fallback's fixed texts, and how orphaned calls are repaired (stub results
up to v0.17.0, ``(tool call removed)`` from v0.18.0). :func:`detect_release` reads these traces, keeps
the profiles that could have written them all and names them, with the evidence, so the dashboard can
offer the newest of them. Nothing here names a release: adding a profile adds what it writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core import profiles as P
from core import rules
from core.message_view import content_text, role_of
from core.profiles import PROFILES, Profile

__all__ = ["ReleaseGuess", "detect_release"]

# Prefixes no profile writes, with who wrote them and whether the first profile that reads them is
# worth offering (a pre-release build is closest to the release that came after it).
_OTHER_PREFIXES: tuple[tuple[str, str, bool], ...] = (
    (P.HISTORICAL_PREFIX_V0_16_0, "a Hermes build between v0.15.1 and v0.16.0", True),
    (P.LEGACY_SUMMARY_PREFIX, "an early Hermes release (the [CONTEXT SUMMARY]: prefix)", False),
)


@dataclass
class ReleaseGuess:
    """The releases whose summaries the transcript holds, and why."""

    family: str  # who wrote them: "Hermes v0.19.0", "Hermes v0.18.0 or v0.18.1", "a Hermes build between ..."
    profile: str | None  # the profile to offer (None when no profile writes this layout)
    summaries: int  # handoff summaries found
    evidence: list[str] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)  # messages carrying a summary
    candidates: list[str] = field(default_factory=list)  # every profile that could have written them

    @property
    def sentence(self) -> str:
        if self.summaries == 1:
            return f"The handoff summary here was written by {self.family}."
        return f"The {self.summaries} handoff summaries here were written by {self.family}."

    @property
    def paragraph(self) -> str:
        """The sentence and its evidence, each a sentence of its own (what the overview shows)."""
        return " ".join([self.sentence, *self.evidence])


def _of_them(count: int, total: int, one: str, many: str) -> str:
    """The subject of an evidence sentence: "It starts", "Both start", "1 of the 3 starts"."""
    if total == 1:
        return f"It {one}"
    if count == total:
        return f"{'Both' if total == 2 else f'All {total}'} {many}"
    return f"{count} of the {total} {one if count == 1 else many}"




def _summary_text(text: str) -> str:
    """The handoff inside a message: after the first merge delimiter when there is one (v0.18.0+)."""
    if P.PRIOR_CONTEXT_DELIMITER in text:
        return text.split(P.PRIOR_CONTEXT_DELIMITER, 1)[1].lstrip()
    return text.lstrip()


def _writers() -> list[tuple[str, list[Profile]]]:
    """Each profile's prefix with every profile that writes it, longest prefix first (none starts another)."""
    writers: dict[str, list[Profile]] = {}
    for profile in PROFILES.values():
        writers.setdefault(profile.summary_prefix, []).append(profile)
    return sorted(writers.items(), key=lambda item: -len(item[0]))


def _names(profiles: Sequence[Profile]) -> str:
    names = [p.name for p in profiles]
    aliases = {alias for alias, name in P.PROFILE_ALIASES.items() if name in names}
    names += sorted(aliases)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


@dataclass
class _Traces:
    """What the messages show, counted."""

    by_prefix: dict[str, int] = field(default_factory=dict)  # prefix -> summaries written with it
    indices: list[int] = field(default_factory=list)
    merged_after: int = 0  # merged after the tail message's own text (header and delimiter)
    fallback_no_repeat: int = 0  # a fallback whose In-Progress section no longer repeats the ask
    stripped_calls: int = 0  # assistants whose orphaned calls were stripped
    stubs: int = 0  # stub tool results
    historical_headings: int = 0
    flagged: int = 0


def _read(messages: Sequence[Any], prefixes: list[str]) -> _Traces:
    traces = _Traces()
    fallback_texts = {p.fallback_in_progress for p in PROFILES.values() if p.fallback_in_progress}
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        text = content_text(message.get("content"))
        if P.TOOL_CALL_REMOVED == text.strip() and role_of(message) == "assistant":
            traces.stripped_calls += 1
        if role_of(message) == "tool" and text.strip() == P.STUB_RESULT:
            traces.stubs += 1
        body = _summary_text(text)
        found = next((prefix for prefix in prefixes if body.startswith(prefix)), None)
        if found is None:
            continue
        traces.indices.append(index)
        traces.by_prefix[found] = traces.by_prefix.get(found, 0) + 1
        if P.PRIOR_CONTEXT_DELIMITER in text and text.lstrip().startswith(P.PRIOR_CONTEXT_HEADER):
            traces.merged_after += 1
        if P.HISTORICAL_TASK_HEADING in body:
            traces.historical_headings += 1
        if message.get(P.COMPRESSED_SUMMARY_KEY) is True:
            traces.flagged += 1
        if any(fallback in body for fallback in fallback_texts):
            traces.fallback_no_repeat += 1
    return traces


def _narrow(candidates: list[Profile], traces: _Traces) -> tuple[list[Profile], list[str]]:
    """The candidates consistent with the layout traces, and those traces in words (one sentence each)."""
    evidence: list[str] = []
    total = len(traces.indices)
    checks = (
        (traces.merged_after, _of_them(traces.merged_after, total, "is", "are")
         + " merged after the tail message's own text ([PRIOR CONTEXT …] … [END OF PRIOR CONTEXT …]).",
         lambda p: rules.merge_rule(p).writes_delimiter),
        (traces.fallback_no_repeat, _of_them(traces.fallback_no_repeat, total, "is", "are")
         + " a fallback summary whose In-Progress section no longer repeats the last ask.",
         lambda p: p.fallback_in_progress is not None),
        (traces.stripped_calls, f"{_plural(traces.stripped_calls, 'assistant message')} had orphaned calls "
         "stripped to (tool call removed).",
         lambda p: not rules.orphan_call_rule(p).adds_stubs),
        (traces.stubs, f"{_plural(traces.stubs, 'stub tool result')} "
         + ("stands" if traces.stubs == 1 else "stand") + " in for calls whose result was summarised.",
         lambda p: rules.orphan_call_rule(p).adds_stubs),
    )
    for count, what, writes_it in checks:
        if not count:
            continue
        evidence.append(what)
        narrowed = [p for p in candidates if writes_it(p)]
        candidates = narrowed or candidates  # traces of two releases (a mixed log): keep the prefix's writers
    if traces.historical_headings:
        evidence.append(_of_them(traces.historical_headings, total, "carries", "carry")
                        + " the historical headings (## Historical Task Snapshot).")
    if traces.flagged:
        evidence.append(_of_them(traces.flagged, total, "is", "are") + " flagged _compressed_summary.")
    return candidates, evidence


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def detect_release(messages: Sequence[Any]) -> ReleaseGuess | None:
    """The releases that wrote the handoff summaries in ``messages``; None when there are none."""
    writers = _writers()
    prefixes = [prefix for prefix, _ in writers] + [prefix for prefix, _who, _offer in _OTHER_PREFIXES]
    traces = _read(messages, prefixes)
    if not traces.indices:
        return None
    evidence: list[str] = []
    named = [(prefix, f"Hermes {_names(who)}") for prefix, who in writers]
    total = len(traces.indices)
    for prefix, name in [*named, *((prefix, who) for prefix, who, _offer in _OTHER_PREFIXES)]:
        count = traces.by_prefix.get(prefix, 0)
        if count:
            # One prefix: the sentence already names its writer.
            whose = "that handoff prefix" if len(traces.by_prefix) == 1 else f"the handoff prefix of {name}"
            evidence.append(_of_them(count, total, "starts", "start") + f" with {whose}.")
    # The newest release that wrote one of these prefixes names the log (a session can span an upgrade).
    written = [profiles for prefix, profiles in writers if prefix in traces.by_prefix]
    if written:
        newest = max(written, key=lambda profiles: list(PROFILES).index(profiles[-1].name))
        candidates, layout = _narrow(list(newest), traces)
        family, profile = f"Hermes {_names(candidates)}", candidates[-1].name
        evidence += layout
    else:
        prefix, family, offer = next(other for other in _OTHER_PREFIXES if other[0] in traces.by_prefix)
        readers = [p.name for p in PROFILES.values() if prefix in p.recognised_prefixes]
        profile = readers[0] if offer and readers else None
    return ReleaseGuess(family=family, profile=profile, summaries=len(traces.indices), evidence=evidence,
                        indices=traces.indices, candidates=[] if not written else [p.name for p in candidates])
