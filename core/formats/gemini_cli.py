# Over 600 lines: one reader for both layouts of a session (JSON, JSONL with its updates) and the files beside it.
"""Gemini CLI sessions (``~/.gemini/tmp/<project>/chats/session-*.json`` and ``session-*.jsonl``).

The JSON file is one ``ConversationRecord``: ``sessionId``, ``projectHash``, ``startTime``,
``lastUpdated``, ``summary`` and ``messages``. Since spring 2026 the CLI appends to a JSONL file
instead: a metadata first line, message records written again by ``id`` as they grow (a tool call
completing, tokens arriving: the last version of an id wins and keeps the id's first place),
``{"$set": {...}}`` metadata updates and ``{"$rewindTo": id}`` rewinds. A ``$set`` that holds
``messages`` replaces the whole list, as Gemini CLI's own loader does.

Messages, as Gemini CLI sends them to the model when it resumes:

* ``user`` records are user messages; their ``functionResponse`` parts are tool results. Slash
  commands and empty prompts are not sent (metadata); ``<session_context>`` / ``<hook_context>``
  blocks are context the CLI adds itself (``Conversation.injected``, skipped with a warning).
* ``gemini`` records are assistant messages: text parts, ``thought`` parts and ``thoughts``
  summaries (reasoning), ``functionCall`` parts and ``toolCalls`` (tool calls), each call answered
  by the tool message its ``result`` holds. ``tokens`` is the usage of that model call.
* ``info`` / ``warning`` / ``error`` records were shown to the user only (metadata).

A ``$set`` list that no longer holds earlier conversation messages replaced the history (a chat
compression): the dropped messages stay in place, then a :class:`CompactionEvent`
(``gemini-checkpoint``) and the new list. Messages a rewind removed are skipped with a warning.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from core.formats.fields import (
    SetAside,
    arguments_or_empty,
    call_id_or_none,
    flag_or_none,
    is_list,
    is_object,
    is_text,
    is_time,
    list_or_empty,
    object_or_none,
    text_or_none,
)
from core.formats.messages import (
    Builder,
    FieldProblem,
    IdMaker,
    data_url,
    image_part,
    kind_of,
    make_message,
    simplify_parts,
    text_of,
    text_part,
    tool_call,
)
from core.formats.model import CompactionEvent, Conversation, InjectedContext, SessionInfo
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec

NAME = "gemini-cli"
NOTICE_TYPES = ("info", "warning", "error")
MESSAGE_TYPES = ("user", "gemini", *NOTICE_TYPES)
INJECTED_PREFIXES = ("<session_context>", "<hook_context>")
HEADER_KEYS = ("projectHash", "startTime", "lastUpdated", "summary", "kind", "directories")
NOT_A_MESSAGE = f"a message record (an object with a string 'id' and a 'type' of {', '.join(MESSAGE_TYPES)})"

# Outcomes of a row, best first: a JSONL line holding several records takes the best of theirs.
PLACED = (0, "place", "")
INJECTED = (1, "skip", "context Gemini CLI adds to its requests itself (<session_context>, <hook_context>)")
NOTICE = (2, "meta", "info, warning and error notices (shown to the user, not sent to the model)")
IGNORED = (3, "meta", "slash commands and empty prompts (Gemini CLI does not send them to the model)")
DUPLICATE = (4, "meta", "tool results already recorded with their calls (written again as history turns)")
SET = (5, "meta", "metadata updates ($set: last update, summary, directories)")
HEADER = (5, "meta", "the session header (id, project hash, start time)")
REWIND = (5, "meta", "rewind markers ($rewindTo)")
SUPERSEDED = (6, "meta", "earlier versions of a message (written again as it grew; the last one is read)")
REWOUND = (7, "skip", "messages a rewind ($rewindTo) removed; Gemini CLI drops them when it resumes")
Outcome = tuple[int, str, str]


def _at(where: str, path: str) -> str:
    """``line 8`` + ``toolCalls[0]`` → ``line 8 toolCalls[0]``; ``messages[3]`` + it → ``messages[3].toolCalls[0]``."""
    return f"{where} {path}" if re.fullmatch(r"line \d+", where) else f"{where}.{path}"


def _is_header(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str)


def _is_message(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("id"), str)
        and record.get("type") in MESSAGE_TYPES
        and "uuid" not in record
    )


def _not_a_session(doc: Any) -> str | None:
    """What a file Gemini CLI keeps beside the sessions is (it is refused, naming the session files)."""
    if isinstance(doc, dict) and isinstance(doc.get("clientHistory"), list) and isinstance(doc.get("toolCall"), dict):
        return "a Gemini CLI checkpoint (what /restore reads: saved before a tool changed a file)"
    if isinstance(doc, list) and doc and all(isinstance(r, dict) and {"sessionId", "messageId", "message"} <= set(r)
                                             for r in doc[:20]):
        return "Gemini CLI's logs.json (the prompts typed, kept for the prompt history)"
    return None


def looks_like(doc: Any) -> bool:
    return (_is_header(doc) and isinstance(doc.get("messages"), list)) or _not_a_session(doc) is not None


def looks_like_records(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    if not dicts:
        return False
    if _is_header(dicts[0]):
        return True
    # A file whose header line was lost: its own update rows, or model records, mark it.
    ops = [r for r in dicts if isinstance(r.get("$set"), dict) or isinstance(r.get("$rewindTo"), str)]
    models = [r for r in dicts if _is_message(r) and r.get("type") == "gemini"]
    return bool(ops or models) and all(_is_message(r) or r in ops for r in dicts)


# ---------------------------------------------------------------------------------------------
# Records to messages


def _parts(content: Any, where: str, name: str = "content") -> list[Any]:
    """A ``PartListUnion`` as a list: a string, one part, or a list of parts and strings."""
    if content is None:
        return []
    if isinstance(content, (str, dict)):
        return [content]
    if isinstance(content, list):
        return content
    raise FieldProblem(_at(where, name), f"expected a string, a part or a list of parts, got {kind_of(content)}")


def _check_part(part: Any, where: str) -> None:
    """The keys of a part that decide what it is: a wrong type there would turn a call, a result or
    a thought into visible text (or drop it), so it is refused."""
    if not isinstance(part, dict):
        return
    for key in ("functionCall", "functionResponse", "inlineData", "fileData"):
        object_or_none(part.get(key), _at(where, key), f"the part's {key}")
    text_or_none(part.get("text"), _at(where, "text"), "the part's text")
    flag_or_none(part.get("thought"), _at(where, "thought"), "whether the part is a thought")


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and isinstance(part.get("text"), str):
        return part["text"]
    return ""


def _response_text(response: Any) -> str:
    """What a ``functionResponse.response`` holds: its ``output`` or ``error`` text, else its JSON."""
    if isinstance(response, dict):
        for key in ("output", "error"):
            if isinstance(response.get(key), str) and len(response) == 1:
                return response[key]
        if isinstance(response.get("output"), str):
            return response["output"]
    if isinstance(response, str):
        return response
    return json.dumps(response, ensure_ascii=False)


@dataclass
class _Entry:
    """One message record and the row it was read from."""

    record: dict[str, Any]
    key: Hashable
    where: str
    first_line: int = 0


class _Converter:
    """Message records into canonical messages on a Builder (see the module docstring)."""

    def __init__(self, builder: Builder, aside: SetAside) -> None:
        self.builder = builder
        self.ids = IdMaker("call_")
        self.open: dict[str, tuple[int, str, Any]] = {}  # call id -> (message index, name, arguments)
        self.answered: set[str] = set()
        self.model: str | None = None
        self.aside = aside
        self.unusual: Counter[str] = Counter()
        self.unanswered: list[dict[str, Any]] = []
        self.recovered: list[dict[str, Any]] = []

    def convert(self, record: dict[str, Any], where: str) -> Outcome:
        kind = record.get("type")
        if kind in NOTICE_TYPES:
            return NOTICE
        if kind == "user":
            return self.user(record, where)
        if kind == "gemini":
            return self.gemini(record, where)
        return (8, "skip", f"records of type {kind!r} (not a Gemini CLI message type)")

    def part(self, part: Any, where: str) -> dict[str, Any] | None:
        """A user-visible part as a canonical part (None for a part without content)."""
        if isinstance(part, str):
            return text_part(part)
        if not isinstance(part, dict):
            raise FieldProblem(where, f"expected a content part object, got {kind_of(part)}")
        if isinstance(part.get("text"), str):
            return text_part(part["text"])
        inline = part.get("inlineData")
        if isinstance(inline, dict):
            mime = text_or_none(inline.get("mimeType"), _at(where, "inlineData.mimeType"), "the media type")
            mime = mime or "application/octet-stream"
            data = text_or_none(inline.get("data"), _at(where, "inlineData.data"), "the base64 data") or ""
            url = data_url(mime, data)
            return image_part(url) if mime.startswith("image/") else {"type": "file", "file": {"file_data": url}}
        linked = part.get("fileData")
        if isinstance(linked, dict):
            uri = text_or_none(linked.get("fileUri"), _at(where, "fileData.fileUri"), "the file's URI") or ""
            mime = text_or_none(linked.get("mimeType"), _at(where, "fileData.mimeType"), "the media type") or ""
            return image_part(uri) if mime.startswith("image/") else {"type": "file", "file": {"file_id": uri}}
        kind = next(iter(part), "empty")
        self.unusual[kind] += 1
        return text_part(json.dumps(part, ensure_ascii=False))

    def user(self, record: dict[str, Any], where: str) -> Outcome:
        responses: list[tuple[dict[str, Any], str]] = []
        others: list[tuple[Any, str]] = []  # each part with its place, so messages name the right one
        for position, raw in enumerate(_parts(record.get("content"), where)):
            part_where = _at(where, f"content[{position}]")
            _check_part(raw, part_where)
            if isinstance(raw, dict) and isinstance(raw.get("functionResponse"), dict):
                responses.append((raw["functionResponse"], part_where))
            else:
                others.append((raw, part_where))
        text = "".join(_part_text(p) for p, _ in others).strip()
        if not responses:
            if text.startswith(INJECTED_PREFIXES):
                kind = text.split(">", 1)[0] + ">"
                self.builder.injected.append(InjectedContext(len(self.builder), kind, text, where))
                return INJECTED
            only_text = all(isinstance(p, str) or (isinstance(p, dict) and set(p) <= {"text"}) for p, _ in others)
            if only_text and (not text or text.startswith(("/", "?"))):
                return IGNORED
        placed = False
        for response, part_where in responses:
            placed |= self.result(response, part_where)
        converted = [p for raw, part_where in others if (p := self.part(raw, part_where)) is not None]
        if converted and (text or any(p["type"] != "text" for p in converted)):
            self.builder.add(make_message("user", simplify_parts(converted)), where)
            placed = True
        return PLACED if placed else DUPLICATE

    def result(self, response: dict[str, Any], where: str, extra: list[dict[str, Any]] | None = None) -> bool:
        """One ``functionResponse`` as the tool message answering its call (False when it was answered)."""
        call_id = call_id_or_none(response.get("id"), _at(where, "functionResponse.id"))
        if call_id is not None and call_id in self.answered:
            return False
        if call_id is None:
            # Older records carry no id on the response: the oldest open call of that name.
            name = response.get("name")
            call_id = next((cid for cid, (_, n, _) in self.open.items() if n == name), None) or self.ids.new()
        if call_id not in self.open:
            self._recover_call(call_id, response.get("name"))
        self.open.pop(call_id, None)
        self.answered.add(call_id)
        text = _response_text(response.get("response"))
        content: Any = simplify_parts([text_part(text), *extra], join_texts=True) if extra else text
        self.builder.add(make_message("tool", content, tool_call_id=call_id), where)
        return True

    def _recover_call(self, call_id: str, name: Any) -> None:
        """A result whose call the file does not hold (Gemini CLI leaves the call out of the record when its
        result carried file data): the call goes on the assistant message just before, arguments unknown."""
        last = self.builder.messages[-1] if self.builder.messages else None
        if last is None or last["role"] != "assistant":
            return  # nothing to attach it to: the result stays unpaired, and the load warns about it
        name = name if isinstance(name, str) and name else "unknown_tool"
        last["tool_calls"] = [*(last.get("tool_calls") or []), tool_call(call_id, name, {})]
        self.recovered.append({"source": self.builder.sources[-1], "tool_call_id": call_id, "name": name})

    def gemini(self, record: dict[str, Any], where: str) -> Outcome:
        parts = _parts(record.get("content"), where)
        texts: list[dict[str, Any]] = []
        reasoning: list[str] = []
        calls: list[dict[str, Any]] = []
        for position, raw in enumerate(parts):
            part_where = _at(where, f"content[{position}]")
            _check_part(raw, part_where)
            if isinstance(raw, dict) and raw.get("thought") is True:
                reasoning.append(_part_text(raw))
            elif isinstance(raw, dict) and isinstance(raw.get("functionCall"), dict):
                calls.append(self.call(raw["functionCall"], part_where))
            elif isinstance(raw, dict) and raw.get("thoughtSignature") and not raw.get("text"):
                continue  # an opaque signature: nothing the model reads as text
            elif (converted := self.part(raw, part_where)) is not None and (converted["type"] != "text" or converted["text"]):
                texts.append(converted)
        if not reasoning:  # thought parts are the newer form of the same
            reasoning = self.thoughts(record.get("thoughts"), _at(where, "thoughts"))
        records = list_or_empty(record.get("toolCalls"), _at(where, "toolCalls"), "the message's tool calls")
        for position, tc in enumerate(records):
            if not isinstance(tc, dict):
                raise FieldProblem(_at(where, f"toolCalls[{position}]"), f"expected a tool call object, got {kind_of(tc)}")
        records = list(records)  # a copy: ids are filled in below, the record itself stays as read
        known = {call["id"] for call in calls}
        for position, tc in enumerate(records):
            if not (isinstance(tc.get("id"), str) and tc["id"] in known):
                calls.append(self.call({"id": tc.get("id"), "name": tc.get("name"), "args": tc.get("args")},
                                       _at(where, f"toolCalls[{position}]")))
                records[position] = {**tc, "id": calls[-1]["id"]}
        model = self.aside.keep(record.get("model"), is_text, _at(where, "model"), "model", "the model's name",
                                "the conversation's model is taken from the other messages")
        if model:
            self.model = model
        content = simplify_parts(texts) if texts else (None if calls else "")
        index = self.builder.add(
            make_message("assistant", content, tool_calls=calls or None), where,
            usage=_usage(record.get("tokens"), _at(where, "tokens"), self.aside),
            reasoning="\n".join(r for r in reasoning if r) or None,
        )
        for call in calls:
            self.open[call["id"]] = (index, call["function"]["name"], call["function"]["arguments"])
        for position, tc in enumerate(records):
            self.call_result(tc, _at(where, f"toolCalls[{position}]"))
        return PLACED

    def thoughts(self, thoughts: Any, where: str) -> list[str]:
        """The ``thoughts`` summaries as reasoning; a summary of the wrong shape is set aside."""
        found: list[str] = []
        effect = "the message is read without that thought summary"
        listed = self.aside.keep(thoughts, is_list, where, "thoughts", "a list of thought summaries",
                                 "the message is read without its thought summaries")
        for position, thought in enumerate(listed or []):
            place = f"{where}[{position}]"
            if not isinstance(thought, dict):
                self.aside.note(thought, place, "thoughts[]", "a thought summary object", effect)
                continue
            subject = self.aside.keep(thought.get("subject"), is_text, f"{place}.subject", "subject", "text", effect)
            description = self.aside.keep(thought.get("description"), is_text, f"{place}.description", "description",
                                          "text", effect)
            found.append(" ".join(piece for piece in (f"**{subject}**" if subject else "", description or "") if piece))
        return found

    def call(self, call: dict[str, Any], where: str) -> dict[str, Any]:
        call_id = call_id_or_none(call.get("id"), _at(where, "id"))
        if call_id is not None:
            self.ids.reserve(call_id)
        else:
            call_id = self.ids.new()
        name = call.get("name")
        if not isinstance(name, str):
            raise FieldProblem(_at(where, "name"), f"expected the tool's name, got {kind_of(name)}")
        return tool_call(call_id, name, arguments_or_empty(call.get("args"), _at(where, "args")))

    def call_result(self, tc: dict[str, Any], where: str) -> None:
        """The tool message a ``toolCalls`` record's ``result`` holds."""
        result = tc.get("result")
        if result is None or result == []:
            return  # no result yet: answered later, or turned into text by finish()
        extra: list[dict[str, Any]] = []
        response: dict[str, Any] | None = None
        for position, raw in enumerate(_parts(result, where, "result")):
            _check_part(raw, _at(where, f"result[{position}]"))
            if isinstance(raw, dict) and isinstance(raw.get("functionResponse"), dict) and response is None:
                response = raw["functionResponse"]
            elif (converted := self.part(raw, _at(where, f"result[{position}]"))) is not None:
                extra.append(converted)
        if response is None:
            texts = [p["text"] for p in extra if p["type"] == "text"]
            response = {"response": {"output": "\n".join(texts)}}
            extra = [p for p in extra if p["type"] != "text"]
        self.result({**response, "id": tc["id"], "name": tc.get("name")}, _at(where, "result"), extra)

    def finish(self) -> None:
        """Calls that never got a result become text of their message, so every tool pair stays whole."""
        for call_id, (index, name, arguments) in self.open.items():
            message = self.builder.messages[index]
            message["tool_calls"] = [c for c in message.get("tool_calls") or [] if c["id"] != call_id]
            if not message["tool_calls"]:
                del message["tool_calls"]
            note = f"[{name} {arguments}: no result was recorded]"
            current = text_of(message.get("content"))
            message["content"] = f"{current}\n{note}" if current else note
            self.unanswered.append({"source": self.builder.sources[index], "tool_call_id": call_id, "name": name})
        if self.unanswered:
            self.builder.metadata["unanswered_tool_calls"] = self.unanswered
            self.builder.warnings.append(
                f"{len(self.unanswered)} tool call(s) have no recorded result; each is kept as text of its message"
            )
        if self.recovered:
            self.builder.metadata["recovered_tool_calls"] = self.recovered
            self.builder.warnings.append(
                f"{len(self.recovered)} tool result(s) answer a call the file does not record; each call was added to "
                "the assistant message before its result, with its arguments unknown"
            )
        if self.unusual:
            kinds = ", ".join(f"{kind} ({count})" for kind, count in self.unusual.items())
            self.builder.warnings.append(f"content parts without a chat equivalent, kept as JSON text: {kinds}")
        if self.builder.injected:
            listed = ", ".join(f"{item.kind} at {item.source}" for item in self.builder.injected)
            self.builder.warnings.append(f"left out {len(self.builder.injected)} context block(s) Gemini CLI adds itself: {listed}")


