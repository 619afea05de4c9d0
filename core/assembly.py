"""Phase 4 applied to a plan: :func:`assemble` gives the output of one compression.

``assemble(plan, summary)`` is pure: given a :class:`~core.plan.CompressionPlan` and the summary
the summarizer wrote (already prefixed), or a :class:`SummaryFailure`, it writes the release's
fallback summary when needed, keeps the head (with the system note) and the tail, places or
merges the summary, repairs the tool pairs and strips historical images, exactly as the release
does. Every intermediate list is kept for the views that show the steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from core.message_view import role_of
from core.phases import assemble as phase4
from core.phases import fallback
from core.phases.assemble import SanitizeReport, SummaryPlacement
from core.plan import SUMMARIZE, CompressionPlan

__all__ = ["Assembly", "MessageOrigin", "SummaryFailure", "assemble"]


@dataclass(frozen=True)
class SummaryFailure:
    """No summary came back; ``reason`` is the failure reason (None during a cooldown skip)."""

    reason: str | None = None


@dataclass
class MessageOrigin:
    """Where one output message came from, with the badges the preview shows."""

    kind: str  # "head", "summary", "tail" or "stub"
    source_index: int | None
    badges: list[str] = field(default_factory=list)


@dataclass
class Assembly:
    """The output of one compression and how it was put together."""

    plan: CompressionPlan
    messages: list[Any]  # the final conversation
    assembled: list[Any]  # head, summary and tail, before the tool-pair repair
    repaired: list[Any]  # after the repair, before historical images are stripped
    origins: list[MessageOrigin]  # per output message
    assembled_origins: list[MessageOrigin]  # per message of ``assembled`` (what the repair removed came from)
    summary_text: str  # the summary as inserted (prefixed), the fallback's when it failed
    placement: SummaryPlacement
    fallback_used: bool
    failure_reason: str | None
    repair: SanitizeReport
    media_stripped: list[int]  # indices (in ``messages``) whose images were replaced

    @property
    def summary_role(self) -> str | None:
        return self.placement.role

    @property
    def summary_merged(self) -> bool:
        return self.placement.merged

    @property
    def orphans_removed(self) -> int:
        return len(self.repair.orphans_removed)

    @property
    def stubs_added(self) -> int:
        return len(self.repair.stubs_added)

    @property
    def calls_stripped(self) -> int:
        return sum(len(ids) for _index, ids in self.repair.calls_stripped)

    @cached_property
    def tokens_after(self) -> int:
        """The estimate of the output the anti-thrashing rule compares (``new_estimate``)."""
        return self.plan.estimator.messages_tokens(self.messages)

    @property
    def savings_pct(self) -> float:
        display = self.plan.display_tokens
        return (display - self.tokens_after) / display * 100 if display > 0 else 0


def assemble(plan: CompressionPlan, summary: str | SummaryFailure) -> Assembly:
    """The output of ``plan`` with ``summary`` (prefixed summary text) or the profile's fallback."""
    if not plan.calls_summarizer:
        raise ValueError(f"nothing to assemble: the plan's outcome is {plan.outcome!r}, not {SUMMARIZE!r}")
    profile = plan.profile
    work = plan.work
    start, end = plan.compress_start, plan.compress_end
    assert start is not None and end is not None
    actions = plan.phase1_actions

    failed = isinstance(summary, SummaryFailure)
    if failed:
        reason = summary.reason
        summary_text = fallback.fallback_summary(
            plan.turns,
            dropped_count=plan.dropped_count,
            reason=reason,
            previous_summary=plan.previous_summary,
            profile=profile,
            redact=plan.redaction.redact,
        )
    else:
        reason = None
        summary_text = summary

    assembled: list[Any] = []
    origins: list[MessageOrigin] = []
    for i in range(start):
        message = work[i]
        if i == 0 and role_of(message) == "system":
            copy = phase4.add_system_note(phase4.kept_copy(message, profile))
            badges = ["HEAD"] + (["system note"] if copy.get("content") != message.get("content") else [])
        else:
            copy = phase4.kept_copy(message, profile)
            badges = ["HEAD"]
        assembled.append(copy)
        origins.append(MessageOrigin("head", i, badges + actions.get(i, [])))

    placement = phase4.ROLE_RULES[profile.role_rule](work, start, end)
    if not placement.merged:
        assembled.append(phase4.summary_message(summary_text, placement.role, profile))
        origins.append(MessageOrigin("summary", None, ["SUMMARY"] + (["fallback"] if failed else [])))
    for i in range(end, len(work)):
        message = work[i]
        badges = ["TAIL"]
        if placement.merged and i == end:
            message = phase4.merge_summary_into(phase4.kept_copy(message, profile), summary_text, profile)
            badges.append("merged")
        else:
            message = phase4.kept_copy(message, profile)
        assembled.append(message)
        origins.append(MessageOrigin("tail", i, badges + actions.get(i, [])))

    repaired, report = phase4.sanitize_tool_pairs(assembled, profile.orphan_call_rule)
    assembled_origins = list(origins)
    if report.orphans_removed:
        removed = set(report.orphans_removed)
        origins = [o for i, o in enumerate(origins) if i not in removed]
    for index in report.stubs_added:
        origins.insert(index, MessageOrigin("stub", None, ["stub"]))
    for index, _ids in report.calls_stripped:
        origins[index].badges.append("tool calls stripped")
    final, stripped = phase4.strip_historical_media(repaired, profile.drops_api_content)
    for index in stripped:
        origins[index].badges.append("image stripped")
    return Assembly(
        plan=plan,
        messages=final,
        assembled=assembled,
        repaired=repaired,
        origins=origins,
        assembled_origins=assembled_origins,
        summary_text=summary_text,
        placement=placement,
        fallback_used=failed,
        failure_reason=reason,
        repair=report,
        media_stripped=stripped,
    )
