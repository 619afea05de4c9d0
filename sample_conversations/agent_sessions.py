"""Samples in the layouts of aider, pi, OpenClaw, Continue and Goose, written from their documented
and source shapes (``aider/io.py``, pi's ``docs/session.md``, Continue's ``core/index.d.ts``,
Goose's ``session_manager.rs``). All content is invented; the agents work on ledgerline.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import project
from sessions import _id, _uuid

CWD = "/home/dev/ledgerline"
PARSER = "src/ledgerline/parser.py"
TEST_PARSER = "tests/test_parser.py"

# The fix every agent below makes: parse_amount also strips narrow no-break spaces (U+202F).
OLD_STRIP = '    text = raw.strip().replace("\\u00a0", "").replace(" ", "")'
NEW_STRIP = '    text = raw.strip().replace("\\u00a0", "").replace("\\u202f", "").replace(" ", "")'
NEW_TEST = '''

def test_parse_amount_narrow_no_break_space():
    assert parse_amount("1\\u202f234,56") == Decimal("1234.56")
'''
SUMMARY = """## Goal
Make every importer of ledgerline parse amounts with Decimal only and support Revolut exports.

## Progress
- parse_amount strips U+00A0 and U+202F; tests/test_parser.py covers both (commit 3f1c2ab).
- importers/revolut.py reads 'Completed Date', 'Amount', 'Currency' and books the Fee column apart.

