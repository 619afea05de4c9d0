"""Phase 4: system note, summary role and merge, tool-pair repair, media stripping (spec §5, §2.7b)."""

from __future__ import annotations

import copy

from core import CompressorConfig, ContextCompressor
from core.phases.assemble import (
    add_system_note,
    choose_summary_role,
    sanitize_tool_pairs,
    strip_historical_media,
)
from core.profiles import END_MARKER, STUB_RESULT, SYSTEM_NOTE
from tests.helpers import Recorder, asst, call, pairs_valid, sys, tool, user

V16 = "v0.16.0"  # these behaviours are the v0.15.1/v0.16.0 rules (later releases have their own tests)

IMG = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
STRIPPED = {"type": "text", "text": "[Attached image — stripped after compression]"}


def test_system_note_variants_and_idempotence():
    assert add_system_note(sys("Base"))["content"] == "Base\n\n" + SYSTEM_NOTE
    assert add_system_note({"role": "system", "content": None})["content"] == SYSTEM_NOTE
    missing = add_system_note({"role": "system", "name": "x"})
    assert list(missing) == ["role", "name", "content"] and missing["content"] == SYSTEM_NOTE
    assert add_system_note(sys([{"type": "text", "text": "a"}]))["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": SYSTEM_NOTE},
    ]
    assert add_system_note({"role": "system", "content": 5})["content"] == "5" + SYSTEM_NOTE
    once = add_system_note(sys("Base"))
    assert add_system_note(once)["content"] == once["content"]


def test_summary_role_choice():
    def roles(head_last, tail_first):
        msgs = [user("0"), {"role": head_last, "content": "h"}, asst("m"), {"role": tail_first, "content": "t"}]
        placement = choose_summary_role(msgs, 2, 3)
        return "merge" if placement.merged else placement.role

    assert roles("assistant", "assistant") == "user"
    assert roles("tool", "assistant") == "user"
    assert roles("user", "user") == "assistant"
    assert roles("system", "user") == "assistant"
    assert roles("assistant", "user") == "merge"  # double collision
    assert roles("user", "assistant") == "merge"
    assert roles("tool", "user") == "assistant"


def _conv(head_last_role: str, tail_first: dict) -> list:
    messages = [sys(), user("goal"), asst("plan")]
    messages.append({"role": head_last_role, "content": "head end"} if head_last_role != "assistant" else asst("ok"))
    messages += [user(f"m{i}") if i % 2 else asst(f"a{i}") for i in range(8)]
    messages += [tail_first, asst("x"), user("last question")]
    return messages


def test_double_collision_merges_into_string_and_list_tail():
    recorder = Recorder("## Active Task\nMerged body")
    comp = ContextCompressor(CompressorConfig(profile=V16, protect_first_n=2), summarizer=recorder)
    messages = [sys(), user("goal"), asst("plan")] + [user(f"u{i}") if i % 2 == 0 else asst(f"a{i}") for i in range(12)]
    messages += [user("last")]
    res = comp.compress(messages)
    assert res.assembly.summary_merged
    merged = res.messages[3]
    assert merged["role"] == "user"
    assert merged["content"].startswith(res.assembly.summary_text + "\n\n" + END_MARKER + "\n\n")
    roles = [m["role"] for m in res.messages]
    assert all(not (a == b and a in ("user", "assistant")) for a, b in zip(roles, roles[1:], strict=False))

    list_messages = copy.deepcopy(messages)
    list_messages[-3]["content"] = [{"type": "text", "text": "tail text"}]
    comp2 = ContextCompressor(CompressorConfig(profile=V16, protect_first_n=2), summarizer=recorder)
    res2 = comp2.compress(list_messages)
    assert res2.assembly.summary_merged
    first_tail = res2.messages[3]["content"]
    assert isinstance(first_tail, list)
    assert first_tail[0] == {"type": "text", "text": res2.assembly.summary_text + "\n\n" + END_MARKER + "\n\n"}


