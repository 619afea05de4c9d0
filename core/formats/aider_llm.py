"""aider's LLM history (``--llm-history-file``, often ``.aider.llm.history``): every request as sent.

aider appends each request and its response (``aider/io.py`` ``log_llm_history``, the lines made
by ``aider/utils.py`` ``format_messages``)::

    TO LLM 2025-05-04T17:06:58
    -------
    SYSTEM Act as an expert software developer.
    -------
    USER give me a quick summarized overview of this repo
    LLM RESPONSE 2025-05-04T17:07:07
    ASSISTANT This repository contains ...

Each request is the whole context the model read: the system prompt, the example exchanges, the
repo map, the files added to the chat and the chat so far. Every request is a session of the
conversation list (``request-1`` ...) with its response; the last one is loaded by default, so
the conversation is exactly the last thing aider sent. ``metadata["requests"]`` lists the size of
every request (messages and characters: the file records no token counts).

List contents are written one key per line (``USER type: text``, ``USER text: ...``,
``USER Image_url URL: ...``, ``SYSTEM cache_control: {...}`` when aider asks for prompt caching),
and a multi-line value continues on lines without a role: they are read back into text and image
parts. A user message starting with aider's summary prefix (``I spoke to you previously about a
number of things.``) is the chat history aider summarised to make room: a compaction event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.formats.messages import Builder, FieldProblem, image_part, make_message, simplify_parts, text_part
from core.formats.model import CompactionEvent, Conversation, SessionInfo
from core.formats.session_pick import pick_session
from core.formats.source import InputSource

NAME = "aider"
REQUEST = re.compile(r"^TO LLM (?P<time>\S+)\s*$")
RESPONSE = re.compile(r"^LLM RESPONSE (?P<time>\S+)\s*$")
SEPARATOR = "-------"
ROLES = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant", "TOOL": "tool", "FUNCTION": "tool"}
ROLE_LINE = re.compile(r"^(?P<role>SYSTEM|USER|ASSISTANT|TOOL|FUNCTION)(?: (?P<text>.*))?$")
PART_KEY = re.compile(r"^(?P<key>type|text|cache_control|Image_url URL|image_url): ?(?P<value>.*)$")
SUMMARY_PREFIX = "I spoke to you previously about a number of things."
TITLE_CHARS = 60
BEFORE_FIRST = "lines before the first 'TO LLM' request"


def looks_like(head: str) -> bool:
    """The file starts with a request or response line, or (a piece cut out of one) with lines that
    nearly all carry a role prefix, between ``-------`` separators."""
    first = next((line for line in head.splitlines() if line.strip()), "")
    return bool(REQUEST.match(first) or RESPONSE.match(first)) or _is_fragment(head)


def _is_fragment(head: str) -> bool:
    lines = [line.rstrip("\r") for line in head.splitlines()[:200] if line.strip()]
    prefixed = sum(1 for line in lines if line == SEPARATOR or ROLE_LINE.match(line))
    return len(lines) >= 3 and SEPARATOR in lines and prefixed * 10 >= len(lines) * 9


@dataclass
class _Message:
    role: str
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line, text without the role prefix)


@dataclass
class _Request:
    time: str
    line: int
    messages: list[_Message] = field(default_factory=list)
    response_time: str | None = None
    response_line: int | None = None
    response: list[tuple[int, str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)


def _split(text: str) -> tuple[list[_Request], list[int]]:
    """The requests in file order, and the non-blank lines before the first one."""
    requests: list[_Request] = []
    before: list[int] = []
    current: _Request | None = None
    in_response = False
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the file
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        request = REQUEST.match(line)
        if request:
            current = _Request(request.group("time"), number)
            requests.append(current)
            current.lines.append(number)
            in_response = False
            continue
        if current is None:
            if line.strip():
                before.append(number)
            continue
        current.lines.append(number)
        response = RESPONSE.match(line)
        if response:
            current.response_time, current.response_line, in_response = response.group("time"), number, True
            continue
        if line == SEPARATOR and not in_response:
            current.messages.append(_Message(""))
            continue
        role = ROLE_LINE.match(line)
        value = (role.group("text") or "") if role else None
        if in_response:
            current.response.append((number, value if value is not None else line))
        elif role:
            target = current.messages[-1] if current.messages and current.messages[-1].role in ("", role.group("role")) \
                else None
            if target is None:
                target = _Message(role.group("role"))
                current.messages.append(target)
            target.role = role.group("role")
            target.lines.append((number, value))
        elif current.messages:
            current.messages[-1].lines.append((number, line))  # the rest of a multi-line list value
        # a line between 'TO LLM' and the first separator belongs to the request as it is
    return requests, before


def _content(lines: list[tuple[int, str]]) -> Any:
    """A message's lines back into its content: a string, or parts when aider wrote a list."""
    texts = [value for _, value in lines]
    if len(texts) >= 2 and texts[0] in ("type: text", "type: image_url") and PART_KEY.match(texts[1]):
        return _parts(lines)
    return "\n".join(texts)


