# Over 600 lines: the offline summary's behaviours, one short test each, over one shared conversation.
"""The offline extractive summarizer: exact output, budgets, merging, focus and safety."""

from __future__ import annotations

import copy
import dataclasses
import json
import re

import pytest

from core import CompressorConfig, ContextCompressor
from core.facts import KEY_FACT_KINDS, extract_facts, retention, retention_score
from core.phases.summary import build_summary_prompt, serialize_for_summary
from core.profiles import get_profile
from core.redaction.hermes import redact_sensitive_text
from core.summarizers.base import SummaryRequest
from core.summarizers.extractive import SECTION_HEADINGS, ExtractiveSummarizer, count_tokens, parse_prompt


def _call(call_id: str, name: str, **arguments: object) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _request(
    turns: list[dict], *, budget: int = 2000, previous: str | None = None, focus: str | None = None
) -> SummaryRequest:
    return SummaryRequest(
        prompt="",
        max_tokens=int(budget * 1.3),
        turns=turns,
        serialized_turns="",
        previous_summary=previous,
        focus_topic=focus,
        summary_budget=budget,
    )


def _summarize(turns: list[dict], **kwargs: object) -> str:
    return ExtractiveSummarizer().summarize_request(_request(turns, **kwargs))  # type: ignore[arg-type]


def _headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("## ")]


# --- a finished fix --------------------------------------------------------------------------

CSV_FIX = [
    {
        "role": "user",
        "content": "The CSV export crashes on empty rows. Fix it in src/export/csv_writer.py, and don't change "
        "the output format.",
    },
    {
        "role": "assistant",
        "content": "Reproducing first.",
        "tool_calls": [_call("c1", "terminal", command="pytest -q tests/test_csv.py", workdir="/work/shop")],
    },
    {
        "role": "tool",
        "tool_call_id": "c1",
        "content": json.dumps(
            {
                "output": "FAILED tests/test_csv.py::test_empty_row - IndexError: list index out of range\n"
                "1 failed, 7 passed in 0.52s",
                "exit_code": 1,
            }
        ),
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [_call("c2", "read_file", path="src/export/csv_writer.py", offset=30)],
    },
    {
        "role": "tool",
        "tool_call_id": "c2",
        "content": "def write_row(row):\n    first = row[0]\n    return ','.join(row)\n",
    },
    {
        "role": "assistant",
        "content": "The writer indexes row[0] without a guard. I'll use an early return for empty rows instead of a "
        "try/except.",
        "tool_calls": [
            _call(
                "c3",
                "patch",
                path="src/export/csv_writer.py",
                old_string="first = row[0]",
                new_string="if not row:\n        return ''",
            )
        ],
    },
    {"role": "tool", "tool_call_id": "c3", "content": json.dumps({"success": True})},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [_call("c4", "terminal", command="pytest -q tests/test_csv.py")],
    },
    {
        "role": "tool",
        "tool_call_id": "c4",
        "content": json.dumps({"output": "8 passed in 0.48s", "exit_code": 0}),
    },
    {"role": "assistant", "content": "All 8 tests pass now."},
    {"role": "user", "content": "Great. Does the JSON export have the same bug?"},
]

CSV_FIX_SUMMARY = """## Active Task
User asked: 'Great. Does the JSON export have the same bug?'

## Goal
The CSV export crashes on empty rows. Fix it in src/export/csv_writer.py, and don't change the output format.

## Constraints & Preferences
- Fix it in src/export/csv_writer.py, and don't change the output format.

## Completed Actions
1. READ src/export/csv_writer.py:30 — 3 lines [tool: read_file]
2. PATCH src/export/csv_writer.py — applied [tool: patch]
3. RUN `pytest -q tests/test_csv.py` — exit 1, 1 failed, 7 passed in 0.52s → exit 0, 8 passed in 0.48s [tool: terminal]
4. REPLIED to user — All 8 tests pass now.

## Active State
- Working directory: /work/shop
- Last test run: `pytest -q tests/test_csv.py` — exit 0, 8 passed in 0.48s
- Modified files: src/export/csv_writer.py

## In Progress
None.

## Blocked
None.

## Key Decisions
- I'll use an early return for empty rows instead of a try/except.

## Resolved Questions
None.

## Pending User Asks
None.

## Relevant Files
- tests/test_csv.py — used in a command
- src/export/csv_writer.py — read, patched

## Remaining Work
None.

## Critical Context
- From `pytest -q tests/test_csv.py`: FAILED tests/test_csv.py::test_empty_row - IndexError: list index out of range
- From src/export/csv_writer.py:30: def write_row(row):"""


def test_exact_summary_of_a_finished_fix() -> None:
    assert _summarize(CSV_FIX) == CSV_FIX_SUMMARY


def test_a_budget_a_little_short_drops_only_the_least_important_lines() -> None:
    # 20 tokens short of the full summary: the quoted source line goes first (its one name stays, in a
    # compact list); every action stays.
    summary = _summarize(CSV_FIX, budget=count_tokens(CSV_FIX_SUMMARY) - 20)
    assert count_tokens(summary) <= count_tokens(CSV_FIX_SUMMARY) - 20
    assert "def write_row(row):" not in summary and "write_row" in summary
    assert "2. PATCH src/export/csv_writer.py — applied [tool: patch]" in summary
    assert "4. REPLIED to user — All 8 tests pass now." in summary


