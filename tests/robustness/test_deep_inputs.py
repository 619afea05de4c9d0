"""Well-formed transcripts with extreme content, through every CLI command and dashboard page.

Each file is valid JSON that the importer reads; what it holds is deep (tool arguments nested
6,000 levels, beyond Python's recursion limit), huge (one multi-megabyte tool output) or
unicode-broken (lone surrogates escaped inside tool arguments, which parsing the arguments turns
into unencodable text). None of it may end in a RecursionError, a UnicodeEncodeError or any
other crash: ``analyze``, ``compress`` and ``batch`` exit 0 with their normal output, every page
renders without an exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cli import main
from core.inspections.lint import _is_deep_json_text, _is_json_text, lint
from tests.app.conftest import go, new_app, upload
from tests.robustness.test_hostile_upload import GENERIC_FAILURE, TRACEBACK_MARKERS, page_texts, pages

DEPTH = 6_000


def deep_object(depth: int = DEPTH) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def agent_conversation(arguments: str, output: str, user_text: str = "") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for i in range(12):
        messages += [
            {"role": "user", "content": f"step {i} {user_text}"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": "terminal", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": output},
            {"role": "assistant", "content": f"done with step {i} {user_text}"},
        ]
    return messages


EXTREME_FILES: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "deep_arguments.json": lambda: agent_conversation(deep_object(), "ok"),
    "deep_output.json": lambda: agent_conversation('{"command": "cat x.json"}', "[" * DEPTH + "]" * DEPTH),
    "huge_output.json": lambda: agent_conversation('{"command": "cat log"}', "a line of the build log\n" * 120_000),
    # The file's JSON escapes are valid; "\\ud800" inside the arguments string only becomes a lone
    # surrogate when the arguments themselves are parsed.
    "surrogates_in_arguments.json": lambda: agent_conversation('{"command": "echo \\ud800 \\udfff"}', "out",
                                                               "text \ud83d"),
}


@pytest.fixture(scope="module")
def extreme_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("extreme")
    files = {}
    for name, build in EXTREME_FILES.items():
        path = root / name
        path.write_text(json.dumps(build()), encoding="utf-8")
        files[name] = path
    return files


# -- the lint (analyze ended with a RecursionError here) ---------------------------------------


def test_deeply_nested_valid_arguments_are_valid_json() -> None:
    messages = agent_conversation(deep_object(), "ok")
    violations = lint(messages)
    assert violations.empty, violations.to_dict("records")


def test_deeply_nested_broken_arguments_are_reported_not_raised() -> None:
    messages = agent_conversation(deep_object()[:-1], "ok")  # one closing brace short
    violations = lint(messages)
    assert set(violations["rule"]) == {"arguments_not_json"}
    assert len(violations) == 12


def _json_loads_accepts(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


json_pieces = st.sampled_from(['{', '}', '[', ']', ',', ':', '"k"', '"\\u00e9"', '"\\x"', '1', '-0.5e3', '01', 'true',
                               'nul', 'NaN', '-Infinity', ' ', '\n', '"', 'x'])


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(json_pieces, max_size=12), value=st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=8))
def test_the_stackless_json_check_agrees_with_json_loads(pieces: list[str], value: Any) -> None:
    for text in ("".join(pieces), json.dumps(value), json.dumps(value)[:-1]):
        assert _is_deep_json_text(text) == _json_loads_accepts(text), text
        assert _is_json_text(text) == _json_loads_accepts(text), text


# -- every CLI command -------------------------------------------------------------------------


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(EXTREME_FILES))
def test_every_command_on_extreme_content(name: str, extreme_files: dict[str, Path], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = str(extreme_files[name])
    assert main(["analyze", path, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["messages"] == 49 and report["outcome"] in ("summarized", "fallback")
    assert report["failure_reason"] is None, report["failure_reason"]

    out = tmp_path / "out.json"
    assert main(["compress", path, "--force", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "error" not in err.lower().split(": warning:")[0], err
    assert json.loads(out.read_text(encoding="utf-8"))
    assert "summary failed" not in err, err

    report_path = tmp_path / "report.csv"
    assert main(["batch", path, "-o", str(report_path), "--workers", "1", "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)
    assert totals["failed_files"] == 0 and totals["rows"] == 1


# -- every dashboard page ----------------------------------------------------------------------


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", sorted(EXTREME_FILES))
def test_every_page_on_extreme_content(name: str, extreme_files: dict[str, Path]) -> None:
    at = new_app()
    upload(at, name, extreme_files[name].read_bytes())
    for page in pages():
        at.switch_page(f"pages/{page}.py")
        at.run(timeout=300)
        assert not at.exception, (page, [e.value for e in at.exception])
        texts = page_texts(at)
        assert not any(marker in text for text in texts for marker in TRACEBACK_MARKERS), page
        errors = [e.value for e in at.error]
        assert not errors and not any(GENERIC_FAILURE in e for e in errors), (page, errors)
    go(at, "overview")
