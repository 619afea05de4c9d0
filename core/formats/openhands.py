"""OpenHands event streams and trajectories (a list of events, ``{"history": [...]}``, or JSONL).

Mapping, close to what OpenHands itself sends the model: the ``system`` action is the system
message; ``message`` actions are user or assistant messages (with ``image_urls`` as image
parts); other agent actions carrying ``tool_call_metadata`` are assistant tool calls (their
``thought`` as text, their ``args`` minus bookkeeping keys as arguments); observations with
``tool_call_metadata`` are the tool results. A tool call that never got an observation (e.g.
``finish``) is kept as plain assistant text so tool pairs stay whole; such calls are listed in
``metadata["unanswered_tool_calls"]``. ``condensation`` actions (and condensation observations)
are :class:`CompactionEvent` s.

Histories written before function calling (2024 evaluation ``output.jsonl`` files and resolver
outputs) have no ``tool_call_metadata``, often no ``id`` or ``source``, and sometimes hold
``[action, observation]`` pairs instead of single events. There every action other than a
message is a tool call named after the action (``run``, ``read``, ``edit`` ...) answered by its
observation (the other half of its pair, the observation whose ``cause`` is its id, or else the
next observation); an observation with nothing to answer is what the agent saw as a user
message. A message action without ``source`` is the agent's when it waits for a response.

Events the model never sees are metadata in the load report (state changes, placeholder
observations) or skipped with a warning (other event types, listed by type in
``metadata["skipped_events"]``). In JSONL, a line is one event or one run
(``{"instance_id", "history"}``; a resolver output ``{"issue", "history", ...}``): each run is
a session.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Hashable
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
from core.formats.session_pick import one_session_per_line
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec
from core.safe_text import quoted

NAME = "openhands"
SOURCES = ("agent", "user", "environment")
# Event args that are bookkeeping, not tool arguments the model wrote.
_BOOKKEEPING_ARGS = frozenset(
    {"thought", "is_input", "blocking", "hidden", "confirmation_state", "security_risk", "impl_source", "wait_for_response"}
)
_CONDENSATION = ("condensation", "agent_condensation")
# Events with no content for the model (the load report's metadata).
_NO_CONTENT = {
    "agent_state_changed": "agent state changes",
    "change_agent_state": "agent state changes",
    "null": "placeholder observations (no observation)",
}
_NOT_TOOLS = ("message", "system", "null", *_CONDENSATION, *_NO_CONTENT)


def is_event(item: Any) -> bool:
    """A serialized event: ``id``, ``source`` and an action or observation."""
    return (
        isinstance(item, dict)
        and "id" in item
        and item.get("source") in SOURCES
        and ("action" in item or "observation" in item)
    )


def is_legacy_event(item: Any) -> bool:
    """An event as older versions wrote it (``id``, ``source`` and ``tool_call_metadata`` optional)."""
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("action"), str) and isinstance(item.get("args"), dict):
        return True
    return isinstance(item.get("observation"), str) and ("content" in item or "extras" in item)


def _is_pair(item: Any) -> bool:
    return isinstance(item, (list, tuple)) and len(item) == 2 and all(is_legacy_event(e) or is_event(e) for e in item)


def _looks_like_history(items: Any) -> bool:
    return (
        isinstance(items, list)
        and bool(items)
        and any(is_event(item) or is_legacy_event(item) or _is_pair(item) for item in items[:20])
    )


def event_list(doc: Any) -> list[Any] | None:
    """The history of a document: a list of events (or ``[action, observation]`` pairs), or ``history``."""
    if isinstance(doc, list) and _looks_like_history(doc) and (
        any(is_event(item) for item in doc[:20]) or all(is_legacy_event(i) or _is_pair(i) for i in doc[:20])
    ):
        return doc
    if isinstance(doc, dict) and _looks_like_history(doc.get("history")):
        return doc["history"]
    return None


def looks_like(doc: Any) -> bool:
    return event_list(doc) is not None


def looks_like_records(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    return bool(dicts) and (is_event(dicts[0]) or event_list(dicts[0]) is not None)


def _flatten(history: list[Any]) -> tuple[list[Any], dict[int, int]]:
    """Events in order, and for pair layouts which event (index) answers which action (index)."""
    events: list[Any] = []
    answers: dict[int, int] = {}
    for item in history:
        if isinstance(item, (list, tuple)) and len(item) == 2:
            action, observation = item
            events.append(action)
            events.append(observation)
            answers[len(events) - 1] = len(events) - 2
        else:
            events.append(item)
    return events, answers


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


def _kind(event: dict[str, Any]) -> str:
    return str(event.get("action") or event.get("observation"))


class _Run:
    """Converts the events of one run into a Builder, classifying each for the load report."""

    def __init__(self, builder: Builder, keys: list[tuple[Hashable, str]]) -> None:
        self.builder = builder
        self.keys = keys  # per event: (tally key, where)
        self.ids = IdMaker("call_")
        self.tools: list[dict[str, Any]] = []
        self.skipped: Counter[str] = Counter()
        self.unanswered: list[dict[str, Any]] = []
        # The id of the event each message came from (a condensation names the events it forgets).
        self.event_ids: list[Any] = []

    def came_from(self, event_id: Any) -> None:
        """The messages added since the last call came from the event ``event_id``."""
        self.event_ids.extend([event_id] * (len(self.builder) - len(self.event_ids)))

    def place(self, position: int) -> None:
        key, where = self.keys[position]
        self.builder.tally.place(key, where)

    def no_content(self, position: int, kind: str) -> None:
        key, where = self.keys[position]
        if kind in _NO_CONTENT:
            self.builder.tally.meta(key, _NO_CONTENT[kind], where)
        else:
            self.skipped[kind] += 1
            self.builder.tally.skip(key, f"{quoted(kind)} events are not messages the model sees", where)

    def common(self, position: int, event: dict[str, Any], args: dict[str, Any]) -> bool:
        """System prompts, messages and condensations (the same in every version); True when handled."""
        where = self.keys[position][1]
        action, observation = event.get("action"), event.get("observation")
        if action in _CONDENSATION or observation in _CONDENSATION:
            summary = args.get("summary") if action else _observation_text(event)
            details = {k: args[k] for k in ("forgotten_events_start_id", "forgotten_events_end_id", "summary_offset") if k in args}
            if isinstance(args.get("forgotten_event_ids"), list):
                details["forgotten_event_count"] = len(args["forgotten_event_ids"])
            forgotten = _forgotten(args)
            if forgotten is not None and len(self.event_ids) == len(self.builder):
                # The messages OpenHands still sends after the condensation, besides the later ones.
                details["kept_positions"] = [i for i, event_id in enumerate(self.event_ids) if event_id not in forgotten]
            self.builder.events.append(
                CompactionEvent(position=len(self.builder), kind="condensation", summary=summary or None, source=where, details=details)
            )
            self.place(position)
            return True
        if action == "system":
            content = args.get("content") or event.get("message") or ""
            self.builder.add(make_message("system", str(content)), where)
            if isinstance(args.get("tools"), list):
                self.tools = args["tools"]
            self.place(position)
            return True
        if action == "message" and not _metadata(event):
            source = event.get("source")
            if source not in SOURCES:
                source = "agent" if args.get("wait_for_response") else "user"
            text = str(args.get("content", event.get("message", "")))
            images = args.get("image_urls") or args.get("images_urls") or []
            if not isinstance(images, list):
                images = [images]
            content: Any = text
            if images:
                content = [text_part(text)] + [image_part(str(url)) for url in images]
            self.builder.add(make_message("user" if source == "user" else "assistant", content), where)
            self.place(position)
            return True
        return False

    def unanswered_call(self, position: int, event: dict[str, Any], args: dict[str, Any], name: str, call_id: str) -> None:
        """A call without an observation: its text, so no tool call is left without a result."""
        arguments = {k: v for k, v in args.items() if k not in _BOOKKEEPING_ARGS}
        thought = args.get("thought") if isinstance(args.get("thought"), str) else ""
        text = thought or str(event.get("message", "")) or f"{name}: {json.dumps(arguments, ensure_ascii=False)}"
        if event.get("action") == "finish" and args.get("final_thought"):
            text = str(args["final_thought"])
        self.builder.add(make_message("assistant", text), self.keys[position][1])
        self.unanswered.append({"source": self.keys[position][1], "tool_call_id": call_id, "name": name})
        self.place(position)

    def finish(self) -> None:
        if self.skipped:
            self.builder.metadata["skipped_events"] = dict(self.skipped)
        if self.unanswered:
            self.builder.metadata["unanswered_tool_calls"] = self.unanswered


def _forgotten(args: dict[str, Any]) -> set[Any] | None:
    """The ids of the events a condensation forgets (None when it does not say)."""
    listed = args.get("forgotten_event_ids")
    if isinstance(listed, list):
        return {item for item in listed if isinstance(item, (int, str))}
    first, last = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
    if all(isinstance(value, int) and not isinstance(value, bool) for value in (first, last)) and 0 <= last - first < 10**6:
        return set(range(first, last + 1))
    return None


def _args(event: dict[str, Any]) -> dict[str, Any]:
    return event["args"] if isinstance(event.get("args"), dict) else {}


def _convert_current(run: _Run, events: list[dict[str, Any]]) -> None:
    """Events with ``tool_call_metadata`` (function calling)."""
    answered = {str(_metadata(e)["tool_call_id"]) for e in events if "observation" in e and _metadata(e)}  # type: ignore[index]
    last_response_id = None  # calls from one model response share an assistant message
    builder = run.builder
    previous_id: Any = None
    for position, event in enumerate(events):
        run.came_from(previous_id)
        event_id = event.get("id")
        previous_id = event_id if isinstance(event_id, (int, str)) and not isinstance(event_id, bool) else None
        args = _args(event)
        if run.common(position, event, args):
            continue
        where = run.keys[position][1]
        meta = _metadata(event)
        if event.get("action") is not None and meta:
            call_id = str(meta["tool_call_id"])
            run.ids.reserve(call_id)
            name = str(meta.get("function_name", event["action"]))
            if call_id not in answered:
                run.unanswered_call(position, event, args, name, call_id)
                continue
            arguments = {k: v for k, v in args.items() if k not in _BOOKKEEPING_ARGS}
            thought = args.get("thought") if isinstance(args.get("thought"), str) else ""
            call = tool_call(call_id, name, arguments)
            last = builder.last()
            response = meta.get("model_response")
            response_id = response.get("id") if isinstance(response, dict) else None
            if response_id and last is not None and last["role"] == "assistant" and last_response_id == response_id:
                last.setdefault("tool_calls", []).append(call)
            else:
                builder.add(make_message("assistant", thought or None, tool_calls=[call]), where)
            last_response_id = response_id
            run.place(position)
        elif event.get("observation") is not None and meta:
            builder.add(make_message("tool", _observation_text(event), tool_call_id=str(meta["tool_call_id"])), where)
            run.place(position)
        else:
            run.no_content(position, _kind(event))


def _convert_legacy(run: _Run, events: list[dict[str, Any]], pairs: dict[int, int]) -> None:
    """Events without ``tool_call_metadata``: every tool action is answered by its observation."""
    answer_of: dict[int, int] = {}  # action position → observation position
    by_id = {e.get("id"): p for p, e in enumerate(events) if "action" in e and e.get("id") is not None}
    open_actions: list[int] = []
    for position, event in enumerate(events):
        if "action" in event and str(event.get("action")) not in _NOT_TOOLS:
            open_actions.append(position)
        elif "observation" in event and str(event.get("observation")) not in _NOT_TOOLS:
            action = pairs.get(position)
            if action is None and event.get("cause") in by_id:
                action = by_id[event["cause"]]
            if action is None and open_actions:
                action = open_actions[-1]
            if action is not None and action in open_actions and action not in answer_of:
                answer_of[action] = position
                open_actions.remove(action)
    answered = set(answer_of.values())
    builder = run.builder
    for position, event in enumerate(events):
        args = _args(event)
        if run.common(position, event, args):
            continue
        where = run.keys[position][1]
        kind = _kind(event)
        if "action" in event and kind not in _NOT_TOOLS:
            call_id = run.ids.new()
            if position not in answer_of:
                run.unanswered_call(position, event, args, kind, call_id)
                continue
            arguments = {k: v for k, v in args.items() if k not in _BOOKKEEPING_ARGS}
            thought = args.get("thought") if isinstance(args.get("thought"), str) else ""
            builder.add(make_message("assistant", thought or None, tool_calls=[tool_call(call_id, kind, arguments)]), where)
            run.place(position)
            # The observation follows its action at once, even when the log wrote others in between.
            answer = answer_of[position]
            builder.add(make_message("tool", _observation_text(events[answer]), tool_call_id=call_id), run.keys[answer][1])
            run.place(answer)
        elif position in answered:
            continue  # already placed right after its action
        elif "observation" in event and kind not in _NOT_TOOLS:
            builder.add(make_message("user", _observation_text(event)), where)  # what the agent was shown
            run.place(position)
        else:
            run.no_content(position, kind)


def convert_events(
    history: list[Any], builder: Builder, prefix: str = "event", keys: list[tuple[Hashable, str]] | None = None
) -> list[dict[str, Any]]:
    """Append a run's messages to ``builder`` (returns the tool schemas of its system action)."""
    events, pairs = _flatten(history)
    for position, event in enumerate(events):
        if not isinstance(event, dict):
            raise FieldProblem(f"[{position}]", f"expected an event object, got {kind_of(event)}")
    if keys is None or len(keys) != len(events):
        keys = [(position, f"{prefix} {event.get('id', position)}") for position, event in enumerate(events)]
    run = _Run(builder, keys)
    if any(_metadata(e) for e in events):
        _convert_current(run, events)
    else:
        _convert_legacy(run, events, pairs)
    run.finish()
    return run.tools


