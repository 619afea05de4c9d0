"""GitHub Copilot CLI sessions: ``~/.copilot/session-state/<id>/events.jsonl`` and the older
``~/.copilot/history-session-state/<id>.json``.

``events.jsonl`` holds one event per line, ``{type, data, id, timestamp, parentId}`` (the event
types are the SDK's ``session-events``). The conversation:

* ``system.message`` is the system prompt (the same text sent again later is metadata);
* ``user.message`` is a user message, as sent to the model (``transformedContent`` when recorded);
* ``assistant.message`` is an assistant message: ``content``, ``reasoningText`` (or the
  ``assistant.reasoning`` event before it) and ``toolRequests`` as tool calls; chunks of one model
  call (same ``apiCallId``) are one message. Its usage is the ``assistant.usage`` event of that call
  when the log has one (the CLI often does not persist them), else just ``outputTokens``;
* ``tool.execution_complete`` answers its call with ``result.content`` (what the model was sent),
  or the error's message;
* ``session.compaction_complete`` (successful) is a :class:`CompactionEvent`
  (``copilot-compaction``) with its token counts; its ``summaryContent`` is what the model reads
  afterwards, kept as a user message there. ``session.truncation`` and ``session.context_cleared``
  are events too; a ``session.snapshot_rewind`` drops the events it rewound (skipped with a warning).

Sub-agent events (``agentId``), the start/turn/idle markers, model changes, notices and the rest
are metadata; event types this reader does not know are skipped with a warning.

``~/.copilot/session-store.db`` is the CLI's search index of its sessions (each turn's prompt and
reply, the files touched), not a transcript: it is refused with an error naming the events file.

The older JSON is one session object: ``chatMessages`` (OpenAI chat messages) is the conversation
and ``timeline`` what the terminal showed; with no ``chatMessages`` the timeline is read instead.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from core.formats.fields import (
    SetAside,
    arguments_or_empty,
    call_id_or_none,
    flag_or_none,
    is_count,
    is_list,
    is_number,
    is_object,
    is_text,
    is_time,
    list_or_empty,
    need_text,
    object_or_none,
    text_or_none,
)
from core.formats.messages import (
    Builder,
    FieldProblem,
    IdMaker,
    image_part,
    kind_of,
    make_message,
    text_part,
    tool_call,
)
from core.formats.model import CompactionEvent, Conversation, FormatError, SessionInfo
from core.formats.openai_chat import MessageNormalizer
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec
from core.formats.tool_pairs import unanswered_calls_to_text

NAME = "copilot-cli"
CONVERSATION_EVENTS = ("user.message", "assistant.message", "tool.execution_complete", "system.message")
META = {
    "session.start": "the session header (id, version, model, working directory)",
    "session.resume": "resume markers",
    "assistant.turn_start": "turn markers", "assistant.turn_end": "turn markers", "assistant.idle": "turn markers",
    "session.idle": "turn markers", "assistant.intent": "turn markers",
    "tool.execution_start": "tool start records (the call is in the assistant message)",
    "tool.execution_partial_result": "tool progress records", "tool.execution_progress": "tool progress records",
    "session.model_change": "model changes", "session.mode_changed": "mode changes",
    "session.info": "notices shown in the terminal", "session.warning": "notices shown in the terminal",
    "system.notification": "notices shown in the terminal", "session.error": "errors shown in the terminal",
    "model.call_failure": "errors shown in the terminal", "abort": "aborts",
    "session.usage_info": "context size records", "session.usage_checkpoint": "usage checkpoints",
    "session.shutdown": "the session's closing totals", "session.compaction_start": "compaction start records",
    "session.title_changed": "session titles", "session.plan_changed": "plan and todo changes",
    "session.todos_changed": "plan and todo changes", "session.context_changed": "context changes",
    "session.workspace_file_changed": "workspace file changes", "session.task_complete": "task summaries",
    "hook.start": "hook runs", "hook.end": "hook runs", "hook.progress": "hook runs",
    "permission.requested": "permission prompts", "permission.completed": "permission prompts",
    "subagent.started": "sub-agent runs", "subagent.completed": "sub-agent runs", "subagent.failed": "sub-agent runs",
    "subagent.selected": "sub-agent runs", "subagent.deselected": "sub-agent runs", "skill.invoked": "skill runs",
    "session.snapshot_rewind": "rewind markers", "session.truncation": "context truncations (events on the replay)",
    "session.context_cleared": "context clears (events on the replay)",
    "pending_messages.modified": "queued prompts", "tool.user_requested": "tools the user ran (not model calls)",
}
USAGE_META = "usage records (on the assistant messages they belong to)"
TRANSIENT = "transient events (streaming deltas and status updates a saved log does not keep)"
SUBAGENT = "sub-agent events (its own model calls and tools, not this conversation's)"
REWOUND = "events a rewind (session.snapshot_rewind) removed"
SYSTEM_AGAIN = "system prompts sent again (the conversation keeps the first)"
# Header fields the conversation's session is described with, and what each must be.
HEADER_FIELDS = (("sessionId", is_text, "the session's id"), ("startTime", is_time, "a timestamp"),
                 ("context", is_object, "an object"))
KNOWN = frozenset({*META, *CONVERSATION_EVENTS, "assistant.reasoning", "assistant.usage", "session.compaction_complete"})


def looks_like_records(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    events = [r for r in dicts if isinstance(r.get("type"), str) and isinstance(r.get("data"), dict)]
    known = [r for r in events if r["type"] in KNOWN]
    if not known or len(events) * 2 < len(dicts):
        return False
    return known[0]["type"] == "session.start" or any(r["type"] in CONVERSATION_EVENTS for r in known)


def looks_like(doc: Any) -> bool:
    return (isinstance(doc, dict) and isinstance(doc.get("sessionId"), str) and "projectHash" not in doc
            and (isinstance(doc.get("chatMessages"), list) or isinstance(doc.get("timeline"), list)))


USAGE_NAMES = {"inputTokens": "input_tokens", "cacheReadTokens": "cached_input_tokens", "outputTokens": "output_tokens",
               "cacheWriteTokens": "cache_write_tokens", "reasoningTokens": "reasoning_tokens"}
# The other usage fields kept beside the counts, and what each must be.
USAGE_EXTRAS = {"cost": (is_number, "a number"), "model": (is_text, "the model's name"),
                "duration": (is_number, "a number of milliseconds")}


def _usage(data: dict[str, Any], where: str, aside: SetAside) -> dict[str, Any]:
    """``assistant.usage`` in the keys the analyses read: Copilot's ``inputTokens`` is the whole prompt
    (cache reads included), so it maps like Codex's ``input_tokens`` / ``cached_input_tokens``."""
    usage = aside.counts(data, USAGE_NAMES, f"{where} data")
    for key, (ok, expected) in USAGE_EXTRAS.items():
        value = aside.keep(data.get(key), ok, f"{where} data.{key}", key, expected, "left out of the usage")
        if value is not None:
            usage[key] = value
    return usage


