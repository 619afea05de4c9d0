"""The deterministic fallback (v0.16.0+) on a window longer than each of its lists' caps.

The summary shows the first 12 completed actions (assistant actions, then tool one-liners), the
first 5 distinct blockers, the last user ask and the last 8 dropped turns; what lies beyond a cap
must not change the text, however long the window is.
"""

from __future__ import annotations

import re

import pytest

from core.phases.fallback import deterministic_fallback_summary
from core.profiles import PROFILES
from core.redaction.hermes import redact_sensitive_text
from tests.helpers import asst, call, tool, user

DETERMINISTIC = [name for name, profile in PROFILES.items() if profile.fallback == "deterministic"]


def _section(summary: str, heading: str) -> list[str]:
    body = summary.split(heading + "\n", 1)[1]
    return [line for line in re.split(r"\n\n## ", body, maxsplit=1)[0].splitlines() if line]


def _window(rounds: int, replies: int) -> list[dict]:
    """``replies`` plain assistant replies, then ``rounds`` of ask, call and failing result."""
    turns = [asst(f"reply {i}") for i in range(replies)]
    for i in range(rounds):
        turns.append(user(f"ask {i}"))
        turns.append(asst(None, [call(f"c{i}", "terminal", {"command": f"make step{i}"})]))
        # The first three results fail the same way: one blocker, shown once.
        turns.append(tool(f"c{i}", "error: same failure" if i < 3 else f"error in step {i}"))
    return turns


def _summary(turns: list[dict], profile: str) -> str:
    return deterministic_fallback_summary(turns, None, None, PROFILES[profile], redact_sensitive_text)


@pytest.mark.parametrize("profile", DETERMINISTIC)
def test_completed_actions_are_the_first_twelve_assistant_actions(profile):
    summary = _summary(_window(rounds=40, replies=0), profile)
    completed = _section(summary, "## Completed Actions")
    assert completed == [f"{n}. Called tool(s): terminal" for n in range(1, 13)]


@pytest.mark.parametrize("profile", DETERMINISTIC)
def test_tool_one_liners_fill_what_the_assistant_actions_leave(profile):
    # 3 replies + 2 rounds' calls = 5 assistant actions; the tool one-liners of the first 7
    # results would follow, but the window only has 2.
    summary = _summary(_window(rounds=2, replies=3), profile)
    completed = _section(summary, "## Completed Actions")
    assert completed[:5] == ["1. reply 0", "2. reply 1", "3. reply 2",
                             "4. Called tool(s): terminal", "5. Called tool(s): terminal"]
    assert [line.split(". ", 1)[1].split("`")[1] for line in completed[5:]] == ["make step0", "make step1"]


@pytest.mark.parametrize("profile", DETERMINISTIC)
def test_long_window_shows_first_blockers_last_ask_and_last_turns(profile):
    summary = _summary(_window(rounds=200, replies=0), profile)
    assert _section(summary, "## Blocked") == [
        "- error: same failure", "- error in step 3", "- error in step 4", "- error in step 5", "- error in step 6",
    ]
    assert "User asked: 'ask 199'" in summary
    # The last 8 turns, each distinct one once (the repeated call line appears once).
    assert _section(summary, "## Last Dropped Turns") == [
        "- ASSISTANT: tool calls: terminal", "- TOOL: error in step 197", "- USER: ask 198",
        "- TOOL: error in step 198", "- USER: ask 199", "- TOOL: error in step 199",
    ]
    assert "600 compacted message(s)" in summary


@pytest.mark.parametrize("profile", DETERMINISTIC)
def test_a_longer_window_beyond_the_caps_changes_only_the_ask_turns_and_count(profile):
    # Rounds 40 and 41 add an ask, a call and a result each: beyond every "first N" cap.
    short, long = _summary(_window(rounds=40, replies=0), profile), _summary(_window(rounds=42, replies=0), profile)
    for heading in ("## Completed Actions", "## Blocked", "## Relevant Files"):
        assert _section(short, heading) == _section(long, heading)
    assert "User asked: 'ask 41'" in long and "User asked: 'ask 39'" in short


@pytest.mark.parametrize("profile", DETERMINISTIC)
def test_without_assistant_actions_the_first_twelve_results_are_listed(profile):
    # Results whose calls are not in the window: their tool is "unknown".
    turns = [tool(f"gone{i}", f"output number {i}") for i in range(30)]
    completed = _section(_summary(turns, profile), "## Completed Actions")
    assert len(completed) == 12
    assert [line.split(". ", 1)[0] for line in completed] == [str(n) for n in range(1, 13)]
    assert all("[unknown]" in line for line in completed)