## Next steps
1. Register the Revolut importer in cli.py.
2. Replace round(float(...), 2) in parse_amount by Decimal.quantize."""


def _search_replace(path: str, old: str, new: str) -> str:
    return f"```python\n{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```"


# ---------------------------------------------------------------------------------------------
# aider: .aider.chat.history.md


def aider_chat_history() -> str:
    """Two launches of aider, a short one and then: edits with SEARCH/REPLACE blocks, a failed block
    and its reflection, commands, /clear, a multi-line input, and replies that quote and use ####
    headings."""
    reply_fix = (
        "The narrow no-break space (U+202F) is what French and Swiss exports put between thousands; "
        "`parse_amount` only removes U+00A0 and plain spaces.\n\n"
        + _search_replace(PARSER, OLD_STRIP, NEW_STRIP) + "\n\n"
        + _search_replace(TEST_PARSER, "def test_parse_amount_rejects_garbage():",
                          NEW_TEST.strip("\n") + "\n\n\ndef test_parse_amount_rejects_garbage():")
    )
    failing = _search_replace(PARSER, "        raise StatementError(f\"not an amount: {raw}\") from exc",
                              "        raise StatementError(f\"not an amount: {raw!r}\", line) from exc")
    fixed = _search_replace(PARSER, "    except ValueError as exc:\n        raise StatementError(f\"not an amount: {raw!r}\") from exc",
                            "    except ValueError as exc:\n        raise StatementError(f\"not an amount: {raw!r}\") from None")
    lines = [
        "",
        "# aider chat started at 2026-03-01 16:40:55",
        "",
        "> /home/dev/.local/bin/aider --model openai/gpt-4.1  ",
        "> Aider v0.86.1  ",
        "> Model: openai/gpt-4.1 with diff edit format  ",
        "> Git repo: .git with 31 files  ",
        "> Repo-map: using 1024 tokens, auto refresh  ",
        "",
        "#### does budget.py count refunds twice?  ",
        "",
        "No. `build_reports` skips refunds in the spending sum and subtracts them once, in the month they are booked.",
        "",
        "> Tokens: 3.1k sent, 41 received. Cost: $0.0066 message, $0.0066 session.  ",
        "",
        "# aider chat started at 2026-03-02 09:14:07",
        "",
        "> /home/dev/.local/bin/aider --model anthropic/claude-sonnet-4-5  ",
        "> Aider v0.86.1  ",
        "> Main model: anthropic/claude-sonnet-4-5 with diff edit format, infinite output  ",
        "> Weak model: anthropic/claude-haiku-4-5  ",
        "> Git repo: .git with 31 files  ",
        "> Repo-map: using 4096 tokens, auto refresh  ",
        "",
        f"#### /add {PARSER} {TEST_PARSER}  ",
        f"> Added {PARSER} to the chat  ",
        f"> Added {TEST_PARSER} to the chat  ",
        "",
        "#### parse_amount accepts \"1.234,56\" but a Swiss export writes \"1 234,56\" with a narrow no-break space.  ",
        "#### Fix it and add a test.  ",
        "",
        reply_fix,
        "",
        "> Tokens: 9.8k sent, 2.1k cache write, 412 received. Cost: $0.04 message, $0.04 session.  ",
        f"> Applied edit to {TEST_PARSER}  ",
        f"> Applied edit to {PARSER}  ",
        "> Commit 3f1c2ab fix: strip narrow no-break spaces in parse_amount  ",
        "> You can use /undo to undo and discard each aider commit.  ",
        "",
        f"#### /run python -m pytest -q {TEST_PARSER}  ",
        "> Add 0.4k tokens of command output to the chat? (Y)es/(N)o [Yes]: y  ",
        "> Added 11 lines of output to the chat.  ",
        "",
        "#### the error message should name the line, like StatementError does elsewhere  ",
        "",
        "`parse_amount` does not know the line; I'll pass it through.\n\n" + failing,
        "",
        "> Tokens: 11k sent, 9.8k cache hit, 230 received. Cost: $0.0087 message, $0.05 session.  ",
        "> The LLM did not conform to the edit format.  ",
        "> https://aider.chat/docs/troubleshooting/edit-errors.html  ",
        "> # 1 SEARCH/REPLACE block failed to match!",
        "",
        f"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in {PARSER}",
        "<<<<<<< SEARCH",
        "        raise StatementError(f\"not an amount: {raw}\") from exc",
        "=======",
        "        raise StatementError(f\"not an amount: {raw!r}\", line) from exc",
        ">>>>>>> REPLACE",
        "",
        "Did you mean to match some of these actual lines from src/ledgerline/parser.py?",
        "",
        "```",
        "        raise StatementError(f\"not an amount: {raw!r}\") from exc",
        "```",
        "",
        "The SEARCH section must exactly match an existing block of lines including all white space, comments, "
        "indentation, docstrings, etc",
        "",
        "Just reply with fixed versions of the block above that failed to match.  ",
        "",
        "The line is only known to the caller, so `parse_statement` adds it; here the original exception is "
        "dropped from the chain instead.\n\n" + fixed,
        "",
        "> Tokens: 12k sent, 2.4k cache write, 9.8k cache hit, 180 received.  ",
        "> Cost: $0.02 message, $0.07 session.  ",
        f"> Applied edit to {PARSER}  ",
        "> Commit 9b04e7d fix: keep StatementError free of the ValueError chain  ",
        "",
        "#### /clear  ",
        "> All chat history cleared.  ",
        "",
        "#### /ask which importers still round amounts through float?  ",
        "",
        "#### which importers still round amounts through float?  ",
        "",
        "None of the importers convert amounts themselves: all of them call `parse_amount`, which does\n\n"
        "> value = round(float(text), 2)\n\n"
        "so every bank goes through a float once. `Decimal(text).quantize(Decimal(\"0.01\"))` would keep the exact "
        "value.\n\n#### What changes\n\n- `parse_amount` only: the importers need no edit.",
        "",
        "> Tokens: 7.9k sent, 6.2k cache hit, 96 received. Cost: $0.0061 message, $0.08 session.  ",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# aider: .aider.llm.history


SYSTEM_LINES = [
    "Act as an expert software developer who edits code in the user's repository.",
    "Follow the conventions the code already has. If a request is unclear, ask.",
    "",
    "Describe every change as a *SEARCH/REPLACE block*: the file path, <<<<<<< SEARCH, the exact lines",
    "to find, =======, the lines that replace them, >>>>>>> REPLACE, all in a fenced code block.",
    "",
    "Reply in the language the user writes in.",
]
REPO_MAP = [
    "Here are summaries of some files present in my git repository.",
    "Do not propose changes to these files, treat them as *read-only*.",
    "",
    "src/ledgerline/budget.py:",
    "⋮",
    "│def build_reports(",
    "⋮",
    "src/ledgerline/importers/revolut.py:",
    "⋮",
    "│def import_revolut(path: Path, default_currency: str = \"EUR\") -> list[Transaction]:",
    "⋮",
]


def _llm_message(role: str, text: str) -> list[str]:
    return ["-------", *[f"{role} {line}".rstrip(" ") if not line else f"{role} {line}" for line in text.split("\n")]]


def aider_llm_history() -> str:
    """Three requests: the first edit, the reflection of a failed block, and a later request whose
    system prompt asks for caching (list content) and whose old chat aider summarised."""
    files_text = (f"I have *added these files to the chat* so you can go ahead and edit them.\n\n{PARSER}\n```\n"
                  + project.BASE_FILES[PARSER].split("def parse_date")[0].rstrip() + "\n```")
    first_user = "parse_amount accepts \"1.234,56\" but a Swiss export writes \"1 234,56\" with a narrow no-break space.\nFix it and add a test."
    first_reply = "The narrow no-break space is not stripped.\n\n" + _search_replace(PARSER, OLD_STRIP, NEW_STRIP)
    reflection = ("# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed to "
                  f"exactly match lines in {PARSER}\n\nJust reply with fixed versions of the block above that failed to match.")
    base = [("SYSTEM", "\n".join(SYSTEM_LINES)), ("USER", "\n".join(REPO_MAP)),
            ("ASSISTANT", "Ok, I won't try and edit those files without asking first."),
            ("USER", files_text), ("ASSISTANT", "Ok, any changes I propose will be to those files.")]
    out: list[str] = []

    def request(time: str, messages: list[tuple[str, str]], reply_time: str, reply: str, system_parts: bool = False) -> None:
        out.append(f"TO LLM {time}")
        for role, text in messages:
            if system_parts and role == "SYSTEM":
                first, *rest = text.split("\n")
                out.extend(["-------", "SYSTEM type: text", f"SYSTEM text: {first}", *rest,
                            "SYSTEM cache_control: {'type': 'ephemeral'}"])
            else:
                out.extend(_llm_message(role, text))
        out.append(f"LLM RESPONSE {reply_time}")
        out.extend(f"ASSISTANT {line}" if line else "ASSISTANT " for line in reply.split("\n"))

    request("2026-03-02T09:15:31", [*base, ("USER", first_user)], "2026-03-02T09:15:44", first_reply)
    request("2026-03-02T09:18:02", [*base, ("USER", first_user), ("ASSISTANT", first_reply),
                                    ("USER", "the error message should name the line"), ("ASSISTANT", "I'll pass it through."),
                                    ("USER", reflection)],
            "2026-03-02T09:18:15", "Here the original exception is dropped from the chain instead.")
    summary = ("I spoke to you previously about a number of things.\nYou fixed parse_amount for narrow no-break spaces "
               "and added a test; a failed SEARCH block was redone.")
    request("2026-03-02T11:02:47", [base[0], ("USER", summary), ("ASSISTANT", "Ok."), *base[1:],
                                    ("USER", "which importers still round amounts through float?")],
            "2026-03-02T11:02:53", "All of them, through parse_amount.", system_parts=True)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# pi and OpenClaw session trees


class _PiLog:
    """Writes pi entries; ``parent`` defaults to the last entry written (pi's leaf)."""

    def __init__(self, rng: random.Random, start: str) -> None:
        self.rng = rng
        self.rows: list[dict[str, Any]] = []
        self.last: str | None = None
        self.clock = 0
        self.start = start

    def stamp(self) -> tuple[str, int]:
        self.clock += self.rng.randint(2, 40)
        minutes, second = divmod(self.clock, 60)
        hours, minute = divmod(minutes, 60)
        iso = f"{self.start}T{10 + hours:02d}:{minute:02d}:{second:02d}.{self.rng.randint(0, 999):03d}Z"
        return iso, 1772445600000 + self.clock * 1000

    def entry(self, kind: str, parent: str | None = "last", **fields: Any) -> str:
        entry_id = "".join(self.rng.choice("0123456789abcdef") for _ in range(8))
        iso, _ = self.stamp()
        self.rows.append({"type": kind, "id": entry_id, "parentId": self.last if parent == "last" else parent,
                          "timestamp": iso, **fields})
        self.last = entry_id
        return entry_id

    def message(self, message: dict[str, Any], parent: str | None = "last") -> str:
        _, millis = self.stamp()
        return self.entry("message", parent, message={**message, "timestamp": millis})

    def user(self, text: str, parent: str | None = "last") -> str:
        return self.message({"role": "user", "content": [{"type": "text", "text": text}]}, parent)

    def assistant(self, blocks: list[dict[str, Any]], prompt: int, stop: str = "toolUse", model: str = "claude-sonnet-4-5",
                  **extra: Any) -> str:
        read = max(0, prompt - self.rng.randint(600, 3000))
        usage = {"input": prompt - read, "output": self.rng.randint(40, 700), "cacheRead": read, "cacheWrite": 0}
        usage["totalTokens"] = usage["input"] + usage["output"] + read
        usage["cost"] = {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0,
                         "total": round((usage["input"] * 3 + usage["output"] * 15 + read * 0.3) / 1e6, 6)}
        return self.message({"role": "assistant", "content": blocks, "api": "anthropic-messages", "provider": "anthropic",
                             "model": model, "usage": usage, "stopReason": stop, **extra})

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"type": "toolCall", "id": _id(self.rng, "toolu_01", 22), "name": name, "arguments": arguments}

    def result(self, call: dict[str, Any], text: str, error: bool = False) -> str:
        return self.message({"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
                             "content": [{"type": "text", "text": text}], "isError": error})


