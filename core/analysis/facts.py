"""Fact extraction and fact-retention scoring over OpenAI-chat messages.

A *fact* is an identifier a continuing agent needs to pick up the work: a file path, a shell
command, an exact error line, a URL, a number with a unit, a function or class name, an issue
number, or the user's latest request. A summary *retains* a fact when the fact's value appears in
it verbatim. This needs no model, so it can score any summary (an LLM's, the extractive one, the
deterministic fallback) the same way.

Everything here is a pure function: messages are read, never modified.

Values are capped at ``MAX_FACT_CHARS`` characters (a long error line or a multi-line script keeps
its first part), so a summary that quotes the beginning of a long value still counts as keeping it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pandas as pd

from core.unicode_text import replace_lone_surrogates

__all__ = [
    "FACT_KINDS",
    "MAX_FACT_CHARS",
    "cap_value",
    "content_text",
    "error_lines",
    "extract_facts",
    "find_paths",
    "latest_user_request",
    "message_text",
    "retention",
    "retention_by_kind",
    "retention_score",
    "searchable_text",
    "text_pieces",
]

# Fixed order of kinds: rows of a facts table are sorted by message, then by this order.
FACT_KINDS: tuple[str, ...] = (
    "user_request",
    "path",
    "command",
    "error",
    "url",
    "quantity",
    "identifier",
    "issue",
)
_KIND_RANK = {kind: rank for rank, kind in enumerate(FACT_KINDS)}

MAX_FACT_CHARS = 200
# The latest request is the most important fact; it may be longer than other values.
MAX_REQUEST_CHARS = 300

FACT_COLUMNS = ["kind", "value", "message_index"]

# ---------------------------------------------------------------------------------------------
# Patterns (compiled once)

_URL_RE = re.compile(r"\bhttps?://[^\s<>\"'`)\]}|]+")

_FILE_EXTENSIONS = (
    "py|pyi|ipynb|js|mjs|cjs|jsx|ts|tsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|md|rst|txt|csv|tsv|"
    "html|css|scss|sh|bash|zsh|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|sql|xml|lock|log|env|"
    "proto|tf|vue|svelte|gradle|pem|db|sqlite|parquet"
)
_PATH_RE = re.compile(
    r"(?<![\w./~:<\\-])"
    r"(?:"
    # absolute, home-relative (~/) or dot-relative (./ ../) paths
    r"(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]*[\w@+-]"
    # Windows drive paths
    r"|[A-Za-z]:\\(?:[\w.@+-]+\\)*[\w.@+-]*[\w@+-]"
    # relative paths with at least one directory and a file extension
    r"|[\w@+-][\w.@+-]*(?:/[\w.@+-]+)*/[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7}"
    # relative directories written with a trailing slash
    r"|[\w@+-][\w.@+-]*(?:/[\w.@+-]+)*/(?=[\s,;:)'\"`]|$)"
    # bare file names with a well-known extension
    rf"|[\w-][\w.-]*\.(?:{_FILE_EXTENSIONS})(?![\w.])"
    r"|Dockerfile|Makefile"
    r")"
    # pytest node ids: file.py::Class::test_name[param]
    r"(?:::[\w.-]+(?:\[[^\]\s]*\])?)*"
    r"(?![\w/])"
)

_KNOWN_COMMANDS = frozenset(
    """
    pytest python python3 pip pip3 uv uvx poetry pipx npm npx yarn pnpm node deno bun git make cmake
    ninja cargo rustc go docker docker-compose kubectl helm terraform ls cd cat grep rg find sed awk
    curl wget bash sh zsh chmod chown mkdir rm cp mv ln touch tox nox ruff mypy black isort flake8
    pylint gcc g++ clang javac java mvn gradle psql sqlite3 mysql redis-cli systemctl journalctl ssh
    scp rsync tar unzip zip echo export source sudo apt apt-get brew conda jest vitest tsc eslint
    prettier ruby bundle rails rake php composer dotnet swift alembic uvicorn gunicorn flask
    django-admin streamlit head tail wc diff patch ps kill pkill top env which gh hermes context-lens
    """.split()
)
_BACKTICK_RE = re.compile(r"(?<!`)`([^`\n]{1,400})`(?!`)")
_COMMAND_ARG_KEYS = ("command", "cmd")

_ERROR_LINE_RE = re.compile(
    r"Traceback \(most recent call last\)"
    # An exception name reports an error when a message follows it or it ends the line
    # ("KeyError: 'x'", "... - AssertionError"); "except KeyError as e" or an import list does not.
    r"|(?:Error|Exception)(?=:|\s*$)"
    r"|\b(?:FAILED|FAIL|ERROR|FATAL|fatal|panic|Panic)\b|\bERR!|\bpanicked at\b"
    r"|\berror(?:\[\w+\])?:"
    r"|\bfailed to\b"
    r"|Segmentation fault|command not found|No such file or directory|Permission denied"
)

# Substrings (case as written) of which every _ERROR_LINE_RE match contains at least one.
_ERROR_MARKERS = (
    "Traceback (most recent call last)",
    "Error",
    "Exception",
    "FAIL",
    "ERROR",
    "FATAL",
    "fatal",
    "panic",
    "Panic",
    "ERR!",
    "error:",
    "error[",
    "failed to",
    "Segmentation fault",
    "command not found",
    "No such file or directory",
    "Permission denied",
)

# A line of source code, optionally behind a line-number gutter ("  45|", "45:", "45→") and
# a diff marker ("-", "+"): such lines show code that names an error, not an error that happened.
_CODE_LINE_RE = re.compile(
    r"\s*(?:\d+\s*[|:\t→]\s*)?(?:[-+](?![-+])\s*)?"
    r"(?:raise|except|catch|throw|throws|import|from|class|def|if|elif|else|return|try|with|"
    r"assert|for|while|case|const|let|var|public|private|protected|print|log|logger|logging|console|"
    r"self|yield|await|pass|@|#|//|/\*|\*)(?![\w])"
)

_QUANTITY_RE = re.compile(
    r"(?<![\w.,])\d+(?:[.,]\d+)*"
    r"(?:%"
    r"| ?(?:ns|µs|us|ms|s|sec|secs|seconds?|mins?|minutes?|hrs?|hours?|days?"
    r"|B|KB|kB|MB|GB|TB|KiB|MiB|GiB|bytes|tokens|rps|req/s|qps|MHz|GHz"
    r"|passed|failed|skipped|errors?|warnings?|xfailed|xpassed)(?![\w/]))"
    r"|\bport \d{2,5}\b"
    r"|\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}):\d{2,5}\b"
)

_ISSUE_RE = re.compile(r"(?<![\w&#/])#\d{1,6}\b")
_DIGIT_RE = re.compile(r"\d")  # the digit every _QUANTITY_RE alternative needs

_DEFINITION_RE = re.compile(
    r"\b(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\("
    r"|\bclass\s+([A-Z]\w*|[A-Za-z_]\w*(?=\s*[(:{]))"
    r"|\bfunction\s+([A-Za-z_$][\w$]*)\s*\("
    r"|\bfn\s+([A-Za-z_]\w*)\s*[(<]"
    r"|\b(?:struct|enum|trait|interface)\s+([A-Z]\w*)"
)
# Possessive quantifiers: a dotted name is scanned once, never re-tried shorter.
_CALL_RE = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*+\.)*+[A-Za-z_]\w*+)\((?!s\))")
_CAMEL_RE = re.compile(r"\b[A-Z][A-Za-z0-9]{2,}\b")
_DIGIT_RUN_RE = re.compile(r"\d{6}")
_CAMEL_SHAPE_RE = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]{2,}")
_RECEIVER_PREFIXES = ("self.", "cls.", "this.")
_NOT_IDENTIFIERS = frozenset(
    """
    print len str int float list dict set tuple range open isinstance issubclass super type any all
    min max sum sorted reversed enumerate zip map filter repr getattr setattr hasattr delattr format
    bool bytes object iter next abs round input vars callable hash help exec eval compile
    if for while return and or not in is with assert lambda elif else except catch switch function
    require import from yield await async def class new typeof sizeof define
    """.split()
)

_SUMMARY_MARKERS = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")

# ---------------------------------------------------------------------------------------------
# Text views


def content_text(content: Any) -> str:
    """The text of a message ``content``: str as is, None empty, text parts of a list joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                if part:
                    parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str) and part["text"]:
                parts.append(part["text"])
        return "\n".join(parts)
    return str(content)


