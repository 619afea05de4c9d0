"""OpenAI Chat Completions messages: a list, ``{"messages": [...]}``, or JSONL.

Also the normaliser the other OpenAI-shaped formats (Hermes, SWE-agent) share: content parts,
``tool_calls`` (lists or JSON strings), the legacy ``function_call`` / ``role: function`` pair.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

from core.formats.messages import (
    ROLES,
    Builder,
    FieldProblem,
    IdMaker,
    PendingCalls,
    arguments_json,
    candidate_items,
    image_part,
    kind_of,
    make_message,
    text_part,
)
from core.formats.model import Conversation, SessionInfo
from core.formats.session_pick import one_session_per_line
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec
from core.profiles import COMPRESSED_SUMMARY_KEY as SUMMARY_FLAG
from core.safe_text import quoted

NAME = "openai-chat"
ACCEPTED_ROLES = ROLES + ("function",)
REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")
_KNOWN_PART_TYPES = ("text", "image_url", "input_audio", "file", "refusal")


def looks_like_message(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("role"), str) and (
        "content" in item or "tool_calls" in item or "function_call" in item
    )


def looks_like(items: list[Any]) -> bool:
    """A list of role dicts (the last-resort rule: richer formats are checked first)."""
    dicts = [item for item in items[:50] if isinstance(item, dict)]
    return bool(dicts) and all(looks_like_message(item) for item in dicts)


class MessageNormalizer:
    """Turns OpenAI-shaped message dicts (possibly with extra keys) into canonical ones."""

    def __init__(self, builder: Builder, ids: IdMaker | None = None) -> None:
        self.builder = builder
        self.ids = ids or IdMaker("call_")
        self.dropped: Counter[str] = Counter()
        self.unknown_parts: Counter[str] = Counter()
        self.tool_names: dict[str, str] = {}  # one string object per tool name
        # Legacy function calls waiting for their ``role: function`` result: (name, id).
        self.pending_functions = PendingCalls()

    def add(self, raw: Any, where: str, usage: dict[str, Any] | None = None) -> int | None:
        message, reasoning = self.normalize(raw, where)
        return self.builder.add(message, where, usage=usage, reasoning=reasoning)

    def normalize(self, raw: Any, where: str) -> tuple[dict[str, Any], str | None]:
        if not isinstance(raw, dict):
            raise FieldProblem(where, f"expected a message object with 'role', got {kind_of(raw)}")
        role = raw.get("role")
        if not isinstance(role, str) or role not in ACCEPTED_ROLES:
            raise FieldProblem(
                f"{where}.role",
                f"expected one of {', '.join(ACCEPTED_ROLES)}, got {quoted(role)}",
            )
        content = self.content(raw.get("content"), f"{where}.content")
        tool_calls = None
        tool_call_id = None
        name = raw.get("name") if isinstance(raw.get("name"), str) else None
        if role == "assistant":
            tool_calls = self.tool_calls(raw.get("tool_calls"), f"{where}.tool_calls")
            legacy = raw.get("function_call")
            if isinstance(legacy, dict) and legacy.get("name"):
                call_id = self.ids.new()
                self.pending_functions.add(str(legacy["name"]), call_id)
                tool_calls = (tool_calls or []) + [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": str(legacy["name"]), "arguments": arguments_json(legacy.get("arguments"))},
                    }
                ]
        elif role == "function":
            role = "tool"
            tool_call_id = self._claim_function_result(name)
        elif role == "tool":
            raw_id = raw.get("tool_call_id")
            if raw_id is None:
                self.builder.warnings.append(f"{where}: tool message without 'tool_call_id'")
                tool_call_id = ""
            else:
                tool_call_id = self.ids.shared(str(raw_id))
        reasoning = None
        for key in REASONING_KEYS:
            value = raw.get(key)
            if isinstance(value, str) and value.strip():
                reasoning = value
                break
        for key in raw:
            if key not in ("role", "content", "tool_calls", "tool_call_id", "name", "function_call", SUMMARY_FLAG):
                self.dropped[key] += 1
        if role == "tool" and raw.get("role") == "tool":
            name = None  # the call id already links the result; Hermes-style tool names are metadata
        message = make_message(role, content, tool_calls=tool_calls, tool_call_id=tool_call_id, name=name)
        if SUMMARY_FLAG in raw:
            # Hermes v0.17.0+ marks the summary-bearing message; the flag counts in its token estimates.
            message[SUMMARY_FLAG] = raw[SUMMARY_FLAG]
        return message, reasoning

    def _claim_function_result(self, name: str | None) -> str:
        taken = self.pending_functions.take(name)
        return taken[1] if taken else self.ids.new()

    def content(self, content: Any, where: str) -> Any:
        if content is None or isinstance(content, str):
            return content
        if isinstance(content, list):
            return [self.part(part, f"{where}[{index}]") for index, part in enumerate(content)]
        if isinstance(content, dict):
            if content.get("_multimodal"):
                return copy.deepcopy(content)  # Hermes' in-memory screenshot envelope; the compressor knows it
            if content.get("type"):
                return [self.part(content, where)]
        self.builder.warnings.append(f"{where}: expected a string, null or a list of parts; kept it as JSON text")
        return json.dumps(content, ensure_ascii=False)

    def part(self, part: Any, where: str) -> dict[str, Any]:
        if isinstance(part, str):
            return text_part(part)
        if not isinstance(part, dict):
            raise FieldProblem(where, f"expected a content part object, got {kind_of(part)}")
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            text = part.get("text", "")
            if not isinstance(text, str):
                # Kept as the log has it (Hermes v0.19.0 raises on such a part; a str() would invent text).
                self.builder.warnings.append(f"{where}.text: expected a string, got {kind_of(text)}; kept as it is")
                return {"type": "text", "text": copy.deepcopy(text)}
            return text_part(text)
        if kind in ("image_url", "input_image"):
            image = part.get("image_url")
            if isinstance(image, dict):
                return image_part(str(image.get("url", "")), image.get("detail"))
            if isinstance(image, str):
                return image_part(image, part.get("detail"))
            raise FieldProblem(f"{where}.image_url", "expected a URL string or {'url': ...}")
        if kind == "image" and isinstance(part.get("source"), dict):
            source = part["source"]
            if source.get("type") == "base64":
                return image_part(f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}")
            if source.get("url"):
                return image_part(str(source["url"]))
        if kind not in _KNOWN_PART_TYPES:
            self.unknown_parts[str(kind)] += 1
        return copy.deepcopy(part)

    def tool_calls(self, raw: Any, where: str) -> list[dict[str, Any]] | None:
        if raw is None or raw == "" or raw == []:
            return None
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError:
                raise FieldProblem(where, "expected a JSON list of tool calls, the string is not valid JSON") from None
        if isinstance(raw, dict):
            raw = [raw]
        if not isinstance(raw, list):
            raise FieldProblem(where, f"expected a list of tool calls, got {kind_of(raw)}")
        calls = []
        for index, call in enumerate(raw):
            if not isinstance(call, dict):
                self.builder.warnings.append(f"{where}[{index}]: expected a tool call object; skipped")
                continue
            function = call.get("function") if isinstance(call.get("function"), dict) else call
            name = function.get("name")
            if not isinstance(name, str):
                self.builder.warnings.append(f"{where}[{index}]: tool call without a function name")
                name = "" if name is None else str(name)
            name = self.tool_names.setdefault(name, name)  # a few names, each called thousands of times
            arguments = function.get("arguments", function.get("args"))
            call_id = call.get("id") or call.get("call_id")
            if call_id:
                call_id = str(call_id)
                self.ids.reserve(call_id)
            else:
                call_id = self.ids.new()
                self.builder.warnings.append(f"{where}[{index}]: tool call without an id; gave it {call_id!r}")
            calls.append(
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments_json(arguments)}}
            )
        return calls or None

    def finish(self) -> None:
        if self.dropped:
            self.builder.metadata["dropped_keys"] = dict(self.dropped)
        if self.unknown_parts:
            kinds = ", ".join(f"{kind} ({count})" for kind, count in self.unknown_parts.items())
            self.builder.warnings.append(f"content parts of unusual types kept as they are: {kinds}")


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    builder = Builder(NAME, src.name)
    model = None
    tools = None
    if isinstance(doc, dict):
        items = doc.get("messages")
        if not isinstance(items, list):
            raise src.error("messages", "expected a list of chat messages under the key 'messages'")
        prefix = "messages"
        model = doc.get("model") if isinstance(doc.get("model"), str) else None
        tools = doc.get("tools") or doc.get("functions")
    elif isinstance(doc, list):
        items = doc
        prefix = ""
    else:
        raise src.error(None, f"expected a list of chat messages or an object with 'messages', got {kind_of(doc)}")
    normalizer = MessageNormalizer(builder)
    builder.tally.unit = "message"
    for index, raw in enumerate(items):
        normalizer.add(raw, f"{prefix}[{index}]")
        builder.tally.place(index)
        # The message keeps what it needs of the raw item (its strings); the rest can go now, so a
        # long document is never held twice over.
        items[index] = None
    normalizer.finish()
    return builder.build(model=model, tools=tools if isinstance(tools, list) else None)


def _is_conversation(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("messages"), list)


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    """JSONL: one message per line, or one ``{"messages": [...]}`` conversation per line."""
    if any(_is_conversation(rec) for _, rec in lines.head()):

        def convert(line: int, record: dict[str, Any]) -> Conversation:
            conv = parse_document(record, src, None)
            conv.sources = [f"line {line} {where}" for where in conv.sources]
            return conv

        return one_session_per_line(
            lines, src, session, holds_session=_is_conversation,
            info_of=lambda line, rec: SessionInfo(id=str(rec.get("id") or f"line {line}"), message_count=len(rec["messages"])),
            rows_of=lambda rec: len(rec["messages"]), convert=convert,
            not_a_session="lines without a 'messages' list",
            none_found="no conversations found; expected a 'messages' list on each line",
        )
    builder = Builder(NAME, src.name)
    normalizer = MessageNormalizer(builder)
    for line, rec in lines.records():
        if not looks_like_message(rec):
            builder.warnings.append(f"line {line}: not a chat message (no 'role'); skipped")
            builder.tally.skip(line, "lines that are not chat messages", f"line {line}", announced=True)
            continue
        try:
            normalizer.add(rec, f"line {line}")
        except FieldProblem as exc:
            builder.warnings.append(f"{exc}; line skipped")
            builder.tally.skip(line, "chat messages that could not be read", f"line {line}", announced=True)
            continue
        builder.tally.place(line)
    normalizer.finish()
    builder.warnings[:0] = lines.warnings
    if not builder.messages:
        raise src.error(None, "no chat messages found; expected one JSON message object with 'role' per line")
    return builder.build()


def to_document(conv: Conversation) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if conv.model:
        doc["model"] = conv.model
    doc["messages"] = copy.deepcopy(conv.messages)
    if conv.tools:
        doc["tools"] = copy.deepcopy(conv.tools)
    return doc


def _detect_records(records: list[tuple[int, Any]]) -> bool:
    values = [value for _, value in records]
    dicts = [value for value in values if isinstance(value, dict)]
    if dicts and all(isinstance(value.get("messages"), list) for value in dicts[:5]):
        return True  # one conversation per line
    return looks_like(values)


FORMAT = FormatSpec(
    name=NAME,
    description="OpenAI Chat Completions messages",
    detect_document=lambda doc: looks_like(candidate_items(doc)),
    detect_records=_detect_records,
    parse_document=parse_document,
    parse_records=parse_records,
    write=to_document,
    aliases=("openai", "chat"),
)
