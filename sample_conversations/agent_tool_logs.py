"""Samples of two agents' own session logs: Gemini CLI (both layouts) and GitHub Copilot CLI.

Written from the tools' record types (Gemini CLI's ``ConversationRecord`` / ``MessageRecord`` and
its JSONL log of re-written records, ``$set`` and ``$rewindTo`` rows; the Copilot SDK's
``session-events``): the same ledgerline work as the other samples.
"""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import project
from sessions import TB, TP, B, P, _id, _uuid

CWD = "/home/dev/ledgerline"
PROJECT_HASH = "5d41e0c8a1b7f3d92c4e6a8b0f1d3e5a7c9b2d4f6e8a0c1e3b5d7f9a2c4e6b8d"


class _Clock:
    def __init__(self, rng: random.Random, day: str, hour: int) -> None:
        self.rng, self.day, self.hour, self.seconds = rng, day, hour, 0

    def __call__(self, step: int | None = None) -> str:
        self.seconds += step if step is not None else self.rng.randint(2, 14)
        minutes, second = divmod(self.seconds, 60)
        return f"{self.day}T{self.hour + minutes // 60:02d}:{minutes % 60:02d}:{second:02d}.{self.rng.randint(0, 999):03d}Z"


def _tokens(rng: random.Random, prompt: int, cached: int) -> dict[str, int]:
    output, thoughts = rng.randint(20, 420), rng.randint(60, 900)
    return {"input": prompt, "output": output, "cached": cached, "thoughts": thoughts, "tool": 0,
            "total": prompt + output + thoughts}


def _shell_output(command: str, output: str, code: int) -> str:
    return (f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\nExit Code: {code}\n"
            "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 41733")


def _gemini_call(rng: random.Random, clock: _Clock, name: str, args: dict[str, Any], output: str, *,
                 display: str, description: str, status: str = "success", error: bool = False) -> dict[str, Any]:
    call_id = f"{name}-{1760000000000 + rng.randint(0, 10**8)}-{_id(rng, '', 13, '0123456789abcdef')}"
    response = {"error": output} if error else {"output": output}
    return {"id": call_id, "name": name, "args": args,
            "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}],
            "status": status, "timestamp": clock(), "displayName": display, "description": description,
            "renderOutputAsMarkdown": name != "run_shell_command", "resultDisplay": output if error else ""}


