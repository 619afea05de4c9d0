"""Generated agent logs as the agents write them (Claude Code JSONL, Codex rollouts), for the live benchmarks.

Deterministic for a seed. A turn is what an agent appends per model call: Claude Code writes the
user prompt or the tool result row and the assistant row (with the request's usage: cache reads and
writes growing turn after turn); Codex writes the response items, the function call and its output,
and a ``token_count`` event. Tool outputs are 40-600 words (``bench.corpus``'s vocabulary).
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

from bench.corpus import _FILES, _words


def claude_code_turns(turns: int, seed: int = 0, session: str | None = None) -> Iterator[list[str]]:
    """The lines of a Claude Code session, one list per turn (the first also holds the prompt)."""
    rng = random.Random(seed)
    session = session or str(uuid.UUID(int=rng.getrandbits(128)))
    parent: str | None = None
    prompt_tokens = 18_000 + rng.randint(0, 4_000)
    clock = 1_775_000_000 + rng.randint(0, 1_000_000)

    def row(kind: str, message: dict, **extra: object) -> str:
        nonlocal parent, clock
        clock += rng.randint(2, 40)
        node = str(uuid.UUID(int=rng.getrandbits(128)))
        record = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/project",
                  "sessionId": session, "version": "2.1.40", "gitBranch": "main", "type": kind, "uuid": node,
                  "timestamp": f"2026-04-{1 + clock // 86400 % 28:02d}T{clock // 3600 % 24:02d}:{clock // 60 % 60:02d}:"
                               f"{clock % 60:02d}.000Z", "message": message, **extra}
        parent = node
        return json.dumps(record)

    def usage(grow: int) -> dict:
        nonlocal prompt_tokens
        prompt_tokens += grow
        return {"input_tokens": 3, "cache_creation_input_tokens": grow, "cache_read_input_tokens": prompt_tokens - grow,
                "output_tokens": rng.randint(40, 400)}

    pending_result: tuple[str, str] | None = None
    for number in range(turns):
        lines = []
        if pending_result is None:
            lines.append(row("user", {"role": "user", "content": f"Step {number}: " + _words(rng, rng.randint(8, 40))}))
        else:
            call_id, output = pending_result
            lines.append(row("user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call_id, "content": output}]}))
        message_id = f"msg_{rng.getrandbits(64):016x}"
        if rng.random() < 0.8:
            call_id = f"toolu_{rng.getrandbits(64):016x}"
            content = [{"type": "text", "text": _words(rng, rng.randint(5, 30))},
                       {"type": "tool_use", "id": call_id, "name": rng.choice(["Read", "Bash", "Grep", "Edit"]),
                        "input": {"file_path": rng.choice(_FILES)}}]
            pending_result = (call_id, _words(rng, rng.randint(40, 600)))
        else:
            content = [{"type": "text", "text": _words(rng, rng.randint(20, 120))}]
            pending_result = None
        lines.append(row("assistant", {"model": "claude-sonnet-4-5", "id": message_id, "type": "message",
                                       "role": "assistant", "content": content,
                                       "usage": usage(rng.randint(300, 2_500))}))
        yield lines


def codex_turns(turns: int, seed: int = 0) -> Iterator[list[str]]:
    """The lines of a Codex rollout, one list per model call (the first also holds the header)."""
    rng = random.Random(seed)
    clock = rng.randint(0, 1_000_000)
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0,
             "total_tokens": 0}
    prompt = 9_000 + rng.randint(0, 3_000)

    def line(kind: str, payload: dict) -> str:
        nonlocal clock
        clock += rng.randint(1, 20)
        return json.dumps({"timestamp": f"2026-03-22T{clock // 3600 % 24:02d}:{clock // 60 % 60:02d}:{clock % 60:02d}.000Z",
                           "type": kind, "payload": payload})

    session = str(uuid.UUID(int=rng.getrandbits(128)))
    pending: tuple[str, str] | None = None
    for number in range(turns):
        lines = []
        if number == 0:
            lines.append(line("session_meta", {"id": session, "timestamp": "2026-03-22T10:00:00.000Z",
                                               "cwd": "/home/dev/project", "originator": "codex_cli_rs",
                                               "cli_version": "0.60.0"}))
            lines.append(line("turn_context", {"model": "gpt-5-codex", "cwd": "/home/dev/project"}))
        if pending is None:
            text = f"Step {number}: " + _words(rng, rng.randint(8, 40))
            lines.append(line("response_item", {"type": "message", "role": "user",
                                                "content": [{"type": "input_text", "text": text}]}))
        else:
            call_id, output = pending
            lines.append(line("response_item", {"type": "function_call_output", "call_id": call_id,
                                                "output": output}))
        lines.append(line("response_item", {"type": "reasoning", "summary": [
            {"type": "summary_text", "text": _words(rng, rng.randint(5, 25))}], "encrypted_content": None}))
        if rng.random() < 0.8:
            call_id = f"call_{rng.getrandbits(64):016x}"
            lines.append(line("response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                                "arguments": json.dumps({"command": ["cat", rng.choice(_FILES)]})}))
            pending = (call_id, _words(rng, rng.randint(40, 600)))
        else:
            lines.append(line("response_item", {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": _words(rng, rng.randint(20, 120))}]}))
            pending = None
        prompt += rng.randint(300, 2_500)
        last = {"input_tokens": prompt, "cached_input_tokens": prompt - 800, "output_tokens": rng.randint(40, 400),
                "reasoning_output_tokens": rng.randint(0, 200), "total_tokens": 0}
        for key, value in last.items():
            total[key] += value
        lines.append(line("event_msg", {"type": "token_count", "info": {
            "total_token_usage": dict(total), "last_token_usage": last, "model_context_window": 272_000}}))
        yield lines


def write_log(path: Path, turns: list[list[str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for lines in turns for line in lines), encoding="utf-8")
