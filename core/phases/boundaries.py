"""Phase 2: where the protected head ends and the protected tail begins.

HEAD = ``messages[:compress_start]``, MIDDLE = ``messages[compress_start:compress_end]`` (summarised),
TAIL = ``messages[compress_end:]``. Both boundaries avoid splitting a tool call from its results.

What changed between releases is one function per variant, chosen by the profile:
``HEAD_RULES`` (v0.18.0: ``protect_first_n`` decays after the first compaction), ``TAIL_RULES``
(v0.17.0: a larger minimum tail, a re-walk against the plain budget and the last-assistant anchor)
and ``LAST_USER_RULES`` (v0.18.0: handoff summaries are not the last user message, and a user
message at the head boundary keeps its reply).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core import profiles as P
from core.message_view import role_of
from core.phases.content import message_budget_tokens

IsSummary = Callable[[Any], bool]  # content -> is it a handoff summary (the profile's detection)
WeightAt = Callable[[int], int]  # index -> the message's weight in the budget walks

# --- head ----------------------------------------------------------------------------------------


def protect_head_size(messages: Sequence[Any], protect_first_n: int) -> int:
    """The system prompt (if first) plus ``protect_first_n`` more messages; not capped at the length."""
    has_system = bool(messages) and role_of(messages[0]) == "system"
    return (1 if has_system else 0) + protect_first_n


def fixed_head_size(
    messages: Sequence[Any], protect_first_n: int, compression_count: int, previous_summary: str | None
) -> int:
    """v0.15.1-v0.17.0: the head never changes between rounds."""
    return protect_head_size(messages, protect_first_n)


def decaying_head_size(
    messages: Sequence[Any], protect_first_n: int, compression_count: int, previous_summary: str | None
) -> int:
    """v0.18.0: once the compressor has compacted or holds a summary, only the system prompt stays."""
    decayed = compression_count >= 1 or bool(previous_summary)
    return protect_head_size(messages, 0 if decayed else protect_first_n)


HEAD_RULES: dict[str, Callable[[Sequence[Any], int, int, str | None], int]] = {
    "fixed": fixed_head_size,
    "decay": decaying_head_size,
}


def align_boundary_forward(messages: Sequence[Any], idx: int) -> int:
    """Move a start boundary past tool results so the middle never starts with orphans.

    A negative boundary (a negative ``protect_first_n`` the releases accept) reads from the end, as
    Python's indexing does in the reference.
    """
    while idx < len(messages) and role_of(messages[idx]) == "tool":
        idx += 1
    return idx


def align_boundary_backward(messages: Sequence[Any], idx: int) -> int:
    """Pull the cut back to the assistant whose tool results sit right before it (the group joins the tail)."""
    if idx <= 0 or idx >= len(messages):
        return idx
    check = idx - 1
    while check >= 0 and role_of(messages[check]) == "tool":
        check -= 1
    if check >= 0 and role_of(messages[check]) == "assistant" and messages[check].get("tool_calls"):
        return check
    return idx


# --- the last user message ----------------------------------------------------------------------


def last_user_index(messages: Sequence[Any], head_end: int, is_summary: IsSummary) -> int:
    """v0.15.1-v0.17.0: the newest message with role ``user`` at or after ``head_end`` (-1: none)."""
    for i in range(len(messages) - 1, head_end - 1, -1):
        if role_of(messages[i]) == "user":
            return i
    return -1


def last_real_user_index(messages: Sequence[Any], head_end: int, is_summary: IsSummary) -> int:
    """v0.18.0: the newest user message at or after ``head_end`` that is not a handoff summary (-1: none)."""
    for i in range(len(messages) - 1, head_end - 1, -1):
        message = messages[i]
        if isinstance(message, dict) and message.get("role") == "user" and not is_summary(message.get("content")):
            return i
    return -1


def turn_pair_end(messages: Sequence[Any], user_index: int) -> int:
    """Just past the user message, the one assistant reply after it and that reply's tool results."""
    n = len(messages)
    i = user_index + 1
    if i >= n or role_of(messages[i]) != "assistant":
        return i
    i += 1
    while i < n and role_of(messages[i]) == "tool":
        i += 1
    return i


