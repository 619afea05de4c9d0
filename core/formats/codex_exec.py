"""The ``codex exec --json`` event stream (JSONL, one ``{"type": ...}`` event per line).

Events: ``thread.started`` / ``thread.resumed`` (the thread id becomes the session id),
``turn.started``, ``turn.completed`` (its ``usage`` becomes the usage of the latest assistant
message; it totals the turn's model calls, so ``metadata["usage_scope"]`` is ``"turn"``), ``turn.failed`` and top-level ``error`` (warnings, listed in ``metadata["errors"]``),
and ``item.started`` / ``item.updated`` / ``item.completed`` carrying an ``item`` whose ``type``
(``item_type`` in older versions) says what it is. Each item is taken once, from its
``item.completed`` event, at that position; an item only seen started or updated (a stream cut
off mid-turn) is kept from its latest snapshot at the end, with a warning.

Items become OpenAI chat messages:

* ``agent_message`` → an assistant message with the text;
* ``reasoning`` → the reasoning text of the next assistant message (``Conversation.reasoning``);
* ``command_execution`` → a ``shell`` call with ``{"command": ...}`` and a tool result
  ``{"output": <aggregated output>, "exit_code": N}`` (plus ``"status"`` unless completed);
* ``file_change`` → an ``apply_patch`` call with ``{"changes": [{path, kind}]}`` and a result
  ``{"status": ...}``;
* ``mcp_tool_call`` → a ``mcp__<server>__<tool>`` call with the item's arguments and a result
  holding the text of the MCP result (or the error);
* ``web_search`` → a ``web_search`` call with ``{"query": ...}`` and a result ``{"status": "completed"}``;
* ``todo_list`` → an ``update_plan`` call with ``{"plan": [{step, status}]}`` (Codex's own
  plan tool) and a result with the checklist (``[x] step`` / ``[ ] step``);
* ``error`` → a warning and an entry of ``metadata["errors"]``.

A tool call right after an assistant text joins that message, as in the Responses importer.
The stream does not hold the user's prompt (it is a command-line argument): a warning says so.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from core.formats.messages import Builder, FieldProblem, kind_of, make_message, tool_call
from core.formats.model import Conversation, SessionInfo
from core.formats.openai_responses import ResponsesAssembler
from core.formats.report import RowTally
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec
from core.safe_text import quoted

NAME = "codex-exec"
ITEM_EVENTS = frozenset({"item.started", "item.updated", "item.completed"})
STREAM_EVENTS = frozenset({"thread.started", "thread.resumed", "turn.started", "turn.completed", "turn.failed"}) | ITEM_EVENTS
PROMPT_WARNING = (
    "the user's prompt is not part of a codex exec --json stream (it is a command-line argument); "
    "the transcript starts with the agent's first item"
)


def looks_like(records: list[tuple[int, Any]]) -> bool:
    """Most of the first records are exec events, and at least one is not a bare ``error``."""
    dicts = [record for _, record in records if isinstance(record, dict)]
    types = [r["type"] for r in dicts if isinstance(r.get("type"), str) and "payload" not in r]
    stream = sum(1 for kind in types if kind in STREAM_EVENTS)
    errors = sum(1 for kind in types if kind == "error")
    return stream >= 1 and stream + errors >= max(1, len(dicts) // 2)


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FieldProblem(f"{where} item.{key}", f"expected a string, got {kind_of(value)}")
    return value


def _objects(item: dict[str, Any], key: str, shape: str, where: str) -> list[tuple[str, dict[str, Any]]]:
    """``item[key]`` as a list of objects, each with where it stands (``line 3 changes[0]``)."""
    values = item.get(key)
    if not isinstance(values, list):
        raise FieldProblem(f"{where} item.{key}", f"expected a list of {shape} objects, got {kind_of(values)}")
    found = []
    for position, value in enumerate(values):
        if not isinstance(value, dict):
            raise FieldProblem(f"{where} item.{key}[{position}]", f"expected a {shape} object, got {kind_of(value)}")
        found.append((f"{where} {key}[{position}]", value))
    return found


class _Stream(ResponsesAssembler):
    """Exec items into a Builder; the reasoning and call-joining rules are the Responses ones."""

    def __init__(self, builder: Builder) -> None:
        super().__init__(builder)
        self.skipped_items: Counter[str] = Counter()

    # -- items -------------------------------------------------------------------------------

    def add_item(self, item: dict[str, Any], kind: str, where: str) -> str:
        """Take one completed item: ``"placed"``, ``"error"`` (a warning) or ``"skipped"`` (a type it does not know)."""
        if kind == "agent_message":
            text = _text(item, "text", where)
            index = self.builder.add(make_message("assistant", text), where, reasoning=self._take_reasoning())
            self.open_assistant = index
        elif kind == "reasoning":
            text = _text(item, "text", where)
            if text.strip():
                self.pending_reasoning.append(text)
        elif kind == "command_execution":
            command = _text(item, "command", where)
            exit_code = item.get("exit_code")
            if exit_code is not None and (isinstance(exit_code, bool) or not isinstance(exit_code, int)):
                raise FieldProblem(f"{where} item.exit_code", f"expected an integer or null, got {kind_of(exit_code)}")
            status = _text(item, "status", where) or "completed"
            result: dict[str, Any] = {"output": _text(item, "aggregated_output", where), "exit_code": exit_code}
            if status != "completed":
                result["status"] = status
            self._pair(item, "shell", {"command": command}, json.dumps(result, ensure_ascii=False), where)
        elif kind == "file_change":
            kept = [
                {"path": _text(change, "path", at), "kind": _text(change, "kind", at)}
                for at, change in _objects(item, "changes", "{path, kind}", where)
            ]
            status = _text(item, "status", where) or "completed"
            self._pair(item, "apply_patch", {"changes": kept}, json.dumps({"status": status}), where)
        elif kind == "mcp_tool_call":
            server = _text(item, "server", where) or "mcp"
            tool = _text(item, "tool", where) or "tool"
            arguments = item.get("arguments")
            self._pair(item, f"mcp__{server}__{tool}", arguments if arguments is not None else {}, _mcp_result(item, where), where)
        elif kind == "web_search":
            self._pair(item, "web_search", {"query": _text(item, "query", where)}, json.dumps({"status": "completed"}), where)
        elif kind == "todo_list":
            plan = [
                {"step": _text(entry, "text", at), "status": "completed" if entry.get("completed") is True else "pending"}
                for at, entry in _objects(item, "items", "{text, completed}", where)
            ]
            checklist = "\n".join(f"[{'x' if step['status'] == 'completed' else ' '}] {step['step']}" for step in plan)
            self._pair(item, "update_plan", {"plan": plan}, checklist, where)
        elif kind == "error":
            self.error(_text(item, "message", where) or "(no message)", where, "error item")
            return "error"
        else:
            self.skipped_items[kind] += 1
            return "skipped"
        return "placed"

    def _pair(self, item: dict[str, Any], name: str, arguments: Any, result: str, where: str) -> None:
        item_id = item.get("id")
        if isinstance(item_id, (str, int)) and not isinstance(item_id, bool) and str(item_id) and str(item_id) not in self.ids.taken:
            call_id = str(item_id)
            self.ids.reserve(call_id)
        else:
            call_id = self.ids.new()
        self._attach_call(tool_call(call_id, name, arguments), where)
        self.builder.add(make_message("tool", result, tool_call_id=call_id), where)
        self.open_assistant = None

    # -- everything else ---------------------------------------------------------------------

    def error(self, message: str, where: str, what: str) -> None:
        self.builder.note("errors", {"source": where, "kind": what, "message": message})
        self.builder.warnings.append(f"{where}: Codex reported an error ({what}): {message}")

    def last_assistant(self) -> int | None:
        for index in range(len(self.builder.messages) - 1, -1, -1):
            if self.builder.messages[index]["role"] == "assistant":
                return index
        return None

    def finish(self) -> None:
        leftover = self._take_reasoning()
        if leftover:
            target = self.last_assistant()
            if target is None:
                self.builder.metadata["unattached_reasoning"] = leftover
                self.builder.warnings.append("reasoning with no assistant message to attach it to is kept in metadata")
            else:
                current = self.builder.reasoning[target]
                self.builder.reasoning[target] = f"{current}\n{leftover}" if current else leftover
        if self.skipped_items:
            kinds = ", ".join(f"{kind} ({count})" for kind, count in self.skipped_items.items())
            self.builder.warnings.append(f"items of these types were left out: {kinds}")


def _mcp_result(item: dict[str, Any], where: str) -> str:
    status = _text(item, "status", where) or "completed"
    error = item.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        return json.dumps({"status": status, "error": message}, ensure_ascii=False)
    result = item.get("result")
    if isinstance(result, str):
        return result
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        texts = [str(block["text"]) for block in result["content"] if isinstance(block, dict) and isinstance(block.get("text"), str)]
        if texts and len(texts) == len(result["content"]) and result.get("structured_content") is None:
            return "\n".join(texts)
    if result is not None:
        return json.dumps(result, ensure_ascii=False)
    return json.dumps({"status": status})


def _item_kind(item: dict[str, Any], where: str) -> str:
    kind = item.get("type", item.get("item_type"))
    if not isinstance(kind, str):
        raise FieldProblem(f"{where} item.type", f"expected a string naming the item type, got {kind_of(kind)}")
    return kind


EVENT_KINDS = {
    "thread.started": "thread events (the session id)",
    "thread.resumed": "thread events (the session id)",
    "turn.started": "turn events (turn counts and usage)",
    "turn.completed": "turn events (turn counts and usage)",
    "item.started": "item snapshots superseded by the item's completion",
    "item.updated": "item snapshots superseded by the item's completion",
}


def _count_item(tally: RowTally, outcome: str, line: int, where: str) -> None:
    if outcome == "placed":
        tally.place(line, where)
    elif outcome == "error":
        tally.meta(line, "errors Codex reported (each one is a warning)", where)
    else:
        tally.skip(line, "items of types without a chat equivalent", where, announced=True)


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    builder = Builder(NAME, src.name)
    tally = builder.tally
    stream = _Stream(builder)
    thread_id: str | None = None
    completed: set[str] = set()
    unfinished: dict[str, tuple[str, str, dict[str, Any]]] = {}  # id → (event, where, latest snapshot)
    skipped_events: Counter[str] = Counter()
    totals: dict[str, int] = {}
    turns = 0
    for line, record in lines.records():
        where = f"line {line}"
        if not isinstance(record, dict):
            lines.warnings.append(f"{where}: expected an event object, got {kind_of(record)}; skipped")
            tally.skip(line, "lines that are not event objects", where, announced=True)
            continue
        kind = record.get("type")
        if not isinstance(kind, str):
            lines.warnings.append(
                f"{where}: expected a string 'type' naming the event (thread.started, item.completed, ...), "
                f"got {kind_of(kind)}; skipped"
            )
            tally.skip(line, "events without a string 'type'", where, announced=True)
            continue
        tally.meta(line, EVENT_KINDS.get(kind, "stream events"), where)
        try:
            if kind in ("thread.started", "thread.resumed"):
                value = record.get("thread_id")
                if isinstance(value, (str, int)) and not isinstance(value, bool):
                    thread_id = thread_id or str(value)
                else:
                    lines.warnings.append(f"{where}: expected a 'thread_id' string in {kind}, got {kind_of(value)}")
            elif kind == "turn.started":
                turns += 1
            elif kind == "turn.completed":
                usage = record.get("usage")
                if isinstance(usage, dict):
                    target = stream.last_assistant()
                    if target is not None:
                        builder.usage[target] = dict(usage)
                    for key, amount in usage.items():
                        if isinstance(amount, int) and not isinstance(amount, bool):
                            totals[key] = totals.get(key, 0) + amount
                elif usage is not None:
                    lines.warnings.append(f"{where}: expected a 'usage' object in turn.completed, got {kind_of(usage)}")
            elif kind in ("turn.failed", "error"):
                tally.meta(line, "errors Codex reported (each one is a warning)", where)
                error = record.get("error") if kind == "turn.failed" else record
                message = error.get("message") if isinstance(error, dict) else error
                stream.error(str(message) if message is not None else "(no message)", where,
                             "turn.failed" if kind == "turn.failed" else "error event")
            elif kind in ITEM_EVENTS:
                item = record.get("item")
                if not isinstance(item, dict):
                    lines.warnings.append(f"{where}: expected an 'item' object in this {kind} event, got {kind_of(item)}; skipped")
                    tally.skip(line, "item events without an 'item' object", where, announced=True)
                    continue
                item_kind = _item_kind(item, where)
                item_id = item.get("id")
                has_id = isinstance(item_id, (str, int)) and not isinstance(item_id, bool)
                key = str(item_id) if has_id else "#no-id"  # items without an id can only be matched to the latest one
                if kind != "item.completed":
                    if key not in completed:
                        unfinished.pop(key, None)  # the latest snapshot goes last
                        unfinished[key] = (kind, where, item, line)
                    continue
                if has_id and key in completed:
                    lines.warnings.append(f"{where}: item {quoted(key, 64)} was already completed; the repeat is ignored")
                    tally.skip(line, "repeated completions of an item", where, announced=True)
                    continue
                if has_id:
                    completed.add(key)
                unfinished.pop(key, None)
                _count_item(tally, stream.add_item(item, item_kind, where), line, where)
            else:
                skipped_events[kind] += 1
                tally.skip(line, "events of unknown types", where, announced=True)
        except FieldProblem as exc:
            lines.warnings.append(f"{exc}; skipped")
            tally.skip(line, "events that could not be read", where, announced=True)
    for key, (kind, where, item, line) in unfinished.items():
        try:
            item_kind = _item_kind(item, where)
            outcome = stream.add_item(item, item_kind, f"{where} ({kind}, never completed)")
        except FieldProblem as exc:
            lines.warnings.append(f"{exc}; skipped")
            tally.skip(line, "events that could not be read", where, announced=True)
            continue
        _count_item(tally, outcome, line, where)
        builder.warnings.append(
            f"item {quoted(key, 64)} ({item_kind}) never completed (the stream ends first); kept from its latest snapshot at {where}"
        )
    stream.finish()
    if skipped_events:
        kinds = ", ".join(f"{kind} ({count})" for kind, count in skipped_events.items())
        lines.warnings.append(f"events of unknown types were left out: {kinds}")
    builder.warnings[:0] = [PROMPT_WARNING, *lines.warnings]
    builder.metadata["turns"] = turns
    # turn.completed totals every model call of the turn: no entry is the size of one prompt.
    builder.metadata["usage_scope"] = "turn"
    if totals:
        builder.metadata["total_token_usage"] = totals
    if thread_id:
        builder.metadata["thread_id"] = thread_id
    info = SessionInfo(id=thread_id or src.name, message_count=len(builder))
    return builder.build(sessions=[info], session_id=info.id)


FORMAT = FormatSpec(
    name=NAME,
    description="the codex exec --json event stream",
    detect_records=looks_like,
    parse_records=parse_records,
)
