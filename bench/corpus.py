"""Generated coding-agent transcripts for the benchmarks (deterministic for a given seed).

Tool outputs of 50-1,500 words, some duplicated (files read twice), about 10 % user turns,
tool names of the reference (terminal, read_file, write_file, patch, search_files).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_WORDS = (
    "def class return import self value error test assert config path file module function result "
    "request response token cache index buffer parser schema field record session agent tool call "
    "output input retry timeout status commit branch merge build deploy log trace line column"
).split()
_FILES = [f"src/pkg/module_{i}.py" for i in range(60)] + [f"tests/test_module_{i}.py" for i in range(30)]


def _words(rng: random.Random, n: int) -> str:
    lines = []
    line: list[str] = []
    for _ in range(n):
        line.append(rng.choice(_WORDS))
        if len(line) >= 12:
            lines.append(" ".join(line))
            line = []
    if line:
        lines.append(" ".join(line))
    return "\n".join(lines)


def generate_transcript(n_messages: int, seed: int = 0) -> list[dict[str, Any]]:
    """An OpenAI-chat coding-agent session of about ``n_messages`` messages."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent. Work carefully and run the tests."},
        {"role": "user", "content": "The test suite fails on main. Find out why and fix it."},
    ]
    file_cache: dict[str, str] = {}
    call_no = 0
    while len(messages) < n_messages:
        if rng.random() < 0.1:
            messages.append({"role": "user", "content": "Also check " + rng.choice(_FILES) + " please. " + _words(rng, 20)})
            continue
        call_no += 1
        cid = f"call_{call_no}"
        kind = rng.choice(["terminal", "read_file", "read_file", "write_file", "patch", "search_files"])
        path = rng.choice(_FILES)
        if kind == "terminal":
            args = {"command": f"pytest -q {path}"}
            output = json.dumps({"output": _words(rng, rng.randint(50, 1500)), "exit_code": rng.choice([0, 1])})
        elif kind == "read_file":
            args = {"path": path, "offset": 1}
            if path not in file_cache:
                file_cache[path] = _words(rng, rng.randint(50, 1500))
            output = file_cache[path]  # re-reads duplicate earlier outputs
        elif kind == "write_file":
            body = _words(rng, rng.randint(50, 600))
            args = {"path": path, "content": body}
            output = json.dumps({"bytes_written": len(body)})
        elif kind == "patch":
            args = {"path": path, "old_string": _words(rng, 40), "new_string": _words(rng, 40)}
            output = json.dumps({"success": True, "diff": _words(rng, rng.randint(50, 300))})
        else:
            args = {"pattern": rng.choice(_WORDS), "path": "src/"}
            output = json.dumps({"total_count": rng.randint(0, 80), "matches": _words(rng, rng.randint(50, 800))})
        messages.append(
            {
                "role": "assistant",
                "content": _words(rng, rng.randint(0, 40)) or None,
                "tool_calls": [{"id": cid, "type": "function", "function": {"name": kind, "arguments": json.dumps(args)}}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": cid, "content": output})
    messages.append({"role": "user", "content": "Thanks. Now run the full suite and summarise what changed."})
    return messages


def write_corpus_file(messages: list[dict[str, Any]], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"messages": messages}, ensure_ascii=False), encoding="utf-8")
    return path


def generate_tiny_transcript(n_messages: int, seed: int = 0, output_words: tuple[int, int] = (3, 30)) -> list[dict[str, Any]]:
    """About ``n_messages`` short messages (a few words each): user turns, replies, small tool calls
    whose outputs have ``output_words`` words."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    call_no = 0
    while len(messages) < n_messages:
        roll = rng.random()
        if roll < 0.3:
            messages.append({"role": "user", "content": _words(rng, rng.randint(2, 12))})
        elif roll < 0.6:
            messages.append({"role": "assistant", "content": _words(rng, rng.randint(2, 12))})
        else:
            call_no += 1
            cid = f"call_{call_no}"
            args = {"path": rng.choice(_FILES)}
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "read_file", "arguments": json.dumps(args)}}]})
            messages.append({"role": "tool", "tool_call_id": cid, "content": _words(rng, rng.randint(*output_words))})
    return messages


def write_jsonl_file(messages: list[dict[str, Any]], path: Path) -> Path:
    """One OpenAI chat message per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for message in messages:
            out.write(json.dumps(message, ensure_ascii=False) + "\n")
    return path
