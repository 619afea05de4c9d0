"""Empty and oversized summaries: still a success in the profiles, but said loudly everywhere.

The releases up to v0.17.0 accept an empty completion (the middle becomes the handoff note alone;
v0.18.0 treats it as a failure) and every release a runaway one far beyond ``max_tokens`` (the
"compressed" conversation grows). The profiles stay
exact; ``summary_problem`` says what is wrong, the command line warns (and exits 3 with
``--strict-exit``), the batch report flags the row and the Compress page shows a warning.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from core import CompressorConfig, ContextCompressor
from core.cli import EXIT_SUSPECT_SUMMARY, main
from core.inspections.summary_check import EMPTY, OVERSIZED, summary_problem
from core.phases.failures import FAILURE_RULES
from core.profiles import PROFILES
from core.summarizers.llm import LiteLLMSummarizer
from core.tokens import get_counter
from tests.robustness.llm_faults import SUSPECT_ANSWERS, FaultServer

RUNAWAY = SUSPECT_ANSWERS["runaway-completion"]


def transcript(turns: int = 60) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append({"role": role, "content": f"turn {i}: " + " ".join(f"word{i}_{j}" for j in range(300))})
    messages.append({"role": "user", "content": "Please continue with the refactor."})
    return messages


def compress(answer: str, profile: str, **config: Any) -> Any:
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response=answer)
    cfg = CompressorConfig(context_length=64_000, profile=profile, **config)
    return ContextCompressor(cfg, summarizer=summarizer).compress(transcript())


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    faults = FaultServer()
    yield faults
    faults.close()


# -- the check, on every profile (the profiles themselves stay as the releases are) -----------


ACCEPT_EMPTY = sorted(name for name, profile in PROFILES.items()
                      if not FAILURE_RULES[profile.failure_rule].empty_is_failure)
REFUSE_EMPTY = sorted(set(PROFILES) - set(ACCEPT_EMPTY))
# The releases that accept an empty summary: the command line and the page are checked on the newest.
LENIENT = ACCEPT_EMPTY[-1]


@pytest.mark.parametrize("profile", ACCEPT_EMPTY)
@pytest.mark.parametrize("answer", ["", "   \n\t "])
def test_an_empty_summary_is_a_success_with_a_problem(profile: str, answer: str) -> None:
    result = compress(answer, profile)
    assert result.outcome == "summarized" and not result.assembly.fallback_used  # as the releases do
    problem = summary_problem(result)
    assert problem is not None and problem.kind == EMPTY
    assert "empty summary" in problem.message and "counts it as a success" in problem.message


@pytest.mark.parametrize("profile", REFUSE_EMPTY)
@pytest.mark.parametrize("answer", ["", "   \n\t "])
def test_from_v0_18_0_an_empty_summary_is_a_failure(profile: str, answer: str) -> None:
    result = compress(answer, profile, model="gpt-4o-mini")
    assert result.outcome == "fallback"
    assert result.failure_reason == "Context compression LLM returned empty content (provider=auto model=gpt-4o-mini)"
    assert summary_problem(result) is None


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_runaway_summary_is_a_success_with_a_problem(profile: str) -> None:
    result = compress(RUNAWAY, profile)
    assert result.outcome == "summarized"
    problem = summary_problem(result)
    assert problem is not None and problem.kind == OVERSIZED
    call = result.summarizer_calls[-1]
    assert RUNAWAY.strip() in call.response  # v0.19.0 keeps it under a grounded task line
    if call.max_tokens is None:  # v0.19.0 sends no cap: the budget the prompt names is the measure
        assert problem.limit_is_budget and problem.max_tokens == int(call.summary_budget * 1.3)
        assert f"{call.summary_budget:,}-token budget" in problem.message
    else:
        assert problem.max_tokens == call.max_tokens and f"max_tokens of {call.max_tokens:,}" in problem.message
    assert problem.response_tokens == get_counter().count_text(call.response) > problem.max_tokens


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_summary_within_max_tokens_that_still_grows_the_conversation(profile: str) -> None:
    # A small conversation just above the head and tail: any real summary is longer than its middle.
    messages = [{"role": "system", "content": "s"}] + [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"ok {i}"} for i in range(12)
    ]
    summary = "## Active Task\n" + "A long account of two short turns. " * 60
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response=summary)
    config = CompressorConfig(context_length=64_000, profile=profile, protect_first_n=1)
    result = ContextCompressor(config, summarizer=summarizer).compress(messages, force=True)
    assert result.outcome == "summarized" and result.assembly.tokens_after > result.plan.display_tokens
    problem = summary_problem(result)
    assert problem is not None and problem.kind == OVERSIZED
    assert "grew the conversation" in problem.message
    assert problem.response_tokens is not None and problem.response_tokens <= problem.max_tokens


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_good_summary_and_a_fallback_have_no_problem(profile: str) -> None:
    assert summary_problem(compress("## Active Task\nFinish the parser.", profile)) is None
    failing = LiteLLMSummarizer("gpt-4o-mini", mock_response=Exception("boom"))
    result = ContextCompressor(CompressorConfig(context_length=64_000, profile=profile),
                               summarizer=failing).compress(transcript())
    assert result.outcome == "fallback" and summary_problem(result) is None


# -- the command line ---------------------------------------------------------------------------


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(transcript()), encoding="utf-8")
    return path


def _llm_flags(server: FaultServer, model: str) -> list[str]:
    return ["--summarizer", "litellm", "--model", f"openai/{model}", "--api-base", server.url,
            "--context-length", "64000", "--retries", "0", "--profile", LENIENT]


@pytest.mark.parametrize(("model", "kind"), [("empty-completion", "empty summary"),
                                             ("runaway-completion", "max_tokens of")])
def test_compress_warns_always_and_fails_with_strict_exit(model: str, kind: str, session: Path, tmp_path: Path,
                                                          server: FaultServer, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEXT_LENS_API_KEY", "sk-unused-local")
    out = tmp_path / "out.json"
    argv = ["compress", str(session), "--force", "-o", str(out), *_llm_flags(server, model)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert ": warning: " in err and kind in err and "counts it as a success" in err, err
    assert main([*argv, "--strict-exit"]) == EXIT_SUSPECT_SUMMARY
    assert kind in capsys.readouterr().err
    assert json.loads(out.read_text(encoding="utf-8"))  # the result is written all the same

    assert main(["compress", str(session), "--force", "-o", str(out), "--json", *_llm_flags(server, model)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary_problem"] in (EMPTY, OVERSIZED) and report["summary_warning"]


def test_analyze_and_batch_flag_the_summary(session: Path, tmp_path: Path, server: FaultServer,
                                            capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEXT_LENS_API_KEY", "sk-unused-local")
    flags = _llm_flags(server, "empty-completion")
    assert main(["analyze", str(session), "--json", *flags]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary_problem"] == EMPTY
    assert "empty summary" in captured.err
    assert main(["analyze", str(session), *flags, "--strict-exit"]) == EXIT_SUSPECT_SUMMARY
    capsys.readouterr()

    good = tmp_path / "good.json"
    good.write_text(json.dumps(transcript()[:5]), encoding="utf-8")
    report = tmp_path / "report.csv"
    assert main(["batch", str(session), str(good), "-o", str(report), "--workers", "1", "--json", *flags]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["suspect_summaries"] == 1
    assert "1 row(s) have an empty or oversized summary" in captured.err
    frame = pd.read_csv(report)
    assert frame.loc[frame["file"] == str(session), "summary_problem"].tolist() == [EMPTY]
    assert frame.loc[frame["file"] == str(good), "summary_problem"].isna().all()
    assert main(["batch", str(session), "-o", str(report), "--workers", "1", "--strict-exit", *flags]) == (
        EXIT_SUSPECT_SUMMARY)


# -- the dashboard --------------------------------------------------------------------------------


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("model", "title"), [("empty-completion", "Empty summary"),
                                              ("runaway-completion", "Oversized summary")])
def test_the_compress_page_warns(model: str, title: str, server: FaultServer) -> None:
    from tests.app.conftest import go, new_app, plain, upload

    at = new_app()
    upload(at, "session.json", json.dumps(transcript()).encode())
    at.selectbox(key="profile").set_value(LENIENT)
    go(at, "compress")
    at.radio(key="summarizer_choice").set_value("A model through litellm")
    at.run()
    at.text_input(key="llm_model").set_value(f"openai/{model}")
    at.text_input(key="llm_api_base").set_value(server.url)
    at.text_input(key="llm_api_key").set_value("sk-unused-local")
    at.checkbox(key="force").set_value(True)
    at.run()
    at.button(key="run_compressor").click()
    at.run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    warnings = [plain(w.value) for w in at.warning]
    assert any(w.startswith(f"**{title}, counted as a success.**") for w in warnings), warnings
    assert not at.success  # never shown as a plain success