USAGE_NAMES = {"input": "input_tokens", "cached": "cached_input_tokens", "output": "output_tokens",
               "thoughts": "reasoning_output_tokens", "tool": "tool_use_prompt_tokens", "total": "total_tokens"}


def _usage(tokens: Any, where: str, aside: SetAside) -> dict[str, Any] | None:
    """``tokens`` in the usage keys the analyses read: ``input`` is the whole prompt (promptTokenCount,
    cached tokens included), so it maps like Codex's ``input_tokens`` / ``cached_input_tokens``."""
    tokens = aside.keep(tokens, is_object, where, "tokens", "an object of token counts",
                        "the message has no usage")
    if tokens is None:
        return None
    return aside.counts(tokens, USAGE_NAMES, where) or None


# ---------------------------------------------------------------------------------------------
# The two layouts


class _Outcomes:
    """The best outcome of each row (a JSONL line can hold several records)."""

    def __init__(self) -> None:
        self.best: dict[Hashable, tuple[Outcome, str]] = {}

    def mark(self, key: Hashable, outcome: Outcome, where: str) -> None:
        current = self.best.get(key)
        if current is None or outcome[0] < current[0][0]:
            self.best[key] = (outcome, where)

    def apply(self, builder: Builder) -> None:
        tally = builder.tally
        for key, ((_, kind, reason), where) in self.best.items():
            if kind == "place":
                tally.place(key, where)
            elif kind == "meta":
                tally.meta(key, reason, where)
            else:
                tally.skip(key, reason, where, announced=reason == INJECTED[2])