def gemini_cli_session(rng: random.Random) -> dict[str, Any]:
    """A Gemini CLI 0.9 session file (one JSON record): thoughts, tool calls with their results, a pasted
    screenshot, two parallel calls, a cancelled edit, info and error notices, tokens on every response."""
    files = dict(project.BASE_FILES)
    clock = _Clock(rng, "2025-10-14", 9)
    start = clock(0)
    messages: list[dict[str, Any]] = []
    prompt = [9120]

    def user(content: Any) -> None:
        messages.append({"id": _uuid(rng), "timestamp": clock(), "type": "user", "content": content})

    def gemini(text: str, thoughts: list[tuple[str, str]], calls: list[dict[str, Any]] | None = None) -> None:
        prompt[0] += rng.randint(600, 2600)
        record: dict[str, Any] = {
            "id": _uuid(rng), "timestamp": clock(), "type": "gemini", "content": text,
            "thoughts": [{"subject": s, "description": d, "timestamp": clock(1)} for s, d in thoughts],
            "tokens": _tokens(rng, prompt[0], prompt[0] - rng.randint(400, 2400)), "model": "gemini-2.5-pro"}
        if calls:
            record["toolCalls"] = calls
        messages.append(record)

    def notice(kind: str, text: str) -> None:
        messages.append({"id": _uuid(rng), "timestamp": clock(), "type": kind, "content": text})

    def read(path: str) -> dict[str, Any]:
        return _gemini_call(rng, clock, "read_file", {"absolute_path": f"{CWD}/{path}"}, files[path],
                            display="ReadFile", description=path)

    def shell(command: str, failures: list[tuple[str, str, str, str]], test: str) -> dict[str, Any]:
        output, code = project.pytest_run(rng, [test], failures)
        return _gemini_call(rng, clock, "run_shell_command", {"command": command, "description": "Run the tests."},
                            _shell_output(command, output, code), display="Shell", description=command)

    user("The DKB import fails with 'unknown date format'. Find out why and fix it.")
    gemini("I'll start with the parser's date handling.",
           [("Locating the date parsing", "The error text comes from `parse_date`; the column lookup is the likely cause.")],
           [read(P)])
    gemini("", [("Searching for the DKB header", "Check which column name DKB exports use for the booking date.")],
           [_gemini_call(rng, clock, "search_file_content", {"pattern": "Buchungstag|Datum"},
                         'Found 1 match for pattern "Buchungstag|Datum" in path ".":\n---\nFile: tests/data/dkb_march.csv\n'
                         "L1: Buchungstag;Wertstellung;Betrag (EUR);Empfänger\n---", display="SearchText",
                         description="'Buchungstag|Datum' within ./")])
    old, new = 'row.get("date") or row.get("Datum") or ""', 'row.get("date") or row.get("Datum") or row.get("Buchungstag") or ""'
    files[P] = files[P].replace(old, new)
    gemini("DKB calls the column `Buchungstag`. I'll accept it as a date column.",
           [("Planning the edit", "Add the German booking-date header to the lookup chain.")],
           [_gemini_call(rng, clock, "replace", {"file_path": f"{CWD}/{P}", "old_string": old, "new_string": new,
                                                "instruction": "Accept DKB's Buchungstag column as the booking date."},
                         f"Successfully modified file: {CWD}/{P} (1 replacements).", display="Edit", description=P)])
    gemini("", [("Verifying", "Run the parser tests.")], [shell(f"python -m pytest {TP} -q", [], TP)])
    gemini("DKB statements import now: the parser accepts the `Buchungstag` column and the parser tests pass.",
           [("Summarizing", "Report the cause and the fix.")])
    png = base64.b64encode(project.png_bytes(160, 100, 401)).decode("ascii")
    user([{"text": "Now the March budget counts the refund twice, see:"}, {"inlineData": {"mimeType": "image/png", "data": png}}])
    failing = [(TB, "test_refund_counted_once", "assert march.income == Decimal('0')",
                "AssertionError: assert Decimal('50.00') == Decimal('0')")]
    gemini("I'll read the budget module and run its tests at the same time.",
           [("Reading the screenshot", "The refund row appears under income and under refunds.")],
           [read(B), shell(f"python -m pytest {TB} -q", failing, TB)])
    old, new = "            if amount >= 0:\n", "            elif amount >= 0:\n"
    cancelled = _gemini_call(rng, clock, "replace", {"file_path": f"{CWD}/{B}", "old_string": "for tx in txs:",
                                                     "new_string": "for tx in sorted(txs, key=month_key):",
                                                     "instruction": "Restructure the loop."},
                             "[Operation Cancelled] Reason: User cancelled the operation.", display="Edit",
                             description=B, status="cancelled", error=True)
    gemini("The refund branch falls through to the income branch. I'll restructure the loop.",
           [("Choosing a fix", "Sorting and splitting the loop would make the branches explicit.")], [cancelled])
    notice("info", "Request cancelled.")
    user("Don't restructure the loop, an elif is enough.")
    files[B] = files[B].replace(old, new)
    gemini("", [("Minimal fix", "Turn the second `if` into `elif` so a refund is counted once.")],
           [_gemini_call(rng, clock, "replace", {"file_path": f"{CWD}/{B}", "old_string": old, "new_string": new,
                                                "instruction": "Count a refund once: elif instead of if."},
                         f"Successfully modified file: {CWD}/{B} (1 replacements).", display="Edit", description=B)])
    notice("error", "[API Error: got status: 503 Service Unavailable. The model is overloaded. Please try again later.]")
    gemini("", [("Verifying", "Run the budget tests again.")], [shell(f"python -m pytest {TB} -q", [], TB)])
    gemini("Fixed with a one-word change: the second branch is now `elif`, so a refund counts once. "
           "The budget tests pass.", [("Wrapping up", "Say what changed.")])
    return {"sessionId": _uuid(rng), "projectHash": PROJECT_HASH, "startTime": start, "lastUpdated": clock(1),
            "messages": messages}