def _string_leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _string_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _string_leaves(item)


def _parse_json_container(text: str) -> Any | None:
    """The parsed value when ``text`` is a JSON object or array, else None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, (dict, list)) else None


def text_pieces(text: str) -> list[str]:
    """The pieces of ``text`` that facts are read from: the decoded string values of a JSON
    document (tool results are often JSON with escaped newlines), else the text itself."""
    parsed = _parse_json_container(text)
    if parsed is None:
        return [text] if text else []
    return [leaf for leaf in _string_leaves(parsed) if leaf]


def _tool_calls(message: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(name, arguments string) of each dict tool call of a message."""
    calls = message.get("tool_calls") or []
    result: list[tuple[str, str]] = []
    if not isinstance(calls, list):
        return result
    for call in calls:
        if not isinstance(call, Mapping):
            continue
        function = call.get("function") or {}
        if not isinstance(function, Mapping):
            continue
        name = function.get("name")
        arguments = function.get("arguments")
        if isinstance(arguments, (dict, list)):
            arguments = json.dumps(arguments, ensure_ascii=False)
        result.append((str(name) if name else "", arguments if isinstance(arguments, str) else ""))
    return result


def message_text(message: Mapping[str, Any]) -> str:
    """Everything of one message a reader could find a fact in: its content text, its tool-call
    names and arguments, and the decoded string values of any JSON among them (so a value read
    out of escaped JSON is found again)."""
    _check_message(message, None)
    blocks: list[str] = []
    text = content_text(message.get("content"))
    if text:
        blocks.append(text)
        parsed = _parse_json_container(text)
        if parsed is not None:
            blocks.extend(leaf for leaf in _string_leaves(parsed) if leaf)
    for name, arguments in _tool_calls(message):
        blocks.append(f"{name}({arguments})")
        parsed = _parse_json_container(arguments)
        if parsed is not None:
            blocks.extend(leaf for leaf in _string_leaves(parsed) if leaf)
    return "\n".join(blocks)


