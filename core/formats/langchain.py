"""LangChain messages: ``messages_to_dict`` (``{type, data}``), the flat ``{type, content, ...}``
form (LangGraph state, ``model_dump``) and the serialized ``{"lc": 1, "id": [..., "AIMessage"]}`` form.

``tool_calls[].args`` objects become JSON-string ``arguments``; ``usage_metadata`` becomes
the message's usage; ``response_metadata.model_name`` the model.
"""

from __future__ import annotations

from typing import Any

from core.formats.messages import (
    Builder,
    FieldProblem,
    IdMaker,
    image_part,
    kind_of,
    make_message,
    simplify_parts,
    text_part,
    tool_call,
)
from core.formats.model import Conversation
from core.formats.openai_chat import MessageNormalizer
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec
from core.safe_text import quoted

NAME = "langchain"
ROLE_OF_TYPE = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "tool",
    "chat": None,  # the role is in the message itself
    "developer": "developer",
}
ROLE_OF_CLASS = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
}


def _type_name(value: Any) -> str:
    """``human`` / ``ai`` / ... from a type field, chunk classes included (``AIMessageChunk`` → ``ai``)."""
    name = str(value).removesuffix("Chunk")
    return ROLE_OF_CLASS.get(name, name.lower())


def _lc_type(item: dict[str, Any]) -> str | None:
    ident = item.get("id")
    if item.get("lc") and isinstance(ident, list) and ident:
        name = str(ident[-1]).removesuffix("Chunk")
        return ROLE_OF_CLASS.get(name)
    return None


def is_message(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if _lc_type(item):
        return True
    return _type_name(item.get("type", "")) in ROLE_OF_TYPE and ("data" in item or "content" in item)


def message_list(doc: Any) -> list[Any] | None:
    items = doc.get("messages") if isinstance(doc, dict) else doc
    if isinstance(items, list) and items and all(is_message(item) for item in items[:50] if isinstance(item, dict)):
        return items
    return None


def looks_like(doc: Any) -> bool:
    return message_list(doc) is not None


def _fields(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The LangChain type and the field dict, whichever of the three layouts is used."""
    lc = _lc_type(item)
    if lc:
        return lc, item.get("kwargs") if isinstance(item.get("kwargs"), dict) else {}
    kind = _type_name(item.get("type"))
    data = item.get("data")
    return kind, data if isinstance(data, dict) else item


class _Converter:
    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.ids = IdMaker("call_")
        self.normalizer = MessageNormalizer(builder, self.ids)
        self.model: str | None = None

    def content(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, str):
            return value or ""
        if not isinstance(value, list):
            raise FieldProblem(where, f"expected a string or a list of content blocks, got {kind_of(value)}")
        parts = []
        for index, block in enumerate(value):
            if isinstance(block, str):
                parts.append(text_part(block))
            elif isinstance(block, dict) and block.get("type") in ("tool_use", "tool_call", "function_call"):
                continue  # repeated in tool_calls
            elif isinstance(block, dict) and block.get("type") == "image" and block.get("source_type") == "base64":
                parts.append(image_part(f"data:{block.get('mime_type', 'image/png')};base64,{block.get('data', '')}"))
            elif isinstance(block, dict) and block.get("type") == "image" and block.get("url"):
                parts.append(image_part(str(block["url"])))
            else:
                parts.append(self.normalizer.part(block, f"{where}[{index}]"))
        return simplify_parts(parts)

    def add(self, item: Any, where: str) -> None:
        if not isinstance(item, dict) or not is_message(item):
            raise FieldProblem(where, "expected a LangChain message ({type, data}, {type, content} or {lc, id, kwargs})")
        kind, fields = _fields(item)
        role = ROLE_OF_TYPE.get(kind)
        if kind == "chat":
            role = {"human": "user", "ai": "assistant"}.get(str(fields.get("role")), str(fields.get("role", "user")))
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise FieldProblem(f"{where}.role", f"expected a human, ai, system or tool message, got {quoted(role)}")
        content = self.content(fields.get("content"), f"{where}.content")
        usage = fields.get("usage_metadata") if isinstance(fields.get("usage_metadata"), dict) else None
        metadata = fields.get("response_metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("model_name") or metadata.get("model"), str):
            self.model = metadata.get("model_name") or metadata.get("model")
        extra = fields.get("additional_kwargs") if isinstance(fields.get("additional_kwargs"), dict) else {}
        reasoning = extra.get("reasoning_content") if isinstance(extra.get("reasoning_content"), str) else None
        if role == "assistant":
            calls = self._tool_calls(fields, extra, where)
            if calls and content == "":
                content = None
            self.builder.add(make_message("assistant", content, tool_calls=calls or None), where, usage=usage, reasoning=reasoning)
        elif role == "tool":
            call_id = fields.get("tool_call_id")
            if not call_id:
                raise FieldProblem(f"{where}.tool_call_id", "expected the id of the tool call this message answers")
            self.builder.add(make_message("tool", content, tool_call_id=str(call_id)), where, usage=usage)
        else:
            self.builder.add(make_message(role, content), where, usage=usage)

    def _tool_calls(self, fields: dict[str, Any], extra: dict[str, Any], where: str) -> list[dict[str, Any]]:
        calls = []
        raw = fields.get("tool_calls")
        if isinstance(raw, list) and raw:
            for index, call in enumerate(raw):
                if not isinstance(call, dict) or "name" not in call:
                    raise FieldProblem(f"{where}.tool_calls[{index}]", "expected {name, args, id}")
                call_id = str(call.get("id") or "") or self.ids.new()
                self.ids.reserve(call_id)
                calls.append(tool_call(call_id, str(call["name"]), call.get("args", {})))
            return calls
        return self.normalizer.tool_calls(extra.get("tool_calls"), f"{where}.additional_kwargs.tool_calls") or []


def _convert(items: list[Any], src: InputSource, where_of: Any, unit: str = "message") -> Conversation:
    builder = Builder(NAME, src.name, unit=unit)
    converter = _Converter(builder)
    for index, item in enumerate(items):
        converter.add(item, where_of(index))
        builder.tally.place(index)
    converter.normalizer.finish()
    return builder.build(model=converter.model)


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    items = message_list(doc)
    if items is None:
        raise FieldProblem(None, "expected a list of LangChain messages")
    prefix = "messages" if isinstance(doc, dict) else ""
    return _convert(items, src, lambda i: f"{prefix}[{i}]")


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    records = list(lines.records())
    conv = _convert([rec for _, rec in records], src, lambda i: f"line {records[i][0]}", unit="line")
    conv.warnings[:0] = lines.warnings
    return conv


FORMAT = FormatSpec(
    name=NAME,
    description="LangChain message dicts (messages_to_dict, flat, or serialized)",
    detect_document=looks_like,
    detect_records=lambda records: looks_like([value for _, value in records]),
    parse_document=parse_document,
    parse_records=parse_records,
)
