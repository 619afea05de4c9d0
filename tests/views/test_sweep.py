"""Parameter sweep: every cell equals a real compression whose summary is exactly its budget.

The sweep never calls a summarizer; it assumes the summary body is ``summary_budget`` tokens long
(4 characters a token for the Hermes estimate). A summarizer that returns exactly that makes the
real compressor produce the output the sweep predicts, so each cell is checked against
``ContextCompressor.compress`` itself: boundaries, message count and the final estimate.
"""

from __future__ import annotations

import math

import pytest

from core import CompressorConfig, ContextCompressor
from core import profiles as P
from core.profiles import PROFILES
from core.render.sweep import sweep_heatmap
from core.summarizers.base import SummaryRequest
from core.tokens import estimate_messages_tokens_rough, get_counter
from core.views.sweep import best_cells, prepare_sweep, sweep, sweep_cell
from tests.helpers import asst, call, tool, user
from tests.helpers import sys as system


class BudgetSized:
    """Answers with a body of exactly the requested budget (4 chars, or one ``the``, per token)."""

    def __init__(self, words: bool = False) -> None:
        self.words = words
        self.budgets: list[int] = []

    def summarize_request(self, request: SummaryRequest) -> str:
        self.budgets.append(request.summary_budget)
        if self.words:
            return "the" + " the" * (request.summary_budget - 1)
        return "x" * (4 * request.summary_budget)

    def __call__(self, prompt: str, max_tokens: int) -> str:  # pragma: no cover - the request path is used
        raise AssertionError("the compressor should call summarize_request")


