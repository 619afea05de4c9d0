"""OpenHands event streams and trajectories (a list of events, ``{"history": [...]}``, or JSONL).

Mapping, close to what OpenHands itself sends the model: the ``system`` action is the system
message; ``message`` actions are user or assistant messages (with ``image_urls`` as image
parts); other agent actions carrying ``tool_call_metadata`` are assistant tool calls (their
``thought`` as text, their ``args`` minus bookkeeping keys as arguments); observations with
``tool_call_metadata`` are the tool results. Events the model never sees (state changes,
recalls, ...) are skipped and counted in ``metadata["skipped_events"]``. A tool call that never
got an observation (e.g. ``finish``) is kept as plain assistant text so tool pairs stay whole;
such calls are listed in ``metadata["unanswered_tool_calls"]``. ``condensation`` actions (and
condensation observations) are :class:`CompactionEvent` s.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from core.formats.messages import (
    Builder,
    FieldProblem,
    IdMaker,
    image_part,
    kind_of,
    make_message,
    text_part,
    tool_call,
)
from core.formats.model import CompactionEvent, Conversation, SessionInfo
from core.formats.session_pick import pick_session
from core.formats.source import InputSource, JsonLines

NAME = "openhands"
SOURCES = ("agent", "user", "environment")
# Event args that are bookkeeping, not tool arguments the model wrote.
_BOOKKEEPING_ARGS = frozenset(
    {"thought", "is_input", "blocking", "hidden", "confirmation_state", "security_risk", "impl_source", "wait_for_response"}
)
_CONDENSATION = ("condensation", "agent_condensation")


def is_event(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "id" in item
        and item.get("source") in SOURCES
        and ("action" in item or "observation" in item)
    )


def event_list(doc: Any) -> list[Any] | None:
    if isinstance(doc, list) and doc and any(is_event(item) for item in doc[:20]):
        return doc
    if isinstance(doc, dict) and isinstance(doc.get("history"), list) and any(is_event(i) for i in doc["history"][:20]):
        return doc["history"]
    return None


def looks_like(doc: Any) -> bool:
    return event_list(doc) is not None


def looks_like_records(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    return bool(dicts) and (is_event(dicts[0]) or event_list(dicts[0]) is not None)


def _metadata(event: dict[str, Any]) -> dict[str, Any] | None:
    meta = event.get("tool_call_metadata")
    return meta if isinstance(meta, dict) and meta.get("tool_call_id") else None


def _observation_text(event: dict[str, Any]) -> str:
    content = event.get("content")
    if isinstance(content, str):
        return content
    if content is None:
        return str(event.get("message", ""))
    return json.dumps(content, ensure_ascii=False)


def convert_events(events: list[Any], builder: Builder, prefix: str = "event") -> list[dict[str, Any]]:
    ids = IdMaker("call_")
    tools: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    answered = {
        str(_metadata(e)["tool_call_id"]) for e in events if isinstance(e, dict) and "observation" in e and _metadata(e)
    }
    unanswered: list[dict[str, Any]] = []
    last_response_id = None  # calls from one model response share an assistant message
    for position, event in enumerate(events):
        if not isinstance(event, dict):
            raise FieldProblem(f"[{position}]", f"expected an event object, got {kind_of(event)}")
        where = f"{prefix} {event.get('id', position)}"
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        action = event.get("action")
        observation = event.get("observation")
        meta = _metadata(event)
        if action in _CONDENSATION or observation in _CONDENSATION:
            summary = args.get("summary") if action else _observation_text(event)
            details = {k: args[k] for k in ("forgotten_events_start_id", "forgotten_events_end_id", "summary_offset") if k in args}
            if isinstance(args.get("forgotten_event_ids"), list):
                details["forgotten_event_count"] = len(args["forgotten_event_ids"])
            builder.events.append(
                CompactionEvent(position=len(builder), kind="condensation", summary=summary or None, source=where, details=details)
            )
            continue
        if action == "system":
            content = args.get("content") or event.get("message") or ""
            builder.add(make_message("system", str(content)), where)
            if isinstance(args.get("tools"), list):
                tools = args["tools"]
            continue
        if action == "message" and not meta:
            role = "user" if event.get("source") == "user" else "assistant"
            text = str(args.get("content", event.get("message", "")))
            images = args.get("image_urls") or []
            if not isinstance(images, list):
                images = [images]
            content: Any = text
            if images:
                content = [text_part(text)] + [image_part(str(url)) for url in images]
            builder.add(make_message(role, content), where)
            continue
        if action is not None and meta:
            call_id = str(meta["tool_call_id"])
            ids.reserve(call_id)
            arguments = {k: v for k, v in args.items() if k not in _BOOKKEEPING_ARGS}
            thought = args.get("thought") if isinstance(args.get("thought"), str) else ""
            name = str(meta.get("function_name", action))
            if call_id not in answered:
                text = thought or str(event.get("message", "")) or f"{name}: {json.dumps(arguments, ensure_ascii=False)}"
                if action == "finish" and args.get("final_thought"):
                    text = str(args["final_thought"])
                builder.add(make_message("assistant", text), where)
                unanswered.append({"source": where, "tool_call_id": call_id, "name": name})
                continue
            call = tool_call(call_id, name, arguments)
            last = builder.last()
            response_id = (meta.get("model_response") or {}).get("id") if isinstance(meta.get("model_response"), dict) else None
            if (
                response_id
                and last is not None
                and last["role"] == "assistant"
                and last_response_id == response_id
            ):
                last.setdefault("tool_calls", []).append(call)
            else:
                builder.add(make_message("assistant", thought or None, tool_calls=[call]), where)
            last_response_id = response_id
            continue
        if observation is not None and meta:
            builder.add(make_message("tool", _observation_text(event), tool_call_id=str(meta["tool_call_id"])), where)
            continue
        skipped[str(action or observation)] += 1
    if skipped:
        builder.metadata["skipped_events"] = dict(skipped)
    if unanswered:
        builder.metadata["unanswered_tool_calls"] = unanswered
    return tools


def _message_events(events: list[Any]) -> int:
    """How many events become messages (cheap, without converting the run)."""
    return sum(
        1
        for e in events
        if isinstance(e, dict) and (e.get("action") in ("system", "message") or _metadata(e) is not None)
    )


def _conversation(events: list[Any], src: InputSource, prefix: str = "event") -> Conversation:
    builder = Builder(NAME, src.name)
    tools = convert_events(events, builder, prefix)
    model = None
    for event in events:
        if isinstance(event, dict) and isinstance(event.get("llm_metrics"), dict):
            model = event["llm_metrics"].get("model_name") or model
    return builder.build(model=model if isinstance(model, str) else None, tools=tools)


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    events = event_list(doc)
    if events is None:
        raise FieldProblem(None, "expected a list of OpenHands events (or an object with 'history')")
    conv = _conversation(events, src)
    if isinstance(doc, dict) and doc.get("instance_id"):
        conv.metadata["instance_id"] = doc["instance_id"]
    return conv


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    """JSONL: one event per line, or one eval result ``{"instance_id", "history"}`` per line."""
    first = next((record for _, record in lines.head(1)), None)
    if is_event(first):
        events = [record for _, record in lines.records()]
        conv = _conversation(events, src)
        conv.warnings[:0] = lines.warnings
        return conv
    runs = [(line, rec) for line, rec in lines.records() if event_list(rec) is not None]
    if not runs:
        raise FieldProblem(None, "no OpenHands histories found; expected one event or one run with 'history' per line")
    infos = [
        SessionInfo(id=str(rec.get("instance_id") or f"line {line}"), message_count=_message_events(event_list(rec) or []))
        for line, rec in runs
    ]
    chosen = pick_session(infos, session, src, default=infos[-1].id)
    line, record = runs[[info.id for info in infos].index(chosen)]
    conv = _conversation(event_list(record) or [], src, prefix=f"line {line} event")
    conv.sessions, conv.session_id = infos, chosen
    conv.warnings[:0] = lines.warnings
    return conv