# Two thirds of the full size: the essential lines first, then the exact values in compact lines
# rather than the long action lines that quoted them; the name of a function gives way first.
CSV_FIX_TIGHT_SUMMARY = """## Active Task
User asked: 'Great. Does the JSON export have the same bug?'

## Goal
The CSV export crashes on empty rows. Fix it in src/export/csv_writer.py, and don't change the output format.

## Constraints & Preferences
- Fix it in src/export/csv_writer.py, and don't change the output format.

## Completed Actions
None.

## Active State
- Working directory: /work/shop

## In Progress
None.

## Blocked
None.

## Key Decisions
None.

## Resolved Questions
None.

## Pending User Asks
None.

## Relevant Files
None.

## Remaining Work
None.

## Critical Context
- Commands: `pytest -q tests/test_csv.py`
- Error seen: FAILED tests/test_csv.py::test_empty_row - IndexError: list index out of range
- Values: 1 failed, 7 passed, 0.52s, 8 passed, 0.48s
- Identifiers: write_row"""


def test_exact_summary_under_a_tight_budget_keeps_every_key_value() -> None:
    summary = _summarize(CSV_FIX, budget=227)
    assert summary == CSV_FIX_TIGHT_SUMMARY
    facts = extract_facts(CSV_FIX)
    key = facts[facts["kind"].isin(KEY_FACT_KINDS)]
    assert retention_score(retention(key, summary)) == 1.0
    # the name (write_row) fits too: the state line that quoted a path already kept gave way
    assert retention_score(retention(facts, summary)) == 1.0


# --- work interrupted by a blocker, with an unanswered ask and a masked secret ----------------

DEPLOY = [
    {
        "role": "user",
        "content": "Deploy the staging build. Use the token sk-pro...6789 for the registry. Never push to main.",
    },
    {
        "role": "assistant",
        "content": "Building the image first.",
        "tool_calls": [_call("d1", "terminal", command="docker build -t registry.example.com/shop:1.4.2 .")],
    },
    {
        "role": "tool",
        "tool_call_id": "d1",
        "content": json.dumps(
            {
                "output": "Step 7/9 : RUN pip install -r requirements.txt\n"
                "ERROR: Could not find a version that satisfies the requirement torch==2.9.1\n"
                "The command '/bin/sh -c pip install -r requirements.txt' returned a non-zero code: 1",
                "exit_code": 1,
            }
        ),
    },
    {
        "role": "user",
        "content": "What base image are we on? Also check https://hub.docker.com/_/python for tags.",
    },
    {"role": "assistant", "content": None, "tool_calls": [_call("d2", "read_file", path="Dockerfile")]},
    {
        "role": "tool",
        "tool_call_id": "d2",
        "content": "FROM python:3.12-slim\nCOPY requirements.txt .\nRUN pip install -r requirements.txt",
    },
    {
        "role": "assistant",
        "content": "Switching to a CPU wheel index rather than pinning torch. Checking the registry login next.",
        "tool_calls": [
            _call("d3", "terminal", command="docker login registry.example.com -u deploy -p [REDACTED]")
        ],
    },
]

DEPLOY_SUMMARY = """## Active Task
User asked: 'What base image are we on? Also check https://hub.docker.com/_/python for tags.'

## Goal
Deploy the staging build. Use the token sk-pro...6789 for the registry. Never push to main.

## Constraints & Preferences
- Never push to main.

## Completed Actions
1. RUN `docker build -t registry.example.com/shop:1.4.2 .` — exit 1 [tool: terminal]
2. READ Dockerfile — 3 lines [tool: read_file]

## Active State
None.

## In Progress
- RUN `docker login registry.example.com -u deploy -p [REDACTED]` [tool: terminal] (no result yet)
- Agent's last note: Switching to a CPU wheel index rather than pinning torch. Checking the registry login next.

## Blocked
- ERROR: Could not find a version that satisfies the requirement torch==2.9.1 (from RUN `docker build -t registry.example.com/shop:1.4.2 .`)

## Key Decisions
- Switching to a CPU wheel index rather than pinning torch.

## Resolved Questions
None.

## Pending User Asks
- Deploy the staging build. Use the token sk-pro...6789 for the registry. Never push to main.

## Relevant Files
- Dockerfile — read

## Remaining Work
- Errors were still unresolved at the last attempt (see Blocked).
- Some earlier user asks had no answer yet (see Pending User Asks).
- The agent was mid-step when these turns were compacted (see In Progress).

## Critical Context
- From `docker build -t registry.example.com/shop:1.4.2 .`: Step 7/9 : RUN pip install -r requirements.txt | The command '/bin/sh -c pip install -r requirements.txt' returned a non-zero code: 1
- From Dockerfile: FROM python:3.12-slim | COPY requirements.txt . | RUN pip install -r requirements.txt"""


def test_exact_summary_of_interrupted_work() -> None:
    assert _summarize(DEPLOY) == DEPLOY_SUMMARY


# --- iterative compaction --------------------------------------------------------------------

JSON_FIX = [
    {"role": "user", "content": "Fix the JSON export the same way."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            _call(
                "j1",
                "patch",
                path="src/export/json_writer.py",
                old_string="first = row[0]",
                new_string="if not row:\n        return '[]'",
            )
        ],
    },
    {"role": "tool", "tool_call_id": "j1", "content": json.dumps({"success": True})},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [_call("j2", "terminal", command="pytest -q tests/test_json.py")],
    },
    {
        "role": "tool",
        "tool_call_id": "j2",
        "content": json.dumps(
            {
                "output": "FAILED tests/test_json.py::test_nested - TypeError: Object of type Decimal is not JSON "
                "serializable\n1 failed, 5 passed in 0.61s",
                "exit_code": 1,
            }
        ),
    },
    {"role": "assistant", "content": "I'll use a custom encoder for Decimal values."},
]

