"""Small hand-written transcripts in the layouts agents write today, and raw-row counters for them.

Each fixture reproduces one shape seen in real logs (the shapes are described where each one is
built); the counters read the raw rows on their own, without the importer, so a test can compare
what the rows hold with what ``load`` returns.
"""

from __future__ import annotations

import json
from typing import Any

Record = dict[str, Any]


def jsonl(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


# --------------------------------------------------------------------------------------------
# Claude Code


class ClaudeLog:
    """Writes Claude Code rows: each row's parent is the previous row unless given."""

    def __init__(self, session: str = "sess-1", version: str = "2.1.40", start: int = 0) -> None:
        self.session = session
        self.version = version
        self.rows: list[Record] = []
        self.clock = start
        self.count = 0
        self.last: str | None = None

    def stamp(self) -> str:
        self.clock += 3
        return f"2026-04-01T10:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z"

    def row(self, kind: str, parent: Any = "last", uuid: str | None = None, **extra: Any) -> str:
        self.count += 1
        uuid = uuid or f"{self.session}-{self.count:03d}"
        record: Record = {"parentUuid": self.last if parent == "last" else parent, "isSidechain": False, "type": kind,
                          "uuid": uuid, "sessionId": self.session, "version": self.version, "timestamp": self.stamp()}
        record.update(extra)
        self.rows.append(record)
        self.last = uuid
        return uuid

    def user(self, content: Any, parent: Any = "last", **extra: Any) -> str:
        return self.row("user", parent, message={"role": "user", "content": content}, **extra)

    def response(self, message_id: str, blocks: list[Record], parent: Any = "last", **extra: Any) -> list[str]:
        """One API response, logged one block per row, the rows chained (as 2.x writes it)."""
        uuids = []
        for index, block in enumerate(blocks):
            message = {"id": message_id, "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [block],
                       "usage": {"input_tokens": 10 + index, "output_tokens": 5}}
            uuids.append(self.row("assistant", parent if index == 0 else "last", message=message, **extra))
        return uuids

    def result(self, parent: str, tool_use_id: str, text: str, **extra: Any) -> str:
        return self.user([{"type": "tool_result", "tool_use_id": tool_use_id, "content": text}], parent=parent, **extra)

    def attachment(self, kind: str, parent: Any = "last") -> str:
        return self.row("attachment", parent, attachment={"type": kind, "content": f"{kind} text"})

    def plain(self, record: Record) -> None:
        self.rows.append(record)


def use(call_id: str, name: str = "Bash", **arguments: Any) -> Record:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments or {"command": "ls"}}


def text(value: str) -> Record:
    return {"type": "text", "text": value}


def cc_parallel_attachments() -> list[Record]:
    """A 2.1 session: attachment rows inside the chain, three parallel calls whose results are
    sibling branches (each under its own tool_use row, written in another order), the next turn
    continuing from the last result written, through a hook attachment."""
    log = ClaudeLog()
    log.plain({"type": "queue-operation", "operation": "enqueue", "sessionId": log.session, "timestamp": log.stamp()})
    log.user("Why does the DKB import fail?", parent=None)
    log.attachment("skill_listing")
    log.plain({"type": "file-history-snapshot", "messageId": "snap-1", "snapshot": {}, "isSnapshotUpdate": False})
    _, _, read_row, grep_row, ls_row = log.response("msg_1", [
        {"type": "thinking", "thinking": "Look at the parser.", "signature": "x"},
        text("Reading three things at once."),
        use("toolu_read", "Read", file_path="parser.py"), use("toolu_grep", "Grep", pattern="Datum"), use("toolu_ls")])
    log.result(ls_row, "toolu_ls", "dkb.csv")
    log.attachment("hook_success")
    log.result(grep_row, "toolu_grep", "dkb.csv:1:Buchungstag")
    last = log.result(read_row, "toolu_read", "def parse(): ...")
    log.attachment("hook_additional_context", parent=last)
    log.plain({"type": "ai-title", "aiTitle": "DKB import", "sessionId": log.session})
    (todo_row,) = log.response("msg_2", [use("toolu_todo", "TodoWrite", todos=[])])
    log.result(todo_row, "toolu_todo", "Todos updated")
    log.attachment("todo_reminder")
    log.response("msg_3", [text("DKB uses the column Buchungstag; the parser only knows Datum.")])
    log.plain({"type": "last-prompt", "lastPrompt": "Why does the DKB import fail?", "sessionId": log.session})
    return log.rows


