"""Samples of what OpenCode and Cline keep on disk: OpenCode sessions (its store and ``opencode export``)
and a Cline task folder.

OpenCode rows follow ``session.sql.ts`` (``session`` / ``message`` / ``part`` tables, the message
``info`` and the parts as JSON in ``data``) and ``message-v2.ts`` (part types); the Cline task follows
what the extension writes: Anthropic messages with ``modelInfo`` / ``metrics``, the panel's
``ui_messages.json`` and ``task_metadata.json``.
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import project
from sessions import TB, TP, B, P, _id

CWD = "/home/dev/ledgerline"
MODEL = {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}


class _OpenCode:
    """Writes OpenCode sessions; ids grow with time, as OpenCode's do (parts are ordered by id)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ms = 1779100000000
        self.counter = 0x95521b000000
        self.sessions: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []  # {"id", "session_id", "time", "info", "parts": [...]}

    def id(self, prefix: str) -> str:
        self.counter += self.rng.randint(3, 40)
        return f"{prefix}_{self.counter:012x}" + _id(self.rng, "", 14)

    def tick(self, low: int = 400, high: int = 9000) -> int:
        self.ms += self.rng.randint(low, high)
        return self.ms

    def session(self, title: str, parent: str | None = None) -> dict[str, Any]:
        item = {"id": self.id("ses"), "projectID": "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750", "directory": CWD,
                "title": title, "version": "1.2.27", "time": {"created": self.tick(), "updated": self.ms}}
        if parent:
            item["parentID"] = parent
        self.sessions.append(item)
        return item

    def user(self, session: dict[str, Any], parts: list[dict[str, Any]]) -> str:
        message_id = self.id("msg")
        info = {"role": "user", "time": {"created": self.tick()}, "agent": "build", "model": MODEL}
        self.messages.append({"id": message_id, "session": session, "info": info,
                              "parts": [{"id": self.id("prt"), **part} for part in parts]})
        session["time"]["updated"] = self.ms
        return message_id

    def assistant(self, session: dict[str, Any], parent: str, steps: list[list[dict[str, Any]]], *,
                  error: dict[str, Any] | None = None, summary: bool = False) -> str:
        message_id = self.id("msg")
        created = self.tick()
        parts: list[dict[str, Any]] = []
        total = {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}
        cost = 0.0
        for step in steps:
            parts.append({"id": self.id("prt"), "type": "step-start", "snapshot": _id(self.rng, "", 40, "0123456789abcdef")})
            parts += [{"id": self.id("prt"), **part} for part in step]
            if error is None:
                tokens = {"input": self.rng.randint(3, 60), "output": self.rng.randint(40, 700), "reasoning": self.rng.randint(0, 300),
                          "cache": {"read": 9000 + 900 * len(self.messages), "write": self.rng.randint(200, 2500)}}
                step_cost = round(tokens["cache"]["read"] * 3e-7 + tokens["output"] * 1.5e-5, 6)
                parts.append({"id": self.id("prt"), "type": "step-finish", "reason": "tool-calls" if step and step[-1]["type"] == "tool" else "stop",
                              "snapshot": _id(self.rng, "", 40, "0123456789abcdef"), "cost": step_cost, "tokens": tokens})
                total = {**tokens}
                cost += step_cost
        info: dict[str, Any] = {"role": "assistant", "time": {"created": created, "completed": self.tick()}, "parentID": parent,
                                **MODEL, "mode": "build", "agent": "build", "path": {"cwd": CWD, "root": CWD},
                                "cost": round(cost, 6), "tokens": total, "finish": "stop"}
        if error is not None:
            info["error"] = error
            del info["finish"]
        if summary:
            info["summary"] = True
        self.messages.append({"id": message_id, "session": session, "info": info, "parts": parts})
        session["time"]["updated"] = self.ms
        return message_id

    def tool(self, name: str, arguments: dict[str, Any], output: str, title: str, *, cleared: bool = False) -> dict[str, Any]:
        start = self.tick(50, 400)
        time = {"start": start, "end": self.tick(80, 3000)}
        if cleared:
            time["compacted"] = self.ms + 600000
        return {"type": "tool", "callID": _id(self.rng, "toolu_01", 22), "tool": name,
                "state": {"status": "completed", "input": arguments, "output": output, "title": title,
                          "metadata": {"truncated": False}, "time": time}}

    def text(self, text: str) -> dict[str, Any]:
        return {"type": "text", "text": text, "time": {"start": self.tick(50, 300), "end": self.ms + 40}}

    def reasoning(self, text: str) -> dict[str, Any]:
        return {"type": "reasoning", "text": text, "time": {"start": self.tick(50, 300), "end": self.ms + 900}}


