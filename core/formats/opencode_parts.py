"""OpenCode messages and their parts into canonical messages (shared by every OpenCode layout).

A message is its ``info`` (``role``, ``time``, ``modelID``, ``tokens``, ``summary``, ``error``
...) and its ``parts``, ordered by id as OpenCode orders them. This follows what OpenCode itself
sends the model (``MessageV2.toModelMessages``):

* user parts: ``text`` (not ``ignored``), ``file`` (images and documents; text files and folders
  are already text parts), ``compaction`` ("What did we do so far?") and ``subtask`` (a tool the
  user ran);
* an assistant message is one model call per ``step-start`` ... ``step-finish``: its ``text`` is the
  content, ``reasoning`` the reasoning, each ``tool`` part a call answered by a tool message (the
  output, the error, or "[Tool execution was interrupted]" for a call left pending or running),
  the ``step-finish`` tokens the usage of that call;
* an assistant message that ended in an error is not sent again (skipped with a warning), unless
  it was aborted after producing something;
* ``patch``, ``snapshot``, ``agent``, ``retry`` parts, the step markers and parts of other types are
  bookkeeping (metadata).

A user message with a ``compaction`` part followed by the ``summary`` assistant message is a
:class:`CompactionEvent` (``opencode-compaction``) whose summary is that message's text.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from core.formats.fields import (
    SetAside,
    arguments_or_empty,
    call_id_or_none,
    is_number,
    is_object,
    is_text,
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
    simplify_parts,
    text_part,
    tool_call,
)
from core.formats.model import CompactionEvent

COMPACTION_PROMPT = "What did we do so far?"
SUBTASK_PROMPT = "The following tool was executed by the user"
INTERRUPTED = "[Tool execution was interrupted]"

BOOKKEEPING = {
    "step-start": "step markers (a model call begins)",
    "step-finish": "step markers with tokens and cost (the usage of their step)",
    "patch": "patch records (files a step changed)",
    "snapshot": "snapshot records (the worktree state)",
    "agent": "agent mentions",
    "retry": "retry records (failed attempts of a model call)",
}
IGNORED_TEXT = "text parts marked ignored (OpenCode does not send them)"
TEXT_FILE = "text files and folders attached (their content is a text part of the same message)"
ERRORED = "assistant messages that ended in an error (OpenCode does not send them again)"
EMPTY = "messages with nothing OpenCode sends to the model"
UNKNOWN = "parts of other types (nothing OpenCode sends the model)"
TEXT_MIMES = ("text/plain", "application/x-directory")


@dataclass
class Message:
    """One message as read: its info, its parts, and the row keys and places of each."""

    info: dict[str, Any]
    parts: list[dict[str, Any]]
    key: Hashable
    where: str
    part_keys: list[Hashable] = field(default_factory=list)
    part_wheres: list[str] = field(default_factory=list)


USAGE_NAMES = {"input": "input_tokens", "output": "output_tokens", "reasoning": "reasoning_tokens",
               "total": "total_tokens"}
CACHE_NAMES = {"read": "cache_read_input_tokens", "write": "cache_creation_input_tokens"}
NO_USAGE = "that model call has no usage"


def usage_of(tokens: Any, cost: Any, where: str, aside: SetAside) -> dict[str, Any] | None:
    """OpenCode's ``tokens`` in the usage keys the analyses read. OpenCode stores ``input`` without the
    cache (it subtracts it for the providers that include it), so it maps like Anthropic's usage.
    Counts of the wrong type are set aside (OpenCode's counts may be fractional: they are rounded down).
    All zero is no usage: the call never finished (interrupted), so nothing was counted."""
    tokens = aside.keep(tokens, is_object, f"{where}.tokens", "tokens", "an object of token counts", NO_USAGE)
    if tokens is None:
        return None
    found = aside.counts(tokens, USAGE_NAMES, f"{where}.tokens", whole=False)
    cache = aside.keep(tokens.get("cache"), is_object, f"{where}.tokens.cache", "cache", "an object of cache counts",
                       "the usage has no cache counts")
    found.update(aside.counts(cache or {}, CACHE_NAMES, f"{where}.tokens.cache", whole=False))
    if not any(found.values()):
        return None  # OpenCode creates a message with zero counts and fills them in when its call ends
    # Keys in the order the analyses have always seen them.
    order = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_input_tokens",
             "cache_creation_input_tokens", "total_tokens")
    usage: dict[str, Any] = {key: found[key] for key in order if key in found}
    cost = aside.keep(cost, is_number, f"{where}.cost", "cost", "a number", "left out of the usage")
    if cost is not None:
        usage["cost"] = cost
    return usage or None


class SessionConverter:
    """The messages of one session onto a Builder, classifying every message and part row."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.tally = builder.tally
        self.ids = IdMaker("call_")
        self.model: str | None = None
        self.system: str | None = None
        self.cleared_outputs = 0
        self.pending_compaction: CompactionEvent | None = None
        self.aside = SetAside()

    def add(self, message: Message) -> None:
        role = message.info.get("role")
        if role == "user":
            produced = self.user(message)
        elif role == "assistant":
            produced = self.assistant(message)
        else:
            self.tally.skip(message.key, f"messages of role {role!r} (expected user or assistant)", message.where)
            for key, where in zip(message.part_keys, message.part_wheres, strict=True):
                self.tally.skip(key, f"parts of messages of role {role!r}", where)
            return
        if produced:
            self.tally.place(message.key, message.where)
        elif message.key not in self.tally:
            self.tally.meta(message.key, EMPTY, message.where)

    def _parts(self, message: Message) -> list[tuple[dict[str, Any], Hashable, str]]:
        return list(zip(message.parts, message.part_keys, message.part_wheres, strict=True))

    def _text(self, part: dict[str, Any], where: str) -> str:
        """A text or reasoning part's text (absent is empty)."""
        return text_or_none(part.get("text"), f"{where}.text", "the part's text") or ""

    def user(self, message: Message) -> bool:
        content: list[dict[str, Any]] = []
        compaction: dict[str, Any] | None = None
        for part, key, where in self._parts(message):
            kind = part.get("type")
            if kind == "text":
                if part.get("ignored"):
                    self.tally.meta(key, IGNORED_TEXT, where)
                    continue
                content.append(text_part(self._text(part, where)))
            elif kind == "file":
                mime = text_or_none(part.get("mime"), f"{where}.mime", "the file's media type") or ""
                if mime in TEXT_MIMES:
                    self.tally.meta(key, TEXT_FILE, where)
                    continue
                url = text_or_none(part.get("url"), f"{where}.url", "the file's URL") or ""
                filename = text_or_none(part.get("filename"), f"{where}.filename", "the file's name") or "file"
                content.append(image_part(url) if mime.startswith("image/") else
                               {"type": "file", "file": {"file_data": url, "filename": filename}})
            elif kind == "compaction":
                compaction = part
                content.append(text_part(COMPACTION_PROMPT))
            elif kind == "subtask":
                content.append(text_part(SUBTASK_PROMPT))
            else:
                self._other(part, key, where)
                continue
            self.tally.place(key, where)
        if not content:
            return False
        index = self.builder.add(make_message("user", simplify_parts(content)), message.where)
        if compaction is not None:
            details = {"trigger": "auto" if compaction.get("auto") else "manual"}
            if compaction.get("tail_start_id"):
                details["tail_start_id"] = compaction["tail_start_id"]
            self.pending_compaction = CompactionEvent(index, "opencode-compaction", source=message.where, details=details)
            self.builder.events.append(self.pending_compaction)
        return True

    def _other(self, part: dict[str, Any], key: Hashable, where: str) -> None:
        kind = part.get("type")
        if not isinstance(kind, str):
            self.tally.skip(key, f"parts whose 'type' is not a string ({kind_of(kind)})", where)
        elif kind in BOOKKEEPING:
            self.tally.meta(key, BOOKKEEPING[kind], where)
        else:
            self.tally.meta(key, f"{UNKNOWN}: {kind}", where)

    def assistant(self, message: Message) -> bool:
        info = message.info
        error = self.aside.keep(info.get("error"), is_object, f"{message.where}.error", "error", "an error object",
                                "the message is read as one that did not fail")
        real = [p for p in message.parts if p.get("type") not in ("step-start", "reasoning")]
        if error is not None and not (error.get("name") == "MessageAbortedError" and real):
            self.tally.skip(message.key, ERRORED, message.where)
            for _, key, where in self._parts(message):
                self.tally.skip(key, f"parts of {ERRORED}", where)
            return False
        model = self.aside.keep(info.get("modelID"), is_text, f"{message.where}.modelID", "modelID", "the model's name",
                                "the model is taken from the other messages")
        if model:
            self.model = model
        if self.system is None:
            self.system = self._system(info.get("system"), f"{message.where}.system")
        steps = self._steps(message)
        # Without step records (older versions) the message's own tokens are its one call's usage.
        recorded = any(part.get("type") == "step-finish" for part in message.parts)
        fallback = None if recorded else usage_of(info.get("tokens"), info.get("cost"), message.where, self.aside)
        produced = False
        for position, step in enumerate(steps):
            where = message.where if position == 0 else f"{message.where} step {position + 1}"
            produced |= self.step(where, step, fallback if position == len(steps) - 1 else None)
        if produced and info.get("summary") and self.pending_compaction is not None:
            summary = self.builder.messages[-1] if self.builder.messages else None
            if summary is not None and summary["role"] == "assistant" and isinstance(summary.get("content"), str):
                self.pending_compaction.summary = summary["content"]
            self.pending_compaction = None
        return produced

    @staticmethod
    def _system(system: Any, where: str) -> str | None:
        """The system prompt older versions stored on the message (a list of strings), else None."""
        if not list_or_empty(system, where, "the system prompt's texts"):
            return None
        for position, item in enumerate(system):
            need_text(item, f"{where}[{position}]", "a text of the system prompt")
        return "\n".join(system)

    def _steps(self, message: Message) -> list[list[tuple[dict[str, Any], Hashable, str]]]:
        """The parts split at each ``step-start``: one model call each."""
        steps: list[list[tuple[dict[str, Any], Hashable, str]]] = [[]]
        for item in self._parts(message):
            if item[0].get("type") == "step-start" and any(p.get("type") != "step-start" for p, _, _ in steps[-1]):
                steps.append([])
            steps[-1].append(item)
        return steps

    def step(self, where: str, parts: list[tuple[dict[str, Any], Hashable, str]], fallback: dict[str, Any] | None) -> bool:
        texts: list[dict[str, Any]] = []
        reasoning: list[str] = []
        calls: list[dict[str, Any]] = []
        results: list[tuple[str, Any, Hashable, str]] = []
        usage = None
        for part, key, part_where in parts:
            kind = part.get("type")
            if kind == "text":
                texts.append(text_part(self._text(part, part_where)))
                self.tally.place(key, part_where)
            elif kind == "reasoning":
                reasoning.append(self._text(part, part_where))
                self.tally.place(key, part_where)
            elif kind == "tool":
                call_id = call_id_or_none(part.get("callID"), f"{part_where}.callID") or self.ids.new()
                name = need_text(part.get("tool"), f"{part_where}.tool", "the tool's name")
                # A tool part without a state was never run: its call stays, answered as interrupted.
                state = object_or_none(part.get("state"), f"{part_where}.state", "the tool's state") or {}
                arguments = arguments_or_empty(state.get("input"), f"{part_where}.state.input")
                calls.append(tool_call(call_id, name, arguments))
                results.append((call_id, self._output(state, f"{part_where}.state"), key, part_where))
            else:
                if kind == "step-finish":
                    usage = usage_of(part.get("tokens"), part.get("cost"), part_where, self.aside)
                self._other(part, key, part_where)
        usage = usage or fallback
        if not (texts or calls or reasoning):
            return False
        content = simplify_parts(texts) if texts else (None if calls else "")
        self.builder.add(make_message("assistant", content, tool_calls=calls or None), where, usage=usage,
                         reasoning="\n".join(r for r in reasoning if r) or None)
        for call_id, output, key, part_where in results:
            self.builder.add(make_message("tool", output, tool_call_id=call_id), part_where)
            self.tally.place(key, part_where)
        return True

    def _output(self, state: dict[str, Any], where: str) -> Any:
        """A tool part's result as OpenCode sends it (the output of a cleared result is kept: it is the log's)."""
        # Pending and running calls (and a state without a status) were interrupted.
        status = text_or_none(state.get("status"), f"{where}.status", "the tool's status")
        if status == "completed":
            time = self.aside.keep(state.get("time"), is_object, f"{where}.time", "time", "an object of times",
                                   "whether OpenCode later cleared the output is not known") or {}
            if time.get("compacted"):
                self.cleared_outputs += 1
            text = text_or_none(state.get("output"), f"{where}.output", "the tool's output") or ""
            images = []
            for position, item in enumerate(list_or_empty(state.get("attachments"), f"{where}.attachments", "the attachments")):
                if not isinstance(item, dict):
                    raise FieldProblem(f"{where}.attachments[{position}]", f"expected an attachment object, got {kind_of(item)}")
                mime = text_or_none(item.get("mime"), f"{where}.attachments[{position}].mime", "the media type") or ""
                if mime.startswith("image/"):
                    url = text_or_none(item.get("url"), f"{where}.attachments[{position}].url", "the image's URL")
                    images.append(image_part(url or ""))
            return [text_part(text), *images] if images else text
        if status == "error":
            metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
            if metadata.get("interrupted") is True and isinstance(metadata.get("output"), str):
                return metadata["output"]
            return text_or_none(state.get("error"), f"{where}.error", "the error message") or ""
        return INTERRUPTED

    def finish(self) -> None:
        self.builder.warnings.extend(self.aside.warnings())
        if self.cleared_outputs:
            self.builder.metadata["cleared_tool_outputs"] = self.cleared_outputs
            self.builder.warnings.append(
                f"{self.cleared_outputs} tool output(s) were later cleared from OpenCode's context "
                "(it sends '[Old tool result content cleared]' for them); the messages keep the outputs the log holds"
            )
