"""Anthropic Messages: a top-level ``system`` plus user/assistant messages made of content blocks.

``tool_use`` blocks become OpenAI ``tool_calls``; each ``tool_result`` block becomes a ``tool``
message placed before the rest of its user message; image blocks become ``image_url`` parts
(base64 sources as data URLs); ``thinking`` text goes to ``Conversation.reasoning``. Claude
Code logs reuse this converter for the ``message`` of every entry.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

from core.formats.messages import (
    Builder,
    FieldProblem,
    candidate_items,
    data_url,
    image_part,
    kind_of,
    make_message,
    parse_arguments,
    simplify_parts,
    split_data_url,
    text_part,
    tool_call,
)
from core.formats.model import Conversation
from core.formats.source import InputSource
from core.formats.spec import FormatSpec
from core.safe_text import quoted

NAME = "anthropic"
_TOOL_USE_TYPES = ("tool_use", "server_tool_use", "mcp_tool_use")
_MARKER_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use")


def looks_like(items: list[Any], doc: Any = None) -> bool:
    dicts = [item for item in items[:200] if isinstance(item, dict)]
    if not dicts or any(item.get("role") == "tool" for item in dicts):
        return False
    if not all(item.get("role") in ("user", "assistant") for item in dicts):
        return False
    for item in dicts:
        content = item.get("content")
        if isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") in _MARKER_BLOCKS:
                    return True
                if block.get("type") == "image" and isinstance(block.get("source"), dict):
                    return True
    return isinstance(doc, dict) and "system" in doc


class AnthropicConverter:
    """Turns Anthropic messages into canonical messages on a Builder."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.unusual_blocks: Counter[str] = Counter()

    def image(self, block: dict[str, Any], where: str) -> dict[str, Any]:
        source = block.get("source")
        if not isinstance(source, dict):
            raise FieldProblem(f"{where}.source", "expected an image source object")
        if source.get("type") == "base64":
            return image_part(data_url(str(source.get("media_type", "image/png")), str(source.get("data", ""))))
        if source.get("type") == "url" or source.get("url"):
            return image_part(str(source.get("url", "")))
        return copy.deepcopy(block)

    def part(self, block: Any, where: str) -> dict[str, Any] | None:
        """A user-visible block as a canonical part (None for blocks that carry no content)."""
        if isinstance(block, str):
            return text_part(block)
        if not isinstance(block, dict):
            raise FieldProblem(where, f"expected a content block object, got {kind_of(block)}")
        kind = block.get("type")
        if kind == "text":
            return text_part(str(block.get("text", "")))
        if kind == "image":
            return self.image(block, where)
        if kind == "document" and isinstance(block.get("source"), dict) and block["source"].get("type") == "text":
            return text_part(str(block["source"].get("data", "")))
        self.unusual_blocks[str(kind)] += 1
        return copy.deepcopy(block)

    def tool_result_content(self, value: Any, where: str) -> Any:
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            parts = [p for i, block in enumerate(value) if (p := self.part(block, f"{where}[{i}]")) is not None]
            return simplify_parts(parts, join_texts=True)
        return json.dumps(value, ensure_ascii=False)

    def add(self, message: Any, where: str, usage: dict[str, Any] | None = None) -> list[int]:
        """Add one Anthropic message; returns the indexes of the canonical messages it produced."""
        if not isinstance(message, dict):
            raise FieldProblem(where, f"expected a message object with 'role' and 'content', got {kind_of(message)}")
        role = message.get("role")
        content = message.get("content")
        if role not in ("user", "assistant"):
            raise FieldProblem(f"{where}.role", f"expected 'user' or 'assistant', got {quoted(role)}")
        if isinstance(content, str) or content is None:
            return [self.builder.add(make_message(role, content or ""), where, usage=usage)]
        if not isinstance(content, list):
            raise FieldProblem(f"{where}.content", f"expected a string or a list of content blocks, got {kind_of(content)}")
        if role == "user":
            return self._user(content, where, usage)
        return self._assistant(content, where, usage)

    def _user(self, blocks: list[Any], where: str, usage: dict[str, Any] | None) -> list[int]:
        produced = []
        parts = []
        for index, block in enumerate(blocks):
            block_where = f"{where}.content[{index}]"
            if isinstance(block, dict) and block.get("type") == "tool_result":
                call_id = block.get("tool_use_id")
                if not call_id:
                    raise FieldProblem(f"{block_where}.tool_use_id", "expected the id of the tool_use this result answers")
                result = self.tool_result_content(block.get("content"), f"{block_where}.content")
                produced.append(self.builder.add(make_message("tool", result, tool_call_id=str(call_id)), block_where))
            else:
                part = self.part(block, block_where)
                if part is not None:
                    parts.append(part)
        if parts or not produced:
            produced.append(self.builder.add(make_message("user", simplify_parts(parts)), where, usage=usage))
        return produced

    def _assistant(self, blocks: list[Any], where: str, usage: dict[str, Any] | None) -> list[int]:
        parts = []
        calls = []
        thinking = []
        server_results: list[tuple[str, Any, str]] = []
        for index, block in enumerate(blocks):
            block_where = f"{where}.content[{index}]"
            if not isinstance(block, dict):
                parts.append(self.part(block, block_where))
                continue
            kind = block.get("type")
            if kind == "thinking":
                thinking.append(str(block.get("thinking", "")))
            elif kind == "redacted_thinking":
                self.unusual_blocks["redacted_thinking"] += 1
            elif kind in _TOOL_USE_TYPES:
                if not block.get("id"):
                    raise FieldProblem(f"{block_where}.id", "expected an id on the tool_use block")
                calls.append(tool_call(str(block["id"]), str(block.get("name", "")), block.get("input") or {}))
            elif isinstance(kind, str) and kind.endswith("_tool_result") and block.get("tool_use_id"):
                server_results.append((str(block["tool_use_id"]), block.get("content"), block_where))
            else:
                part = self.part(block, block_where)
                if part is not None:
                    parts.append(part)
        if parts:
            content = simplify_parts(parts)
        else:
            content = None if calls else ""
        reasoning = "\n".join(t for t in thinking if t) or None
        produced = [
            self.builder.add(make_message("assistant", content, tool_calls=calls or None), where, usage=usage, reasoning=reasoning)
        ]
        for call_id, result, block_where in server_results:
            text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            produced.append(self.builder.add(make_message("tool", text, tool_call_id=call_id), block_where))
        return produced

    def finish(self) -> None:
        if self.unusual_blocks:
            kinds = ", ".join(f"{kind} ({count})" for kind, count in self.unusual_blocks.items())
            self.builder.warnings.append(f"content blocks without a chat equivalent, kept or dropped as noted: {kinds}")


