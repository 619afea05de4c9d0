"""Samples in the layouts agents write today: a Claude Code 2.1 session and a mini-swe-agent run.

The Claude Code session shows what a 2.1.x log holds besides messages and how its tree looks:
``attachment`` rows inside the ``parentUuid`` chain, parallel tool calls whose results are written
as sibling branches (each result under its own ``tool_use`` row, the next turn continuing from
the last one written), a local command (``isMeta`` caveat plus ``system`` ``local_command`` rows),
an interrupted tool call, ANSI colours in tool output, an API-error notice, an edited prompt
that leaves an abandoned branch, and a late stray tool result that points back into it.
"""

from __future__ import annotations

import json
import random
from typing import Any

import project
from sessions import TB, TP, B, P, _id, _uuid

VERSION = "2.1.32"
CWD = "/home/dev/ledgerline"


class _Log21:
    """Writes Claude Code 2.1 rows; ``parent`` defaults to the last row written."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rows: list[dict[str, Any]] = []
        self.session_id = _uuid(rng)
        self.clock = 0
        self.last: str | None = None

    def stamp(self, seconds: int | None = None) -> str:
        self.clock += seconds if seconds is not None else self.rng.randint(1, 9)
        minutes, second = divmod(self.clock, 60)
        hours, minute = divmod(minutes, 60)
        return f"2026-04-02T{14 + hours:02d}:{minute:02d}:{second:02d}.{self.rng.randint(0, 999):03d}Z"

    def row(self, kind: str, parent: str | None = "last", *, at: str | None = None, **extra: Any) -> str:
        uuid = _uuid(self.rng)
        record = {"parentUuid": self.last if parent == "last" else parent, "isSidechain": False, "userType": "external",
                  "cwd": CWD, "sessionId": self.session_id, "version": VERSION, "gitBranch": "main", "type": kind,
                  "uuid": uuid, "timestamp": at or self.stamp()}
        record.update(extra)
        self.rows.append(record)
        self.last = uuid
        return uuid

    def bookkeeping(self, record: dict[str, Any]) -> None:
        self.rows.append(record)

    def user(self, content: Any, parent: str | None = "last", **extra: Any) -> str:
        return self.row("user", parent, message={"role": "user", "content": content}, **extra)

    def response(self, blocks: list[dict[str, Any]], parent: str | None = "last") -> list[str]:
        """One API response, one row per content block (chained), as 2.1 writes it."""
        message_id = _id(self.rng, "msg_01", 22)
        request_id = _id(self.rng, "req_011C", 18)
        uuids = []
        for index, block in enumerate(blocks):
            usage = {"input_tokens": self.rng.randint(2, 9), "cache_creation_input_tokens": self.rng.randint(300, 3000),
                     "cache_read_input_tokens": 18000 + 700 * len(self.rows), "output_tokens": self.rng.randint(30, 400),
                     "service_tier": "standard"}
            message = {"model": "claude-sonnet-4-5-20250929", "id": message_id, "type": "message", "role": "assistant",
                       "content": [block], "stop_reason": "tool_use" if block["type"] == "tool_use" else None,
                       "stop_sequence": None, "usage": usage}
            uuids.append(self.row("assistant", parent if index == 0 else "last", requestId=request_id, message=message))
        return uuids

    def result(self, parent: str, tool_use_id: str, content: Any, is_error: bool = False) -> str:
        block: dict[str, Any] = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        return self.user([block], parent=parent, sourceToolAssistantUUID=parent,
                         toolUseResult={"stdout": content if isinstance(content, str) else "", "stderr": "", "interrupted": False})

    def attachment(self, attachment: dict[str, Any], parent: str | None = "last") -> str:
        return self.row("attachment", parent, attachment=attachment)

    def title(self) -> None:
        self.bookkeeping({"type": "ai-title", "aiTitle": "Fix DKB dates and the refund test", "sessionId": self.session_id})


def _tool_use(rng: random.Random, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": _id(rng, "toolu_01", 22), "name": name, "input": arguments}


def _hook(tool_use_id: str) -> dict[str, Any]:
    return {"type": "hook_success", "hookName": "PostToolUse:Bash", "toolUseID": tool_use_id, "hookEvent": "PostToolUse",
            "content": "", "stdout": "", "stderr": "", "exitCode": 0}


def _coloured(text: str) -> str:
    """pytest's colours, as a terminal tool captures them."""
    return (text.replace(" PASSED", " \x1b[32mPASSED\x1b[0m").replace(" FAILED", " \x1b[31mFAILED\x1b[0m")
            .replace("=====", "\x1b[1m=====", 1) + "\x1b[0m")


