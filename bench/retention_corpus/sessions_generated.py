"""A generated long coding session (90 rounds of reading, searching, failing and passing test runs,
tracebacks, questions, constraints and links), deterministic for a seed: the one the benchmark used
before the corpus was written, kept as the corpus's most repetitive session."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

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

