"""Phase 2: where the protected head ends and the protected tail begins.

HEAD = ``messages[:compress_start]``, MIDDLE = ``messages[compress_start:compress_end]`` (summarised),
TAIL = ``messages[compress_end:]``. Both boundaries avoid splitting a tool call from its results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core import profiles as P
from core.message_view import role_of
from core.phases.content import message_budget_tokens


def protect_head_size(messages: list[Any], protect_first_n: int) -> int:
    """The system prompt (if first) plus ``protect_first_n`` more messages; not capped at the length."""
    has_system = bool(messages) and role_of(messages[0]) == "system"
    return (1 if has_system else 0) + protect_first_n


def align_boundary_forward(messages: list[Any], idx: int) -> int:
    """Move a start boundary past tool results so the middle never starts with orphans."""
    while 0 <= idx < len(messages) and role_of(messages[idx]) == "tool":
        idx += 1
    return idx


def align_boundary_backward(messages: list[Any], idx: int) -> int:
    """Pull the cut back to the assistant whose tool results sit right before it (the group joins the tail)."""
    if idx <= 0 or idx >= len(messages):
        return idx
    check = idx - 1
    while check >= 0 and role_of(messages[check]) == "tool":
        check -= 1
    if check >= 0 and role_of(messages[check]) == "assistant" and messages[check].get("tool_calls"):
        return check
    return idx


def ensure_last_user_message_in_tail(messages: list[Any], cut_idx: int, head_end: int) -> int:
    """The newest user message at or after ``head_end`` always lands in the tail."""
    last_user = None
    for i in range(len(messages) - 1, head_end - 1, -1):
        if role_of(messages[i]) == "user":
            last_user = i
            break
    if last_user is None or last_user >= cut_idx:
        return cut_idx
    return max(last_user, head_end + 1)


@dataclass
class TailCut:
    """The tail boundary and every step that moved it (for plain-language explanations)."""

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


def find_tail_cut(
    messages: list[Any],
    head_end: int,
    token_budget: int,
    message_tokens: Callable[[Any], int] = message_budget_tokens,
) -> TailCut:
    """Walk back from the end within 1.5x the tail budget, keep at least 3 messages, then align."""
    n = len(messages)
    min_tail = min(P.MIN_TAIL_MESSAGES, n - head_end - 1) if n - head_end > 1 else 0
    soft_ceiling = int(token_budget * P.TAIL_SOFT_CEILING_FACTOR)
    cut = n
    accumulated = 0
    for i in range(n - 1, head_end - 1, -1):
        tokens = message_tokens(messages[i])
        if accumulated + tokens > soft_ceiling and n - i >= min_tail:
            break
        accumulated += tokens
        cut = i
    walk_cut = cut
    cut = min(cut, n - min_tail)
    after_min_tail = cut
    forced = False
    if cut <= head_end:
        cut = max(n - min_tail, head_end + 1)
        forced = True
    after_forced = cut
    cut = align_boundary_backward(messages, cut)
    after_align = cut
    cut = ensure_last_user_message_in_tail(messages, cut, head_end)
    after_last_user = cut
    final = max(cut, head_end + 1)
    steps = []
    if after_min_tail != walk_cut:
        steps.append("min_tail")
    if forced:
        steps.append("forced_small")
    if after_align != after_forced:
        steps.append("aligned_backward")
    if after_last_user != after_align:
        steps.append("last_user")
    if final != after_last_user:
        steps.append("clamped_to_head")
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
    )


def find_tail_cut_by_tokens(
    messages: list[Any],
    head_end: int,
    token_budget: int,
    message_tokens: Callable[[Any], int] = message_budget_tokens,
) -> int:
    return find_tail_cut(messages, head_end, token_budget, message_tokens).cut


@dataclass
class Zones:
    """Phase-2 boundaries of one conversation."""

    head_size: int
    compress_start: int
    compress_end: int
    tail: TailCut | None
    small_conversation: bool  # early return 1: too few messages to compress at all

    @property
    def middle_is_empty(self) -> bool:
        return self.compress_start >= self.compress_end


def compute_zones(
    messages: list[Any],
    protect_first_n: int,
    tail_token_budget: int,
    message_tokens: Callable[[Any], int] = message_budget_tokens,
) -> Zones:
    head = protect_head_size(messages, protect_first_n)
    start = align_boundary_forward(messages, head)
    tail = find_tail_cut(messages, start, tail_token_budget, message_tokens)
    return Zones(head, start, tail.cut, tail, small_conversation=False)
