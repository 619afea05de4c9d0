"""Write every bundled sample transcript, deterministically.

    python sample_conversations/generate.py

All content is invented: a coding agent maintains "ledgerline", a small bank-statement budget
tool (see project.py). Secrets in the samples are obviously fake.
"""

from __future__ import annotations

import json
import random
import sqlite3
import string
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agent_sessions  # noqa: E402  (sibling modules of this script)
import agent_tool_logs  # noqa: E402
import agent_tool_stores  # noqa: E402
import current_layouts  # noqa: E402
import project  # noqa: E402
import sessions  # noqa: E402

OUT = Path(__file__).resolve().parent

SYSTEM_PROMPT = """You are Hermes, a coding agent working in the user's repository at /home/dev/ledgerline.

# How you work
- Read before you write: open the files you are about to change and the tests that cover them.
- Keep changes small and focused on what the user asked. Do not reformat unrelated code.
- Run the relevant tests after every change with `terminal` and report the real result, including failures.
- Prefer `patch` for edits to existing files and `write_file` only for new files or full rewrites.
- When something is unclear, say what you assume instead of guessing silently.
- Never print or copy secrets (API keys, passwords, tokens) into your answers; refer to them by name.

# Tools
- terminal(command): run a shell command in the repository; returns {"output", "exit_code"}.
- read_file(path, offset=1, limit=None): read a file with line numbers.
- write_file(path, content): create or overwrite a file.
- patch(path, old_string, new_string): replace one exact occurrence of old_string.
- search_files(pattern, path=".", target="content"): search file contents or names.
- web_search(query): search the web; returns titles, URLs and short descriptions.

# Project notes
ledgerline parses CSV exports from several banks (N26, DKB, Revolut, Wise), categorizes
transactions with regex rules and renders a monthly budget table. Amounts are Decimal values
with two places. The test suite uses pytest; CI also runs ruff and mypy --strict. Python 3.11+.
Keep the public API of ledgerline.parser stable: other tools import parse_statement and Transaction.
"""


def call_id(rng: random.Random) -> str:
    alphabet = string.ascii_letters + string.digits
    return "call_" + "".join(rng.choice(alphabet) for _ in range(24))


