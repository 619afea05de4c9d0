"""Timeline replay on small hand-built conversations, with exact figures.

Token figures are the Hermes rough estimate: ``(sum of len(str(message)) + 3) // 4``. The
character counts of the messages below are given in the comments so each figure can be checked
by hand.
"""

from __future__ import annotations

import copy

import pandas as pd
import plotly.graph_objects as go

from core import CompressorConfig
from core import profiles as P
from core.formats import CompactionEvent, Conversation
from core.render.replay import replay_figure
from core.tokens import estimate_messages_tokens_rough
from core.views.replay import (
    compactions_table,
    logged_prompt_tokens,
    real_compactions,
    replay,
    summary_evolution,
)
from tests.helpers import Recorder, asst, call, failing, tool, user
from tests.helpers import sys as system

V16 = "v0.16.0"  # the figures below are v0.16.0's (the analyses follow any profile)


def tool_loop(rounds: int = 30) -> list[dict]:
    """System (56 chars as str), user (66), then ``rounds`` x (assistant call: 163, tool result: 20,054)."""
    messages = [system(), user("Fix the failing build in src/app.py")]
    for j in range(rounds):
        messages.append(asst(None, [call(f"c{j:02d}", "read_file", {"path": f"src/m{j:02d}.py"})]))
        messages.append(tool(f"c{j:02d}", f"out{j:02d} " + "x" * 19_994))
    messages.append(asst("Done."))
    return messages


def stuck_on_a_dump() -> list[dict]:
    """The newest user message is a 270,000-character dump: it always stays in the protected tail.

    str lengths: 56, 51, 53, 56, 47, 58, 44, 270,055, then (174, 59) x 5, then 41.
    """
    messages = [
        system(),
        user("Start the migration."),
        asst("Reading the plan."),
        user("Use the staging database."),
        asst("Understood."),
        user("Keep the old schema around."),
        asst("Will do."),
        user("Here is the full dump:\n" + "d" * 270_000),
    ]
    for j in range(5):
        messages.append(asst(None, [call(f"k{j}", "terminal", {"command": f"psql -c 'select {j}'"})]))
        messages.append(tool(f"k{j}", f"{j} rows"))
    messages.append(asst("Done."))
    return messages


def test_below_the_threshold_nothing_happens() -> None:
    messages = [system(), user("hi"), asst("hello"), user("list files"), asst("a.py b.py")]
    result = replay(messages, CompressorConfig(profile=V16), Recorder())
    assert result.points["message_index"].tolist() == [2, 4]
    # 56 + 33 = 89 chars -> (89 + 3) // 4 = 23 tokens; 89 + 41 + 41 = 171 chars -> 43 tokens
    assert result.points["prompt_before"].tolist() == [23, 43]
    assert result.points["prompt_after"].tolist() == [23, 43]
    assert not result.points["compacted"].any()
    assert result.compactions == []
    assert result.warnings == []
    assert result.final_messages == messages
    assert result.final_origins == [0, 1, 2, 3, 4]


def test_sawtooth_with_an_iterative_summary() -> None:
    messages = tool_loop()
    original = copy.deepcopy(messages)
    summarizer = Recorder("## Active Task\nNone.")
    result = replay(messages, CompressorConfig(profile=V16, context_length=128_000), summarizer)
    assert messages == original  # the upload is never modified

    first = result.compactions[0]
    # Before message 28 the context holds 56 + 66 + 13 x (163 + 20,054) = 262,943 chars:
    # (262,943 + 3) // 4 = 65,736 tokens, the first estimate at or above the 64,000 threshold.
    assert (first.message_index, first.turn, first.tokens_before) == (28, 13, 65_736)
    assert result.points.loc[result.points["message_index"] == 26, "prompt_before"].item() == 60_682
    assert first.outcome == "summarized"
    # Head = system + 3 messages (0-3); the tail walk stops at message 22 and is pulled back to the
    # assistant at 20 whose result precedes the cut: 4 head + 1 summary + 8 tail = 13 messages.
    assert first.messages_before == 28
    assert first.messages_after == 13
    assert first.compacted_indices == list(range(4, 20))
    assert first.tokens_after == estimate_messages_tokens_rough(first.messages)
    assert first.summary_text == P.SUMMARY_PREFIX_V0_16_0 + "\n## Active Task\nNone."

    row = result.points[result.points["message_index"] == 28].iloc[0]
    assert bool(row["compacted"]) and row["prompt_before"] == 65_736 and row["prompt_after"] == first.tokens_after

    # Later compactions update the previous summary (the prompt carries it).
    assert len(result.compressed) == 4
    assert [r.message_index for r in result.compactions] == [28, 46, 52, 58]
    first_prompt, second_prompt = summarizer.calls[0][0], summarizer.calls[1][0]
    assert "TURNS TO SUMMARIZE:" in first_prompt and "PREVIOUS SUMMARY:" not in first_prompt
    assert "PREVIOUS SUMMARY:\n## Active Task\nNone." in second_prompt
    evolution = summary_evolution(result)
    assert evolution["compaction"].tolist() == [1, 2, 3, 4]
    assert evolution["iterative"].tolist() == [False, True, True, True]
    assert evolution["body"].tolist() == ["## Active Task\nNone."] * 4
    assert result.summaries[0] == first.summary_text

    # The context the replay continued from is the compressed one plus what followed.
    assert result.final_messages[-1] == messages[-1]
    assert result.final_origins[-1] == len(messages) - 1
    assert result.warnings == []


