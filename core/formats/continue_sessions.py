"""Continue sessions (``~/.continue/sessions/<sessionId>.json``).

A session (``core/index.d.ts`` ``Session``) is ``{sessionId, title, workspaceDirectory, history,
mode?, chatModelTitle?, usage?}``; ``history`` holds ``{message, contextItems, toolCallStates?,
promptLogs?, reasoning?, conversationSummary?}`` items whose ``message`` has the role ``user``,
``assistant`` (``toolCalls``, ``usage``), ``thinking``, ``system`` or ``tool`` (``toolCallId``).
Messages are read as Continue builds its request (``gui/src/redux/util/constructMessages.ts``):

* a user message is its context items' text (files, ``@`` mentions; each ``content`` and a line
  break) followed by what the user typed, as text and image parts;
* a ``thinking`` message is the reasoning of the assistant message after it;
* after an assistant message with tool calls comes one tool message per ``toolCallStates`` entry:
  the output's context items joined (with ``[Status: ...]`` for terminal commands), or Continue's
  fixed text for a cancelled call, an error or no output. ``tool`` items of the history repeat those
  results and are metadata then; without states they are the results themselves;
* ``conversationSummary`` on an item is a compaction: Continue sends only the items after it, with
  the summary at the end of the system message. It is a :class:`CompactionEvent`
  (``kind="compaction"``) before the next message, and the summary is injected context there.

Usage: ``usage`` of assistant messages (``promptTokens``, ``completionTokens``, cached tokens) as
OpenAI usage; the session's ``usage`` (totals and cost) goes to ``metadata``. ``sessions.json``,
Continue's list of sessions, holds no messages and is refused with an error naming the session files.
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
from core.formats.model import CompactionEvent, Conversation, InjectedContext, SessionInfo
from core.formats.source import InputSource
from core.formats.spec import FormatSpec

NAME = "continue"
ROLES = ("user", "assistant", "thinking", "system", "tool")
# core/tools/constants.ts and core/tools/builtIn.ts
NO_OUTPUT = "No tool output"
CANCELLED = "The user cancelled this tool call."
ERRORED = "There was an error calling the tool."
TERMINAL_TOOL = "builtin_run_terminal_command"
SUMMARY_HEADING = "Previous conversation summary:\n\n "
REPEATED_RESULT = "tool result items (Continue sends the result kept with the call's state)"
EMPTY = "empty messages (Continue leaves them out of its requests)"
INDEX_KEYS = ("sessionId", "title", "dateCreated", "workspaceDirectory")


def _is_item(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("message"), dict) and "role" in item["message"]


def looks_like(doc: Any) -> bool:
    """A session object (``history`` of ``{message, contextItems}`` items and a ``sessionId``), or
    Continue's ``sessions.json`` list (refused when read, with a pointer to the session files)."""
    if isinstance(doc, dict):
        history = doc.get("history")
        return isinstance(history, list) and ("sessionId" in doc or "workspaceDirectory" in doc) and (
            not history or any(_is_item(item) for item in history[:20])
        )
    return is_index(doc)


def is_index(doc: Any) -> bool:
    return (
        isinstance(doc, list)
        and bool(doc)
        and all(isinstance(entry, dict) and "sessionId" in entry and "history" not in entry for entry in doc[:20])
        and any("dateCreated" in entry or "workspaceDirectory" in entry for entry in doc[:20] if isinstance(entry, dict))
    )


def _parts(content: Any, where: str) -> list[dict[str, Any]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [text_part(content)] if content else []
    if not isinstance(content, list):
        raise FieldProblem(where, f"expected a string or a list of parts, got {kind_of(content)}")
    parts = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            parts.append(text_part(str(part.get("text", ""))))
        elif part.get("type") == "imageUrl" and isinstance(part.get("imageUrl"), dict):
            parts.append(image_part(str(part["imageUrl"].get("url", ""))))
    return parts


def _list(value: Any) -> list[Any]:
    """A list field as a list (a missing or mistyped one as empty: the app reads it that way too)."""
    return value if isinstance(value, list) else []


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict)) if isinstance(content, list) else ""


