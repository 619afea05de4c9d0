"""The Strategies page's comparison: the Codex-style reset's texts masked in a worker meanwhile, the
same table and outputs as when everything is computed in one process."""

from __future__ import annotations

import dataclasses
import json

import pytest

import core.redaction as redaction_module
from core.redaction import RedactionAhead
from core.views.retention import FactIndex
from core.views.strategies import compare_strategies
from dashboard.memo import Settings, load_transcript
from dashboard.runs import StrategyOptions, strategy_comparisons


def _log() -> bytes:
    messages = [{"role": "system", "content": "You are a coding agent."}]
    for n in range(40):
        call = {"id": f"call_{n}", "type": "function",
                "function": {"name": "run", "arguments": json.dumps({"cmd": f"pytest tests/test_{n}.py"})}}
        messages += [
            {"role": "user", "content": f"Fix failure {n} in module_{n}.py"},
            {"role": "assistant", "content": f"I'll run the tests of module_{n}.", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{n}",
             "content": f"FAILED tests/test_{n}.py::test_case - AssertionError: expected {n}\n"
                        + f"export API_TOKEN=ghp_{n:04d}abcdefghijklmnopqrstuvwxyz0123\n" + "collected line\n" * 200},
            {"role": "assistant", "content": f"Decided to patch module_{n}.py because the bound was off by one."},
        ]
    return json.dumps(messages).encode()


@pytest.mark.parametrize("strict", [True, False])
def test_the_comparison_with_texts_masked_ahead_equals_one_made_here(monkeypatch: pytest.MonkeyPatch,
                                                                      strict: bool) -> None:
    started: list[bool] = []
    original = RedactionAhead.__init__

    def watching(self, *args):
        original(self, *args)
        started.append(self.started)

    monkeypatch.setattr(RedactionAhead, "__init__", watching)
    monkeypatch.setattr(redaction_module, "AHEAD_MIN_CHARS", 10_000)
    settings = Settings(context_length=16_000, strict_redaction=strict)
    data = _log()
    transcript = load_transcript(data, "log.json")
    options = StrategyOptions(summarizer="extractive", budget=None, keep_last=3, user_tokens=2_000,
                              every_release=False)
    *_, ahead = strategy_comparisons(transcript, settings, options)
    assert started == [True]
    *_, again = strategy_comparisons(transcript, settings, options)
    assert again is ahead and started == [True]  # remembered: nothing masked ahead a second time

    from core.summarizers.factory import make_summarizer

    other = load_transcript(data, "log.json")
    here = compare_strategies(other.messages, settings.config(), make_summarizer("extractive"), keep_last=3,
                              user_tokens=2_000, facts=FactIndex(other.messages), hermes_profiles=())
    assert ahead.table.equals(here.table)
    assert [(run.name, run.messages, run.summary_text) for run in ahead.runs] == \
        [(run.name, run.messages, run.summary_text) for run in here.runs]
    codex = ahead.run("Codex-style")
    assert codex.summary_text and "ghp_0001abcdefghijklmnopqrstuvwxyz0123" not in codex.summary_text


def test_the_page_gets_the_other_strategies_first_then_the_whole_comparison() -> None:
    settings = Settings(context_length=16_000)
    options = StrategyOptions(summarizer="extractive", budget=None, keep_last=3, user_tokens=2_000,
                              every_release=False)
    transcript = load_transcript(_log(), "log.json")
    steps = list(strategy_comparisons(transcript, settings, options))
    assert [step.left_out for step in steps] == [["Codex-style"], []]
    first, whole = steps
    assert list(first.table["strategy"]) == [name for name in whole.table["strategy"] if name != "Codex-style"]
    assert first.table.equals(whole.table[whole.table["strategy"] != "Codex-style"].reset_index(drop=True))
    # Remembered: a second visit gets the whole comparison at once.
    again = list(strategy_comparisons(transcript, settings, options))
    assert len(again) == 1 and again[0] is whole
    # Without a summarizer nothing is left out: one step.
    plain_steps = list(strategy_comparisons(transcript, settings, dataclasses.replace(options, summarizer=None)))
    assert [step.left_out for step in plain_steps] == [[]]
