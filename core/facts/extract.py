"""Fact extraction over OpenAI-chat messages.

A *fact* is an identifier a continuing agent needs to pick up the work: a file path, a shell
command, an exact error line, a URL, a number with a unit, a function or class name, an issue
number, or the user's latest request. The *key* facts are all of them but the function and class
names (``KEY_FACT_KINDS``): what a summary must keep; names are kept when there is room.

Everything here is a pure function: messages are read, never modified. Values are capped at
``MAX_FACT_CHARS`` characters (a long error line or a multi-line script keeps its first part), so
a summary that quotes the beginning of a long value still counts as keeping it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from core.facts.credentials import CredentialCheck, redact_all
from core.facts.noise import sift
from core.facts.text import (
    check_messages,
    is_summary_text,
    parse_json_container,
    string_leaves,
    text_pieces,
    tool_call_arguments,
)
from core.literals import Literals, matches_at
from core.message_view import content_text
from core.remembered import recall
from core.unicode_text import replace_lone_surrogates

if TYPE_CHECKING:  # pandas only where a table is built: the Hermes plugin reads facts without it
    import pandas as pd

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
KEY_FACT_KINDS: tuple[str, ...] = tuple(kind for kind in FACT_KINDS if kind != "identifier")
# Roles whose text is output or pasted logs: read without noise, and read for error lines.
NOISY_ROLES = ("tool", "user")

# ---------------------------------------------------------------------------------------------
# Patterns (compiled once)

_URL_RE = re.compile(r"\bhttps?://[^\s<>\"'`)\]}|]+")

_FILE_EXTENSIONS = (
    "py|pyi|ipynb|js|mjs|cjs|jsx|ts|tsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|md|rst|txt|csv|tsv|"
    "html|css|scss|sh|bash|zsh|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|sql|xml|lock|log|env|"
    "proto|tf|vue|svelte|gradle|pem|db|sqlite|parquet"
)
# A path starts where no path character precedes it ("@" and "+" included: otherwise every position
# of a long run of them, such as a base64 blob, would start a scan to the end of the run).
_PATH_RE = re.compile(
    r"(?<![\w./~:<\\@+-])"
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

# A whole whitespace-separated word that could hold a path: one with a "/", a "\\", a "." or one
# of the two bare names (``str.split`` and ``\S`` agree on what whitespace is). Anchored at a
# word's start, so each word is scanned once, and found without first splitting the whole text
# into a list of words (a 50 MB log has millions of them).
_PATH_WORD_RE = re.compile(r"(?<!\S)\S*?(?:[/\\.]|Dockerfile|Makefile)\S*")

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

# The same pattern over one line of a whole text: "$" ends the line there, as it does for a line alone.
_ERROR_SCAN_RE = re.compile(_ERROR_LINE_RE.pattern, re.MULTILINE)

# Literals of which every _ERROR_LINE_RE match holds one (case-sensitive, like the pattern). The
# engine skips ahead on a pure literal alternation; the pattern's leading "\b" makes it try every
# position instead, several times slower on text with no error at all.
_ERROR_LITERALS = (
    "Traceback", "Error", "Exception", "FAIL", "ERR", "FATAL", "fatal", "panic", "Panic", "error:", "error[",
    "failed to", "Segmentation fault", "command not found", "No such file or directory", "Permission denied",
)
_ERROR_HINT_RE = re.compile("|".join(re.escape(literal) for literal in _ERROR_LITERALS))

# A line of source code, optionally behind a line-number gutter ("  45|", "45:", "45→") and
# a diff marker ("-", "+"): such lines show code that names an error, not an error that happened.
# It is matched at a line's start: the leading blanks are taken whole, and (for a search) only where
# no blank precedes them.
_CODE_LINE_RE = re.compile(
    r"(?<!\s)\s*+(?:(?<!\d)\d++\s*[|:\t→]\s*)?(?:[-+](?![-+])\s*)?"
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

_DEFINITION_RE = re.compile(
    r"\b(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\("
    r"|\bclass\s+([A-Z]\w*|[A-Za-z_]\w*(?=\s*[(:{]))"
    r"|\bfunction\s+([A-Za-z_$][\w$]*)\s*\("
    r"|\bfn\s+([A-Za-z_]\w*)\s*[(<]"
    r"|\b(?:struct|enum|trait|interface)\s+([A-Z]\w*)"
)
# The words every _DEFINITION_RE match starts with: the pattern is tried only where one stands
# (``core.literals.matches_at``); its leading "\b" would make the engine try every position.
_DEFINITION_STARTS = Literals(("async", "def", "class", "function", "fn", "struct", "enum", "trait", "interface"))
# Possessive quantifiers: a dotted name is scanned once, never re-tried shorter.
_CALL_RE = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*+\.)*+[A-Za-z_]\w*+)\((?!s\))")
# "\b[A-Z][A-Za-z0-9]{2,}\b" with the word-start test after the capital: led by a character class,
# the engine skips to the capitals instead of testing a boundary at every position (3x faster).
_CAMEL_RE = re.compile(r"[A-Z](?<!\w[A-Z])[A-Za-z0-9]{2,}\b")
_DIGIT_RUN_RE = re.compile(r"\d{6}")
# Only searched for (is there one?): two capitals then two lower-case letters is the same test as two
# or more of each, without retrying a long run of capitals from each of its positions.
_CAMEL_SHAPE_RE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]{2}")
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

# ---------------------------------------------------------------------------------------------
# Extraction


def cap_value(value: str, limit: int = MAX_FACT_CHARS) -> str:
    value = value.strip()
    return value if len(value) <= limit else value[:limit].rstrip()


# Up to this length a text's words are listed by str.split (twice as fast as the pattern); a longer
# one is read by the pattern, without a list of all its words.
_SPLIT_CHARS = 1_000_000


_PATH_MARKS = ("/", ".", "\\", "Dockerfile", "Makefile")


def _path_words(text: str) -> list[str]:
    """``_PATH_WORD_RE.findall(text)``: the whitespace-separated words holding a path's mark."""
    if not any(mark in text for mark in _PATH_MARKS):
        return []  # five substring scans instead of listing every word (a long output of prose)
    if len(text) > _SPLIT_CHARS:
        return _PATH_WORD_RE.findall(text)
    # The marks of _PATH_MARKS spelled out: any() over them for each word is slower.
    return [word for word in text.split()
            if "/" in word or "." in word or "\\" in word or "Dockerfile" in word or "Makefile" in word]