def pi_session(rng: random.Random) -> list[dict[str, Any]]:
    """A pi session (version 3): parallel reads, a failing and a passing test run, an aborted
    response, a ``!`` command and a ``!!`` one, a label, a branch left behind with its summary, a
    compaction with ``firstKeptEntryId``, the session's name and an extension's state."""
    log = _PiLog(rng, "2026-03-04")
    header = {"type": "session", "version": 3, "id": _uuid(rng), "timestamp": "2026-03-04T10:00:00.000Z", "cwd": CWD}
    log.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    log.entry("thinking_level_change", thinkingLevel="medium")
    log.user("DKB exports fail to import since the bank added a 'Gläubiger-ID' column. Find out why.")
    reads = [log.call("read", {"path": f"{CWD}/src/ledgerline/importers/dkb.py"}), log.call("read", {"path": f"{CWD}/{PARSER}"})]
    log.assistant([{"type": "thinking", "thinking": "Read the importer and the parser before running anything."}, *reads], 9200)
    log.result(reads[0], project.numbered(project.BASE_FILES["src/ledgerline/importers/dkb.py"], 1, 40))
    log.result(reads[1], project.numbered(project.BASE_FILES[PARSER], 1, 40))
    run = log.call("bash", {"command": "python -m pytest -q tests/test_importers.py"})
    log.assistant([{"type": "text", "text": "The importer checks the header row; let me run its tests."}, run], 14800)
    output, _ = project.pytest_run(rng, ["tests/test_parser.py"], [("tests/test_parser.py", "test_parse_german_export",
                                   "    txs = parse_statement(GERMAN_EXPORT)", "E   ledgerline.parser.StatementError: line 5: unknown column")])
    log.result(run, output + "\n\nCommand exited with code 1", error=True)
    log.assistant([], 15100, stop="aborted", errorMessage="Request was aborted")
    log.user("only run the parser tests, the importer ones need network")
    run = log.call("bash", {"command": "python -m pytest -q tests/test_parser.py"})
    log.assistant([run], 15900)
    log.result(run, project.pytest_run(rng, ["tests/test_parser.py"], [])[0])
    fixed = log.assistant([{"type": "text", "text": "The parser tests pass; the importer rejects unknown columns "
                                                    "instead of ignoring them. I will make it ignore extra columns."}], 16400, stop="stop")
    log.message({"role": "bashExecution", "command": "git status --short", "output": " M src/ledgerline/importers/dkb.py",
                 "exitCode": 0, "cancelled": False, "truncated": False})
    log.message({"role": "bashExecution", "command": "ls ~/Downloads/*.csv", "output": "dkb-2026-02.csv", "exitCode": 0,
                 "cancelled": False, "truncated": False, "excludeFromContext": True})
    log.entry("label", targetId=fixed, label="dkb-diagnosed")
    fork = log.last
    left = log.user("also make the Wise importer ignore extra columns")
    log.assistant([{"type": "text", "text": "Wise exports have a fixed header; nothing to change there."}], 17100, stop="stop")
    log.entry("branch_summary", parent=fork, fromId=log.last,
              summary="The user asked about Wise; its exports have a fixed header, so nothing was changed.")
    del left
    first_kept = log.user("Now write the Revolut importer: Completed Date, Amount, Currency, and the Fee booked apart.")
    read = log.call("read", {"path": f"{CWD}/src/ledgerline/importers/n26.py"})
    log.assistant([read], 52000)
    log.result(read, project.numbered(project.BASE_FILES["src/ledgerline/importers/n26.py"], 1, 30))
    write = log.call("write", {"path": f"{CWD}/src/ledgerline/importers/revolut.py",
                               "content": project.BASE_FILES["src/ledgerline/importers/revolut.py"]})
    log.assistant([write], 61000)
    log.result(write, f"Successfully wrote {len(project.BASE_FILES['src/ledgerline/importers/revolut.py'])} bytes "
                      f"to {CWD}/src/ledgerline/importers/revolut.py")
    log.entry("compaction", summary=SUMMARY, firstKeptEntryId=first_kept, tokensBefore=142880,
              details={"readFiles": [f"{CWD}/src/ledgerline/importers/n26.py"],
                       "modifiedFiles": [f"{CWD}/src/ledgerline/importers/revolut.py"]})
    log.user("continue: register it in the CLI")
    edit = log.call("edit", {"path": f"{CWD}/src/ledgerline/cli.py", "oldText": "from ledgerline.importers import n26",
                             "newText": "from ledgerline.importers import n26, revolut"})
    log.assistant([edit], 23000)
    log.result(edit, f"Successfully replaced text in {CWD}/src/ledgerline/cli.py.")
    log.assistant([{"type": "text", "text": "Revolut statements now import through `ledgerline report`."}], 23900, stop="stop")
    log.entry("session_info", name="DKB extra columns and the Revolut importer")
    log.entry("custom", customType="todo", data={"open": ["quantize amounts with Decimal"], "done": 3})
    return [header, *log.rows]


