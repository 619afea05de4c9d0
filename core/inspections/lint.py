"""API validity lint: would a provider accept this conversation as a request?

Two rule sets, each checked on the OpenAI-chat messages as they are:

* **OpenAI chat completions**: valid roles and content types, well-formed tool calls, every
  assistant tool call answered by a ``tool`` message carrying its id before the next non-tool
  message, results right after their call, no orphan results, ``tool_call_id`` on every tool
  message.
* **Anthropic messages**, as an adapter would convert the list: leading system messages become
  the ``system`` parameter; ``tool`` messages become ``tool_result`` blocks folded into a user
  turn (a user message right after them joins that turn); then the first turn must be a user
  turn, user and assistant turns must alternate strictly, every ``tool_use`` must be answered in
  the very next user turn, and no message may be empty (the final assistant message excepted).

Every check returns a DataFrame of violations with the columns ``api``, ``rule``, ``severity``
(``error``: the API rejects the request; ``warning``: accepted but suspicious),
``message_index`` (the message concerned, ``<NA>`` for the whole conversation) and ``detail``.
An empty frame means the conversation is valid for that API.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = [
    "API_NAMES",
    "APIS",
    "LINT_COLUMNS",
    "RULES",
    "error_count",
    "is_valid",
    "lint",
    "lint_anthropic",
    "lint_openai",
    "lint_summary",
]

APIS: tuple[str, ...] = ("openai", "anthropic")
#: Each API by the name the pages show it under.
API_NAMES: dict[str, str] = {"openai": "OpenAI", "anthropic": "Anthropic"}
LINT_COLUMNS = ["api", "rule", "severity", "message_index", "detail"]

ERROR = "error"
WARNING = "warning"

#: Every rule with a one-line explanation (shown next to the violations table).
RULES: dict[str, str] = {
    "empty_conversation": "The request has no messages at all.",
    "not_a_message": "A list entry is not a message object.",
    "invalid_role": "The role is missing or not one the API knows.",
    "legacy_role": "The deprecated 'function' role (accepted by OpenAI for old clients only).",
    "content_missing": "The message has no content (only an assistant message with tool calls may omit it).",
    "content_type": "The content is neither a string nor a list of typed parts allowed for this role.",
    "tool_calls_role": "Only assistant messages may carry tool_calls.",
    "tool_call_malformed": "A tool call lacks an id, a function name, or string arguments.",
    "arguments_not_json": "A tool call's arguments are not valid JSON.",
    "duplicate_tool_call_id": "Two tool calls share one id.",
    "tool_call_id_missing": "A tool message without tool_call_id cannot be matched to any call.",
    "unanswered_tool_call": "An assistant tool call has no tool message with its id before the next non-tool message.",
    "misplaced_tool_result": "A tool result answers a call that is not the assistant message directly before it.",
    "orphan_tool_result": "A tool result whose id matches no tool call in the conversation.",
    "duplicate_tool_result": "A tool call is answered twice.",
    "system_not_leading": "Anthropic takes system text only as a parameter: a system message after the start cannot be sent.",
    "no_messages": "Nothing is left besides the system prompt.",
    "first_not_user": "The first message after the system prompt must be a user message.",
    "alternation": "Two user turns or two assistant turns in a row (after folding tool results into user turns).",
    "tool_result_not_next": "A tool_use is not answered in the very next user turn.",
    "empty_content": "A message with no text, image or tool content (only the final assistant message may be empty).",
}

_OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_OPENAI_PART_TYPES: dict[str, frozenset[str]] = {
    "system": frozenset({"text"}),
    "developer": frozenset({"text"}),
    "user": frozenset({"text", "image_url", "input_audio", "file"}),
    "assistant": frozenset({"text", "refusal"}),
    "tool": frozenset({"text"}),
    "function": frozenset({"text"}),
}
_IMAGE_TYPES = frozenset({"image_url", "image", "input_image"})


@dataclass
class _Findings:
    api: str
    rows: list[tuple[str, str, str, int | None, str]] = field(default_factory=list)

    def add(self, rule: str, severity: str, index: int | None, detail: str) -> None:
        self.rows.append((self.api, rule, severity, index, detail))


def _frame(rows: Iterable[tuple[str, str, str, int | None, str]]) -> pd.DataFrame:
    # Object columns from the start: the rows' own strings are referenced, not converted to Arrow
    # strings and back (a copy of every string of a long list of findings).
    frame = pd.DataFrame(list(rows), columns=LINT_COLUMNS, dtype=object)
    return frame.astype({"message_index": "Int64"})


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _short(value: Any, limit: int = 40) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_id(call: Any) -> Any:
    if not isinstance(call, Mapping):
        return None
    return call.get("id") or call.get("call_id")


def _calls(message: Any) -> list[Any]:
    if not isinstance(message, Mapping):
        return []
    calls = message.get("tool_calls")
    return list(calls) if isinstance(calls, list) else []


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# OpenAI chat completions


def _check_openai_content(found: _Findings, index: int, message: Mapping[str, Any], role: str) -> None:
    has_calls = bool(_calls(message))
    if "content" not in message or message.get("content") is None:
        if not (role == "assistant" and has_calls):
            found.add("content_missing", ERROR, index, f"{role} message without content")
        return
    content = message["content"]
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        found.add("content_type", ERROR, index, f"content is a {type(content).__name__}, expected a string or a list of parts")
        return
    allowed = _OPENAI_PART_TYPES.get(role, frozenset())
    for position, part in enumerate(content):
        if not isinstance(part, Mapping):
            found.add("content_type", ERROR, index, f"part {position} is a {type(part).__name__}, expected an object with a type")
            continue
        kind = part.get("type")
        if kind not in allowed:
            found.add("content_type", ERROR, index, f"part {position} has type {_short(kind)!s} (allowed for {role}: "
                      f"{', '.join(sorted(allowed))})")
        elif kind == "text" and not isinstance(part.get("text"), str):
            found.add("content_type", ERROR, index, f"text part {position} has no string 'text'")


_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
# The bare words json.loads accepts as values, longest first ("-Infinity" before "Infinity").
_JSON_WORDS = ("-Infinity", "Infinity", "false", "true", "null", "NaN")


def _is_json_text(text: str) -> bool:
    """Does ``json.loads`` accept ``text`` as a document (however deeply it is nested)?"""
    try:
        json.loads(text)
    except RecursionError:
        # Valid JSON may nest deeper than the parser's recursion allows: check it without recursion.
        return _is_deep_json_text(text)
    except ValueError:
        return False
    return True


def _is_deep_json_text(text: str) -> bool:
    """The grammar ``json.loads`` accepts, checked with an explicit stack instead of recursion."""
    from json.decoder import scanstring

    size = len(text)
    open_containers: list[str] = []
    expecting = "value"  # or "key" (inside an object) or "next" (after a complete value)
    position = 0
    try:
        while True:
            position = _JSON_SPACE.match(text, position).end()  # type: ignore[union-attr]
            char = text[position] if position < size else ""
            if expecting == "value":
                if char and char in "[{":
                    open_containers.append(char)
                    position = _JSON_SPACE.match(text, position + 1).end()  # type: ignore[union-attr]
                    closer = "]" if char == "[" else "}"
                    if text.startswith(closer, position):
                        open_containers.pop()
                        position += 1
                        expecting = "next"
                    elif char == "{":
                        expecting = "key"
                    continue
                if char == '"':
                    position = scanstring(text, position + 1, True)[1]
                else:
                    word = next((w for w in _JSON_WORDS if text.startswith(w, position)), None)
                    number = None if word else _JSON_NUMBER.match(text, position)
                    if word is None and number is None:
                        return False
                    position = position + len(word) if word else number.end()  # type: ignore[union-attr]
                expecting = "next"
            elif expecting == "key":
                if char != '"':
                    return False
                position = _JSON_SPACE.match(text, scanstring(text, position + 1, True)[1]).end()  # type: ignore[union-attr]
                if not text.startswith(":", position):
                    return False
                position += 1
                expecting = "value"
            else:
                if not open_containers:
                    return position == size
                inside = open_containers[-1]
                if char == ",":
                    position += 1
                    expecting = "value" if inside == "[" else "key"
                elif char == ("]" if inside == "[" else "}"):
                    open_containers.pop()
                    position += 1
                else:
                    return False
    except ValueError:  # a malformed string literal
        return False


def _check_openai_calls(found: _Findings, index: int, message: Mapping[str, Any], seen_ids: dict[Any, int]) -> None:
    raw = message.get("tool_calls")
    if raw is None:
        return
    if not isinstance(raw, list):
        found.add("tool_call_malformed", ERROR, index, f"tool_calls is a {type(raw).__name__}, expected a list")
        return
    in_message: set[Any] = set()
    for position, call in enumerate(raw):
        if not isinstance(call, Mapping):
            found.add("tool_call_malformed", ERROR, index, f"tool call {position} is not an object")
            continue
        cid = call.get("id")
        function = call.get("function")
        problems = []
        if not isinstance(cid, str) or not cid:
            problems.append("no id")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str) or not function.get("name"):
            problems.append("no function name")
        arguments = function.get("arguments") if isinstance(function, Mapping) else None
        if not isinstance(arguments, str):
            problems.append("arguments are not a string")
        if problems:
            found.add("tool_call_malformed", ERROR, index, f"tool call {position}: {', '.join(problems)}")
        elif arguments.strip():
            if not _is_json_text(arguments):
                found.add("arguments_not_json", WARNING, index,
                          f"tool call {_short(cid)}: arguments are not valid JSON")
        if isinstance(cid, str) and cid:
            if cid in in_message:
                found.add("duplicate_tool_call_id", ERROR, index, f"id {_short(cid)} appears twice in this message")
            elif cid in seen_ids:
                found.add("duplicate_tool_call_id", WARNING, index,
                          f"id {_short(cid)} was already used by message {seen_ids[cid]}")
            in_message.add(cid)
            seen_ids.setdefault(cid, index)


def lint_openai(messages: Sequence[Any]) -> pd.DataFrame:
    """Violations of the OpenAI chat-completions rules (see the module docstring)."""
    found = _Findings("openai")
    if not messages:
        found.add("empty_conversation", ERROR, None, "no messages")
        return _frame(found.rows)
    all_calls: dict[Any, int] = {}
    # Where each call id's tool messages are, in order: an unanswered call looks up its later result
    # here (a scan of the whole list per unanswered call made the check quadratic).
    results_of: dict[Any, list[int]] = {}
    for index, message in enumerate(messages):
        role = _role(message)
        if role == "assistant":
            for call in _calls(message):
                cid = _call_id(call)
                if cid and _hashable(cid):
                    all_calls.setdefault(cid, index)
        elif role == "tool":
            cid = message.get("tool_call_id")
            if _hashable(cid):
                results_of.setdefault(cid, []).append(index)

    seen_ids: dict[Any, int] = {}
    # The open run: the assistant message with tool calls and the tool messages right after it.
    run_owner: int | None = None
    run_calls: list[Any] = []  # in call order, for the findings' order ...
    run_call_ids: set[Any] = set()  # ... and as a set: a run of thousands of parallel calls stays linear
    answered: set[Any] = set()

    def close_run() -> None:
        if run_owner is None:
            return
        for cid in run_calls:
            if cid in answered:
                continue
            results = results_of.get(cid, [])  # a run's ids are hashable: only those join it
            later = bisect_right(results, run_owner)
            where = f"; its result comes later, at message {results[later]}" if later < len(results) else ""
            found.add("unanswered_tool_call", ERROR, run_owner,
                      f"call {_short(cid)} has no tool message right after it{where}")

    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            found.add("not_a_message", ERROR, index, f"a {type(message).__name__}, not a message object")
            close_run()
            run_owner, run_calls, run_call_ids, answered = None, [], set(), set()
            continue
        role = message.get("role")
        if role == "function":
            found.add("legacy_role", WARNING, index, "role 'function' is deprecated; use 'tool'")
        elif role not in _OPENAI_ROLES:
            found.add("invalid_role", ERROR, index, f"role {_short(role)!r} is not one of "
                      f"{', '.join(sorted(_OPENAI_ROLES))}")
        if isinstance(role, str) and role in _OPENAI_PART_TYPES:
            _check_openai_content(found, index, message, role)
        if message.get("tool_calls") is not None and role != "assistant":
            found.add("tool_calls_role", ERROR, index, f"a {role} message carries tool_calls")
        if role == "assistant":
            _check_openai_calls(found, index, message, seen_ids)

        if role == "tool":
            cid = message.get("tool_call_id")
            if not cid or not _hashable(cid):
                found.add("tool_call_id_missing", ERROR, index, "tool message without tool_call_id")
                continue
            if run_owner is not None and cid in run_call_ids:
                if cid in answered:
                    found.add("duplicate_tool_result", WARNING, index,
                              f"call {_short(cid)} of message {run_owner} is already answered")
                answered.add(cid)
            elif cid in all_calls:
                found.add("misplaced_tool_result", ERROR, index,
                          f"answers call {_short(cid)} of message {all_calls[cid]}, but does not follow it directly")
            else:
                found.add("orphan_tool_result", ERROR, index, f"no tool call has id {_short(cid)}")
            continue
        close_run()
        run_owner, run_calls, run_call_ids, answered = None, [], set(), set()
        if role == "assistant":
            ids = [_call_id(call) for call in _calls(message)]
            ids = [cid for cid in ids if cid and _hashable(cid)]
            if ids:
                run_owner, run_calls, run_call_ids = index, ids, set(ids)
    close_run()
    return _frame(found.rows)


# ---------------------------------------------------------------------------------------------
# Anthropic messages


@dataclass(slots=True)  # one per turn of a long transcript: no __dict__ each
class _Turn:
    role: str  # "user" or "assistant"
    first: int  # index of its first message
    # (id, message index) pairs; most turns have none, so the list is made by the first one.
    tool_uses: list[tuple[Any, int]] | tuple[()] = ()
    tool_results: list[tuple[Any, int]] | tuple[()] = ()
    has_text: bool = False  # a user message joined this turn (text after the tool results)
    from_tools: bool = False  # the turn opened with tool results

    def add_use(self, call_id: Any, index: int) -> None:
        if not self.tool_uses:
            self.tool_uses = []
        self.tool_uses.append((call_id, index))

    def add_result(self, call_id: Any, index: int) -> None:
        if not self.tool_results:
            self.tool_results = []
        self.tool_results.append((call_id, index))


def _has_substance(message: Mapping[str, Any]) -> bool:
    """Does the message have any non-whitespace text, an image or another non-text part?"""
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str) and part.strip():
                return True
            if isinstance(part, Mapping):
                if part.get("type") == "text":
                    if isinstance(part.get("text"), str) and part["text"].strip():
                        return True
                elif part.get("type") is not None:
                    return True
        return False
    return content is not None and bool(str(content).strip())


def _empty_text_parts(message: Mapping[str, Any]) -> int:
    content = message.get("content")
    if not isinstance(content, list):
        return 0
    return sum(
        1 for part in content
        if isinstance(part, Mapping) and part.get("type") == "text"
        and not (isinstance(part.get("text"), str) and part["text"].strip())
    )


def _check_tool_blocks(found: _Findings, previous: _Turn | None, turn: _Turn, nxt: _Turn | None) -> None:
    """The tool_use/tool_result findings of the finished ``turn``, given its neighbours."""
    if turn.role == "assistant":
        answered = {cid for cid, _ in nxt.tool_results} if nxt is not None and nxt.role == "user" else set()
        for cid, index in turn.tool_uses:
            if cid not in answered:
                found.add("tool_result_not_next", ERROR, index,
                          f"tool_use {_short(cid)} has no tool_result in the next user turn")
    elif turn.tool_results:
        uses = {cid for cid, _ in previous.tool_uses} if previous is not None and previous.role == "assistant" else set()
        seen: set[Any] = set()
        for cid, index in turn.tool_results:
            if cid not in uses:
                found.add("orphan_tool_result", ERROR, index,
                          f"tool_result {_short(cid)} does not answer a tool_use of the previous assistant turn")
            elif cid in seen:
                found.add("duplicate_tool_result", ERROR, index, f"tool_use {_short(cid)} is answered twice")
            seen.add(cid)


def lint_anthropic(messages: Sequence[Any]) -> pd.DataFrame:
    """Violations of the Anthropic messages rules, checked on the converted turns (module docstring).

    Every rule about turns looks at a turn and its neighbours only, so the turns are checked in a
    window of three as they are made: a long conversation never holds all of them.
    """
    found = _Findings("anthropic")
    if not messages:
        found.add("empty_conversation", ERROR, None, "no messages")
        return _frame(found.rows)
    start = 0
    while start < len(messages) and _role(messages[start]) in ("system", "developer"):
        start += 1
    # ``current`` is the turn being made (it may still take tool results or a user message),
    # ``previous`` the finished one before it, ``before`` the one before that.
    before: _Turn | None = None
    previous: _Turn | None = None
    current: _Turn | None = None

    def open_turn(turn: _Turn) -> None:
        nonlocal before, previous, current
        if current is None:
            if turn.role != "user":
                found.add("first_not_user", ERROR, turn.first, "the conversation starts with an assistant message")
            elif turn.from_tools:
                found.add("first_not_user", ERROR, turn.first, "the conversation starts with a tool result")
        else:
            if current.role == turn.role:
                found.add("alternation", ERROR, turn.first,
                          f"two {turn.role} turns in a row (messages {current.first} and {turn.first})")
            if previous is not None:  # ``current`` is finished: the turn before it has both neighbours
                _check_tool_blocks(found, before, previous, current)
        before, previous, current = previous, current, turn

    last_index = len(messages) - 1
    for index in range(start, len(messages)):
        message = messages[index]
        if not isinstance(message, Mapping):
            found.add("not_a_message", ERROR, index, f"a {type(message).__name__}, not a message object")
            continue
        role = message.get("role")
        if role in ("system", "developer"):
            found.add("system_not_leading", ERROR, index, f"a {role} message after the conversation started")
            continue
        if role == "tool":
            cid = message.get("tool_call_id")
            if not cid or not _hashable(cid):
                found.add("tool_call_id_missing", ERROR, index, "tool message without tool_call_id")
                cid = None
            if current is None or current.role != "user" or not current.from_tools or current.has_text:
                open_turn(_Turn("user", index, from_tools=True))
            if cid is not None:
                current.add_result(cid, index)
            continue
        if role not in ("user", "assistant"):
            found.add("invalid_role", ERROR, index, f"role {_short(role)!r} has no Anthropic equivalent")
            continue
        empty_parts = _empty_text_parts(message)
        if empty_parts:
            found.add("empty_content", ERROR, index, f"{empty_parts} empty text block(s)")
        has_calls = bool(_calls(message)) and role == "assistant"
        if not _has_substance(message) and not has_calls and not (role == "assistant" and index == last_index):
            found.add("empty_content", ERROR, index, f"{role} message with no content")
        if role == "user":
            if current is not None and current.role == "user" and current.from_tools and not current.has_text:
                current.has_text = True  # text blocks after the tool_result blocks of the same user turn
                continue
            open_turn(_Turn("user", index, has_text=True))
        else:
            turn = _Turn("assistant", index)
            for call in _calls(message):
                cid = _call_id(call)
                if cid and _hashable(cid):
                    turn.add_use(cid, index)
            open_turn(turn)

    if current is None:
        found.add("no_messages", ERROR, None, "only system messages")
        return _frame(found.rows)
    if previous is not None:
        _check_tool_blocks(found, before, previous, current)
    _check_tool_blocks(found, previous, current, None)
    # A finding is made once its message has been read, after the message's own checks and any
    # earlier check of its turn, so for one message the order is that of the checks.
    rows = sorted(found.rows, key=lambda row: (row[3] if row[3] is not None else -1))
    return _frame(rows)


# ---------------------------------------------------------------------------------------------
# Both


def lint(messages: Sequence[Any], apis: Sequence[str] = APIS) -> pd.DataFrame:
    """Violations for each API in ``apis`` (``"openai"``, ``"anthropic"``), one frame."""
    frames = []
    for api in apis:
        if api == "openai":
            frames.append(lint_openai(messages))
        elif api == "anthropic":
            frames.append(lint_anthropic(messages))
        else:
            raise ValueError(f"unknown API {api!r}; expected one of {', '.join(APIS)}")
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return _frame([])
    return pd.concat(frames, ignore_index=True)


def error_count(violations: pd.DataFrame, api: str | None = None) -> int:
    """How many ``error`` rows (for one API, or all)."""
    rows = violations[violations["severity"] == ERROR]
    if api is not None:
        rows = rows[rows["api"] == api]
    return int(len(rows))


def is_valid(violations: pd.DataFrame, api: str | None = None) -> bool:
    """True when the API (or every API) would accept the request: no ``error`` rows."""
    return error_count(violations, api) == 0


def lint_summary(violations: pd.DataFrame, apis: Sequence[str] = APIS) -> pd.DataFrame:
    """Per API: ``errors``, ``warnings`` and ``valid`` (no errors)."""
    records = []
    for api in apis:
        rows = violations[violations["api"] == api]
        errors = int((rows["severity"] == ERROR).sum())
        records.append({"api": api, "errors": errors, "warnings": int((rows["severity"] == WARNING).sum()),
                        "valid": errors == 0})
    return pd.DataFrame(records, columns=["api", "errors", "warnings", "valid"])
