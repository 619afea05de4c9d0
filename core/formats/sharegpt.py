"""ShareGPT conversations (``{"conversations": [{"from", "value"}]}``), incl. Hermes trajectories.

Hermes trajectory exports write tool calls inside ``gpt`` values as
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` and the results in ``tool`` values as
``<tool_response>...</tool_response>``; LLaMA-Factory uses ``function_call`` / ``observation``
turns. Both are rebuilt into real tool pairs with generated ids (``call_1``, ``call_2``, ...):
results answer the pending calls in order, or by name when the response names its tool.
``<think>`` blocks in ``gpt`` values go to ``Conversation.reasoning``.
"""

from __future__ import annotations

import json
from typing import Any

from core.formats.messages import (
    Builder,
    FieldProblem,
    IdMaker,
    PendingCalls,
    kind_of,
    make_message,
    parse_arguments,
    text_of,
)
from core.formats.model import Conversation, SessionInfo
from core.formats.session_pick import one_session_per_line, pick_session
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec
from core.safe_text import quoted

NAME = "sharegpt"
ROLE_OF = {
    "system": "system",
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "model": "assistant",
    "chatgpt": "assistant",
    "bing": "assistant",
    "bard": "assistant",
    "tool": "tool",
    "observation": "tool",
    "function_call": "function_call",
    "function": "tool",
}
CONVERSATION_KEYS = ("conversations", "conversation")


def looks_like_turns(items: Any) -> bool:
    if not isinstance(items, list) or not items:
        return False
    dicts = [item for item in items[:50] if isinstance(item, dict)]
    return bool(dicts) and all("from" in item and "value" in item for item in dicts)


def conversation_list(record: Any) -> list[Any] | None:
    if isinstance(record, dict):
        for key in CONVERSATION_KEYS:
            if looks_like_turns(record.get(key)):
                return record[key]
    return None


def looks_like(doc: Any) -> bool:
    if conversation_list(doc) is not None or looks_like_turns(doc):
        return True
    return isinstance(doc, list) and bool(doc) and conversation_list(doc[0]) is not None


def _between(text: str, open_tag: str, close_tag: str) -> tuple[list[str], str]:
    """Bodies of every ``open_tag ... close_tag`` and the text outside them (linear scan, no regex)."""
    bodies = []
    outside = []
    position = 0
    while True:
        start = text.find(open_tag, position)
        if start < 0:
            outside.append(text[position:])
            break
        end = text.find(close_tag, start + len(open_tag))
        if end < 0:
            # An unclosed tag (a truncated generation): the rest is its body.
            outside.append(text[position:start])
            bodies.append(text[start + len(open_tag) :])
            break
        outside.append(text[position:start])
        bodies.append(text[start + len(open_tag) : end])
        position = end + len(close_tag)
    return bodies, "".join(outside)


class _Pairing:
    def __init__(self) -> None:
        self.ids = IdMaker("call_")
        self.pending = PendingCalls()  # (name, id) of calls still waiting for a result

    def new_call(self, name: str, call_id: str | None) -> str:
        if call_id:
            self.ids.reserve(call_id)
        else:
            call_id = self.ids.new()
        self.pending.add(name, call_id)
        return call_id

    def answer(self, name: str | None, call_id: str | None) -> str | None:
        """The id of the pending call this result answers: by id, else by tool name, else the oldest."""
        taken = self.pending.take(name, call_id)
        return taken[1] if taken else None


def _calls_from_json_bodies(bodies: list[str], where: str, pairing: _Pairing, builder: Builder) -> list[dict[str, Any]]:
    calls = []
    for body in bodies:
        parsed = parse_arguments(body.strip())
        if isinstance(parsed, dict):
            parsed = [parsed]
        if not isinstance(parsed, list):
            builder.warnings.append(f"{where}: a tool call body is not JSON; kept as text")
            continue
        for call in parsed:
            if not isinstance(call, dict) or "name" not in call:
                builder.warnings.append(f"{where}: a tool call without 'name'; skipped")
                continue
            name = str(call["name"])
            arguments = call.get("arguments", call.get("parameters", {}))
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            call_id = pairing.new_call(name, str(call["id"]) if call.get("id") else None)
            calls.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})
    return calls


