"""Phase 1: deduplication, one-liners, argument shrinking, image stripping (spec §2)."""

from __future__ import annotations

import copy
import json

import pytest

from core.phases.oneliners import summarize_tool_result
from core.phases.prune import (
    build_call_map,
    find_prune_boundary,
    prune_old_tool_results,
    truncate_tool_call_args_json,
)
from tests.helpers import asst, call, tool, user

DEDUP = "[Duplicate tool output — same content as a more recent call]"


def test_call_map_later_id_wins_and_missing_name_is_unknown():
    messages = [
        asst(None, [call("a", "read_file", {"path": "x"})]),
        asst(None, [{"id": "a", "function": {"arguments": "{}"}}]),
        asst(None, [{"id": "b", "function": {"name": None, "arguments": ""}}]),
    ]
    mapping = build_call_map(messages)
    assert mapping["a"] == ("unknown", "{}")
    assert mapping["b"] == (None, "")


def test_prune_boundary_with_budget_keeps_overflowing_message_and_floor():
    messages = [user("x" * 400) for _ in range(10)]  # 110 tokens each
    # Budget 250: two fit, the third overflows and is still protected; floor of 2 messages.
    assert find_prune_boundary(messages, 2, 250) == 7
    # Floor dominates when it is larger than what the budget protects.
    assert find_prune_boundary(messages, 6, 250) == 4
    # A budget that covers everything protects everything.
    assert find_prune_boundary(messages, 2, 10_000) == 0
    # Without a budget: a plain message count.
    assert find_prune_boundary(messages, 3, None) == 7


def test_dedup_newest_wins_everywhere_including_tail():
    big = "same output " * 30
    messages = [
        asst(None, [call("1", "read_file", {"path": "a"})]),
        tool("1", big),
        asst(None, [call("2", "read_file", {"path": "a"})]),
        tool("2", big),
        tool("3", "short"),
    ]
    res = prune_old_tool_results(messages, protect_tail_count=20, protect_tail_tokens=100_000)
    assert res.prune_boundary == 0
    assert res.messages[1] == {"role": "tool", "tool_call_id": "1", "content": DEDUP}
    assert res.messages[3]["content"] == big
    assert res.pruned_count == 1
    assert res.actions == {1: ["deduplicated"]}


def test_dedup_ignores_short_and_list_content():
    short = "x" * 199
    parts = [{"type": "text", "text": "y" * 300}]
    messages = [tool("1", short), tool("2", short), tool("3", parts), tool("4", parts)]
    res = prune_old_tool_results(messages, 20, 100_000)
    assert res.pruned_count == 0
    assert [m["content"] for m in res.messages] == [short, short, parts, parts]


def test_one_liners_before_boundary_and_head_is_not_exempt():
    out = json.dumps({"output": "a\nb", "exit_code": 2}) + " " * 300
    messages = [
        asst(None, [call("c1", "terminal", {"command": "npm test"})]),
        tool("c1", out),
        user("next"),
        user("later"),
    ]
    res = prune_old_tool_results(messages, protect_tail_count=2, protect_tail_tokens=None)
    assert res.prune_boundary == 2
    assert res.messages[1]["content"] == "[terminal] ran `npm test` -> exit 2, 1 lines output"
    assert res.messages[1]["tool_call_id"] == "c1"
    assert res.actions[1] == ["one-liner"]


def test_content_of_200_chars_or_less_is_left_alone_and_placeholders_skipped():
    messages = [
        tool("a", "z" * 200),
        tool("b", "[Old tool output cleared to save context space]"),
        tool("c", DEDUP + " extra" * 50),
        tool("d", ""),
        user("u"),
    ]
    res = prune_old_tool_results(messages, 1, None)
    assert [m["content"] for m in res.messages] == [m["content"] for m in messages]


def test_image_parts_in_old_tool_results_become_placeholders():
    parts = [
        {"type": "text", "text": "shot"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "input_image", "image_url": "data:..."},
    ]
    envelope = {"_multimodal": True, "text_summary": "s" * 300}
    messages = [tool("a", parts), tool("b", envelope), tool("c", {"_multimodal": True, "text_summary": None}), user("x")]
    res = prune_old_tool_results(messages, 1, None)
    assert res.messages[0]["content"] == [
        {"type": "text", "text": "shot"},
        {"type": "text", "text": "[screenshot removed to save context]"},
        {"type": "text", "text": "[screenshot removed to save context]"},
    ]
    assert res.messages[1]["content"] == "[screenshot removed] " + "s" * 200
    assert res.messages[2]["content"] == "[screenshot removed] [screenshot removed to save context]"
    assert res.pruned_count == 3


def test_argument_shrinking_keeps_valid_json():
    args = json.dumps({"path": "a.py", "content": "q" * 800, "n": 1, "nested": {"list": ["w" * 300, 2, None]}})
    messages = [asst(None, [call("1", "write_file", args)]), tool("1", "ok"), user("u")]
    res = prune_old_tool_results(messages, 1, None)
    new_args = res.messages[0]["tool_calls"][0]["function"]["arguments"]
    parsed = json.loads(new_args)
    assert parsed["content"] == "q" * 200 + "...[truncated]"
    assert parsed["nested"]["list"] == ["w" * 200 + "...[truncated]", 2, None]
    assert res.actions[0] == ["arguments shrunk"]
    assert res.pruned_count == 0  # this pass does not count
    assert messages[0]["tool_calls"][0]["function"]["arguments"] == args