def _result(data: dict[str, Any], where: str) -> Any:
    """What the model was sent for a finished tool: ``result.content``, else ``detailedContent``, else the error."""
    result = object_or_none(data.get("result"), f"{where} data.result", "the tool's result") or {}
    text = text_or_none(result.get("content"), f"{where} data.result.content", "the result the model was sent")
    if not text:  # (None when absent too: then the error says what happened)
        text = text_or_none(result.get("detailedContent"), f"{where} data.result.detailedContent", "the result")
    if text is None:
        error = data.get("error")
        if isinstance(error, dict):
            text = text_or_none(error.get("message"), f"{where} data.error.message", "the error message") or ""
        else:
            text = text_or_none(error, f"{where} data.error", "the error (an object or text)") or ""
    images = []
    for position, item in enumerate(list_or_empty(result.get("contents"), f"{where} data.result.contents", "the result's contents")):
        if isinstance(item, dict) and item.get("type") == "image" and item.get("data"):
            place = f"{where} data.result.contents[{position}]"
            data_text = need_text(item["data"], f"{place}.data", "the image's base64 data")
            mime = text_or_none(item.get("mimeType"), f"{place}.mimeType", "the image's media type") or "image/png"
            images.append(image_part(f"data:{mime};base64,{data_text}"))
    return [text_part(text), *images] if images else text


