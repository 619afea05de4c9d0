"""A long Claude Code look-alike whose every response records its prompt size, for the replay.

The recorded sizes are made as the real agent's are: a system prompt and tool schemas the log never
writes down (20,000 tokens), plus the messages as a tokenizer that splits text more finely than four
characters a token would count them. The agent itself never compacts, so the recorded sizes keep
growing past any threshold: exactly what a replay must stop reading after its own first compaction.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.batch import AnalysisSettings, summarizer_for
from core.formats import load
from core.inspections.request import request_breakdown, weigher_for
from core.views.replay import Replay, replay
from tests.formats.layouts import ClaudeLog, jsonl, text, use
from tests.inspections.request_fixtures import _response

HIDDEN_OVERHEAD = 20_000
CONTEXT_LENGTH = 100_000  # threshold 50,000: crossed about a third of the way in
CHARS_PER_TOKEN = 2


def long_claude_session(rounds: int = 80) -> tuple[str, bytes]:
    """``rounds`` file reads of about 3,400 characters each, then an answer."""
    log = ClaudeLog(session="cc-long")
    task = "Port the parser in src/ to the new tokenizer API and keep every test green."
    log.user(task, parent=None)
    chars = len(task)
    for j in range(rounds):
        usage = {"input_tokens": 3, "cache_read_input_tokens": HIDDEN_OVERHEAD + chars // CHARS_PER_TOKEN,
                 "cache_creation_input_tokens": 0, "output_tokens": 40}
        (row,) = _response(log, f"msg_{j:03d}", [use(f"toolu_{j:03d}", "Read", file_path=f"src/m{j:03d}.py")], usage)
        output = f"src/m{j:03d}.py\n" + "\n".join(f"def f{j}_{k}(x): return x + {k}" for k in range(120))
        log.result(row, f"toolu_{j:03d}", output)
        chars += len(output) + 80
    usage = {"input_tokens": 3, "cache_read_input_tokens": HIDDEN_OVERHEAD + chars // CHARS_PER_TOKEN,
             "cache_creation_input_tokens": 0, "output_tokens": 12}
    _response(log, "msg_end", [text("The parser is ported; all tests pass.")], usage)
    return "cc-long.jsonl", jsonl(log.rows)


def short_claude_session(rounds: int = 20) -> tuple[str, bytes]:
    """A short session over a large hidden overhead (15,000 tokens of system prompt and tool schemas):
    reads, searches and notes of a few hundred to two thousand characters each, as a real short
    Claude Code session has. At a small window every compaction has only a few such messages to fold."""
    log = ClaudeLog(session="cc-short")
    task = "Update CLAUDE.md to the current state of the project."
    log.user(task, parent=None)
    chars = len(task)
    for j in range(rounds):
        usage = {"input_tokens": 3, "cache_read_input_tokens": 15_000 + chars // 3,
                 "cache_creation_input_tokens": 0, "output_tokens": 60}
        if j % 3 == 2:
            (row,) = _response(log, f"msg_{j:03d}", [use(f"toolu_{j:03d}", "Grep", pattern=f"TODO{j}")], usage)
            output = "No files found"
        else:
            (row,) = _response(log, f"msg_{j:03d}", [use(f"toolu_{j:03d}", "Read", file_path=f"docs/part{j}.md")],
                               usage)
            output = f"docs/part{j}.md\n" + "\n".join(f"- item {j}.{k}: uses src/mod{k}.ts and pnpm test:{k}"
                                                      for k in range(10 + 15 * (j % 4)))
        log.result(row, f"toolu_{j:03d}", output)
        chars += len(output) + 120
    usage = {"input_tokens": 3, "cache_read_input_tokens": 15_000 + chars // 3,
             "cache_creation_input_tokens": 0, "output_tokens": 20}
    _response(log, "msg_end", [text("CLAUDE.md now lists the current packages and commands.")], usage)
    return "cc-short.jsonl", jsonl(log.rows)


def write_session(directory: Path) -> Path:
    name, data = long_claude_session()
    path = directory / name
    path.write_bytes(data)
    return path


def replay_of(path: Path, **settings: Any) -> Replay:
    """What the Timeline replay page and ``context-lens replay`` compute for ``path``."""
    options = AnalysisSettings(**{"context_length": CONTEXT_LENGTH, **settings})
    conversation = load(path)
    config = options.config()
    return replay(conversation.messages, config, summarizer_for(options),
                  request=request_breakdown(conversation, weigher_for(config)))
