"""The LLM fault matrix: every way a provider misbehaves, through the real litellm path.

A local OpenAI-compatible server (``llm_faults.FaultServer``) answers with 429, 5xx, a hang, a
byte-by-byte trickle, an empty, garbage or HTML body, no choices, or a hang-up. For every fault and
every profile the compression ends within the call's deadline as a clean fallback (or, with
abort on failure, and from v0.18.0 on a connection failure, the conversation unchanged), with the reference's cooldown for that class of
failure and no key in any text. The command line's ``--timeout`` / ``--retries`` and the
dashboard's provider form reach the same call.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.cli import main
from core.phases.failures import FAILURE_RULES
from core.profiles import PROFILES
from core.summarizers.llm import LiteLLMSummarizer, import_litellm
from tests.robustness.llm_faults import FAULTS, STATUS_FAULTS, FaultServer

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

KEY = "sk-fault-matrix-0123456789abcdef"
DEADLINE_S = 3.0
RETRIES = 1
# The reference's cooldown for each fault's class of failure (spec 6.3): a connection problem or
# a timeout 30 s, a body that is not JSON ("Expecting value") 30 s, anything else 60 s.
COOLDOWN_S = {
    "rate-limited": 60, "server-error": 60, "bad-gateway": 60, "unavailable": 60, "no-choices": 60,
    "empty-body": 30, "garbage-body": 30, "html-body": 30, "hang": 30, "trickle": 30, "hangup": 30,
}
# Faults the HTTP client retries (429, 5xx, a dropped connection) before giving up.
RETRIED = {"rate-limited", "server-error", "bad-gateway", "unavailable", "hangup"}
# Connection and timeout failures: v0.18.0 aborts on them (and keeps aborting until a summary succeeds).
NETWORK = {"hang", "trickle", "hangup"}


# Deadline faults: from v0.19.0 a timeout climbs the 60 / 300 / 900 s ladder instead of the 30 s.
TIMEOUTS = {"hang", "trickle"}


def _rule(profile: str) -> Any:
    return FAILURE_RULES[PROFILES[profile].failure_rule]


def expected_outcome(fault: str, profile: str) -> str:
    aborts = _rule(profile).classify(ConnectionError("connection reset")).network and fault in NETWORK
    return "aborted" if aborts else "fallback"


def expected_cooldown(fault: str, profile: str) -> int:
    return _rule(profile).timeout_ladder[0] if fault in TIMEOUTS and _rule(profile).timeout_ladder else COOLDOWN_S[fault]


@pytest.fixture(scope="module")
def faults() -> Iterator[FaultServer]:
    # litellm imported before any call is timed: its first import (seconds on a loaded machine) is not
    # part of a call's deadline, and whichever test runs first would otherwise count it.
    import_litellm()
    server = FaultServer()
    yield server
    server.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def transcript(turns: int = 60) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append({"role": role, "content": f"turn {i}: " + " ".join(f"word{i}_{j}" for j in range(300))})
    messages.append({"role": "user", "content": "Please continue with the refactor."})
    return messages


def test_the_matrix_covers_every_fault_kind() -> None:
    assert set(COOLDOWN_S) == set(FAULTS)
    assert {429, 500, 502, 503} <= {status for status, _ in STATUS_FAULTS.values()}
    assert {"hang", "trickle", "empty-body", "garbage-body"} <= set(FAULTS)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("fault", FAULTS)
def test_every_fault_is_a_timely_clean_fallback(fault: str, profile: str, faults: FaultServer) -> None:
    clock = Clock()
    summarizer = LiteLLMSummarizer(f"openai/{fault}", api_base=faults.url, api_key=KEY, timeout=DEADLINE_S,
                                   max_retries=RETRIES)
    compressor = ContextCompressor(CompressorConfig(context_length=64_000, profile=profile), summarizer=summarizer,
                                   clock=clock)
    messages = transcript()
    calls_before = faults.calls[fault]
    started = time.monotonic()
    result = compressor.compress(messages)
    took = time.monotonic() - started
    assert took < DEADLINE_S + 5, f"{fault}: {took:.1f} s for a {DEADLINE_S:g} s deadline"
    outcome = expected_outcome(fault, profile)
    assert result.outcome == outcome, (fault, result.outcome)
    assert result.failure_reason
    assert (result.assembly is not None and result.assembly.fallback_used) == (outcome == "fallback")
    assert result.abort_reason == ("network" if outcome == "aborted" else None)
    assert faults.calls[fault] - calls_before == (1 + RETRIES if fault in RETRIED else 1)
    texts = [result.failure_reason, summarizer.last_call["error"], repr(summarizer), json.dumps(result.messages)]
    assert not any(KEY in text for text in texts)
    # The cooldown of this class of failure: no call until it is over, a call right after.
    cooldown = expected_cooldown(fault, profile)
    clock.now += cooldown - 0.5
    assert compressor.compress(messages).summarizer_calls == []
    clock.now += 1.0
    calls_before = faults.calls[fault]
    again = compressor.compress(messages)
    assert len(again.summarizer_calls) == 1 and faults.calls[fault] > calls_before
    assert again.outcome == outcome


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fault", ["trickle", "garbage-body", "unavailable"])
def test_with_abort_on_failure_the_conversation_is_kept(fault: str, faults: FaultServer) -> None:
    summarizer = LiteLLMSummarizer(f"openai/{fault}", api_base=faults.url, api_key=KEY, timeout=DEADLINE_S,
                                   max_retries=0)
    config = CompressorConfig(context_length=64_000, abort_on_summary_failure=True)
    messages = transcript()
    original = copy.deepcopy(messages)
    result = ContextCompressor(config, summarizer=summarizer).compress(messages)
    assert result.outcome == "aborted"
    assert result.messages == original and messages == original


# -- the same call from the command line -----------------------------------------------------


@pytest.fixture
def transcript_file(tmp_path: Path) -> Path:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(transcript()), encoding="utf-8")
    return path


def _compress(path: Path, url: str, fault: str, *flags: str) -> int:
    return main(["compress", str(path), "--force", "--summarizer", "litellm", "--model", f"openai/{fault}",
                 "--api-base", url, "--context-length", "64000", "-o", str(path.with_suffix(".out.json")), *flags])


@pytest.mark.timeout(120)
def test_cli_timeout_is_the_deadline_of_the_call(transcript_file: Path, faults: FaultServer,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONTEXT_LENS_API_KEY", KEY)
    started = time.monotonic()
    assert _compress(transcript_file, faults.url, "trickle", "--timeout", "1.5", "--retries", "0") == 0
    assert time.monotonic() - started < 12
    err = capsys.readouterr().err
    # A timeout is a network failure: the default release, v0.18.0, aborts on it.
    assert "aborted" in err and "1.5 s deadline" in err, err
    assert KEY not in err


@pytest.mark.timeout(120)
def test_cli_retries_are_passed_on(transcript_file: Path, faults: FaultServer, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CONTEXT_LENS_API_KEY", KEY)
    before = faults.calls["unavailable"]
    assert _compress(transcript_file, faults.url, "unavailable", "--retries", "3") == 0
    assert faults.calls["unavailable"] - before == 4
    before = faults.calls["unavailable"]
    assert _compress(transcript_file, faults.url, "unavailable", "--retries", "0") == 0
    assert faults.calls["unavailable"] - before == 1
    capsys.readouterr()


@pytest.mark.parametrize("flags", [("--timeout", "0"), ("--timeout", "soon"), ("--retries", "-1"), ("--retries", "x")])
def test_cli_refuses_bad_deadlines_and_retries(flags: tuple[str, str], transcript_file: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compress", str(transcript_file), "-o", str(transcript_file.with_suffix(".o.json")), *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and flags[0] in err


def test_cli_warns_that_a_deadline_needs_a_model(transcript_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(transcript_file), "--timeout", "5", "--json"]) == 0
    assert "--timeout only applies to a model" in capsys.readouterr().err


# -- and from the dashboard's provider form --------------------------------------------------


@pytest.mark.timeout(300)
def test_dashboard_deadline_and_retries(faults: FaultServer) -> None:
    from tests.app.conftest import go, new_app, plain, upload

    at = new_app()
    upload(at, "session.json", json.dumps(transcript()).encode())
    go(at, "compress")
    at.radio(key="summarizer_choice").set_value("A model through litellm")
    at.run()
    assert at.number_input(key="llm_timeout").value == 120.0
    assert at.number_input(key="llm_retries").value == 2
    at.text_input(key="llm_model").set_value("openai/trickle")
    at.text_input(key="llm_api_base").set_value(faults.url)
    at.text_input(key="llm_api_key").set_value(KEY)
    at.number_input(key="llm_timeout").set_value(1.5)
    at.number_input(key="llm_retries").set_value(0)
    at.checkbox(key="force").set_value(True)
    at.run()
    started = time.monotonic()
    at.button(key="run_compressor").click()
    at.run(timeout=120)
    assert time.monotonic() - started < 60
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(plain(e.value) for e in at.error)
    assert "Aborted" in errors and "network or connection failure" in errors and "1.5 s deadline" in errors, errors

    before = faults.calls["unavailable"]
    at.text_input(key="llm_model").set_value("openai/unavailable")
    at.number_input(key="llm_timeout").set_value(30.0)
    at.number_input(key="llm_retries").set_value(3)
    at.run()
    at.button(key="run_compressor").click()
    at.run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert faults.calls["unavailable"] - before == 4
