"""A Cline / Roo Code / Kilo Code ``api_conversation_history.json`` into canonical messages.

The file is the list of Anthropic messages the extension sends, with keys of its own beside them
(``modelInfo``, ``metrics``, ``ts``, Roo's ``isSummary`` / ``condenseParent``). Tools come in two
shapes, both turned into real tool calls answered by tool messages:

* native tool calling: ``tool_use`` blocks, answered by ``tool_result`` blocks or, when the
  extension could not map the call id (it then falls back to plain text), by text blocks that
  start ``[read_file for 'a.py'] Result:``;
* older versions: the calls are XML in the assistant's text (``<read_file><path>a.py</path>
  </read_file>``), answered by the same ``[...] Result:`` text blocks.

A result text block is paired with the oldest open call of its tool name (else the oldest open
call); image blocks right after it belong to the same result. Calls that never got a result are
kept as text of their message; the copies of earlier calls Roo puts in a summary are left out. A ``summarize_task`` / ``condense`` call (Cline's compaction: its
``context`` is the summary the task continues from) and Roo's ``isSummary`` message are
compaction points, reported to the caller with their places.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.formats.anthropic import AnthropicConverter
from core.formats.fields import SetAside, is_flag, is_number, is_object, is_text, need_text, object_or_none
from core.formats.messages import Builder, FieldProblem, kind_of, text_of
from core.formats.tool_pairs import unanswered_calls_to_text

# Tool names of the XML protocol: Cline's, then the ones Roo Code and Kilo Code add.
TOOL_NAMES = (
    "execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
    "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource", "ask_followup_question",
    "attempt_completion", "plan_mode_respond", "act_mode_respond", "new_task", "condense", "summarize_task",
    "report_bug", "new_rule", "load_mcp_documentation", "web_fetch", "web_search", "focus_chain", "apply_patch",
    "apply_diff", "insert_content", "search_and_replace", "switch_mode", "codebase_search", "update_todo_list",
    "fetch_instructions", "run_slash_command", "generate_image", "edit_file", "search_replace", "read_multiple_files",
)
# Parameters whose value is free text that may contain tags: the last closing tag ends them.
FREE_TEXT = ("content", "diff", "result", "context", "response", "question", "args", "new_str", "old_str", "todos")
SUMMARY_TOOLS = ("summarize_task", "condense")
_OPEN_TOOL = re.compile(r"<(" + "|".join(TOOL_NAMES) + r")>")
_PARAM = re.compile(r"<([a-z_]+)>")
# The part after the tool's name quotes a parameter, and a question or a message spans lines.
_RESULT = re.compile(r"^\[(\w+)\b(?:[^\n]*| for '[\s\S]*?')\] Result:")
USAGE_NAMES = {"prompt": "input_tokens", "completion": "output_tokens", "cached": "cache_read_input_tokens"}


def split_xml_tools(text: str) -> list[tuple[str, Any]]:
    """``text`` as pieces: ``("text", str)`` and ``("call", (name, params))``; an unclosed tag stays text."""
    pieces: list[tuple[str, Any]] = []
    position = 0
    while (match := _OPEN_TOOL.search(text, position)) is not None:
        name = match.group(1)
        close = f"</{name}>"
        end = text.find(close, match.end())
        if end < 0:
            break  # cut off mid-call: what is left is text
        pieces.append(("text", text[position:match.start()]))
        pieces.append(("call", (name, _params(text[match.end():end]))))
        position = end + len(close)
    pieces.append(("text", text[position:]))
    return [(kind, value) for kind, value in pieces if kind == "call" or value.strip()]


def _params(body: str) -> dict[str, str]:
    params: dict[str, str] = {}
    position = 0
    while (match := _PARAM.search(body, position)) is not None:
        name = match.group(1)
        close = f"</{name}>"
        end = body.rfind(close) if name in FREE_TEXT else body.find(close, match.end())
        if end < match.end():
            position = match.end()
            continue
        value = body[match.end():end]
        params[name] = value.strip("\n") if name in FREE_TEXT else value.strip()
        position = end + len(close)
    return params


@dataclass
class Summary:
    """A compaction point the history shows: where (api index, canonical index) and its text."""

    api_index: int
    position: int
    kind: str
    text: str | None
    where: str


class HistoryConverter:
    """The messages of one ``api_conversation_history.json`` onto a Builder (module docstring)."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.anthropic = AnthropicConverter(builder)
        self.open: list[tuple[str, str]] = []  # (call id, tool name) waiting for a result, oldest first
        self.counter = 0
        self.assistant_at: dict[int, int] = {}  # api index -> canonical index of its assistant message
        self.first_at: dict[int, int] = {}  # api index -> canonical index of the first message it gave
        self.model: str | None = None
        self.summaries: list[Summary] = []
        self.xml_calls = 0
        self.text_results = 0
        self.condensed = 0
        self.seen_calls: set[str] = set()
        self.aside = SetAside()

    def add(self, index: int, message: Any, where: str) -> None:
        if not isinstance(message, dict):
            raise FieldProblem(where, f"expected a message object with 'role' and 'content', got {kind_of(message)}")
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            raise FieldProblem(f"{where}.content", f"expected a string or a list of content blocks, got {kind_of(content)}")
        blocks = self._checked(blocks, f"{where}.content")
        is_summary = self.aside.keep(message.get("isSummary"), is_flag, f"{where}.isSummary", "isSummary", "true or false",
                                     "the message is not read as a summary")
        if role == "assistant":
            blocks = self._assistant_blocks(blocks)
            if is_summary:
                # Roo copies the calls whose results it keeps into its summary: the originals are earlier.
                blocks = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_use"
                                                    and str(b.get("id")) in self.seen_calls)]
        elif role == "user":
            blocks = self._user_blocks(blocks)
        produced = self.anthropic.add({"role": role, "content": blocks}, where, usage=self._usage(message, where))
        self.first_at[index] = produced[0]
        if message.get("condenseParent"):
            self.condensed += 1
        if role != "assistant":
            return
        self.assistant_at[index] = produced[0]
        effect = "the task's model is taken from the other messages"
        info = self.aside.keep(message.get("modelInfo"), is_object, f"{where}.modelInfo", "modelInfo",
                               "an object describing the model", effect)
        model = self.aside.keep((info or {}).get("modelId"), is_text, f"{where}.modelInfo.modelId", "modelId",
                                "the model's name", effect)
        if model is not None:
            self.model = model
        for position, block in enumerate(blocks):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                self.open.append((block["id"], block["name"]))
                self.seen_calls.add(block["id"])
                if block["name"] in SUMMARY_TOOLS:
                    context = (block.get("input") or {}).get("context")
                    context = self.aside.keep(context, is_text, f"{where}.content[{position}].input.context", "context",
                                              "the summary as text", "the compaction event has no summary text")
                    self.summaries.append(Summary(index, produced[0], "cline-summarize", context, where))
        if is_summary:
            self.summaries.append(Summary(index, produced[0], "roo-condense", text_of(self.builder.messages[produced[0]]["content"]), where))

    def _checked(self, blocks: list[Any], where: str) -> list[Any]:
        """The blocks with the fields this reader and the Anthropic converter read checked: those the
        conversation is made of must have their type (a FieldProblem otherwise); a thinking block whose
        text is not a string is set aside (reasoning is optional)."""
        out: list[Any] = []
        for position, block in enumerate(blocks):
            place = f"{where}[{position}]"
            if not isinstance(block, dict):
                out.append(block)  # a string is text; anything else the converter refuses
                continue
            kind = need_text(block.get("type"), f"{place}.type", "the block's type")
            if kind == "text":
                need_text(block.get("text"), f"{place}.text", "the block's text")
            elif kind == "thinking":
                if self.aside.keep(block.get("thinking"), is_text, f"{place}.thinking", "thinking", "the reasoning text",
                                   "the message is read without that reasoning") is None:
                    continue
            elif kind == "tool_use":
                if not isinstance(block.get("id"), str) or not block["id"]:
                    raise FieldProblem(f"{place}.id", f"expected the call's id as a string, got {kind_of(block.get('id'))}")
                need_text(block.get("name"), f"{place}.name", "the tool's name")
                object_or_none(block.get("input"), f"{place}.input", "the tool's input")
            elif kind == "tool_result":
                if not isinstance(block.get("tool_use_id"), str) or not block["tool_use_id"]:
                    raise FieldProblem(f"{place}.tool_use_id", "expected the id of the tool_use this result answers, "
                                                               f"got {kind_of(block.get('tool_use_id'))}")
                result = block.get("content")
                if isinstance(result, list):
                    block = {**block, "content": self._checked(result, f"{place}.content")}
                elif result is not None and not isinstance(result, str):
                    raise FieldProblem(f"{place}.content", f"expected the result as text or a list of blocks, got {kind_of(result)}")
            out.append(block)
        return out

    def _usage(self, message: dict[str, Any], where: str) -> dict[str, Any] | None:
        """Newer versions store each assistant message's usage as ``metrics.tokens``: ``prompt`` is the
        uncached input and ``cached`` the cache reads and writes together (the UI records split them)."""
        effect = "the message has no usage"
        metrics = self.aside.keep(message.get("metrics"), is_object, f"{where}.metrics", "metrics",
                                  "an object of token counts and cost", effect)
        tokens = self.aside.keep((metrics or {}).get("tokens"), is_object, f"{where}.metrics.tokens", "tokens",
                                 "an object of token counts", effect)
        if metrics is None or tokens is None:
            return None
        usage = self.aside.counts(tokens, USAGE_NAMES, f"{where}.metrics.tokens")
        cost = self.aside.keep(metrics.get("cost"), is_number, f"{where}.metrics.cost", "cost", "a number",
                               "left out of the usage")
        if cost is not None:
            usage["cost"] = cost
        return usage or None

    def _assistant_blocks(self, blocks: list[Any]) -> list[Any]:
        out: list[Any] = []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str) \
                    and _OPEN_TOOL.search(block["text"]):
                for kind, value in split_xml_tools(block["text"]):
                    if kind == "text":
                        out.append({"type": "text", "text": value.strip("\n")})
                    else:
                        self.counter += 1
                        self.xml_calls += 1
                        out.append({"type": "tool_use", "id": f"cline_call_{self.counter}", "name": value[0], "input": value[1]})
            else:
                out.append(block)
        return out

    def _user_blocks(self, blocks: list[Any]) -> list[Any]:
        answered = {str(b.get("tool_use_id")) for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"}
        self.open = [(call_id, name) for call_id, name in self.open if call_id not in answered]
        out: list[Any] = []
        current: dict[str, Any] | None = None  # the result a following image still belongs to
        for block in blocks:
            if not isinstance(block, dict):
                out.append(block)
                current = None
                continue
            kind = block.get("type")
            text = block.get("text") if kind == "text" and isinstance(block.get("text"), str) else None
            match = _RESULT.match(text) if text is not None else None
            call = self._take(match.group(1)) if match else None
            if call is not None:
                self.text_results += 1
                current = {"type": "tool_result", "tool_use_id": call, "content": [{"type": "text", "text": text}]}
                out.append(current)
            elif kind == "image" and current is not None:
                current["content"].append(block)
            else:
                out.append(block)
                current = None
        return out

    def _take(self, name: str) -> str | None:
        """The open call a ``[name ...] Result:`` block answers: the oldest of that name, else the oldest."""
        for position, (_, call_name) in enumerate(self.open):
            if call_name == name:
                return self.open.pop(position)[0]
        return self.open.pop(0)[0] if self.open else None

    def finish(self) -> None:
        self.anthropic.finish()
        self.builder.warnings.extend(self.aside.warnings())
        unanswered_calls_to_text(self.builder)
        if self.xml_calls:
            self.builder.metadata["xml_tool_calls"] = self.xml_calls
        if self.text_results:
            self.builder.metadata["text_tool_results"] = self.text_results
        if self.condensed:
            self.builder.metadata["condensed_messages"] = self.condensed