def openclaw_session(rng: random.Random) -> list[dict[str, Any]]:
    """An OpenClaw agent session: its model snapshot and bootstrap rows, a message from a chat
    channel, runtime context sent as a custom message, tool calls, a failed request with its
    prompt-error row, and a retry."""
    log = _PiLog(rng, "2026-03-05")
    header = {"type": "session", "version": 3, "id": _uuid(rng), "timestamp": "2026-03-05T10:00:00.000Z",
              "cwd": "/home/dev/.openclaw/workspace"}
    log.entry("model_change", provider="anthropic", modelId="claude-opus-4-5")
    log.entry("thinking_level_change", thinkingLevel="low")
    log.entry("custom", customType="model-snapshot", data={"provider": "anthropic", "modelApi": "anthropic-messages",
                                                           "modelId": "claude-opus-4-5"})
    log.entry("custom", customType="openclaw:bootstrap-context:full", data={"runId": _uuid(rng), "files": ["AGENTS.md", "SOUL.md"]})
    log.entry("custom_message", customType="openclaw.runtime-context", display=False,
              content="Runtime: agent=main | channel=telegram | host=homelab | workspace=/home/dev/.openclaw/workspace")
    log.user("[Telegram Dana id:48213 2026-03-05 10:01] is the nightly ledgerline import done? what did it book?")
    exec_call = log.call("exec", {"command": "tail -n 5 ~/ledgerline/logs/nightly.log"})
    log.assistant([{"type": "thinking", "thinking": "Check the nightly log."}, exec_call], 18400, model="claude-opus-4-5")
    log.result(exec_call, "02:00:04 import dkb-2026-03-04.csv: 12 transactions\n02:00:05 import n26.csv: 3 transactions\n"
                          "02:00:05 report written to reports/2026-03.md")
    read = log.call("read", {"path": "/home/dev/ledgerline/reports/2026-03.md"})
    log.assistant([read], 19100, model="claude-opus-4-5")
    log.result(read, "| category | spent |\n|---|---|\n| groceries | 212.40 |\n| transport | 58.00 |")
    log.assistant([{"type": "text", "text": "Yes: 15 transactions booked at 02:00. March so far: groceries 212.40, transport 58.00."}],
                  19600, stop="stop", model="claude-opus-4-5")
    log.user("[Telegram Dana id:48213 2026-03-05 10:07] and compared to February?")
    log.assistant([], 19800, stop="error", model="claude-opus-4-5", errorMessage="429 rate_limit_error: retry later")
    log.entry("custom", customType="openclaw:prompt-error", data={"error": "429 rate_limit_error", "retry": 1})
    read = log.call("read", {"path": "/home/dev/ledgerline/reports/2026-02.md"})
    log.assistant([read], 20300, model="claude-opus-4-5")
    log.result(read, "| category | spent |\n|---|---|\n| groceries | 402.10 |\n| transport | 96.00 |")
    log.assistant([{"type": "text", "text": "February: groceries 402.10, transport 96.00. March is on a similar pace."}],
                  20900, stop="stop", model="claude-opus-4-5")
    return [header, *log.rows]


