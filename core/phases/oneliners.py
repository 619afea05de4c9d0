"""One-line descriptions of old tool results (Phase 1, pass 2; also used by the v0.16.0 fallback).

``ONELINER_RULES`` maps a profile's ``oneliner_rule`` to its builder: ``reference`` (v0.15.1 to
v0.18.1, where arguments of the wrong type make the release raise; such inputs have no defined
output and get the defaults here) and ``never-raise`` (v0.19.0: typed reads of the arguments and a
size line whenever anything goes wrong).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_EXIT_CODE_RE = re.compile(r'"exit_code"\s*:\s*(-?\d+)')
_TOTAL_COUNT_RE = re.compile(r'"total_count"\s*:\s*(\d+)')
_BROWSER_TOOLS = frozenset(
    {"browser_navigate", "browser_click", "browser_snapshot", "browser_type", "browser_scroll", "browser_vision"}
)
_SKILL_TOOLS = frozenset({"skill_view", "skills_list", "skill_manage"})


def _parse_args(tool_args: Any) -> dict[str, Any]:
    if not tool_args:
        return {}
    try:
        parsed = json.loads(tool_args)
    except (json.JSONDecodeError, TypeError, ValueError, RecursionError):
        return {}
    # Non-object JSON makes the reference raise; describe it with the defaults instead.
    return parsed if isinstance(parsed, dict) else {}


def _line_count(content: str) -> int:
    # ``content.strip()`` is non-empty exactly when the text is not all whitespace.
    return content.count("\n") + 1 if content and not content.isspace() else 0


def _shorten(value: Any, limit: int, keep: int) -> Any:
    try:
        if len(value) > limit:
            return value[:keep] + "..."
    except TypeError:
        pass
    return value


def summarize_tool_result(tool_name: Any, tool_args: Any, content: str) -> str:
    """``[tool] …`` one-liner for a tool result, following the reference format per tool."""
    args = _parse_args(tool_args)
    size = f"{len(content):,}"
    lines = _line_count(content) if tool_name in ("terminal", "execute_code") else 0

    if tool_name == "terminal":
        command = _shorten(args.get("command", ""), 80, 77)
        match = _EXIT_CODE_RE.search(content)
        code = match.group(1) if match else "?"
        return f"[terminal] ran `{command}` -> exit {code}, {lines} lines output"
    if tool_name == "read_file":
        return f"[read_file] read {args.get('path', '?')} from line {args.get('offset', 1)} ({size} chars)"
    if tool_name == "write_file":
        written = args.get("content")
        line_count: Any = "?"
        if written:
            line_count = written.count("\n") + 1 if isinstance(written, str) else len(str(written).split("\n"))
        return f"[write_file] wrote to {args.get('path', '?')} ({line_count} lines)"
    if tool_name == "search_files":
        match = _TOTAL_COUNT_RE.search(content)
        count = match.group(1) if match else "?"
        return (
            f"[search_files] {args.get('target', 'content')} search for '{args.get('pattern', '?')}' "
            f"in {args.get('path', '.')} -> {count} matches"
        )
    if tool_name == "patch":
        return f"[patch] {args.get('mode', 'replace')} in {args.get('path', '?')} ({size} chars result)"
    if tool_name in _BROWSER_TOOLS:
        url = args.get("url", "")
        ref = args.get("ref", "")
        target = f" {url}" if url else (f" ref={ref}" if ref else "")
        return f"[{tool_name}]{target} ({size} chars)"
    if tool_name == "web_search":
        return f"[web_search] query='{args.get('query', '?')}' ({size} chars result)"
    if tool_name == "web_extract":
        urls = args.get("urls", [])
        description = f"{urls[0]}" if isinstance(urls, list) and urls else "?"
        if isinstance(urls, list) and len(urls) > 1:
            description += f" (+{len(urls) - 1} more)"
        return f"[web_extract] {description} ({size} chars)"
    if tool_name == "delegate_task":
        goal = _shorten(args.get("goal", ""), 60, 57)
        return f"[delegate_task] '{goal}' ({size} chars result)"
    if tool_name == "execute_code":
        code = args.get("code", "")
        preview = str((code or "")[:60]).replace("\n", " ") if isinstance(code, str) or not code else str(code)[:60]
        try:
            if len(code) > 60:
                preview += "..."
        except TypeError:
            pass
        return f"[execute_code] `{preview}` ({lines} lines output)"
    if tool_name in _SKILL_TOOLS:
        return f"[{tool_name}] name={args.get('name', '?')} ({size} chars)"
    if tool_name == "vision_analyze":
        question = args.get("question", "")
        try:
            question = question[:50]
        except TypeError:
            pass
        return f"[vision_analyze] '{question}' ({size} chars)"
    if tool_name == "memory":
        return f"[memory] {args.get('action', '?')} on {args.get('target', '?')}"
    if tool_name == "todo":
        return "[todo] updated task list"
    if tool_name == "clarify":
        return "[clarify] asked user a question"
    if tool_name == "text_to_speech":
        return f"[text_to_speech] generated audio ({size} chars)"
    if tool_name == "cronjob":
        return f"[cronjob] {args.get('action', '?')}"
    if tool_name == "process":
        return f"[process] {args.get('action', '?')} session={args.get('session_id', '?')}"
    details = "".join(f" {key}={str(value)[:40]}" for key, value in list(args.items())[:2])
    return f"[{tool_name}]{details} ({size} chars result)"


# --- v0.19.0 --------------------------------------------------------------------------------------


def _str_arg(args: dict[str, Any], key: str) -> str:
    """v0.19.0's typed read: the value if it is a str, "" for None or a missing key, else ``str(value)``."""
    value = args.get(key)
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _first_url(urls: Any) -> str:
    if not isinstance(urls, list) or not urls:
        return "?"
    first = urls[0]
    if isinstance(first, dict):
        first = first.get("url") or first.get("href") or "?"
    elif not isinstance(first, str):
        first = "?"
    description = f"{first}"
    if len(urls) > 1:
        description += f" (+{len(urls) - 1} more)"
    return description