@dataclass(frozen=True)
class LastUserRule:
    """How a release keeps the newest user message in the tail."""

    find: Callable[[Sequence[Any], int, IsSummary], int]
    keeps_turn_pair: bool  # v0.18.0: a user message at the head boundary keeps its reply with it
    summary: str = ""  # what the rule does, in words

    def apply(self, messages: Sequence[Any], cut_idx: int, head_end: int, user: int) -> int:
        """The cut after this rule, given ``user`` = ``self.find(...)``."""
        if user < 0 or user >= cut_idx:
            return cut_idx
        if user > head_end or not self.keeps_turn_pair:
            return max(user, head_end + 1)
        return max(turn_pair_end(messages, user), head_end + 1)


LAST_USER_RULES: dict[str, LastUserRule] = {
    "any-user": LastUserRule(last_user_index, keeps_turn_pair=False,
                             summary="keeps the newest user message in the tail"),
    "real-user-pair": LastUserRule(
        last_real_user_index, keeps_turn_pair=True,
        summary="skips handoff summaries when it looks for the last user message and keeps a user message at the "
                "head boundary with its reply"),
}


def ensure_last_user_message_in_tail(messages: Sequence[Any], cut_idx: int, head_end: int) -> int:
    """The v0.15.1 rule: the newest user message at or after ``head_end`` always lands in the tail."""
    return LAST_USER_RULES["any-user"].apply(messages, cut_idx, head_end, last_user_index(messages, head_end, bool))


# --- the last assistant reply (v0.17.0+) --------------------------------------------------------


def _visible(content: Any) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                value = part.get("text") or part.get("content")
                if isinstance(value, str) and value.strip():
                    return True
    return False


def last_assistant_index(messages: Sequence[Any], head_end: int) -> int:
    """The newest assistant reply the user saw (else the newest assistant) at or after ``head_end``; -1: none."""
    newest_any = -1
    for i in range(len(messages) - 1, head_end - 1, -1):
        message = messages[i]
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        if newest_any < 0:
            newest_any = i
        if _visible(message.get("content")):
            return i
    return newest_any


def ensure_last_assistant_in_tail(messages: Sequence[Any], cut_idx: int, head_end: int, anchor: int) -> int:
    """v0.17.0+: the cut after the last-assistant anchor, given ``anchor`` = ``last_assistant_index(...)``."""
    if anchor < 0 or anchor >= cut_idx:
        return cut_idx
    return max(align_boundary_backward(messages, anchor), head_end + 1)


# --- the tail walk -------------------------------------------------------------------------------


@dataclass
class TailCut:
    """The tail boundary and every step that moved it (for plain-language explanations).

    ``steps`` names, in order, each step that changed the cut: ``raw_rewalk`` (v0.17.0+),
    ``min_tail``, ``forced_small``, ``aligned_backward``, ``last_user`` (``turn_pair`` when v0.18.0
    kept a user message at the head boundary together with its reply), ``last_assistant``
    (v0.17.0+), ``clamped_to_head`` and ``aligned_forward`` (v0.19.0: the cut moved past tool results).
    """

    cut: int
    budget_walk_cut: int
    min_tail: int
    soft_ceiling: int
    accumulated_tokens: int
    forced_small: bool
    after_min_tail: int
    after_align: int
    after_last_user: int
    steps: list[str] = field(default_factory=list)
    rewalk_cut: int | None = None  # v0.17.0+: where the walk against the plain budget stopped
    after_forced: int = 0
    after_last_assistant: int = 0
    last_user_index: int | None = None
    last_assistant_index: int | None = None


def _min_tail_three(n: int, head_end: int, protect_last_n: int) -> int:
    return min(P.MIN_TAIL_MESSAGES, n - head_end - 1) if n - head_end > 1 else 0


def _min_tail_floor(n: int, head_end: int, protect_last_n: int) -> int:
    available = max(0, n - head_end - 1)
    if available <= 1:
        return 0
    floor = max(P.MIN_TAIL_MESSAGES, min(protect_last_n, P.MAX_TAIL_MESSAGE_FLOOR))
    cap = max(P.MIN_TAIL_MESSAGES, available - 2)
    return min(floor, cap, available)


