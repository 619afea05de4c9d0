"""Reading the turns once, in order: the user's asks, the agent's texts, each tool call with its result.

Every step is one pass over the turns (a dict pairs results with calls; replies are filed under the
ask they follow as they come), so the reading grows linearly with the session. Tool calls are read
in the shapes of the common harnesses: shell commands as strings or argv lists, Codex
``apply_patch`` envelopes, ``str_replace_editor`` sub-commands, web searches and fetches.

Harnesses that act through text (SWE-agent's classic and CTF modes, mini-swe-agent) end an
assistant message with a fenced command and get its output back as the next *user* message. Read
as they are, every observation would be a user request (the task, the goal, a constraint); they
are read as a call and its result instead (see :func:`text_actions`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.facts import (
    command_text,
    error_lines,
    find_paths,
    is_summary_text,
    is_user_words,
    parts_facts,
    sift,
    text_pieces,
)
from core.facts.credentials import might_hold_credentials, without_credentials_by_line
from core.facts.noise import LISTING, PASSING_TESTS, PROGRESS, REPEATED
from core.facts.text import parse_json_container
from core.message_view import CallView, call_view, content_text, role_of, tool_calls_of
from core.summarizers.extractive.model import NO_RESULT, Action, Call, Reading

MAX_TARGET_CHARS = 160

_PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "output_path", "notebook_path")
_WORKDIR_KEYS = ("workdir", "cwd", "working_dir", "directory")
_COMMAND_KEYS = ("command", "cmd")
# SWE-agent's file commands, written as text actions: views and edits, not shell runs.
_AGENT_FILE_COMMANDS = {"open": "READ", "goto": "READ", "scroll_up": "READ", "scroll_down": "READ", "edit": "PATCH",
                        "create": "WRITE", "find_file": "SEARCH", "search_dir": "SEARCH", "search_file": "SEARCH"}
_EDITOR_COMMANDS = {"view": "READ", "create": "WRITE", "str_replace": "PATCH", "insert": "PATCH", "undo_edit": "PATCH"}

TEST_COMMAND_RE = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|go test|cargo test|pg_prove|"
    r"(?:npm|yarn|pnpm)(?: run)? test|make (?:test|check)|dotnet test|mvn test|gradle test)\b"
)
_COUNT_WORDS = r"(?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?|total)"
TEST_COUNT_RE = re.compile(
    rf"\b\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:[,;] \d+ {_COUNT_WORDS})*"
    r"(?: in \d+(?:\.\d+)?s\b)?"
)
_FAILED_COUNT_RE = re.compile(r"\b[1-9]\d* (?:failed|errors?)\b")
_EXIT_CODE_RES = (
    re.compile(r'"(?:exit_code|returncode|exit_status)"\s*:\s*(-?\d+)'),
    re.compile(r"\[The command completed with exit code (-?\d+)\.\]"),
    re.compile(r"(?:^|\n)Error: Exit code (\d+)\s*$"),
    re.compile(r"(?:^|\n)Exit code:? (-?\d+)\s*$"),
    re.compile(r"^<returncode>(-?\d+)</returncode>"),  # mini-swe-agent
)
_TOTAL_COUNT_RE = re.compile(r'"total_count"\s*:\s*(\d+)|^Found (\d+) files?\b', re.MULTILINE)
_BRANCH_RES = (
    re.compile(r"\bgit (?:checkout -b|switch -c|checkout -B|switch --create) ([\w./-]+)"),
    re.compile(r"\bgit (?:checkout|switch) (?!-)([\w./-]+)"),
)
_BRANCH_OUTPUT_RE = re.compile(r"\b(?:On branch|Switched to (?:a new )?branch) '?([\w./-]+)'?")
_CD_RE = re.compile(r"^\s*cd ([^\s;&|]+)\s*(?:&&|;)")
_GUTTER_LINE_RE = re.compile(r"(?<![\s\d])\s*\d+\s*(?:[:|\t→]|$)")  # the look-behind: one start per run
_PATCH_FILE_RE = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+)$", re.MULTILINE)

_NOISE_WORDS = {
    PASSING_TESTS: "passing tests listed",
    LISTING: "lines of listing",
    PROGRESS: "progress lines",
    REPEATED: "repeated log lines",
}
# Fewer noise lines than this are not worth a word in an action's outcome.
MIN_NOISE_NOTED = 10

# Placeholders and one-liners that Phase 1 leaves in place of an old tool result.
_PLACEHOLDER_OUTCOMES = (
    ("[Duplicate tool output", "same output as a later call"),
    ("[Old tool output cleared", "output cleared"),
    ("[Result from earlier conversation", "result in an earlier summary"),
)
_ONE_LINER_RE = re.compile(r"^\[[\w.-]+\] [^\n]*$")
_ONE_LINER_EXIT_RE = re.compile(r"-> exit (-?\d+|\?)")
_ONE_LINER_MATCHES_RE = re.compile(r"-> (\d+|\?) matches")
_ONE_LINER_SIZE_RE = re.compile(r"\(([\d,]+) chars(?: result)?\)$")
_ONE_LINER_WRITE_RE = re.compile(r"\((\d+|\?) lines\)$")

# An action written as text: a fenced block that ends an assistant message, in a shell-like language.
_TEXT_ACTION_RE = re.compile(r"```([\w-]*)[ \t]*\n(.*?)\n?```\s*$", re.DOTALL)
_ACTION_LANGUAGES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "mswea_bash_command"})
# What only an observation starts with or holds: mini-swe-agent's return code, SWE-agent's status lines.
_OBSERVATION_MARKERS = ("<returncode>", "(Open file:", "(Current directory:", "bash-$", "OBSERVATION:", "[File:")
# This many fenced-action / user-message pairs make a text-acting session, markers or not.
MIN_TEXT_ACTIONS = 3

_NOTE_FOR_VERB = {"READ": "read", "WRITE": "written", "PATCH": "patched", "RUN": "used in a command", "SEARCH": "searched"}


def first_line(text: str, limit: int = MAX_TARGET_CHARS) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def decoded(text: str) -> str:
    """A tool result as text: the string values of a JSON result, else the text itself."""
    return "\n".join(text_pieces(text))


def sifted_text(text: str) -> tuple[str, dict[str, int]]:
    """A tool result as text without its noise lines (each piece sifted as the fact extraction
    sifts it), and the counts of the noise."""
    kept: list[str] = []
    counts: dict[str, int] = {}
    for piece in text_pieces(text):
        sifted = sift(piece)
        kept.append(sifted.text)
        for kind, count in sifted.counts.items():
            counts[kind] = counts.get(kind, 0) + count
    return "\n".join(kept), counts


def line_count(text: str) -> int:
    return text.strip().count("\n") + 1 if text.strip() else 0


def _parse_arguments(arguments: str) -> Any:
    if not arguments:
        return {}
    parsed = parse_json_container(arguments)
    if parsed is not None:
        return parsed
    try:
        return json.loads(arguments)  # a JSON scalar
    except (ValueError, RecursionError):
        return arguments


def _first_string(arguments: Any, keys: Sequence[str]) -> str | None:
    if isinstance(arguments, dict):
        for key in keys:
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def command_of(arguments: Any, name: str = "") -> str | None:
    """The shell command a call ran (``None`` for an editor sub-command such as ``view``)."""
    if not isinstance(arguments, dict):
        return None
    for key in _COMMAND_KEYS:
        value = arguments.get(key)
        if key == "command" and isinstance(value, str) and value in _EDITOR_COMMANDS and "path" in arguments:
            return None
        command = command_text(value)
        if command is not None:
            return command
    return None


def describe(call: Call) -> tuple[str, str, str, str, tuple[str, ...]]:
    """(verb, target, key, kind, paths) of a call, from its name and arguments only. ``key`` names
    what a later success of the same thing resolves; ``kind`` selects how the result is read."""
    lowered = call.name.lower()
    args = call.arguments
    command = call.command
    path = _first_string(args, _PATH_KEYS)
    if command is not None:
        word = command.split(maxsplit=1)[0]
        if word in _AGENT_FILE_COMMANDS and call.call_id.startswith("#text"):
            verb = _AGENT_FILE_COMMANDS[word]
            kind = {"READ": "read", "PATCH": "patch", "WRITE": "write", "SEARCH": "search"}[verb]
            return verb, f"`{first_line(command)}`", f"{verb.lower()}:" + command, kind, ()
        return "RUN", f"`{first_line(command)}`", "cmd:" + command, "run", ()
    if isinstance(args, dict):
        editor = args.get("command")
        if isinstance(editor, str) and editor in _EDITOR_COMMANDS and path is not None:
            verb = _EDITOR_COMMANDS[editor]
            kind = {"READ": "read", "WRITE": "write", "PATCH": "patch"}[verb]
            return verb, path, ("read:" if verb == "READ" else "edit:") + path, kind, (path,)
        envelope = args.get("input") or args.get("patch")
        if isinstance(envelope, str) and "*** Begin Patch" in envelope:
            files = _PATCH_FILE_RE.findall(envelope)
            paths = tuple(dict.fromkeys(name.strip() for _op, name in files))
            verb = "WRITE" if files and all(op == "Add" for op, _name in files) else "PATCH"
            target = ", ".join(paths) if paths else "patch"
            return verb, target, "edit:" + target, "patch", paths
    if path is not None and any(word in lowered for word in ("read", "view", "cat", "open", "show")):
        offset = next(
            (args.get(key) for key in ("offset", "start_line", "line") if isinstance(args, dict) and args.get(key)),
            None,
        )
        shown_offset = isinstance(offset, (int, str)) and str(offset) not in ("", "0", "1")
        return "READ", f"{path}:{offset}" if shown_offset else path, "read:" + path, "read", (path,)
    if path is not None and any(word in lowered for word in ("write", "create", "save")):
        return "WRITE", path, "edit:" + path, "write", (path,)
    if path is not None and any(word in lowered for word in ("patch", "edit", "replace", "apply", "insert", "modify")):
        return "PATCH", path, "edit:" + path, "patch", (path,)
    if any(word in lowered for word in ("search", "grep", "find", "glob")) and "web" not in lowered:
        pattern = _first_string(args, ("pattern", "query", "regex", "glob", "name")) or "?"
        where = path or _first_string(args, ("dir", "root")) or ""
        target = f"'{first_line(pattern, 80)}'" + (f" in {where}" if where else "")
        return "SEARCH", target, "search:" + target, "search", ()
    if "web_search" in lowered or lowered in ("search_web", "websearch"):
        target = f"'{first_line(_first_string(args, ('query', 'q')) or '?', 80)}'"
        return "WEB_SEARCH", target, "web:" + target, "other", ()
    url = _first_string(args, ("url",))
    if url is None and isinstance(args, dict) and isinstance(args.get("urls"), list):
        url = next((item for item in args["urls"] if isinstance(item, str)), "?")
    if url is not None:
        return "OPEN", url, "open:" + url, "other", ()
    if isinstance(args, dict) and isinstance(args.get("code"), str):
        return "EXECUTE", f"`{first_line(args['code'], 80)}`", "code:" + args["code"], "run", ()
    shown: list[str] = []
    if isinstance(args, dict):
        shown = [f"{key}={first_line(str(value), 40)}" for key, value in list(args.items())[:2]]
    elif isinstance(args, str) and args:
        shown = [first_line(args, 60)]
    target = call.name + (" " + " ".join(shown) if shown else "")
    return "CALL", target, "call:" + call.name + json.dumps(args, sort_keys=True, default=str), "other", ()


def _placeholder_outcome(result: str) -> tuple[str, bool | None] | None:
    """(outcome, succeeded) when ``result`` is a Phase-1 placeholder or one-liner."""
    stripped = result.strip()
    for marker, outcome in _PLACEHOLDER_OUTCOMES:
        if stripped.startswith(marker):
            return outcome, None
    if len(stripped) > 400 or not _ONE_LINER_RE.match(stripped):
        return None
    exit_match = _ONE_LINER_EXIT_RE.search(stripped)
    if exit_match:
        code = exit_match.group(1)
        return f"exit {code}", None if code == "?" else code == "0"
    matches = _ONE_LINER_MATCHES_RE.search(stripped)
    if matches:
        return f"{matches.group(1)} matches", True
    written = _ONE_LINER_WRITE_RE.search(stripped)
    if written:
        return f"{written.group(1)} lines", True
    size = _ONE_LINER_SIZE_RE.search(stripped)
    if size:
        return f"{size.group(1)} chars", None
    return None


def _exit_code(result: str) -> int | None:
    if "xit" not in result and "returncode" not in result:
        return None
    for pattern in _EXIT_CODE_RES:
        match = pattern.search(result)
        if match:
            return int(match.group(1))
    return None


def _noise_note(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{count:,} {_NOISE_WORDS[kind]}" for kind, count in counts.items() if count >= MIN_NOISE_NOTED)


def classify(call: Call, result_errors: Sequence[str] | None = None) -> Action:
    """Turn one tool call and its result into an action line's parts (``result_errors``: the error
    lines of the result when the fact extraction has read them already)."""
    verb, target, key, kind, paths = describe(call)
    result = call.result
    if result is None:
        return Action(call.index, verb, target, NO_RESULT, call.name, None, key, paths=paths)
    command = call.command or ""
    is_test = bool(TEST_COMMAND_RE.search(command))
    placeholder = _placeholder_outcome(result)
    if placeholder is not None:
        outcome, succeeded = placeholder
        return Action(call.index, verb, target, outcome, call.name, succeeded, key, is_test,
                      result_index=call.result_index, paths=paths)

    text = decoded(result)
    clean, noise = sifted_text(result)
    errors = list(dict.fromkeys(error_lines(clean) if result_errors is None else result_errors))
    if kind in ("read", "write") and line_count(text) > 3:
        errors = []  # file contents, not a report that the call failed
    elif kind == "patch" and line_count(text) > 3:
        # The file shown after an edit holds code, not errors; an editor that rejects the edit
        # (a linter's "E999 SyntaxError") says so outside the numbered lines.
        errors = [line for line in errors if not _GUTTER_LINE_RE.match(line)]
    succeeded: bool | None = not errors
    parts: list[str] = []
    if kind == "run":
        code = _exit_code(result)
        if code is not None:
            parts.append(f"exit {code}")
            succeeded = code == 0 and not any(line.startswith("FAILED") for line in errors)
        counts = TEST_COUNT_RE.findall(text)
        if counts:
            is_test = True
            parts.append(counts[-1])
            if _FAILED_COUNT_RE.search(counts[-1]):
                succeeded = False
        if not parts:
            parts.append("failed" if errors else f"{line_count(text)} lines output")
        note = _noise_note(noise)
        if note:
            parts.append(note)
    elif kind == "read":
        parts.append("failed" if errors and line_count(text) <= 3 else f"{line_count(text)} lines")
    elif kind == "write":
        content = call.arguments.get("content") if isinstance(call.arguments, dict) else None
        content = content if isinstance(content, str) else (
            call.arguments.get("file_text") if isinstance(call.arguments, dict) else None)
        parts.append("failed" if errors else f"{line_count(content)} lines" if isinstance(content, str) and content
                     else "written")
    elif kind == "patch":
        parts.append("failed" if errors else "applied")
    elif kind == "search":
        count = _TOTAL_COUNT_RE.search(text) or _TOTAL_COUNT_RE.search(result)
        parts.append(
            f"{count.group(1) or count.group(2)} matches" if count else "failed" if errors
            else f"{line_count(text)} result lines"
        )
    else:
        parts.append("failed" if errors else f"{len(text):,} chars result")
    return Action(call.index, verb, target, ", ".join(parts), call.name, succeeded, key, is_test, errors or (),
                  call.result_index, paths)


def note_file(reading: Reading, path: str, note: str, index: int) -> None:
    if path in (".", "./", "/"):  # the current directory or the root says nothing
        return
    entry = reading.files.setdefault(path, {"notes": [], "first": index, "last": index, "indices": []})
    if note not in entry["notes"]:
        entry["notes"].append(note)
    if index > entry["last"]:
        entry["last"] = index
    if not entry["indices"] or entry["indices"][-1] != index:
        entry["indices"].append(index)


def text_actions(turns: Sequence[Mapping[str, Any]]) -> tuple[dict[int, str], set[int]]:
    """Assistant index -> the command it wrote as text, for the actions whose next user message is
    their observation, and the indices of observations whose action was compacted earlier (one
    pass; see the module docstring)."""
    pairs: dict[int, str] = {}
    marked = 0
    orphans: set[int] = set()
    for index in range(len(turns)):
        if index == 0 and turns[0].get("role") == "user":
            first = content_text(turns[0].get("content"))
            if any(marker in first for marker in _OBSERVATION_MARKERS):
                orphans.add(0)
        if index + 1 >= len(turns):
            break
        message, following = turns[index], turns[index + 1]
        if message.get("role") != "assistant" or following.get("role") != "user" or tool_calls_of(message):
            continue
        match = _TEXT_ACTION_RE.search(content_text(message.get("content")))
        if match is None or match.group(1) not in _ACTION_LANGUAGES or not match.group(2).strip():
            continue
        pairs[index] = match.group(2).strip()
        observation = content_text(following.get("content"))
        marked += any(marker in observation for marker in _OBSERVATION_MARKERS)
    # A chat where the assistant once ended on a code sample and the user answered is no harness.
    return (pairs, orphans) if marked or len(pairs) >= MIN_TEXT_ACTIONS else ({}, set())


def read_turns(turns: Sequence[Mapping[str, Any]]) -> Reading:
    """What the turns say: asks, texts, replies by ask, actions, files, working state."""
    reading = Reading(n_turns=len(turns))
    calls: dict[str, Call] = {}
    ordered_calls: list[Call] = []
    current_ask: int | None = None
    written, orphans = text_actions(turns)
    for index, message in enumerate(turns):
        role = message.get("role")  # every turn is a mapping here (the summarizer wraps any other)
        text = content_text(message.get("content"))
        tool_calls = tool_calls_of(message) if role == "assistant" else []
        raw_calls = message.get("tool_calls")
        if not tool_calls and isinstance(raw_calls, Mapping):
            tool_calls = [raw_calls]  # a single call not wrapped in a list
        views = [call_view(raw) for raw in tool_calls] if tool_calls else []
        if role != "assistant" and raw_calls:
            views = [call_view(raw) for raw in tool_calls_of(message)]
        if index in written:
            views = [CallView(f"#text{index}", "bash", json.dumps({"command": written[index]}))]
        elif role == "user" and (index - 1 in written or index in orphans):
            # The observation of the action above (or of one compacted earlier): a result, not the
            # user's words.
            if index in orphans:
                views_before = Call(f"#text{index - 1}", "bash", {}, index)
                calls[views_before.call_id] = views_before
                ordered_calls.append(views_before)
            role = "tool"
            message = {"role": "tool", "tool_call_id": f"#text{index - 1}", "content": text}
        arguments = [view.arguments for view in views]
        found = parts_facts(str(role or ""), text, arguments)
        hinted = bool(found) and might_hold_credentials([text, *arguments])
        if found:
            reading.secret_hints[index] = hinted
        if hinted:
            # A value a redaction would mask is no fact to promote into the summary, even when the
            # profile's own redaction let it through.
            places = [*text_pieces(text), *arguments]
            places.extend(leaf for argument in arguments for leaf in text_pieces(argument) if leaf != argument)
            found = without_credentials_by_line(found, places)
        reading.turn_facts.append(found)
        if role in ("user", "assistant") and is_summary_text(text):
            reading.embedded_summaries.append(text)
            continue
        if role == "user":
            if is_user_words(text):
                if current_ask is not None:
                    reading.replies[current_ask] = (reading.replies[current_ask][0], True)
                reading.user_asks.append((index, text.strip()))
                reading.replies[index] = ([], False)
                current_ask = index
        elif role == "assistant":
            if text.strip():
                reading.assistant_texts.append((index, text.strip()))
                if not views:
                    reading.reply_indices.add(index)
                    if current_ask is not None:
                        reading.replies[current_ask][0].append((index, text.strip()))
            for position, view in enumerate(views):
                parsed = _parse_arguments(view.arguments)
                record = Call(view.id or f"#{index}.{position}", view.name, parsed, index,
                              command=command_of(parsed, view.name))
                calls[record.call_id] = record
                ordered_calls.append(record)
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            call = calls.get(call_id)
            if call is not None and call.result is None:
                call.result = text
                call.result_index = index
                if text.strip() and _placeholder_outcome(text) is None:
                    reading.outputs[index] = text
                # Now, while the sifted pieces are fresh. The facts of the result hold its error lines,
                # except where a URL was blanked out of them (read again, with the URL).
                errors = None if "://" in text else [value for kind, value in found if kind == "error"]
                call.action = classify(call, errors)
    last = turns[-1] if turns else None
    reading.ends_mid_work = bool(
        last is not None and (role_of(last) == "tool" or (role_of(last) == "assistant" and tool_calls_of(last)))
    )
    observed = [index + 1 for index in written if index + 1 < len(turns)] + sorted(orphans)
    if observed:
        # The last output a text-acting agent read, whether or not it had acted on it yet.
        latest = max(observed)
        reading.last_observation = (latest, content_text(turns[latest].get("content")).strip())
        if latest == len(turns) - 1:
            reading.ends_mid_work = True  # cut right after an output the agent had not acted on
    for call in ordered_calls:
        _read_call(reading, call)
    return reading


def _read_call(reading: Reading, call: Call) -> None:
    action = call.action or classify(call)
    reading.actions.append(action)
    args = call.arguments
    note = _NOTE_FOR_VERB.get(action.verb, "used")
    for path in action.paths:
        note_file(reading, path, note, call.index)
    for key in _PATH_KEYS:
        value = args.get(key) if isinstance(args, dict) else None
        if isinstance(value, str) and value.strip() and value.strip() not in action.paths:
            note_file(reading, value.strip(), note, call.index)
    workdir = _first_string(args, _WORKDIR_KEYS)
    command = call.command
    if command is not None:
        cd_match = _CD_RE.match(command)
        if cd_match:
            workdir = cd_match.group(1)
        for path in find_paths(command):
            note_file(reading, path, "used in a command", call.index)
        for pattern in _BRANCH_RES:
            branch_match = pattern.search(command)
            if branch_match:
                reading.branch = (call.index, branch_match.group(1))
                break
        if command.rstrip().endswith("&") or (isinstance(args, dict) and args.get("background") is True):
            reading.background.append((call.index, first_line(command)))
    if workdir is not None:
        reading.workdir = (call.index, workdir)
    if call.result and "branch" in call.result:
        output = decoded(call.result)
        # Either literal first: the pattern's leading "\b" makes the engine try every position.
        branch_output = _BRANCH_OUTPUT_RE.search(output) if "On branch" in output or "Switched to " in output else None
        if branch_output and call.result_index is not None:
            reading.branch = (call.result_index, branch_output.group(1))