def test_thrashing_and_a_tail_above_the_threshold() -> None:
    result = replay(stuck_on_a_dump(), CompressorConfig(profile=V16, context_length=128_000), Recorder())
    table = compactions_table(result)
    assert table["message_index"].tolist() == [8, 10, 12]
    # The compressor summarised three short messages twice, but its handoff (prefix and summary) outweighs
    # them: no compaction happened, and the context was kept as it was.
    assert table["outcome"].tolist() == ["too_small", "not_smaller", "not_smaller"]
    # 56 + 51 + 53 + 56 + 47 + 58 + 44 + 270,055 = 270,420 chars -> 67,605 tokens
    assert table["tokens_before"].tolist()[0] == 67_605
    assert (table["tokens_after"] == table["tokens_before"]).all() and (table["savings_pct"] == 0).all()
    assert (table["messages_after"] == table["messages_before"]).all() and (table["messages_summarised"] == 0).all()
    # The compressor's own state is what Hermes made of the calls: two strikes of anti-thrashing.
    assert table["ineffective_strikes"].tolist() == [0, 1, 2]
    # Turns 14, 16 and 18 stay above the threshold, but anti-thrashing keeps the compressor quiet.
    skipped = result.points[result.points["message_index"] >= 14]
    assert skipped["outcome"].tolist() == ["", "", ""]
    assert (skipped["prompt_before"] >= result.threshold_tokens).all()
    assert result.compressed == [] and result.final_messages == stuck_on_a_dump()
    made_none = [w for w in result.warnings if "made no compaction" in w]
    assert [w.split(" made")[0] for w in made_none] == ["compress() #2 at message 10", "compress() #3 at message 12"]
    assert all("outweighs the 3 message(s) it replaces" in w and "The context was kept as it was." in w
               for w in made_none)
    assert [record.why for record in result.compactions[1:]] == [w.split("compaction: ")[1][:-len(
        ". The context was kept as it was.")] for w in made_none]
    warnings = [w for w in result.warnings if w not in made_none]
    assert len(warnings) == 3
    assert warnings[0].startswith("Compaction #2 at message 10: the protected tail alone is ~67,572 tokens")
    assert warnings[1].startswith("Anti-thrashing engaged after compaction #3 at message 12")
    assert warnings[2] == (
        "3 assistant turn(s) ran over the threshold without compressing (anti-thrashing), the first at message 14."
    )


def test_a_middle_holding_only_the_earlier_summary_is_no_compaction() -> None:
    messages = stuck_on_a_dump()
    for index in (4, 5, 6):  # the three messages before the dump, long enough for a summary to pay off
        messages[index] = {**messages[index], "content": messages[index]["content"] + " notes" * 400}
    result = replay(messages, CompressorConfig(profile=V16, context_length=128_000), Recorder())
    table = compactions_table(result)
    assert table["outcome"].tolist() == ["too_small", "summarized", "not_smaller"]
    first, second = result.compactions[1:]
    assert first.tokens_after < first.tokens_before and first.messages_summarised == 3
    # The dump stays in the tail and the head is fixed: the next middle is the summary alone, rewritten as it was.
    assert second.why == ("nothing new to summarise, the middle held only the earlier summary (the prompt would "
                          f"have gone from {second.tokens_before:,} to {second.tokens_before:,} tokens)")
    assert second.tokens_after == second.tokens_before and second.messages == first.messages + messages[10:12]
    assert result.compressed == [first]


def test_failures_and_the_cooldown_carry_across_turns() -> None:
    summarizer = failing(ValueError("boom"))
    calls: list[int] = []

    def counting(prompt: str, max_tokens: int) -> str:
        calls.append(max_tokens)
        return summarizer(prompt, max_tokens)

    # 20 simulated seconds per turn: the second attempt (40 s later) falls inside the 60 s cooldown.
    result = replay(stuck_on_a_dump(), CompressorConfig(profile=V16, context_length=64_000), counting, seconds_per_turn=20)
    attempts = result.compactions[1:]  # the first call returned early: too few messages
    assert [r.failure_reason for r in attempts] == ["boom", None]
    assert len(calls) == 1
    assert [r.cooldown_s for r in attempts] == [60.0, 40.0]
    assert result.warnings[0] == (
        "At message 8 the prompt (~67,605 tokens) exceeds the model's window (64,000): the real agent "
        "would have hit a context-overflow error there."
    )
    # Both fallback summaries outweigh the three short messages they replace: no compaction happened.
    assert [r.outcome for r in attempts] == ["not_smaller", "not_smaller"] and result.compressed == []
    assert attempts[0].why.startswith("the summary failed (boom), and the fallback summary (~")
    assert attempts[1].why.startswith("the summarizer was still cooling down after a failure, and the fallback summary")