@dataclass(frozen=True)
class TailRule:
    """How a release walks back from the end to find the tail."""

    min_tail: Callable[[int, int, int], int]  # (n, head_end, protect_last_n) -> minimum tail size
    raw_rewalk: bool  # v0.17.0+: when all fits 1.5x the budget, search again against 1.0x
    assistant_anchor: bool  # v0.17.0+: the last reply the user saw stays in the tail
    realign_forward: bool = False  # v0.19.0: a cut raised onto tool results moves past them
    summary: str = ""  # what the rule does, in words

    def cut(
        self,
        messages: Sequence[Any],
        head_end: int,
        token_budget: int,
        weight_at: WeightAt,
        *,
        protect_last_n: int,
        last_user: LastUserRule,
        is_summary: IsSummary,
    ) -> TailCut:
        n = len(messages)
        min_tail = self.min_tail(n, head_end, protect_last_n)
        soft_ceiling = int(token_budget * P.TAIL_SOFT_CEILING_FACTOR)
        cut = n
        accumulated = 0
        for i in range(n - 1, head_end - 1, -1):
            tokens = weight_at(i)
            if accumulated + tokens > soft_ceiling and n - i >= min_tail:
                break
            accumulated += tokens
            cut = i
        walk_cut = cut
        rewalk_cut = None
        if self.raw_rewalk and cut <= head_end and 0 < accumulated <= soft_ceiling:
            # Everything after the head fits the soft ceiling: search again against the plain
            # budget, this time including the message that overflows it.
            raw = 0
            for j in range(n - 1, head_end - 1, -1):
                tokens = weight_at(j)
                if raw + tokens > token_budget and n - j >= min_tail:
                    cut = j
                    break
                raw += tokens
                cut = j
            rewalk_cut = cut
        after_rewalk = cut
        cut = min(cut, n - min_tail)
        after_min_tail = cut
        forced = False
        if cut <= head_end:
            cut = max(n - min_tail, head_end + 1)
            forced = True
        after_forced = cut
        cut = align_boundary_backward(messages, cut)
        after_align = cut
        user_index = last_user.find(messages, head_end, is_summary)
        cut = last_user.apply(messages, cut, head_end, user_index)
        after_last_user = cut
        assistant_index = None
        if self.assistant_anchor:
            assistant_index = last_assistant_index(messages, head_end)
            cut = ensure_last_assistant_in_tail(messages, cut, head_end, assistant_index)
        after_last_assistant = cut
        clamped = max(cut, head_end + 1)
        final = align_boundary_forward(messages, clamped) if self.realign_forward else clamped
        steps = []
        if rewalk_cut is not None and after_rewalk != walk_cut:
            steps.append("raw_rewalk")
        if after_min_tail != after_rewalk:
            steps.append("min_tail")
        if forced:
            steps.append("forced_small")
        if after_align != after_forced:
            steps.append("aligned_backward")
        if after_last_user != after_align:
            steps.append("turn_pair" if last_user.keeps_turn_pair and user_index == head_end else "last_user")
        if after_last_assistant != after_last_user:
            steps.append("last_assistant")
        if clamped != after_last_assistant:
            steps.append("clamped_to_head")
        if final != clamped:
            steps.append("aligned_forward")
        return TailCut(
            cut=final,
            budget_walk_cut=walk_cut,
            min_tail=min_tail,
            soft_ceiling=soft_ceiling,
            accumulated_tokens=accumulated,
            forced_small=forced,
            after_min_tail=after_min_tail,
            after_align=after_align,
            after_last_user=after_last_user,
            steps=steps,
            rewalk_cut=rewalk_cut,
            after_forced=after_forced,
            after_last_assistant=after_last_assistant,
            last_user_index=user_index if user_index >= 0 else None,
            last_assistant_index=assistant_index if assistant_index is not None and assistant_index >= 0 else None,
        )


TAIL_RULES: dict[str, TailRule] = {
    "min3": TailRule(_min_tail_three, raw_rewalk=False, assistant_anchor=False,
                     summary="keeps at least 3 tail messages"),
    "floor8": TailRule(
        _min_tail_floor, raw_rewalk=True, assistant_anchor=True,
        summary="keeps at least min(protect_last_n, 8) tail messages (3 before), re-walks against the plain budget "
                "and keeps the last reply the user saw"),
    "floor8-forward": TailRule(
        _min_tail_floor, raw_rewalk=True, assistant_anchor=True, realign_forward=True,
        summary="keeps at least min(protect_last_n, 8) tail messages, re-walks against the plain budget, keeps the "
                "last reply the user saw and moves a cut that lands on tool results past them"),
}


def find_tail_cut(
    messages: Sequence[Any],
    head_end: int,
    token_budget: int,
    message_tokens: Callable[[Any], int] = message_budget_tokens,
) -> TailCut:
    """The v0.15.1 tail cut with a per-message weight (what the v0.15.1 phase tests drive)."""
    return TAIL_RULES["min3"].cut(
        messages,
        head_end,
        token_budget,
        lambda i: message_tokens(messages[i]),
        protect_last_n=P.MIN_TAIL_MESSAGES,
        last_user=LAST_USER_RULES["any-user"],
        is_summary=lambda content: False,
    )
