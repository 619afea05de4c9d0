"""Keeping tool pairs whole when a log recorded a call but not its result."""

from __future__ import annotations

from typing import Any

from core.formats.messages import Builder, text_part


def unanswered_calls_to_text(builder: Builder) -> list[dict[str, Any]]:
    """Tool calls that no tool message answers become text of their assistant message.

    The compressor and the API checks expect every call to be answered; a call the agent never got
    a result for (an interrupted run, a cut log) is kept as what it was, a line of the message's
    text. Returns the calls (where, id, name) for ``metadata["unanswered_tool_calls"]``.
    """
    answered = {message.get("tool_call_id") for message in builder.messages if message["role"] == "tool"}
    found: list[dict[str, Any]] = []
    for index, message in enumerate(builder.messages):
        calls = message.get("tool_calls")
        if not calls or all(call["id"] in answered for call in calls):
            continue
        missing = [call for call in calls if call["id"] not in answered]
        kept = [call for call in calls if call["id"] in answered]
        if kept:
            message["tool_calls"] = kept
        else:
            del message["tool_calls"]
        notes = [f"[{call['function']['name']} {call['function']['arguments']}: no result was recorded]" for call in missing]
        current = message.get("content")
        if isinstance(current, list):
            message["content"] = [*current, *(text_part(note) for note in notes)]
        else:
            message["content"] = "\n".join([current, *notes] if current else notes)
        found += [{"source": builder.sources[index], "tool_call_id": call["id"], "name": call["function"]["name"]}
                  for call in missing]
    if found:
        builder.metadata["unanswered_tool_calls"] = found
        builder.warnings.append(f"{len(found)} tool call(s) have no recorded result; each is kept as text of its message")
    return found