def searchable_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The concatenated ``message_text`` of all messages."""
    _check_messages(messages)
    return "\n".join(message_text(message) for message in messages)


# ---------------------------------------------------------------------------------------------
# Validation


def _check_message(message: Any, index: int | None) -> None:
    if not isinstance(message, Mapping):
        where = f"message {index}" if index is not None else "a message"
        raise TypeError(f"{where} must be a dict with a 'role', got {type(message).__name__}")


def _check_messages(messages: Any) -> None:
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError(f"messages must be a list of message dicts, got {type(messages).__name__}")
    for index, message in enumerate(messages):
        _check_message(message, index)


# ---------------------------------------------------------------------------------------------
# Extraction


def cap_value(value: str, limit: int = MAX_FACT_CHARS) -> str:
    value = value.strip()
    return value if len(value) <= limit else value[:limit].rstrip()


def _may_hold_path(text: str) -> bool:
    """Every alternative of ``_PATH_RE`` needs a "/", a "\\", a "." or one of its two bare names."""
    return "/" in text or "." in text or "\\" in text or "Dockerfile" in text or "Makefile" in text


def find_paths(text: str) -> Iterator[str]:
    if not _may_hold_path(text):
        return
    for match in _PATH_RE.finditer(text):
        value = match.group(0).rstrip(".,;:")
        if len(value) > 1:
            yield value


def _backticked_commands(text: str) -> Iterator[str]:
    for match in _BACKTICK_RE.finditer(text):
        span = match.group(1).strip()
        if span.startswith("$ "):
            span = span[2:].strip()
        first_word = span.split(maxsplit=1)[0] if span else ""
        if first_word in _KNOWN_COMMANDS or first_word.startswith("./"):
            yield span


def error_lines(text: str) -> Iterator[str]:
    """Lines reporting an error (trimmed, capped). Source-code lines that merely name an
    exception (``raise ValueError(...)``, ``except OSError:``) are not errors that happened."""
    # Most text names no error at all; plain substring tests rule it out much faster.
    if not any(marker in text for marker in _ERROR_MARKERS) or not _ERROR_LINE_RE.search(text):
        return
    for line in text.splitlines():
        if _ERROR_LINE_RE.search(line) and not _CODE_LINE_RE.match(line):
            value = cap_value(line)
            if value:
                yield value


def _is_progress_marker(text: str, match: re.Match[str]) -> bool:
    """A test runner's progress column such as ``[ 42%]`` is not a value worth keeping."""
    if not match.group(0).endswith("%"):
        return False
    before = text[max(0, match.start() - 4) : match.start()].rstrip(" ")
    return before.endswith("[") and text[match.end() : match.end() + 1] == "]"


