"""Small synthetic agent transcripts for the command-line tests (deterministic per seed)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_FILES = ["src/app/main.py", "src/app/models.py", "tests/test_api.py", "docs/setup.md", "config/settings.toml"]
_COMMANDS = ["pytest -q tests/test_api.py", "ruff check src", "git status", "python -m app.migrate --dry-run"]


def agent_messages(seed: int, rounds: int, result_chars: int = 1200) -> list[dict[str, Any]]:
    """A coding-agent conversation: a system prompt, a task, then ``rounds`` tool-use rounds."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent working in /srv/project."},
        {"role": "user", "content": f"Fix the failing test in tests/test_api.py (ticket #{100 + seed})."},
    ]
    for r in range(rounds):
        call_id = f"call_{seed}_{r}"
        if rng.random() < 0.5:
            name, args = "read_file", {"path": rng.choice(_FILES)}
            body = "\n".join(f"{args['path']}:{i}: value = compute({i}, {seed}, {r})" for i in range(result_chars // 40))
        else:
            name, args = "terminal", {"command": rng.choice(_COMMANDS)}
            body = f"collected {r + 12} items\n" + "." * (result_chars // 2) + f"\nE   AssertionError: expected 200, got {500 + r}"
        if rng.random() < 0.2:
            body = "repeated output " * (result_chars // 16)  # duplicates for the dedup pass
        messages.append(
            {
                "role": "assistant",
                "content": f"Step {r}: checking {args.get('path') or args.get('command')}.",
                "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": body})
        if r % 5 == 4:
            messages.append({"role": "user", "content": f"Keep going; also look at src/app/models.py line {r}."})
    messages.append({"role": "assistant", "content": "The fix is in src/app/models.py: the status code is now 200."})
    return messages


def write_openai(path: Path, messages: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


def write_sharegpt_sessions(path: Path, count: int) -> Path:
    """A JSONL file holding several ShareGPT conversations (a multi-session source)."""
    lines = []
    for i in range(count):
        turns = [
            {"from": "human", "value": f"Question {i}: how do I run tests/test_api.py?"},
            {"from": "gpt", "value": f"Run pytest -q tests/test_api.py (answer {i})."},
        ]
        lines.append(json.dumps({"id": f"conv-{i}", "conversations": turns}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
