"""OpenAI Responses API items (``input`` / ``output`` lists); also used for Codex rollouts.

Function calls that follow an assistant message (or each other) join that assistant message,
so parallel calls become one assistant turn with several ``tool_calls`` as in Chat Completions.
Reasoning summaries attach to the next assistant message; their encrypted content is dropped.
A response object's ``usage`` (the request that produced its ``output``) becomes the usage of the
last assistant message of the output.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

from core.formats.messages import (
    Builder,
    FieldProblem,
    IdMaker,
    candidate_items,
    image_part,
    kind_of,
    make_message,
    simplify_parts,
    text_part,
    tool_call,
)
from core.formats.model import CompactionEvent, Conversation
from core.formats.source import InputSource
from core.formats.spec import FormatSpec
from core.safe_text import quoted

NAME = "openai-responses"

TOOL_ITEM_TYPES = frozenset(
    {
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "mcp_call",
    }
)
ITEM_TYPES = TOOL_ITEM_TYPES | {"message", "reasoning", "compaction", "compaction_summary", "item_reference"}
_TEXT_PART_TYPES = ("input_text", "output_text", "text", "summary_text", "reasoning_text")


def looks_like(items: list[Any]) -> bool:
    dicts = [item for item in items[:200] if isinstance(item, dict)]
    if not dicts:
        return False
    for item in dicts:
        kind = item.get("type")
        if isinstance(kind, str) and kind in TOOL_ITEM_TYPES and ("call_id" in item or "id" in item) and "role" not in item:
            return True
        if kind == "reasoning" and "summary" in item:
            return True
        if kind == "message" and isinstance(item.get("content"), list):
            if any(isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "input_image") for p in item["content"]):
                return True
    return False


def _output_content(value: Any, where: str) -> Any:
    """A function_call_output ``output``: a string, or a list of input parts."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return simplify_parts([_part(part, f"{where}[{i}]") for i, part in enumerate(value)])
    return json.dumps(value, ensure_ascii=False)


def _part(part: Any, where: str) -> dict[str, Any]:
    if isinstance(part, str):
        return text_part(part)
    if not isinstance(part, dict):
        raise FieldProblem(where, f"expected a content part object, got {kind_of(part)}")
    kind = part.get("type")
    if kind in _TEXT_PART_TYPES:
        return text_part(str(part.get("text", "")))
    if kind == "refusal":
        return text_part(str(part.get("refusal", "")))
    if kind in ("input_image", "image_url"):
        url = part.get("image_url")
        if isinstance(url, dict):
            return image_part(str(url.get("url", "")), url.get("detail"))
        if isinstance(url, str):
            return image_part(url, part.get("detail"))
        if part.get("file_id"):
            return image_part(f"file_id:{part['file_id']}", part.get("detail"))
        raise FieldProblem(where, "expected 'image_url' (a URL string) on an input_image part")
    return copy.deepcopy(part)