# Every _DEFINITION_RE match holds one of its keywords; every _CALL_RE match an opening parenthesis.
_DEFINITION_WORDS = ("def", "class", "function", "fn", "struct", "enum", "trait", "interface")


def _identifiers(text: str) -> Iterator[str]:
    if any(word in text for word in _DEFINITION_WORDS):
        for match in _DEFINITION_RE.finditer(text):
            name = next(group for group in match.groups() if group)
            if name not in _NOT_IDENTIFIERS:
                yield name
    for match in _CALL_RE.finditer(text) if "(" in text else ():
        name = match.group(1)
        for prefix in _RECEIVER_PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix) :]
                break
        last = name.rsplit(".", 1)[-1]
        if len(last) >= 3 and last not in _NOT_IDENTIFIERS:
            yield name
    for match in _CAMEL_RE.finditer(text):
        word = match.group(0)
        # Long digit runs mark tokens, hashes and signatures, not names.
        if _CAMEL_SHAPE_RE.search(word) and not _DIGIT_RUN_RE.search(word):
            yield word


def _facts_in_piece(piece: str, role: str) -> Iterator[tuple[str, str]]:
    """(kind, value) pairs found in one piece of text, in extraction order."""
    # Each pattern is only run on text holding a literal every match of it contains (a URL its
    # "http", a command its backquote, a quantity a digit, an issue its "#").
    urls = [match.group(0).rstrip(".,;:!?") for match in _URL_RE.finditer(piece)] if "http" in piece else []
    # URLs are blanked so their parts are not read again as paths, ports or identifiers.
    rest = _URL_RE.sub(" ", piece) if urls else piece
    for value in find_paths(rest):
        yield "path", value
    if "`" in rest:
        for value in _backticked_commands(rest):
            yield "command", cap_value(value.splitlines()[0])
    if role in ("tool", "user"):
        for value in error_lines(rest):
            yield "error", value
    for value in urls:
        yield "url", value
    if _DIGIT_RE.search(rest) is not None:
        for match in _QUANTITY_RE.finditer(rest):
            if _is_progress_marker(rest, match):
                continue
            yield "quantity", match.group(0)
    for value in _identifiers(rest):
        yield "identifier", value
    if "#" in rest:
        for match in _ISSUE_RE.finditer(rest):
            yield "issue", match.group(0)


_PATH_ARG_KEYS = frozenset(
    {"path", "file_path", "filepath", "filename", "file", "workdir", "cwd", "dir", "directory", "output_path"}
)


def _facts_in_arguments(arguments: str) -> Iterator[tuple[str, str]]:
    parsed = _parse_json_container(arguments)
    if parsed is None:
        yield from _facts_in_piece(arguments, "assistant")
        return
    if isinstance(parsed, Mapping):
        for key in _COMMAND_ARG_KEYS:
            command = parsed.get(key)
            if isinstance(command, str) and command.strip():
                yield "command", cap_value(command.strip().splitlines()[0])
        for key, value in parsed.items():
            if key in _PATH_ARG_KEYS and isinstance(value, str) and value.strip() not in ("", "."):
                yield "path", cap_value(value)
    for leaf in _string_leaves(parsed):
        yield from _facts_in_piece(leaf, "assistant")