class _Events:
    """The events of one log into messages (module docstring)."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.tally = builder.tally
        self.ids = IdMaker("call_")
        self.header: dict[str, Any] = {}
        self.model: str | None = None
        self.system: str | None = None
        self.reasoning: list[str] = []
        self.calls: set[str] = set()
        self.last_api: tuple[str, int] | None = None  # (apiCallId, index) of the assistant message it made
        self.api_calls: dict[str, int] = {}
        self.compaction_tokens: int | None = None
        self.last_opaque: tuple[str, int] | None = None  # (reasoningOpaque, index) of the last assistant message
        self.aside = SetAside()

    def keep(self, data: dict[str, Any], key: str, ok: Any, where: str, expected: str, effect: str) -> Any:
        """``data[key]`` when absent or of the kind ``ok`` accepts, else None (set aside with a warning)."""
        return self.aside.keep(data.get(key), ok, f"{where} data.{key}", key, expected, effect)

    def model_from(self, data: dict[str, Any], key: str, where: str) -> None:
        model = self.keep(data, key, is_text, where, "the model's name", "the model is taken from the other events")
        if model is not None:
            self.model = model

    def add(self, line: int, event: dict[str, Any]) -> None:
        kind, where = event["type"], f"line {line}"
        data = event["data"]
        if event.get("agentId") or data.get("parentToolCallId"):
            self.tally.meta(line, SUBAGENT, where)
            return
        handler = getattr(self, "on_" + kind.replace(".", "_"), None)
        if handler is not None:
            handler(line, data, where)
        elif event.get("ephemeral") is True:  # the CLI's live stream (--output-format json) carries these
            self.tally.meta(line, TRANSIENT, where)
        elif kind in META:
            self.tally.meta(line, META[kind], where)
        else:
            self.tally.skip(line, f"event types this reader does not know ({kind})", where)

    def on_session_start(self, line: int, data: dict[str, Any], where: str) -> None:
        self.header = dict(data)
        for key, ok, expected in HEADER_FIELDS:
            if data.get(key) is not None and self.keep(data, key, ok, where, expected, "the session is read without it") is None:
                del self.header[key]
        self.model_from(data, "selectedModel", where)
        self.tally.meta(line, META["session.start"], where)

    def on_session_model_change(self, line: int, data: dict[str, Any], where: str) -> None:
        self.model_from(data, "newModel", where)
        self.tally.meta(line, META["session.model_change"], where)

    def on_system_message(self, line: int, data: dict[str, Any], where: str) -> None:
        content = text_or_none(data.get("content"), f"{where} data.content", "the system prompt")
        if content is None or (self.system is not None):
            self.tally.meta(line, SYSTEM_AGAIN, where)
            if isinstance(content, str) and content != self.system:
                self.builder.note("later_system_prompts", {"source": where, "text": content})
            return
        self.system = content
        role = "developer" if data.get("role") == "developer" else "system"
        self.builder.add(make_message(role, content), where)
        self.tally.place(line, where)

    def on_user_message(self, line: int, data: dict[str, Any], where: str) -> None:
        text = self.keep(data, "transformedContent", is_text, where, "the text sent to the model",
                         "the message is read from its 'content'")
        text = data.get("content") if text is None else text
        if not isinstance(text, str):
            raise FieldProblem(f"{where} data.content", f"expected the message text, got {kind_of(text)}")
        self.builder.add(make_message("user", text), where)
        self.last_api = None
        self.tally.place(line, where)

    def on_assistant_reasoning(self, line: int, data: dict[str, Any], where: str) -> None:
        text = data.get("content")
        if text is not None and not isinstance(text, str):
            self.tally.skip(line, f"reasoning records whose text is not a string ({kind_of(text)})", where)
            return
        if not text:
            self.tally.meta(line, TRANSIENT, where)
            return
        # Usually before its message; in the live stream after it, naming it by its opaque reasoning id.
        if self.last_opaque is not None and data.get("reasoningId") == self.last_opaque[0]:
            index = self.last_opaque[1]
            current = self.builder.reasoning[index]
            self.builder.reasoning[index] = f"{current}\n{text}" if current else text
        else:
            self.reasoning.append(text)
        self.tally.place(line, where)

    def on_assistant_message(self, line: int, data: dict[str, Any], where: str) -> None:
        calls = []
        requests = list_or_empty(data.get("toolRequests"), f"{where} data.toolRequests", "the tool requests")
        for position, request in enumerate(requests):
            place = f"{where} data.toolRequests[{position}]"
            if not isinstance(request, dict) or not isinstance(request.get("name"), str):
                raise FieldProblem(place, "expected a tool request with a 'name'")
            call_id = call_id_or_none(request.get("toolCallId"), f"{place}.toolCallId") or self.ids.new()
            self.ids.reserve(call_id)
            self.calls.add(call_id)
            calls.append(tool_call(call_id, request["name"], arguments_or_empty(request.get("arguments"), f"{place}.arguments")))
        text = text_or_none(data.get("content"), f"{where} data.content", "the message text") or ""
        effect = "the message is read without it"
        thought = self.keep(data, "reasoningText", is_text, where, "the reasoning text", effect)
        if thought is not None and thought not in self.reasoning:
            self.reasoning.append(thought)
        reasoning = "\n".join(r for r in self.reasoning if r) or None
        self.reasoning = []
        self.model_from(data, "model", where)
        api = self.keep(data, "apiCallId", is_text, where, "the model call's id",
                        "the message is not joined with the other chunks and usage of its model call")
        output = self.keep(data, "outputTokens", is_count, where, "a whole number of tokens", "the message has no usage")
        last = self.builder.last()
        if api and self.last_api is not None and self.last_api[0] == api and last is self.builder.messages[self.last_api[1]]:
            self._merge(self.last_api[1], text, calls, reasoning, output, where)
        else:
            usage = {"output_tokens": output} if output is not None else None
            index = self.builder.add(make_message("assistant", text or (None if calls else ""), tool_calls=calls or None),
                                     where, usage=usage, reasoning=reasoning)
            self.last_api = (api, index) if api else None
            if api:
                self.api_calls[api] = index
            opaque = self.keep(data, "reasoningOpaque", is_text, where, "the reasoning's id",
                               "a later reasoning record is not matched to this message")
            self.last_opaque = (opaque, index) if opaque else None
        self.tally.place(line, where)

    def _merge(self, index: int, text: str, calls: list[dict[str, Any]], reasoning: str | None, output: int | None,
               where: str) -> None:
        """Another chunk of the same model call joins its message."""
        message = self.builder.messages[index]
        if text:
            message["content"] = f"{message['content']}\n\n{text}" if message.get("content") else text
        if calls:
            message.setdefault("tool_calls", []).extend(calls)
        if reasoning:
            current = self.builder.reasoning[index]
            self.builder.reasoning[index] = f"{current}\n{reasoning}" if current else reasoning
        if output is not None:
            usage = self.builder.usage[index] or {}
            usage["output_tokens"] = usage.get("output_tokens", 0) + output
            self.builder.usage[index] = usage
        first = self.builder.sources[index].split(" ", 1)[-1].split("-")[0]
        self.builder.sources[index] = f"lines {first}-{where.split(' ', 1)[-1]}"

    def on_assistant_usage(self, line: int, data: dict[str, Any], where: str) -> None:
        if "compaction" in str(data.get("interactionType", "")):
            self.tally.meta(line, "usage of compaction calls", where)
            return
        api = self.keep(data, "apiCallId", is_text, where, "the model call's id",
                        "the usage goes to the last assistant message")
        target = self.api_calls.get(api) if api is not None else None
        if target is None:
            target = next((i for i in range(len(self.builder) - 1, -1, -1) if self.builder.messages[i]["role"] == "assistant"), None)
        if target is not None:
            self.builder.usage[target] = _usage(data, where, self.aside)
        self.tally.meta(line, USAGE_META, where)

    def on_tool_execution_complete(self, line: int, data: dict[str, Any], where: str) -> None:
        call_id = call_id_or_none(data.get("toolCallId"), f"{where} data.toolCallId")
        if data.get("isUserRequested") or call_id is None or call_id not in self.calls:
            self.tally.meta(line, "tools the user ran, or results without a call in the log", where)
            return
        self.calls.discard(call_id)
        self.builder.add(make_message("tool", _result(data, where), tool_call_id=call_id), where)
        self.tally.place(line, where)

    def on_session_compaction_start(self, line: int, data: dict[str, Any], where: str) -> None:
        self.compaction_tokens = self.keep(data, "currentTokens", is_count, where, "a whole number of tokens",
                                           "the compaction's size before is taken from its own record")
        self.tally.meta(line, META["session.compaction_start"], where)

    def on_session_compaction_complete(self, line: int, data: dict[str, Any], where: str) -> None:
        # Whether it happened decides what the model saw afterwards: a wrong type there is refused.
        if not flag_or_none(data.get("success"), f"{where} data.success", "whether the compaction succeeded"):
            self.tally.meta(line, "compactions that failed (nothing changed)", where)
            return
        pre = self.keep(data, "preCompactionTokens", is_count, where, "a whole number of tokens",
                        "the compaction event has no size before")
        pre = self.compaction_tokens if pre is None else pre
        summary = text_or_none(data.get("summaryContent"), f"{where} data.summaryContent", "the summary the model reads")
        keys = ("postCompactionTokens", "messagesRemoved", "tokensRemoved", "checkpointNumber", "trigger")
        self.builder.events.append(CompactionEvent(len(self.builder), "copilot-compaction", summary=summary, pre_tokens=pre,
                                                   source=where, details={k: data[k] for k in keys if k in data}))
        if summary:
            self.builder.add(make_message("user", summary), f"{where} (compaction summary)")
            self.tally.place(line, where)
        else:
            self.tally.meta(line, "compaction records without the summary text (events on the replay)", where)
        self.last_api = None

    def on_session_truncation(self, line: int, data: dict[str, Any], where: str) -> None:
        keys = ("messagesRemovedDuringTruncation", "tokensRemovedDuringTruncation", "performedBy", "tokenLimit")
        pre = self.keep(data, "preTruncationTokensInMessages", is_count, where, "a whole number of tokens",
                        "the truncation event has no size before")
        self.builder.events.append(CompactionEvent(len(self.builder), "copilot-truncation", pre_tokens=pre,
                                                   source=where, details={k: data[k] for k in keys if k in data}))
        self.tally.meta(line, META["session.truncation"], where)

    def on_session_context_cleared(self, line: int, data: dict[str, Any], where: str) -> None:
        self.builder.events.append(CompactionEvent(len(self.builder), "copilot-context-cleared", source=where,
                                                   details={"messages_cleared": data.get("messagesCleared")}))
        self.tally.meta(line, META["session.context_cleared"], where)


def _rewind(records: list[tuple[int, dict[str, Any]]], tally: Any, aside: SetAside) -> list[tuple[int, dict[str, Any]]]:
    """The events a ``session.snapshot_rewind`` left: the one it names and every later one go."""
    kept: list[tuple[int, dict[str, Any]]] = []
    for line, event in records:
        if event["type"] != "session.snapshot_rewind":
            kept.append((line, event))
            continue
        target = aside.keep(event["data"].get("upToEventId"), is_text, f"line {line} data.upToEventId", "upToEventId",
                            "the id of the event rewound to", "nothing is rewound")
        if target is not None:
            cut = next((i for i, (_, e) in enumerate(kept) if e.get("id") == target), None)
            if cut is not None:
                for removed_line, _ in kept[cut:]:
                    tally.skip(removed_line, REWOUND, f"line {removed_line}")
                del kept[cut:]
        kept.append((line, event))
    return kept


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    builder = Builder(NAME, src.name)
    events: list[tuple[int, dict[str, Any]]] = []
    for line, record in lines.records():
        if isinstance(record, dict) and isinstance(record.get("type"), str) and isinstance(record.get("data"), dict):
            events.append((line, record))
        else:
            builder.tally.skip(line, "lines that are not events ({type, data})", f"line {line}")
    reader = _Events(builder)
    for line, event in _rewind(events, builder.tally, reader.aside):
        reader.add(line, event)
    unanswered_calls_to_text(builder)
    builder.warnings[:0] = lines.warnings
    builder.warnings.extend(reader.aside.warnings())
    header = reader.header
    session_id = str(header.get("sessionId") or src.name)
    context = header.get("context") or {}
    builder.metadata["session"] = {k: header[k] for k in ("copilotVersion", "producer", "startTime", "version") if k in header}
    if context:
        builder.metadata["session"]["context"] = context
    info = SessionInfo(id=session_id, message_count=len(builder), started_at=header.get("startTime"), model=reader.model)
    return builder.build(model=reader.model, sessions=[info], session_id=session_id)


# ---------------------------------------------------------------------------------------------
# history-session-state/<id>.json


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if not looks_like(doc):
        raise FieldProblem(None, "expected a Copilot CLI session object with 'sessionId' and 'chatMessages' or 'timeline'")
    builder = Builder(NAME, src.name, unit="item")
    aside = SetAside()
    # The chat messages are the conversation: one of another type must not quietly make the timeline it.
    chat = doc.get("chatMessages")
    if chat is not None and not isinstance(chat, list):
        raise FieldProblem("chatMessages", f"expected the list of chat messages, got {kind_of(chat)}")
    timeline = aside.keep(doc.get("timeline"), is_list, "timeline", "timeline",
                          "the list of timeline records", "the session is read from its chat messages alone") or []
    if chat is not None:
        normalizer = MessageNormalizer(builder)
        for index, raw in enumerate(chat):
            normalizer.add(raw, f"chatMessages[{index}]")
            builder.tally.place(("chat", index), f"chatMessages[{index}]")
        normalizer.finish()
        for index, _ in enumerate(timeline):
            builder.tally.meta(("timeline", index), "timeline records (what the terminal showed)", f"timeline[{index}]")
    else:
        _timeline(timeline, builder)
    unanswered_calls_to_text(builder)
    session_id = str(doc["sessionId"])
    started = aside.keep(doc.get("startTime"), is_time, "startTime", "startTime", "a timestamp", "the session has no start time")
    builder.warnings.extend(aside.warnings())
    info = SessionInfo(id=session_id, message_count=len(builder), started_at=started)
    return builder.build(sessions=[info], session_id=session_id)


def _timeline(timeline: list[Any], builder: Builder) -> None:
    """Sessions saved without ``chatMessages``: the terminal's timeline as the conversation."""
    ids = IdMaker("call_")
    for index, item in enumerate(timeline):
        where, key = f"timeline[{index}]", ("timeline", index)
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            what = kind_of(item) if not isinstance(item, dict) else f"'type' is {kind_of(item.get('type'))}"
            builder.tally.skip(key, f"timeline records that are not objects with a string 'type' ({what})", where)
            continue
        kind = item["type"]
        text = text_or_none(item.get("text"), f"{where}.text", "the text shown") or ""
        if kind == "user":
            builder.add(make_message("user", text), where)
        elif kind == "copilot":
            builder.add(make_message("assistant", text), where)
        elif kind == "tool_call_requested":
            call_id = call_id_or_none(item.get("callId"), f"{where}.callId") or ids.new()
            # The name, else the title the terminal showed; "tool" only when the record has neither.
            name = text_or_none(item.get("name"), f"{where}.name", "the tool's name") or text_or_none(
                item.get("toolTitle"), f"{where}.toolTitle", "the tool's title") or "tool"
            call = tool_call(call_id, name, arguments_or_empty(item.get("arguments"), f"{where}.arguments"))
            last = builder.last()
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
                if last.get("content") == "":
                    last["content"] = None
            else:
                builder.add(make_message("assistant", None, tool_calls=[call]), where)
        elif kind == "tool_call_completed" and (call_id := call_id_or_none(item.get("callId"), f"{where}.callId")):
            result = item.get("result")
            output = result.get("log") if isinstance(result, dict) and isinstance(result.get("log"), str) else result
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            builder.add(make_message("tool", text, tool_call_id=call_id), where)
        else:
            builder.tally.meta(key, "timeline notices (info, errors)", where)
            continue
        builder.tally.place(key, where)


