"""What the compacted turns found, read independently of ``core.facts``: the benchmark's second measure.

``core.facts`` decides what the summarizer ranks its lines by, so scoring a summary only by it
would grade the summarizer by its own rules. This reader is a separate, plainer notion of "the
values a continuing agent would need", closer to what a person checking a summary by hand counts:

* ``error``: a line of a tool result or of the user's text that reports a failure (any casing of
  error, exception, failed, fatal, denied, not found, cannot, undefined, ...), not a line of code;
* ``command``: the first line of each shell command a tool call ran;
* ``path`` and ``url``: every path-like word and web address;
* ``name``: identifiers with an inner ``_``, ``.`` or capital (``run_id``, ``os.path.join``,
  ``OrchestratorRun``, ``maxRetries``), four characters or more;
* ``number``: numbers of two digits or more, decimals, versions, hexadecimal values, with their
  unit when one follows (line-number gutters of file views are not numbers anyone reads).

Values are read from tool results, the user's and the agent's texts, and tool-call commands and
paths (not from file contents the agent wrote itself). Lines that only say a test passed or was
skipped, and test runners' progress columns (``[ 42%]``), are not read: nobody needs eighty test
names that passed. Nor are the sizes in the one-liners Phase 1 leaves for old outputs (``[Read]
file_path=a.py (757 chars result)``): they are the compressor's words, not something the turns found. Each value is capped at ``MAX_CHARS``, so a
summary quoting the beginning of a long line keeps it. A value a redaction masked is skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

MAX_CHARS = 100
KINDS = ("error", "command", "path", "url", "name", "number")

_URL = re.compile(r"https?://[^\s\"'`<>)\]}|,]+")
_PATH = re.compile(
    r"(?<![\w/.-])(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]+|(?<![\w/.-])[\w-]+\.(?:py|js|ts|tsx|jsx|json|ya?ml|toml|md|"
    r"go|rs|java|c|h|cpp|rb|sh|txt|cfg|ini|lock|sql|html|css|log|csv)(?![\w])"
)
_NAME = re.compile(
    r"(?<![\w.])(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)(?![\w])"
)
_NUMBER = re.compile(
    r"(?<![\w.])(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)+|\d{2,})(?:\s?(?:ms|s|sec|MB|GB|KB|kB|B|%|tokens|rps))?(?![\w.])"
)
_GUTTER = re.compile(r"^\s*\d+(?:→|\t|\s*\|\s?|:\s)", re.MULTILINE)
_ERROR = re.compile(
    r"(?i)\b(?:error|errors|exception|traceback|fail|failed|failure|failing|fatal|panic|denied|not found|"
    r"no such file|cannot|can't|undefined|refused|timed out|killed|aborted|segmentation fault)\b"
)
_CODE = re.compile(
    r"^\s*(?:[-+]\s*)?(?:def |class |import |from |raise |except\b|try:|catch\b|throw |if |elif |else\b|return |#|//|/\*|\*|"
    r"@|assert |for |while |with |const |let |var |function |public |private |func |fn |pub |use |print|log|"
    r"console\.|self\.|\"\"\"|'''|\}\s*catch\b|.*\)\s*from \w+$)"
)
_MASKED = ("***", "[REDACTED")
# Two sentences run together without a space ("points.Next"): prose, not a dotted name.
_RUN_ON = re.compile(r"^[a-z]+\.[A-Z][a-z]*$")
_PASSING = re.compile(r"\b(?:PASSED|SKIPPED|XFAIL|XPASS)\b|^\s*(?:ok|PASS|[✓✔√])\s|\.\.\. (?:ok|skipped)\s*$")
_PROGRESS = re.compile(r"\[\s*\d+%\]")
_ONE_LINER_SIZE = re.compile(r"^(\[[\w.-]+\] [^\n]*?) ?\((?:[\d,]+ chars(?: result)?|\d+ lines)\)$")
_EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")


def _capped(value: str) -> str:
    value = value.strip()
    return value[:MAX_CHARS].rstrip() if len(value) > MAX_CHARS else value


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping):
                for key in ("text", "content", "output"):
                    if isinstance(part.get(key), str):
                        parts.append(part[key])
        return "\n".join(parts)
    return "" if content is None else str(content)


def _decoded(text: str) -> str:
    """A JSON tool result as its string values (outputs are often JSON with escaped newlines)."""
    if text.lstrip()[:1] not in ("{", "["):
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    leaves: list[str] = []
    stack = [parsed]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            leaves.append(item)
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return "\n".join(leaves)


def _arguments(message: Mapping[str, Any]) -> Iterator[Any]:
    for call in message.get("tool_calls") or ():
        if not isinstance(call, Mapping):
            continue
        function = call.get("function") if isinstance(call.get("function"), Mapping) else call
        raw = function.get("arguments")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError:
                pass
        yield raw


def _command(value: Any) -> str | None:
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        value = value[2] if len(value) >= 3 and value[1] in ("-c", "-lc") else " ".join(value)
    if isinstance(value, str) and value.strip():
        return value.strip().splitlines()[0]
    return None


def _values(text: str, *, errors: bool) -> Iterator[tuple[str, str]]:
    if _PASSING.search(text) or "%]" in text:
        text = "\n".join(_PROGRESS.sub("", line) for line in text.splitlines() if not _PASSING.search(line))
    if errors:
        for line in text.splitlines():
            line = _GUTTER.sub("", line, count=1)  # a file view's line number is no part of the line
            if _ERROR.search(line) and not _CODE.match(line):
                yield "error", line
    urls = _URL.findall(text)
    yield from (("url", url.rstrip(".:;")) for url in urls)
    rest = _URL.sub(" ", text) if urls else text
    paths = [path.rstrip(".:;") for path in _PATH.findall(rest)]
    yield from (("path", path) for path in paths if len(path) > 2)
    rest = _GUTTER.sub("", rest)
    for path in paths:
        rest = rest.replace(path, " ")
    yield from (("name", name) for name in _NAME.findall(rest) if len(name) >= 4 and not _RUN_ON.match(name))
    yield from (("number", number) for number in _NUMBER.findall(rest))


def found_values(turns: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The distinct (kind, value) pairs of ``turns``, in order of first appearance."""
    seen: dict[tuple[str, str], None] = {}

    def add(kind: str, value: str) -> None:
        value = _capped(value)
        if len(value) >= 2 and not any(mark in value for mark in _MASKED):
            seen.setdefault((kind, value), None)

    for message in turns:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        text = _decoded(_text(message.get("content")))
        if role == "tool" and len(text) < 400:
            text = _ONE_LINER_SIZE.sub(r"\1", text.strip())
        for kind, value in _values(text, errors=role in ("tool", "user")):
            add(kind, value)
        for arguments in _arguments(message):
            if not isinstance(arguments, Mapping):
                continue
            for key in ("command", "cmd"):
                if key == "command" and arguments.get(key) in _EDITOR_COMMANDS:
                    continue  # a file editor's sub-command, not a shell command
                command = _command(arguments.get(key))
                if command is not None:
                    add("command", command)
            for key in ("path", "file_path", "filename"):
                if isinstance(arguments.get(key), str):
                    add("path", arguments[key])
    return list(seen)