def coding_session(rounds: int = 40, size: int = 3_000) -> list[dict]:
    messages = [system(), user("Port the parser to the new API; keep tests/test_parser.py green.")]
    for j in range(rounds):
        messages.append(asst(f"Step {j}.", [call(f"c{j}", "read_file", {"path": f"src/p{j}.py"})]))
        messages.append(tool(f"c{j}", f"file p{j}\n" + "line of code\n" * (size // 13)))
        if j % 9 == 8:
            messages.append(user(f"Also look at docs/p{j}.md"))
    messages.append(asst("Done with this pass."))
    return messages


def merge_case() -> list[dict]:
    """protect_first_n=2 makes the head end with the assistant at 2; the tail starts with a user
    message, so the summary is merged into it (both neighbours collide)."""
    messages = [system(), user("Go."), asst("Starting.")]
    for j in range(30):
        messages.append(user(f"Request {j}: " + "r" * 2_000))
        messages.append(asst(f"Answer {j}: " + "a" * 2_000))
    messages.append(user("Last question?"))
    return messages


def stub_and_orphan_case() -> list[dict]:
    """A call in the head whose result comes after a user message (so it is summarised: a stub is
    added), and a result in the tail whose call is summarised (an orphan is removed)."""
    messages = [system(), user("Go."), asst(None, [call("h1", "terminal", {"command": "make"})]), user("Wait."),
                tool("h1", "built " + "b" * 500)]
    for j in range(25):
        messages.append(asst(f"Working {j}.", [call(f"w{j}", "terminal", {"command": f"step {j}"})]))
        messages.append(tool(f"w{j}", "o" * 3_000))
    messages.append(asst(None, [call("late", "terminal", {"command": "ls"})]))
    messages.append(user("Quick note."))
    messages += [asst("ok " + "k" * 4_000), user("More."), asst("sure " + "s" * 4_000), tool("late", "a.py")]
    messages.append(user("Continue."))
    return messages


def rehydration_case() -> list[dict]:
    """An earlier handoff summary in the middle: only the turns after it are summarised."""
    messages = coding_session(rounds=30)
    summary = {"role": "user", "content": P.SUMMARY_PREFIX_V0_16_0 + "\n## Active Task\nEarlier work." + "z" * 9_000}
    return messages[:6] + [summary, asst("Continuing.")] + messages[6:]


def real(messages: list[dict], config: CompressorConfig, words: bool = False) -> tuple:
    summarizer = BudgetSized(words)
    result = ContextCompressor(config, summarizer=summarizer).compress(messages)
    return result, summarizer


def check_grid(messages: list[dict], firsts: list[int], **config: object) -> int:
    base = prepare_sweep(messages)
    compared = 0
    for first in firsts:
        for threshold in (0.3, 0.6, 0.9):
            for ratio in (0.1, 0.35, 0.8):
                cfg = CompressorConfig(threshold_percent=threshold, summary_target_ratio=ratio,
                                       protect_first_n=first, **config)
                cell = sweep_cell(base, cfg, respect_trigger=False)
                result, summarizer = real(messages, cfg)
                assert cell["outcome"] == result.outcome
                assert cell["prune_boundary"] == result.plan.prune_boundary
                assert (cell["compress_start"], cell["compress_end"]) == (result.plan.compress_start, result.plan.compress_end)
                assert cell["messages_after"] == len(result.messages)
                assert cell["final_tokens"] == estimate_messages_tokens_rough(result.messages)
                if result.outcome == "summarized":
                    assert cell["summary_budget"] == summarizer.budgets[-1]
                compared += 1
    return compared


@pytest.mark.parametrize("profile", list(PROFILES))
def test_cells_match_the_compressor_on_a_coding_session(profile) -> None:
    assert check_grid(coding_session(), [1, 3, 6], profile=profile) == 27


@pytest.mark.parametrize("profile", list(PROFILES))
def test_cells_match_when_the_summary_is_merged(profile) -> None:
    messages = merge_case()
    result, _ = real(messages, CompressorConfig(protect_first_n=2, summary_target_ratio=0.1, profile=profile))
    assert result.assembly.summary_merged
    assert check_grid(messages, [1, 2], profile=profile) == 18


def test_cells_match_with_stubs_and_orphans() -> None:
    messages = stub_and_orphan_case()
    result, _ = real(messages, CompressorConfig(protect_first_n=2, summary_target_ratio=0.1, profile="v0.16.0"))
    assert result.assembly.stubs_added == 1 and result.assembly.orphans_removed == 1
    stripped, _ = real(messages, CompressorConfig(protect_first_n=2, summary_target_ratio=0.1, profile="v0.18.0"))
    assert stripped.assembly.calls_stripped == 1 and stripped.assembly.stubs_added == 0
    for profile in PROFILES:
        assert check_grid(messages, [2], protect_last_n=4, profile=profile) == 9


def test_cells_match_with_an_earlier_summary_and_other_profiles() -> None:
    messages = rehydration_case()
    result, _ = real(messages, CompressorConfig(protect_first_n=3))
    assert result.plan.existing_summary_index == 6 and result.plan.turns_start == 7
    assert check_grid(messages, [3]) == 9
    assert check_grid(messages, [3], profile="v0.15.1") == 9


@pytest.mark.parametrize("profile", list(PROFILES))
def test_exact_counts_with_the_tiktoken_estimator(profile) -> None:
    messages = coding_session(rounds=25)
    base = prepare_sweep(messages, "tiktoken", "gpt-4o")
    counter = get_counter("o200k_base")
    for ratio in (0.1, 0.5):
        cfg = CompressorConfig(summary_target_ratio=ratio, token_estimator="tiktoken", model="gpt-4o", profile=profile)
        cell = sweep_cell(base, cfg, respect_trigger=False)
        result, _ = real(messages, cfg, words=True)
        assert (cell["compress_start"], cell["compress_end"]) == (result.plan.compress_start, result.plan.compress_end)
        assert cell["final_tokens"] == counter.count_messages(result.messages)


def test_literal_figures_of_one_grid() -> None:
    messages = coding_session()
    # v0.18.1: the configured percentages as given (v0.19.0 raises both to 75 % at this window).
    table = sweep(messages, CompressorConfig(context_length=128_000, profile="v0.18.1"), thresholds=(0.5, 0.6),
                  ratios=(0.1, 0.2), respect_trigger=False)
    assert table["threshold_tokens"].tolist() == [64_000, 64_000, 76_800, 76_800]
    assert table["tail_token_budget"].tolist() == [6_400, 12_800, 7_680, 15_360]
    assert table["outcome"].tolist() == ["summarized"] * 4
    # The prune boundary: 20 messages, or more when the last ones fit the tail budget.
    assert table["compress_start"].tolist() == [4, 4, 4, 4]
    assert table["tokens_before"].nunique() == 1
    savings = (table["tokens_before"] - table["final_tokens"]) / table["tokens_before"] * 100
    assert [math.isclose(a, b) for a, b in zip(savings, table["savings_pct"], strict=True)] == [True] * 4
    # Summary budget: 20 % of the summarised turns, at least 2,000, at most 5 % of the window (6,400).
    for budget, start, end in zip(table["summary_budget"], table["compress_start"], table["compress_end"],
                                  strict=True):
        assert 2_000 <= budget <= 6_400
        assert end > start


def test_the_trigger_and_small_conversations() -> None:
    small = coding_session(rounds=6, size=300)
    table = sweep(small, CompressorConfig(), thresholds=(0.5,), ratios=(0.2,))
    row = table.iloc[0]
    assert (bool(row["triggered"]), row["outcome"], row["savings_pct"]) == (False, "not triggered", 0.0)
    assert row["final_tokens"] == row["tokens_before"] == estimate_messages_tokens_rough(small)
    forced = sweep(small, CompressorConfig(), thresholds=(0.5,), ratios=(0.2,), respect_trigger=False)
    assert forced.iloc[0]["outcome"] == "summarized"
    tiny = [system(), user("a"), asst("b"), user("c"), asst("d"), user("e"), asst("f"), user("g")]
    cell = sweep(tiny, CompressorConfig(), thresholds=(0.5,), ratios=(0.2,), respect_trigger=False).iloc[0]
    assert cell["outcome"] == "too_small" and cell["messages_after"] == 8


def test_the_trigger_tests_the_size_the_host_passes() -> None:
    small = coding_session(rounds=6, size=300)
    config = CompressorConfig()
    tokens = estimate_messages_tokens_rough(small)
    assert tokens < config.threshold_tokens
    # A system prompt and tool schemas outside the messages take the request over the threshold.
    table = sweep(small, config, thresholds=(0.5,), ratios=(0.2,), trigger_tokens=config.threshold_tokens)
    forced = sweep(small, config, thresholds=(0.5,), ratios=(0.2,), respect_trigger=False)
    row = table.iloc[0]
    assert bool(row["triggered"]) and row["outcome"] == "summarized"
    assert row["final_tokens"] == forced.iloc[0]["final_tokens"] and row["tokens_before"] == tokens
    below = sweep(small, config, thresholds=(0.5,), ratios=(0.2,), trigger_tokens=config.threshold_tokens - 1)
    assert below.iloc[0]["outcome"] == "not triggered"


def test_protect_first_n_choices_and_the_heatmap() -> None:
    messages = coding_session(size=8_000)
    table = sweep(messages, CompressorConfig(profile="v0.18.1"), thresholds=(0.3, 0.5, 0.9), ratios=(0.1, 0.2),
                  protect_first_ns=(1, 5))
    assert len(table) == 12
    assert sorted(table["protect_first_n"].unique().tolist()) == [1, 5]
    # 88,524 tokens before: 0.3 and 0.5 hit the 64,000 floor; 0.9 of 128,000 = 115,200 is never reached.
    assert table["tokens_before"].unique().tolist() == [88_524]
    assert table.loc[table["threshold_percent"] == 0.9, "outcome"].unique().tolist() == ["not triggered"]
    fig = sweep_heatmap(table, "savings_pct", protect_first_n=5)
    heat = fig.data[0]
    assert list(heat.y) == ["0.30", "0.50", "0.90"] and list(heat.x) == ["0.10", "0.20"]
    assert heat.z[2][0] == 0.0
    assert heat.text[2][1].endswith("not triggered")
    chosen = table[(table["protect_first_n"] == 5) & (table["threshold_percent"] == 0.3)
                   & (table["summary_target_ratio"] == 0.2)].iloc[0]
    assert heat.z[0][1] == pytest.approx(chosen["savings_pct"])
    top = best_cells(table, top=3)
    assert len(top) == 3 and top["final_tokens"].is_monotonic_increasing
    with pytest.raises(ValueError):
        sweep_heatmap(table, "tokens")
    with pytest.raises(ValueError, match="another estimator"):
        sweep(prepare_sweep(coding_session()), CompressorConfig(token_estimator="tiktoken"))


def test_a_tail_budget_that_holds_everything_keeps_less() -> None:
    """When 1.5 x the tail budget holds everything after the head (Phase 1 has shortened the old
    tool results), the reference falls back to a minimal tail: a larger budget keeps less."""
    messages = coding_session(size=8_000)
    v16 = CompressorConfig(profile="v0.16.0")
    table = sweep(messages, v16, thresholds=(0.5,), ratios=(0.2, 0.4), respect_trigger=False)
    small, large = table.iloc[0], table.iloc[1]
    assert (bool(small["tail_forced_small"]), bool(large["tail_forced_small"])) == (False, True)
    # The forced tail is the last 3 messages, stretched back to the newest user message (index 77).
    assert large["compress_end"] == 77
    assert large["final_tokens"] < small["final_tokens"]
    result, _ = real(messages, CompressorConfig(summary_target_ratio=0.4, profile="v0.16.0"))
    assert result.plan.tail_cut.forced_small and result.plan.compress_end == 77


@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize("estimator", ["hermes", "tiktoken"])
def test_the_modelled_summary_is_what_the_release_stores_of_the_whole_body(profile, estimator) -> None:
    from core.plan import plan

    messages = coding_session(rounds=12, size=400)
    base = prepare_sweep(messages, estimator)
    for strict in (False, True):
        config = CompressorConfig(profile=profile, threshold_percent=0.3, strict_redaction=strict,
                                  token_estimator=estimator)
        decided = plan(messages, config)
        assert decided.outcome == "summarize"
        for budget in (1, 2, 900, 12_000):
            assert base.modelled_summary(decided, budget) == decided.stored_summary(base.modelled_body(budget))