def _read_output(path: str) -> str:
    return f"<file>\n{project.numbered(project.BASE_FILES[path])}\n</file>"


def opencode_sessions(rng: random.Random) -> _OpenCode:
    """Three OpenCode sessions: a short one whose last prompt was reverted, a longer one with a pasted
    screenshot, a subagent, a failed call, a cleared tool output and an automatic compaction, and the subagent's."""
    oc = _OpenCode(rng)
    first = oc.session("Accept DKB's booking date column")
    ask = oc.user(first, [oc.text("DKB imports fail with 'unknown date format'. Fix the parser.")])
    old, new = 'row.get("Datum") or ""', 'row.get("Datum") or row.get("Buchungstag") or ""'
    oc.assistant(first, ask, [
        [oc.reasoning("The date column lookup probably misses DKB's header."), oc.tool("read", {"filePath": f"{CWD}/{P}"}, _read_output(P), P)],
        [oc.tool("edit", {"filePath": f"{CWD}/{P}", "oldString": old, "newString": new}, "Edit applied successfully.", P),
         {"type": "patch", "hash": _id(rng, "", 40, "0123456789abcdef"), "files": [f"{CWD}/{P}"]}],
        [oc.text("The parser now accepts DKB's `Buchungstag` column.")],
    ])
    again = oc.user(first, [oc.text("Also accept 'Valuta'.")])
    oc.assistant(first, again, [[oc.text("Adding `Valuta` as another date column.")]])
    first["revert"] = {"messageID": again, "snapshot": _id(rng, "", 40, "0123456789abcdef")}

    main = oc.session("Refund counted twice in the March budget")
    png = "data:image/png;base64," + base64.b64encode(project.png_bytes(160, 100, 411)).decode("ascii")
    notes = "March: the Amazon refund of 50.00 shows as income and as a refund."
    ask = oc.user(main, [
        oc.text("The refund is counted twice, see the screenshot and my notes."),
        {"type": "file", "mime": "image/png", "filename": "budget.png", "url": png},
        {"type": "text", "synthetic": True, "text": f'Called the Read tool with the following input: {{"filePath":"{CWD}/notes.txt"}}'},
        {"type": "text", "synthetic": True, "text": f"<file>\n00001| {notes}\n</file>"},
        {"type": "file", "mime": "text/plain", "filename": "notes.txt", "url": f"file://{CWD}/notes.txt"},
    ])
    sub = oc.session("Find where refunds are handled (@explore subagent)", parent=main["id"])
    failing = project.pytest_run(rng, [TB], [(TB, "test_refund_counted_once", "assert march.income == Decimal('0')",
                                              "AssertionError: assert Decimal('50.00') == Decimal('0')")])[0]
    oc.assistant(main, ask, [
        [oc.reasoning("Find every place refunds are handled before touching the budget."),
         oc.tool("task", {"description": "Find refund handling", "prompt": "List every place that handles refunds.",
                          "subagent_type": "explore"},
                 "budget.py:29 `if tx.is_refund:` adds to refunds; budget.py:31 `if amount >= 0:` adds to income.",
                 "Find refund handling")],
        [oc.text("Both branches run for a refund. Running the budget tests to confirm."),
         oc.tool("bash", {"command": f"python -m pytest {TB} -q", "description": "Run the budget tests"}, failing, "Run the budget tests")],
    ])
    explore = oc.user(sub, [oc.text("List every place that handles refunds.")])
    oc.assistant(sub, explore, [
        [oc.tool("grep", {"pattern": "is_refund|refund"}, "src/ledgerline/budget.py:29: if tx.is_refund:\n"
                                                          "src/ledgerline/parser.py:44: def is_refund(self) -> bool:", "refund")],
        [oc.text("budget.py:29 `if tx.is_refund:` adds to refunds; budget.py:31 `if amount >= 0:` adds to income.")],
    ])
    fix = oc.user(main, [oc.text("Fix it with the smallest change.")])
    oc.assistant(main, fix, [[]], error={"name": "APIError", "data": {"message": "Overloaded", "statusCode": 529,
                                                                     "isRetryable": True}})
    passing = project.pytest_run(rng, [TB], [])[0]
    oc.assistant(main, fix, [
        [oc.tool("edit", {"filePath": f"{CWD}/{B}", "oldString": "            if amount >= 0:",
                          "newString": "            elif amount >= 0:"}, "Edit applied successfully.", B)],
        [oc.tool("bash", {"command": f"python -m pytest {TB} -q", "description": "Run the budget tests"}, passing,
                 "Run the budget tests", cleared=True)],
        [oc.text("A refund now counts once: the second branch is an `elif`. The budget tests pass.")],
    ])
    compaction = oc.user(main, [{"type": "compaction", "auto": True}])
    oc.assistant(main, compaction, [[oc.text(
        "## Summary\nThe user reported a refund counted twice in the March budget. `budget.py` added refunds to both "
        "income and refunds; the second branch is now `elif`. Budget tests pass.\n## Next\nNothing pending.")]],
        summary=True)
    changelog = oc.user(main, [oc.text("Add a line to CHANGELOG.md for this.")])
    oc.assistant(main, changelog, [
        [oc.tool("edit", {"filePath": f"{CWD}/CHANGELOG.md", "oldString": "## Unreleased\n",
                          "newString": "## Unreleased\n\n- A refund is counted once in monthly budgets.\n"},
                 "Edit applied successfully.", "CHANGELOG.md")],
        [oc.text("Added under *Unreleased*.")],
    ])
    return oc


