"""PrunePlan: one plan applied with many tail protections equals Phase 1 run afresh each time.

The oracle below is the straightforward three-pass implementation Phase 1 had before the plan
(copies, call map, boundary walk, dedup, one-liners and images, argument shrinking, in that order),
kept here as an independent statement of the reference behaviour.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import profiles as P
from core.message_view import IMAGE_PART_TYPES
from core.phases.content import message_budget_tokens, tool_call_arguments
from core.phases.oneliners import summarize_tool_result
from core.phases.prune import (
    ARGS_SHRUNK,
    DEDUPLICATED,
    IMAGE_STRIPPED,
    ONE_LINER,
    PrunePlan,
    find_prune_boundary,
    prune_old_tool_results,
    truncate_tool_call_args_json,
)
from tests.helpers import asst, call, long_agent_run, tool, user

from .test_properties import EXAMPLES, conversations

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the oracle -----------------------------------------------------------------------------------


def _oracle_call_map(messages: list[Any]) -> dict[Any, tuple[Any, Any]]:
    call_map: dict[Any, tuple[Any, Any]] = {}
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for c in message.get("tool_calls") or ():
            if isinstance(c, dict):
                function = c.get("function", {})
                if not isinstance(function, dict):
                    function = {}
                key, value = c.get("id", ""), (function.get("name", "unknown"), function.get("arguments", ""))
            else:
                function = getattr(c, "function", None)
                key = getattr(c, "id", "") or ""
                value = (getattr(function, "name", "unknown") if function else "unknown",
                         getattr(function, "arguments", "") if function else "")
            try:
                call_map[key] = value
            except TypeError:
                continue
    return call_map


def _oracle_boundary(messages, count, budget, weigh) -> int:
    n = len(messages)
    if budget is None or budget <= 0:
        return n - count
    min_protect = min(count, n)
    accumulated = 0
    boundary = n
    for i in range(n - 1, -1, -1):
        tokens = weigh(messages[i])
        if accumulated + tokens > budget and n - i >= min_protect:
            boundary = i
            break
        accumulated += tokens
        boundary = i
    return n - max(n - boundary, min_protect)


def _oracle(messages, count, budget=None, weigh=message_budget_tokens):
    """``(messages, pruned, boundary, actions, lists after each pass)`` of the three passes."""
    if not messages:
        return messages, 0, 0, {}, ([], [], [])
    result = [m.copy() if isinstance(m, dict) else m for m in messages]
    actions: dict[int, list[str]] = {}
    call_map = _oracle_call_map(result)
    boundary = _oracle_boundary(result, count, budget, weigh)
    pruned = 0
    seen: set[str] = set()
    for i in range(len(result) - 1, -1, -1):
        m = result[i]
        if not isinstance(m, dict) or m.get("role") != "tool":
            continue
        content = m.get("content")
        if not isinstance(content, str) or len(content) < P.DEDUP_MIN_CHARS:
            continue
        key = hashlib.md5(content.encode("utf-8", errors="replace")).hexdigest()[:12]
        if key in seen:
            result[i] = {**m, "content": P.DEDUP_PLACEHOLDER}
            pruned += 1
            actions.setdefault(i, []).append(DEDUPLICATED)
        else:
            seen.add(key)
    after_dedup = list(result)
    for i in range(min(boundary, len(result))):
        m = result[i]
        if not isinstance(m, dict) or m.get("role") != "tool":
            continue
        content = m.get("content")
        if isinstance(content, list):
            if any(isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES for p in content):
                parts = [{"type": "text", "text": P.TOOL_IMAGE_PLACEHOLDER}
                         if isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES else p for p in content]
                result[i] = {**m, "content": parts}
                pruned += 1
                actions.setdefault(i, []).append(IMAGE_STRIPPED)
            continue
        if isinstance(content, dict) and content.get("_multimodal"):
            text = content.get("text_summary") or P.TOOL_IMAGE_PLACEHOLDER
            result[i] = {**m, "content": P.MULTIMODAL_PLACEHOLDER_PREFIX + str(text)[:200]}
            pruned += 1
            actions.setdefault(i, []).append(IMAGE_STRIPPED)
            continue
        if not isinstance(content, str) or not content or content == P.LEGACY_CLEARED_PLACEHOLDER:
            continue
        if content.startswith(P.DEDUP_MARK):
            continue
        if len(content) > P.ONE_LINER_MIN_CHARS:
            try:
                name, arguments = call_map.get(m.get("tool_call_id", ""), ("unknown", ""))
            except TypeError:
                name, arguments = "unknown", ""
            result[i] = {**m, "content": summarize_tool_result(name, arguments, content)}
            pruned += 1
            actions.setdefault(i, []).append(ONE_LINER)
    after_pass2 = list(result)
    for i in range(min(boundary, len(result))):
        m = result[i]
        if not isinstance(m, dict) or m.get("role") != "assistant" or not m.get("tool_calls"):
            continue
        if not isinstance(m["tool_calls"], list):
            continue
        changed, calls = False, []
        for c in m["tool_calls"]:
            if isinstance(c, dict):
                args = tool_call_arguments(c)
                try:
                    long_enough = len(args) > P.ARGS_SHRINK_TRIGGER
                except TypeError:
                    long_enough = False
                if long_enough:
                    new_args = truncate_tool_call_args_json(args)
                    if new_args != args:
                        c = {**c, "function": {**c["function"], "arguments": new_args}}
                        changed = True
            calls.append(c)
        if changed:
            result[i] = {**m, "tool_calls": calls}
            actions.setdefault(i, []).append(ARGS_SHRUNK)
    return result, pruned, boundary, actions, (after_dedup, after_pass2, list(result))


def assert_same(plan: PrunePlan, messages, count, budget, weigh=message_budget_tokens, record=True) -> None:
    expected, pruned, boundary, actions, lists = _oracle(messages, count, budget, weigh)
    got = plan.apply(count, budget, record_actions=record)
    assert got.messages == expected
    assert (got.pruned_count, got.prune_boundary) == (pruned, boundary)
    if record:
        assert got.actions == actions
        assert list(got.actions) == list(actions)  # the insertion order too
    else:
        assert got.actions == {}
    assert plan.boundary(count, budget) == find_prune_boundary(messages, count, budget, weigh)
    if messages:  # (an empty conversation returns at once, with boundary 0)
        assert plan.boundary(count, budget) == boundary
        assert list(plan.pass_lists(boundary)) == list(lists)
        assert plan.result_weights(boundary) == [weigh(m) for m in expected]


# --- conversations --------------------------------------------------------------------------------

BIG = st.sampled_from(["R" * 500, "S" * 250, "é" * 300, "x" * 200, "y" * 199, "z" * 201])
odd_tool_content = st.one_of(
    BIG,
    st.just({"_multimodal": True, "text_summary": "a page " * 60}),
    st.just({"_multimodal": True}),
    st.just([{"type": "text", "text": "t" * 300}, {"type": "image", "source": {}}, "bare"]),
    st.just(P.LEGACY_CLEARED_PLACEHOLDER),
    st.just(P.DEDUP_PLACEHOLDER),
    st.just(""),
    st.integers(),
)
odd_calls = st.one_of(
    st.just([call("c1", "terminal", {"command": "make", "pad": ["p" * 700, {"q": "q" * 300}]})]),
    st.just([{"id": "c2", "function": {"name": "read_file", "arguments": "{not json" + "n" * 600}}]),
    st.just([{"id": "c3", "function": {"name": "patch", "arguments": json.dumps("s" * 900)}}]),
    st.just([{"id": ["unhashable"], "function": "nonsense"}, "not a call"]),
    st.just("not a list"),
)


@st.composite
def messy(draw):
    """Conversations with the shapes Phase 1 has to tolerate (non-dicts, odd contents and calls)."""
    messages = list(draw(conversations(well_formed=draw(st.booleans()))))
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["tool", "calls", "string", "tool-odd-id"]))
        if kind == "tool":
            item: Any = tool(draw(st.sampled_from(["c1", "c2", "c3", "call_1", "missing"])), draw(odd_tool_content))
        elif kind == "calls":
            item = {"role": "assistant", "content": None, "tool_calls": draw(odd_calls)}
        elif kind == "string":
            item = "a bare string message"
        else:
            item = {"role": "tool", "tool_call_id": ["x"], "content": draw(BIG)}
        messages.insert(draw(st.integers(0, len(messages))), item)
    return messages


WEIGHTS = {
    "budget": message_budget_tokens,
    "with negatives": lambda m: len(str(m)) % 13 - 3,
    "zero": lambda m: 0,
    "float": lambda m: len(str(m)) / 7.0,
}
pairs = st.tuples(
    st.integers(-3, 40),
    st.one_of(st.none(), st.integers(-5, 12_000), st.sampled_from([0, 1, 250, 10**9])),
)


@SETTINGS
@given(messages=messy(), weigh=st.sampled_from(sorted(WEIGHTS)), params=st.lists(pairs, min_size=1, max_size=12),
       seed=st.integers(0, 2**16))
def test_one_plan_applied_in_any_order_equals_the_three_passes(messages, weigh, params, seed):
    snapshot = copy.deepcopy(messages)
    plan = PrunePlan(messages, WEIGHTS[weigh])
    order = params + params[::-1]
    random.Random(seed).shuffle(order)
    for count, budget in order:
        assert_same(plan, messages, count, budget, WEIGHTS[weigh], record=random.Random(count).random() < 0.8)
    assert plan.source_weights() == [WEIGHTS[weigh](m) for m in messages]
    assert messages == snapshot


@SETTINGS
@given(messages=messy(), count=pairs)
def test_prune_old_tool_results_equals_the_three_passes(messages, count):
    snapshot = copy.deepcopy(messages)
    expected, pruned, boundary, actions, _ = _oracle(messages, *count)
    got = prune_old_tool_results(messages, *count)
    assert (got.messages, got.pruned_count, got.prune_boundary, got.actions) == (expected, pruned, boundary, actions)
    assert list(got.actions) == list(actions)
    assert messages == snapshot
    for before, after in zip(messages, got.messages, strict=True):
        assert not isinstance(before, dict) or after is not before  # copies, never the caller's dicts


def _recorder(seen: list[Any]):
    def weigh(message: Any) -> int:
        seen.append(message)
        return 900

    return weigh


def test_the_walk_weighs_the_messages_the_reference_weighs():
    messages = long_agent_run(30, size=3_000)
    for count, budget in [(2, 5_000), (40, 5_000), (0, 100), (3, 10**9), (5, None)]:
        seen_plan: list[Any] = []
        seen_oracle: list[Any] = []
        prune_old_tool_results(messages, count, budget, message_tokens=_recorder(seen_plan))
        _oracle(messages, count, budget, _recorder(seen_oracle))
        assert seen_plan == seen_oracle


def test_a_result_mutated_by_its_caller_does_not_change_the_next_one():
    messages = long_agent_run(10, size=600)
    messages += [tool("call_0", json.loads(json.dumps(messages[3]["content"])))]
    plan = PrunePlan(messages)
    first = plan.apply(3, None)
    assert first.actions
    first.messages.clear()
    for recorded in first.actions.values():
        recorded.append("scribbled")
    first.actions.clear()
    assert_same(plan, messages, 3, None)


def test_many_threads_share_one_plan():
    messages = long_agent_run(40, size=1_500)
    plan = PrunePlan(messages)
    params = [(c, b) for c in (0, 3, 20) for b in (None, 500, 4_000, 40_000)]
    expected = {p: _oracle(messages, *p)[:4] for p in params}
    failures: list[Any] = []

    def work(offset: int) -> None:
        for count, budget in params[offset:] + params[:offset]:
            got = plan.apply(count, budget)
            if (got.messages, got.pruned_count, got.prune_boundary, got.actions) != expected[(count, budget)]:
                failures.append((count, budget))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_an_empty_conversation():
    plan = PrunePlan([])
    assert len(plan) == 0
    result = plan.apply(3, 100)
    assert (result.messages, result.pruned_count, result.prune_boundary, result.actions) == ([], 0, 0, {})
    empty: list[Any] = []
    assert prune_old_tool_results(empty, 3).messages is empty


def test_built_from_compares_message_identity():
    messages = [user("a"), asst("b")]
    plan = PrunePlan(messages, key=("hermes",))
    assert plan.key == ("hermes",)
    assert plan.built_from(list(messages))
    assert not plan.built_from(copy.deepcopy(messages))
    assert not plan.built_from(messages[:1])


def test_deduplicated_results_are_never_touched_by_the_later_passes():
    # The plan relies on it: pass 2 skips anything that starts with the mark.
    assert P.DEDUP_PLACEHOLDER.startswith(P.DEDUP_MARK)


@pytest.mark.parametrize("budget", [None, 0, 200, 3_000, 10**9])
def test_agent_runs_at_every_protected_count(budget):
    messages = long_agent_run(25, size=900)
    messages.insert(5, tool("call_3", messages[8]["content"]))  # a duplicate of a later output
    plan = PrunePlan(messages)
    for count in range(-1, len(messages) + 2):
        assert_same(plan, messages, count, budget)


def test_negative_weights_walk_like_the_reference_after_any_earlier_walk():
    # Running totals from the end: 10, 60, 20, 70, 75: not sorted, so no bisecting over them.
    messages = [user(f"m{i}") for i in range(5)]
    weight = {"m0": 5, "m1": 50, "m2": -40, "m3": 50, "m4": 10}

    def weigh(message: Any) -> int:
        return weight[message["content"]]

    plan = PrunePlan(messages, weigh)
    for budget in (65, 50, 72, 5, 50, 100, 15, 65):
        for count in (0, 1, 3, 6):
            assert_same(plan, messages, count, budget, weigh)
