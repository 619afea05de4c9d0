"""Phase 3: choosing the turns, serialising them, the summary budget and the summariser prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core import profiles as P
from core.message_view import content_text, role_of
from core.profiles import Profile

Redactor = Callable[[Any], Any]

TEMPLATE_SECTIONS: tuple[str, ...] = P.TEMPLATE_HEADINGS


# --- recognising and cleaning handoff summaries -------------------------------------------------


def is_summary_text(text: str, profile: Profile) -> bool:
    # Every prefix starts with "[": only text starting with "[" or with whitespace can match,
    # which avoids copying long tool outputs just to left-strip them.
    prefixes = profile.recognised_prefixes
    if text.startswith(prefixes):
        return True
    return text[:1].isspace() and text.lstrip().startswith(prefixes)


def is_summary_content(content: Any, profile: Profile) -> bool:
    return is_summary_text(content_text(content), profile)


def strip_summary_prefix(text: str, profile: Profile) -> str:
    """Remove a recognised prefix (current, legacy, historical) and the whitespace around it."""
    stripped = text.strip()
    for prefix in profile.recognised_prefixes:
        if stripped.startswith(prefix):
            return stripped[len(prefix) :].lstrip()
    return stripped


def with_summary_prefix(text: str, profile: Profile) -> str:
    body = strip_summary_prefix(text, profile)
    return f"{profile.summary_prefix}\n{body}" if body else profile.summary_prefix


def find_existing_summary(messages: Sequence[Any], compress_end: int, profile: Profile) -> int | None:
    """Index of the newest handoff summary in ``messages[s:compress_end]`` (``s`` skips a system prompt)."""
    start = 1 if messages and role_of(messages[0]) == "system" else 0
    prefixes = profile.recognised_prefixes
    for k in range(min(compress_end, len(messages)) - 1, start - 1, -1):
        message = messages[k]
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if type(content) is str:  # the common case, checked inline
            if content.startswith(prefixes) or (content[:1].isspace() and content.lstrip().startswith(prefixes)):
                return k
        elif is_summary_content(content, profile):
            return k
    return None


# --- serialising the turns ----------------------------------------------------------------------


def truncate_content(text: str) -> str:
    if len(text) > P.CONTENT_MAX:
        return text[: P.CONTENT_HEAD] + P.SERIALIZER_TRUNCATION_MARK + text[-P.CONTENT_TAIL :]
    return text


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _texts_and_plan(turns: Sequence[Any]) -> tuple[list[str], list[Any]]:
    """The texts to redact (each content, then each dict tool call's arguments) and, per turn,
    its block's label, or for an assistant with tool calls the label and one entry per call:
    ``(True, function name)`` to write with the next redacted text, or ``(False, finished line)``."""
    raw: list[Any] = []
    plan: list[Any] = []
    for message in turns:
        if not isinstance(message, dict):
            raw.append(str(message))
            plan.append("[UNKNOWN]: ")
            continue
        content = message.get("content") or ""
        raw.append(content if isinstance(content, str) else str(content))  # as the redactor would
        role = message.get("role", "unknown")
        if role == "tool":
            plan.append(f"[TOOL RESULT {message.get('tool_call_id', '')}]: ")
        elif role == "assistant":
            calls = message.get("tool_calls")
            if not calls:
                plan.append("[ASSISTANT]: ")
                continue
            entries: list[tuple[bool, Any]] = []
            for call in calls if isinstance(calls, list) else [calls]:
                if isinstance(call, dict):
                    function = call.get("function", {})
                    if not isinstance(function, dict):
                        function = {}
                    args = function.get("arguments", "")
                    raw.append(args if isinstance(args, str) else str(args))
                    entries.append((True, function.get("name", "?")))
                else:
                    function = getattr(call, "function", None)
                    name = getattr(function, "name", "?") if function else "?"
                    entries.append((False, f"  {name}(...)"))
            plan.append(("[ASSISTANT]: ", entries))
        else:
            plan.append(f"[{str(role).upper()}]: ")
    return raw, plan


def redaction_texts(turns: Sequence[Any]) -> list[tuple[int, str]]:
    """``(turn index, text)`` of every text ``serialize_for_summary`` redacts, in its order."""
    raw, plan = _texts_and_plan(turns)
    owners: list[int] = []
    for turn, entry in enumerate(plan):
        owners.append(turn)
        if type(entry) is not str:
            owners.extend(turn for takes_args, _value in entry[1] if takes_args)
    return list(zip(owners, raw, strict=True))


def serialize_for_summary(
    turns: Sequence[Any], redact: Redactor, redact_many: Callable[[list[str]], list[str]] | None = None
) -> str:
    """Role-labelled text of the turns, redacted and truncated, blocks joined by a blank line.

    ``redact_many`` (optional) redacts a whole list at once; it must give exactly what ``redact``
    gives per text, and only exists because one search per pass over all turns is faster.
    """
    raw, plan = _texts_and_plan(turns)
    redacted = redact_many(raw) if redact_many is not None else [redact(r) for r in raw]

    # The output is assembled from pieces in one join, so long contents are copied only once.
    # Inserting a text into an f-string formats it; only a str subclass can format differently
    # from its own characters, so only then is ``format`` applied, as the f-string would.
    content_max, args_max, args_head = P.CONTENT_MAX, P.TOOL_ARGS_MAX, P.TOOL_ARGS_HEAD
    parts: list[str] = []
    k = 0
    for entry in plan:
        content = redacted[k]
        k += 1
        if not isinstance(content, str):
            content = str(content)
        if len(content) > content_max:
            content = truncate_content(content)
        if type(content) is not str:
            content = format(content, "")
        if parts:
            parts.append("\n\n")
        if type(entry) is str:
            parts.append(entry)
            parts.append(content)
            continue
        label, entries = entry
        lines = []
        for takes_args, value in entries:
            if takes_args:
                args = redacted[k]
                k += 1
                if not isinstance(args, str):
                    args = str(args)
                if len(args) > args_max:
                    args = args[:args_head] + "..."
                lines.append(f"  {value}({args})")
            else:
                lines.append(value)
        parts.append(label)
        parts.append(content)
        parts.append("\n[Tool calls:\n" + "\n".join(lines) + "\n]")
    return "".join(parts)


def redacted_turns(turns: Sequence[Any], redact: Redactor) -> list[Any]:
    """Copies of the turns with content and tool-call arguments redacted (what an extractive summarizer sees)."""
    out: list[Any] = []
    for message in turns:
        if not isinstance(message, dict):
            out.append(redact(str(message)))
            continue
        copy = dict(message)
        content = message.get("content")
        if isinstance(content, str):
            copy["content"] = redact(content)
        elif isinstance(content, list):
            parts = []
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    parts.append({**part, "text": redact(part["text"])})
                elif isinstance(part, str):
                    parts.append(redact(part))
                else:
                    parts.append(part)
            copy["content"] = parts
        elif content is not None:
            copy["content"] = redact(str(content))
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            new_calls = []
            for call in calls:
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    function = call["function"]
                    args = function.get("arguments")
                    if args is not None:
                        function = {**function, "arguments": redact(args if isinstance(args, str) else str(args))}
                    call = {**call, "function": function}
                new_calls.append(call)
            copy["tool_calls"] = new_calls
        out.append(copy)
    return out


# --- budget -------------------------------------------------------------------------------------


def summary_budget(content_tokens: int, max_summary_tokens: int) -> int:
    return max(P.MIN_SUMMARY_TOKENS, min(int(content_tokens * P.SUMMARY_RATIO), max_summary_tokens))


def max_tokens_for_budget(budget: int) -> int:
    return int(budget * P.MAX_TOKENS_FACTOR)


# --- the prompt ---------------------------------------------------------------------------------

_PREAMBLE = (
    "You are a summarization agent creating a context checkpoint for an ongoing piece of work. "
    "Treat the conversation turns below as source material for a compact, factual record of the work done "
    "so far. Output only the structured summary: no greeting, no preamble and no prefix. Write in the same "
    "language the user used; do not translate it into English. Never include API keys, tokens, passwords, "
    "secrets, credentials or connection strings; write [REDACTED] instead, noting only that a credential "
    "was present."
)
_FIRST_INSTRUCTION = (
    "Write a structured checkpoint summary of the turns below, detailed enough that nobody needs to "
    "re-read them to continue the work."
)
_ITERATIVE_INTRO = (
    "A previous compaction already produced the summary below. Merge the new turns into it so it stays "
    "one complete, current record."
)
_ITERATIVE_RULES = (
    "Use the exact structure below. Keep every item that is still relevant, add the new completed actions "
    "to the numbered list (continue its numbering), move finished In Progress items to Completed Actions "
    "and answered questions to Resolved Questions, refresh Active State, and remove only information that "
    "is clearly obsolete. "
)


def _template(profile: Profile) -> str:
    instructions = {
        "## Active Task": profile.active_task_instruction,
        "## Goal": "[The user's overall objective for this session.]",
        "## Constraints & Preferences": (
            "[Preferences, coding style, constraints and important decisions the user stated.]"
        ),
        "## Completed Actions": (
            "[A numbered list, one line each: N. ACTION target — outcome [tool: name]. Be concrete with paths, "
            "commands, line numbers and results, e.g.\n"
            "1. READ config.py:45 — found the timeout set to 5 s [tool: read_file]\n"
            "2. PATCH config.py:45 — raised the timeout to 30 s [tool: patch]\n"
            "3. TEST `pytest tests/` — 3 failed, 41 passed [tool: terminal]]"
        ),
        "## Active State": (
            "[Working directory and branch, files modified or created, test status as X/Y, running "
            "processes, relevant environment details.]"
        ),
        "## In Progress": "[What was being worked on when this checkpoint was taken.]",
        "## Blocked": "[Unresolved blockers and errors, quoting the exact error messages.]",
        "## Key Decisions": "[Important technical decisions and the reasons for them.]",
        "## Resolved Questions": "[Questions already answered, with their answers, so they are not asked again.]",
        "## Pending User Asks": "[User questions or requests not yet answered or fulfilled; \"None.\" if none.]",
        "## Relevant Files": "[Files read, modified or created, each with a short note.]",
        "## Remaining Work": "[What remains to be done, framed as context rather than instructions.]",
        "## Critical Context": (
            "[Specific values, error messages and configuration details that would otherwise be lost. "
            "Never credentials: write [REDACTED].]"
        ),
    }
    return "\n\n".join(f"{heading}\n{instructions[heading]}" for heading in TEMPLATE_SECTIONS)


def build_summary_prompt(
    serialized_turns: str,
    *,
    profile: Profile,
    summary_budget_tokens: int,
    previous_summary: str | None = None,
    focus_topic: str | None = None,
) -> str:
    """The single user message sent to the summariser.

    Layout: preamble, blank line, the mode's body (the turns after their header line, a blank
    line, one instruction paragraph), a blank line, the template, the closing sentences, and the
    focus block at the very end.
    """
    closing = (
        f"Target ~{summary_budget_tokens} tokens. Be concrete: include file paths, command outputs, error "
        "messages, line numbers and exact values, and avoid vague phrases such as \"made some changes\".\n\n"
        "Write only the summary body, with no preamble and no prefix."
    )
    # One string built in one go: the turns can be megabytes, and every intermediate copy of them
    # costs a fresh allocation.
    if previous_summary:
        prompt = (
            f"{_PREAMBLE}\n\n{_ITERATIVE_INTRO}\n\nPREVIOUS SUMMARY:\n{previous_summary}\n\n"
            f"NEW TURNS TO INCORPORATE:\n{serialized_turns}\n\n"
            f"{_ITERATIVE_RULES}{profile.iterative_critical_sentence}\n\n{_template(profile)}\n\n{closing}"
        )
    else:
        prompt = (
            f"{_PREAMBLE}\n\n{_FIRST_INSTRUCTION}\n\nTURNS TO SUMMARIZE:\n{serialized_turns}\n\n"
            f"Use this exact structure:\n\n{_template(profile)}\n\n{closing}"
        )
    if focus_topic:
        prompt += (
            f'\n\nFOCUS TOPIC: "{focus_topic}"\n'
            "The user wants this compaction to PRIORITISE everything related to this topic: keep full detail "
            "(exact values, paths, command outputs, errors and decisions). Summarise unrelated content "
            "aggressively, as one-liners or not at all. Give the focus-related sections roughly 60-70% of the "
            "summary token budget. Credentials are still written as [REDACTED]."
        )
    return prompt
