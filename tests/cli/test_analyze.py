"""``context-lens analyze``: its numbers are the library's own for the same file and settings."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from core import CompressorConfig, ContextCompressor
from core.facts import extract_facts, retention, retention_score
from core.formats import load
from core.models import context_window
from core.phases import prune
from core.summarizers.extractive import ExtractiveSummarizer
from core.tokens import estimate_messages_tokens_rough, get_counter
from tests.cli.conftest import assert_one_line_error

ROOT = Path(__file__).resolve().parents[2]


def _library(path, config: CompressorConfig, summarizer=None):
    messages = load(path).messages
    compressor = ContextCompressor(config, summarizer=summarizer or ExtractiveSummarizer())
    hermes = estimate_messages_tokens_rough(messages)
    would = compressor.should_compress(hermes)
    result = compressor.compress(copy.deepcopy(messages))
    return messages, hermes, would, result


def test_json_matches_library(cli, corpus):
    run = cli("analyze", corpus.big, "--json")
    assert run.code == 0, run.err
    report = run.json()
    messages, hermes, would, result = _library(corpus.big, CompressorConfig())
    counter = get_counter("cl100k_base")

    assert report["file"] == str(corpus.big)
    assert report["format"] == "openai-chat"
    assert report["messages"] == len(messages)
    assert report["encoding"] == "cl100k_base"
    assert report["exact_tokens"] == counter.count_messages(messages)
    assert report["hermes_tokens"] == hermes
    assert report["estimator_tokens"] == hermes
    assert report["threshold_tokens"] == 96_000
    assert report["would_compress"] is would is True
    assert report["outcome"] == result.outcome == "summarized"
    assert (report["compress_start"], report["compress_end"]) == (result.plan.compress_start, result.plan.compress_end)
    assert report["prune_boundary"] == result.plan.prune_boundary
    assert report["head"] == result.plan.compress_start
    assert report["middle"] == result.plan.compress_end - result.plan.compress_start
    assert report["tail"] == len(messages) - result.plan.compress_end
    assert report["messages_after"] == len(result.messages)
    assert report["tokens_after"] == counter.count_messages(result.messages)
    assert report["hermes_tokens_after"] == estimate_messages_tokens_rough(result.messages)
    assert report["saved_total"] == report["exact_tokens"] - report["tokens_after"] > 0
    assert report["savings_pct"] == pytest.approx(
        report["saved_total"] / report["exact_tokens"] * 100, abs=1e-3
    )

    # Per-step savings add up to the total, and the dedup step is what the dedup pass alone saves.
    steps = {step["step"]: step for step in report["steps"]}
    assert (
        sum(-step["exact_change"] for key, step in steps.items() if key not in ("original", "final"))
        == report["saved_total"]
    )
    deduplicated = [m.copy() for m in messages]
    prune.dedup_tool_results(deduplicated)
    assert (
        report["saved"]["dedup"]
        == counter.count_messages(messages) - counter.count_messages(deduplicated)
        > 0
    )
    assert report["saved"]["one_liners"] > 0
    assert report["saved_phase1"] == sum(
        report["saved"][k] for k in ("dedup", "one_liners", "args", "tool_images")
    )

    kept = retention(extract_facts(messages), result.messages)
    assert report["facts"] == len(kept)
    assert report["facts_kept"] == int(kept["kept"].sum())
    assert report["fact_retention"] == pytest.approx(retention_score(kept), abs=1e-6)
    assert report["valid"] is True and report["problems"] == []
    assert report["valid_anthropic"] is True and report["input_valid"] is True


def test_readable_table(cli, corpus):
    run = cli("analyze", corpus.big)
    assert run.code == 0, run.err
    report = cli("analyze", corpus.big, "--json").json()
    out = run.out
    assert f"{report['exact_tokens']:,} exact (cl100k_base)" in out
    assert f"{report['hermes_tokens']:,} Hermes estimate" in out
    assert "yes: Hermes would compress now" in out
    start, end = report["compress_start"], report["compress_end"]
    assert f"MIDDLE {start}-{end - 1} ({end - start})" in out
    for label in ("Duplicate tool outputs", "Old tool results → one-liners", "Middle → summary", "Final"):
        assert label in out
    assert str(-report["saved_total"]) in out  # the Final row's change
    assert "result: OpenAI valid, Anthropic valid" in out


def test_context_length_moves_the_threshold(cli, corpus):
    report = cli("analyze", corpus.big, "--json", "--context-length", "1000000").json()
    assert report["context_length"] == 1_000_000
    assert report["threshold_tokens"] == 500_000
    assert report["would_compress"] is False
    text = cli("analyze", corpus.big, "--context-length", "1_000_000").out
    assert "no: the whole-request estimate (hermes) is " in text and ", below the threshold" in text


def test_model_sets_window_and_encoding(cli, corpus):
    run = cli("analyze", corpus.mid, "--json", "--model", "gpt-4o")
    assert run.code == 0, run.err
    report = run.json()
    window = context_window("gpt-4o")
    assert window and report["context_length"] == window
    assert report["encoding"] == "o200k_base"
    assert report["exact_tokens"] == get_counter("o200k_base").count_messages(load(corpus.mid).messages)
    # An explicit --context-length wins over the model's window.
    assert (
        cli("analyze", corpus.mid, "--json", "--model", "gpt-4o", "--context-length", "200000").json()[
            "context_length"
        ]
        == 200_000
    )


def test_without_a_model_both_token_lines_count_with_the_logs_model(cli):
    # A Codex rollout names gpt-5-codex: its messages and its whole request are counted in that
    # model's encoding (o200k_base), not one in cl100k_base and the other in o200k_base.
    rollout = ROOT / "sample_conversations" / "codex_rollout.jsonl"
    report = cli("analyze", rollout, "--json").json()
    assert report["model"] == "gpt-5-codex"
    assert report["encoding"] == report["request"]["unit"] == "o200k_base"
    conversation = load(rollout).live_context()
    assert report["exact_tokens"] == get_counter("o200k_base").count_messages(conversation.messages)
    # A model asked for wins, for both.
    asked = cli("analyze", rollout, "--json", "--model", "gpt-4").json()
    assert asked["encoding"] == asked["request"]["unit"] == "cl100k_base"
    # The readable form says how much of the request's messages is reasoning sent back.
    text = cli("analyze", rollout).out
    assert report["request"]["messages_reasoning"] > 0
    assert f"(of which {report['request']['messages_reasoning']:,} reasoning sent back)" in text
    assert f"{report['exact_tokens']:,} exact (o200k_base)" in text


def test_unknown_model_warns_and_uses_default_window(cli, corpus):
    run = cli("analyze", corpus.mid, "--json", "--model", "no-such-model-xyz")
    assert run.code == 0
    assert run.json()["context_length"] == 128_000
    assert "no-such-model-xyz" in run.err and "--context-length" in run.err


def test_model_options_without_a_model_summarizer_are_reported(cli, corpus):
    run = cli("analyze", corpus.tiny, "--json", "--api-base", "http://127.0.0.1:9/v1", "--summary-model", "gpt-4o")
    assert run.code == 0
    assert run.json()["outcome"] == "too_small"
    assert "--summary-model and --api-base only apply to --summarizer litellm" in run.err


def test_no_summarizer_gives_the_fallback(cli, corpus):
    report = cli("analyze", corpus.mid, "--json", "--summarizer", "none").json()
    messages, _, _, result = _library(corpus.mid, CompressorConfig(), summarizer=None)
    assert report["outcome"] == "fallback"
    assert report["fallback_used"] is True
    assert report["failure_reason"]
    # The library with no summarizer at all gives the same fallback conversation.
    none_result = ContextCompressor(CompressorConfig(), summarizer=None).compress(copy.deepcopy(messages))
    assert report["tokens_after"] == get_counter("cl100k_base").count_messages(none_result.messages)


def test_parameters_reach_the_compressor(cli, corpus):
    config = CompressorConfig(
        protect_first_n=1, protect_last_n=4, summary_target_ratio=0.5, profile="v0.15.1"
    )
    report = cli(
        "analyze",
        corpus.mid,
        "--json",
        "--protect-first-n",
        "1",
        "--protect-last-n",
        "4",
        "--summary-target-ratio",
        "0.5",
        "--profile",
        "v0.15.1",
    ).json()
    _, _, _, result = _library(corpus.mid, config)
    assert (report["compress_start"], report["compress_end"]) == (result.plan.compress_start, result.plan.compress_end)
    assert report["prune_boundary"] == result.plan.prune_boundary
    assert report["tokens_after"] == get_counter("cl100k_base").count_messages(result.messages)
    default = cli("analyze", corpus.mid, "--json").json()
    assert (default["compress_start"], default["compress_end"]) != (
        report["compress_start"],
        report["compress_end"],
    )


def test_tiktoken_estimator_decides_with_exact_counts(cli, corpus):
    report = cli("analyze", corpus.mid, "--json", "--token-estimator", "tiktoken").json()
    assert report["estimator_tokens"] == report["exact_tokens"]
    assert report["estimator_tokens"] != report["hermes_tokens"]


def test_tiny_conversation_is_left_alone(cli, corpus):
    report = cli("analyze", corpus.tiny, "--json").json()
    assert report["small_conversation"] is True
    assert report["outcome"] == "too_small"
    assert report["saved_total"] == 0 and report["messages_after"] == 2
    # No zones: none given (0 messages in each would read as an empty conversation).
    assert (report["head"], report["middle"], report["tail"]) == (None, None, None)
    assert "too few messages" in cli("analyze", corpus.tiny).out


def test_sessions(cli, corpus):
    default = cli("analyze", corpus.multi, "--json").json()
    assert default["format"] == "sharegpt"
    assert default["sessions"] == ["conv-0", "conv-1", "conv-2"]
    assert default["session"] == "conv-2"
    picked = cli("analyze", corpus.multi, "--json", "--session", "conv-0").json()
    assert picked["session"] == "conv-0"
    assert_one_line_error(
        cli("analyze", corpus.multi, "--session", "nope"), "multi.jsonl", "'nope' not found"
    )


@pytest.mark.parametrize("command", ["analyze", "compress"])
@pytest.mark.parametrize(
    ("which", "fragment"),
    [
        ("missing", "no such file"),
        ("truncated", "truncated"),
        ("binary", "PNG image"),
        ("empty", "empty"),
        ("directory", "is a directory"),
    ],
)
def test_bad_files(cli, corpus, command, which, fragment):
    path = {
        "missing": corpus.root / "missing.json",
        "truncated": corpus.truncated,
        "binary": corpus.binary,
        "empty": corpus.empty,
        "directory": corpus.root,
    }[which]
    run = cli(command, path)
    assert run.code == 2
    assert_one_line_error(run, path.name, fragment)
    assert run.out == ""


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--threshold-percent", "x"], "--threshold-percent"),
        (["--threshold-percent", "0"], "above 0"),
        (["--context-length", "-5"], "positive integer"),
        (["--protect-last-n", "two"], "--protect-last-n"),
        (["--profile", "v9"], "--profile"),
        (["--format", "bogus"], "--format"),
        (["--token-estimator", "chars"], "--token-estimator"),
        (["--summarizer", "litellm"], "--model or --summary-model"),
        (["--format", "anthropic"], "reading it as anthropic"),
    ],
)
def test_bad_options(cli, corpus, argv, fragment):
    assert_one_line_error(cli("analyze", corpus.mid, *argv), fragment)


def test_no_command_and_unknown_command(cli):
    run = cli()
    assert run.code == 2 and "analyze" in run.err
    assert_one_line_error(cli("frobnicate"), "invalid choice")


def test_json_has_the_load_report_and_every_warning(cli, tmp_path):
    from tests.formats import layouts

    path = tmp_path / "session.jsonl"
    path.write_bytes(layouts.jsonl(layouts.cc_parallel_attachments()))
    run = cli("analyze", path, "--json")
    assert run.code == 0, run.err
    report = run.json()
    conversation = load(path)
    assert report["format"] == "claude-code"
    assert report["load_report"] == conversation.report.to_dict()
    assert report["load_report"]["read"] == len(path.read_text(encoding="utf-8").splitlines())
    assert report["warnings"] == conversation.warnings and any("attachment rows" in w for w in report["warnings"])
    text = cli("analyze", path)
    assert text.code == 0
    assert f"{conversation.report.read} line(s): {conversation.report.placed} placed" in text.out
    assert "attachment rows" in text.out