def _convert(builder: Builder, segments: list[tuple[list[_Entry], CompactionEvent | None]], outcomes: _Outcomes,
             aside: SetAside) -> _Converter:
    converter = _Converter(builder, aside)
    for entries, event in segments:
        for entry in entries:
            outcomes.mark(entry.key, converter.convert(entry.record, entry.where), entry.where)
        if event is not None:
            event.position = len(builder)
            builder.events.append(event)
    converter.finish()
    return converter


def _build(builder: Builder, converter: _Converter, header: dict[str, Any], src: InputSource) -> Conversation:
    aside = converter.aside
    session_id = aside.keep(header.get("sessionId"), is_text, "sessionId", "sessionId", "the session's id",
                            "the file's name is the session's id instead") or src.name
    title = aside.keep(header.get("summary"), is_text, "summary", "summary", "the session's title as text",
                       "the session has no title")
    started = aside.keep(header.get("startTime"), is_time, "startTime", "startTime", "a timestamp",
                         "the session has no start time")
    builder.metadata["session"] = {key: header[key] for key in HEADER_KEYS if key in header and key != "summary"}
    info = SessionInfo(id=session_id, title=title, message_count=len(builder), started_at=started,
                       model=converter.model)
    builder.warnings.extend(aside.warnings())
    return builder.build(model=converter.model, sessions=[info], session_id=session_id)


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if (other := _not_a_session(doc)) is not None:
        raise FieldProblem(None, f"this is {other}, not a session; expected ~/.gemini/tmp/<project>/chats/session-*.json or .jsonl")
    if not looks_like(doc):
        raise FieldProblem(None, "expected a Gemini CLI session object with 'sessionId', 'projectHash' and 'messages'")
    builder = Builder(NAME, src.name, unit="message")
    outcomes = _Outcomes()
    entries = []
    for index, record in enumerate(doc["messages"]):
        where = f"messages[{index}]"
        if isinstance(record, dict):
            entries.append(_Entry(record, index, where))
        else:
            outcomes.mark(index, (8, "skip", f"messages that are not objects ({kind_of(record)})"), where)
    converter = _convert(builder, [(entries, None)], outcomes, SetAside())
    outcomes.apply(builder)
    return _build(builder, converter, doc, src)


