"""Time of the extractive summary against the size of the turns: 5K, 50K and 200K messages, and a 50 MB
transcript. Every step is meant to be linear, so the time per message should stay flat.

The message sessions are a coding agent's loop with unique texts (no two outputs alike, so no cache
helps): user asks every ~12 messages, tool calls (test runs with failures and totals, reads, edits,
searches) and their results, remarks; "tiny" messages hold a line or three each (5K, 50K, 200K),
"short" ones tool results of up to 40 lines (50K). The 50 MB transcript is
``bench.corpus.generate_transcript``'s long tool outputs. The request is the compressor's for the
default 128K context: a 6,400-token budget (the ceiling of ``max_summary_tokens``).

Run: ``python -m bench.bench_summarizer_speed`` (writes ``bench/results/summarizer_speed.json``).
"""

from __future__ import annotations

import json
import os
import random
import time
from typing import Any

from bench.common import ROOT, print_table, save
from bench.corpus import generate_transcript
from core.summarizers.base import SummaryRequest
from core.summarizers.extractive import ExtractiveSummarizer, count_tokens

BUDGET = 6_400
SIZES = (5_000, 50_000, 200_000)
LARGE_TRANSCRIPT_MB = 50

_MODULES = [f"{area}/{name}" for area in ("api", "core", "db", "cli", "jobs", "auth", "billing", "search")
            for name in ("models", "views", "service", "utils", "tasks", "schema")]
_ERRORS = ("AssertionError: assert {a} == {b}", "KeyError: 'field_{a}'", "TypeError: expected str, got int ({a})",
           "ValueError: invalid literal for int() with base 10: 'x{a}'", "TimeoutError: timed out after {a}s")


def short_message_session(n_messages: int, seed: int = 0, *, tiny: bool = True) -> list[dict[str, Any]]:
    """A coding-agent loop of ``n_messages`` messages with unique contents: tiny ones (a line or
    three each) or, with ``tiny=False``, tool results of up to 40 lines."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "The test suite fails on main after the refactor. Find out why and fix it."},
    ]
    step = 0
    while len(messages) < n_messages:
        step += 1
        module = rng.choice(_MODULES)
        if rng.random() < 0.08:
            messages.append({"role": "user", "content": f"Also look at src/{module}.py (ticket #{step}); "
                             f"it should answer within {rng.randint(50, 900)} ms. Don't change the public API."})
            continue
        if rng.random() < 0.1:
            messages.append({"role": "assistant", "content": f"The failure in test_{module.replace('/', '_')}_{step} "
                             f"comes from {module.split('/')[1]}_{step}() reading a stale cache; I'll use a fresh "
                             f"session instead of the module-level one."})
            continue
        call_id = f"call_{step}"
        kind = rng.choice(("test", "test", "read", "edit", "search"))
        if kind == "test":
            arguments = {"command": f"pytest -q tests/{module}_test.py -k case_{step}"}
            failed = rng.random() < 0.4
            lines = [] if tiny else [f"tests/{module}_test.py::test_case_{step}_{k} PASSED" for k in range(rng.randint(0, 8))]
            if failed:
                error = rng.choice(_ERRORS).format(a=step, b=step + 1)
                lines.append(f"FAILED tests/{module}_test.py::test_case_{step} - {error}")
            lines.append(f"{int(failed)} failed, {rng.randint(1, 60)} passed in {rng.uniform(0.1, 9):.2f}s")
            output = json.dumps({"output": "\n".join(lines), "exit_code": int(failed)})
        elif kind == "read":
            arguments = {"path": f"src/{module}.py", "offset": rng.randint(1, 400)}
            output = "\n".join(f"def handler_{step}_{k}(request):\n    return process_{k}(request, limit={rng.randint(1, 99)})"
                               for k in range(1 if tiny else rng.randint(1, 10)))
        elif kind == "edit":
            arguments = {"path": f"src/{module}.py", "old_string": f"limit={step}", "new_string": f"limit={step + 1}"}
            output = json.dumps({"success": True})
        else:
            arguments = {"pattern": f"process_{step}", "path": "src/"}
            hits = [{"path": f"src/{rng.choice(_MODULES)}.py", "line": rng.randint(1, 500)}
                    for _ in range(rng.randint(0, 2 if tiny else 6))]
            output = json.dumps({"total_count": len(hits), "matches": hits})
        name = {"test": "terminal", "read": "read_file", "edit": "patch", "search": "search_files"}[kind]
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
    return messages[:n_messages]


def large_transcript(megabytes: int) -> list[dict[str, Any]]:
    """``bench.corpus.generate_transcript`` grown to about ``megabytes`` of JSON."""
    messages = generate_transcript(2_000, seed=1)
    per_message = len(json.dumps(messages)) / len(messages)
    return generate_transcript(int(megabytes * 1_000_000 / per_message), seed=1)


def time_summary(messages: list[dict[str, Any]]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of this process, summary tokens). The machine is shared: the CPU
    time says what the code costs when the wall time also counts waiting for a core."""
    request = SummaryRequest(prompt="", max_tokens=int(BUDGET * 1.3), turns=messages, serialized_turns="",
                             summary_budget=BUDGET)
    started, cpu = time.perf_counter(), time.process_time()
    summary = ExtractiveSummarizer().summarize_request(request)
    return time.perf_counter() - started, time.process_time() - cpu, count_tokens(summary)


def main() -> int:
    rows = []
    for size, tiny in [(size, True) for size in SIZES] + [(50_000, False)]:
        messages = short_message_session(size, tiny=tiny)
        megabytes = len(json.dumps(messages)) / 1e6
        seconds, cpu, tokens = time_summary(messages)
        rows.append({"input": f"{size:,} {'tiny' if tiny else 'short'} messages", "MB": round(megabytes, 1),
                     "seconds": round(seconds, 2), "CPU s": round(cpu, 2),
                     "µs per message": round(seconds / size * 1e6, 1), "summary tokens": tokens})
    messages = large_transcript(LARGE_TRANSCRIPT_MB)
    seconds, cpu, tokens = time_summary(messages)
    rows.append({"input": f"{LARGE_TRANSCRIPT_MB} MB transcript ({len(messages):,} messages)",
                 "MB": round(len(json.dumps(messages)) / 1e6, 1), "seconds": round(seconds, 2), "CPU s": round(cpu, 2),
                 "µs per message": round(seconds / len(messages) * 1e6, 1), "summary tokens": tokens})
    print_table(f"Extractive summary time (budget {BUDGET:,} tokens)", rows)
    # 50K against 200K: at 5K the one-time costs (loading the tokenizer) still show per message.
    small, large = rows[1]["µs per message"], rows[2]["µs per message"]
    print(f"\ntime per message at 200K / at 50K: {large / small:.2f} (1.0 is linear); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    path = save("summarizer_speed", {"budget": BUDGET, "rows": rows})
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
