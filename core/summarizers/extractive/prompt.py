"""Reading a summary prompt back into a request (the plain ``summarizer(prompt, max_tokens)`` path).

Both documented layouts are read: v0.15.1/v0.16.0 (template from ``## Active Task``) and v0.17.0+
(template from ``## Historical Task Snapshot``, an optional ``TEMPORAL ANCHORING`` line after the
target, and a focus block whose focus may span several lines). The headings are the prompt's own,
read from its template, so the summary uses exactly the headings it was asked for.
"""

from __future__ import annotations

import re
from typing import Any

from core.summarizers.base import SummaryRequest
from core.summarizers.extractive.model import DEFAULT_HEADINGS, SECTION_KEYS

_TURN_HEADER_RE = re.compile(r"^\[(TOOL RESULT(?: ([^\]]*))?|[A-Z][A-Z_ -]*)\]: ?", re.MULTILINE)
_TURN_SPLIT_RE = re.compile(r"\n\n(?=\[(?:TOOL RESULT[^\]\n]*|[A-Z][A-Z_ -]*)\]: ?)")
_TARGET_RE = re.compile(r"^Target ~(\d+) tokens", re.MULTILINE)
_CALL_LINE_RE = re.compile(r"\A  ([^(]*)\((.*)\)$", re.DOTALL)  # matched on a whole line
_HEADERS = ("TURNS TO SUMMARIZE:", "NEW TURNS TO INCORPORATE:")
# The first heading of the template, by release.
_TEMPLATE_STARTS = ("\n## Active Task\n", "\n## Historical Task Snapshot\n")
_FOCUS_OPENING = '\n\nFOCUS TOPIC: "'
_FOCUS_PARAGRAPH_MARK = "PRIORITISE"


def _deserialize_turns(block: str) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    pending_calls: list[dict[str, Any]] = []
    for chunk in _TURN_SPLIT_RE.split(block) if block.strip() else []:
        header = _TURN_HEADER_RE.match(chunk)
        if header is None:
            if turns:  # a blank line inside a turn's content
                previous = turns[-1]
                previous["content"] = (previous.get("content") or "") + "\n\n" + chunk
            continue
        body = chunk[header.end() :]
        label = header.group(1)
        if label.startswith("TOOL RESULT"):
            call_id = header.group(2) or ""
            if pending_calls:
                pending_calls.pop(0)["id"] = call_id
            turns.append({"role": "tool", "tool_call_id": call_id, "content": body})
            continue
        message: dict[str, Any] = {"role": label.lower()}
        if label == "ASSISTANT" and "\n[Tool calls:\n" in body and body.endswith("\n]"):
            body, _, calls_block = body.rpartition("\n[Tool calls:\n")
            calls: list[dict[str, Any]] = []
            for line in calls_block[: -len("\n]")].split("\n") if calls_block != "]" else []:
                call_match = _CALL_LINE_RE.match(line)
                if call_match:
                    calls.append({
                        "id": f"call_{len(turns)}_{len(calls)}",
                        "type": "function",
                        "function": {"name": call_match.group(1), "arguments": call_match.group(2)},
                    })
                elif calls:
                    calls[-1]["function"]["arguments"] += "\n" + line
            message["tool_calls"] = calls
            pending_calls = list(calls)
        message["content"] = body
        turns.append(message)
    return turns


def _template_headings(template: str) -> tuple[str, ...]:
    """The ``## `` lines of the template, up to the target line: the 13 headings in order."""
    end = _TARGET_RE.search(template)
    headings = tuple(line.rstrip() for line in template[: end.start() if end else len(template)].split("\n")
                     if line.startswith("## "))
    return headings if len(headings) == len(SECTION_KEYS) else DEFAULT_HEADINGS


def _focus(after_template: str) -> str | None:
    """The focus topic of the prompt's focus block: the text between ``FOCUS TOPIC: "`` and the
    ``"`` that ends the line before the instruction paragraph (the focus may hold quotes and lines)."""
    start = after_template.rfind(_FOCUS_OPENING)
    if start < 0:
        return None
    rest = after_template[start + len(_FOCUS_OPENING) :]
    ends = [match.start() for match in re.finditer('"\n', rest)]
    if not ends:
        return rest.rstrip('"\n ') or None
    for end in ends:
        following = rest[end + 2 :].split("\n", 1)[0]
        if _FOCUS_PARAGRAPH_MARK in following:
            return rest[:end]
    return rest[: ends[-1]]


def parse_prompt(prompt: str, max_tokens: int | None) -> SummaryRequest:
    """Read a summary prompt (the compressor's documented layout, any release) back into a request."""
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
    header_at = -1
    header = ""
    for candidate in _HEADERS:
        position = prompt.find(candidate + "\n")
        if position >= 0 and (header_at < 0 or position < header_at):
            header_at, header = position, candidate
    template_at = max(prompt.rfind(start) for start in _TEMPLATE_STARTS)
    if header_at < 0 or template_at < header_at:
        raise ValueError(
            "the prompt does not have the summary layout (no 'TURNS TO SUMMARIZE:' or "
            "'NEW TURNS TO INCORPORATE:' block before a '## Active Task' or '## Historical Task Snapshot' "
            "template); call summarize_request(SummaryRequest(...)) with the turns instead"
        )
    block = prompt[header_at + len(header) + 1 : template_at].rstrip("\n")
    turns_text, separator, _instruction = block.rpartition("\n\n")
    if not separator:
        turns_text = ""
    previous_summary = None
    if header == "NEW TURNS TO INCORPORATE:":
        start = prompt.find("PREVIOUS SUMMARY:\n")
        if 0 <= start < header_at:
            previous_summary = prompt[start + len("PREVIOUS SUMMARY:\n") : header_at].strip() or None
    after_template = prompt[template_at + 1 :]
    target = _TARGET_RE.findall(after_template)
    budget = int(target[0]) if target else int(max_tokens / 1.3) if max_tokens else 0
    return SummaryRequest(
        prompt=prompt,
        max_tokens=max_tokens,
        turns=_deserialize_turns(turns_text),
        serialized_turns=turns_text,
        previous_summary=previous_summary,
        focus_topic=_focus(after_template),
        summary_budget=budget,
        section_headings=_template_headings(after_template),
    )