MERGED_SUMMARY = """## Active Task
User asked: 'Fix the JSON export the same way.'

## Goal
The CSV export crashes on empty rows. Fix it in src/export/csv_writer.py, and don't change the output format.

## Constraints & Preferences
- Fix it in src/export/csv_writer.py, and don't change the output format.

## Completed Actions
1. READ src/export/csv_writer.py:30 — 3 lines [tool: read_file]
2. PATCH src/export/csv_writer.py — applied [tool: patch]
3. RUN `pytest -q tests/test_csv.py` — exit 1, 1 failed, 7 passed in 0.52s → exit 0, 8 passed in 0.48s [tool: terminal]
4. REPLIED to user — All 8 tests pass now.
5. PATCH src/export/json_writer.py — applied [tool: patch]
6. RUN `pytest -q tests/test_json.py` — exit 1, 1 failed, 5 passed in 0.61s [tool: terminal]

## Active State
- Working directory: /work/shop
- Modified files: src/export/csv_writer.py, src/export/json_writer.py
- Last test run: `pytest -q tests/test_json.py` — exit 1, 1 failed, 5 passed in 0.61s

## In Progress
None.

## Blocked
- FAILED tests/test_json.py::test_nested - TypeError: Object of type Decimal is not JSON serializable (from RUN `pytest -q tests/test_json.py`)

## Key Decisions
- I'll use an early return for empty rows instead of a try/except.
- I'll use a custom encoder for Decimal values.

## Resolved Questions
None.

## Pending User Asks
None.

## Relevant Files
- tests/test_csv.py — used in a command
- src/export/csv_writer.py — read, patched
- src/export/json_writer.py — patched
- tests/test_json.py — used in a command

## Remaining Work
- Errors were still unresolved at the last attempt (see Blocked).

## Critical Context
- From `pytest -q tests/test_csv.py`: FAILED tests/test_csv.py::test_empty_row - IndexError: list index out of range
- From src/export/csv_writer.py:30: def write_row(row):"""


def test_iterative_merge_continues_numbering_and_carries_context() -> None:
    assert _summarize(JSON_FIX, previous=CSV_FIX_SUMMARY) == MERGED_SUMMARY


def test_merge_with_a_fallback_summary_drops_its_boilerplate() -> None:
    fallback_body = (
        "## Active Task\nUser asked: 'old ask'\n\n## Goal\nRecovered from a deterministic fallback because the LLM "
        "context summarizer was unavailable.\n\n## Completed Actions\n1. Called tool(s): terminal\n"
        "2. [terminal] ran `make build` -> exit 2, 1 lines output\n\n## Active State\nUnknown from deterministic "
        "fallback. Inspect current repository/session state if needed.\n\n## Key Decisions\nNone recoverable from "
        "deterministic fallback.\n\n## Last Dropped Turns\n- USER: please run make build\n\n## Critical Context\n"
        "Summary generation was unavailable, so this is a best-effort deterministic fallback for 3 compacted message(s)."
    )
    merged = _summarize(JSON_FIX, previous=fallback_body)
    assert "deterministic fallback" not in merged
    assert (
        "1. Called tool(s): terminal\n2. [terminal] ran `make build` -> exit 2, 1 lines output\n3. PATCH"
        in merged
    )
    assert "- USER: please run make build" in merged
    assert "User asked: 'Fix the JSON export the same way.'" in merged
    assert "old ask" not in merged


def test_previous_active_task_is_kept_when_no_new_user_message() -> None:
    turns = [{"role": "assistant", "content": "Still working on it."}]
    merged = _summarize(turns, previous=CSV_FIX_SUMMARY)
    assert merged.startswith(
        "## Active Task\nUser asked: 'Great. Does the JSON export have the same bug?'\n\n## Goal"
    )


def test_closing_remark_leaves_no_active_task() -> None:
    turns = [
        {"role": "user", "content": "Rename the flag to --dry-run."},
        {"role": "assistant", "content": "Renamed."},
        {"role": "user", "content": "Thanks, that's all!"},
    ]
    assert _summarize(turns).startswith("## Active Task\nNone.\n\n## Goal\nRename the flag to --dry-run.\n")


# --- structure and size ------------------------------------------------------------------------


def _generated_session(rounds: int) -> list[dict]:
    """A long agent run over several modules: reads, failing and passing test runs, patches,
    tracebacks, user questions with links, and decisions."""
    modules = ["billing", "auth", "search", "export", "cache", "routes"]
    turns: list[dict] = [
        {"role": "user", "content": "Make the whole test suite pass. Never edit the migrations."}
    ]
    for n in range(rounds):
        module = modules[n % len(modules)]
        path = f"src/{module}/service.py"
        test = f"tests/test_{module}.py"
        ids = [f"r{n}_{k}" for k in range(4)]
        turns += [
            {
                "role": "assistant",
                "content": f"Reading {path}.",
                "tool_calls": [_call(ids[0], "read_file", path=path)],
            },
            {
                "role": "tool",
                "tool_call_id": ids[0],
                "content": f"class {module.title()}Service:\n    def run_{n}(self): ...",
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call(ids[1], "terminal", command=f"pytest -q {test}")],
            },
            {
                "role": "tool",
                "tool_call_id": ids[1],
                "content": json.dumps(
                    {
                        "output": f"FAILED {test}::test_case_{n} - ValueError: bad value {n}\n1 failed, {n + 3} passed in {n}.5s",
                        "exit_code": 1,
                    }
                ),
            },
            {
                "role": "assistant",
                "content": f"I'll use a guard in run_{n} instead of a retry.",
                "tool_calls": [_call(ids[2], "patch", path=path, old_string="x", new_string="y")],
            },
            {"role": "tool", "tool_call_id": ids[2], "content": json.dumps({"success": True})},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call(ids[3], "terminal", command=f"pytest -q {test}")],
            },
            {
                "role": "tool",
                "tool_call_id": ids[3],
                "content": json.dumps({"output": f"{n + 4} passed in {n}.9s", "exit_code": 0}),
            },
        ]
        if n % 4 == 1:
            turns.append(
                {
                    "role": "user",
                    "content": f"Why did {module} break? See https://tracker.example.com/T-{n} (#{n}).",
                }
            )
            turns.append(
                {"role": "assistant", "content": f"The {module} service kept state across calls {n} times."}
            )
    turns.append({"role": "user", "content": "Now run the full suite."})
    return turns