def message_count(record: Any) -> int:
    """How many messages a conversation record becomes (what ``parse_turns`` makes of it), without building them."""
    turns = conversation_list(record) or (record if looks_like_turns(record) else [])
    count = 0
    for turn in turns:
        if not isinstance(turn, dict):
            continue
        role = ROLE_OF.get(str(turn.get("from")).lower())
        value = turn.get("value")
        if role == "tool" and isinstance(value, str):
            count += max(1, len(_between(value, "<tool_response>", "</tool_response>")[0]))
        else:
            count += 1
    system = record.get("system") if isinstance(record, dict) else None
    if isinstance(system, str) and system.strip() and not any(isinstance(t, dict) and t.get("from") == "system" for t in turns):
        count += 1
    return count


def parse_turns(turns: list[Any], builder: Builder, prefix: str) -> None:
    pairing = _Pairing()
    builder.tally.unit = "turn"
    for index, turn in enumerate(turns):
        where = f"{prefix}[{index}]"
        builder.tally.place(index, where)
        if not isinstance(turn, dict):
            raise FieldProblem(where, f"expected a turn object with 'from' and 'value', got {kind_of(turn)}")
        speaker = turn.get("from")
        role = ROLE_OF.get(str(speaker).lower()) if speaker is not None else None
        if role is None:
            raise FieldProblem(f"{where}.from", f"expected one of {', '.join(ROLE_OF)}, got {quoted(speaker)}")
        value = turn.get("value")
        if value is None:
            value = ""
        if not isinstance(value, str):
            value = json.dumps(value, ensure_ascii=False)
        if role == "assistant":
            thoughts, rest = _between(value, "<think>", "</think>")
            bodies, text = _between(rest, "<tool_call>", "</tool_call>")
            calls = _calls_from_json_bodies(bodies, where, pairing, builder)
            if bodies and not calls:
                text = rest
            if calls or thoughts:
                text = text.strip("\n")
            reasoning = "\n".join(t.strip() for t in thoughts) or None
            builder.add(make_message("assistant", text or (None if calls else ""), tool_calls=calls or None), where, reasoning=reasoning)
        elif role == "function_call":
            calls = _calls_from_json_bodies([value], where, pairing, builder)
            if calls:
                builder.add(make_message("assistant", None, tool_calls=calls), where)
            else:
                builder.add(make_message("assistant", value), where)
        elif role == "tool":
            bodies, outside = _between(value, "<tool_response>", "</tool_response>")
            if not bodies:
                bodies = [value]
            elif outside.strip():
                builder.warnings.append(f"{where}: text outside <tool_response> tags was dropped")
            for body in bodies:
                _add_tool_result(body.strip("\n"), where, pairing, builder)
        else:
            builder.add(make_message(role, value), where)
    for _name, call_id in pairing.pending:
        builder.warnings.append(f"tool call {quoted(call_id, 64)} has no response in the conversation")


def _add_tool_result(body: str, where: str, pairing: _Pairing, builder: Builder) -> None:
    name = call_id = None
    content: Any = body
    parsed = parse_arguments(body.strip())
    # Hermes writes {"tool_call_id"?, "name": ..., "content": ...}; a bare result is kept whole.
    if isinstance(parsed, dict) and "content" in parsed and ("name" in parsed or "tool_call_id" in parsed):
        name = parsed.get("name")
        call_id = parsed.get("tool_call_id")
        inner = parsed["content"]
        content = inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)
    matched = pairing.answer(str(name) if name else None, str(call_id) if call_id else None)
    if matched is None:
        builder.warnings.append(f"{where}: a tool response without a pending tool call; kept as a user message")
        builder.add(make_message("user", content), where)
        return
    builder.add(make_message("tool", content, tool_call_id=matched), where)


def _tools_of(record: dict[str, Any]) -> list[dict[str, Any]] | None:
    tools = record.get("tools")
    if isinstance(tools, str):
        tools = parse_arguments(tools)
    return tools if isinstance(tools, list) else None