def _parts(lines: list[tuple[int, str]]) -> Any:
    parts: list[dict[str, Any]] = []
    kind = "text"
    current: list[str] | None = None
    for _, value in lines:
        key = PART_KEY.match(value)
        if key is None:
            if current is not None:
                current.append(value)  # a continuation line of a text value
            continue
        name, body = key.group("key"), key.group("value")
        if name == "type":
            kind, current = body, None
        elif name == "text":
            current = [body]
            parts.append({"type": "text", "text": current})
        elif name in ("Image_url URL", "image_url") and kind == "image_url":
            parts.append(image_part(body))
            current = None
    result = [text_part("\n".join(p["text"])) if p["type"] == "text" else p for p in parts]
    return simplify_parts(result)


def _title(request: _Request) -> str | None:
    for message in reversed(request.messages):
        if message.role == "USER":
            text = " ".join(str(_content(message.lines)).split())
            if text:
                return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
    return None


def _size(request: _Request) -> dict[str, Any]:
    characters = sum(len(value) for message in request.messages for _, value in message.lines)
    return {
        "request": request.time,
        "line": request.line,
        "messages": len([m for m in request.messages if m.role]),
        "characters": characters,
        "response_characters": sum(len(value) for _, value in request.response),
    }


def _convert(request: _Request, builder: Builder) -> None:
    for message in request.messages:
        if not message.role:
            continue  # a separator followed by nothing (a request cut short)
        numbers = [number for number, _ in message.lines]
        where = f"line {numbers[0]}" if len(numbers) == 1 else f"lines {numbers[0]}-{numbers[-1]}"
        role = ROLES[message.role]
        content = _content(message.lines)
        if role == "tool":
            role = "user"  # a function result without the call id aider does not log
        position = builder.add(make_message(role, content), where)
        if role == "user" and isinstance(content, str) and content.startswith(SUMMARY_PREFIX):
            builder.events.append(CompactionEvent(position, "aider-summary", summary=content, source=where))
    if request.response_line is not None:
        text = "\n".join(value for _, value in request.response)
        first = request.response[0][0] if request.response else request.response_line
        last = request.response[-1][0] if request.response else request.response_line
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        builder.add(make_message("assistant", text), where)


def parse(text: str, src: InputSource, session: str | None) -> Conversation:
    requests, before = _split(text)
    if not requests:
        raise FieldProblem(
            "line 1",
            "this looks like part of an aider LLM history (role-prefixed lines between '-------' separators) "
            "without its 'TO LLM <time>' line; expected the whole .aider.llm.history file",
        )
    infos = []
    for number, request in enumerate(requests, start=1):
        count = len([m for m in request.messages if m.role]) + (1 if request.response_line is not None else 0)
        infos.append(SessionInfo(id=f"request-{number}", title=_title(request), message_count=count,
                                 started_at=request.time))
    chosen = pick_session(infos, session, src, default=infos[-1].id)
    position = [info.id for info in infos].index(chosen)
    builder = Builder(NAME, src.name)
    _convert(requests[position], builder)
    tally = builder.tally
    for number in before:
        tally.skip(number, BEFORE_FIRST, f"line {number}")
    for other, request in enumerate(requests):
        for number in request.lines:
            if other == position:
                tally.place(number)
            else:
                tally.other_session(number)
    if requests[position].response_line is None:
        builder.warnings.append(f"request {position + 1} (line {requests[position].line}) has no 'LLM RESPONSE' after it")
    builder.metadata["requests"] = [_size(request) for request in requests]
    conv = builder.build(sessions=infos, session_id=chosen)
    conv.report.notes.append("the conversation is one request as aider sent it (with its response); the file records no token counts")
    return conv
