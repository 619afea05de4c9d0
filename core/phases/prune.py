"""Phase 1: cheap pruning without any LLM call.

Three passes over shallow copies of the messages: newest-wins deduplication of long tool outputs
(everywhere), one-liners for old tool results and image stripping (before the prune boundary),
and shrinking of long tool-call arguments that keeps them valid JSON (before the boundary).

Only the prune boundary depends on the parameters: deduplication looks at the whole list, and
passes 2 and 3 change each message on its own, whatever the boundary. :class:`PrunePlan` does the
parameter-free work once per message list and answers each (``protect_tail_count``,
``protect_tail_tokens``) pair from it; :func:`prune_old_tool_results` is a plan used once.
"""

from __future__ import annotations

import hashlib
import json
import operator
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core import profiles as P
from core.message_view import IMAGE_PART_TYPES
from core.phases.content import message_budget_tokens, tool_call_arguments
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
    """Pass 1 (in place on the copy list): older identical long tool outputs become a placeholder.

    Every candidate is hashed, even one whose length no other candidate shares: two outputs are
    "identical" when their 12-hex-digit md5 prefixes match, as in the reference, and skipping the
    unique lengths would miss a prefix collision between outputs of different lengths.
    """
    seen: set[str] = set()
    # Equal texts have equal keys: each distinct text is hashed once (re-read files repeat a lot).
    keys: dict[str, str] = {}
    pruned = 0
    for i in range(len(result) - 1, -1, -1):
        message = result[i]
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        content = message.get("content")
        if not isinstance(content, str) or len(content) < P.DEDUP_MIN_CHARS:
            continue
        key = keys.get(content) if type(content) is str else None  # a subclass may compare its own way
        if key is None:
            key = _dedup_key(content)
            if type(content) is str:
                keys[content] = key
        if key in seen:
            result[i] = {**message, "content": P.DEDUP_PLACEHOLDER}
            pruned += 1
            if actions is not None:
                actions.setdefault(i, []).append(DEDUPLICATED)
        else:
            seen.add(key)
    return pruned


OneLiner = Callable[[Any, Any, Any], str]


def summarize_tool_message(
    message: Any, call_map: dict[Any, tuple[Any, Any]], summarize: OneLiner = summarize_tool_result
) -> tuple[Any, str | None]:
    """Pass 2 on one message: ``(new message, action)``, or ``(message, None)`` when it stays.

    Tool results with image parts keep their text and get a placeholder per image; the
    ``_multimodal`` envelope becomes a one-line placeholder; text longer than
    ``ONE_LINER_MIN_CHARS`` becomes a one-liner (deduplicated and cleared ones stay).
    """
    if not isinstance(message, dict) or message.get("role") != "tool":
        return message, None
    content = message.get("content")
    if isinstance(content, list):
        if any(isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES for p in content):
            new_content = [
                {"type": "text", "text": P.TOOL_IMAGE_PLACEHOLDER}
                if isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES
                else p
                for p in content
            ]
            return {**message, "content": new_content}, IMAGE_STRIPPED
        return message, None
    if isinstance(content, dict) and content.get("_multimodal"):
        summary = content.get("text_summary") or P.TOOL_IMAGE_PLACEHOLDER
        return {**message, "content": P.MULTIMODAL_PLACEHOLDER_PREFIX + str(summary)[:200]}, IMAGE_STRIPPED
    if not isinstance(content, str):
        return message, None
    if not content or content == P.LEGACY_CLEARED_PLACEHOLDER:
        return message, None
    if content.startswith(P.DEDUP_MARK):
        return message, None
    if len(content) > P.ONE_LINER_MIN_CHARS:
        try:
            name, arguments = call_map.get(message.get("tool_call_id", ""), ("unknown", ""))
        except TypeError:
            name, arguments = "unknown", ""
        return {**message, "content": summarize(name, arguments, content)}, ONE_LINER
    return message, None


def _shrink_leaves(value: Any, head_chars: int) -> Any:
    if isinstance(value, str):
        return value[:head_chars] + P.ARGS_TRUNCATION_MARK if len(value) > head_chars else value
    if isinstance(value, dict):
        return {key: _shrink_leaves(item, head_chars) for key, item in value.items()}
    if isinstance(value, list):
        return [_shrink_leaves(item, head_chars) for item in value]
    return value