def write_opencode_db(path: Path, oc: _OpenCode) -> None:
    """The sessions as OpenCode's store (the tables of ``session.sql.ts``; plain rollback journal)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, time_created INTEGER, "
                 "time_updated INTEGER)")
    conn.execute("CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id), "
                 "workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, "
                 "title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, cost REAL NOT NULL DEFAULT 0, "
                 "tokens_input INTEGER NOT NULL DEFAULT 0, tokens_output INTEGER NOT NULL DEFAULT 0, revert TEXT, "
                 "agent TEXT, model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, "
                 "time_compacting INTEGER, time_archived INTEGER)")
    conn.execute("CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id), "
                 "time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)")
    conn.execute("CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id), "
                 "session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)")
    conn.execute("CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL, "
                 "priority TEXT NOT NULL, position INTEGER NOT NULL, time_created INTEGER, time_updated INTEGER)")
    conn.execute("CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id)")
    conn.execute("CREATE INDEX part_message_id_id_idx ON part (message_id, id)")
    conn.execute("INSERT INTO project VALUES (?, ?, 'git', ?, ?)", (oc.sessions[0]["projectID"], CWD, oc.sessions[0]["time"]["created"],
                                                                   oc.ms))
    for item in oc.sessions:
        conn.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, revert, agent, model, "
                     "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'build', ?, ?, ?)",
                     (item["id"], item["projectID"], item.get("parentID"), item["title"].lower().split()[0], item["directory"],
                      item["title"], item["version"], json.dumps(item["revert"]) if "revert" in item else None,
                      json.dumps({"id": MODEL["modelID"], "providerID": MODEL["providerID"]}), item["time"]["created"],
                      item["time"]["updated"]))
    for message in oc.messages:
        created = message["info"]["time"]["created"]
        conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                     (message["id"], message["session"]["id"], created, created, json.dumps(message["info"], ensure_ascii=False)))
        for part in message["parts"]:
            data = {key: value for key, value in part.items() if key != "id"}
            conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (part["id"], message["id"], message["session"]["id"],
                                                                     created, created, json.dumps(data, ensure_ascii=False)))
    conn.execute("INSERT INTO todo VALUES (?, 'Add a CHANGELOG line', 'completed', 'low', 0, NULL, NULL)", (oc.sessions[1]["id"],))
    conn.commit()
    conn.close()


def opencode_export(oc: _OpenCode, index: int = 0) -> dict[str, Any]:
    """``opencode export <id>`` of one session: its info, then each message's info and parts."""
    item = oc.sessions[index]
    messages = []
    for message in oc.messages:
        if message["session"] is item:
            info = {"id": message["id"], "sessionID": item["id"], **message["info"]}
            parts = [{"id": p["id"], "sessionID": item["id"], "messageID": message["id"],
                      **{k: v for k, v in p.items() if k != "id"}} for p in message["parts"]]
            messages.append({"info": info, "parts": parts})
    return {"info": item, "messages": messages}


# ---------------------------------------------------------------------------------------------
# A Cline task folder


ENVIRONMENT = ("<environment_details>\n# Visual Studio Code Visible Files\nsrc/ledgerline/cli.py\n\n# Visual Studio Code "
               "Open Tabs\nsrc/ledgerline/cli.py\nsrc/ledgerline/budget.py\n\n# Current Time\n{time}\n\n# Current Mode\nACT MODE\n"
               "</environment_details>")
INFO = {"modelId": "claude-sonnet-4-5-20250929", "providerId": "anthropic", "mode": "act"}