# ---------------------------------------------------------------------------------------------
# Continue


def continue_session(rng: random.Random) -> dict[str, Any]:
    """An agent-mode Continue session: a file as context item, thinking, tool calls with their
    states (a read, a terminal command, a cancelled edit), usage, prompt logs and a conversation
    summary from a compaction."""
    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"id": _id(rng, "call_", 24), "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}

    def usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
        found: dict[str, Any] = {"promptTokens": prompt, "completionTokens": completion}
        if cached:
            found["promptTokensDetails"] = {"cachedTokens": cached}
        return found

    parser_text = project.BASE_FILES[PARSER]
    read = call("builtin_read_file", {"filepath": TEST_PARSER})
    run = call("builtin_run_terminal_command", {"command": "python -m pytest -q tests/test_parser.py", "waitForCompletion": True})
    edit = call("builtin_edit_existing_file", {"filepath": PARSER, "changes": NEW_STRIP})
    output, _ = project.pytest_run(rng, [TEST_PARSER], [])
    ctx = {"name": "parser.py", "description": f"{CWD}/{PARSER}", "content": f"```{PARSER}\n{parser_text}\n```",
           "id": {"providerTitle": "file", "itemId": f"{CWD}/{PARSER}"}, "uri": {"type": "file", "value": f"file://{CWD}/{PARSER}"}}

    def item(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"message": message, "contextItems": extra.pop("contextItems", []), **extra}

    def state(c: dict[str, Any], status: str, output: list[dict[str, Any]] | None) -> dict[str, Any]:
        found: dict[str, Any] = {"toolCallId": c["id"], "toolCall": c, "status": status,
                                 "parsedArgs": json.loads(c["function"]["arguments"])}
        if output is not None:
            found["output"] = output
        return found

    history = [
        item({"role": "user", "content": "Does parse_amount handle the narrow no-break space?"}, contextItems=[ctx]),
        item({"role": "thinking", "content": "Check the tests for U+202F first."}),
        item({"role": "assistant", "content": "", "toolCalls": [read], "usage": usage(6100, 48)},
             toolCallStates=[state(read, "done", [{"name": "test_parser.py", "description": TEST_PARSER,
                                                   "content": project.BASE_FILES[TEST_PARSER]}])],
             promptLogs=[{"modelTitle": "Claude Sonnet 4.5", "modelProvider": "anthropic", "prompt": "<prompt>",
                          "completion": ""}]),
        item({"role": "tool", "content": project.BASE_FILES[TEST_PARSER], "toolCallId": read["id"]}),
        item({"role": "assistant", "content": "No test covers it; running the parser tests first.", "toolCalls": [run],
              "usage": usage(8900, 61, 6000)},
             toolCallStates=[state(run, "done", [{"name": "Terminal", "description": "Terminal command output",
                                                  "content": output, "status": "Command completed"}])]),
        item({"role": "tool", "content": output, "toolCallId": run["id"]}),
        item({"role": "assistant", "content": "I'll strip U+202F too.", "toolCalls": [edit], "usage": usage(11200, 140, 8800)},
             toolCallStates=[state(edit, "canceled", None)],
             conversationSummary="The user asked whether parse_amount handles U+202F. No test covers it; the parser "
                                 "tests pass. An edit adding U+202F to the stripped characters was cancelled."),
        item({"role": "user", "content": [{"type": "text", "text": "Not yet. First tell me where else raw strings are cleaned."}]}),
        item({"role": "assistant", "content": "Only `parse_amount` and `categorize.normalize_merchant` clean raw strings.",
              "usage": usage(3900, 52)}),
        item({"role": "assistant", "content": ""}),
    ]
    return {"sessionId": _uuid(rng), "title": "Narrow no-break space in parse_amount", "workspaceDirectory": f"file://{CWD}",
            "history": history, "mode": "agent", "chatModelTitle": "Claude Sonnet 4.5",
            "usage": {"promptTokens": 30100, "completionTokens": 301, "totalCost": 0.0948}}


