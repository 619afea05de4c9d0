"""Helpers shared by the importers: building canonical messages, content parts and tool calls."""

from __future__ import annotations

import json
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from typing import Any

from core import profiles as P
from core.formats.model import CompactionEvent, Conversation, InjectedContext, SessionInfo
from core.formats.report import LoadReport, RowTally
from core.safe_text import quoted

ROLES = ("system", "developer", "user", "assistant", "tool")
IMAGE_PART_TYPES = ("image_url", "input_image", "image")

# Summary prefixes written by Hermes' compressor (the stable detection key and the legacy one).
HERMES_SUMMARY_KEY = P.SUMMARY_TAG
HERMES_LEGACY_SUMMARY_PREFIX = P.LEGACY_SUMMARY_PREFIX


#: Keys under which a JSON document usually wraps its list of messages or items.
WRAPPING_KEYS = ("messages", "conversations", "input", "history", "trajectory")


def candidate_items(doc: Any) -> list[Any]:
    """The list of messages/items a document wraps (under one of the usual keys), or []."""
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        for key in WRAPPING_KEYS:
            if isinstance(doc.get(key), list):
                return doc[key]
        if isinstance(doc.get("output"), list):
            return doc["output"]
    return []


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_part(url: str, detail: str | None = None) -> dict[str, Any]:
    image: dict[str, Any] = {"url": url}
    if detail:
        image["detail"] = detail
    return {"type": "image_url", "image_url": image}


def data_url(media_type: str, base64_data: str) -> str:
    return f"data:{media_type};base64,{base64_data}"


def split_data_url(url: str) -> tuple[str, str] | None:
    """``(media_type, base64_data)`` of a base64 data URL, else None."""
    if not url.startswith("data:"):
        return None
    header, sep, payload = url.partition(",")
    if not sep or not header.endswith(";base64"):
        return None
    return header[len("data:") : -len(";base64")] or "application/octet-stream", payload


def arguments_json(value: Any) -> str:
    """Tool-call arguments as the JSON string OpenAI chat uses."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def parse_arguments(arguments: str) -> Any:
    """The arguments string parsed, or None when it is not JSON."""
    try:
        return json.loads(arguments)
    except (ValueError, TypeError, RecursionError):
        return None


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments_json(arguments)},
    }


_ROLE_NAMES = {role: role for role in ("system", "developer", "user", "assistant", "tool")}


def make_message(
    role: str,
    content: Any = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    tool_call_id: str | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    # One shared string per role: a parsed role is a new string of its own for every message.
    message: dict[str, Any] = {"role": _ROLE_NAMES.get(role, role) if type(role) is str else role, "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    if tool_call_id is not None:
        message["tool_call_id"] = tool_call_id
    if name:
        message["name"] = name
    return message


def text_of(content: Any) -> str:
    """The text view of a content value: strings as is, text parts joined with newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    return str(content)


def simplify_parts(parts: list[dict[str, Any]], join_texts: bool = False) -> Any:
    """A single text part becomes a plain string; ``join_texts`` joins several text-only parts too."""
    if not parts:
        return ""
    if all(part.get("type") == "text" for part in parts):
        if len(parts) == 1:
            return parts[0]["text"]
        if join_texts:
            return "\n".join(part["text"] for part in parts)
    return parts


def is_hermes_summary(content: Any) -> bool:
    """A Hermes handoff summary: the text starts with a summary prefix, or (the merged form of
    later versions) one of its lines does."""
    text = text_of(content)
    stripped = text.lstrip()
    if stripped.startswith(HERMES_SUMMARY_KEY) or stripped.startswith(HERMES_LEGACY_SUMMARY_PREFIX):
        return True
    return f"\n{HERMES_SUMMARY_KEY}" in text or f"\n{HERMES_LEGACY_SUMMARY_PREFIX}" in text


class FieldProblem(Exception):
    """A problem at a known place in the input; ``load`` adds the file name and raises FormatError."""

    def __init__(self, where: str | None, what: str) -> None:
        super().__init__(f"{where}: {what}" if where else what)
        self.where = where
        self.what = what


def kind_of(value: Any) -> str:
    """How a JSON value is described in error messages."""
    names = {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "a boolean"}
    return names.get(type(value), f"a {type(value).__name__}")


class IdMaker:
    """Deterministic ids for tool calls the source left without one, never reusing a taken id.

    It also hands back the one string object of each id it has seen (``shared``): a tool result
    then holds its call's id rather than an equal copy, one string less per call of a long log.
    """

    def __init__(self, prefix: str = "call_") -> None:
        self.prefix = prefix
        self.taken: dict[str, str] = {}  # each id -> the first string object holding it
        self.counter = 0

    def reserve(self, call_id: str) -> None:
        self.taken.setdefault(call_id, call_id)

    def shared(self, call_id: str) -> str:
        """``call_id``, as the string object of the call that took it when there is one."""
        return self.taken.get(call_id, call_id)

    def new(self) -> str:
        while True:
            self.counter += 1
            candidate = f"{self.prefix}{self.counter}"
            if candidate not in self.taken:
                self.taken[candidate] = candidate
                return candidate


