"""API validity lint on small hand-built conversations: the exact violations each one has."""

from __future__ import annotations

import pandas as pd
import pytest

from core import CompressorConfig, ContextCompressor
from core.inspections.lint import (
    LINT_COLUMNS,
    RULES,
    error_count,
    is_valid,
    lint,
    lint_anthropic,
    lint_openai,
    lint_summary,
)
from tests.helpers import Recorder, asst, call, tool, user
from tests.helpers import sys as system


def rows(frame: pd.DataFrame) -> list[tuple]:
    """(rule, severity, message_index) of each violation."""
    return [(r, s, None if pd.isna(i) else int(i)) for r, s, i in
            zip(frame["rule"], frame["severity"], frame["message_index"], strict=True)]


VALID = [
    system(),
    user("Run the tests."),
    asst("Running both suites.", [call("c1", "terminal", {"command": "pytest -q"}),
                                  call("c2", "terminal", {"command": "npm test"})]),
    tool("c1", "3 passed"),
    tool("c2", "ok"),
    asst("All green."),
    user("Thanks."),
]


def test_a_valid_tool_conversation_has_no_violations() -> None:
    found = lint(VALID)
    assert list(found.columns) == LINT_COLUMNS
    assert found.empty
    assert is_valid(found)
    summary = lint_summary(found)
    assert summary.to_dict("list") == {"api": ["openai", "anthropic"], "errors": [0, 0], "warnings": [0, 0],
                                       "valid": [True, True]}


def test_an_unanswered_call() -> None:
    messages = [user("Deploy."), asst(None, [call("c1", "terminal", {"command": "make deploy"})]), user("Well?")]
    assert rows(lint_openai(messages)) == [("unanswered_tool_call", "error", 1)]
    assert lint_openai(messages)["detail"].item() == "call c1 has no tool message right after it"
    assert rows(lint_anthropic(messages)) == [("tool_result_not_next", "error", 1)]


def test_a_result_after_another_message_is_misplaced() -> None:
    messages = [user("Deploy."), asst(None, [call("c1", "terminal", {"command": "make deploy"})]),
                user("Well?"), tool("c1", "done")]
    openai = lint_openai(messages)
    assert rows(openai) == [("unanswered_tool_call", "error", 1), ("misplaced_tool_result", "error", 3)]
    assert openai["detail"].tolist() == [
        "call c1 has no tool message right after it; its result comes later, at message 3",
        "answers call c1 of message 1, but does not follow it directly",
    ]
    # Anthropic: the user text and the later result are separate user turns.
    assert rows(lint_anthropic(messages)) == [
        ("tool_result_not_next", "error", 1),
        ("alternation", "error", 3),
        ("orphan_tool_result", "error", 3),
    ]


def test_orphan_results_and_missing_ids() -> None:
    messages = [user("Hi."), asst("Hello."), tool("zz", "stale output"), {"role": "tool", "content": "no id"}]
    assert rows(lint_openai(messages)) == [("orphan_tool_result", "error", 2), ("tool_call_id_missing", "error", 3)]
    assert rows(lint_anthropic(messages)) == [
        ("orphan_tool_result", "error", 2),
        ("tool_call_id_missing", "error", 3),
    ]


def test_roles_content_types_and_call_shapes() -> None:
    messages = [
        {"role": "system", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]},
        {"role": "user", "content": {"text": "a dict is not content"}},
        {"role": "assistant", "content": None},
        {"role": "critic", "content": "hmm"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "x", "arguments": "{not json"}},
                        {"type": "function", "function": {"name": "y", "arguments": {"a": 1}}}]},
        tool("c9", "ok"),
        {"role": "user", "content": "fine", "tool_calls": []},
        {"role": "function", "name": "old", "content": "legacy"},
    ]
    assert rows(lint_openai(messages)) == [
        ("content_type", "error", 0),
        ("content_type", "error", 1),
        ("content_missing", "error", 2),
        ("invalid_role", "error", 3),
        ("arguments_not_json", "warning", 4),
        ("tool_call_malformed", "error", 4),
        ("tool_calls_role", "error", 6),
        ("legacy_role", "warning", 7),
    ]
    found = lint_openai(messages)
    assert found.loc[found["rule"] == "tool_call_malformed", "detail"].item() == (
        "tool call 1: no id, arguments are not a string"
    )
    assert error_count(found) == 6
    assert error_count(found, "anthropic") == 0


def test_duplicate_ids_and_results() -> None:
    messages = [
        user("Go."),
        asst(None, [call("c1", "a", {}), call("c1", "b", {})]),
        tool("c1", "one"),
        tool("c1", "two"),
        asst(None, [call("c1", "c", {})]),
        tool("c1", "three"),
    ]
    assert rows(lint_openai(messages)) == [
        ("duplicate_tool_call_id", "error", 1),
        ("duplicate_tool_result", "warning", 3),
        ("duplicate_tool_call_id", "warning", 4),
    ]
    assert rows(lint_anthropic(messages)) == [("duplicate_tool_result", "error", 3)]