def is_session_store(conn: sqlite3.Connection) -> bool:
    """The CLI's ``session-store.db``: sessions and their turns' prompt and reply, kept for search."""
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"sessions", "turns"} <= tables or "messages" in tables:
            return False
        columns = {row[1] for row in conn.execute("PRAGMA table_info(turns)")}
        return {"session_id", "user_message", "assistant_response"} <= columns
    except sqlite3.DatabaseError:
        return False


def refuse_session_store(conn: sqlite3.Connection, src: InputSource, session: str | None) -> Conversation:
    try:
        count = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
        example = conn.execute("SELECT session_id FROM turns ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.DatabaseError:
        count, example = "?", None
    name = example[0] if example and isinstance(example[0], str) else "<session id>"
    raise FormatError(
        f"{src.name}: this is GitHub Copilot CLI's session-store.db (a search index of {count} sessions: each turn's "
        "prompt and reply, without tool calls or results), not a session's transcript; expected "
        f"~/.copilot/session-state/<session id>/events.jsonl (for example {name}/events.jsonl)"
    )


FORMAT = FormatSpec(
    name=NAME,
    description="GitHub Copilot CLI sessions (~/.copilot/session-state/*/events.jsonl, history-session-state/*.json)",
    detect_document=looks_like,
    detect_records=looks_like_records,
    parse_document=parse_document,
    parse_records=parse_records,
    detect_sqlite=is_session_store,
    parse_sqlite=refuse_session_store,
)