def find_paths(text: str) -> list[str]:
    """The file paths in ``text``, in order (trailing punctuation trimmed)."""
    if len(text) > 200:
        # A path never holds whitespace, so only words that could be one are searched; they are
        # joined by spaces, which the pattern treats exactly as the whitespace around the words.
        text = " ".join(_path_words(text))
    found = []
    for value in _PATH_RE.findall(text):
        value = value.rstrip(".,;:")
        if len(value) > 1:
            found.append(value)
    return found


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
    # Only the lines holding a literal an error needs are looked at, each once: a long log with
    # three errors costs three lines.
    last_line_start = -1
    for hint in _ERROR_HINT_RE.finditer(text):
        start = text.rfind("\n", 0, hint.start()) + 1
        if start == last_line_start:
            continue  # a second hint on the same line
        last_line_start = start
        end = text.find("\n", hint.end())
        end = end if end >= 0 else len(text)
        if _ERROR_SCAN_RE.search(text, start, end) is None:
            continue
        line = text[start:end]
        for part in line.splitlines() or [line]:
            if _ERROR_LINE_RE.search(part) and not _CODE_LINE_RE.match(part):
                value = cap_value(part)
                if value:
                    yield value


def _is_progress_marker(text: str, match: re.Match[str]) -> bool:
    """A test runner's progress column such as ``[ 42%]`` is not a value worth keeping."""
    if not match.group(0).endswith("%"):
        return False
    before = text[max(0, match.start() - 4) : match.start()].rstrip(" ")
    return before.endswith("[") and text[match.end() : match.end() + 1] == "]"


_DEFINITION_HINT_RE = re.compile(r"(?:def|class|function|fn|struct|enum|trait|interface) ")
_HAS_DIGIT_RE = re.compile(r"\d")
_ASCII_DIGITS = "0123456789"