def test_v0_18_0_waits_out_the_cooldown_and_aborts_on_network_failures() -> None:
    calls: list[int] = []

    def offline(prompt: str, max_tokens: int) -> str:
        calls.append(max_tokens)
        raise ConnectionError("Connection refused")

    config = CompressorConfig(profile="v0.18.0", context_length=64_000)
    result = replay(stuck_on_a_dump(), config, offline, seconds_per_turn=20)
    # Every attempt aborts (network); for 30 s should_compress is False, then it tries and aborts again.
    attempts = [r for r in result.compactions if r.outcome != "too_small"]
    assert attempts and {r.outcome for r in attempts} == {"aborted"}
    assert len(calls) == len(attempts)
    assert any("a network or connection failure, on which this release always aborts" in w for w in result.warnings)
    assert any("cooling down after a failure (v0.18.0 does not compress then)" in w for w in result.warnings)
    # The same run on v0.16.0 inserts fallback summaries instead.
    older = replay(stuck_on_a_dump(), CompressorConfig(profile=V16, context_length=64_000), offline, seconds_per_turn=20)
    tried = [r for r in older.compactions if r.outcome != "too_small"]
    assert tried and all(r.outcome == "not_smaller" and "the fallback summary" in r.why for r in tried)


def test_without_a_summarizer_the_profile_fallback_runs() -> None:
    result = replay(tool_loop(), CompressorConfig(profile=V16), None)
    first = result.compactions[0]
    assert first.outcome == "fallback"
    assert first.failure_reason == "no auxiliary LLM provider configured"
    assert first.summary_text.startswith(P.SUMMARY_PREFIX_V0_16_0)


def test_the_log_events_and_usage() -> None:
    conversation = Conversation(
        format="claude-code",
        messages=[user("a"), asst("b"), user("c"), asst("d")],
        usage=[None, {"input_tokens": 10, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 2},
               None, {"prompt_tokens": 100}],
        compaction_events=[CompactionEvent(position=2, kind="compact_boundary", summary="s" * 12, pre_tokens=150_000),
                           CompactionEvent(position=3, kind="compacted")],
    )
    events = real_compactions(conversation)
    assert events["position"].tolist() == [2, 3]
    assert events["kind"].tolist() == ["compact_boundary", "compacted"]
    assert events["pre_tokens"].tolist() == [150_000, pd.NA]
    assert events["summary_chars"].tolist() == [12, 0]
    logged = logged_prompt_tokens(conversation)
    assert logged.to_dict("list") == {"message_index": [1, 3], "prompt_tokens": [17, 100]}


def test_the_figure() -> None:
    result = replay(tool_loop(), CompressorConfig(profile=V16), Recorder())
    events = pd.DataFrame({"position": [40], "kind": ["compact_boundary"], "pre_tokens": [70_000],
                           "summary_chars": [0], "source": [""]})
    fig = replay_figure(result, events, pd.DataFrame({"message_index": [2, 4], "prompt_tokens": [100, 200]}))
    assert isinstance(fig, go.Figure)
    names = [trace.name for trace in fig.data]
    assert names == ["prompt size (replay)", "compaction (summary)", "prompt size (log usage)",
                     "compaction in the log"]
    curve = fig.data[0]
    first = result.compactions[0]
    # The sawtooth drops at message 28: two points at the same x, before then after.
    position = list(curve.x).index(28)
    assert list(curve.x[position:position + 2]) == [28, 28]
    assert list(curve.y[position:position + 2]) == [65_736, first.tokens_after]
    assert list(fig.data[1].x) == [28, 46, 52, 58]
    threshold_lines = [s for s in fig.layout.shapes if s.y0 == 64_000 and s.y1 == 64_000]
    assert len(threshold_lines) == 1
    assert [s.x0 for s in fig.layout.shapes if s.xref == "x"] == [39.5]
    assert list(fig.data[3].y) == [70_000]
    # The y axis makes room for a logged compaction far above the curve.
    events.loc[0, "pre_tokens"] = 155_116
    assert replay_figure(result, events).layout.yaxis.range[1] >= 155_116


def test_the_caption_names_only_what_the_figure_draws() -> None:
    from core.render.replay import replay_caption

    compacting = replay(tool_loop(), CompressorConfig(profile=V16), Recorder())
    quiet = replay(tool_loop(3), CompressorConfig(profile=V16), Recorder())
    events = pd.DataFrame({"position": [40], "kind": ["compact_boundary"], "pre_tokens": [70_000],
                           "summary_chars": [0], "source": [""]})
    logged = pd.DataFrame({"message_index": [2, 4], "prompt_tokens": [100, 200]})
    for result in (compacting, quiet):
        for args in ((), (events,), (None, logged), (events, logged)):
            names = {trace.name for trace in replay_figure(result, *args).data}
            caption = replay_caption(result, *args)
            assert ("triangle" in caption) == bool({"compaction (summary)", "compaction (fallback)"} & names)
            assert ("Purple" in caption) == ("compaction in the log" in names)
            assert ("teal" in caption) == ("prompt size (log usage)" in names)
    assert "never reached the threshold" in replay_caption(quiet)