class _Log:
    """The JSONL log replayed as Gemini CLI's loader replays it (module docstring)."""

    def __init__(self) -> None:
        self.state: dict[str, _Entry] = {}  # insertion order is the conversation order
        self.first_line: dict[str, int] = {}
        self.header: dict[str, Any] = {}
        self.has_header = False
        self.segments: list[tuple[list[_Entry], CompactionEvent | None]] = []
        self.outcomes = _Outcomes()
        self.aside = SetAside()

    def put(self, record: dict[str, Any], line: int, where: str) -> None:
        entry = _Entry(record, line, where, self.first_line.setdefault(record["id"], line))
        previous = self.state.get(record["id"])
        if previous is not None:
            self.outcomes.mark(previous.key, SUPERSEDED, previous.where)
        self.state[record["id"]] = entry  # a known id keeps its place

    def rewind(self, target: str, line: int) -> None:
        ids = list(self.state)
        cut = ids[ids.index(target):] if target in self.state else ids
        for message_id in cut:
            entry = self.state.pop(message_id)
            self.outcomes.mark(entry.key, REWOUND, entry.where)
        self.outcomes.mark(line, REWIND, f"line {line}")

    def checkpoint(self, messages: list[Any], line: int) -> None:
        """A ``$set`` of ``messages``: the new list; earlier conversation messages it drops stay before a compaction event."""
        new: list[_Entry] = []
        for position, record in enumerate(messages):
            where = f"line {line} $set.messages[{position}]"
            if _is_message(record):
                first = self.first_line.setdefault(record["id"], line)
                new.append(_Entry(record, line, where, first))
            else:
                self.aside.note(record, where, "$set.messages[]", NOT_A_MESSAGE, "left out of the new history")
        kept = {entry.record["id"] for entry in new}
        dropped = [e for message_id, e in self.state.items() if message_id not in kept]
        for entry in new:
            previous = self.state.get(entry.record["id"])
            if previous is not None:
                self.outcomes.mark(previous.key, SUPERSEDED, previous.where)
        history = [e for e in dropped if e.record.get("type") in ("user", "gemini")]
        if history:
            # A summary is written just before the list that puts it first: it is newer than what follows it.
            first = new[0] if new else None
            summary = None
            if first is not None and first.record.get("type") == "user" and any(e.first_line < first.first_line for e in new[1:]):
                summary = "".join(_part_text(p) for p in _parts(first.record.get("content"), first.where)) or None
            details = {"records_dropped": len(history), "records_after": len(new)}
            self.segments.append((history, CompactionEvent(0, "gemini-checkpoint", summary=summary, source=f"line {line}",
                                                           details=details)))
        for entry in dropped:
            if entry.record.get("type") not in ("user", "gemini"):
                self.outcomes.mark(entry.key, NOTICE, entry.where)
        self.state = {entry.record["id"]: entry for entry in new}


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    log = _Log()
    builder = Builder(NAME, src.name)
    for line, record in lines.records():
        where = f"line {line}"
        if not isinstance(record, dict):
            log.outcomes.mark(line, (8, "skip", f"lines that are not JSON objects ({kind_of(record)})"), where)
        elif isinstance(record.get("$rewindTo"), str):
            log.rewind(record["$rewindTo"], line)
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            log.outcomes.mark(line, SET, where)
            if update.get("messages") is not None:  # the new history: anything but a list is refused
                log.checkpoint(list_or_empty(update["messages"], f"{where} $set.messages", "the new history"), line)
            log.header.update({key: value for key, value in update.items() if key != "messages"})
        elif _is_message(record):
            log.put(record, line, where)
        elif _is_header(record):
            log.outcomes.mark(line, HEADER, where)
            log.has_header = True
            log.header.update({key: value for key, value in record.items() if key != "messages"})
            messages = list_or_empty(record.get("messages"), f"{where} messages", "the session's messages")
            for position, message in enumerate(messages):  # a whole legacy record written on one line
                if _is_message(message):
                    log.put(message, line, f"line {line} messages[{position}]")
                else:
                    log.aside.note(message, f"line {line} messages[{position}]", "messages[]", NOT_A_MESSAGE,
                                   "left out of the conversation")
        else:
            reason = "lines that are neither a message, a metadata update nor the session header"
            log.outcomes.mark(line, (8, "skip", reason), where)
    converter = _convert(builder, [*log.segments, (list(log.state.values()), None)], log.outcomes, log.aside)
    log.outcomes.apply(builder)
    builder.warnings[:0] = lines.warnings
    if not log.has_header:
        builder.warnings.append("the session header line (sessionId, projectHash) is missing; the file may be cut")
    return _build(builder, converter, log.header, src)


FORMAT = FormatSpec(
    name=NAME,
    description="Gemini CLI sessions (~/.gemini/tmp/*/chats/session-*.json and .jsonl)",
    detect_document=looks_like,
    detect_records=looks_like_records,
    parse_document=parse_document,
    parse_records=parse_records,
)