def test_truncate_args_reformats_compact_json_and_passes_non_json():
    compact = '{"a":1,"b":"' + "é" * 10 + '","c":1e5,"d":NaN}'
    assert truncate_tool_call_args_json(compact) == '{"a": 1, "b": "' + "é" * 10 + '", "c": 100000.0, "d": NaN}'
    assert truncate_tool_call_args_json("not json {") == "not json {"
    assert truncate_tool_call_args_json({"a": 1}) == {"a": 1}
    assert truncate_tool_call_args_json('"' + "s" * 300 + '"') == '"' + "s" * 200 + '...[truncated]"'
    assert truncate_tool_call_args_json('{"x": "\\u0001"}') == '{"x": "\\u0001"}'


def test_input_is_never_mutated():
    messages = [
        asst(None, [call("1", "read_file", {"path": "a", "pad": "p" * 600})]),
        tool("1", "r" * 500),
        asst(None, [call("2", "read_file", {"path": "a"})]),
        tool("2", "r" * 500),
        user("u"),
    ]
    snapshot = copy.deepcopy(messages)
    prune_old_tool_results(messages, 1, None)
    assert messages == snapshot


N = "1,200"
CONTENT = "c" * 1199 + "\n"


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("terminal", {"command": "x" * 90}, f"[terminal] ran `{'x' * 77}...` -> exit ?, 2 lines output"),
        ("read_file", {"path": "config.py"}, f"[read_file] read config.py from line 1 ({N} chars)"),
        ("read_file", {"offset": 40}, f"[read_file] read ? from line 40 ({N} chars)"),
        ("write_file", {"path": "a.py", "content": "1\n2\n3"}, "[write_file] wrote to a.py (3 lines)"),
        ("write_file", {"path": "a.py"}, "[write_file] wrote to a.py (? lines)"),
        ("search_files", {"pattern": "compress", "path": "agent/"}, "[search_files] content search for 'compress' in agent/ -> ? matches"),
        ("patch", {"path": "a.py"}, f"[patch] replace in a.py ({N} chars result)"),
        ("browser_navigate", {"url": "https://a.com"}, f"[browser_navigate] https://a.com ({N} chars)"),
        ("browser_click", {"ref": "e12"}, f"[browser_click] ref=e12 ({N} chars)"),
        ("browser_snapshot", {}, f"[browser_snapshot] ({N} chars)"),
        ("web_search", {"query": "hermes"}, f"[web_search] query='hermes' ({N} chars result)"),
        ("web_extract", {"urls": ["https://a.com", "b", "c"]}, f"[web_extract] https://a.com (+2 more) ({N} chars)"),
        ("web_extract", {"urls": "https://a.com"}, f"[web_extract] ? ({N} chars)"),
        ("delegate_task", {"goal": "g" * 61}, f"[delegate_task] '{'g' * 57}...' ({N} chars result)"),
        ("execute_code", {"code": "a\nb" + "c" * 70}, f"[execute_code] `a b{'c' * 57}...` (2 lines output)"),
        ("skill_view", {"name": "pdf"}, f"[skill_view] name=pdf ({N} chars)"),
        ("vision_analyze", {"question": "q" * 60}, f"[vision_analyze] '{'q' * 50}' ({N} chars)"),
        ("memory", {"action": "add"}, "[memory] add on ?"),
        ("todo", {}, "[todo] updated task list"),
        ("clarify", {}, "[clarify] asked user a question"),
        ("text_to_speech", {}, f"[text_to_speech] generated audio ({N} chars)"),
        ("cronjob", {"action": "list"}, "[cronjob] list"),
        ("process", {"action": "kill", "session_id": 7}, "[process] kill session=7"),
        ("mystery_tool", {"alpha": "A" * 50, "beta": 2, "gamma": 3}, f"[mystery_tool] alpha={'A' * 40} beta=2 ({N} chars result)"),
        ("mystery_tool", {"flag": True, "x": None}, f"[mystery_tool] flag=True x=None ({N} chars result)"),
        ("unknown", {}, f"[unknown] ({N} chars result)"),
    ],
)
def test_one_liner_formats(name, args, expected):
    assert summarize_tool_result(name, json.dumps(args), CONTENT) == expected


def test_one_liner_regexes_and_line_counts():
    content = '{"output": "a\\nb", "exit_code": -3, "total_count": 12}'
    assert summarize_tool_result("terminal", '{"command": "ls"}', content) == "[terminal] ran `ls` -> exit -3, 1 lines output"
    assert summarize_tool_result("search_files", "", content).endswith("-> 12 matches")
    assert summarize_tool_result("terminal", "{bad", "   ") == "[terminal] ran `` -> exit ?, 0 lines output"