def _has_digit(text: str) -> bool:
    """``_HAS_DIGIT_RE.search(text)``: in ASCII text ten substring searches, each a fast scan, where the
    pattern tests every character's Unicode category (most prose has no digit, and is read whole)."""
    if text.isascii():
        return any(digit in text for digit in _ASCII_DIGITS)
    return _HAS_DIGIT_RE.search(text) is not None


# A run of a thousand characters without a blank is data (base64, a hash dump, minified code), not
# code a person reads: its capitalised pieces are not names worth keeping, and a megabyte of base64
# would otherwise give tens of thousands of them.
_DATA_RUN_CHARS = 1000
_DATA_RUN_RE = re.compile(rf"(?<!\S)\S{{{_DATA_RUN_CHARS},}}")  # from a run's start only: each run is read once
_BLOCK_CHARS = _DATA_RUN_CHARS // 2


def _may_hold_data_run(text: str) -> bool:
    """False when ``text`` surely holds no run of ``_DATA_RUN_CHARS`` characters without a blank. Such
    a run covers a whole aligned block of half its length; a block holding a space or a line break
    has none, so only a text with a block of neither needs the pattern (it reads every character)."""
    for start in range(0, len(text) - _BLOCK_CHARS + 1, _BLOCK_CHARS):
        end = start + _BLOCK_CHARS
        if text.find(" ", start, end) < 0 and text.find("\n", start, end) < 0:
            return True
    return False


def _identifiers(text: str) -> Iterator[str]:
    if len(text) >= _DATA_RUN_CHARS and _may_hold_data_run(text) and _DATA_RUN_RE.search(text):
        text = _DATA_RUN_RE.sub(" ", text)
    if _DEFINITION_HINT_RE.search(text):
        for match in matches_at(_DEFINITION_RE, text, _DEFINITION_STARTS):
            name = next(group for group in match.groups() if group)
            if name not in _NOT_IDENTIFIERS:
                yield name
    if "(" in text:
        for name in _CALL_RE.findall(text):
            for prefix in _RECEIVER_PREFIXES:
                if name.startswith(prefix):
                    name = name[len(prefix) :]
                    break
            last = name.rsplit(".", 1)[-1]
            if len(last) >= 3 and last not in _NOT_IDENTIFIERS:
                yield name
    if text != text.lower():
        for word in _CAMEL_RE.findall(text):
            # Long digit runs mark tokens, hashes and signatures, not names.
            if _CAMEL_SHAPE_RE.search(word) and not _DIGIT_RUN_RE.search(word):
                yield word


@lru_cache(maxsize=8192)
def _piece_facts(piece: str, role: str) -> tuple[tuple[str, str], ...]:
    """(kind, value) pairs found in one piece of text, in extraction order (cached: sessions repeat
    their commands and outputs)."""
    found: list[tuple[str, str]] = []
    urls = [match.group(0).rstrip(".,;:!?") for match in _URL_RE.finditer(piece)] if "://" in piece else []
    # URLs are blanked so their parts are not read again as paths, ports or identifiers.
    rest = _URL_RE.sub(" ", piece) if urls else piece
    found.extend(("path", value) for value in find_paths(rest))
    if "`" in rest:
        found.extend(("command", cap_value(value.splitlines()[0])) for value in _backticked_commands(rest))
    if role in NOISY_ROLES:
        found.extend(("error", value) for value in error_lines(rest))
    found.extend(("url", value) for value in urls)
    if _has_digit(rest):
        if "%]" in rest:
            found.extend(("quantity", match.group(0)) for match in _QUANTITY_RE.finditer(rest)
                         if not _is_progress_marker(rest, match))
        else:
            found.extend(("quantity", value) for value in _QUANTITY_RE.findall(rest))
    found.extend(("identifier", value) for value in _identifiers(rest))
    if "#" in rest:
        found.extend(("issue", match.group(0)) for match in _ISSUE_RE.finditer(rest))
    return tuple(found)


def _facts_in_piece(piece: str, role: str) -> tuple[tuple[str, str], ...]:
    # Long pieces are rarely repeated: the cache keeps the short, frequent ones.
    return _piece_facts(piece, role) if len(piece) < 2000 else _piece_facts.__wrapped__(piece, role)


