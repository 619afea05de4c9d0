"""Strategy comparison and the fact-retention view on a small hand-built coding session."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import core.strategies.masking as masking
from core import CompressorConfig
from core import profiles as P
from core.inspections.lint import error_count, lint
from core.render.retention import retention_figure
from core.render.strategies import strategy_html
from core.strategies import CODEX_SUMMARY_PREFIX, MASK_PLACEHOLDER, StrategyRun
from core.strategies.codex import codex_style
from core.strategies.hermes import hermes
from core.strategies.masking import observation_masking
from core.strategies.truncation import truncation
from core.tokens import get_counter
from core.views.retention import FactIndex, lost_facts, retention_summary
from core.views.strategies import (
    compare_strategies,
    strategy_overview,
    strategy_tradeoffs,
    tradeoff_note,
    upload_errors_note,
)
from tests.helpers import CODING_SESSION, Recorder, failing, user

V16 = "v0.16.0"  # the figures below are v0.16.0's (the analyses follow any profile)

SESSION = CODING_SESSION
ERROR_LINE = "FAILED tests/test_app.py::test_ok - AssertionError: 500 != 200"
SUMMARY = f"## Active Task\nUser asked: 'Run it again.'\n## Critical Context\n{ERROR_LINE}"
COUNTER = get_counter("cl100k_base")


def tokens(indices: list[int]) -> int:
    return sum(COUNTER.count_message(SESSION[i]) for i in indices)


def kept_values(scored: pd.DataFrame) -> dict[str, bool]:
    return dict(zip(scored["value"], scored["kept"], strict=True))


def test_hermes_reports_what_it_kept_and_changed() -> None:
    run = hermes(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY))
    # Head 0-3 (the system prompt gets the compaction note), middle 4-6 summarised, tail 7-10
    # (the forced three-message tail, pulled back to the assistant whose result follows it).
    assert (run.kept, run.altered) == ([1, 2, 3, 7, 8, 9, 10], [0])
    assert run.compacted(len(SESSION)) == [0, 4, 5, 6]
    assert run.summary_text == P.SUMMARY_PREFIX_V0_16_0 + "\n" + SUMMARY
    assert [m["role"] for m in run.messages] == ["system", "user", "assistant", "tool", "user", "assistant", "tool",
                                                 "assistant", "user"]
    assert lint(run.messages).empty
    # Each output message names its original and what the release did to it (its preview's badges).
    assert [origin.source for origin in run.origins] == [0, 1, 2, 3, None, 7, 8, 9, 10]
    assert run.badges(0)[0] == "FROM #0" and "HEAD" in run.badges(0) and len(run.badges(0)) > 2
    assert run.badges(1) == ("FROM #1", "HEAD") and run.badges(8) == ("FROM #10", "TAIL")
    assert run.badges(4) == ("SUMMARY",) and run.badges(len(run.messages)) == ()
    short = hermes(SESSION[:3], CompressorConfig(profile=V16), Recorder(SUMMARY))
    assert short.notes == ["no compaction: outcome too_small"]
    assert [short.badges(n) for n in range(3)] == [("FROM #0",), ("FROM #1",), ("FROM #2",)]


def test_truncation_drops_a_result_whose_call_was_cut() -> None:
    head = [0, 1, 2, 3]
    run = truncation(SESSION, tokens(head) + tokens([8, 9, 10]), protect_first_n=3, counter=COUNTER)
    # 8, 9 and 10 fit, 7 does not: the tail would start with the tool result at 8, so it goes too.
    assert run.kept == [0, 1, 2, 3, 9, 10]
    assert [run.badges(n) for n in range(len(run.messages))] == [(f"FROM #{i}",) for i in run.kept]
    assert run.notes == ["1 tool result(s) at the cut dropped with their call"]
    assert lint(run.messages).empty
    wider = truncation(SESSION, tokens(head) + tokens([7, 8, 9, 10]), protect_first_n=3, counter=COUNTER)
    assert wider.kept == [0, 1, 2, 3, 7, 8, 9, 10] and wider.notes == []
    assert COUNTER.count_messages(wider.messages) == tokens(head) + tokens([7, 8, 9, 10])
    too_small = truncation(SESSION, 10, protect_first_n=3, counter=COUNTER)
    assert too_small.kept == [0, 1, 2, 3]
    assert too_small.notes == ["the protected head alone exceeds the budget"]


def test_observation_masking() -> None:
    run = observation_masking(SESSION, keep_last=0)
    # The third output ("patched") is shorter than the placeholder, so it stays.
    assert run.altered == [3, 5]
    assert [SESSION.index(m) if m in SESSION else None for m in run.messages] == [0, 1, 2, None, 4, None, 6, 7, 8, 9,
                                                                                  10]
    assert run.messages[3] == {"role": "tool", "tool_call_id": "c1", "content": MASK_PLACEHOLDER}
    assert run.badges(3) == ("FROM #3", "MASKED") and run.badges(4) == ("FROM #4",)
    assert [origin.source for origin in run.origins] == list(range(len(SESSION)))
    assert observation_masking(SESSION, keep_last=2).altered == [3]
    assert observation_masking(SESSION).altered == []
    assert lint(run.messages).empty
    assert SESSION[3]["content"].startswith("def handler")  # the input is untouched


def test_codex_style_keeps_user_messages_and_a_summary() -> None:
    run = codex_style(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), counter=COUNTER)
    assert [m["content"] for m in run.messages[1:4]] == [SESSION[1]["content"], SESSION[6]["content"],
                                                         SESSION[10]["content"]]
    assert run.messages[4] == {"role": "user", "content": CODEX_SUMMARY_PREFIX + SUMMARY}
    assert (run.kept, run.altered) == ([0, 1, 6, 10], [])
    assert [run.badges(n) for n in range(5)] == [("FROM #0",), ("FROM #1",), ("FROM #6",), ("FROM #10",), ("SUMMARY",)]
    found = lint(run.messages)
    assert found[found["api"] == "openai"].empty
    # Four user messages in a row: honest Anthropic alternation errors.
    assert found["rule"].tolist() == ["alternation"] * 3
    assert found["message_index"].tolist() == [2, 3, 4]


def test_codex_style_limit_cuts_the_oldest_message_and_skips_handoffs() -> None:
    handoff = user(P.SUMMARY_PREFIX_V0_16_0 + "\nold summary")
    messages = SESSION[:6] + [handoff] + SESSION[6:]
    limit = COUNTER.count_text("Run it again.") + COUNTER.count_text("Use port 8080 instead.") + 8
    run = codex_style(messages, CompressorConfig(profile=V16), Recorder(SUMMARY), user_tokens=limit, counter=COUNTER)
    assert [m["content"] for m in run.messages[1:4]] == ["Fix src/app …[truncated]", "Use port 8080 instead.",
                                                         "Run it again."]
    assert COUNTER.count_text("Fix src/app …[truncated]") <= 8
    assert (run.kept, run.altered) == ([0, 7, 11], [1])
    assert run.badges(1) == ("FROM #1", "SHORTENED") and run.badges(2) == ("FROM #7",)
    assert run.notes == [f"3 user message(s) kept within {limit:,} tokens"]


def test_codex_style_reports_a_failed_summary() -> None:
    run = codex_style(SESSION, CompressorConfig(profile=V16), failing(ValueError("rate limited")), counter=COUNTER)
    assert run.summary_text is None
    assert run.notes[-1] == "summary failed (rate limited); none inserted"
    assert len(run.messages) == 4 and len(run.origins) == 4 and "SUMMARY" not in run.badges(3)
    assert codex_style(SESSION, CompressorConfig(profile=V16), None, counter=COUNTER).notes[-1] == (
        "summary failed (no summarizer configured); none inserted"
    )


def test_the_comparison_table() -> None:
    budget = tokens([0, 1, 2, 3]) + tokens([7, 8, 9, 10])
    comparison = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=budget,
                                    keep_last=1)
    table = comparison.table
    assert table["strategy"].tolist() == ["Hermes v0.15.1", "Hermes v0.16.0", "Hermes v0.17.0", "Hermes v0.18.0",
                                          "Hermes v0.18.1", "Hermes v0.19.0",
                                          "Truncation", "Observation masking (last 1)", "Codex-style"]
    assert table["messages_after"].tolist() == [9, 9, 9, 9, 9, 9, 8, 11, 5]
    assert table["messages_kept"].tolist() == [8, 8, 8, 8, 8, 8, 8, 11, 4]
    assert table.loc[6, "tokens_after"] == budget and bool(table.loc[6, "fits_budget"])
    assert table["openai_errors"].tolist() == [0] * 9
    assert table["anthropic_errors"].tolist() == [0, 0, 0, 0, 0, 0, 0, 0, 3]
    assert table["pairs_ok"].tolist() == [True] * 9
    # v0.19.0's grounded task line quotes the compacted part's user request: two more facts kept.
    assert table["compacted_kept"].tolist()[:6] == [4, 4, 4, 4, 4, 6]
    assert table.attrs["facts_total"] == 13

    # Hermes summarised 4-6: the summary quotes the error line but not the command or port 8080.
    hermes_facts = kept_values(comparison.scored["Hermes v0.16.0"])
    assert hermes_facts[ERROR_LINE] is True
    assert hermes_facts["pytest -q"] is False
    assert hermes_facts["port 8080"] is False
    assert hermes_facts["Use port 8080 instead."] is False  # the user request of the compacted part

    # Truncation dropped 4-6 outright: nothing of them survives but what 7-10 repeat.
    truncated = kept_values(comparison.scored["Truncation"])
    assert truncated[ERROR_LINE] is False and truncated["port 8080"] is False
    assert truncated["tests/test_app.py"] is True  # also in the kept first user message

    # Masking with keep_last=1 masked the first two outputs: their identifiers are gone.
    masked = kept_values(comparison.scored["Observation masking (last 1)"])
    assert masked == {"handler": False, "render_page": False, "tests/test_app.py": True,
                      "tests/test_app.py::test_ok": False, ERROR_LINE: False, "1 failed": False,
                      "3 passed": False, "0.12s": False, "AssertionError": False}
    row = table.loc[7]
    assert (row["compacted_facts"], row["compacted_kept"]) == (9, 1)
    assert row["retention_compacted"] == pytest.approx(1 / 9)

    # The chart: one bar per row of the table, in its order, each titled with its exact figure.
    markup = strategy_html(comparison)
    drawn = re.findall(r'title="([^"]+) · tokens after: ([\d,]+) tokens"', markup)
    assert [name for name, _ in drawn] == table["strategy"].tolist()
    assert [int(tokens.replace(",", "")) for _, tokens in drawn] == table["tokens_after"].tolist()
    shares = re.findall(r'title="([^"]+) · facts kept: ([\d.]+)% of all facts kept verbatim"', markup)
    assert [float(share) for _, share in shares] == pytest.approx((table["retention_all"] * 100).round(1).tolist())
    assert f"budget {budget:,}" in markup and f"original {comparison.tokens_before:,}" in markup


def test_the_original_size_is_a_line_only_while_the_bars_keep_their_room() -> None:
    from dataclasses import replace

    comparison = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY))
    largest = max([comparison.budget_tokens, *comparison.table["tokens_after"].tolist()])

    def widths(markup: str) -> list[float]:
        return [float(w) for w in re.findall(r"height:1.25rem; width:([\d.]+)%", markup)]

    tokens_bars = len(comparison.table)
    near = strategy_html(replace(comparison, tokens_before=2 * largest))
    assert f"original {2 * largest:,}" in near and "off this scale" not in near
    assert max(widths(near)[:tokens_bars]) == pytest.approx(39.0, abs=0.01)  # half the scale: the original's
    # A log cut to a tenth: drawn to the original, every bar would be a sliver. The bars take the scale,
    # and the original is named above them.
    far = strategy_html(replace(comparison, tokens_before=10 * largest))
    assert f"original {10 * largest:,}, off this scale" in far and "original" not in far.split("off this scale")[1]
    assert max(widths(far)[:tokens_bars]) == pytest.approx(78.0 * max(comparison.table["tokens_after"]) / largest,
                                                           abs=0.01)


def test_a_broken_promise_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    comparison = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=1_000)
    assert comparison.violations["upload"].empty
    assert comparison.table["notes"].tolist()[7] == "0 tool output(s) masked"

    def drops_a_result(messages: list, keep_last: int = 10) -> StrategyRun:
        run = observation_masking(messages, keep_last)
        run.messages = [m for m in run.messages if m.get("tool_call_id") != "c2"]
        return run

    monkeypatch.setattr(masking, "observation_masking", drops_a_result)
    broken = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=1_000)
    row = broken.table.loc[7]
    assert not row["pairs_ok"]
    assert row["pair_violations"] == 2  # unanswered call (OpenAI) + tool_use not answered (Anthropic)
    assert row["notes"].endswith("promised valid tool pairs but the lint found 2 pair violation(s)")


def test_fact_index_parts_and_the_retention_view() -> None:
    index = FactIndex(SESSION)
    part = index.facts_in([4, 5, 6])
    assert part["kind"].tolist() == ["command", "path", "path", "error", "quantity", "quantity", "quantity",
                                     "identifier", "user_request", "quantity"]
    assert part["message_index"].tolist() == [4, 5, 5, 5, 5, 5, 5, 5, 6, 6]
    # tests/test_app.py first appears in message 1, but within the part it first appears in 5.
    assert part.loc[part["value"] == "tests/test_app.py", "message_index"].item() == 5
    scored = index.retention_of([4, 5, 6], "see tests/test_app.py::test_ok and port 8080")
    assert retention_summary(scored) == {"total": 10, "kept": 3, "lost": 7, "score": 0.3}
    lost = lost_facts(scored)
    assert lost["value"].tolist() == ["pytest -q", ERROR_LINE, "1 failed", "3 passed", "0.12s", "AssertionError",
                                      "Use port 8080 instead."]
    assert index.facts_in([]).empty
    assert retention_summary(index.retention_of([], "x")) == {"total": 0, "kept": 0, "lost": 0, "score": 1.0}
    fig = retention_figure({"a": scored})
    assert list(fig.data[0].x) == ["user request", "path", "command", "error", "quantity", "identifier"]
    assert list(fig.data[0].y) == [0.0, 100.0, 0.0, 0.0, 25.0, 0.0]


def test_the_comparison_runs_what_the_registry_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import dataclass

    from core.strategies import STRATEGIES
    from core.strategies.base import BudgetFollower

    @dataclass(frozen=True)
    class KeepEverything(BudgetFollower):
        family: str = "identity"
        label: str = "Identity"
        description: str = "no reduction at all"
        keeps: str = "everything"
        gives_up: str = "nothing"

        def run(self, messages, settings):
            return [StrategyRun(name="Identity", family=self.family, messages=list(messages),
                                kept=list(range(len(messages))))]

    monkeypatch.setitem(STRATEGIES, "identity", KeepEverything())
    comparison = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=100)
    row = comparison.table.set_index("strategy").loc["Identity"]
    assert row["messages_after"] == len(SESSION) and row["compacted_facts"] == 0
    assert not row["fits_budget"]
    assert strategy_overview().startswith("The same conversation reduced 5 ways: Hermes with each release profile")
    assert strategy_overview().endswith("and no reduction at all.")
    tradeoffs = strategy_tradeoffs().set_index("strategy")
    assert tradeoffs.loc["Identity", "gives_up"] == "nothing"
    assert list(tradeoffs.index) == [s.label for s in STRATEGIES.values()]


def test_hermes_runs_only_the_releases_asked_for_and_always_the_chosen_one() -> None:
    every = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=1_000).table
    chosen = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=1_000,
                                hermes_profiles=()).table
    assert chosen["strategy"].tolist() == ["Hermes v0.16.0", "Truncation", "Observation masking (last 10)",
                                           "Codex-style"]
    two = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=1_000,
                             hermes_profiles=("v0.19.0",)).table
    assert two["strategy"].tolist()[:2] == ["Hermes v0.16.0", "Hermes v0.19.0"]
    # The same runs give the same rows, whichever others ran beside them.
    same = every.set_index("strategy").loc[chosen["strategy"], "tokens_after"].tolist()
    assert chosen["tokens_after"].tolist() == same


def test_the_tradeoff_note_names_a_smaller_run_that_keeps_more_facts() -> None:
    comparison = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=100)
    table = comparison.table
    richer_and_smaller = [
        (a, b) for a in table.itertuples() for b in table.itertuples()
        if a.tokens_after < b.tokens_after and a.retention_all > b.retention_all
    ]
    note = tradeoff_note(comparison)
    assert (note is None) == (not richer_and_smaller)
    # A table made to hold such a pair always gets the note, naming both runs.
    table.loc[0, ["tokens_after", "retention_all"]] = [1, 1.0]
    table.loc[1, ["tokens_after", "retention_all"]] = [10_000, 0.5]
    forced = tradeoff_note(comparison)
    assert forced is not None and table.loc[0, "strategy"] in forced and "gives up" in forced


def test_the_errors_the_log_already_has_are_said_apart() -> None:
    clean = compare_strategies(SESSION, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=100)
    assert error_count(lint(SESSION)) == 0 and upload_errors_note(clean) is None
    # Two assistant turns in a row: an Anthropic error (OpenAI accepts it) in the log itself, which
    # the strategies that keep those messages keep.
    doubled = [*SESSION[:2], {"role": "assistant", "content": "Looking at the failing test first."}, *SESSION[2:]]
    found = lint(doubled)
    assert error_count(found, "anthropic") == 1 and error_count(found, "openai") == 0
    comparison = compare_strategies(doubled, CompressorConfig(profile=V16), Recorder(SUMMARY), budget_tokens=100)
    note = upload_errors_note(comparison)
    assert note is not None and "already has 1 Anthropic error " in note and "OpenAI" not in note
    kept = comparison.table.set_index("strategy")["anthropic_errors"]
    assert kept["Observation masking (last 10)"] >= 1  # it keeps every message, and so the error


def test_a_compression_made_already_is_read_not_made_again() -> None:
    from core import ContextCompressor
    from core.summarizers.factory import make_summarizer

    messages = CODING_SESSION
    config = CompressorConfig(context_length=64_000, threshold_percent=0.1, profile="v0.19.0")
    made = ContextCompressor(config, summarizer=make_summarizer("extractive")).compress(messages, on_crash="report")
    assert made.compressed
    asked: list[str] = []

    def summarizer(prompt: str, max_tokens: int) -> str:
        asked.append(prompt)
        return make_summarizer("extractive")(prompt, max_tokens)

    fresh = compare_strategies(messages, config, make_summarizer("extractive"), hermes_profiles=())
    shared = compare_strategies(messages, config, summarizer, hermes_profiles=(), hermes_results={"v0.19.0": made})
    pd.testing.assert_frame_equal(fresh.table, shared.table)
    assert fresh.run("Hermes v0.19.0").messages == shared.run("Hermes v0.19.0").messages
    assert len(asked) == 1  # the Codex-style summary only: Hermes' run was the one given


@pytest.mark.parametrize("profile", list(P.PROFILES))
def test_the_codex_style_summary_is_written_in_every_release(profile) -> None:
    """A reset summarises every turn, so no tail follows its summary (the summary's room must not
    look for one)."""
    from core.summarizers.extractive import ExtractiveSummarizer

    run = codex_style(CODING_SESSION, CompressorConfig(profile=profile), ExtractiveSummarizer())
    assert run.summary_text and run.summary_text.startswith(CODEX_SUMMARY_PREFIX)
    assert not any("summary failed" in note for note in run.notes)


def test_a_first_comparison_leaves_out_the_whole_log_summaries_and_lends_its_rows() -> None:
    config = CompressorConfig(profile=V16)
    whole = compare_strategies(SESSION, config, Recorder(SUMMARY), hermes_profiles=())
    first_summarizer = Recorder(SUMMARY)
    first = compare_strategies(SESSION, config, first_summarizer, hermes_profiles=(), without_whole_log_summaries=True)
    assert first.left_out == ["Codex-style"] and whole.left_out == []
    assert "Codex-style" not in set(first.table["strategy"])
    assert len(first_summarizer.calls) == 1  # Hermes's summary of its middle only
    # The rows it has are the whole comparison's rows.
    pd.testing.assert_frame_equal(first.table, whole.table[whole.table["strategy"] != "Codex-style"]
                                  .reset_index(drop=True))
    assert first.budget_tokens == whole.budget_tokens

    rest = Recorder(SUMMARY)
    completed = compare_strategies(SESSION, config, rest, hermes_profiles=(), earlier=first)
    assert len(rest.calls) == 1 and rest.prompts[0] != first_summarizer.prompts[0]  # only the reset's summary
    pd.testing.assert_frame_equal(completed.table, whole.table)
    assert completed.table.attrs == whole.table.attrs and completed.left_out == []
    assert [(run.name, run.messages) for run in completed.runs] == [(run.name, run.messages) for run in whole.runs]
    assert set(completed.scored) == set(whole.scored) and set(completed.violations) == set(whole.violations)
    # Without a summarizer the reset summarises nothing: nothing is left out.
    assert compare_strategies(SESSION, config, None, hermes_profiles=(), without_whole_log_summaries=True).left_out == []
