"""A Cline / Roo Code / Kilo Code ``ui_messages.json``: what the chat panel showed, and the usage of
every API request.

Each record is ``{ts, type: "say" | "ask", say | ask, text, images, ...}``. ``api_req_started``
records hold the request as JSON text with ``tokensIn``, ``tokensOut``, ``cacheWrites``,
``cacheReads`` and ``cost`` (Anthropic's split: the input without the cache), and
``conversationHistoryIndex`` (the index of the last history message when the request was sent, so
its answer is the assistant message two places on) and ``conversationHistoryDeletedRange`` (the
history messages the extension had dropped from its requests).

Beside ``api_conversation_history.json`` the records are the panel's view (metadata) and the
usage source. On their own they are the only record of the task, read as the panel showed it:
the task (a ``task`` record, or in newer versions the ``text`` record
before the first request) and feedback are user messages, ``text`` / ``reasoning`` / ``completion_result`` the
assistant's, ``tool`` and ``command`` records its calls; the panel holds command output (the
result of a ``command``) but not the other tools' output, so their results are what it showed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.formats.fields import SetAside, is_count, is_number, list_or_empty, need_text, text_or_none
from core.formats.messages import (
    Builder,
    image_part,
    kind_of,
    make_message,
    simplify_parts,
    text_of,
    text_part,
    tool_call,
)

# What the panel's other records are, for the load report.
KINDS = {
    "api_req_started": "API request records (their usage is on the assistant messages)",
    "api_req_finished": "API usage totals", "deleted_api_reqs": "API usage totals",
    "checkpoint_created": "checkpoints (the workspace saved after a step)",
    "task_progress": "task progress lists (the focus chain the panel shows)",
    "error": "errors shown in the panel", "diff_error": "errors shown in the panel",
    "clineignore_error": "errors shown in the panel", "api_req_failed": "errors shown in the panel",
    "mistake_limit_reached": "errors shown in the panel", "api_req_retried": "errors shown in the panel",
    "resume_task": "resume prompts", "resume_completed_task": "resume prompts",
    "condense_context": "compaction records (the summary is in the history)", "compaction": "compaction records",
}
PANEL_VIEW = "what the chat panel showed (the conversation itself is api_conversation_history.json)"
OTHER = "other panel records (notices, browser and MCP activity, hooks)"
USER_SAYS = ("task", "user_feedback", "user_feedback_diff")
ASSISTANT_SAYS = ("text", "completion_result")


def kind_of_record(record: dict[str, Any]) -> str:
    return str(record.get("say") if record.get("type") == "say" else record.get("ask"))


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


USAGE_NAMES = {"tokensIn": "input_tokens", "tokensOut": "output_tokens", "cacheWrites": "cache_creation_input_tokens",
               "cacheReads": "cache_read_input_tokens"}
NO_USAGE = "that request has no usage"


def request_usage(text: str, where: str, aside: SetAside | None = None) -> dict[str, Any] | None:
    """The usage an ``api_req_started`` record's JSON text holds; ``aside`` (when given) hears about the
    parts it could not read, so a caller reading the records twice reports them once."""
    aside = aside if aside is not None else SetAside()
    request = _json(text)
    if not isinstance(request, dict):
        if text:
            aside.note(text, f"{where}.text", "api_req_started text", "the request as a JSON object", NO_USAGE)
        return None
    usage: dict[str, Any] = aside.counts(request, USAGE_NAMES, f"{where}.text")
    cost = aside.keep(request.get("cost"), is_number,
                      f"{where}.text.cost", "cost", "a number", "left out of the usage")
    if cost is not None:
        usage["cost"] = cost
    return usage or None


def _is_range(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(is_count(v) for v in value)


@dataclass
class Request:
    """One ``api_req_started`` record."""

    ui_index: int
    history_index: int | None
    usage: dict[str, Any] | None
    deleted: tuple[int, int] | None


def requests(records: list[Any], panel_name: str = "ui_messages.json", aside: SetAside | None = None) -> list[Request]:
    """Every ``api_req_started`` record; ``aside`` (when given) hears about fields of the wrong type."""
    aside = aside if aside is not None else SetAside()
    found = []
    for index, record in enumerate(records):
        if isinstance(record, dict) and record.get("type") == "say" and record.get("say") == "api_req_started":
            where = f"{panel_name}[{index}]"
            text = record.get("text") if isinstance(record.get("text"), str) else ""
            at = aside.keep(record.get("conversationHistoryIndex"), is_count, f"{where}.conversationHistoryIndex",
                            "conversationHistoryIndex", "a message index",
                            "the request's usage is matched to the assistant messages in order")
            deleted = aside.keep(record.get("conversationHistoryDeletedRange"), _is_range,
                                 f"{where}.conversationHistoryDeletedRange", "conversationHistoryDeletedRange",
                                 "a pair of message indexes", "no truncation is read from it")
            found.append(Request(index, at, request_usage(text, where, aside),
                                 (deleted[0], deleted[1]) if deleted is not None else None))
    return found


def panel_reason(record: dict[str, Any]) -> str:
    return KINDS.get(kind_of_record(record), PANEL_VIEW)


class PanelConverter:
    """A ``ui_messages.json`` alone into messages (module docstring)."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.tally = builder.tally
        self.assistant: int | None = None  # the assistant message this request's records extend
        self.usage: dict[str, Any] | None = None
        self.command: int | None = None  # the tool message of the last command, for its output
        self.counter = 0
        # The task itself is a "text" record written before the first request (newer versions).
        self.requested = False
        self.aside = SetAside()

    def add(self, index: int, record: Any, where: str) -> None:
        if not isinstance(record, dict):
            self.tally.skip(index, "records that are not objects", where)
            return
        says = record.get("type") == "say"
        raw_kind = record.get("say") if says else record.get("ask")
        if not isinstance(raw_kind, str):
            # What a record is decides where it goes: one that does not say is skipped, and said.
            field = "say" if says else "ask"
            self.tally.skip(index, f"records whose '{field}' is not a string ({kind_of(raw_kind)})", where)
            return
        kind = raw_kind
        text = text_or_none(record.get("text"), f"{where}.text", "the record's text") or ""
        if kind == "api_req_started":
            self.usage = request_usage(text, where, self.aside)
            self.assistant = None
            self.requested = True
            self.tally.meta(index, KINDS[kind], where)
        elif says and (kind in USER_SAYS or (kind == "text" and not self.requested)):
            parts = [text_part(text)] if text else []
            images = list_or_empty(record.get("images"), f"{where}.images", "the attached images")
            parts += [image_part(need_text(url, f"{where}.images[{i}]", "the image's data URL")) for i, url in enumerate(images)]
            self.builder.add(make_message("user", simplify_parts(parts)), where)
            self.assistant = None
            self.requested = False
            self.tally.place(index, where)
        elif says and kind in ASSISTANT_SAYS or kind in ("followup", "plan_mode_respond", "act_mode_respond"):
            payload = _json(text) if not says else None
            if isinstance(payload, dict):
                asked = payload.get("question") or payload.get("response")
                text = text_or_none(asked, f"{where}.text", "the question or response the record's JSON holds") or text
            self._say(text, where)
            self.tally.place(index, where)
        elif says and kind == "reasoning":
            target = self._target(where)
            current = self.builder.reasoning[target]
            self.builder.reasoning[target] = f"{current}\n{text}" if current else text
            self.tally.place(index, where)
        elif kind in ("tool", "command"):
            self._call(record, kind, text, where)
            self.tally.place(index, where)
        elif not says and kind == "completion_result":
            self.tally.meta(index, "completion prompts (the result itself is the record before)", where)
        elif kind == "command_output" and self.command is not None:
            result = self.builder.messages[self.command]
            result["content"] = f"{result['content']}\n{text}" if result["content"] else text
            self.tally.place(index, where)
        else:
            self.tally.meta(index, KINDS.get(kind, OTHER), where)

    def _target(self, where: str) -> int:
        """The assistant message of the current request, started when it has none yet."""
        if self.assistant is None:
            self.assistant = self.builder.add(make_message("assistant", ""), where, usage=self.usage)
            self.usage = None
        return self.assistant

    def _say(self, text: str, where: str) -> None:
        message = self.builder.messages[self._target(where)]
        current = text_of(message.get("content"))
        message["content"] = f"{current}\n\n{text}" if current else text

    def _call(self, record: dict[str, Any], kind: str, text: str, where: str) -> None:
        payload = _json(text) if kind == "tool" else {"tool": "execute_command", "command": text}
        if not isinstance(payload, dict):
            payload = {"tool": kind, "text": text}
        name = text_or_none(payload.get("tool"), f"{where}.text.tool", "the tool's name") or kind
        arguments = {key: value for key, value in payload.items() if key != "tool"}
        self.counter += 1
        call_id = f"panel_call_{self.counter}"
        target = self._target(where)
        message = self.builder.messages[target]
        message.setdefault("tool_calls", []).append(tool_call(call_id, name, arguments))
        if message.get("content") == "":
            message["content"] = None
        shown = payload.get("content") if kind == "tool" else ""
        if shown is not None and not isinstance(shown, str):  # structured panel content: kept as its JSON
            shown = json.dumps(shown, ensure_ascii=False)
        index = self.builder.add(make_message("tool", shown or "", tool_call_id=call_id), where)
        self.command = index if kind == "command" else None
        # A later record of the same request must not land after this result: it starts a new message.
        self.assistant = None
