"""Fact retention and size of the extractive summary against the v0.16.0 deterministic fallback.

For each long conversation (the bundled samples when present, plus a generated coding-agent
session), a default compression (context 128,000, profile v0.16.0) is run twice on the same
messages: once with the extractive summarizer, capturing the ``SummaryRequest`` it receives, and
once with no summarizer, which makes the compressor write the deterministic fallback. Both
summaries cover the same turns; their bodies (handoff prefix removed) are scored with
``core.facts``:

* retention of the facts in the turns the summarizer received (pruned by Phase 1, redacted), and
* retention of the facts in the original, unpruned messages of the same span (what was dropped).

Sizes are reported in characters and ``cl100k_base`` tokens, with the request's budget. The
extractive summary is also written a second time with a budget of the fallback's own token count,
so the two are compared at equal size.

Run: ``.venv/bin/python bench/bench_summarizer_retention.py`` (writes
``bench/results/summarizer_retention.json``).
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core import CompressorConfig, ContextCompressor  # noqa: E402
from core.facts import extract_facts, retention, retention_by_kind, retention_score  # noqa: E402
from core.summarizers.base import SummaryRequest  # noqa: E402
from core.summarizers.extractive import ExtractiveSummarizer, count_tokens  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "summarizer_retention.json"
SAMPLES = ROOT / "sample_conversations"
MIN_SAMPLE_MESSAGES = 60


# ---------------------------------------------------------------------------------------------
# A generated long coding-agent session (deterministic for a seed)

_MODULES = [
    ("src/server/app.py", "create_app", "RateLimiter"),
    ("src/server/limits.py", "check_quota", "QuotaStore"),
    ("src/server/auth.py", "verify_token", "TokenVerifier"),
    ("src/db/models.py", "get_session", "UserRecord"),
    ("src/db/migrations.py", "apply_migrations", "MigrationPlan"),
    ("src/cli/main.py", "parse_args", "CommandRunner"),
    ("src/cache/redis_store.py", "connect_redis", "RedisBackend"),
    ("src/api/routes.py", "register_routes", "RouteTable"),
]
_ERRORS = [
    "AssertionError: assert 429 == 200",
    "KeyError: 'X-Forwarded-For'",
    "ConnectionRefusedError: [Errno 111] Connection refused",
    "TypeError: check_quota() missing 1 required positional argument: 'window'",
    "sqlalchemy.exc.OperationalError: no such table: users",
    "ModuleNotFoundError: No module named 'redis'",
]


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _code_listing(function: str, klass: str, rng: random.Random) -> str:
    lines = [f"import logging\n\nlogger = logging.getLogger(__name__)\n\n\nclass {klass}:"]
    lines.append(f'    """Keeps per-client state for {function}."""\n')
    lines.append("    def __init__(self, window_s: int = 60, limit: int = 100) -> None:")
    lines.append("        self.window_s = window_s\n        self.limit = limit\n        self._hits = {}\n")
    for number in range(rng.randint(4, 9)):
        lines.append(f"    def step_{number}(self, key: str) -> bool:")
        lines.append(f"        count = self._hits.get(key, 0) + {number}")
        lines.append("        self._hits[key] = count")
        lines.append("        return count <= self.limit\n")
    lines.append(f"\ndef {function}(config: dict) -> {klass}:")
    lines.append(f"    return {klass}(config.get('window_s', 60), config.get('limit', 100))")
    return "\n".join(lines)


def generate_session(seed: int = 7, rounds: int = 90) -> list[dict[str, Any]]:
    """A long coding session: reads, searches, patches, failing and passing test runs,
    tracebacks, user questions, constraints and links."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent working in /srv/acme-api. Use the tools."},
        {
            "role": "user",
            "content": "Add per-client rate limiting to the API server (src/server/app.py) and get the test "
            "suite green. Don't change the public API. Use redis instead of in-memory counters.",
        },
        {"role": "assistant", "content": "Understood. I'll start by looking at the server and the tests."},
    ]
    call_number = 0

    def next_id() -> str:
        nonlocal call_number
        call_number += 1
        return f"call_{call_number:03d}"

    for round_number in range(rounds):
        path, function, klass = _MODULES[round_number % len(_MODULES)]
        test_path = "tests/test_" + Path(path).stem + ".py"
        error = _ERRORS[round_number % len(_ERRORS)]
        test_name = f"test_{function}_{round_number}"
        if round_number % 6 == 2:
            messages.append(
                {
                    "role": "user",
                    "content": f"Why does {test_name} keep failing? Please never push to main directly; "
                    f"see https://github.com/acme/api/issues/{400 + round_number} (#{400 + round_number}).",
                }
            )
            messages.append(
                {
                    "role": "assistant",
                    "content": f"It fails because {function} reads the window before the store is ready. "
                    f"I'll use a lazy {klass} instead of a module-level instance.",
                }
            )
        if round_number % 6 == 4:
            messages.append(
                {
                    "role": "user",
                    "content": f"Keep requests under {rng.choice([50, 80, 120])} ms p95 and the image under "
                    f"{rng.choice([120, 150])} MB. Also check `make lint` passes.",
                }
            )
        read_id = next_id()
        messages.append(
            {
                "role": "assistant",
                "content": f"Reading {path} to see how {function} is wired.",
                "tool_calls": [_call(read_id, "read_file", path=path, offset=rng.randint(1, 40))],
            }
        )
        messages.append(
            {"role": "tool", "tool_call_id": read_id, "content": _code_listing(function, klass, rng)}
        )
        search_id = next_id()
        total = rng.randint(2, 30)
        matches = [
            {"path": f"src/{rng.choice(['server', 'db', 'api'])}/m{n}.py", "line": rng.randint(1, 300)}
            for n in range(min(total, 8))
        ]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call(search_id, "search_files", pattern=function, path="src/")],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": search_id,
                "content": json.dumps({"total_count": total, "matches": matches}),
            }
        )
        test_id = next_id()
        command = f"python -m pytest -q {test_path}"
        failing = f"FAILED {test_path}::{test_name} - {error}"
        passed = rng.randint(5, 40)
        output = (
            "\n".join(f"{test_path}::test_case_{n} PASSED" for n in range(6))
            + f"\n{failing}\n=== 1 failed, {passed} passed in {rng.randint(2, 90)}.{rng.randint(10, 99)}s ==="
        )
        messages.append(
            {
                "role": "assistant",
                "content": "Running the tests for this module.",
                "tool_calls": [_call(test_id, "terminal", command=command, workdir="/srv/acme-api")],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": test_id,
                "content": json.dumps({"output": output, "exit_code": 1}),
            }
        )
        if round_number % 5 == 3:
            run_id = next_id()
            traceback = (
                "Traceback (most recent call last):\n"
                f'  File "/srv/acme-api/{path}", line {rng.randint(20, 200)}, in {function}\n'
                f"    return {klass}(config)\n{error}"
            )
            messages.append(
                {
                    "role": "assistant",
                    "content": "Starting the dev server to reproduce.",
                    "tool_calls": [
                        _call(run_id, "terminal", command="uvicorn src.server.app:app --port 8080")
                    ],
                }
            )
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": run_id,
                    "content": json.dumps({"output": traceback, "exit_code": 1}),
                }
            )
        patch_id = next_id()
        messages.append(
            {
                "role": "assistant",
                "content": f"The bug is in {function}; patching it.",
                "tool_calls": [
                    _call(
                        patch_id,
                        "patch",
                        path=path,
                        mode="replace",
                        old_string=f"return {klass}(config)",
                        new_string=f"return {klass}(config.get('window_s', 60))",
                    )
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": patch_id,
                "content": json.dumps({"success": True, "replacements": 1}),
            }
        )
        rerun_id = next_id()
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call(rerun_id, "terminal", command=command)],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": rerun_id,
                "content": json.dumps(
                    {
                        "output": f"=== {passed + 1} passed in {rng.randint(2, 60)}.{rng.randint(10, 99)}s ===",
                        "exit_code": 0,
                    }
                ),
            }
        )
        messages.append(
            {"role": "assistant", "content": f"{test_path} passes now ({passed + 1} tests). Moving on."}
        )
    messages.append(
        {"role": "user", "content": "Now run the whole suite and summarise what is still failing."}
    )
    final_id = next_id()
    messages.append(
        {
            "role": "assistant",
            "content": "Running the full suite.",
            "tool_calls": [_call(final_id, "terminal", command="python -m pytest -q")],
        }
    )
    messages.append(
        {
            "role": "tool",
            "tool_call_id": final_id,
            "content": json.dumps({"output": "=== 2 failed, 311 passed in 74.20s ===", "exit_code": 1}),
        }
    )
    messages.append(
        {"role": "assistant", "content": "Two failures remain; both are in tests/test_routes.py."}
    )
    return messages