def cc_stray_late_rows() -> list[Record]:
    """An edited prompt leaves an abandoned branch; at the end of the file a late tool result and
    a permission notice point back into it (the last row of the file is not the leaf)."""
    log = ClaudeLog()
    log.user("Fix the parser.", parent=None)
    (edit_row,) = log.response("msg_1", [use("toolu_edit", "Edit", file_path="parser.py")])
    fork = log.result(edit_row, "toolu_edit", "updated")
    log.user("run every test", parent=fork)
    (slow_row,) = log.response("msg_2", [use("toolu_slow", command="pytest")])
    log.user("run only the parser tests", parent=fork)
    (fast_row,) = log.response("msg_3", [use("toolu_fast", command="pytest tests/test_parser.py")])
    log.result(fast_row, "toolu_fast", "14 passed")
    log.response("msg_4", [text("Parser tests pass.")])
    log.result(slow_row, "toolu_slow", "1 failed, 48 passed")  # written last, after the edit
    log.row("system", parent=slow_row, subtype="informational", content="Permission granted", level="info")
    return log.rows


def cc_inline_sidechains() -> list[Record]:
    """A 1.0 session: two Task calls in parallel whose subagent runs are written inline, as
    sidechain rows without agentId, each run starting at its own ``parentUuid: null`` row."""
    log = ClaudeLog(version="1.0.108")
    log.user("Study the project.", parent=None)
    (task_a, task_b) = log.response("msg_1", [use("toolu_task_a", "Task", prompt="Read package.json"),
                                             use("toolu_task_b", "Task", prompt="List the folders")])

    def run(prompt: str, call: str, answer: str, message_id: str) -> None:
        first = log.row("user", None, isSidechain=True, message={"role": "user", "content": prompt})
        (tool_row,) = log.response(message_id + "a", [use(call, "Read")], parent=first, isSidechain=True)
        done = log.result(tool_row, call, "contents", isSidechain=True)
        log.response(message_id + "b", [text(answer)], parent=done, isSidechain=True)

    run("Read package.json", "toolu_side_1", "It is a Next.js app.", "msg_s1")
    run("List the folders", "toolu_side_2", "There are src and tests.", "msg_s2")
    first = log.result(task_b, "toolu_task_a", "It is a Next.js app.")
    log.result(first, "toolu_task_b", "There are src and tests.")
    log.response("msg_2", [text("A Next.js app with src and tests.")])
    return log.rows


def cc_local_commands_and_interrupts(new_style: bool) -> list[Record]:
    """Rows that are not separate user turns for the model: an interrupted call (its refusal as
    the result, then the notice), the local-command caveat (isMeta), the command and its output
    (user rows in 1.x, ``system`` ``local_command`` rows in 2.x), then the next prompt."""
    log = ClaudeLog(version="2.1.40" if new_style else "1.0.98")
    log.user("Run the slow suite.", parent=None)
    (run_row,) = log.response("msg_1", [use("toolu_slow", command="pytest --slow")])
    log.result(run_row, "toolu_slow", "[Request interrupted by user for tool use]")
    log.user([text("[Request interrupted by user for tool use]")])
    log.user("Caveat: The messages below were generated by the user while running local commands. DO NOT respond to "
             "these messages or otherwise consider them in your response unless the user explicitly asks you to.", isMeta=True)
    command = "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>"
    stdout = "<local-command-stdout>Set model to opus</local-command-stdout>"
    if new_style:
        log.row("system", subtype="local_command", content=command, level="info")
        log.row("system", subtype="local_command", content=stdout, level="info")
    else:
        log.user(command)
        log.user(stdout)
    log.user("Just run the parser tests.")
    (fast_row,) = log.response("msg_2", [use("toolu_fast", command="pytest tests/test_parser.py")])
    log.result(fast_row, "toolu_fast", "\x1b[32m14 passed\x1b[0m in 0.3s")
    log.response("msg_3", [text("They pass.")])
    return log.rows


def cc_subagent_file() -> list[Record]:
    """A 2.1 subagent file (``subagents/agent-<id>.jsonl``): every row a sidechain with the agentId,
    four parallel reads whose results hang under their own tool_use rows."""
    log = ClaudeLog(session="sess-main")
    extra = {"isSidechain": True, "agentId": "a1b2c3"}
    log.user("Read the four reports.", parent=None, **extra)
    log.attachment("skill_listing")
    log.rows[-1].update(extra)
    rows = log.response("msg_1", [text("Reading all four.")] + [use(f"toolu_r{i}", "Read", file_path=f"r{i}.md") for i in range(4)],
                        **extra)
    last = None
    for i in (2, 0, 3, 1):
        last = log.result(rows[i + 1], f"toolu_r{i}", f"report {i}", **extra)
    log.response("msg_2", [text("All four read.")], parent=last, **extra)
    return log.rows