SESSION_CONTEXT = """<session_context>
This is the Gemini CLI. We are setting up the context for our chat.
Today's date is Tuesday, May 26, 2026 (formatted according to the user's locale).
My operating system is: linux
The project's temporary directory is: /home/dev/.gemini/tmp/ledgerline
I'm currently working in the directory: /home/dev/ledgerline
Here is the folder structure of the current working directories:

Showing up to 200 items (files + folders).

/home/dev/ledgerline/
├───pyproject.toml
├───README.md
├───src/
│   └───ledgerline/
│       ├───budget.py
│       ├───cli.py
│       ├───currency.py
│       └───parser.py
└───tests/
    ├───test_budget.py
    └───test_parser.py
</session_context>"""


def gemini_cli_log(rng: random.Random) -> list[dict[str, Any]]:
    """A Gemini CLI JSONL log (spring 2026): records written again as they grow, ``$set`` rows, an edit
    of a prompt undone by ``$rewindTo``, and a chat compression that replaces the list with a summary first."""
    clock = _Clock(rng, "2026-05-26", 14)
    session = _uuid(rng)
    rows: list[dict[str, Any]] = [{"sessionId": session, "projectHash": PROJECT_HASH, "startTime": clock(0),
                                   "lastUpdated": clock(0), "kind": "main"}]
    prompt = [11800]

    def record(kind: str, content: Any, **extra: Any) -> dict[str, Any]:
        item = {"id": _uuid(rng), "timestamp": clock(), "type": kind, "content": content, **extra}
        rows.append(item)
        return item

    def touch() -> None:
        rows.append({"$set": {"lastUpdated": clock(1)}})

    def answer(text: str, thought: str, call: tuple[str, dict[str, Any], str] | None = None) -> dict[str, Any]:
        prompt[0] += rng.randint(700, 3000)
        parts: list[dict[str, Any]] = [{"text": f"**{thought.split('.')[0]}** {thought}", "thought": True}]
        if text:
            parts.append({"text": text})
        item = record("gemini", parts, model="gemini-3-pro-preview")
        if call is None:
            item["tokens"] = _tokens(rng, prompt[0], prompt[0] - rng.randint(300, 2000))
            rows.append(dict(item))  # written again once the tokens arrive
            return item
        name, args, output = call
        call_id = f"{name}_{1779800000000 + rng.randint(0, 10**7)}_0"
        item["content"] = [*parts, {"functionCall": {"id": call_id, "name": name, "args": args}}]
        running = {"id": call_id, "name": name, "args": args, "status": "executing", "timestamp": clock(1)}
        rows.append({**item, "toolCalls": [running]})
        done = {**running, "status": "success", "timestamp": clock(),
                "result": [{"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}],
                "resultDisplay": "", "displayName": name, "description": ""}
        final = {**item, "toolCalls": [done], "tokens": _tokens(rng, prompt[0], prompt[0] - rng.randint(300, 2000))}
        rows.append(final)
        return final

    context = record("user", [{"text": SESSION_CONTEXT}])
    rows.append({"$set": {"messages": [context]}})  # the history the chat starts from
    record("user", [{"text": "Add a --currency option to the report command and convert amounts with the rate table."}])
    touch()
    answer("", "Reading the CLI. The report command is where the option goes.",
                      ("read_file", {"file_path": "src/ledgerline/cli.py"}, project.BASE_FILES["src/ledgerline/cli.py"]))
    touch()
    wrong_prompt = record("user", [{"text": "Use the ECB rates file."}])
    record("gemini", [{"text": "I'll download the ECB rates on every run."}], model="gemini-3-pro-preview",
           tokens=_tokens(rng, prompt[0] + 900, prompt[0]))
    rows.append({"$rewindTo": wrong_prompt["id"]})  # the user edits that prompt: both records go
    touch()
    record("user", [{"text": "Use the rates file that is already in data/rates.json."}])
    answer("", "Checking the rate table loader. RateTable.from_json reads it.",
           ("search_file_content", {"pattern": "from_json"}, "src/ledgerline/currency.py:20:    def from_json(cls, path)"))
    answer("The option is in: `--currency` converts each amount with `RateTable.from_json('data/rates.json')`.",
           "Summarizing. Say what was added.")
    touch()
    # Chat compression: the summary and the model's acknowledgement are written, then the new list puts
    # them before the kept tail (the last answer).
    tail = dict(rows[-2]) if "$set" in rows[-1] else dict(rows[-1])
    summary = record("user", [{"text": "<state_snapshot>\n  <overall_goal>Add a --currency option to the report "
                                       "command.</overall_goal>\n  <key_knowledge>Rates come from data/rates.json via "
                                       "RateTable.from_json.</key_knowledge>\n  <recent_actions>Added the option in "
                                       "cli.py.</recent_actions>\n</state_snapshot>"}])
    ack = record("gemini", [{"text": "Got it. Thanks for the additional context!"}])
    rows.append({"$set": {"messages": [summary, ack, tail], "lastUpdated": clock(1)}})
    record("info", "Chat history compressed from 48213 to 9120 tokens.")
    record("user", [{"text": "Now run the tests."}])
    output, code = project.pytest_run(rng, [TP, TB], [])
    answer("", "Running the tests. Parser and budget suites.",
           ("run_shell_command", {"command": f"python -m pytest {TP} {TB} -q"}, _shell_output("pytest", output, code)))
    answer("All tests pass with the new option.", "Reporting. The change is done.")
    rows.append({"$set": {"lastUpdated": clock(1), "summary": "Add a --currency option to the report command"}})
    return rows


# ---------------------------------------------------------------------------------------------
# GitHub Copilot CLI


def copilot_cli_events(rng: random.Random) -> list[dict[str, Any]]:
    """A Copilot CLI events.jsonl: system prompt, prompts as sent, reasoning, parallel tool requests and
    their completions, a response in two chunks, usage records, a model change, an error and a compaction."""
    clock = _Clock(rng, "2026-04-16", 11)
    events: list[dict[str, Any]] = []
    session = _uuid(rng)

    def emit(kind: str, data: dict[str, Any], **extra: Any) -> str:
        event_id = _uuid(rng)
        events.append({"type": kind, "data": data, "id": event_id, "timestamp": clock(),
                       "parentId": events[-1]["id"] if events else None, **extra})
        return event_id

    def turn(number: int) -> None:
        emit("assistant.turn_start", {"turnId": str(number), "interactionId": interaction})

    def usage(api: str, prompt: int, model: str = "claude-sonnet-4.5") -> None:
        emit("assistant.usage", {"model": model, "apiCallId": api, "inputTokens": prompt, "outputTokens": rng.randint(60, 500),
                                 "cacheReadTokens": prompt - rng.randint(200, 3000), "cacheWriteTokens": rng.randint(0, 900),
                                 "duration": rng.randint(1500, 9000), "initiator": "user", "cost": 1})

    def tools(api: str, text: str, requests: list[tuple[str, dict[str, Any], str]], prompt: int, reasoning: str,
              model: str = "claude-sonnet-4.5") -> None:
        emit("assistant.reasoning", {"reasoningId": _id(rng, "rs_", 16), "content": reasoning})
        ids = [_id(rng, "toolu_01", 22) for _ in requests]
        emit("assistant.message", {"messageId": _uuid(rng), "content": text, "apiCallId": api, "interactionId": interaction,
                                   "toolRequests": [{"toolCallId": i, "name": n, "arguments": a, "type": "function"}
                                                    for i, (n, a, _) in zip(ids, requests, strict=True)],
                                   "outputTokens": rng.randint(40, 300)})
        usage(api, prompt, model)
        for call_id, (name, arguments, _) in zip(ids, requests, strict=True):
            emit("tool.execution_start", {"toolCallId": call_id, "toolName": name, "arguments": arguments})
        for call_id, (_, _, output) in zip(ids, requests, strict=True):
            emit("tool.execution_complete", {"toolCallId": call_id, "success": True, "model": model,
                                             "interactionId": interaction,
                                             "result": {"content": output, "detailedContent": output}})

    emit("session.start", {"sessionId": session, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.12",
                           "startTime": clock(0), "selectedModel": "claude-sonnet-4.5",
                           "context": {"cwd": CWD, "gitRoot": CWD, "branch": "main", "repository": "ledgerline/ledgerline"}})
    emit("session.info", {"infoType": "folder_trust", "message": f"Folder {CWD} has been added to trusted folders."})
    emit("system.message", {"role": "system", "content": "You are the GitHub Copilot CLI, a terminal assistant built by "
                                                         "GitHub. You help with software engineering tasks in the user's "
                                                         "repository.\n\n<environment>cwd: /home/dev/ledgerline</environment>"})
    interaction = _uuid(rng)
    ask = "parse_amount('1.005') gives 1.0, it should be 1.01. Fix it."
    emit("user.message", {"content": ask, "attachments": [], "interactionId": interaction,
                          "transformedContent": f"<current_datetime>{clock(0)}</current_datetime>\n\n{ask}"})
    turn(0)
    tools(_id(rng, "msg_", 20), "I'll look at parse_amount and run its tests.",
          [("view", {"path": f"{CWD}/{P}"}, project.numbered(project.BASE_FILES[P])),
           ("bash", {"command": f"python -m pytest {TP} -q", "description": "Run the parser tests"},
            project.pytest_run(rng, [TP], [(TP, "test_parse_amount[1.005-expected5]", "assert parse_amount(raw) == expected",
                                            "AssertionError: assert Decimal('1.0') == Decimal('1.01')")])[0])],
          12400, "The float round trip loses the half cent; Decimal quantize with ROUND_HALF_UP keeps it.")
    emit("assistant.turn_end", {"turnId": "0"})
    turn(1)
    tools(_id(rng, "msg_", 20), "", [("edit", {"path": f"{CWD}/{P}", "old_str": "value = round(float(text), 2)",
                                               "new_str": "value = Decimal(text).quantize(Decimal(\"0.01\"), ROUND_HALF_UP)"},
                                      f"File {CWD}/{P} updated with changes.")], 16100, "Replace the float rounding.")
    emit("assistant.turn_end", {"turnId": "1"})
    emit("session.error", {"errorType": "rate_limit", "message": "Rate limit exceeded; retrying in 4s", "statusCode": 429})
    emit("session.model_change", {"previousModel": "claude-sonnet-4.5", "newModel": "gpt-5.1",
                                  "cause": "rate_limit_auto_switch"})
    turn(2)
    tools(_id(rng, "chatcmpl-", 24), "", [("bash", {"command": f"python -m pytest {TP} -q", "description": "Run them again"},
                                           project.pytest_run(rng, [TP], [])[0])], 17300, "Check the tests.", "gpt-5.1")
    api = _id(rng, "chatcmpl-", 24)
    for index, text in enumerate(("parse_amount now quantizes with ROUND_HALF_UP, so 1.005 becomes 1.01.",
                                  "The parser tests pass.")):
        emit("assistant.message", {"messageId": _uuid(rng), "content": text, "apiCallId": api, "chunkIndex": index,
                                   "chunkCount": 2, "toolRequests": [], "model": "gpt-5.1", "outputTokens": 30 + index})
    usage(api, 18200, "gpt-5.1")
    emit("assistant.turn_end", {"turnId": "2"})
    emit("session.compaction_start", {"currentTokens": 131072, "systemTokens": 9800, "conversationTokens": 108500,
                                      "toolDefinitionsTokens": 12772, "trigger": "threshold"})
    emit("session.compaction_complete", {
        "success": True, "preCompactionTokens": 131072, "postCompactionTokens": 14230, "messagesRemoved": 11,
        "checkpointNumber": 1, "trigger": "threshold",
        "summaryContent": "<overview>The user asked to fix parse_amount('1.005'); it now uses Decimal.quantize with "
                          "ROUND_HALF_UP in src/ledgerline/parser.py and the parser tests pass.</overview>",
        "compactionTokensUsed": {"inputTokens": 108500, "outputTokens": 410, "model": "gpt-5.1"}})
    interaction = _uuid(rng)
    ask = "Also add a test for 2.675."
    emit("user.message", {"content": ask, "attachments": [], "interactionId": interaction,
                          "transformedContent": f"<current_datetime>{clock(0)}</current_datetime>\n\n{ask}"})
    turn(3)
    tools(_id(rng, "chatcmpl-", 24), "Adding the case to the parametrized test.",
          [("edit", {"path": f"{CWD}/{TP}", "old_str": '("1.005", Decimal("1.01")),',
                     "new_str": '("1.005", Decimal("1.01")),\n    ("2.675", Decimal("2.68")),'},
            f"File {CWD}/{TP} updated with changes.")], 15100, "One more parametrize row.", "gpt-5.1")
    emit("assistant.message", {"messageId": _uuid(rng), "content": "Added `2.675 → 2.68` to the parse_amount cases.",
                               "toolRequests": [], "outputTokens": 22, "model": "gpt-5.1"})
    emit("assistant.turn_end", {"turnId": "3"})
    emit("abort", {"reason": "user initiated"})
    emit("session.shutdown", {"shutdownType": "routine", "totalPremiumRequests": 6, "totalApiDurationMs": 48210,
                              "modelMetrics": {"gpt-5.1": {"requests": {"count": 3, "cost": 3},
                                                           "usage": {"inputTokens": 50600, "outputTokens": 900,
                                                                     "cacheReadTokens": 41000, "cacheWriteTokens": 0}}},
                              "currentModel": "gpt-5.1"})
    return events


def copilot_cli_history(rng: random.Random) -> dict[str, Any]:
    """An older Copilot CLI session (``history-session-state/<id>.json``): ``chatMessages`` and ``timeline``."""
    clock = _Clock(rng, "2025-10-08", 21)
    call = _id(rng, "toolu_01", 22)
    listing = "src/ledgerline/budget.py\nsrc/ledgerline/cli.py\nsrc/ledgerline/currency.py\nsrc/ledgerline/parser.py"
    chat = [
        {"role": "user", "content": "Which modules does ledgerline have?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": call, "type": "function", "function": {
            "name": "bash", "arguments": json.dumps({"command": "ls src/ledgerline/*.py", "description": "List modules"})}}]},
        {"role": "tool", "tool_call_id": call, "content": listing},
        {"role": "assistant", "content": "Four modules: budget, cli, currency and parser."},
    ]
    timeline = [
        {"id": _uuid(rng), "timestamp": clock(), "type": "user", "text": chat[0]["content"]},
        {"id": _uuid(rng), "timestamp": clock(), "type": "tool_call_requested", "callId": call, "name": "bash",
         "toolTitle": "bash", "intentionSummary": "List modules", "arguments": {"command": "ls src/ledgerline/*.py"}},
        {"id": _uuid(rng), "timestamp": clock(), "type": "tool_call_completed", "callId": call, "name": "bash",
         "toolTitle": "bash", "result": {"type": "success", "log": listing}},
        {"id": _uuid(rng), "timestamp": clock(), "type": "copilot", "text": chat[3]["content"]},
    ]
    return {"sessionId": _uuid(rng), "startTime": clock(0), "chatMessages": chat, "timeline": timeline}