def system_text(system: Any, where: str) -> Any:
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        parts = []
        for index, block in enumerate(system):
            if isinstance(block, str):
                parts.append(text_part(block))
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(text_part(str(block.get("text", ""))))
            else:
                raise FieldProblem(f"{where}[{index}]", "expected a text block in the system prompt")
        return simplify_parts(parts)
    raise FieldProblem(where, f"expected a string or a list of text blocks, got {kind_of(system)}")


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    builder = Builder(NAME, src.name)
    converter = AnthropicConverter(builder)
    model = tools = None
    if isinstance(doc, dict):
        items = doc.get("messages")
        if not isinstance(items, list):
            raise FieldProblem("messages", "expected a list of Anthropic messages under 'messages'")
        prefix = "messages"
        system = doc.get("system")
        if system:
            builder.add(make_message("system", system_text(system, "system")), "system")
        model = doc.get("model") if isinstance(doc.get("model"), str) else None
        tools = doc.get("tools") if isinstance(doc.get("tools"), list) else None
    elif isinstance(doc, list):
        items, prefix = doc, ""
    else:
        raise FieldProblem(None, f"expected an object with 'messages' or a list of messages, got {kind_of(doc)}")
    builder.tally.unit = "message"
    for index, message in enumerate(items):
        converter.add(message, f"{prefix}[{index}]")
        builder.tally.place(index)
    converter.finish()
    return builder.build(model=model, tools=tools)


def _blocks(content: Any) -> list[dict[str, Any]]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [{"type": "text", "text": json.dumps(content, ensure_ascii=False)}]
    blocks = []
    for part in content:
        if part.get("type") == "text":
            blocks.append({"type": "text", "text": part.get("text", "")})
        elif part.get("type") == "image_url":
            url = (part.get("image_url") or {}).get("url", "")
            split = split_data_url(url)
            if split:
                blocks.append({"type": "image", "source": {"type": "base64", "media_type": split[0], "data": split[1]}})
            else:
                blocks.append({"type": "image", "source": {"type": "url", "url": url}})
        else:
            blocks.append(copy.deepcopy(part))
    return blocks


def to_document(conv: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    system: Any = None
    pending_user: dict[str, Any] | None = None  # a user message collecting tool results
    for index, message in enumerate(conv.messages):
        role = message["role"]
        content = message.get("content")
        if role in ("system", "developer") and not messages and pending_user is None:
            if system is None:
                system = content if isinstance(content, str) else _blocks(content)
            else:
                extra = _blocks(content)
                system = (_blocks(system) if isinstance(system, str) else system) + extra
            continue
        if role == "tool":
            if pending_user is None:
                pending_user = {"role": "user", "content": []}
                messages.append(pending_user)
            result: Any = content if isinstance(content, str) or content is None else _blocks(content)
            pending_user["content"].append(
                {"type": "tool_result", "tool_use_id": message.get("tool_call_id", ""), "content": result or ""}
            )
            continue
        if role == "assistant":
            pending_user = None
            blocks = []
            reasoning = conv.reasoning[index] if index < len(conv.reasoning) else None
            if reasoning:
                blocks.append({"type": "thinking", "thinking": reasoning})
            blocks.extend(_blocks(content))
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                arguments = function.get("arguments", "{}")
                parsed = parse_arguments(arguments)
                tool_input = parsed if isinstance(parsed, dict) else {"arguments": arguments}
                blocks.append({"type": "tool_use", "id": call.get("id", ""), "name": function.get("name", ""), "input": tool_input})
            if isinstance(content, str) and len(blocks) == 1 and blocks[0]["type"] == "text":
                messages.append({"role": "assistant", "content": content})
            else:
                messages.append({"role": "assistant", "content": blocks})
            continue
        # user (and any later system message, which Anthropic only allows as user text)
        if pending_user is not None:
            pending_user["content"].extend(_blocks(content))
            pending_user = None
        elif isinstance(content, str):
            messages.append({"role": "user", "content": content})
        else:
            messages.append({"role": "user", "content": _blocks(content)})
    doc: dict[str, Any] = {}
    if conv.model:
        doc["model"] = conv.model
    if system is not None:
        doc["system"] = system
    doc["messages"] = messages
    if conv.tools:
        doc["tools"] = copy.deepcopy(conv.tools)
    return doc


def _detect_document(doc: Any) -> bool:
    wrapper = doc if isinstance(doc, dict) and isinstance(doc.get("messages"), list) else None
    return looks_like(candidate_items(doc), wrapper)


FORMAT = FormatSpec(
    name=NAME,
    description="Anthropic Messages (a system prompt plus content blocks)",
    detect_document=_detect_document,
    detect_records=lambda records: looks_like([value for _, value in records]),
    parse_document=parse_document,
    write=to_document,
)