def cc_parent_loop() -> list[Record]:
    """Three rows whose parentUuid links form a loop (no root at all)."""
    return [
        {"type": "user", "uuid": "a", "parentUuid": "c", "sessionId": "s", "message": {"role": "user", "content": "one"}},
        {"type": "assistant", "uuid": "b", "parentUuid": "a", "sessionId": "s",
         "message": {"id": "m1", "role": "assistant", "content": [text("two")]}},
        {"type": "user", "uuid": "c", "parentUuid": "b", "sessionId": "s", "message": {"role": "user", "content": "three"}},
    ]


def claude_pairs(records: list[Record], sidechain: bool | None = False) -> set[str]:
    """Tool call ids that have both a tool_use and a tool_result in the rows (of the main chain or the sidechains)."""
    uses: set[str] = set()
    results: set[str] = set()
    for record in records:
        if sidechain is not None and bool(record.get("isSidechain")) != sidechain:
            continue
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if record.get("type") == "assistant" and block.get("type") == "tool_use":
                uses.add(block["id"])
            if record.get("type") == "user" and block.get("type") == "tool_result":
                results.add(block["tool_use_id"])
    return uses & results


def claude_texts(records: list[Record], sidechain: bool = False) -> list[str]:
    """Every text the user or the model wrote in the rows (tool results and thinking aside)."""
    found = []
    for record in records:
        if record.get("type") not in ("user", "assistant") or bool(record.get("isSidechain")) != sidechain:
            continue
        content = record["message"]["content"]
        if isinstance(content, str):
            found.append(content)
        else:
            found += [b["text"] for b in content if b.get("type") == "text"]
    return found


# --------------------------------------------------------------------------------------------
# Codex (the rollout layout of mid 2025)


def codex_aug_2025() -> list[Record]:
    """A header line, state markers and bare Responses items (no envelope), with the context
    Codex injects itself, a parallel pair of calls, a custom tool and reasoning."""
    return [
        {"id": "0198c1f2-aaaa-7bbb-8ccc-123456789abc", "timestamp": "2025-08-20T13:20:47.060Z",
         "instructions": "You are Codex, based on GPT-5.", "git": {"commit_hash": "abc123", "branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>\n\n# AGENTS.md\nRun pytest.\n\n</user_instructions>"}]},
        {"type": "message", "id": None, "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}]},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": "Fix the rounding bug."}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look first."}], "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_1", "name": "shell", "arguments": '{"command":["rg","round"]}', "call_id": "call_1"},
        {"type": "function_call", "id": "fc_2", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": "call_2"},
        {"type": "function_call_output", "call_id": "call_1", "output": '{"output":"parser.py:48","metadata":{"exit_code":0}}'},
        {"type": "function_call_output", "call_id": "call_2", "output": '{"output":"src tests","metadata":{"exit_code":0}}'},
        {"type": "custom_tool_call", "id": "ctc_1", "name": "apply_patch", "call_id": "call_3",
         "input": "*** Begin Patch\n*** Update File: parser.py\n*** End Patch"},
        {"type": "custom_tool_call_output", "call_id": "call_3", "output": "Done"},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
    ]


def responses_pairs(items: list[Record]) -> set[str]:
    calls = {i["call_id"] for i in items if i.get("type") in ("function_call", "custom_tool_call")}
    outputs = {i["call_id"] for i in items if i.get("type") in ("function_call_output", "custom_tool_call_output")}
    return calls & outputs


# --------------------------------------------------------------------------------------------
# OpenHands 2024 (evaluation output.jsonl, resolver output)

NULL_OBSERVATION = {"message": "No observation", "observation": "null", "content": "", "extras": {}}


def openhands_eval_output() -> list[Record]:
    """Two lines of a 2024 evaluation ``output.jsonl``: histories of ``[action, observation]``
    pairs without ids, sources or tool_call_metadata; messages paired with null observations."""
    def instance(instance_id: str, steps: int) -> Record:
        history: list[Any] = [
            [{"action": "message", "args": {"content": f"Solve {instance_id}.", "images_urls": None, "wait_for_response": False},
              "message": f"Solve {instance_id}."}, NULL_OBSERVATION],
        ]
        for step in range(steps):
            history.append([
                {"action": "run", "args": {"command": f"ls step{step}", "background": False, "thought": f"step {step}"},
                 "message": f"Running command: ls step{step}"},
                {"observation": "run", "content": f"files of step {step}", "extras": {"command_id": -1, "command": f"ls step{step}",
                                                                                      "exit_code": 0}, "message": "ok"},
            ])
        history.append([{"action": "message", "args": {"content": "Which file?", "wait_for_response": True}, "message": "Which file?"},
                        NULL_OBSERVATION])
        history.append([{"action": "message", "args": {"content": "Please continue.", "wait_for_response": False},
                         "message": "Please continue."}, NULL_OBSERVATION])
        history.append([{"action": "finish", "args": {"outputs": {}, "thought": "Done."}, "message": "All done."},
                        NULL_OBSERVATION])
        return {"instance_id": instance_id, "instruction": f"Solve {instance_id}.", "history": history,
                "metrics": {"accumulated_cost": 0.1}, "error": None, "test_result": {"git_patch": "diff"}}

    return [instance("astropy__astropy-12907", 2), instance("django__django-11099", 3)]