def _is_summary_text(text: str) -> bool:
    return text.lstrip().startswith(_SUMMARY_MARKERS)


def _iter_message_facts(index: int, message: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    role = str(message.get("role") or "")
    text = content_text(message.get("content"))
    for piece in text_pieces(text):
        yield from _facts_in_piece(piece, role)
    for _name, arguments in _tool_calls(message):
        if arguments:
            yield from _facts_in_arguments(arguments)


def latest_user_request(messages: Sequence[Mapping[str, Any]]) -> tuple[int, str] | None:
    """(index, text) of the last user message with text that is not a handoff summary."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        text = content_text(message.get("content")).strip()
        if text and not _is_summary_text(text):
            return index, text
    return None


def extract_facts(messages: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The facts in ``messages`` as a DataFrame with columns ``kind``, ``value``, ``message_index``.

    One row per distinct (kind, value), at the message where it first appears. Rows are ordered
    by message index, then by kind in ``FACT_KINDS`` order, then by position of discovery.
    """
    _check_messages(messages)
    seen: set[tuple[str, str]] = set()
    rows: list[tuple[int, int, int, str, str]] = []
    serial = 0

    def add(kind: str, value: str, index: int) -> None:
        nonlocal serial
        # Values parsed out of tool arguments may hold lone surrogates that no table can store.
        value = replace_lone_surrogates(value)
        if not value or (kind, value) in seen:
            return
        seen.add((kind, value))
        rows.append((index, _KIND_RANK[kind], serial, kind, value))
        serial += 1

    request = latest_user_request(messages)
    if request is not None:
        add("user_request", cap_value(request[1], MAX_REQUEST_CHARS), request[0])
    for index, message in enumerate(messages):
        for kind, value in _iter_message_facts(index, message):
            add(kind, value, index)

    rows.sort()
    return pd.DataFrame(
        [(kind, value, index) for index, _rank, _serial, kind, value in rows],
        columns=FACT_COLUMNS,
    ).astype({"kind": "object", "value": "object", "message_index": "int64"})


# ---------------------------------------------------------------------------------------------
# Retention


def retention(facts: pd.DataFrame, text_or_messages: str | Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """A copy of ``facts`` with a boolean ``kept`` column: whether each value appears verbatim in
    the text (or in ``searchable_text`` of the given messages)."""
    if not isinstance(facts, pd.DataFrame) or "value" not in facts.columns:
        raise TypeError("facts must be a DataFrame with a 'value' column (as returned by extract_facts)")
    if isinstance(text_or_messages, str):
        haystack = text_or_messages
    else:
        haystack = searchable_text(text_or_messages)
    result = facts.copy()
    result["kept"] = [
        isinstance(value, str) and bool(value) and value in haystack for value in facts["value"]
    ]
    result["kept"] = result["kept"].astype(bool)
    return result


def _check_scored(df: Any) -> None:
    if not isinstance(df, pd.DataFrame) or "kept" not in df.columns:
        raise TypeError("expected a DataFrame with a 'kept' column (as returned by retention)")


def retention_score(df: pd.DataFrame) -> float:
    """The fraction of facts kept; 1.0 when there are no facts (nothing was lost)."""
    _check_scored(df)
    if len(df) == 0:
        return 1.0
    return float(df["kept"].astype(bool).mean())


def retention_by_kind(df: pd.DataFrame) -> pd.DataFrame:
    """Per kind (in ``FACT_KINDS`` order, kinds without facts omitted): ``kind``, ``total``,
    ``kept`` and ``score``."""
    _check_scored(df)
    records: list[dict[str, Any]] = []
    kinds: Iterable[str] = [kind for kind in FACT_KINDS if kind in set(df["kind"])]
    kinds = list(kinds) + sorted(set(df["kind"]) - set(FACT_KINDS))
    for kind in kinds:
        kept_flags = df.loc[df["kind"] == kind, "kept"].astype(bool)
        total = int(kept_flags.size)
        kept = int(kept_flags.sum())
        records.append({"kind": kind, "total": total, "kept": kept, "score": kept / total})
    return pd.DataFrame(records, columns=["kind", "total", "kept", "score"])