class ResponsesAssembler:
    """Feeds Responses items one by one into a Builder."""

    def __init__(self, builder: Builder, ids: IdMaker | None = None) -> None:
        self.builder = builder
        self.ids = ids or IdMaker("call_")
        self.pending_reasoning: list[str] = []
        self.open_assistant: int | None = None
        self.skipped: Counter[str] = Counter()

    def add(self, item: Any, where: str) -> bool:
        """Take one item; False when its type has no place in a chat conversation (it is counted)."""
        if not isinstance(item, dict):
            raise FieldProblem(where, f"expected a Responses item object, got {kind_of(item)}")
        kind = item.get("type")
        if kind is None and "role" in item:
            kind = "message"
        if kind == "message":
            self._message(item, where)
        elif kind == "reasoning":
            texts = [
                str(part.get("text", ""))
                for key in ("summary", "content")
                for part in (item.get(key) if isinstance(item.get(key), list) else [])
                if isinstance(part, dict) and part.get("text")
            ]
            if texts:
                self.pending_reasoning.append("\n".join(texts))
        elif kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call", "computer_call", "mcp_call", "file_search_call"):
            self._call(item, kind, where)
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "computer_call_output"):
            call_id = item.get("call_id")
            if not call_id:
                raise FieldProblem(f"{where}.call_id", f"expected the id of the call this {kind} answers")
            content = _output_content(item.get("output"), f"{where}.output")
            self.builder.add(make_message("tool", content, tool_call_id=str(call_id)), where)
        elif kind in ("compaction", "compaction_summary"):
            summary = item.get("summary") if isinstance(item.get("summary"), str) else None
            self.builder.events.append(
                CompactionEvent(position=len(self.builder), kind="responses-compaction", summary=summary, source=where)
            )
        else:
            self.skipped[str(kind)] += 1
            return False
        return True

    def _message(self, item: dict[str, Any], where: str) -> None:
        role = item.get("role")
        if role not in ("user", "assistant", "system", "developer"):
            raise FieldProblem(f"{where}.role", f"expected user, assistant, system or developer, got {quoted(role)}")
        raw = item.get("content")
        if raw == [] and role == "assistant":
            content = None  # an empty assistant message only marks where a new assistant turn begins
        elif isinstance(raw, list):
            content = simplify_parts([_part(part, f"{where}.content[{i}]") for i, part in enumerate(raw)])
        elif isinstance(raw, str) or raw is None:
            content = raw if raw is not None else ""
        else:
            raise FieldProblem(f"{where}.content", f"expected a string or a list of parts, got {kind_of(raw)}")
        reasoning = None
        if role == "assistant":
            reasoning = self._take_reasoning()
        index = self.builder.add(make_message(role, content), where, reasoning=reasoning)
        self.open_assistant = index if role == "assistant" else None

    def _call(self, item: dict[str, Any], kind: str, where: str) -> None:
        call_id = item.get("call_id") or item.get("id")
        if call_id:
            call_id = str(call_id)
            self.ids.reserve(call_id)
        else:
            call_id = self.ids.new()
        if kind == "function_call":
            name, arguments = str(item.get("name", "")), item.get("arguments", "{}")
        elif kind == "custom_tool_call":
            # Free-form tool input (e.g. a patch) is what the model wrote; it is kept verbatim.
            name, arguments = str(item.get("name", "")), str(item.get("input", ""))
        elif kind == "local_shell_call":
            name, arguments = "local_shell", item.get("action") or {}
        else:
            name, arguments = kind.removesuffix("_call"), item.get("action") or item.get("arguments") or {}
        self._attach_call(tool_call(call_id, name, arguments), where)
        if kind in ("web_search_call", "file_search_call"):
            # Hosted tools have no output item; their status stands in for the result so the
            # call keeps a partner (the results themselves reach the model inside its next message).
            status = {"status": item.get("status", "completed")}
            self.builder.add(make_message("tool", json.dumps(status), tool_call_id=call_id), where)
            self.builder.note("hosted_tool_calls", where)

    def _attach_call(self, call: dict[str, Any], where: str) -> None:
        """A tool call joins the assistant message just added while it is still the last message
        (the API lists a message and its calls as separate items); otherwise it opens a new one."""
        last = self.builder.last()
        if self.open_assistant is not None and self.open_assistant == len(self.builder) - 1 and last is not None:
            last.setdefault("tool_calls", []).append(call)
            if self.pending_reasoning:
                extra = self._take_reasoning()
                current = self.builder.reasoning[-1]
                self.builder.reasoning[-1] = f"{current}\n{extra}" if current else extra
        else:
            message = make_message("assistant", None, tool_calls=[call])
            self.open_assistant = self.builder.add(message, where, reasoning=self._take_reasoning())

    def _take_reasoning(self) -> str | None:
        if not self.pending_reasoning:
            return None
        text = "\n".join(self.pending_reasoning)
        self.pending_reasoning = []
        return text

    def finish(self) -> None:
        if self.skipped:
            kinds = ", ".join(f"{kind} ({count})" for kind, count in self.skipped.items())
            self.builder.warnings.append(f"Responses items of these types were skipped: {kinds}")


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    builder = Builder(NAME, src.name)
    assembler = ResponsesAssembler(builder)
    model = None
    tools = None
    if isinstance(doc, list):
        sections: list[tuple[str, Any]] = [("", doc)]
    elif isinstance(doc, dict):
        model = doc.get("model") if isinstance(doc.get("model"), str) else None
        tools = doc.get("tools") if isinstance(doc.get("tools"), list) else None
        instructions = doc.get("instructions")
        if isinstance(instructions, str) and instructions.strip():
            builder.add(make_message("system", instructions), "instructions")
        sections = []
        for key in ("input", "output"):
            value = doc.get(key)
            if isinstance(value, str):
                value = [{"type": "message", "role": "user", "content": value}]
            if isinstance(value, list):
                sections.append((key, value))
        if not sections:
            raise FieldProblem("input", "expected a list of Responses items under 'input' (or 'output')")
    else:
        raise FieldProblem(None, f"expected a list of Responses items or an object with 'input', got {kind_of(doc)}")
    builder.tally.unit = "item"
    output_start: int | None = None
    for key, items in sections:
        if key == "output":
            output_start = len(builder)
        for index, item in enumerate(items):
            where = f"{key}[{index}]" if key else f"[{index}]"
            if assembler.add(item, f"{key}[{index}]"):
                builder.tally.place((key, index), where)
            else:
                builder.tally.skip((key, index), "Responses items without a chat equivalent", where, announced=True)
    assembler.finish()
    usage = doc.get("usage") if isinstance(doc, dict) else None
    if isinstance(usage, dict) and output_start is not None:
        # A response object: its usage is the one request that produced the output.
        answers = [i for i in range(output_start, len(builder)) if builder.messages[i]["role"] == "assistant"]
        if answers:
            builder.usage[answers[-1]] = dict(usage)
    return builder.build(model=model, tools=tools)