def cline_task(rng: random.Random) -> dict[str, Any]:
    """A Cline 3.4 task: native tool calls (results as tool_result blocks, one as the extension's text
    fallback), an automatic compaction with summarize_task, feedback on a completion, and the panel's records."""
    history: list[dict[str, Any]] = []
    panel: list[dict[str, Any]] = []
    ts = [1779300000000]
    prompt = [9800]

    def now(step: int = 0) -> int:
        ts[0] += step or rng.randint(800, 9000)
        return ts[0]

    def env() -> dict[str, Any]:
        minute = (ts[0] // 60000) % 60
        return {"type": "text", "text": ENVIRONMENT.format(time=f"5/20/2026, 2:{minute:02d}:11 PM (Europe/Berlin, UTC+2:00)")}

    def say(kind: str, text: str | None = None, ask: bool = False, **extra: Any) -> None:
        record: dict[str, Any] = {"ts": now(), "type": "ask" if ask else "say", ("ask" if ask else "say"): kind}
        if text is not None:
            record["text"] = text
        record.update(extra)
        # The extension stamps the history length less one: while a response streams (before the
        # assistant message is stored) that is the user message it answers.
        streaming = bool(history) and history[-1]["role"] == "assistant" and kind not in ("api_req_started", "checkpoint_created", "task_progress")
        record.setdefault("conversationHistoryIndex", len(history) - (2 if streaming else 1))
        if not ask:
            record["modelInfo"] = INFO
        panel.append(record)

    def request(request_text: str, deleted: list[int] | None = None) -> None:
        say("checkpoint_created", lastCheckpointHash=_id(rng, "", 40, "0123456789abcdef"), isCheckpointCheckedOut=False)
        prompt[0] += rng.randint(900, 3500)
        usage = {"tokensIn": rng.randint(3, 12), "tokensOut": rng.randint(60, 700), "cacheWrites": rng.randint(300, 3000),
                 "cacheReads": prompt[0], "cost": round(prompt[0] * 3e-7 + 0.004, 6)}
        extra = {"conversationHistoryDeletedRange": deleted} if deleted else {}
        say("api_req_started", json.dumps({"request": request_text[:200], **usage}), **extra)

    def assistant(blocks: list[dict[str, Any]], thinking: str | None = None) -> None:
        content = ([{"type": "thinking", "thinking": thinking, "signature": _id(rng, "Eq", 64), "summary": []}] if thinking else [])
        content += blocks
        history.append({"role": "assistant", "content": content, "modelInfo": INFO,
                        "metrics": {"tokens": {"prompt": rng.randint(3, 12), "completion": rng.randint(60, 700),
                                               "cached": prompt[0]}, "cost": round(prompt[0] * 3e-7, 6)}})
        if thinking:
            say("reasoning", thinking, partial=False)

    def use(name: str, arguments: dict[str, Any]) -> str:
        call_id = _id(rng, "toolu_01", 22)
        history[-1]["content"].append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
        return call_id

    def result(call_id: str, text: str, feedback: str | None = None, as_text: bool = False,
               deleted: list[int] | None = None) -> None:
        """The tool's result as the next user message, after the request that sends it is recorded."""
        request(text.split("\n", 1)[0], deleted)
        block = {"type": "text", "text": text} if as_text else {"type": "tool_result", "tool_use_id": call_id, "content": text}
        content = [block] + ([{"type": "text", "text": feedback}] if feedback else []) + [env()]
        history.append({"role": "user", "content": content})

    task = "The `report` command crashes on an empty statement file. Make it print an empty table instead."
    say("text", task)
    request(f"<task>\n{task}\n</task>")
    history.append({"role": "user", "content": [{"type": "text", "text": f"<task>\n{task}\n</task>"}, env()]})
    assistant([{"type": "text", "text": "I'll read the CLI first."}], "The crash is probably in build_reports on no rows.")
    read = use("read_file", {"path": "src/ledgerline/cli.py", "task_progress": "- [ ] Reproduce\n- [ ] Fix\n- [ ] Test"})
    say("text", "I'll read the CLI first.", partial=False)
    say("tool", json.dumps({"tool": "readFile", "path": "src/ledgerline/cli.py", "content": f"{CWD}/src/ledgerline/cli.py"}))
    say("task_progress", "- [ ] Reproduce\n- [ ] Fix\n- [ ] Test")
    result(read, f"[read_file for 'src/ledgerline/cli.py'] Result:\n{project.BASE_FILES['src/ledgerline/cli.py']}")
    command = "python -m ledgerline.cli report tests/data/empty.csv"
    assistant([{"type": "text", "text": "Reproducing with an empty file."}])
    run = use("execute_command", {"command": command, "requires_approval": False})
    say("command", command, ask=True)
    crash = ("Traceback (most recent call last):\n  File \"src/ledgerline/budget.py\", line 52, in render_table\n"
             "    width = max(len(r.month) for r in reports)\nValueError: max() arg is an empty sequence")
    say("command_output", crash, ask=True)
    # The extension could not map this call's id and wrote its result as text, as it falls back to.
    result(run, f"[execute_command for '{command}'] Result:\nCommand executed.\nOutput:\n{crash}", as_text=True)
    diff = ("------- SEARCH\n    width = max(len(r.month) for r in reports)\n=======\n"
            "    width = max((len(r.month) for r in reports), default=5)\n+++++++ REPLACE")
    assistant([], "render_table takes the max over no reports.")
    edit = use("replace_in_file", {"path": B, "diff": diff})
    say("tool", json.dumps({"tool": "editedExistingFile", "path": B, "content": diff}))
    result(edit, f"[replace_in_file for '{B}'] Result:\nThe content was successfully saved to {B}.")
    context = ("1. Primary Request and Intent:\n   The report command must print an empty table for an empty statement.\n"
               "2. Key Technical Concepts:\n   - render_table computes column widths with max()\n"
               "3. Files and Code Sections:\n   - src/ledgerline/budget.py: max(..., default=5)\n"
               "8. Current Work:\n   Verify with the tests.\n9. Required Files:\n  - src/ledgerline/budget.py")
    assistant([])
    summarize = use("summarize_task", {"context": context})
    say("tool", json.dumps({"tool": "summarizeTask", "content": context}))
    result(summarize, "[summarize_task] Result:\nThis session is being continued from a previous conversation that ran out "
                      f"of context. The conversation is summarized below:\n{context}\n\nPlease continue the conversation "
                      "from where we left off without asking the user any further questions.", deleted=[2, 6])
    assistant([{"type": "text", "text": "Running the tests to verify."}])
    tests = use("execute_command", {"command": f"python -m pytest {TB} -q", "requires_approval": False})
    say("command", f"python -m pytest {TB} -q", ask=True)
    output = project.pytest_run(rng, [TB], [])[0]
    say("command_output", output, ask=True)
    result(tests, f"[execute_command for 'python -m pytest {TB} -q'] Result:\nCommand executed.\nOutput:\n{output}",
           deleted=[2, 6])
    done = "An empty statement now prints an empty table: render_table uses max(..., default=5)."
    assistant([])
    completion = use("attempt_completion", {"result": done})
    say("completion_result", done)
    say("completion_result", "", ask=True)
    say("user_feedback", "Also add a test for it.")
    result(completion, "[attempt_completion] Result:\nThe user has provided feedback on the results. Consider their input "
                       "to continue the task, and then attempt completion again.",
           feedback="<feedback>\nAlso add a test for it.\n</feedback>", deleted=[2, 6])
    test = ("\n\ndef test_render_table_empty():\n    assert render_table([]).startswith('Month')\n")
    assistant([{"type": "text", "text": "Adding a test for the empty table."}])
    write = use("write_to_file", {"path": TP.replace("parser", "report"), "content": test})
    say("tool", json.dumps({"tool": "newFileCreated", "path": TP.replace("parser", "report"), "content": test}))
    result(write, f"[write_to_file for '{TP.replace('parser', 'report')}'] Result:\nThe content was successfully saved.",
           deleted=[2, 6])
    assistant([])
    use("attempt_completion", {"result": "Added tests/test_report.py::test_render_table_empty."})
    say("completion_result", "Added tests/test_report.py::test_render_table_empty.")
    metadata = {
        "files_in_context": [{"path": path, "record_state": "active", "record_source": source, "cline_read_date": now(),
                              "cline_edit_date": now() if source != "read_tool" else None, "user_edit_date": None}
                             for path, source in (("src/ledgerline/cli.py", "read_tool"), (B, "cline_edited"),
                                                  (TP.replace("parser", "report"), "cline_edited"))],
        "model_usage": [{"ts": panel[0]["ts"], "model_id": INFO["modelId"], "model_provider_id": "anthropic", "mode": "act"}],
        "environment_history": [{"ts": panel[0]["ts"], "os_name": "linux", "os_version": "6.8.0", "os_arch": "x64",
                                 "host_name": "Visual Studio Code", "host_version": "1.104.1", "cline_version": "3.41.0"}],
    }
    return {"api_conversation_history.json": history, "ui_messages.json": panel, "task_metadata.json": metadata}