def _usage(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("promptTokens"), int):
        return None
    usage: dict[str, Any] = {"prompt_tokens": raw["promptTokens"]}
    if isinstance(raw.get("completionTokens"), int):
        usage["completion_tokens"] = raw["completionTokens"]
    details = raw.get("promptTokensDetails")
    if isinstance(details, dict) and isinstance(details.get("cachedTokens"), int):
        usage["prompt_tokens_details"] = {"cached_tokens": details["cachedTokens"]}
    if isinstance(details, dict) and isinstance(details.get("cacheWriteTokens"), int):
        usage["cache_creation_tokens"] = details["cacheWriteTokens"]
    return usage


def _state_result(state: dict[str, Any], name: str) -> str:
    """What Continue sends for a tool call from its state (``constructMessages``)."""
    output = state.get("output")
    if state.get("status") == "canceled":
        return CANCELLED
    if isinstance(output, list) and output:
        items = [item for item in output if isinstance(item, dict)]
        if name == TERMINAL_TOOL:
            return "\n\n".join(str(i.get("content", "")) + (f"\n[Status: {i['status']}]" if i.get("status") else "")
                               for i in items)
        return "\n\n".join(str(item.get("content", "")) for item in items)
    if isinstance(output, str) and output:
        return output
    return ERRORED if state.get("status") == "errored" else NO_OUTPUT