# ---------------------------------------------------------------------------------------------
# Goose


class _Goose:
    def __init__(self, rng: random.Random, created: int) -> None:
        self.rng = rng
        self.created = created
        self.messages: list[dict[str, Any]] = []

    def add(self, role: str, content: list[dict[str, Any]], visible: tuple[bool, bool] = (True, True),
            usage: dict[str, Any] | None = None) -> None:
        self.created += self.rng.randint(2, 30)
        metadata: dict[str, Any] = {"userVisible": visible[0], "agentVisible": visible[1]}
        if usage:
            metadata["usage"] = usage
            metadata["inference"] = {"provider": "anthropic", "resolvedModel": "claude-sonnet-4-5-20250929"}
        self.messages.append({"id": None, "role": role, "created": self.created, "content": content, "metadata": metadata})

    def request(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"type": "toolRequest", "id": _id(self.rng, "toolu_01", 22),
                "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}}}

    @staticmethod
    def response(request: dict[str, Any], text: str, legacy: bool = False) -> dict[str, Any]:
        items = [{"type": "text", "text": text, "annotations": {"audience": ["assistant"]}},
                 {"type": "text", "text": text[-200:], "annotations": {"audience": ["user"], "priority": 0.0}}]
        value: Any = items if legacy else {"content": items, "isError": False}
        return {"type": "toolResponse", "id": request["id"], "toolResult": {"status": "success", "value": value}}


def _goose_work(goose: _Goose, legacy: bool) -> None:
    shell = goose.request("developer__shell", {"command": "python -m pytest -q tests/test_parser.py"})
    goose.add("user", [{"type": "text", "text": "make parse_amount accept the narrow no-break space"}])
    goose.add("assistant", [{"type": "text", "text": "Running the parser tests first."}, shell],
              usage={"inputTokens": 7400, "outputTokens": 52, "cacheReadTokens": 5100})
    goose.add("user", [goose.response(shell, project.pytest_run(goose.rng, [TEST_PARSER], [])[0], legacy)])
    view = goose.request("developer__text_editor", {"command": "view", "path": f"{CWD}/{PARSER}"})
    goose.add("assistant", [{"type": "thinking", "thinking": "All pass; look at parse_amount.", "signature": "EqQB"}, view],
              usage={"inputTokens": 9800, "outputTokens": 38, "cacheReadTokens": 7300})
    goose.add("user", [goose.response(view, project.BASE_FILES[PARSER], legacy)])
    edit = goose.request("developer__text_editor", {"command": "str_replace", "path": f"{CWD}/{PARSER}",
                                                    "old_str": OLD_STRIP, "new_str": NEW_STRIP})
    goose.add("assistant", [edit], usage={"inputTokens": 13900, "outputTokens": 120, "cacheReadTokens": 9700})
    goose.add("user", [goose.response(edit, f"The file {CWD}/{PARSER} has been edited.", legacy)])
    goose.add("assistant", [{"type": "text", "text": "parse_amount now strips U+202F as well."}],
              usage={"inputTokens": 14300, "outputTokens": 31, "cacheReadTokens": 13800})


def goose_session_jsonl(rng: random.Random) -> list[dict[str, Any]]:
    """A session file of the JSONL era: the metadata line, messages with tool requests and legacy
    responses (a list of contents, one of them for the user only) and thinking."""
    goose = _Goose(rng, 1767340800)
    _goose_work(goose, legacy=True)
    meta = {"working_dir": CWD, "description": "Narrow no-break space in parse_amount", "schedule_id": None,
            "message_count": len(goose.messages), "total_tokens": 14331, "input_tokens": 14300, "output_tokens": 31,
            "accumulated_total_tokens": 45641, "accumulated_input_tokens": 45400, "accumulated_output_tokens": 241}
    for message in goose.messages:
        message.pop("metadata")  # the JSONL era kept no visibility or usage per message
        message.pop("id")
    return [meta, *goose.messages]


def goose_store_sessions(rng: random.Random) -> list[dict[str, Any]]:
    """Three sessions for sessions.db: one compacted (hidden history, the agent-only summary and
    continuation, a notification shown in the app only), a sub-agent run and a scheduled one."""
    main = _Goose(rng, 1772532000)
    _goose_work(main, legacy=False)
    for message in main.messages:
        message["metadata"]["agentVisible"] = False  # compacted: shown in the app, no longer sent
    main.add("user", [{"type": "text", "text": SUMMARY}], visible=(False, True))
    main.add("assistant", [{"type": "text", "text": "Your context was compacted. The previous message contains a summary "
                                                    "of the conversation so far.\nDo not mention that you read a summary or "
                                                    "that conversation summarization occurred.\nJust continue the "
                                                    "conversation naturally based on the summarized context."}],
             visible=(False, True))
    main.add("user", [{"type": "text", "text": "now register the Revolut importer in the CLI"}])
    edit = main.request("developer__text_editor", {"command": "str_replace", "path": f"{CWD}/src/ledgerline/cli.py",
                                                   "old_str": "import n26", "new_str": "import n26, revolut"})
    main.add("assistant", [edit], usage={"inputTokens": 4100, "outputTokens": 66, "cacheReadTokens": 0})
    main.add("user", [main.response(edit, f"The file {CWD}/src/ledgerline/cli.py has been edited.")])
    main.add("assistant", [{"type": "text", "text": "Done: `ledgerline report` now reads Revolut exports."}],
             usage={"inputTokens": 4400, "outputTokens": 24, "cacheReadTokens": 4000})
    main.add("assistant", [{"type": "systemNotification", "notificationType": "inlineMessage", "msg": "Session saved"}],
             visible=(True, False))
    sub = _Goose(rng, 1772533000)
    shell = sub.request("developer__shell", {"command": "rg -n 'float\\(' src/ledgerline"})
    sub.add("user", [{"type": "text", "text": "List every float() call in src/ledgerline."}])
    sub.add("assistant", [shell], usage={"inputTokens": 2100, "outputTokens": 30, "cacheReadTokens": 0})
    sub.add("user", [sub.response(shell, "src/ledgerline/parser.py:66:        value = round(float(text), 2)")])
    sub.add("assistant", [{"type": "text", "text": "One call: parser.py line 66."}],
            usage={"inputTokens": 2400, "outputTokens": 12, "cacheReadTokens": 2000})
    nightly = _Goose(rng, 1772582400)
    nightly.add("user", [{"type": "text", "text": "Run the nightly import and report the totals."}])
    nightly.add("assistant", [{"type": "text", "text": "Imported 15 transactions; March spending is 270.40 EUR."}],
                usage={"inputTokens": 1900, "outputTokens": 21, "cacheReadTokens": 0})
    model = json.dumps({"model_name": "claude-sonnet-4-5", "context_limit": 200000, "temperature": None})
    return [
        {"row": {"id": "20260303_1", "name": "Revolut importer", "description": "", "user_set_name": 1, "session_type": "user",
                 "working_dir": CWD, "created_at": "2026-03-03 10:00:00", "updated_at": "2026-03-04 09:31:12",
                 "total_tokens": 4424, "input_tokens": 4400, "output_tokens": 24, "accumulated_total_tokens": 54211,
                 "provider_name": "anthropic", "model_config_json": model}, "messages": main.messages},
        {"row": {"id": "20260303_2", "name": "float calls", "description": "", "user_set_name": 0, "session_type": "sub_agent",
                 "working_dir": CWD, "created_at": "2026-03-03 10:16:40", "updated_at": "2026-03-03 10:17:20",
                 "total_tokens": 2412, "input_tokens": 2400, "output_tokens": 12, "accumulated_total_tokens": 4542,
                 "provider_name": "anthropic", "model_config_json": model}, "messages": sub.messages},
        {"row": {"id": "20260304_1", "name": "nightly import", "description": "", "user_set_name": 0,
                 "session_type": "scheduled", "working_dir": CWD, "created_at": "2026-03-04 02:00:00",
                 "updated_at": "2026-03-04 02:00:09", "total_tokens": 1921, "input_tokens": 1900, "output_tokens": 21,
                 "accumulated_total_tokens": 1921, "provider_name": "anthropic", "model_config_json": model},
         "messages": nightly.messages},
    ]


GOOSE_SESSIONS = """
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER,
    input_tokens INTEGER, output_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT,
    provider_name TEXT, model_config_json TEXT
"""
GOOSE_MESSAGES = """
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER, metadata_json TEXT, message_id TEXT
"""


def write_goose_db(path: Path, stored: list[dict[str, Any]]) -> None:
    """A Goose sessions.db (schema version 7), in WAL mode like the real store, without -wal/-shm."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)")
    conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (7, '2026-03-01 08:00:00')")
    conn.execute(f"CREATE TABLE sessions ({GOOSE_SESSIONS})")
    conn.execute(f"CREATE TABLE messages ({GOOSE_MESSAGES})")
    conn.execute("CREATE INDEX idx_messages_session ON messages(session_id)")
    for session in stored:
        row = session["row"]
        conn.execute(f"INSERT INTO sessions ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
        for message in session["messages"]:
            cursor = conn.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json) "
                "VALUES (?, ?, ?, ?, datetime(?, 'unixepoch'), ?)",
                (row["id"], message["role"], json.dumps(message["content"], ensure_ascii=False), message["created"],
                 message["created"], json.dumps(message["metadata"])),
            )
            conn.execute("UPDATE messages SET message_id = ? WHERE id = ?",
                         (f"msg_{row['id']}_{cursor.lastrowid}", cursor.lastrowid))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