def _never_raise(tool_name: Any, tool_args: Any, content: str) -> str:
    args = _parse_args(tool_args)
    size = f"{len(content):,}"
    if tool_name == "terminal":
        command = _str_arg(args, "command")
        if len(command) > 80:
            command = command[:77] + "..."
        match = _EXIT_CODE_RE.search(content)
        code = match.group(1) if match else "?"
        return f"[terminal] ran `{command}` -> exit {code}, {_line_count(content)} lines output"
    if tool_name == "write_file":
        written = _str_arg(args, "content")
        line_count: Any = written.count("\n") + 1 if written else "?"
        return f"[write_file] wrote to {args.get('path', '?')} ({line_count} lines)"
    if tool_name == "web_extract":
        return f"[web_extract] {_first_url(args.get('urls', []))} ({size} chars)"
    if tool_name == "delegate_task":
        goal = _str_arg(args, "goal")
        if len(goal) > 60:
            goal = goal[:57] + "..."
        return f"[delegate_task] '{goal}' ({size} chars result)"
    if tool_name == "execute_code":
        code = _str_arg(args, "code")
        preview = code[:60].replace("\n", " ") + ("..." if len(code) > 60 else "")
        return f"[execute_code] `{preview}` ({_line_count(content)} lines output)"
    if tool_name == "vision_analyze":
        return f"[vision_analyze] '{_str_arg(args, 'question')[:50]}' ({size} chars)"
    return summarize_tool_result(tool_name, tool_args, content)


def summarize_tool_result_never_raise(tool_name: Any, tool_args: Any, content: Any) -> str:
    """v0.19.0: the reference one-liner with typed argument reads; any failure gives a size line."""
    try:
        return _never_raise(tool_name, tool_args, content)
    except Exception:  # the release wraps the whole builder the same way
        length = len(content) if isinstance(content, str) else 0
        return f"[{tool_name}] ({length:,} chars result)"


ONELINER_RULES: dict[str, Callable[[Any, Any, Any], str]] = {
    "reference": summarize_tool_result,
    "never-raise": summarize_tool_result_never_raise,
}
