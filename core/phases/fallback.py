"""What replaces the middle when no summary could be generated.

v0.15.1 inserts a fixed sentence; v0.16.0 builds a deterministic structured summary from the
dropped turns (tool names, paths, one-liners, blockers, the last user ask). v0.17.0 renamed four
of its headings and v0.18.0 stopped repeating the last ask under two of them: both come from the
profile. ``FALLBACKS`` maps a profile's ``fallback`` to its builder.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from core import profiles as P
from core.message_view import content_text, iterate_calls
from core.phases.oneliners import ONELINER_RULES
from core.phases.summary import with_summary_prefix
from core.profiles import Profile

Redactor = Callable[[Any], Any]

_PATH_MENTION_RE = re.compile(r"(?:/|~/?|[A-Za-z]:\\)[^\s`'\")\]}<>]+")
_GH_TOKEN_RE = re.compile(r"\bgh[pousr]_[A-Za-z0-9_]{8,}\b")
_GH_MASK_RE = re.compile(r"\bgh[pousr]_[A-Za-z0-9_.-]+")
_WHITESPACE_RE = re.compile(r"\s+")
_BLOCKER_RE = re.compile(r"\b(error|failed|exception|traceback|timeout|timed out|fatal)\b", re.IGNORECASE)
_PATH_KEYS = ("path", "workdir", "file_path", "output_path")
_MAX_FILES = 12
_MAX_BLOCKERS = 5
_MAX_DROPPED_TURNS = 8
_MAX_COMPLETED = 12
_MAX_TOOL_NAMES = 6


def static_fallback_summary(n_dropped: int, profile: Profile) -> str:
    """The v0.15.1 text: no extraction, only a count."""
    return (
        f"{profile.summary_prefix}\nSummary generation was unavailable. {n_dropped} message(s) were removed to "
        "free context space but could not be summarized. The removed messages contained earlier work in this "
        "session. Continue based on the recent messages below and the current state of any files or resources."
    )


def _call_fields(call: Any) -> tuple[str, str, str]:
    """(id, name, arguments) of a tool call, stringified as the fallback reads them."""
    if isinstance(call, dict):
        function = call.get("function") or {}
        if not isinstance(function, dict):
            function = {}
        return (
            str(call.get("id") or ""),
            str(function.get("name") or "unknown"),
            str(function.get("arguments") or ""),
        )
    function = getattr(call, "function", None)
    return (
        str(getattr(call, "id", None) or ""),
        str(getattr(function, "name", None) or "unknown"),
        str(getattr(function, "arguments", None) or ""),
    )


def _shorten_turn_text(text: str) -> str:
    if len(text) > P.FALLBACK_TURN_MAX_CHARS:
        return text[:685].rstrip() + " ...[truncated]"
    return text


def _turn_text(message: dict[str, Any], redact: Redactor) -> str:
    text = redact(content_text(message.get("content")))
    text = _GH_TOKEN_RE.sub("[REDACTED]", text)
    text = _WHITESPACE_RE.sub(" ", text).strip()
    text = _shorten_turn_text(text)
    return _GH_MASK_RE.sub("[REDACTED]", text)


def _bullets(items: Sequence[str], limit: int) -> str:
    kept: list[str] = []
    for item in items:
        item = item.strip()
        if not item or item in kept:
            continue
        kept.append(item)
        if len(kept) >= limit:
            break
    return "\n".join(f"- {item}" for item in kept) if kept else "None."


class _FileCollector:
    def __init__(self) -> None:
        self.files: list[str] = []

    def add(self, value: str) -> None:
        value = value.strip()
        if value and value not in self.files and len(self.files) < _MAX_FILES:
            self.files.append(value)

    def add_mentions(self, text: str) -> None:
        for match in _PATH_MENTION_RE.findall(text):
            self.add(match.rstrip(".,:;"))

    def walk(self, value: Any, depth: int = 0) -> None:
        if depth > 200:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _PATH_KEYS and isinstance(item, str):
                    self.add(item)
                self.walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value:
                self.walk(item, depth + 1)
        elif isinstance(value, str):
            self.add_mentions(value)


def _first_result_ids(turns: Sequence[Any], count: int) -> set[str]:
    """The call ids the first ``count`` tool messages of ``turns`` answer, as the fallback reads them."""
    ids: set[str] = set()
    seen = 0
    for message in turns:
        if seen >= count:
            break
        if isinstance(message, dict) and message.get("role", "unknown") == "tool":
            ids.add(str(message.get("tool_call_id") or ""))
            seen += 1
    return ids


def deterministic_fallback_summary(
    turns: Sequence[Any],
    reason: str | None,
    previous_summary: str | None,
    profile: Profile,
    redact: Redactor,
) -> str:
    """The v0.16.0 structured fallback, built only from the dropped window."""
    files = _FileCollector()
    # Only the first tool results reach the summary ("completed" keeps the first few actions), so
    # only their calls are looked up: a long window does not keep a map of every call.
    wanted_ids = _first_result_ids(turns, _MAX_COMPLETED)
    summarize_tool_result = ONELINER_RULES[profile.oneliner_rule]
    call_map: dict[str, tuple[str, str]] = {}

    for message in turns:
        if not isinstance(message, dict) or message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        calls = message["tool_calls"]
        for call in iterate_calls(calls):
            call_id, name, arguments = _call_fields(call)
            redacted_args = redact(arguments)
            if call_id and call_id in wanted_ids:
                call_map[call_id] = (name, redacted_args)
            if redacted_args:
                try:
                    parsed: Any = json.loads(redacted_args)
                except (json.JSONDecodeError, ValueError, RecursionError):
                    parsed = redacted_args
                files.walk(parsed)

    # Every list below is cut to what the summary shows as it grows: the last few turns, the
    # first actions, the first distinct blockers, the last ask. The output is the same as keeping
    # them all, and the memory does not grow with the window.
    dropped_turns: deque[str] = deque(maxlen=_MAX_DROPPED_TURNS)
    last_ask: str | None = None
    assistant_actions: list[str] = []
    tool_actions: list[str] = []
    blockers: list[str] = []  # distinct and stripped, as ``_bullets`` would show them
    for message in turns:
        if not isinstance(message, dict):
            continue
        role = message.get("role", "unknown")
        text = _turn_text(message, redact)
        files.add_mentions(text)
        calls = message.get("tool_calls") if role == "assistant" else None
        names: list[str] = []
        if calls:
            names = [_call_fields(c)[1] for c in iterate_calls(calls)][:_MAX_TOOL_NAMES]
            entry = "tool calls: " + ", ".join(names)
            if text:
                entry += f"; {text}"
        else:
            entry = text
        if entry.strip():
            dropped_turns.append(f"{str(role).upper()}: {entry}")
        if len(text) > 600:
            text = text[:420].rstrip() + " ... " + text[-160:].lstrip()
        if role == "user":
            if text:
                last_ask = text
        elif role == "assistant":
            if len(assistant_actions) < _MAX_COMPLETED and (calls or text):
                assistant_actions.append(("Called tool(s): " + ", ".join(names)) if calls else text)
        elif role == "tool":
            if len(tool_actions) < _MAX_COMPLETED:
                name, arguments = call_map.get(str(message.get("tool_call_id") or ""), ("unknown", ""))
                tool_actions.append(summarize_tool_result(name, arguments, text))
            if len(blockers) < _MAX_BLOCKERS and _BLOCKER_RE.search(text):
                blocker = text[:500].strip()
                if blocker and blocker not in blockers:
                    blockers.append(blocker)

    completed = (assistant_actions + tool_actions)[:_MAX_COMPLETED]
    completed_text = (
        "\n".join(f"{i}. {item}" for i, item in enumerate(completed, 1))
        if completed
        else "None recoverable from compacted turns."
    )
    active_task = f"User asked: {last_ask!r}" if last_ask is not None else "Unknown from deterministic fallback."
    goal = (
        "Recovered from a deterministic fallback because the LLM context summarizer was unavailable. Continue "
        "from the protected recent messages after this summary and use current file/system state for exact details."
    )
    if previous_summary:
        goal += (
            "\n\nPrevious compaction summary was present and should still be treated as background continuity "
            "context, but the latest LLM summary update failed."
        )
    critical = (
        "Summary generation was unavailable, so this is a best-effort deterministic fallback for "
        f"{len(turns)} compacted message(s)."
    )
    if reason:
        critical += f" Summary failure reason: {reason}."
    task, goal_h, constraints_h, completed_h, state_h, progress_h, blocked_h, decisions_h, resolved_h, pending_h, \
        files_h, remaining_h, dropped_h, critical_h = profile.fallback_headings
    sections = [
        (task, active_task),
        (goal_h, goal),
        (
            constraints_h,
            "- This fallback was generated locally without an LLM summary call.\n"
            "- Secrets and credentials were redacted before preservation.\n"
            "- The summary may be incomplete; prefer verifying current files, git state, processes, and test "
            "results instead of assuming omitted details.",
        ),
        (completed_h, completed_text),
        (state_h, "Unknown from deterministic fallback. Inspect current repository/session state if needed."),
        (progress_h, profile.fallback_in_progress or active_task),
        (blocked_h, _bullets(blockers, _MAX_BLOCKERS)),
        (decisions_h, "None recoverable from deterministic fallback."),
        (resolved_h, "None recoverable from deterministic fallback."),
        (pending_h, profile.fallback_pending_asks or active_task),
        (files_h, _bullets(files.files, _MAX_FILES)),
        (
            remaining_h,
            "Continue from the most recent unfulfilled user ask and protected tail messages. Verify state with "
            "tools before making claims.",
        ),
        (dropped_h, _bullets(dropped_turns, _MAX_DROPPED_TURNS)),
        (critical_h, critical),
    ]
    body = "\n\n".join(f"{heading}\n{text}" for heading, text in sections)
    summary = with_summary_prefix(redact(body.strip()), profile)
    if len(summary) > P.FALLBACK_SUMMARY_MAX_CHARS:
        summary = summary[:7958].rstrip() + P.FALLBACK_TRUNCATION_MARK
    return summary


def fallback_summary(
    turns: Sequence[Any],
    *,
    dropped_count: int,
    reason: str | None,
    previous_summary: str | None,
    profile: Profile,
    redact: Redactor,
) -> str:
    """The profile's fallback summary for a window of ``dropped_count`` messages (``turns`` after rehydration)."""
    return FALLBACKS[profile.fallback](turns, dropped_count, reason, previous_summary, profile, redact)


FALLBACKS: dict[str, Callable[..., str]] = {
    "static": lambda turns, dropped, reason, previous, profile, redact: static_fallback_summary(dropped, profile),
    "deterministic": lambda turns, dropped, reason, previous, profile, redact: deterministic_fallback_summary(
        turns, reason, previous, profile, redact
    ),
}
