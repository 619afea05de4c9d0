"""Phase 1: cheap pruning without any LLM call.

Three passes over shallow copies of the messages: newest-wins deduplication of long tool outputs
(everywhere), one-liners for old tool results and image stripping (before the prune boundary),
and shrinking of long tool-call arguments that keeps them valid JSON (before the boundary).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core import profiles as P
from core.phases.content import IMAGE_PART_TYPES, message_budget_tokens, tool_call_arguments
from core.phases.oneliners import summarize_tool_result

# Action names recorded per message index (the dashboard labels and counts them).
DEDUPLICATED = "deduplicated"
ONE_LINER = "one-liner"
IMAGE_STRIPPED = "image stripped"
ARGS_SHRUNK = "arguments shrunk"


@dataclass
class PruneResult:
    messages: list[Any]
    pruned_count: int
    prune_boundary: int
    actions: dict[int, list[str]] = field(default_factory=dict)


def build_call_map(messages: list[Any]) -> dict[Any, tuple[Any, Any]]:
    """``tool_call_id -> (tool name, arguments)`` over every assistant tool call; later ids win."""
    call_map: dict[Any, tuple[Any, Any]] = {}
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                function = call.get("function", {})
                if not isinstance(function, dict):
                    function = {}
                call_id = call.get("id", "")
                name = function.get("name", "unknown")
                arguments = function.get("arguments", "")
            else:
                call_id = getattr(call, "id", "") or ""
                function = getattr(call, "function", None)
                name = getattr(function, "name", "unknown") if function else "unknown"
                arguments = getattr(function, "arguments", "") if function else ""
            try:
                call_map[call_id] = (name, arguments)
            except TypeError:  # unhashable id
                continue
    return call_map


def find_prune_boundary(
    messages: list[Any],
    protect_tail_count: int,
    protect_tail_tokens: int | None = None,
    message_tokens: Callable[[Any], int] = message_budget_tokens,
) -> int:
    """Index before which old tool results may be pruned.

    With a token budget the protected tail is what fits in the budget plus the message that
    overflowed it, and never fewer than ``protect_tail_count`` messages.
    """
    n = len(messages)
    if protect_tail_tokens is None or protect_tail_tokens <= 0:
        return n - protect_tail_count
    min_protect = min(protect_tail_count, n)
    accumulated = 0
    boundary = n
    for i in range(n - 1, -1, -1):
        tokens = message_tokens(messages[i])
        if accumulated + tokens > protect_tail_tokens and n - i >= min_protect:
            boundary = i
            break
        accumulated += tokens
        boundary = i
    protected = max(n - boundary, min_protect)
    return n - protected


def _dedup_key(content: str) -> str:
    return hashlib.md5(content.encode("utf-8", errors="replace")).hexdigest()[:12]


def dedup_tool_results(result: list[Any], actions: dict[int, list[str]] | None = None) -> int:
    """Pass 1 (in place on the copy list): older identical long tool outputs become a placeholder."""
    seen: set[str] = set()
    pruned = 0
    for i in range(len(result) - 1, -1, -1):
        message = result[i]
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        content = message.get("content")
        if not isinstance(content, str) or len(content) < P.DEDUP_MIN_CHARS:
            continue
        key = _dedup_key(content)
        if key in seen:
            result[i] = {**message, "content": P.DEDUP_PLACEHOLDER}
            pruned += 1
            if actions is not None:
                actions.setdefault(i, []).append(DEDUPLICATED)
        else:
            seen.add(key)
    return pruned


def summarize_old_tool_results(
    result: list[Any],
    prune_boundary: int,
    call_map: dict[Any, tuple[Any, Any]],
    actions: dict[int, list[str]] | None = None,
) -> int:
    """Pass 2 (in place): strip images from old tool results and turn long ones into one-liners."""
    pruned = 0
    for i in range(min(prune_boundary, len(result))):
        message = result[i]
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        content = message.get("content")
        if isinstance(content, list):
            if any(isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES for p in content):
                new_content = [
                    {"type": "text", "text": P.TOOL_IMAGE_PLACEHOLDER}
                    if isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES
                    else p
                    for p in content
                ]
                result[i] = {**message, "content": new_content}
                pruned += 1
                if actions is not None:
                    actions.setdefault(i, []).append(IMAGE_STRIPPED)
            continue
        if isinstance(content, dict) and content.get("_multimodal"):
            summary = content.get("text_summary") or P.TOOL_IMAGE_PLACEHOLDER
            result[i] = {**message, "content": P.MULTIMODAL_PLACEHOLDER_PREFIX + str(summary)[:200]}
            pruned += 1
            if actions is not None:
                actions.setdefault(i, []).append(IMAGE_STRIPPED)
            continue
        if not isinstance(content, str):
            continue
        if not content or content == P.LEGACY_CLEARED_PLACEHOLDER:
            continue
        if content.startswith(P.DEDUP_MARK):
            continue
        if len(content) > P.ONE_LINER_MIN_CHARS:
            try:
                name, arguments = call_map.get(message.get("tool_call_id", ""), ("unknown", ""))
            except TypeError:
                name, arguments = "unknown", ""
            result[i] = {**message, "content": summarize_tool_result(name, arguments, content)}
            pruned += 1
            if actions is not None:
                actions.setdefault(i, []).append(ONE_LINER)
    return pruned


def _shrink_leaves(value: Any, head_chars: int) -> Any:
    if isinstance(value, str):
        return value[:head_chars] + P.ARGS_TRUNCATION_MARK if len(value) > head_chars else value
    if isinstance(value, dict):
        return {key: _shrink_leaves(item, head_chars) for key, item in value.items()}
    if isinstance(value, list):
        return [_shrink_leaves(item, head_chars) for item in value]
    return value


def truncate_tool_call_args_json(args: Any, head_chars: int = P.ARGS_LEAF_HEAD) -> Any:
    """Shorten every long string leaf of JSON arguments and re-serialise; non-JSON passes unchanged."""
    try:
        parsed = json.loads(args)
    except (json.JSONDecodeError, TypeError, ValueError, RecursionError):
        return args
    try:
        return json.dumps(_shrink_leaves(parsed, head_chars), ensure_ascii=False)
    except (RecursionError, ValueError, TypeError):
        return args


def shrink_old_tool_call_args(
    result: list[Any], prune_boundary: int, actions: dict[int, list[str]] | None = None
) -> None:
    """Pass 3 (in place): long tool-call arguments before the boundary keep valid, shorter JSON."""
    for i in range(min(prune_boundary, len(result))):
        message = result[i]
        if not isinstance(message, dict) or message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        tool_calls = message["tool_calls"]
        if not isinstance(tool_calls, list):
            continue
        changed = False
        new_calls = []
        for call in tool_calls:
            if isinstance(call, dict):
                args = tool_call_arguments(call)
                try:
                    long_enough = len(args) > P.ARGS_SHRINK_TRIGGER
                except TypeError:
                    long_enough = False
                if long_enough:
                    new_args = truncate_tool_call_args_json(args)
                    if new_args != args:
                        call = {**call, "function": {**call["function"], "arguments": new_args}}
                        changed = True
            new_calls.append(call)
        if changed:
            result[i] = {**message, "tool_calls": new_calls}
            if actions is not None:
                actions.setdefault(i, []).append(ARGS_SHRUNK)


def prune_old_tool_results(
    messages: list[Any],
    protect_tail_count: int,
    protect_tail_tokens: int | None = None,
    *,
    message_tokens: Callable[[Any], int] = message_budget_tokens,
    record_actions: bool = True,
) -> PruneResult:
    """Run the three Phase-1 passes on shallow copies; the input is never mutated."""
    if not messages:
        return PruneResult(messages, 0, 0, {})
    result = [m.copy() if isinstance(m, dict) else m for m in messages]
    actions: dict[int, list[str]] | None = {} if record_actions else None
    call_map = build_call_map(result)
    boundary = find_prune_boundary(result, protect_tail_count, protect_tail_tokens, message_tokens)
    pruned = dedup_tool_results(result, actions)
    pruned += summarize_old_tool_results(result, boundary, call_map, actions)
    shrink_old_tool_call_args(result, boundary, actions)
    return PruneResult(result, pruned, boundary, actions or {})