class PendingCalls:
    """Tool calls still waiting for their result, oldest first.

    ``take`` finds one by id, else by name, else the oldest, in constant time: a log with
    thousands of open calls answered out of order must not take quadratic time.
    """

    def __init__(self) -> None:
        self._open: OrderedDict[int, tuple[str, str]] = OrderedDict()
        self._by_id: dict[str, deque[int]] = {}
        self._by_name: dict[str, deque[int]] = {}
        self._count = 0

    def __bool__(self) -> bool:
        return bool(self._open)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        """``(name, id)`` of every open call, oldest first."""
        return iter(list(self._open.values()))

    def add(self, name: str, call_id: str) -> None:
        self._count += 1
        self._open[self._count] = (name, call_id)
        self._by_id.setdefault(call_id, deque()).append(self._count)
        self._by_name.setdefault(name, deque()).append(self._count)

    def _first_open(self, index: dict[str, deque[int]], key: str | None) -> int | None:
        queue = index.get(key) if key else None
        while queue and queue[0] not in self._open:
            queue.popleft()
        return queue[0] if queue else None

    def take(self, name: str | None = None, call_id: str | None = None) -> tuple[str, str] | None:
        """Remove and return the oldest open call with ``call_id``, else with ``name``, else the oldest one."""
        if not self._open:
            return None
        found = self._first_open(self._by_id, call_id)
        if found is None:
            found = self._first_open(self._by_name, name)
        if found is None:
            found = next(iter(self._open))
        return self._open.pop(found)


class Builder:
    """Collects messages with their parallel source/usage/reasoning entries.

    ``tally`` classifies the rows of the input as the importer reads them (see
    :mod:`core.formats.report`); ``build`` turns it into the conversation's load report.
    """

    def __init__(self, fmt: str, filename: str | None, unit: str = "line") -> None:
        self.format = fmt
        self.filename = filename
        self.messages: list[dict[str, Any]] = []
        self.sources: list[str] = []
        self.usage: list[dict[str, Any] | None] = []
        self.reasoning: list[str | None] = []
        self.warnings: list[str] = []
        self.events: list[CompactionEvent] = []
        self.injected: list[InjectedContext] = []
        self.metadata: dict[str, Any] = {}
        self.tally = RowTally(unit)

    def __len__(self) -> int:
        return len(self.messages)

    def add(
        self,
        message: dict[str, Any],
        source: str,
        usage: dict[str, Any] | None = None,
        reasoning: str | None = None,
    ) -> int:
        content = message.get("content")
        if isinstance(content, list):
            for position, part in enumerate(content):
                # Consumers look part types up in sets: anything but a string type breaks them.
                if isinstance(part, dict) and not isinstance(part.get("type"), str):
                    raise FieldProblem(
                        f"{source} content part {position}",
                        f"expected a content part with a string 'type', got {kind_of(part.get('type'))}",
                    )
        self.messages.append(message)
        self.sources.append(source)
        self.usage.append(usage)
        self.reasoning.append(reasoning or None)
        return len(self.messages) - 1

    def last(self) -> dict[str, Any] | None:
        return self.messages[-1] if self.messages else None

    def note(self, key: str, value: Any) -> None:
        """Append ``value`` to the metadata list ``key``."""
        self.metadata.setdefault(key, []).append(value)

    def build(
        self,
        *,
        model: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        sessions: list[SessionInfo] | None = None,
        session_id: str | None = None,
        system_prompt: str | None = None,
        report: LoadReport | None = None,
    ) -> Conversation:
        if system_prompt is None and self.messages and self.messages[0]["role"] in ("system", "developer"):
            system_prompt = text_of(self.messages[0]["content"])
        return Conversation(
            format=self.format,
            messages=self.messages,
            sources=self.sources,
            usage=self.usage,
            reasoning=self.reasoning,
            model=model,
            system_prompt=system_prompt,
            tools=tools or None,
            compaction_events=self.events,
            injected=self.injected,
            sessions=sessions or [],
            session_id=session_id,
            warnings=self.warnings,
            filename=self.filename,
            metadata=self.metadata,
            report=report if report is not None else self.tally.report(),
        )


def reused_tool_call_ids(messages: Iterable[dict[str, Any]]) -> dict[str, list[int]]:
    """Tool-call ids that more than one call carries, each with the messages of its calls (in order)."""
    where: dict[str, list[int]] = {}
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"]:
                where.setdefault(call["id"], []).append(index)
    return {call_id: indices for call_id, indices in where.items() if len(indices) > 1}


def tool_pair_problems(messages: Iterable[dict[str, Any]]) -> list[str]:
    """Tool calls without a result and results without a call, as readable notes."""
    calls: dict[str, int] = {}
    results: dict[str, int] = {}
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict) and call.get("id"):
                calls.setdefault(call["id"], index)
        if message.get("role") == "tool" and message.get("tool_call_id"):
            results.setdefault(message["tool_call_id"], index)
    problems = [
        f"message {index}: tool call {quoted(call_id, 64)} has no result" for call_id, index in calls.items() if call_id not in results
    ]
    problems += [
        f"message {index}: tool result {quoted(call_id, 64)} has no matching call"
        for call_id, index in results.items()
        if call_id not in calls
    ]
    return problems