_PATH_ARG_KEYS = frozenset(
    {"path", "file_path", "filepath", "filename", "file", "workdir", "cwd", "dir", "directory", "output_path"}
)
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "pwsh", "powershell", "cmd"})


def command_text(value: Any) -> str | None:
    """The command line of a tool call's ``command`` argument: a string as it is, an argv list
    (``["bash", "-lc", "git status"]``, as Codex sends it) as the script a shell runs, or joined."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-c", "-lc", "-ic", "/c", "-Command"):
            return value[2].strip() or None
        return " ".join(value).strip() or None
    return None


def _facts_in_arguments(arguments: str) -> Iterator[tuple[str, str]]:
    parsed = parse_json_container(arguments)
    if parsed is None:
        yield from _facts_in_piece(arguments, "assistant")
        return
    if isinstance(parsed, Mapping):
        for key in _COMMAND_ARG_KEYS:
            command = command_text(parsed.get(key))
            if command is not None:
                yield "command", cap_value(command.splitlines()[0])
        for key, value in parsed.items():
            if key in _PATH_ARG_KEYS and isinstance(value, str) and value.strip() not in ("", "."):
                yield "path", cap_value(value)
    for leaf in string_leaves(parsed):
        yield from _facts_in_piece(leaf, "assistant")


# Injected text that arrives as a user message but is not the user's words: harness wrappers
# (``<environment_context>``, ``<command-name>``, ``<system-reminder>``), interruption notices and
# the caveats some agents put before local command output.
_INJECTED_RE = re.compile(
    r"^\s*(?:<([A-Za-z][\w-]*)(?:\s[^>]*)?>[\s\S]*</\1>\s*$"
    r"|\[Request interrupted by user"
    r"|Caveat: The messages below were generated by the user while running local commands"
    r"|This session is being continued from a previous conversation)"
)


def is_user_words(text: str) -> bool:
    """Whether a user message's text is something the user wrote (not a handoff summary, not a
    wrapper or notice the agent's harness injected)."""
    stripped = text.strip()
    return bool(stripped) and not is_summary_text(stripped) and not _INJECTED_RE.match(stripped)


def message_facts(message: Mapping[str, Any], *, sift_noise: bool = True) -> tuple[tuple[str, str], ...]:
    """(kind, value) pairs of one message, in extraction order, repeats included (a tuple that may be
    shared with other messages of the same text: one per message would cost a long transcript dearly).

    Tool results and user messages are read without their noise lines (``core.facts.noise``) when
    ``sift_noise`` is on; tool-call arguments are read whole.
    """
    arguments = [arguments for _name, arguments in tool_call_arguments(message)]
    return parts_facts(str(message.get("role") or ""), content_text(message.get("content")), arguments, sift_noise=sift_noise)


def parts_facts(
    role: str, text: str, arguments: Sequence[str], *, sift_noise: bool = True
) -> tuple[tuple[str, str], ...]:
    """:func:`message_facts` of a message given as its role, content text and tool-call argument
    strings (for a reader that has them already)."""
    found = _content_facts(text, role, sift_noise)
    more = [fact for argument in arguments if argument for fact in _cached(_arguments_facts, argument)]
    if not more:
        return found  # the cached tuple itself: most messages have no tool-call arguments
    return (*found, *more)


def _cached(function: Any, text: str, *rest: Any) -> Any:
    # The module's caches keep the short, frequent texts (commands, "ok"); a long one is kept only
    # within an open scope (a transcript's analyses read the same outputs again and again).
    if len(text) < 2000:
        return function(text, *rest)
    return recall((function.__wrapped__, *rest), text, lambda whole: function.__wrapped__(whole, *rest))


def _content_facts(text: str, role: str, sift_noise: bool) -> tuple[tuple[str, str], ...]:
    return _cached(_text_facts, text, role, sift_noise)


@lru_cache(maxsize=8192)
def _text_facts(text: str, role: str, sift_noise: bool) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for piece in text_pieces(text):
        if sift_noise and role in NOISY_ROLES:
            piece = sift(piece).text
        found.extend(_piece_facts.__wrapped__(piece, role))
    return tuple(found)


@lru_cache(maxsize=8192)
def _arguments_facts(arguments: str) -> tuple[tuple[str, str], ...]:
    return tuple(_facts_in_arguments(arguments))