def _parts_for(content: Any, role: str) -> list[dict[str, Any]]:
    text_type = "output_text" if role == "assistant" else "input_text"
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": text_type, "text": content}]
    parts = []
    for part in content:
        if part.get("type") == "text":
            parts.append({"type": text_type, "text": part.get("text", "")})
        elif part.get("type") == "image_url":
            image = part.get("image_url") or {}
            converted: dict[str, Any] = {"type": "input_image", "image_url": image.get("url", "")}
            if image.get("detail"):
                converted["detail"] = image["detail"]
            parts.append(converted)
        else:
            parts.append(copy.deepcopy(part))
    return parts


def to_document(conv: Conversation) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for index, message in enumerate(conv.messages):
        role = message["role"]
        reasoning = conv.reasoning[index] if index < len(conv.reasoning) else None
        if role == "assistant" and reasoning:
            items.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}]})
        if role == "tool":
            content = message.get("content")
            output: Any = content if isinstance(content, str) or content is None else _parts_for(content, "user")
            items.append({"type": "function_call_output", "call_id": message.get("tool_call_id", ""), "output": output or ""})
            continue
        content = message.get("content")
        if content is not None:
            items.append({"type": "message", "role": role, "content": _parts_for(content, role)})
        elif role == "assistant" and index > 0 and conv.messages[index - 1]["role"] == "assistant":
            # Without a marker these calls would join the previous assistant message on loading.
            items.append({"type": "message", "role": "assistant", "content": []})
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.get("id", ""),
                    "name": function.get("name", ""),
                    "arguments": function.get("arguments", "{}"),
                }
            )
    doc: dict[str, Any] = {}
    if conv.model:
        doc["model"] = conv.model
    doc["input"] = items
    if conv.tools:
        doc["tools"] = copy.deepcopy(conv.tools)
    return doc


def _detect_document(doc: Any) -> bool:
    if isinstance(doc, dict) and isinstance(doc.get("input"), str):
        return True
    # A chat document ({"messages": [...]}) whose parts happen to use Responses part types stays chat.
    return looks_like(candidate_items(doc)) and not (isinstance(doc, dict) and "messages" in doc and "input" not in doc)


FORMAT = FormatSpec(
    name=NAME,
    description="OpenAI Responses API items (input/output lists)",
    detect_document=_detect_document,
    detect_records=lambda records: looks_like([value for _, value in records]),
    parse_document=parse_document,
    write=to_document,
    aliases=("responses",),
)
