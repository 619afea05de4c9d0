"""core.views.summary_compare: the extractive summary beside the v0.16.0 fallback, same turns."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.phases.summary import strip_summary_prefix
from core.profiles import get_profile
from core.summarizers.extractive import ExtractiveSummarizer, count_tokens
from core.tokens import get_counter
from core.views.summary_compare import EXTRACTIVE, EXTRACTIVE_SAME_SIZE, FALLBACK, compare_summaries

V16 = "v0.16.0"  # the figures below are v0.16.0's (the analyses follow any profile)


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def conversation(extra: str = "") -> list[dict[str, Any]]:
    """Head: system + 3 messages; summarised: messages 4-10; tail: the last four."""
    return [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the failing import in the billing service."},
        {"role": "assistant", "content": "Looking at the service first."},
        {"role": "user", "content": "It lives in /srv/billing."},
        {"role": "assistant", "content": "Running the tests.",
         "tool_calls": [_call("c1", "terminal", command="pytest -q tests/test_invoice.py")]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
            {"output": "E   ModuleNotFoundError: No module named 'stripe_client'\n1 failed in 0.42s", "exit_code": 1})},
        {"role": "assistant", "content": "Reading the module.",
         "tool_calls": [_call("c2", "read_file", path="src/billing/invoice.py")]},
        {"role": "tool", "tool_call_id": "c2",
         "content": "import stripe_client\n\ndef make_invoice(order_id):\n    return stripe_client.charge(order_id)\n"},
        {"role": "user", "content": "Use payments_sdk instead, version 2.4.1. See https://example.com/issues/812" + extra},
        {"role": "assistant", "content": "Switching make_invoice to payments_sdk.",
         "tool_calls": [_call("c3", "patch", path="src/billing/invoice.py", old_string="import stripe_client",
                              new_string="import payments_sdk")]},
        {"role": "tool", "tool_call_id": "c3", "content": json.dumps({"success": True})},
        {"role": "user", "content": "Now run the whole suite."},
        {"role": "assistant", "content": "Running it.", "tool_calls": [_call("c4", "terminal", command="pytest -q")]},
        {"role": "tool", "tool_call_id": "c4", "content": json.dumps({"output": "12 passed in 1.10s", "exit_code": 0})},
        {"role": "assistant", "content": "All 12 tests pass."},
    ]


CONFIG = CompressorConfig(profile=V16, protect_first_n=3, protect_last_n=4)
ERROR_LINE = "E   ModuleNotFoundError: No module named 'stripe_client'"


def test_facts_of_the_summarised_turns():
    comparison = compare_summaries(conversation(), CONFIG)
    assert (comparison.plan.turns_start, comparison.plan.compress_end) == (4, 11)
    assert [tuple(row) for row in comparison.turn_facts[["kind", "value", "message_index"]].itertuples(index=False)] == [
        ("path", "tests/test_invoice.py", 0),
        ("command", "pytest -q tests/test_invoice.py", 0),
        ("error", ERROR_LINE, 1),
        ("quantity", "1 failed", 1),
        ("quantity", "0.42s", 1),
        ("identifier", "ModuleNotFoundError", 1),
        ("path", "src/billing/invoice.py", 2),
        ("identifier", "make_invoice", 3),
        ("identifier", "stripe_client.charge", 3),
        ("user_request", "Use payments_sdk instead, version 2.4.1. See https://example.com/issues/812", 4),
        ("url", "https://example.com/issues/812", 4),
    ]


def test_both_summaries_are_the_ones_compress_writes_for_those_turns():
    messages = conversation()
    comparison = compare_summaries(messages, CONFIG)
    profile = get_profile(CONFIG.profile)
    extractive = ContextCompressor(CONFIG, summarizer=ExtractiveSummarizer()).compress(messages)
    fallback = ContextCompressor(CONFIG, summarizer=None).compress(messages)
    assert (extractive.outcome, fallback.outcome) == ("summarized", "fallback")
    assert comparison.extractive == strip_summary_prefix(extractive.assembly.summary_text, profile)
    assert comparison.fallback == strip_summary_prefix(fallback.assembly.summary_text, profile)


def test_retention_size_and_lost_facts():
    comparison = compare_summaries(conversation(), CONFIG)
    counter = get_counter("cl100k_base")
    table = comparison.table().set_index("summary")
    # The fallback collapses the error line's spaces ("E ModuleNotFoundError"), so it loses that line.
    assert table.loc[EXTRACTIVE, ["facts", "kept", "original facts", "original kept"]].tolist() == [11, 11, 11, 11]
    assert table.loc[FALLBACK, ["facts", "kept", "original facts", "original kept"]].tolist() == [11, 10, 11, 10]
    assert table.loc[EXTRACTIVE, "retention"] == 1.0
    assert table.loc[FALLBACK, "retention"] == pytest.approx(10 / 11)
    assert "E ModuleNotFoundError: No module named 'stripe_client'" in comparison.fallback
    assert ERROR_LINE in comparison.extractive
    assert comparison.lost(FALLBACK).to_dict("records") == [{"kind": "error", "value": ERROR_LINE, "message_index": 5}]
    assert comparison.lost(EXTRACTIVE).empty
    for name, body in comparison.summaries.items():
        assert table.loc[name, "chars"] == len(body)
        assert table.loc[name, "tokens"] == counter.count_text(body)
    # The extractive summary is the smaller one here: the fallback repeats the last dropped turns.
    assert table.loc[EXTRACTIVE, "chars"] < table.loc[FALLBACK, "chars"]


def test_the_same_size_summary_is_the_extractive_one_within_the_fallbacks_token_count():
    comparison = compare_summaries(conversation(), CONFIG)
    assert list(comparison.summaries) == [EXTRACTIVE, EXTRACTIVE_SAME_SIZE, FALLBACK]
    # Here the extractive summary is already smaller than the fallback, so a budget of the
    # fallback's size leaves it unchanged.
    assert count_tokens(comparison.extractive) < count_tokens(comparison.fallback)
    assert comparison.same_size == comparison.extractive
    table = comparison.table().set_index("summary")
    assert table.loc[EXTRACTIVE_SAME_SIZE, "kept"] == 11


def test_at_the_fallbacks_size_a_long_session_keeps_far_more_than_the_fallback():
    messages = long_session(40)
    comparison = compare_summaries(messages, CONFIG)
    fallback_size = count_tokens(comparison.fallback)
    assert count_tokens(comparison.extractive) > fallback_size  # the full budget holds more than the fallback
    assert count_tokens(comparison.same_size) <= fallback_size
    table = comparison.table().set_index("summary")
    assert table.loc[EXTRACTIVE, "retention"] == 1.0
    # 241 facts do not fit in the fallback's ~670 tokens; the same size still keeps 4x as many.
    assert table.loc[EXTRACTIVE_SAME_SIZE, "retention"] > 4 * table.loc[FALLBACK, "retention"]
    assert table.loc[EXTRACTIVE_SAME_SIZE, "tokens"] == get_counter("cl100k_base").count_text(comparison.same_size)


def long_session(rounds: int) -> list[dict[str, Any]]:
    """A session of many read/test/patch rounds, each with its own paths, commands and errors."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Make every module's tests pass."},
    ]
    for n in range(rounds):
        module = f"src/pkg/module_{n}.py"
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [_call(f"r{n}", "read_file", path=module)]},
            {"role": "tool", "tool_call_id": f"r{n}", "content": f"def handler_{n}(event):\n    return event\n"},
            {"role": "assistant", "content": "", "tool_calls": [
                _call(f"t{n}", "terminal", command=f"pytest -q tests/test_module_{n}.py")]},
            {"role": "tool", "tool_call_id": f"t{n}", "content": json.dumps(
                {"output": f"E   KeyError: 'field_{n}'\n1 failed in 0.{n}s", "exit_code": 1})},
            {"role": "assistant", "content": "", "tool_calls": [
                _call(f"p{n}", "patch", path=module, old_string="return event", new_string=f"return event['field_{n}']")]},
            {"role": "tool", "tool_call_id": f"p{n}", "content": json.dumps({"success": True})},
        ]
    messages += [
        {"role": "user", "content": "Now run the whole suite."},
        {"role": "assistant", "content": "", "tool_calls": [_call("all", "terminal", command="pytest -q")]},
        {"role": "tool", "tool_call_id": "all", "content": json.dumps({"output": "80 passed in 3.10s", "exit_code": 0})},
        {"role": "assistant", "content": "All 80 tests pass."},
    ]
    return messages


def test_both_summaries_get_the_same_redaction():
    key = "sk-proj-" + "Q" * 40
    messages = conversation(extra=f" My key is {key} and AWS secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.")
    loose = compare_summaries(messages, CONFIG)
    strict = compare_summaries(messages, CompressorConfig(profile=V16, protect_first_n=3, protect_last_n=4, strict_redaction=True))
    for comparison in (loose, strict):
        assert key not in comparison.extractive and key not in comparison.fallback
    assert "wJalrXUtnFEMI/K7MDENG" in loose.fallback  # the profile alone lets a prefix-less AWS secret through
    assert "wJalrXUtnFEMI/K7MDENG" not in strict.extractive and "wJalrXUtnFEMI/K7MDENG" not in strict.fallback


def test_nothing_to_summarise_gives_none():
    tiny = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert compare_summaries(tiny, CONFIG) is None