LONG_SESSION = _generated_session(60)


@pytest.mark.parametrize("turns", [CSV_FIX, DEPLOY, JSON_FIX, LONG_SESSION, []])
def test_all_thirteen_headings_in_order_and_no_prefix(turns: list[dict]) -> None:
    summary = _summarize(turns)
    assert _headings(summary) == list(SECTION_HEADINGS)
    assert summary.startswith("## Active Task\n")
    assert "[CONTEXT COMPACTION" not in summary and "[CONTEXT SUMMARY]" not in summary


@pytest.mark.parametrize("budget", [120, 300, 600, 1200, 2500])
def test_stays_within_budget_on_a_long_session(budget: int) -> None:
    summary = _summarize(LONG_SESSION, budget=budget)
    assert count_tokens(summary) <= budget
    assert _headings(summary) == list(SECTION_HEADINGS)
    # the newest user request always survives
    assert "User asked: 'Now run the full suite.'" in summary


def test_without_a_target_the_hard_limit_is_max_tokens() -> None:
    request = dataclasses.replace(_request(LONG_SESSION), summary_budget=0, max_tokens=400)
    summary = ExtractiveSummarizer().summarize_request(request)
    assert 300 < count_tokens(summary) <= 400


def test_a_larger_budget_keeps_more_facts_and_drops_old_before_recent() -> None:
    facts = extract_facts(LONG_SESSION)
    small = _summarize(LONG_SESSION, budget=600)
    large = _summarize(LONG_SESSION, budget=6000)
    assert retention_score(retention(facts, large)) == 1.0
    assert retention_score(retention(facts, small)) < 0.6
    # trimming keeps the latest unresolved state and drops the oldest details first
    assert "tests/test_routes.py" in small
    assert "- Never edit the migrations." in small
    oldest_link = re.compile(r"https://tracker\.example\.com/T-1\b")
    assert oldest_link.search(large)
    assert not oldest_link.search(small)
    oldest_error = re.compile(r"test_case_0\b")
    assert oldest_error.search(large)
    assert not oldest_error.search(small)
    assert "FAILED tests/test_routes.py::test_case_59 - ValueError: bad value 59" in small


def test_focus_topic_keeps_its_items_under_a_tight_budget() -> None:
    plain = _summarize(LONG_SESSION, budget=700)
    focused = _summarize(LONG_SESSION, budget=700, focus="billing")
    assert count_tokens(focused) <= 700
    assert plain.count("billing") < focused.count("billing")
    assert "src/billing/service.py" in focused
    assert "PATCH src/billing/service.py" in focused


def test_budget_too_small_for_the_template_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="cannot hold the 13-section template"):
        _summarize(CSV_FIX, budget=40)


def test_long_active_task_is_cut_not_the_headings() -> None:
    pasted = "Here is the log:\n" + "\n".join(f"line {n}: INFO request served in {n} ms" for n in range(400))
    summary = _summarize([{"role": "user", "content": pasted}], budget=300)
    assert count_tokens(summary) <= 300
    assert _headings(summary) == list(SECTION_HEADINGS)
    assert summary.startswith("## Active Task\nUser asked: 'Here is the log:\nline 0: INFO")
    assert "…[truncated]'" in summary


# --- determinism, input safety and secrets ---------------------------------------------------


def test_deterministic_and_does_not_mutate_the_request() -> None:
    request = _request(LONG_SESSION, budget=900, previous=CSV_FIX_SUMMARY, focus="auth")
    turns_before = copy.deepcopy(request.turns)
    first = ExtractiveSummarizer().summarize_request(request)
    second = ExtractiveSummarizer().summarize_request(request)
    assert first == second
    assert request.turns == turns_before


def test_reads_only_the_redacted_turns_never_the_prompt() -> None:
    raw_key = "sk-proj-ABCDEFGHIJ0123456789"
    raw_turns = [{"role": "user", "content": f"Use the key {raw_key} for the staging API, then rerun."}]
    redacted = [{"role": "user", "content": redact_sensitive_text(raw_turns[0]["content"])}]
    assert redacted[0]["content"] == "Use the key sk-pro...6789 for the staging API, then rerun."
    request = SummaryRequest(
        prompt=f"TURNS TO SUMMARIZE:\n[USER]: {raw_key}\n\nUse this exact structure:\n\n## Active Task",
        max_tokens=2600,
        turns=redacted,
        serialized_turns=f"[USER]: {raw_key}",
        summary_budget=2000,
    )
    summary = ExtractiveSummarizer().summarize_request(request)
    assert raw_key not in summary
    assert "User asked: 'Use the key sk-pro...6789 for the staging API, then rerun.'" in summary
    assert "[REDACTED]" in _summarize(DEPLOY)  # masks already in the turns are kept as they are