def test_standalone_user_summary_has_end_marker_assistant_does_not():
    recorder = Recorder("## Active Task\nBody")
    messages = [sys(), user("goal"), asst(None, [call("c", "terminal", {"command": "ls"})]), tool("c", "out")]
    messages += [asst(f"a{i}") if i % 2 else user(f"u{i}") for i in range(10)]
    res = ContextCompressor(CompressorConfig(profile=V16, protect_first_n=3), summarizer=recorder).compress(messages)
    summary_msgs = [m for m, o in zip(res.messages, res.assembly.origins, strict=True) if o.kind == "summary"]
    assert summary_msgs and summary_msgs[0]["role"] == "user"
    assert summary_msgs[0]["content"].endswith("\n\n" + END_MARKER)
    assert list(summary_msgs[0]) == ["role", "content"]

    messages2 = [sys(), user("goal"), asst("a"), user("b")]
    messages2 += [asst(f"a{i}") if i % 2 == 0 else user(f"u{i}") for i in range(10)]
    res2 = ContextCompressor(CompressorConfig(profile=V16, protect_first_n=3), summarizer=recorder).compress(messages2)
    standalone = [m for m, o in zip(res2.messages, res2.assembly.origins, strict=True) if o.kind == "summary"]
    assert len(standalone) == 1
    assert standalone[0]["role"] == "assistant"
    assert END_MARKER not in standalone[0]["content"]


def test_sanitize_removes_orphans_and_adds_stubs_after_the_call():
    messages = [
        asst(None, [call("keep", "t", {}), call("gone", "t", {})]),
        tool("keep", "r"),
        tool("orphan", "r2"),
        {"role": "tool", "content": "no id"},
    ]
    out, report = sanitize_tool_pairs(messages)
    assert out == [
        messages[0],
        {"role": "tool", "content": STUB_RESULT, "tool_call_id": "gone"},
        tool("keep", "r"),
        {"role": "tool", "content": "no id"},
    ]
    assert report.orphans_removed == [2] and report.stubs_added == [1]


def test_sanitize_prefers_responses_call_id():
    messages = [asst(None, [{"id": "fc_1", "call_id": "call_1", "function": {"name": "t", "arguments": "{}"}}]), tool("call_1", "r")]
    out, report = sanitize_tool_pairs(messages)
    assert out == messages and not report.orphans_removed and not report.stubs_added


def test_strip_historical_media():
    messages = [
        user([IMG, {"type": "text", "text": "first"}]),
        asst([IMG]),
        tool("x", [IMG]),
        user([{"type": "text", "text": "see"}, {"type": "image", "source": {}}]),
        user("text only follow-up"),
    ]
    snapshot = copy.deepcopy(messages)
    out, touched = strip_historical_media(messages)
    assert messages == snapshot
    assert touched == [0, 1, 2]
    assert out[0]["content"] == [STRIPPED, {"type": "text", "text": "first"}]
    assert out[1]["content"] == [STRIPPED] and out[2]["content"] == [STRIPPED]
    assert out[3] is messages[3] and out[4] is messages[4]
    again, touched_again = strip_historical_media(out)
    assert touched_again == [] and again == out
    only_first = [user([IMG]), asst("a")]
    assert strip_historical_media(only_first)[0] is only_first
    no_user_images = [asst([IMG]), user("x")]
    assert strip_historical_media(no_user_images)[0] is no_user_images


def test_compress_never_splits_tool_pairs():
    messages = [sys(), user("go")]
    for i in range(15):
        messages.append(asst(f"s{i}", [call(f"c{i}a", "terminal", {"command": "ls"}), call(f"c{i}b", "read_file", {"path": "a"})]))
        messages.append(tool(f"c{i}a", "o" * 3000))
        messages.append(tool(f"c{i}b", "p" * 3000 + str(i)))
    messages.append(user("done?"))
    res = ContextCompressor(CompressorConfig(profile=V16, context_length=64_000), summarizer=Recorder()).compress(messages)
    assert pairs_valid(res.messages)
    first_after_summary = [o.kind for o in res.assembly.origins].index("summary") + 1
    assert res.messages[first_after_summary]["role"] != "tool"