def claude_code_v2_session(rng: random.Random) -> list[dict[str, Any]]:
    files = dict(project.BASE_FILES)
    log = _Log21(rng)
    for operation in ("enqueue", "dequeue"):
        log.bookkeeping({"type": "queue-operation", "operation": operation, "timestamp": log.stamp(0),
                         "sessionId": log.session_id})
    prompt = log.user([{"type": "text", "text": "<ide_opened_file>The user opened the file /home/dev/ledgerline/src/ledgerline/"
                                                 "parser.py in the IDE. This may or may not be related to the current task."
                                                 "</ide_opened_file>"},
                       {"type": "text", "text": "DKB statements fail to import (unknown date format). Find out why and fix it."}],
                      parent=None, permissionMode="default", promptId=_uuid(rng))
    log.attachment({"type": "skill_listing", "content": "- pdf: Work with PDF files\n- xlsx: Spreadsheets", "skillCount": 2})
    log.bookkeeping({"type": "file-history-snapshot", "messageId": prompt, "snapshot": {
        "messageId": prompt, "trackedFileBackups": {}, "timestamp": log.stamp(0)}, "isSnapshotUpdate": False})
    log.title()
    # Three parallel calls: the rows of one response are chained, each result hangs under its own tool_use.
    read = _tool_use(rng, "Read", {"file_path": f"{CWD}/{P}"})
    grep = _tool_use(rng, "Grep", {"pattern": "Buchungstag|Datum", "path": "tests"})
    ls = _tool_use(rng, "Bash", {"command": "ls tests/data", "description": "List the test data"})
    thinking, text, read_row, grep_row, ls_row = log.response([
        {"type": "thinking", "thinking": "The parser probably only accepts the `date` and `Datum` columns.", "signature": _id(rng, "Eq", 60)},
        {"type": "text", "text": "I'll read the parser, look for DKB headers and list the test data at once."},
        read, grep, ls])
    log.result(ls_row, ls["id"], "dkb_march.csv\nn26_march.csv\nrevolut_march.csv")
    log.attachment(_hook(ls["id"]))
    log.result(grep_row, grep["id"], "tests/data/dkb_march.csv:1:Buchungstag;Wertstellung;Betrag (EUR);Empfänger")
    last_result = log.result(read_row, read["id"], project.numbered(files[P]))
    log.attachment({"type": "todo_reminder", "content": [], "itemCount": 0}, parent=last_result)
    log.bookkeeping({"type": "last-prompt", "lastPrompt": "DKB statements fail to import", "sessionId": log.session_id})
    edit = _tool_use(rng, "Edit", {"file_path": f"{CWD}/{P}", "old_string": 'row.get("date") or row.get("Datum") or ""',
                                   "new_string": 'row.get("date") or row.get("Datum") or row.get("Buchungstag") or ""'})
    _, edit_row = log.response([{"type": "text", "text": "DKB calls the column `Buchungstag`. Accepting it too."}, edit])
    fork = log.result(edit_row, edit["id"], "The file /home/dev/ledgerline/src/ledgerline/parser.py has been updated.")
    # An edited prompt: the first version and its answer stay in the file as an abandoned branch.
    log.user("run the whole test suite", parent=fork)
    slow = _tool_use(rng, "Bash", {"command": "python -m pytest", "description": "Run every test"})
    (abandoned_call,) = log.response([slow])
    log.user("run only the parser tests", parent=fork)
    tests = _tool_use(rng, "Bash", {"command": f"python -m pytest {TP} -v", "description": "Run the parser tests"})
    (tests_row,) = log.response([tests])
    log.result(tests_row, tests["id"], _coloured(project.pytest_run(rng, [TP], [])[0]))
    log.attachment(_hook(tests["id"]))
    log.row("system", subtype="api_error", level="error", cause={"code": "ECONNRESET"}, retryInMs=1200, retryAttempt=1,
            maxRetries=10, isMeta=False)
    log.response([{"type": "text", "text": "Parser tests pass with the DKB header."}])
    # A local command: the caveat (meta), the command and its output (system rows), then the next prompt.
    log.user("Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these "
             "messages or otherwise consider them in your response unless the user explicitly asks you to.", isMeta=True)
    log.row("system", subtype="local_command", level="info", isMeta=False,
            content="<command-name>/model</command-name>\n            <command-message>model</command-message>\n"
                    "            <command-args>opus</command-args>")
    log.row("system", subtype="local_command", level="info", isMeta=False,
            content="<local-command-stdout>Set model to opus (claude-opus-4-5)</local-command-stdout>")
    log.user("Now the refund test in the budget module fails. Look at it.")
    budget_read = _tool_use(rng, "Read", {"file_path": f"{CWD}/{B}"})
    budget_test = _tool_use(rng, "Bash", {"command": f"python -m pytest {TB} -q", "description": "Run the budget tests"})
    _, read_b, test_b = log.response([{"type": "text", "text": "Reading the module and running its tests."}, budget_read, budget_test])
    failing = project.pytest_run(rng, [TB], [(TB, "test_refund_counted_once", "assert march.income == Decimal('0')",
                                               "AssertionError: assert Decimal('50.00') == Decimal('0')")])[0]
    log.result(test_b, budget_test["id"], _coloured(failing), is_error=True)
    log.result(read_b, budget_read["id"], project.numbered(files[B]))
    fix = _tool_use(rng, "Edit", {"file_path": f"{CWD}/{B}", "old_string": "            if amount >= 0:\n",
                                  "new_string": "            elif amount >= 0:\n"})
    (fix_row,) = log.response([fix])
    log.result(fix_row, fix["id"], "The file /home/dev/ledgerline/src/ledgerline/budget.py has been updated.")
    # The user stops a long run; Claude Code writes the refusal as the result, then the notice.
    suite = _tool_use(rng, "Bash", {"command": "python -m pytest --slow", "description": "Run the slow suite"})
    (suite_row,) = log.response([suite])
    log.result(suite_row, suite["id"], "[Request interrupted by user for tool use]", is_error=True)
    log.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    log.user("skip the slow suite, just run the budget tests again")
    again = _tool_use(rng, "Bash", {"command": f"python -m pytest {TB} -q", "description": "Run the budget tests"})
    (again_row,) = log.response([again])
    log.result(again_row, again["id"], _coloured(project.pytest_run(rng, [TB], [])[0]))
    log.response([{"type": "text", "text": "Budget tests pass: a refund no longer counts as income."}])
    log.title()
    # Written last, but it answers the call of the abandoned branch (the run finished after the edit).
    log.result(abandoned_call, slow["id"], "1 failed, 48 passed in 3.12s")
    return log.rows