def _conversation(history: list[Any], src: InputSource, prefix: str = "event", unit: str = "event",
                  keys: list[tuple[Hashable, str]] | None = None) -> Conversation:
    builder = Builder(NAME, src.name, unit=unit)
    tools = convert_events(history, builder, prefix, keys)
    model = None
    for event in _flatten(history)[0]:
        if isinstance(event, dict) and isinstance(event.get("llm_metrics"), dict):
            model = event["llm_metrics"].get("model_name") or model
    return builder.build(model=model if isinstance(model, str) else None, tools=tools)


def _run_id(record: dict[str, Any], line: int) -> str:
    if record.get("instance_id"):
        return str(record["instance_id"])
    issue = record.get("issue")
    if isinstance(issue, dict) and issue.get("number") is not None:
        repo = "/".join(str(issue[k]) for k in ("owner", "repo") if issue.get(k))
        return f"{repo}#{issue['number']}" if repo else f"issue {issue['number']}"
    return f"line {line}"


def _message_count(history: list[Any], src: InputSource) -> int:
    try:
        return len(_conversation(history, src).messages)
    except FieldProblem:
        return 0


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    events = event_list(doc)
    if events is None:
        raise FieldProblem(None, "expected a list of OpenHands events (or an object with 'history')")
    conv = _conversation(events, src)
    if isinstance(doc, dict):
        if doc.get("instance_id"):
            conv.metadata["instance_id"] = doc["instance_id"]
        for key in ("git_patch", "success", "error"):
            if key in doc:
                conv.metadata[key] = doc[key]
    return conv


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    """JSONL: one event per line, or one run (``{"instance_id", "history"}``, a resolver output) per line."""
    first = next((record for _, record in lines.head(1)), None)
    if is_event(first) or (is_legacy_event(first) and event_list(first) is None):
        records = list(lines.records())
        keys: list[tuple[Hashable, str]] = [(line, f"line {line}") for line, _ in records]
        conv = _conversation([record for _, record in records], src, prefix="line", unit="line", keys=keys)
        conv.warnings[:0] = lines.warnings
        return conv

    def convert(line: int, record: dict[str, Any]) -> Conversation:
        conv = _conversation(event_list(record) or [], src, prefix=f"line {line} event")
        for key in ("instance_id", "git_patch", "success", "error"):
            if key in record:
                conv.metadata[key] = record[key]
        return conv

    return one_session_per_line(
        lines, src, session, holds_session=lambda record: event_list(record) is not None,
        info_of=lambda line, rec: SessionInfo(id=_run_id(rec, line), message_count=_message_count(event_list(rec) or [], src)),
        rows_of=lambda rec: len(_flatten(event_list(rec) or [])[0]), convert=convert,
        not_a_session="lines without an OpenHands history",
        none_found="no OpenHands histories found; expected one event or one run with 'history' per line",
    )


FORMAT = FormatSpec(
    name=NAME,
    description="OpenHands event streams, trajectories and evaluation outputs",
    detect_document=looks_like,
    detect_records=looks_like_records,
    parse_document=parse_document,
    parse_records=parse_records,
)