# ---------------------------------------------------------------------------------------------
# Measuring


class _Capturing(ExtractiveSummarizer):
    """The extractive summarizer, remembering the request the compressor made."""

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def summarize_request(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        return super().summarize_request(request)


def _body(summary_text: str) -> str:
    """The summary without the handoff prefix (everything from ``## Active Task``)."""
    # The v0.16.0 prefix itself quotes '## Active Task', so look for the heading line.
    position = summary_text.find("## Active Task\n")
    return summary_text[position:] if position >= 0 else summary_text


def _load_samples() -> list[tuple[str, list[dict[str, Any]]]]:
    found: list[tuple[str, list[dict[str, Any]]]] = []
    if not SAMPLES.is_dir():
        return found
    from core.formats import load

    for path in sorted(SAMPLES.iterdir()):
        if (
            path.suffix in (".py", ".md")
            or path.name.endswith(("-shm", "-wal", "-journal"))
            or not path.is_file()
        ):
            continue
        try:
            messages = load(str(path)).messages
        except Exception as exc:  # one unreadable sample must not stop the benchmark
            print(f"skipping {path.name}: {exc}", file=sys.stderr)
            continue
        found.append((path.name, [dict(m) for m in messages if isinstance(m, dict)]))
    return found


def _score(facts: Any, body: str) -> dict[str, Any]:
    scored = retention(facts, body)
    by_kind = retention_by_kind(scored)
    return {
        "retention": round(retention_score(scored), 4),
        "by_kind": {row.kind: f"{row.kept}/{row.total}" for row in by_kind.itertuples()},
    }


def _size(body: str) -> dict[str, int]:
    return {"chars": len(body), "tokens": count_tokens(body)}


def _row(
    name: str,
    mode: str,
    messages: list[dict[str, Any]],
    request: SummaryRequest,
    span: list[dict[str, Any]],
    extractive_body: str,
    fallback_body: str,
    seconds: float,
) -> dict[str, Any]:
    turn_facts = extract_facts(request.turns)
    span_facts = extract_facts(span)
    # The same turns summarised into no more tokens than the fallback used: retention at equal size.
    fallback_tokens = count_tokens(fallback_body)
    size_matched = ExtractiveSummarizer().summarize_request(
        dataclasses.replace(request, summary_budget=fallback_tokens, max_tokens=fallback_tokens)
    )
    return {
        "conversation": name,
        "mode": mode,
        "messages": len(messages),
        "summarized_turns": len(request.turns),
        "summary_budget": request.summary_budget,
        "max_tokens": request.max_tokens,
        "facts_in_turns": len(turn_facts),
        "facts_in_original_span": len(span_facts),
        "extractive": {
            **_size(extractive_body),
            "turns": _score(turn_facts, extractive_body),
            "original_span": _score(span_facts, extractive_body),
            "seconds": round(seconds, 3),
        },
        "extractive_at_fallback_size": {
            **_size(size_matched),
            "turns": _score(turn_facts, size_matched),
            "original_span": _score(span_facts, size_matched),
        },
        "fallback": {
            **_size(fallback_body),
            "turns": _score(turn_facts, fallback_body),
            "original_span": _score(span_facts, fallback_body),
        },
    }


def measure_compression(name: str, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A default compression, summarised by the extractive summarizer and by the fallback."""
    config = CompressorConfig(context_length=128_000)
    capturing = _Capturing()
    started = time.perf_counter()
    extractive_result = ContextCompressor(config, summarizer=capturing).compress(messages, force=True)
    elapsed = time.perf_counter() - started
    if not capturing.requests or extractive_result.outcome != "summarized":
        print(f"{name}: nothing to summarise (outcome {extractive_result.outcome})", file=sys.stderr)
        return None
    fallback_result = ContextCompressor(config, summarizer=None).compress(messages, force=True)
    span = messages[extractive_result.turns_start : extractive_result.compress_end]
    return _row(
        name,
        "compression",
        messages,
        capturing.requests[-1],
        span,
        _body(extractive_result.summary_text or ""),
        _body(fallback_result.summary_text or ""),
        elapsed,
    )


def measure_span(name: str, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``messages[4:-20]`` unpruned (full tool outputs), with the budget the compressor would give."""
    from core.phases import fallback, summary
    from core.tokens import estimate_messages_tokens_rough

    span = messages[4:-20]
    if len(span) < 2:
        return None
    config = CompressorConfig(context_length=128_000)
    compressor = ContextCompressor(config, summarizer=None)
    budget = summary.summary_budget(estimate_messages_tokens_rough(span), config.max_summary_tokens)
    request = SummaryRequest(
        prompt="",
        max_tokens=summary.max_tokens_for_budget(budget),
        turns=summary.redacted_turns(span, compressor.redact),
        serialized_turns="",
        summary_budget=budget,
    )
    started = time.perf_counter()
    extractive_body = ExtractiveSummarizer().summarize_request(request)
    elapsed = time.perf_counter() - started
    fallback_text = fallback.deterministic_fallback_summary(
        span, "no auxiliary LLM provider configured", None, compressor.profile, compressor.redact
    )
    return _row(name, "span[4:-20]", messages, request, span, extractive_body, _body(fallback_text), elapsed)


def main() -> int:
    conversations = _load_samples()
    conversations.append(("generated_coding_session", generate_session()))
    rows: list[dict[str, Any]] = []
    for name, messages in conversations:
        row = measure_compression(name, messages)
        if row:
            rows.append(row)
        if len(messages) >= MIN_SAMPLE_MESSAGES:
            row = measure_span(name, messages)
            if row:
                rows.append(row)

    header = (
        f"{'conversation':30} {'mode':12} {'turns':>5} {'budget':>6} | {'extr. ret':>9} {'span':>6} {'tok':>5} "
        f"| {'same size':>9} {'tok':>5} | {'fallb. ret':>10} {'span':>6} {'tok':>5}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        ext, same, fb = row["extractive"], row["extractive_at_fallback_size"], row["fallback"]
        print(
            f"{row['conversation'][:30]:30} {row['mode']:12} {row['summarized_turns']:>5} {row['summary_budget']:>6} | "
            f"{ext['turns']['retention']:>9.1%} {ext['original_span']['retention']:>6.1%} {ext['tokens']:>5} "
            f"| {same['turns']['retention']:>9.1%} {same['tokens']:>5} "
            f"| {fb['turns']['retention']:>10.1%} {fb['original_span']['retention']:>6.1%} {fb['tokens']:>5}"
        )
    print(
        "\nret = facts of the summarised turns kept verbatim; span = facts of the original (unpruned) span kept;"
        "\nsame size = the extractive summary with a budget of the fallback's own token count"
    )
    for row in rows:
        print(f"\n{row['conversation']} ({row['mode']}): facts kept by kind (summarised turns)")
        print(f"  extractive: {row['extractive']['turns']['by_kind']}")
        print(f"  same size:  {row['extractive_at_fallback_size']['turns']['by_kind']}")
        print(f"  fallback:   {row['fallback']['turns']['by_kind']}")

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"results": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