def mini_swe_agent_trajectory(rng: random.Random) -> dict[str, Any]:
    """A mini-swe-agent 2 run with a tool-calling model: bash calls, their outputs, and the exit message."""
    files = dict(project.BASE_FILES)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer shell to solve "
                                      "programming tasks.", "extra": {}},
        {"role": "user", "content": "<pr_description>\nparse_amount('1.005') returns 1.0 instead of 1.01\n</pr_description>\n\n"
                                    "Fix the issue in /testbed (the ledgerline repository). Run one bash command per step. "
                                    "When you are done, run `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff`.",
         "extra": {}},
    ]
    clock = [1775131200.0]

    def step(thought: str, command: str, output: str, returncode: int = 0) -> None:
        call = _id(rng, "call_", 24)
        clock[0] += rng.uniform(2, 12)
        usage = {"prompt_tokens": 1800 + 450 * len(messages), "completion_tokens": rng.randint(40, 220),
                 "total_tokens": 0}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        messages.append({"role": "assistant", "content": thought, "tool_calls": [
            {"id": call, "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": command})}}],
            "extra": {"actions": [{"command": command, "tool_call_id": call}], "response": {"usage": usage},
                      "timestamp": round(clock[0], 3)}})
        messages.append({"role": "tool", "tool_call_id": call,
                         "content": f"<returncode>{returncode}</returncode>\n<output>\n{output}\n</output>",
                         "extra": {"returncode": returncode, "timestamp": round(clock[0] + 0.4, 3)}})

    step("Find parse_amount.", "grep -n 'def parse_amount' -r src", "src/ledgerline/parser.py:36:def parse_amount(raw: str) -> Decimal:")
    step("Look at its body.", "sed -n '30,62p' src/ledgerline/parser.py", "\n".join(files[P].split("\n")[29:62]))
    step("Reproduce.", "python -c \"from ledgerline.parser import parse_amount; print(parse_amount('1.005'))\"", "1.0")
    step("Use Decimal quantize instead of a float round trip.",
         "sed -i 's/value = round(float(text), 2)/value = Decimal(text).quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)/' "
         "src/ledgerline/parser.py && sed -i 's/from decimal import Decimal/from decimal import ROUND_HALF_UP, Decimal/' "
         "src/ledgerline/parser.py", "")
    step("Check and run the parser tests.", f"python -m pytest {TP} -q 2>&1 | tail -2",
         project.pytest_run(rng, [TP], [])[0].split("\n")[-1])
    patch = ("diff --git a/src/ledgerline/parser.py b/src/ledgerline/parser.py\n--- a/src/ledgerline/parser.py\n"
             "+++ b/src/ledgerline/parser.py\n@@ -48 +48 @@\n-        value = round(float(text), 2)\n"
             "+        value = Decimal(text).quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)")
    step("Submit the diff.", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff", f"COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n{patch}")
    messages.append({"role": "exit", "content": patch, "extra": {"exit_status": "Submitted", "submission": patch}})
    return {
        "info": {
            "model_stats": {"instance_cost": 0.0412, "api_calls": 6},
            "config": {"agent": {"step_limit": 250, "cost_limit": 3.0}, "agent_type": "minisweagent.agents.default.DefaultAgent",
                       "model": {"model_name": "anthropic/claude-sonnet-4-5-20250929", "model_kwargs": {"temperature": 0.0}},
                       "model_type": "minisweagent.models.litellm_model.LitellmModel",
                       "environment": {"cwd": "/testbed", "timeout": 60},
                       "environment_type": "minisweagent.environments.docker.DockerEnvironment"},
            "mini_version": "2.0.0",
            "exit_status": "Submitted",
            "submission": patch,
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
    }