def _parse_one(record: Any, builder: Builder, prefix: str) -> tuple[str | None, list[dict[str, Any]] | None]:
    turns = conversation_list(record)
    if turns is None:
        if looks_like_turns(record):
            parse_turns(record, builder, prefix)
            return None, None
        raise FieldProblem(prefix or None, "expected a 'conversations' list of {from, value} turns")
    key = next(k for k in CONVERSATION_KEYS if record.get(k) is turns)
    system = record.get("system")
    if isinstance(system, str) and system.strip() and not any(
        isinstance(t, dict) and t.get("from") == "system" for t in turns
    ):
        builder.add(make_message("system", system), f"{prefix}.system" if prefix else "system")
    parse_turns(turns, builder, f"{prefix}.{key}" if prefix else key)
    model = record.get("model") if isinstance(record.get("model"), str) else None
    return model, _tools_of(record)


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if isinstance(doc, list) and doc and conversation_list(doc[0]) is not None:
        infos = [
            SessionInfo(id=str(rec.get("id") or index) if isinstance(rec, dict) else str(index),
                        message_count=message_count(rec))
            for index, rec in enumerate(doc)
        ]
        chosen = pick_session(infos, session, src, default=infos[-1].id)
        position = [info.id for info in infos].index(chosen)
        conv = _single(doc[position], src, f"[{position}]")
        conv.sessions, conv.session_id = infos, chosen
        conv.report.add_other_sessions(sum(_turns(rec) for i, rec in enumerate(doc) if i != position))
        return conv
    return _single(doc, src, "")


def _turns(record: Any) -> int:
    return len(conversation_list(record) or [])


def _single(record: Any, src: InputSource, prefix: str) -> Conversation:
    builder = Builder(NAME, src.name)
    model, tools = _parse_one(record, builder, prefix)
    return builder.build(model=model, tools=tools)


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    """JSONL with one conversation per line (e.g. Hermes ``trajectory_samples.jsonl``)."""
    return one_session_per_line(
        lines, src, session, holds_session=lambda rec: conversation_list(rec) is not None,
        info_of=lambda line, rec: SessionInfo(id=str(rec.get("id") or f"line {line}"), message_count=message_count(rec)),
        rows_of=_turns, convert=lambda line, rec: _single(rec, src, f"line {line}"),
        not_a_session="lines without a ShareGPT 'conversations' list",
        none_found="no ShareGPT conversations found; expected a 'conversations' list on each line",
    )


def to_document(conv: Conversation) -> dict[str, Any]:
    """ShareGPT with Hermes-style tags; images and other non-text parts are written as their text only."""
    turns: list[dict[str, str]] = []
    names: dict[str, str] = {}
    for index, message in enumerate(conv.messages):
        role = message["role"]
        content = message.get("content")
        text = text_of(content) if not isinstance(content, dict) else json.dumps(content, ensure_ascii=False)
        if role in ("system", "developer"):
            turns.append({"from": "system", "value": text})
        elif role == "user":
            turns.append({"from": "human", "value": text})
        elif role == "assistant":
            pieces = []
            reasoning = conv.reasoning[index] if index < len(conv.reasoning) else None
            if reasoning:
                pieces.append(f"<think>\n{reasoning}\n</think>")
            if text:
                pieces.append(text)
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                names[call.get("id", "")] = function.get("name", "")
                arguments = function.get("arguments", "{}")
                parsed = parse_arguments(arguments)
                body = {
                    "id": call.get("id", ""),
                    "name": function.get("name", ""),
                    "arguments": parsed if parsed is not None else arguments,
                }
                pieces.append(f"<tool_call>\n{json.dumps(body, ensure_ascii=False)}\n</tool_call>")
            turns.append({"from": "gpt", "value": "\n".join(pieces)})
        elif role == "tool":
            body = {"tool_call_id": message.get("tool_call_id", ""), "name": names.get(message.get("tool_call_id", ""), ""), "content": text}
            response = f"<tool_response>\n{json.dumps(body, ensure_ascii=False)}\n</tool_response>"
            if turns and turns[-1]["from"] == "tool":
                turns[-1]["value"] += "\n" + response
            else:
                turns.append({"from": "tool", "value": response})
    doc: dict[str, Any] = {}
    if conv.model:
        doc["model"] = conv.model
    doc["conversations"] = turns
    if conv.tools:
        doc["tools"] = json.dumps(conv.tools, ensure_ascii=False)
    return doc


def _detect_records(records: list[tuple[int, Any]]) -> bool:
    dicts = [value for _, value in records if isinstance(value, dict)]
    return bool(dicts) and all(conversation_list(value) is not None for value in dicts[:5])


FORMAT = FormatSpec(
    name=NAME,
    description="ShareGPT conversations (incl. Hermes trajectory exports)",
    detect_document=looks_like,
    detect_records=_detect_records,
    parse_document=parse_document,
    parse_records=parse_records,
    write=to_document,
)
