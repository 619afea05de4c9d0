"""The differential harness itself: the wire encoding, the prompt reader, the venv helper's error
path, and proof that the comparison fails when the two sides really differ."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tests.differential import hermes_env, protocol
from tests.differential.cases import generate
from tests.differential.compare import difference
from tests.differential.harness import run_hermes
from tests.differential.our_driver import run_ours


def test_encoding_round_trips_values_json_cannot_carry() -> None:
    value = {"a": [1, (2, 3), {4, 5}, frozenset({"x"})], "n": float("nan"), "i": float("-inf"), "k": {1: "a", "b": 2},
             "s": "\ud800 lone surrogate", "t": True, "z": None}
    back = protocol.loads(protocol.dumps(value))
    assert back["a"] == value["a"] and back["k"] == {1: "a", "b": 2} and list(back["k"]) == [1, "b"]
    assert math.isnan(back["n"]) and back["i"] == float("-inf") and back["s"] == value["s"]
    # Encoded results compare equal even where the values (NaN) would not.
    assert protocol.encode([float("nan")]) == protocol.encode([float("nan")])


def test_exceptions_are_built_by_name_and_attributes() -> None:
    exc = protocol.build_exception({"cls": "RateLimitError", "base": "RuntimeError", "msg": "slow down",
                                    "status_code": 429, "response_status_code": 503})
    assert type(exc).__name__ == "RateLimitError" and isinstance(exc, RuntimeError) and str(exc) == "slow down"
    assert exc.status_code == 429 and exc.response.status_code == 503  # type: ignore[attr-defined]
    decode = protocol.build_exception({"cls": "JSONDecodeError", "base": "JSONDecodeError", "msg": "Expecting value"})
    assert isinstance(decode, json.JSONDecodeError)
    assert protocol.describe_exception(protocol.build_exception({"cls": "Odd", "base": "TimeoutError", "msg": None})) == {
        "type": "TimeoutError", "message": ""}


def _prompt(turns: str, iterative: bool, focus: str | None, date: str | None, memory: str | None = None) -> str:
    body = turns + (f"\n\nMEMORY PROVIDER CONTEXT:\nwords\n<memory-provider-context>\n{memory}\n</memory-provider-context>" if memory else "")
    if iterative:
        middle = f"Intro.\n\nPREVIOUS SUMMARY:\nold body\n\nNEW TURNS TO INCORPORATE:\n{body}\n\nOne paragraph of rules."
    else:
        middle = f"First.\n\nTURNS TO SUMMARIZE:\n{body}\n\nUse this exact structure:"
    closing = "Target ~2000 tokens. Be concrete.\n\n" + (f"TEMPORAL ANCHORING: The current date is {date}. Words.\n\n" if date else "")
    tail = f'\n\nFOCUS TOPIC: "{focus}"\nThis should PRIORITISE "{focus}" a lot.' if focus else ""
    return f"Preamble.\n\n{middle}\n\n## Historical Task Snapshot\n[what]\n\n## Goal\n[g]\n\n{closing}Write only the body.{tail}"


def test_the_prompt_is_read_by_its_layout() -> None:
    turns = '[USER]: a\n\n[ASSISTANT]: \n[Tool calls:\n  t({})\n]\n\n[USER]: ## Historical Task Snapshot inline'
    focus = 'Recent user focus:\n- say "hi"\n- x'
    read = protocol.read_prompt(_prompt(turns, True, focus, "2026-06-19", memory='"a \\u0026 b"'))
    assert read == {"kind": "iterative", "turns": turns, "memory": '"a \\u0026 b"', "previous": "old body",
                    "budget": 2000, "focus": focus, "date": "2026-06-19"}
    first = protocol.read_prompt(_prompt("[USER]: hi", False, None, None))
    assert (first["kind"], first["turns"], first["focus"], first["date"], first["previous"]) == ("first", "[USER]: hi", None, None, None)


def test_a_registry_that_cannot_be_reached_gives_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEXT_LENS_HERMES_CACHE", str(tmp_path))
    for name, value in {"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_EXTRA_INDEX_URL": "", "PIP_FIND_LINKS": "",
                        "PIP_RETRIES": "0", "PIP_TIMEOUT": "3", "PIP_NO_CACHE_DIR": "1"}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(hermes_env.HermesEnvError, match="package registry"):
        hermes_env.wheel_path("0.16.0")
    assert not list(tmp_path.glob("wheels/*.whl"))


def test_two_processes_building_the_same_venv_share_one_build(tmp_path: Path) -> None:
    # The wheel is copied in, so this needs no registry; the venv itself is built from scratch.
    (tmp_path / "wheels").mkdir()
    wheel = hermes_env.wheel_path("0.16.0")
    (tmp_path / "wheels" / wheel.name).write_bytes(wheel.read_bytes())
    env = {**hermes_env._clean_env(), "CONTEXT_LENS_HERMES_CACHE": str(tmp_path),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    racers = [subprocess.Popen([sys.executable, "-m", "tests.differential.hermes_env", "0.16.0"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [racer.communicate(timeout=300) for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0], [err[-800:] for _, err in outputs]
    stamp = json.loads((tmp_path / "venv-0.16.0" / hermes_env.STAMP_NAME).read_text())
    assert stamp["release"] == "0.16.0" and stamp["packages"]["httpx"] == "0.28.1"
    python = tmp_path / "venv-0.16.0" / "bin" / "python"
    done = subprocess.run([str(python), "-E", "-s", "-c", hermes_env.SMOKE_IMPORT], cwd=tmp_path, capture_output=True,
                          text=True, env=hermes_env.runner_env(str(tmp_path)), check=False)
    assert done.returncode == 0, done.stderr[-800:]


def test_wheel_pins_come_from_the_wheel_metadata() -> None:
    pins = hermes_env.wheel_pins(hermes_env.wheel_path("0.18.0"))
    assert {name: pins[name] for name in ("pyyaml", "httpx", "requests")} == {
        "pyyaml": "6.0.3", "httpx": "0.28.1", "requests": "2.33.0"}


def test_the_runner_cannot_import_the_project(tmp_path: Path) -> None:
    # Even with the repository on sys.path, loading the runner makes `import core` fail.
    python = hermes_env.hermes_env("0.15.1")
    runner = Path(__file__).with_name("hermes_runner.py")
    repo = Path(__file__).resolve().parents[2]
    code = (f"import runpy, sys; sys.path[:0] = [{str(runner.parent)!r}, {str(repo)!r}]; "
            f"runpy.run_path({str(runner)!r}, run_name='probe'); import core")
    done = subprocess.run([str(python), "-E", "-s", "-c", code], capture_output=True, text=True, check=False,
                          env=hermes_env.runner_env(str(tmp_path)))
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr, done.stderr[-500:]


def test_the_comparison_fails_when_the_sides_differ() -> None:
    # The project's v0.17.0 profile against the v0.18.0 wheel: the releases differ in most cases,
    # so the harness must report differences (it is not comparing a side with itself).
    cases = [generate("0.18.0", seed) for seed in range(12)]
    theirs = run_hermes("0.18.0", cases)
    mismatched = [difference(a, b) for a, b in zip(run_ours("0.17.0", cases), theirs, strict=True)]
    assert sum(found is not None for found in mismatched) >= 6
    # ... and a release compared with a second run of itself agrees: the cases are deterministic.
    again = run_hermes("0.18.0", cases[:4])
    assert [difference(a, b) for a, b in zip(again, theirs[:4], strict=True)] == [None] * 4


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
