"""Codex CLI rollout logs (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Every line is ``{timestamp, type, payload}``. ``response_item`` payloads are Responses API
items and go through the Responses assembler; ``event_msg`` lines mostly repeat them (and
are ignored) except ``token_count``, whose ``last_token_usage`` becomes the usage of the
latest assistant message. A ``compacted`` line is a compaction point: its summary text is
what Codex hands the model afterwards, so it is kept as a user message there and recorded as
a :class:`CompactionEvent`. The context messages Codex injects on its own
(``<environment_context>``, ``<user_instructions>``, ``# AGENTS.md`` ...) are left out of
``messages`` and listed in ``metadata["excluded_messages"]`` (with their text) and in a warning.
"""

from __future__ import annotations

from typing import Any

from core.formats.messages import Builder, make_message, text_of
from core.formats.model import CompactionEvent, Conversation, SessionInfo
from core.formats.openai_responses import ResponsesAssembler
from core.formats.source import InputSource, JsonLines

NAME = "codex"
ENVELOPE_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions instructions>")


def looks_like(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    if not dicts:
        return False
    if dicts[0].get("type") == "session_meta" and "payload" in dicts[0]:
        return True
    hits = sum(
        1 for r in dicts if isinstance(r.get("type"), str) and r["type"] in ENVELOPE_TYPES and isinstance(r.get("payload"), dict)
    )
    return hits >= max(1, len(dicts) // 2)


def _context_kind(item: dict[str, Any]) -> str | None:
    if item.get("type") != "message" or item.get("role") not in ("user", "developer"):
        return None
    content = item.get("content")
    if isinstance(content, list):
        texts = [str(p.get("text", "")) for p in content if isinstance(p, dict)]
        text = "\n".join(texts)
    else:
        text = str(content or "")
    stripped = text.lstrip()
    for prefix in CONTEXT_PREFIXES:
        if stripped.startswith(prefix):
            return prefix
    return None


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    builder = Builder(NAME, src.name)
    assembler = ResponsesAssembler(builder)
    model = None
    meta: dict[str, Any] = {}
    excluded: list[dict[str, Any]] = []
    for line, record in lines.records():
        where = f"line {line}"
        if not isinstance(record, dict):
            lines.warnings.append(f"{where}: expected an envelope object; skipped")
            continue
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            lines.warnings.append(f"{where}: expected a 'payload' object; skipped")
            continue
        if kind == "session_meta":
            meta = payload
            instructions = payload.get("instructions")
            if isinstance(instructions, str) and instructions.strip() and not builder.messages:
                builder.add(make_message("system", instructions), f"{where} instructions")
        elif kind == "turn_context":
            model = payload.get("model") or model
        elif kind == "response_item":
            context = _context_kind(payload)
            if context:
                excluded.append(
                    {"source": where, "kind": context, "role": payload.get("role"), "text": _item_text(payload)}
                )
                continue
            assembler.add(payload, where)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            if isinstance(info, dict):
                usage = info.get("last_token_usage") or info.get("total_token_usage")
                target = _last_assistant(builder)
                if isinstance(usage, dict) and target is not None:
                    builder.usage[target] = dict(usage)
                    if isinstance(info.get("total_token_usage"), dict):
                        builder.metadata["total_token_usage"] = dict(info["total_token_usage"])
        elif kind == "compacted":
            summary = payload.get("message")
            summary = summary if isinstance(summary, str) else None
            event = CompactionEvent(position=len(builder), kind="compacted", summary=summary, source=where)
            replacement = payload.get("replacement_history")
            if isinstance(replacement, list):
                event.details["replacement_history_items"] = len(replacement)
            builder.events.append(event)
            if summary:
                builder.add(make_message("user", summary), f"{where} (compacted)")
    assembler.finish()
    if not builder.messages and not excluded:
        lines.warnings.append("no conversation items found in the rollout")
    if excluded:
        builder.metadata["excluded_messages"] = excluded
        listed = ", ".join(f"{e['kind']} at {e['source']}" for e in excluded)
        builder.warnings.append(f"left out {len(excluded)} context message(s) Codex injects itself: {listed}")
    builder.warnings[:0] = lines.warnings
    session_id = str(meta.get("id")) if meta.get("id") else None
    info = SessionInfo(
        id=session_id or src.name,
        message_count=len(builder),
        started_at=meta.get("timestamp"),
        model=model,
    )
    if meta:
        builder.metadata["session_meta"] = {k: meta[k] for k in ("cwd", "originator", "cli_version", "source") if k in meta}
    return builder.build(model=model, sessions=[info], session_id=info.id)


def _item_text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return text_of(content)


def _last_assistant(builder: Builder) -> int | None:
    for index in range(len(builder.messages) - 1, -1, -1):
        if builder.messages[index]["role"] == "assistant":
            return index
    return None