# What ``json.dumps(value, ensure_ascii=False)`` builds on every call, made once.
_ARGS_ENCODER = json.JSONEncoder(ensure_ascii=False)


def truncate_tool_call_args_json(args: Any, head_chars: int = P.ARGS_LEAF_HEAD) -> Any:
    """Shorten every long string leaf of JSON arguments and re-serialise; non-JSON passes unchanged."""
    try:
        parsed = json.loads(args)
    except (json.JSONDecodeError, TypeError, ValueError, RecursionError):
        return args
    try:
        return _ARGS_ENCODER.encode(_shrink_leaves(parsed, head_chars))
    except (RecursionError, ValueError, TypeError):
        return args


def shrink_tool_call_message(message: Any) -> Any | None:
    """Pass 3 on one message: a copy with shorter long tool-call arguments, or None when it stays."""
    if not isinstance(message, dict) or message.get("role") != "assistant" or not message.get("tool_calls"):
        return None
    tool_calls = message["tool_calls"]
    if not isinstance(tool_calls, list):
        return None
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
    return {**message, "tool_calls": new_calls} if changed else None


class PrunePlan:
    """Phase 1 prepared once for one message list, applied for any tail protection.

    Built from ``messages`` (never mutated), the ``message_tokens`` used by the boundary walk and
    the release's one-liner builder ``summarize`` (``key`` optionally names the two).
    At construction: the call map and the deduplication (they do not depend on the parameters).
    Lazily, and kept for later calls: each message's pass-2 and pass-3 forms (only as far as a
    boundary has reached) and the running token sums of the boundary walk from the end (only as
    far as a walk has gone, so ``message_tokens`` sees the messages the reference's walk sees).
    :meth:`apply` then returns exactly what the three passes return for that boundary.

    The reference works on shallow copies; a plan copies only what it changes and hands out the
    caller's own plain dicts for the rest (an equal copy of each would double the memory of a long
    transcript), and copies of anything else (a dict subclass reads as its plain copy, as in the
    reference). Every message of a result is shared with the input or with every other result of
    the plan: treat them as read-only, and copy before handing them on to be changed
    (:func:`prune_old_tool_results` does). Safe to use from several threads.
    """

    def __init__(
        self,
        messages: Sequence[Any],
        message_tokens: Callable[[Any], int] = message_budget_tokens,
        *,
        key: Hashable = None,
        summarize: OneLiner = summarize_tool_result,
    ) -> None:
        self.key = key  # what ``message_tokens`` measures, for callers keeping plans per estimator
        self._summarize = summarize
        self._source = list(messages)
        self._n = len(self._source)
        self._message_tokens = message_tokens
        # The messages as the passes read them: plain dicts themselves, anything else as its copy.
        self._copies = [m if type(m) is dict else m.copy() if isinstance(m, dict) else m for m in self._source]
        self._call_map = build_call_map(self._copies)
        deduplicated = list(self._copies)
        self._dedup_actions: dict[int, list[str]] = {}
        self._dedup_count = dedup_tool_results(deduplicated, self._dedup_actions)
        self._deduplicated = deduplicated
        # Passes 2 and 3 applied to the deduplicated forms, for the indices below ``len(self._pruned)``.
        self._pruned: list[Any] = []
        self._pass2_hits: list[int] = []  # ascending indices that pass 2 changed ...
        self._pass2_kinds: list[str] = []  # ... and what it did to each
        self._pass3_hits: list[int] = []  # ascending indices whose arguments pass 3 shrank
        # The walk from the end: ``self._weights[k]`` is ``message_tokens(messages[n - 1 - k])`` and
        # ``self._sums[k]`` the running total over messages[n - 1 - k:], summed from the end.
        self._weights: list[Any] = []
        self._sums: list[Any] = []
        self._dedup_weights: list[Any] | None = None  # message_tokens of each deduplicated form
        self._pruned_weights: list[Any] = []  # ... of each pruned form, below ``len(self._pruned_weights)``
        self._monotone = True  # no negative weight seen: the sums never decrease, so bisect works
        self._weight_memo: dict[tuple[int, bool], Any] = {}  # (index, pruned form?) -> weight, for weight_at
        self.memo: dict[Hashable, Any] = {}  # values derived from this list alone, kept by their users
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return self._n

    def built_from(self, messages: Sequence[Any]) -> bool:
        """Whether ``messages`` holds the very message objects this plan was built from."""
        return len(messages) == self._n and all(map(operator.is_, messages, self._source))

    # -- the boundary -------------------------------------------------------------------------

    def _walk_one(self) -> None:
        index = self._n - 1 - len(self._sums)
        tokens = self._message_tokens(self._copies[index])
        accumulated = self._sums[-1] if self._sums else 0
        if not tokens >= 0:
            self._monotone = False
        self._weights.append(tokens)
        self._sums.append(accumulated + tokens)

    def _walk_stop(self, budget: Any, min_protect: int) -> int:
        """Where ``find_prune_boundary``'s walk from the end stops (its ``boundary`` variable)."""
        n = self._n
        sums = self._sums
        limit = n - min_protect  # the walk may stop at an index only when n - index >= min_protect
        if self._monotone:
            # The first message (from the end) whose running total passes the budget.
            k = bisect_right(sums, budget)
            while k == len(sums) < n and self._monotone:
                self._walk_one()
                if not sums[k] > budget:
                    k += 1
            if self._monotone:
                if k == n:
                    return 0 if n else n
                stop = min(n - 1 - k, limit)
                while len(sums) < n - stop and self._monotone:
                    self._walk_one()  # the reference weighs every message down to where it stops
                if self._monotone:
                    return stop
        for i in range(n - 1, -1, -1):  # some weight is negative: walk as the reference does
            if len(sums) < n - i:
                self._walk_one()
            if sums[n - 1 - i] > budget and i <= limit:
                return i
        return 0 if n else n

    def boundary(self, protect_tail_count: int, protect_tail_tokens: int | None = None) -> int:
        """``find_prune_boundary`` of the plan's messages (with its ``message_tokens``)."""
        n = self._n
        if protect_tail_tokens is None or protect_tail_tokens <= 0:
            return n - protect_tail_count
        min_protect = min(protect_tail_count, n)
        with self._lock:
            stop = self._walk_stop(protect_tail_tokens, min_protect)
        protected = max(n - stop, min_protect)
        return n - protected

    # -- passes 2 and 3 -----------------------------------------------------------------------

    def _prepare(self, cut: int) -> None:
        """Passes 2 and 3 for every index below ``cut`` (once per index)."""
        call_map = self._call_map
        deduplicated, pruned = self._deduplicated, self._pruned
        # Pass 2 only changes tool messages and pass 3 only assistant messages with tool calls, so
        # each message goes through the one pass that can change it. Deduplication only writes
        # its placeholder into tool messages, which pass 2 then skips: no index is both
        # deduplicated and changed by a later pass.
        for i in range(len(pruned), cut):
            message = deduplicated[i]
            role = message.get("role") if isinstance(message, dict) else None
            if role == "tool":
                message, action = summarize_tool_message(message, call_map, self._summarize)
                if action is not None:
                    self._pass2_hits.append(i)
                    self._pass2_kinds.append(action)
            elif role == "assistant" and message.get("tool_calls"):
                shrunk = shrink_tool_call_message(message)
                if shrunk is not None:
                    self._pass3_hits.append(i)
                    message = shrunk
            pruned.append(message)

    def _cut(self, prune_boundary: int) -> int:
        return max(0, min(prune_boundary, self._n))

    def _actions(self, cut: int) -> dict[int, list[str]]:
        """The actions dict the passes record, keys in the order they insert them (fresh lists)."""
        # Pass 1 inserts its indices newest first, then pass 2 and pass 3 theirs in ascending order.
        actions = {i: list(recorded) for i, recorded in self._dedup_actions.items()}
        hits = self._pass2_hits
        upto = bisect_left(hits, cut)
        for i, kind in zip(hits[:upto], self._pass2_kinds[:upto], strict=True):
            actions[i] = [kind]
        hits = self._pass3_hits
        for i in hits[: bisect_left(hits, cut)]:
            actions[i] = [ARGS_SHRUNK]
        return actions

    def apply(
        self, protect_tail_count: int, protect_tail_tokens: int | None = None, *, record_actions: bool = True
    ) -> PruneResult:
        """What ``prune_old_tool_results(messages, protect_tail_count, protect_tail_tokens, ...)`` returns."""
        if not self._n:
            return PruneResult([], 0, 0, {})
        with self._lock:
            boundary = self.boundary(protect_tail_count, protect_tail_tokens)
            cut = self._cut(boundary)
            self._prepare(cut)
            messages = self._pruned[:cut] + self._deduplicated[cut:]
            pruned = self._dedup_count + bisect_left(self._pass2_hits, cut)
            actions = self._actions(cut) if record_actions else {}
        return PruneResult(messages, pruned, boundary, actions)

    def source_weights(self) -> list[Any]:
        """``message_tokens`` of every message of the input, in order (a new list)."""
        with self._lock:
            while len(self._weights) < self._n:
                self._walk_one()
            return self._weights[::-1]

    def result_weights(self, prune_boundary: int) -> list[Any]:
        """``message_tokens`` of every message ``apply`` returns for ``prune_boundary`` (a new list).

        Each message form is weighed once per plan; unchanged messages reuse their input weight.
        """
        with self._lock:
            cut = self._cut(prune_boundary)
            self._prepare(cut)
            dedup_weights = self._dedup_weights
            if dedup_weights is None:
                dedup_weights = self.source_weights()
                for i in self._dedup_actions:
                    dedup_weights[i] = self._message_tokens(self._deduplicated[i])
                self._dedup_weights = dedup_weights
            weights, pruned, deduplicated = self._pruned_weights, self._pruned, self._deduplicated
            for i in range(len(weights), cut):
                message = pruned[i]
                weights.append(dedup_weights[i] if message is deduplicated[i] else self._message_tokens(message))
            return weights[:cut] + dedup_weights[cut:]

    def weight_at(self, prune_boundary: int) -> Callable[[int], Any]:
        """``index -> message_tokens`` of the message ``apply`` returns there, computed on first use.

        What the Phase-2 walks need: they visit only the tail, so only the tail is weighed; every
        weight is kept for the next boundary (a form is weighed once per plan).
        """
        with self._lock:
            cut = self._cut(prune_boundary)
            self._prepare(cut)
        n, memo, weights = self._n, self._weight_memo, self._weights
        pruned, deduplicated, copies = self._pruned, self._deduplicated, self._copies
        message_tokens = self._message_tokens

        def weight(index: int) -> Any:
            if index < 0:  # a walk below a negative head end reads from the end, as the reference's indexing does
                index += n
            pruned_form = index < cut and pruned[index] is not deduplicated[index]
            key = (index, pruned_form)
            value = memo.get(key)
            if value is None:
                if pruned_form:
                    value = message_tokens(pruned[index])
                elif deduplicated[index] is copies[index] and n - 1 - index < len(weights):
                    value = weights[n - 1 - index]  # the boundary walk weighed it already
                else:
                    value = message_tokens(deduplicated[index])
                memo[key] = value
            return value

        return weight

    def pass_lists(self, prune_boundary: int) -> tuple[list[Any], list[Any], list[Any]]:
        """The list after each pass (deduplication, pass 2, pass 3) for a boundary, as new lists."""
        with self._lock:
            cut = self._cut(prune_boundary)
            self._prepare(cut)
            deduplicated = self._deduplicated
            after_pass3 = self._pruned[:cut] + deduplicated[cut:]
            after_pass2 = list(after_pass3)
            hits = self._pass3_hits
            for i in hits[: bisect_left(hits, cut)]:  # pass 2 leaves these assistant messages alone
                after_pass2[i] = deduplicated[i]
            return list(deduplicated), after_pass2, after_pass3


def prune_old_tool_results(
    messages: list[Any],
    protect_tail_count: int,
    protect_tail_tokens: int | None = None,
    *,
    message_tokens: Callable[[Any], int] = message_budget_tokens,
    record_actions: bool = True,
    summarize: OneLiner = summarize_tool_result,
) -> PruneResult:
    """Run the three Phase-1 passes on shallow copies; the input is never mutated."""
    if not messages:
        return PruneResult(messages, 0, 0, {})
    result = PrunePlan(messages, message_tokens, summarize=summarize).apply(
        protect_tail_count, protect_tail_tokens, record_actions=record_actions
    )
    result.messages = fresh_copies(result.messages, messages)
    return result


def fresh_copies(pruned: list[Any], messages: Sequence[Any]) -> list[Any]:
    """``pruned`` (a plan's result for ``messages``) with a copy in place of each of the caller's own dicts."""
    return [m.copy() if m is source and isinstance(m, dict) else m for m, source in zip(pruned, messages, strict=True)]