class ChatSession:
    """Builds an OpenAI-chat transcript while keeping the project's files in sync with the edits."""

    def __init__(self, seed: int, system: str | None = SYSTEM_PROMPT, full_suite_on_pass: bool = False) -> None:
        self.rng = random.Random(seed)
        self.files = dict(project.BASE_FILES)
        self.committed = dict(project.BASE_FILES)
        # A passing run re-runs every test module, as an agent does after a change.
        self.full_suite_on_pass = full_suite_on_pass
        self.messages: list[dict[str, Any]] = []
        if system:
            self.messages.append({"role": "system", "content": system})

    # --- plain turns -----------------------------------------------------------------------
    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def say(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})

    def calls(self, text: str | None, calls: list[tuple[str, dict[str, Any], str]]) -> None:
        """One assistant message with several tool calls, then one result per call."""
        ids = [call_id(self.rng) for _ in calls]
        self.messages.append(
            {
                "role": "assistant",
                "content": text,
                "tool_calls": [
                    {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
                    for cid, (name, args, _result) in zip(ids, calls, strict=True)
                ],
            }
        )
        for cid, (_name, _args, result) in zip(ids, calls, strict=True):
            self.messages.append({"role": "tool", "tool_call_id": cid, "content": result})

    # --- tools -------------------------------------------------------------------------------
    def read(self, path: str, text: str | None = None, offset: int = 1, limit: int | None = None) -> None:
        args: dict[str, Any] = {"path": path, "offset": offset}
        if limit:
            args["limit"] = limit
        self.calls(text, [("read_file", args, project.read_file_result(path, self.files[path], offset, limit))])

    def read_many(self, paths: list[str], text: str | None = None) -> None:
        self.calls(
            text,
            [("read_file", {"path": p, "offset": 1}, project.read_file_result(p, self.files[p])) for p in paths],
        )

    def search(self, pattern: str, path: str = ".", text: str | None = None) -> None:
        under = "" if path == "." else path
        matches = project.grep(self.files, pattern, under)
        self.calls(text, [("search_files", {"pattern": pattern, "path": path}, project.search_result(matches))])

    def terminal(self, command: str, output: str, exit_code: int = 0, text: str | None = None) -> None:
        self.calls(text, [("terminal", {"command": command}, project.terminal_result(output, exit_code))])

    def pytest(self, files: list[str], failures: list[tuple[str, str, str, str]] = (), text: str | None = None,
               extra: int = 0, command: str | None = None) -> None:
        if self.full_suite_on_pass and not failures and command is None:
            files = sorted(path for path in self.files if path.startswith("tests/test_"))
            command = "python -m pytest -v"
        output, code = project.pytest_run(self.rng, files, list(failures), extra, self.files)
        self.terminal(command or f"python -m pytest -v {' '.join(files)}", output, code, text)

    def git_diff(self, paths: list[str] | None = None, text: str | None = None) -> None:
        command = "git diff" + (" -- " + " ".join(paths) if paths else "")
        self.terminal(command, project.git_diff(self.committed, self.files, paths), 0, text)

    def commit(self, message: str, text: str | None = None) -> None:
        changed = sorted(p for p in self.files if self.files[p] != self.committed.get(p))
        sha = "".join(self.rng.choice("0123456789abcdef") for _ in range(7))
        stat = "\n".join(f" {'create mode 100644 ' + p if p not in self.committed else p}" for p in changed)
        output = ("check yaml...........................................................Passed\n"
                  "check toml...........................................................Passed\n"
                  "fix end of files.....................................................Passed\n"
                  "mixed line ending....................................................Passed\n"
                  "detect private key...................................................Passed\n"
                  "ruff check...........................................................Passed\n"
                  "ruff format..........................................................Passed\n"
                  "mypy.................................................................Passed\n"
                  "check for added large files..........................................Passed\n"
                  "trim trailing whitespace.............................................Passed\n"
                  f"[main {sha}] {message}\n {len(changed)} files changed\n{stat}")
        self.committed = dict(self.files)
        self.terminal(f"git add -A && git commit -m {json.dumps(message)}", output, 0, text)

    def patch(self, path: str, old: str, new: str, text: str | None = None) -> None:
        content = self.files[path]
        if content.count(old) != 1:
            raise AssertionError(f"patch for {path} does not match exactly once: {old[:60]!r}")
        position = content.index(old)
        start = content[:position].count("\n") + 1
        self.files[path] = content.replace(old, new)
        result = project.patch_result(path, old, new, start, content[:position], content[position + len(old) :])
        self.calls(text, [("patch", {"path": path, "old_string": old, "new_string": new}, result)])

    def write(self, path: str, content: str, text: str | None = None) -> None:
        result = project.write_file_result(path, content, existed=path in self.files)
        self.files[path] = content
        self.calls(text, [("write_file", {"path": path, "content": content}, result)])

    def web(self, query: str, results: list[tuple[str, str, str]], text: str | None = None) -> None:
        self.calls(text, [("web_search", {"query": query}, project.web_search_result(query, results))])


def write_json(name: str, data: Any) -> None:
    (OUT / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_jsonl(name: str, records: list[dict[str, Any]], compact: bool = False) -> None:
    separators = (",", ":") if compact else None
    text = "".join(json.dumps(record, ensure_ascii=False, separators=separators) + "\n" for record in records)
    (OUT / name).write_text(text, encoding="utf-8")


def main() -> None:
    long_session = sessions.long_coding_session(ChatSession(seed=7, full_suite_on_pass=True))
    write_json("long_coding_session.json", {"model": "anthropic/claude-sonnet-4.6", "messages": long_session})
    write_json("screenshot_layout_bug.json", sessions.screenshot_session(ChatSession(seed=11)))
    write_json("secrets_in_tool_output.json", sessions.secrets_session(ChatSession(seed=13)))
    write_json("resumed_with_handoff_summary.json", sessions.handoff_session(ChatSession(seed=17)))
    write_json("responses_api_session.json", sessions.responses_session(random.Random(19)))
    write_json("anthropic_messages_session.json", sessions.anthropic_session(random.Random(23)))
    write_json("hermes_trajectory_sharegpt.json", sessions.sharegpt_session(ChatSession(seed=29)))
    write_jsonl("claude_code_session.jsonl", sessions.claude_code_session(random.Random(31)))
    write_jsonl("codex_rollout.jsonl", sessions.codex_rollout(random.Random(37)))
    write_jsonl("codex_exec_run.jsonl", sessions.codex_exec_run(random.Random(39)))
    write_json("openhands_trajectory.json", sessions.openhands_trajectory(random.Random(41)))
    write_json("langchain_messages.json", sessions.langchain_messages(random.Random(43)))
    write_json("swe_agent_run.traj", sessions.swe_agent_trajectory(random.Random(47)))
    write_jsonl("claude_code_v2_session.jsonl", current_layouts.claude_code_v2_session(random.Random(59)))
    write_json("mini_swe_agent_run.traj.json", current_layouts.mini_swe_agent_trajectory(random.Random(61)))
    write_agent_tool_samples()
    hermes_sessions = sessions.hermes_sessions(ChatSession(seed=53))
    write_hermes_db("hermes_state.db", hermes_sessions)
    write_jsonl("hermes_sessions_export.jsonl", [sessions.hermes_export_record(s) for s in hermes_sessions])
    write_agent_sessions()


def write_agent_sessions() -> None:
    """aider, pi, OpenClaw, Continue and Goose (agent_sessions.py)."""
    (OUT / "aider.chat.history.md").write_text(agent_sessions.aider_chat_history(), encoding="utf-8")
    (OUT / "aider.llm.history").write_text(agent_sessions.aider_llm_history(), encoding="utf-8")
    # pi, OpenClaw (JSON.stringify) and Goose (serde_json) write compact lines.
    write_jsonl("pi_session.jsonl", agent_sessions.pi_session(random.Random(67)), compact=True)
    write_jsonl("openclaw_session.jsonl", agent_sessions.openclaw_session(random.Random(71)), compact=True)
    write_json("continue_session.json", agent_sessions.continue_session(random.Random(73)))
    write_jsonl("goose_session.jsonl", agent_sessions.goose_session_jsonl(random.Random(79)), compact=True)
    agent_sessions.write_goose_db(OUT / "goose_sessions.db", agent_sessions.goose_store_sessions(random.Random(83)))


def write_agent_tool_samples() -> None:
    """Gemini CLI, Copilot CLI, OpenCode and Cline: their own files and folders."""
    write_json("gemini_cli_session.json", agent_tool_logs.gemini_cli_session(random.Random(67)))
    write_jsonl("gemini_cli_session.jsonl", agent_tool_logs.gemini_cli_log(random.Random(71)))
    write_jsonl("copilot_cli_events.jsonl", agent_tool_logs.copilot_cli_events(random.Random(73)))
    write_json("copilot_cli_history_session.json", agent_tool_logs.copilot_cli_history(random.Random(79)))
    opencode = agent_tool_stores.opencode_sessions(random.Random(83))
    agent_tool_stores.write_opencode_db(OUT / "opencode.db", opencode)
    write_json("opencode_export_session.json", agent_tool_stores.opencode_export(opencode))
    (OUT / "cline_task").mkdir(exist_ok=True)
    for name, document in agent_tool_stores.cline_task(random.Random(89)).items():
        write_json(f"cline_task/{name}", document)


SESSION_COLUMNS = """
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT,
    parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0,
    billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL, actual_cost_usd REAL,
    cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT, api_call_count INTEGER DEFAULT 0,
    handoff_state TEXT, handoff_platform TEXT, handoff_error TEXT
"""
MESSAGE_COLUMNS = """
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER,
    finish_reason TEXT, reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0
"""


def write_hermes_db(name: str, hermes_sessions: list[dict[str, Any]]) -> None:
    """A Hermes v0.15.1-style state.db (schema version 13), in WAL mode like the real store."""
    path = OUT / name
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"CREATE TABLE sessions ({SESSION_COLUMNS})")
    conn.execute(f"CREATE TABLE messages ({MESSAGE_COLUMNS})")
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO schema_version VALUES (13)")
    conn.execute("CREATE INDEX idx_messages_session ON messages(session_id, timestamp)")
    for session in hermes_sessions:
        row = session["row"]
        columns = ", ".join(row)
        conn.execute(f"INSERT INTO sessions ({columns}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
        for message in session["db_messages"]:
            cols = ", ".join(message)
            conn.execute(
                f"INSERT INTO messages (session_id, {cols}) VALUES (?, {', '.join('?' * len(message))})",
                [row["id"], *message.values()],
            )
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


if __name__ == "__main__":
    main()