def openhands_resolver_output() -> Record:
    """A 2024 resolver output line: flat events with ids and sources, observations linked by
    ``cause``, no tool_call_metadata."""
    return {
        "issue": {"owner": "acme", "repo": "ledger", "number": 42, "title": "Rounding", "body": "1.005 → 1.0"},
        "issue_type": "issue", "instruction": "Fix issue #42", "base_commit": "abc", "git_patch": "diff",
        "history": [
            {"id": 0, "timestamp": "2024-10-01T10:00:00", "source": "user", "message": "Fix issue #42", "action": "message",
             "args": {"content": "Fix issue #42", "images_urls": None, "wait_for_response": False}},
            {"id": 1, "source": "agent", "action": "run", "args": {"command": "pytest", "thought": "Reproduce."},
             "message": "Running command: pytest"},
            {"id": 2, "source": "agent", "action": "read", "args": {"path": "parser.py", "thought": ""}, "message": "Reading"},
            {"id": 3, "source": "agent", "cause": 2, "observation": "read", "content": "def parse(): ...", "extras": {"path": "parser.py"}},
            {"id": 4, "source": "agent", "cause": 1, "observation": "run", "content": "1 failed", "extras": {"exit_code": 1}},
            {"id": 5, "source": "agent", "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "running"}},
            {"id": 6, "source": "agent", "action": "finish", "args": {"outputs": {}, "thought": "Fixed it."}, "message": "Done"},
        ],
        "metrics": {}, "success": True, "comment_success": None, "success_explanation": "fixed", "error": None,
    }


def openhands_pairs(history: list[Any]) -> int:
    """Actions answered by a real observation (not a null one), counted from the raw history."""
    count = 0
    events = [e for item in history for e in (item if isinstance(item, list) else [item])]
    for position, event in enumerate(events):
        if event.get("action") in (None, "message", "finish", "system"):
            continue
        if isinstance(history[0], list):  # pairs: the observation is the next event
            answered = events[position + 1].get("observation") not in (None, "null")
        else:
            answered = any(e.get("cause") == event.get("id") for e in events if "observation" in e)
        count += answered
    return count


# --------------------------------------------------------------------------------------------
# Hermes gateway, mini-swe-agent


def hermes_gateway_without_meta() -> list[Record]:
    """A gateway transcript whose session_meta line is missing (a resumed or cut session)."""
    return [
        {"role": "user", "content": "deploy it", "timestamp": "2025-05-01T10:00:00.120000"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": '{"command": "make deploy"}'}}],
         "timestamp": "2025-05-01T10:00:02.500000", "finish_reason": "tool_calls", "reasoning": "Run make."},
        {"role": "tool", "tool_call_id": "call_1", "tool_name": "terminal", "content": '{"exit_code": 0}',
         "timestamp": "2025-05-01T10:00:09.000000"},
        {"role": "assistant", "content": "Deployed.", "timestamp": "2025-05-01T10:00:10.000000", "finish_reason": "stop"},
    ]


def mini_swe_agent_v1() -> Record:
    """A mini-swe-agent trajectory of the text-based agent, ending with the ``exit`` message, plus
    one message of a role no chat API knows."""
    return {
        "info": {"exit_status": "Submitted", "submission": "diff --git a/x b/x", "model_stats": {"instance_cost": 0.01, "api_calls": 2},
                 "mini_version": "1.9.0", "config": {"model": {"model_name": "gpt-4o-mini"}}},
        "messages": [
            {"role": "system", "content": "You are a helpful assistant that can interact with a computer."},
            {"role": "user", "content": "<pr_description>Fix rounding</pr_description>"},
            {"role": "assistant", "content": "THOUGHT: look.\n\n```bash\nrg round\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\nparser.py:48\n</output>"},
            {"role": "critic", "content": "Looks fine."},
            {"role": "assistant", "content": "THOUGHT: done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n</output>"},
            {"role": "exit", "content": "diff --git a/x b/x", "extra": {"exit_status": "Submitted", "submission": "diff --git a/x b/x"}},
        ],
        "trajectory_format": "mini-swe-agent-1",
    }