def test_inside_the_compressor_no_secret_reaches_the_summary() -> None:
    raw_key = "sk-proj-ABCDEFGHIJ0123456789"
    github_token = "ghp_" + "a1B2" * 9
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the failing login test in ~/app/tests/test_login.py"},
        {
            "role": "assistant",
            "content": "Running the suite first.",
            "tool_calls": [
                _call("call_1", "terminal", command="pytest -q tests/test_login.py", workdir="/home/me/app")
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": json.dumps(
                {"output": "FAILED tests/test_login.py::test_ok - AssertionError: 401 != 200", "exit_code": 1}
            ),
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("call_2", "read_file", path="/home/me/app/auth.py")],
        },
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "content": f"def login(user, pw):\n    token = '{github_token}'\n    return check(user, pw)",
        },
        {"role": "user", "content": f"Use the key {raw_key} for the staging API, then rerun."},
        {"role": "assistant", "content": "Will do."},
        {"role": "user", "content": "Thanks. What is left?"},
        {"role": "assistant", "content": "Only the docs."},
    ]
    before = copy.deepcopy(messages)
    config = CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile="v0.16.0")
    result = ContextCompressor(config, summarizer=ExtractiveSummarizer()).compress(messages)
    assert messages == before
    assert result.outcome == "summarized"
    summary = result.assembly.summary_text or ""
    assert summary.startswith("[CONTEXT COMPACTION — REFERENCE ONLY]")
    body = summary[summary.index("\n## Active Task\n") + 1 :]
    assert _headings(body) == list(SECTION_HEADINGS)
    assert "User asked: 'Use the key sk-pro...6789 for the staging API, then rerun.'" in body
    assert "- FAILED tests/test_login.py::test_ok - AssertionError: 401 != 200" in body
    output = json.dumps(result.messages)
    assert raw_key not in output and github_token not in output


# --- the plain summarizer call -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("turns", "previous", "focus"),
    [(CSV_FIX, None, None), (JSON_FIX, CSV_FIX_SUMMARY, "JSON export"), (DEPLOY, None, "docker")],
)
def test_plain_call_reads_the_prompt_like_the_request(
    turns: list[dict], previous: str | None, focus: str | None
) -> None:
    serialized = serialize_for_summary(turns, redact_sensitive_text)
    prompt = build_summary_prompt(
        serialized,
        profile=get_profile("v0.16.0"),
        summary_budget_tokens=2000,
        previous_summary=previous,
        focus_topic=focus,
    )
    parsed = parse_prompt(prompt, 2600)
    assert parsed.serialized_turns == serialized
    assert parsed.previous_summary == previous
    assert parsed.focus_topic == focus
    assert parsed.summary_budget == 2000
    assert [message["role"] for message in parsed.turns] == [message["role"] for message in turns]
    summarizer = ExtractiveSummarizer()
    request = SummaryRequest(
        prompt=prompt,
        max_tokens=2600,
        turns=turns,
        serialized_turns=serialized,
        previous_summary=previous,
        focus_topic=focus,
        summary_budget=2000,
    )
    assert summarizer(prompt, 2600) == summarizer.summarize_request(request)


def test_plain_call_without_the_prompt_layout_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="call summarize_request"):
        ExtractiveSummarizer()("Summarise this please.", 1000)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"turns": "not a list"}, TypeError, "request.turns must be a list"),
        ({"max_tokens": 0}, ValueError, "max_tokens must be a positive integer"),
    ],
)
def test_bad_requests_are_rejected_clearly(change: dict, error: type[Exception], message: str) -> None:
    request = dataclasses.replace(_request(CSV_FIX), **change)
    with pytest.raises(error, match=re.escape(message)):
        ExtractiveSummarizer().summarize_request(request)


def test_non_dict_turns_are_read_as_text() -> None:
    summary = _summarize(["a stray string turn", {"role": "user", "content": "Rebuild the index."}])  # type: ignore[list-item]
    assert "User asked: 'Rebuild the index.'" in summary


def test_the_goal_is_the_users_own_words_even_with_a_single_ask() -> None:
    first = _summarize([{"role": "user", "content": "Port the CLI to click."}])
    assert "## Goal\nPort the CLI to click.\n" in first
    merged = _summarize([{"role": "user", "content": "Now add tests."}], previous=first)
    assert merged.startswith(
        "## Active Task\nUser asked: 'Now add tests.'\n\n## Goal\nPort the CLI to click.\n\n"
    )


def test_an_earlier_goal_that_pointed_at_its_task_keeps_that_tasks_words() -> None:
    earlier = "## Active Task\nUser asked: 'Port the CLI to click.'\n\n## Goal\nSame as the Active Task."
    merged = _summarize([{"role": "user", "content": "Now add tests."}], previous=earlier)
    assert "## Goal\nPort the CLI to click.\n\n" in merged
    assert "Same as the Active Task" not in merged


@pytest.mark.parametrize("extra", [16, 25, 60])
def test_a_huge_ask_fits_even_the_smallest_accepted_budget(extra: int) -> None:
    skeleton = count_tokens("\n\n".join(f"{heading}\nNone." for heading in SECTION_HEADINGS))
    budget = skeleton + extra
    summary = _summarize([{"role": "user", "content": "word " * 2000}], budget=budget)
    assert count_tokens(summary) <= budget
    assert "…[truncated]'" in summary


