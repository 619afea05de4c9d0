"""The engine's public face for what is above it: each release's rules, as objects that describe themselves.

Views, inspections, render and the dashboard read the engine through ``core.plan`` (the decisions
of one call), ``core.assembly`` (its output), ``core.compressor`` (the state between calls),
``core.summary_call`` (the summary call as a value), ``core.config``, ``core.profiles`` and this
module; never through ``core.phases``. What a release does at each point is asked of the rule
object (``threshold_rule(profile).uses_output_reserve``, ``orphan_call_rule(profile).adds_stubs``,
``merge_rule(profile).where``), never by comparing a rule's name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.phases.assemble import MERGE_RULES, ORPHAN_CALL_RULES, MergeRule, OrphanCallRule
from core.phases.boundaries import (
    LAST_USER_RULES,
    TAIL_RULES,
    TailCut,
    align_boundary_forward,
    protect_head_size,
)
from core.phases.content import BUDGET_WEIGHT_SUMMARIES
from core.phases.failures import FAILURE_RULES, FailureRule
from core.phases.fallback import deterministic_fallback_summary
from core.phases.prune import ARGS_SHRUNK, DEDUPLICATED, IMAGE_STRIPPED, ONE_LINER, PrunePlan
from core.phases.summary import (
    max_tokens_for_budget,
    redaction_texts,
    serialize_for_summary,
    strip_summary_prefix,
    summary_text_rule,
    truncate_content,
    with_summary_prefix,
)
from core.phases.trigger import THRASH_RULES, THRESHOLD_RULES, ThrashRule, ThresholdRule
from core.profiles import Profile

__all__ = [
    "ARGS_SHRUNK",
    "DEDUPLICATED",
    "IMAGE_STRIPPED",
    "ONE_LINER",
    "PHASE1_ACTIONS",
    "FailureRule",
    "MergeRule",
    "OrphanCallRule",
    "PrunePlan",
    "TailCut",
    "ThrashRule",
    "ThresholdRule",
    "failure_rule",
    "fallback_summary",
    "head_end",
    "is_summary_text",
    "max_tokens_for_budget",
    "merge_rule",
    "orphan_call_rule",
    "redaction_texts",
    "serialize_for_summary",
    "strip_summary_prefix",
    "tail_rule_changes",
    "thrash_rule",
    "threshold_rule",
    "truncate_content",
    "with_summary_prefix",
]

#: What Phase 1 records per message index, in the order its passes run.
PHASE1_ACTIONS = (DEDUPLICATED, ONE_LINER, ARGS_SHRUNK, IMAGE_STRIPPED)


def threshold_rule(profile: Profile) -> ThresholdRule:
    return THRESHOLD_RULES[profile.threshold_rule]


def merge_rule(profile: Profile) -> MergeRule:
    return MERGE_RULES[profile.merge_rule]


def orphan_call_rule(profile: Profile) -> OrphanCallRule:
    return ORPHAN_CALL_RULES[profile.orphan_call_rule]


def failure_rule(profile: Profile) -> FailureRule:
    return FAILURE_RULES[profile.failure_rule]


def thrash_rule(profile: Profile) -> ThrashRule:
    return THRASH_RULES[profile.thrash_rule]


def is_summary_text(text: str, profile: Profile) -> bool:
    """Whether ``text`` is a handoff summary as ``profile`` recognises one."""
    return summary_text_rule(profile).is_summary_text(text)


def head_end(messages: Sequence[Any], protect_first_n: int) -> int:
    """Where the protected head ends: the system prompt and ``protect_first_n`` more, past tool results."""
    return align_boundary_forward(list(messages), protect_head_size(list(messages), protect_first_n))


def fallback_summary(turns: Sequence[Any], reason: str | None, previous_summary: str | None, profile: Profile,
                     redact: Callable[[Any], Any]) -> str:
    """The deterministic fallback summary (v0.16.0+) of ``turns``, prefixed as the release writes it."""
    return deterministic_fallback_summary(turns, reason, previous_summary, profile, redact)


def tail_rule_changes(older: Profile, newer: Profile) -> list[tuple[str, str]]:
    """``(aspect, what the newer release does)`` for each rule that moves the tail and differs between them.

    Aspects: ``budget_weight`` (what a message weighs in the walks), ``tail_rule`` (the walk and its
    anchors), ``last_user_rule`` (how the newest user message stays in the tail).
    """
    changes = []
    if BUDGET_WEIGHT_SUMMARIES[older.budget_weight] != BUDGET_WEIGHT_SUMMARIES[newer.budget_weight]:
        changes.append(("budget_weight", BUDGET_WEIGHT_SUMMARIES[newer.budget_weight]))
    if TAIL_RULES[older.tail_rule] != TAIL_RULES[newer.tail_rule]:
        changes.append(("tail_rule", TAIL_RULES[newer.tail_rule].summary))
    if LAST_USER_RULES[older.last_user_rule] != LAST_USER_RULES[newer.last_user_rule]:
        changes.append(("last_user_rule", LAST_USER_RULES[newer.last_user_rule].summary))
    return changes