def latest_user_request(messages: Sequence[Mapping[str, Any]]) -> tuple[int, str] | None:
    """(index, text) of the last user message the user wrote (not a handoff summary or an
    injected wrapper)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        text = content_text(message.get("content")).strip()
        if is_user_words(text):
            return index, text
    return None


def fact_rows(
    messages: Sequence[Mapping[str, Any]], *, exclude_credentials: bool = True
) -> list[tuple[str, str, int]]:
    """(kind, value, message_index) of every distinct fact, ordered like :func:`extract_facts`."""
    check_messages(messages)
    per_message = [message_facts(message) for message in messages]
    request = latest_request(messages, exclude_credentials=exclude_credentials)
    return merge_fact_rows(per_message, request, is_credential=CredentialCheck(messages) if exclude_credentials else None)


def latest_request(
    messages: Sequence[Mapping[str, Any]], *, exclude_credentials: bool = True
) -> tuple[int, str] | None:
    """The ``user_request`` fact: (index, the latest request capped at ``MAX_REQUEST_CHARS``);
    with ``exclude_credentials`` any secret in it is masked first, so the fact never shows one."""
    request = latest_user_request(messages)
    if request is None:
        return None
    index, text = request
    if exclude_credentials:
        text = redact_all(text)
    return index, cap_value(text, MAX_REQUEST_CHARS)


def merge_fact_rows(
    per_message: Sequence[Iterable[tuple[str, str]]],
    request: tuple[int, str] | None,
    *,
    is_credential: Callable[[int, str], bool] | None = None,
) -> list[tuple[str, str, int]]:
    """One row per distinct (kind, value) at its first message, ordered by message, then kind in
    ``FACT_KINDS`` order, then order of discovery. With ``is_credential`` (message index, value) a
    value is skipped where it is a credential; it is asked only about values not seen yet, so a
    message is redacted only when it brings something new."""
    seen: set[tuple[str, str]] = set()
    rows: list[tuple[int, int, int, str, str]] = []
    among = getattr(is_credential, "among", None)  # a CredentialCheck answers for many values at once
    if request is not None:
        request = (request[0], replace_lone_surrogates(request[1]))
        seen.add(("user_request", request[1]))
        rows.append((request[0], _KIND_RANK["user_request"], -1, "user_request", request[1]))
    serial = 0
    for index, found in enumerate(per_message):
        credentials: set[str] | None = None
        if among is not None:
            fresh = [raw for kind, raw in found if raw and (kind, replace_lone_surrogates(raw)) not in seen]
            credentials = among(index, list(dict.fromkeys(fresh))) if fresh else set()
        for kind, raw in found:
            # Values parsed out of tool arguments may hold lone surrogates that no table can store.
            value = replace_lone_surrogates(raw)
            if not value or (kind, value) in seen:
                continue
            if credentials is not None:
                if raw in credentials:
                    continue
            elif is_credential is not None and is_credential(index, raw):
                continue
            seen.add((kind, value))
            rows.append((index, _KIND_RANK[kind], serial, kind, value))
            serial += 1
    rows.sort()
    return [(kind, value, index) for index, _rank, _serial, kind, value in rows]


def extract_facts(messages: Sequence[Mapping[str, Any]], *, exclude_credentials: bool = True) -> pd.DataFrame:
    """The facts in ``messages`` as a DataFrame with columns ``kind``, ``value``, ``message_index``.

    One row per distinct (kind, value), at the message where it first appears. Rows are ordered
    by message index, then by kind in ``FACT_KINDS`` order, then by position of discovery. Noise
    lines of tool output are not read (``core.facts.noise``); with ``exclude_credentials`` (the
    default) a value that the profile's or the strict redaction would mask is not a fact
    (``core.facts.credentials``).
    """
    return facts_frame(fact_rows(messages, exclude_credentials=exclude_credentials))


def facts_frame(rows: Iterable[tuple[str, str, int]]) -> pd.DataFrame:
    """A facts table from ``(kind, value, message_index)`` rows."""
    import pandas as pd

    # Object columns from the start: the rows' strings are referenced, not copied to Arrow and back.
    return pd.DataFrame(list(rows), columns=FACT_COLUMNS, dtype=object).astype({"message_index": "int64"})