def test_anthropic_turn_rules() -> None:
    messages = [
        system(),
        asst("I speak first."),
        user("Then me."),
        user("And me again."),
        {"role": "system", "content": "late instructions"},
        asst(""),
        user(""),
        asst(None, [call("c1", "terminal", {"command": "ls"})]),
        tool("c1", "a.py"),
        user("Also check b.py"),  # joins the tool results' user turn: no alternation problem
        asst(""),  # the final assistant message may be empty
    ]
    assert rows(lint_anthropic(messages)) == [
        ("first_not_user", "error", 1),
        ("alternation", "error", 3),
        ("system_not_leading", "error", 4),
        ("empty_content", "error", 5),
        ("empty_content", "error", 6),
    ]
    # OpenAI has no alternation rule and accepts empty strings and late system messages.
    assert lint_openai(messages).empty


def test_anthropic_starting_with_a_tool_result_and_empty_text_blocks() -> None:
    messages = [tool("c0", "x"), asst([{"type": "text", "text": " "}, {"type": "text", "text": "ok"}])]
    assert rows(lint_anthropic(messages)) == [
        ("first_not_user", "error", 0),
        ("orphan_tool_result", "error", 0),
        ("empty_content", "error", 1),
    ]



def test_anthropic_findings_on_one_message_keep_the_order_of_the_checks() -> None:
    # Several rules fire on the same message: its own checks come first, then the first turn's,
    # the alternation's and the tool blocks', whatever order the turns were checked in.
    messages = [
        asst(""),
        user(""),
        user(""),
        asst(None, [call("c1", "terminal", {"command": "ls"})]),
        asst(None, [call("c2", "terminal", {"command": "pwd"})]),
        tool("c9", "no call of this id"),
        asst("done"),
    ]
    assert rows(lint_anthropic(messages)) == [
        ("empty_content", "error", 0),
        ("first_not_user", "error", 0),
        ("empty_content", "error", 1),
        ("empty_content", "error", 2),
        ("alternation", "error", 2),
        ("tool_result_not_next", "error", 3),
        ("alternation", "error", 4),
        ("tool_result_not_next", "error", 4),
        ("orphan_tool_result", "error", 5),
    ]


def test_empty_and_system_only() -> None:
    assert rows(lint([])) == [("empty_conversation", "error", None), ("empty_conversation", "error", None)]
    assert rows(lint_anthropic([system()])) == [("no_messages", "error", None)]
    assert lint_openai([system()]).empty
    with pytest.raises(ValueError, match="unknown API"):
        lint(VALID, apis=("gemini",))


def test_every_rule_is_explained() -> None:
    used = {
        "empty_conversation", "not_a_message", "invalid_role", "legacy_role", "content_missing", "content_type",
        "tool_calls_role", "tool_call_malformed", "arguments_not_json", "duplicate_tool_call_id",
        "tool_call_id_missing", "unanswered_tool_call", "misplaced_tool_result", "orphan_tool_result",
        "duplicate_tool_result", "system_not_leading", "no_messages", "first_not_user", "alternation",
        "tool_result_not_next", "empty_content",
    }
    assert set(RULES) == used


def test_a_hermes_output_passes_both_rule_sets() -> None:
    messages = [system(), user("Fix src/app.py")]
    for j in range(12):
        messages.append(asst(None, [call(f"c{j}", "read_file", {"path": f"src/m{j}.py"})]))
        messages.append(tool(f"c{j}", f"contents {j} " + "y" * 400))
    messages.append(asst("Done."))
    messages.append(user("Now run the tests."))
    result = ContextCompressor(CompressorConfig(), summarizer=Recorder()).compress(messages)
    assert result.outcome == "summarized"
    assert lint(result.messages).empty
    # The middle alone, cut at a tool result, is what a naive truncation would send.
    broken = messages[:2] + messages[5:]
    assert rows(lint_openai(broken)) == [("orphan_tool_result", "error", 2)]


def _first_result_after(messages: list, owner: int, cid: str) -> int | None:
    """The oracle: a scan for the first tool message answering ``cid`` after message ``owner``."""
    return next((j for j, m in enumerate(messages) if j > owner and m.get("role") == "tool"
                 and m.get("tool_call_id") == cid), None)


@pytest.mark.parametrize("seed", range(8))
def test_an_unanswered_call_names_the_first_later_result_of_its_id(seed: int) -> None:
    import random

    rng = random.Random(seed)
    messages: list = [user("Go.")]
    owners: dict[str, int] = {}
    pending: list[str] = []
    for step in range(120):
        kind = rng.choice(["call", "call", "result", "text", "early"])
        if kind == "call":
            cid = f"c{rng.randrange(40)}"  # ids repeat: a later call may reuse one
            owners[cid] = len(messages)
            messages.append(asst(None, [call(cid, "terminal", {"command": f"step {step}"})]))
            if rng.random() < 0.4:
                messages.append(tool(cid, "done"))
            else:
                pending.append(cid)
        elif kind == "result" and pending:
            messages.append(tool(pending.pop(rng.randrange(len(pending))), "late"))
        elif kind == "early":
            messages.append(tool(f"c{rng.randrange(40)}", "a result before (or without) its call"))
        else:
            messages.append(user("And?"))
    found = lint_openai(messages)
    unanswered = found[found["rule"] == "unanswered_tool_call"]
    assert len(unanswered) > 5
    for row in unanswered.itertuples(index=False):
        cid = row.detail.split()[1]
        later = _first_result_after(messages, int(row.message_index), cid)
        expected = f"call {cid} has no tool message right after it"
        if later is not None:
            expected += f"; its result comes later, at message {later}"
        assert row.detail == expected