class _Reader:
    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.ids = IdMaker("continue_call_")
        self.reasoning: list[str] = []
        self.from_states: set[str] = set()  # call ids whose results came from their state
        self.model: str | None = None
        self.summary: tuple[str, str] | None = None  # (text, where) waiting for the next message

    def item(self, item: Any, index: int) -> None:
        where = f"history[{index}]"
        tally = self.builder.tally
        if not _is_item(item):
            raise FieldProblem(where, f"expected a history item with a 'message' object, got {kind_of(item)}")
        message = item["message"]
        role = message.get("role")
        if role not in ROLES:
            raise FieldProblem(f"{where}.message.role", f"expected one of {', '.join(ROLES)}, got {role!r}")
        for log in _list(item.get("promptLogs")):
            if isinstance(log, dict) and isinstance(log.get("modelTitle"), str):
                self.model = log["modelTitle"]
        before = len(self.builder)
        if role == "thinking":
            self.reasoning.append(_text(message.get("content")))
        elif role == "tool":
            call_id = str(message.get("toolCallId", ""))
            if call_id in self.from_states:
                tally.meta(where, REPEATED_RESULT)
            else:
                self._add(make_message("tool", _text(message.get("content")), tool_call_id=self.ids.shared(call_id)), where)
        elif role == "assistant":
            self._assistant(item, message, where)
        else:
            parts = [] if role == "system" else [
                text_part(f"{ctx['content']}\n") for ctx in _list(item.get("contextItems"))
                if isinstance(ctx, dict) and isinstance(ctx.get("content"), str) and ctx["content"].strip()
            ]
            parts += _parts(message.get("content"), f"{where}.message.content")
            if parts:
                self._add(make_message(role, simplify_parts(parts, join_texts=role == "system")), where)
        if where not in tally:
            if len(self.builder) > before or role == "thinking":
                tally.place(where)
            else:
                tally.meta(where, EMPTY)
        summary = item.get("conversationSummary")
        if isinstance(summary, str) and summary.strip():
            self.summary = (summary, where)

    def _assistant(self, item: dict[str, Any], message: dict[str, Any], where: str) -> None:
        states = [s for s in _list(item.get("toolCallStates")) if isinstance(s, dict)]
        calls = []
        for position, delta in enumerate(_list(message.get("toolCalls"))):
            if not isinstance(delta, dict):
                continue
            function = delta.get("function") if isinstance(delta.get("function"), dict) else {}
            call_id = str(delta.get("id") or "") or self.ids.new()
            self.ids.reserve(call_id)
            calls.append(tool_call(call_id, str(function.get("name", "")), function.get("arguments") or "{}"))
            if position < len(states) and not states[position].get("toolCallId"):
                states[position] = {**states[position], "toolCallId": call_id}
        known = {call["id"] for call in calls}
        for state in states:  # calls kept only in their state (older files)
            call = state.get("toolCall") if isinstance(state.get("toolCall"), dict) else {}
            call_id = str(state.get("toolCallId") or call.get("id") or "")
            if call_id and call_id not in known:
                function = call.get("function") if isinstance(call.get("function"), dict) else {}
                calls.append(tool_call(call_id, str(function.get("name", "")), function.get("arguments") or "{}"))
                known.add(call_id)
        text = simplify_parts(_parts(message.get("content"), f"{where}.message.content"), join_texts=True)
        if not text and not calls:
            return  # an empty message: Continue leaves it out (its thinking waits for the next one)
        reasoning = "\n".join(t for t in self.reasoning if t) or None
        if isinstance(item.get("reasoning"), dict) and item["reasoning"].get("text"):
            reasoning = "\n".join(t for t in (reasoning, str(item["reasoning"]["text"])) if t)
        self.reasoning = []
        self._add(make_message("assistant", text if text or not calls else None, tool_calls=calls or None), where,
                  usage=_usage(message.get("usage")), reasoning=reasoning)
        names = {call["id"]: call["function"]["name"] for call in calls}
        for position, state in enumerate(states):
            call_id = str(state.get("toolCallId") or "") or (calls[position]["id"] if position < len(calls) else "")
            if call_id in names:
                self._add(make_message("tool", _state_result(state, names[call_id]), tool_call_id=self.ids.shared(call_id)),
                          f"{where}.toolCallStates[{position}]")
                self.from_states.add(call_id)

    def _add(self, message: dict[str, Any], where: str, **kwargs: Any) -> None:
        index = self.builder.add(message, where, **kwargs)
        if self.summary is not None:
            text, source = self.summary
            self.builder.events.append(CompactionEvent(index, "compaction", summary=text, source=source))
            self.builder.injected.append(InjectedContext(index, "conversation summary", SUMMARY_HEADING + text, source))
            self.summary = None


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if is_index(doc):
        raise FieldProblem(
            None,
            f"this is Continue's list of sessions (sessions.json: {len(doc)} entries with a sessionId, title and date); "
            "it holds no messages. Expected one session file, ~/.continue/sessions/<sessionId>.json "
            f"(for example {doc[0].get('sessionId')}.json)",
        )
    if not isinstance(doc, dict) or not isinstance(doc.get("history"), list):
        raise FieldProblem(None, f"expected a Continue session object with a 'history' list, got {kind_of(doc)}")
    builder = Builder(NAME, src.name, unit="history item")
    reader = _Reader(builder)
    for index, item in enumerate(doc["history"]):
        reader.item(item, index)
    if reader.reasoning:
        builder.warnings.append("the history ends with thinking that no assistant message follows; it is left out")
    session_id = str(doc.get("sessionId") or src.name)
    title = doc.get("title") if isinstance(doc.get("title"), str) else None
    model = doc.get("chatModelTitle") if isinstance(doc.get("chatModelTitle"), str) else reader.model
    if isinstance(doc.get("usage"), dict):
        builder.metadata["session_usage"] = doc["usage"]
    builder.metadata["session"] = {k: doc[k] for k in ("workspaceDirectory", "mode") if k in doc}
    info = SessionInfo(id=session_id, title=title, message_count=len(builder), model=model)
    return builder.build(model=model, sessions=[info], session_id=session_id)


FORMAT = FormatSpec(
    name=NAME,
    description="Continue sessions (~/.continue/sessions/<id>.json)",
    detect_document=looks_like,
    parse_document=parse_document,
)
