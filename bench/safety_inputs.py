"""The hostile inputs ``bench_safety`` measures, written to ``bench/results/inputs/safety/`` (deterministic).

* ``caps_*``: one tool result of a single run of capital "A" (50 KB, 8 MB, 60 MB files): it made
  ``[A-Z]{2,}[a-z]{2,}`` quadratic, and it is one pre-tokenizer piece for exact counting;
* ``title_bomb.db``: a 16 KB Hermes store whose ``sessions.title`` is a generated column of 400
  million characters (and two more: a value over the limit of one value, message text over the file's
  budget);
* ``line_*``: 16 MB texts on one line (base64, hex, minified JSON, one letter) and spaced text of the
  same size, and transcripts holding each as one tool result.
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
from pathlib import Path

from bench.common import RESULTS

FOLDER = RESULTS / "inputs" / "safety"  # generated, not kept in the repository
LINE_CHARS = 16_000_000


def _transcript(path: Path, output: str) -> Path:
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Run the export and show me what it prints."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"cat out\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": output},
        {"role": "assistant", "content": "That is the whole output."},
    ]
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


def caps_file(size: int) -> Path:
    """A transcript of about ``size`` bytes, almost all one run of "A"."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    path = FOLDER / f"caps_{size}.json"
    if not path.exists():
        _transcript(path, "A" * max(1, size - 400))
    return path


def line_text(kind: str, size: int = LINE_CHARS) -> str:
    rng = random.Random(16)
    if kind == "spaced":
        words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
                 for _ in range(5000)]
        out: list[str] = []
        total = 0
        while total < size:
            word = rng.choice(words)
            out.append(word)
            total += len(word) + 1
        return " ".join(out)[:size]
    if kind == "base64":
        return base64.b64encode(rng.randbytes(size * 3 // 4)).decode()[:size]
    if kind == "hex":
        return rng.randbytes(size // 2).hex()
    if kind == "json":
        rows = [{f"k{index}": f"v{rng.randint(0, 10**9)}"} for index in range(size // 18)]
        return json.dumps(rows, separators=(",", ":"))[:size]
    if kind == "letter":
        return "A" * size
    raise ValueError(kind)


def line_file(kind: str) -> Path:
    FOLDER.mkdir(parents=True, exist_ok=True)
    path = FOLDER / f"line_{kind}.json"
    if not path.exists():
        _transcript(path, line_text(kind))
    return path


def _store(path: Path, title: str = "NULL", content: str | None = None) -> Path:
    if path.exists():
        return path
    conn = sqlite3.connect(path)
    content_column = f"content TEXT GENERATED ALWAYS AS ({content}) VIRTUAL" if content else "content TEXT"
    conn.executescript(f"""
        CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, started_at REAL, parent_session_id TEXT,
            end_reason TEXT, system_prompt TEXT, title TEXT GENERATED ALWAYS AS ({title}) VIRTUAL);
        CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, {content_column},
            tool_calls TEXT, tool_call_id TEXT, token_count INTEGER);
    """)
    for number in range(4):
        conn.execute("INSERT INTO sessions (id, source, model, started_at) VALUES (?, 'cli', 'gpt-4o', ?)",
                     (f"s{number}", number))
        for role in ("user", "assistant"):
            if content:
                conn.execute("INSERT INTO messages (session_id, role) VALUES (?, ?)", (f"s{number}", role))
            else:
                conn.execute("INSERT INTO messages (session_id, role, content) VALUES (?, ?, 'hello')", (f"s{number}", role))
    conn.commit()
    conn.close()
    return path


def sqlite_bombs() -> dict[str, Path]:
    FOLDER.mkdir(parents=True, exist_ok=True)
    return {
        "title of 400M characters (printf)": _store(FOLDER / "title_bomb.db", title="printf('%.*c', 400000000, 'T')"),
        "title of 200M characters (hex)": _store(FOLDER / "title_hex_bomb.db", title="hex(zeroblob(100000000))"),
        "message text of 4 x 120M characters": _store(FOLDER / "content_bomb.db", content="hex(zeroblob(60000000))"),
    }