def test_odd_message_shapes_are_read_without_error() -> None:
    class Function:
        name = "terminal"
        arguments = '{"command": "make check"}'

    class Call:
        id = "obj_1"
        function = Function()

    turns = [
        {"role": "user", "content": [{"type": "text", "text": "Check the build."}, {"type": "image_url"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": {"id": "d1", "function": {"name": "read_file", "arguments": {"path": "setup.cfg"}}},
        },
        {
            "role": "tool",
            "tool_call_id": "d1",
            "content": [{"type": "text", "text": "[metadata]\nname = shop"}],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [Call(), {"id": "bad", "function": {"name": "terminal", "arguments": "{not json"}}],
        },
        {"role": "tool", "tool_call_id": "obj_1", "content": '{"output": "ok", "exit_code": 0}'},
        {"role": "tool", "tool_call_id": "unknown_id", "content": "orphan result"},
        {"content": 42},
    ]
    before = copy.deepcopy(turns[:3])
    summary = _summarize(turns)
    assert turns[:3] == before
    assert "User asked: 'Check the build.'" in summary
    assert "READ setup.cfg — 2 lines [tool: read_file]" in summary
    assert "RUN `make check` — exit 0 [tool: terminal]" in summary
    assert "CALL terminal {not json" in summary


def test_constraints_are_instructions_not_questions_that_mention_them() -> None:
    turns = [
        {"role": "user", "content": "Confirm the fixtures don't write outside tmp_path."},
        {"role": "assistant", "content": "They only use tmp_path."},
        {"role": "user", "content": "Good. Use httpx instead of requests, and never log tokens. Ship it."},
    ]
    summary = _summarize(turns)
    constraints = summary.split("## Constraints & Preferences\n", 1)[1].split("\n\n", 1)[0]
    assert constraints == "- Use httpx instead of requests, and never log tokens."


def test_file_contents_that_mention_errors_do_not_block() -> None:
    listing = "\n".join(
        [
            "def main():",
            "    try:",
            "        run()",
            "    except ConfigError as exc:",
            '        print(f"error: {exc}")',
        ]
    )
    turns = [
        {"role": "user", "content": "Explain the error handling in cli.py."},
        {"role": "assistant", "content": None, "tool_calls": [_call("r1", "read_file", path="cli.py")]},
        {"role": "tool", "tool_call_id": "r1", "content": listing},
        {"role": "assistant", "content": None, "tool_calls": [_call("r2", "read_file", path="missing.py")]},
        {"role": "tool", "tool_call_id": "r2", "content": "Error: file not found: missing.py"},
    ]
    summary = _summarize(turns)
    blocked = summary.split("## Blocked\n", 1)[1].split("\n\n", 1)[0]
    assert blocked == "- Error: file not found: missing.py (from READ missing.py)"
    assert "READ cli.py — 5 lines [tool: read_file]" in summary
    assert "READ missing.py — failed [tool: read_file]" in summary


# --- the headings of the request, and the v0.17.0 prompt layout ---------------------------------

V0_17_HEADINGS = (
    "## Historical Task Snapshot",
    "## Goal",
    "## Constraints & Preferences",
    "## Completed Actions",
    "## Active State",
    "## Historical In-Progress State",
    "## Blocked",
    "## Key Decisions",
    "## Resolved Questions",
    "## Historical Pending User Asks",
    "## Relevant Files",
    "## Historical Remaining Work",
    "## Critical Context",
)


def test_the_summary_uses_the_requests_headings_by_position() -> None:
    request = dataclasses.replace(_request(DEPLOY), section_headings=V0_17_HEADINGS)
    summary = ExtractiveSummarizer().summarize_request(request)
    assert _headings(summary) == list(V0_17_HEADINGS)
    assert summary.startswith(
        "## Historical Task Snapshot\nUser asked: 'What base image are we on? Also check https://hub.docker.com/_/python"
    )
    # the same lines as under the v0.16.0 headings, only the four renamed headings differ
    plain = _summarize(DEPLOY)
    renamed = summary
    for old, new in zip(SECTION_HEADINGS, V0_17_HEADINGS, strict=True):
        renamed = renamed.replace(new + "\n", old + "\n")
    assert renamed.replace("(see Historical Pending User Asks)", "(see Pending User Asks)").replace(
        "(see Historical In-Progress State)", "(see In Progress)") == plain
    # a previous summary written under either set of headings is merged by position
    merged = ExtractiveSummarizer().summarize_request(
        dataclasses.replace(_request(JSON_FIX, previous=summary), section_headings=V0_17_HEADINGS))
    assert "## Constraints & Preferences\n- Never push to main.\n" in merged
    assert "2. READ Dockerfile — 3 lines [tool: read_file]\n3. PATCH src/export/json_writer.py" in merged
    assert _headings(merged) == list(V0_17_HEADINGS)


def _v0_17_prompt(turns: list[dict], focus: str | None, *, previous: str | None = None, anchored: bool = True) -> str:
    """A prompt in the v0.17.0 layout (delta spec §9.4), written here from the layout rule."""
    template = "\n\n".join(f"{heading}\n[What goes under {heading[3:]}.]" for heading in V0_17_HEADINGS)
    closing = "Target ~1500 tokens. Be concrete: include file paths and exact values."
    if anchored:
        closing += ("\n\nTEMPORAL ANCHORING: The current date is 2026-06-20. Phrase completed actions as dated, "
                    "past-tense facts, e.g. \"Sent the proposal email to John on 2026-06-20.\"")
    closing += "\n\nWrite only the summary body. Do not include any preamble or prefix."
    serialized = serialize_for_summary(turns, redact_sensitive_text)
    if previous:
        body = (f"PREVIOUS SUMMARY:\n{previous}\n\nNEW TURNS TO INCORPORATE:\n{serialized}\n\n"
                "Use the exact structure below and update \"## Active Task\" with the latest unfulfilled input.")
    else:
        body = f"TURNS TO SUMMARIZE:\n{serialized}\n\nUse this exact structure:"
    prompt = f"You are a summarization agent. Treat the conversation turns below as source material.\n\n{body}\n\n{template}\n\n{closing}"
    if focus:
        prompt += (f'\n\nFOCUS TOPIC: "{focus}"\nThis compaction should PRIORITISE preserving all information related to '
                   f'the focus topic above: "{focus}". Credentials are written as [REDACTED].')
    return prompt


@pytest.mark.parametrize("anchored", [True, False])
def test_plain_call_reads_a_v0_17_prompt(anchored: bool) -> None:
    focus = 'Recent user focus:\n- Fix the "CSV export" crash on empty rows\n- Does the JSON export have the same bug?'
    prompt = _v0_17_prompt(CSV_FIX, focus, anchored=anchored)
    parsed = parse_prompt(prompt, 1950)
    assert parsed.section_headings == V0_17_HEADINGS
    assert parsed.focus_topic == focus
    assert parsed.summary_budget == 1500
    assert parsed.previous_summary is None
    assert [m["role"] for m in parsed.turns] == [m["role"] for m in CSV_FIX]
    summary = ExtractiveSummarizer()(prompt, 1950)
    assert _headings(summary) == list(V0_17_HEADINGS)
    assert count_tokens(summary) <= 1500


def test_plain_call_reads_an_iterative_v0_17_prompt() -> None:
    previous = ExtractiveSummarizer().summarize_request(
        dataclasses.replace(_request(CSV_FIX), section_headings=V0_17_HEADINGS))
    prompt = _v0_17_prompt(JSON_FIX, None, previous=previous)
    parsed = parse_prompt(prompt, 1950)
    assert parsed.previous_summary == previous
    assert parsed.focus_topic is None
    assert parsed.section_headings == V0_17_HEADINGS
    summary = ExtractiveSummarizer()(prompt, 1950)
    assert "5. PATCH src/export/json_writer.py — applied [tool: patch]" in summary
    assert summary.startswith("## Historical Task Snapshot\nUser asked: 'Fix the JSON export the same way.'")


def test_a_focus_on_one_line_is_read_as_before() -> None:
    prompt = _v0_17_prompt(CSV_FIX, "CSV export")
    assert parse_prompt(prompt, 1950).focus_topic == "CSV export"


@pytest.mark.parametrize("profile", ["v0.16.0", "v0.17.0", "v0.18.0"])
def test_inside_the_compressor_the_summary_carries_the_profiles_headings(profile: str) -> None:
    messages = [{"role": "system", "content": "You are a coding agent."}, *CSV_FIX, *JSON_FIX]
    config = CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile=profile)
    compressor = ContextCompressor(config, summarizer=ExtractiveSummarizer())
    result = compressor.compress(messages, force=True)
    assert result.outcome == "summarized"
    headings = compressor.profile.template_headings
    body = result.assembly.summary_text[result.assembly.summary_text.index("\n" + headings[0] + "\n") + 1 :]
    assert _headings(body)[: len(headings)] == list(headings)


def test_a_request_without_13_headings_falls_back_to_the_v0_16_ones() -> None:
    request = dataclasses.replace(_request(CSV_FIX), section_headings=("## Only one",))
    assert _headings(ExtractiveSummarizer().summarize_request(request)) == list(SECTION_HEADINGS)


# --- sessions of other harnesses, noise, root causes --------------------------------------------

CI_FAILURE = [
    {"role": "user", "content": "[Request interrupted by user for tool use]"},
    {"role": "user", "content": "CI fails on main: the proration tests break in GitHub Actions but pass locally. "
     "Find out why and fix it."},
    {"role": "assistant", "content": None, "tool_calls": [_call("t1", "terminal", command="pytest -v tests/")]},
    {"role": "tool", "tool_call_id": "t1", "content": json.dumps({"exit_code": 1, "output": "\n".join(
        [f"tests/test_x.py::test_x_{n} PASSED [{n:3d}%]" for n in range(80)]
        + ["FAILED tests/test_proration.py::test_annual - AssertionError: assert Decimal('83.33') == Decimal('83.34')",
           "FAILED tests/test_tax.py::test_vat - AssertionError: assert Decimal('19.99') == Decimal('20.00')",
           "=========== 2 failed, 80 passed in 11.84s ==========="])})},
    {"role": "assistant", "content": None, "tool_calls": [_call("t2", "read_file", path=".env")]},
    {"role": "tool", "tool_call_id": "t2", "content": "ROUNDING_MODE=ROUND_HALF_UP\nDEFAULT_CURRENCY=EUR"},
    {"role": "assistant", "content": "Root cause: the local .env sets ROUNDING_MODE=ROUND_HALF_UP, which masked the bug; "
     "CI has no .env and rounds half-even. I'll make ROUND_HALF_UP the default in billing/settings.py."},
    {"role": "user", "content": "Good. Don't change the tests."},
]


def test_a_ci_failure_keeps_the_goal_the_failures_the_totals_and_the_root_cause() -> None:
    summary = _summarize(CI_FAILURE)
    assert "## Goal\nCI fails on main: the proration tests break in GitHub Actions but pass locally." in summary
    assert "Request interrupted" not in summary
    assert "- FAILED tests/test_proration.py::test_annual - AssertionError: assert Decimal('83.33') == Decimal('83.34')" in summary
    assert "RUN `pytest -v tests/` — exit 1, 2 failed, 80 passed in 11.84s, 80 passing tests listed [tool: terminal]" in summary
    assert "test_x_17" not in summary  # passing tests are a count, not 80 lines
    assert "- Root cause: the local .env sets ROUNDING_MODE=ROUND_HALF_UP, which masked the bug; CI has no .env" in summary
    # at two thirds of the size, the root cause and both failures are still there
    tight = _summarize(CI_FAILURE, budget=count_tokens(summary) * 2 // 3)
    assert "Root cause: the local .env sets ROUNDING_MODE=ROUND_HALF_UP" in tight
    assert "AssertionError: assert Decimal('83.33') == Decimal('83.34')" in tight
    assert "AssertionError: assert Decimal('19.99') == Decimal('20.00')" in tight


HARNESS_SHAPES = [
    {"role": "user", "content": "Fix the shard accounting."},
    {"role": "assistant", "content": None, "tool_calls": [
        _call("x1", "shell", command=["bash", "-lc", "cargo build"], workdir="/home/lin/ripcache")]},
    {"role": "tool", "tool_call_id": "x1", "content": json.dumps({"output": "error[E0308]: mismatched types\n  --> src/shard.rs:41:20",
                                                                  "metadata": {"exit_code": 101}})},
    {"role": "assistant", "content": None, "tool_calls": [_call("x2", "apply_patch", input=(
        "*** Begin Patch\n*** Update File: src/shard.rs\n@@\n-self.bytes += n;\n+self.bytes += n as u64;\n*** End Patch"))]},
    {"role": "tool", "tool_call_id": "x2", "content": json.dumps({"output": "Success. Updated the following files:\nM src/shard.rs"})},
    {"role": "assistant", "content": None, "tool_calls": [
        _call("x3", "str_replace_editor", command="view", path="/repo/src/cache.rs")]},
    {"role": "tool", "tool_call_id": "x3", "content": "Here's the result of running `cat -n` on /repo/src/cache.rs:\n     1\tuse std::x;"},
    {"role": "assistant", "content": None, "tool_calls": [_call("x4", "execute_bash", command="cargo test")]},
    {"role": "tool", "tool_call_id": "x4", "content": "test result: ok. 49 passed; 0 failed; 0 ignored\n"
     "[The command completed with exit code 0.]"},
]


def test_tool_shapes_of_other_harnesses_are_read() -> None:
    summary = _summarize(HARNESS_SHAPES)
    assert "RUN `cargo build` — exit 101 [tool: shell]" in summary
    assert "PATCH src/shard.rs — applied [tool: apply_patch]" in summary
    assert "READ /repo/src/cache.rs — 2 lines [tool: str_replace_editor]" in summary
    assert "RUN `cargo test` — exit 0, 49 passed; 0 failed [tool: execute_bash]" in summary
    assert "- Working directory: /home/lin/ripcache" in summary
    assert "- Modified files: src/shard.rs" in summary
    # the compile error was resolved by the later passing test run of the same crate? no: a different command
    assert "error[E0308]: mismatched types" in summary


def test_the_summarizers_do_not_import_the_analyses() -> None:
    import subprocess
    import sys

    code = ("import sys, core.summarizers.extractive; "
            "print(sorted(m for m in sys.modules if m.startswith(('core.views', 'core.inspections', 'core.render'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_secret_the_profile_let_through_is_not_promoted_into_the_summary() -> None:
    aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    turns = [
        {"role": "user", "content": "Check the deploy config."},
        {"role": "assistant", "content": None, "tool_calls": [_call("a1", "read_file", path="deploy/.aws/credentials")]},
        {"role": "tool", "tool_call_id": "a1", "content": f"[default]\naws_secret_access_key = {aws}\nregion = eu-west-1"},
    ]
    assert redact_sensitive_text(turns[2]["content"]) == turns[2]["content"]  # the profile's redaction misses it
    summary = _summarize(turns)
    assert aws not in summary
    assert "READ deploy/.aws/credentials — 3 lines [tool: read_file]" in summary


@pytest.mark.parametrize("profile", ["v0.16.0", "v0.17.0", "v0.18.0"])
@pytest.mark.parametrize("previous", [None, "## Goal\nPort the CLI to click."])
def test_plain_call_reads_the_prompt_each_profile_builds(profile: str, previous: str | None) -> None:
    focus = 'Recent user focus:\n- Fix the "CSV export" crash\n- Does the JSON export have the same bug?'
    serialized = serialize_for_summary(CSV_FIX, redact_sensitive_text)
    prompt = build_summary_prompt(serialized, profile=get_profile(profile), summary_budget_tokens=1800,
                                  previous_summary=previous, focus_topic=focus, date="2026-06-20")
    parsed = parse_prompt(prompt, 2340)
    assert parsed.section_headings == get_profile(profile).template_headings
    assert (parsed.focus_topic, parsed.previous_summary, parsed.summary_budget) == (focus, previous, 1800)
    assert parsed.serialized_turns == serialized
    summary = ExtractiveSummarizer()(prompt, 2340)
    assert _headings(summary) == list(get_profile(profile).template_headings)
