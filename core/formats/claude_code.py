"""Claude Code session logs (``~/.claude/projects/<cwd>/<session>.jsonl``).

Each line is an event; ``user`` / ``assistant`` events carry an Anthropic ``message``. Events
form a tree through ``uuid`` / ``parentUuid`` (edits and rewinds leave abandoned branches), so
the conversation is the chain walked back from the last leaf in file order, crossing
``compact_boundary`` events through their ``logicalParentUuid``. Sidechain events (subagents)
form separate sessions, one per ``agentId``. One API response is often logged as several
assistant events sharing ``message.id``; they are merged back into one message whose usage
is the last one logged. Compaction shows up as a ``compact_boundary`` system event followed
by an ``isCompactSummary`` user message; both become a :class:`CompactionEvent`.
"""

from __future__ import annotations

from typing import Any

from core.formats.anthropic import AnthropicConverter
from core.formats.messages import Builder, FieldProblem
from core.formats.model import CompactionEvent, Conversation, SessionInfo
from core.formats.session_pick import pick_session
from core.formats.source import InputSource, JsonLines

NAME = "claude-code"
EVENT_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "progress",
        "attachment",
    }
)
_MAIN = "main"


def looks_like(records: list[tuple[int, Any]]) -> bool:
    hits = 0
    for _, record in records:
        if not isinstance(record, dict):
            continue
        if isinstance(record.get("type"), str) and record["type"] in EVENT_TYPES and (
            "uuid" in record or "sessionId" in record or "leafUuid" in record or "messageId" in record
        ):
            hits += 1
        elif "payload" in record:
            return False
    return hits > 0


def _parent_of(event: dict[str, Any]) -> str | None:
    parent = event.get("parentUuid") or event.get("logicalParentUuid")
    return str(parent) if parent else None  # uuids are keyed as strings; odd types must stay hashable


def _chain(events: dict[str, tuple[int, dict[str, Any]]], order: list[str]) -> tuple[list[str], int]:
    """uuids from root to the last leaf (in file order), and how many events were left on other branches."""
    if not order:
        return [], 0
    parents = {_parent_of(event) for _, event in events.values()}
    leaves = [uuid for uuid in order if uuid not in parents]
    tip = leaves[-1] if leaves else order[-1]
    chain: list[str] = []
    seen: set[str] = set()
    current: str | None = tip
    while current and current in events and current not in seen:
        seen.add(current)
        chain.append(current)
        current = _parent_of(events[current][1])
    chain.reverse()
    return chain, len(order) - len(chain)


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    groups: dict[str, dict[str, tuple[int, dict[str, Any]]]] = {}
    orders: dict[str, list[str]] = {}
    titles: dict[str, str] = {}
    summaries_by_leaf: dict[str, str] = {}
    session_id = None
    skipped_without_uuid = 0
    for line, record in lines.records():
        if not isinstance(record, dict):
            lines.warnings.append(f"line {line}: expected an event object; skipped")
            continue
        kind = record.get("type")
        if kind == "summary" and record.get("leafUuid"):
            summaries_by_leaf[str(record["leafUuid"])] = str(record.get("summary", ""))
            continue
        if kind == "custom-title" and record.get("customTitle"):
            titles[_MAIN] = str(record["customTitle"])
            continue
        if kind not in ("user", "assistant", "system"):
            continue
        uuid = record.get("uuid")
        if not uuid:
            skipped_without_uuid += 1
            continue
        session_id = session_id or record.get("sessionId")
        group = _MAIN
        if record.get("isSidechain"):
            group = str(record.get("agentId") or "sidechain")
        groups.setdefault(group, {})[str(uuid)] = (line, record)
        orders.setdefault(group, []).append(str(uuid))
    if not groups:
        raise FieldProblem(None, "no user/assistant events with a 'uuid' found; expected a Claude Code session log")
    # A subagent file (agent-<id>.jsonl) holds only sidechain events: it is its own main session.
    main = _MAIN if _MAIN in groups else next(iter(groups))
    infos = []
    chains: dict[str, tuple[list[str], int]] = {}
    for group, events in groups.items():
        chain, off_branch = _chain(events, orders[group])
        chains[group] = (chain, off_branch)
        title = titles.get(group) or next((summaries_by_leaf[u] for u in reversed(chain) if u in summaries_by_leaf), None)
        count = sum(1 for u in chain if events[u][1].get("type") in ("user", "assistant"))
        infos.append(
            SessionInfo(
                id=(str(session_id) if group == main and session_id else group),
                title=title,
                message_count=count,
                parent_id=None if group == main else str(session_id or _MAIN),
                is_sidechain=group != main,
            )
        )
    ids = [info.id for info in infos]
    groups_by_id = dict(zip(ids, groups, strict=True))
    chosen = pick_session(infos, session, src, default=ids[list(groups).index(main)])
    group = groups_by_id[chosen]
    builder = Builder(NAME, src.name)
    chain, off_branch = chains[group]
    model = _convert(chain, groups[group], builder)
    if off_branch:
        builder.metadata["events_on_other_branches"] = off_branch
    if skipped_without_uuid:
        builder.metadata["events_without_uuid"] = skipped_without_uuid
    builder.warnings[:0] = lines.warnings
    conv = builder.build(model=model, sessions=infos, session_id=chosen)
    return conv


def _convert(chain: list[str], events: dict[str, tuple[int, dict[str, Any]]], builder: Builder) -> str | None:
    converter = AnthropicConverter(builder)
    model = None
    open_boundary: CompactionEvent | None = None
    previous_message_id: str | None = None
    for uuid in chain:
        line, event = events[uuid]
        kind = event.get("type")
        where = f"line {line}"
        if kind == "system":
            if event.get("subtype") == "compact_boundary":
                meta = event.get("compactMetadata")
                meta = meta if isinstance(meta, dict) else {}
                pre = meta.get("preTokens")
                open_boundary = CompactionEvent(
                    position=len(builder),
                    kind="compact_boundary",
                    pre_tokens=int(pre) if isinstance(pre, (int, float)) else None,
                    source=where,
                    details={"trigger": meta.get("trigger")} if meta.get("trigger") else {},
                )
                builder.events.append(open_boundary)
            previous_message_id = None
            continue
        message = event.get("message")
        if not isinstance(message, dict):
            builder.warnings.append(f"{where}: {kind} event without a 'message' object; skipped")
            continue
        usage = message.get("usage") if isinstance(message.get("usage"), dict) else None
        if kind == "assistant":
            model = message.get("model") or model
            message_id = message.get("id")
            last = builder.last()
            if (
                message_id
                and message_id == previous_message_id
                and last is not None
                and last["role"] == "assistant"
            ):
                _merge_into_last(builder, converter, message, where, usage)
                continue
            previous_message_id = message_id
        else:
            previous_message_id = None
        produced = converter.add(message, where, usage=usage)
        if event.get("isCompactSummary"):
            summary_text = _text(message.get("content"))
            if open_boundary is not None and open_boundary.summary is None:
                open_boundary.summary = summary_text
                open_boundary.position = produced[0]
            else:
                builder.events.append(
                    CompactionEvent(position=produced[0], kind="compact_summary", summary=summary_text, source=where)
                )
            open_boundary = None
    converter.finish()
    return model


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _merge_into_last(
    builder: Builder, converter: AnthropicConverter, message: dict[str, Any], where: str, usage: dict[str, Any] | None
) -> None:
    """Fold another logged block of the same API response into the assistant message before it."""
    scratch = Builder(NAME, builder.filename)
    scratch_converter = AnthropicConverter(scratch)
    scratch_converter.add(message, where, usage=usage)
    converter.unusual_blocks.update(scratch_converter.unusual_blocks)
    target_index = len(builder) - 1
    target = builder.messages[target_index]
    piece = scratch.messages[0]
    piece_parts = _as_parts(piece.get("content"))
    current = target.get("content")
    # Extend in place: one response split over many events must stay linear, not quadratic.
    merged_parts = current if isinstance(current, list) else _as_parts(current)
    merged_parts.extend(piece_parts)
    if merged_parts:
        if len(merged_parts) == 1 and merged_parts[0].get("type") == "text":
            target["content"] = merged_parts[0]["text"]
        else:
            target["content"] = merged_parts
    if piece.get("tool_calls"):
        target.setdefault("tool_calls", []).extend(piece["tool_calls"])
    if scratch.reasoning[0]:
        current = builder.reasoning[target_index]
        builder.reasoning[target_index] = f"{current}\n{scratch.reasoning[0]}" if current else scratch.reasoning[0]
    if usage is not None:
        builder.usage[target_index] = usage
    builder.sources[target_index] = _span(builder.sources[target_index], where)
    # Server-side tool results of this block come after the merged assistant message.
    for extra_index in range(1, len(scratch.messages)):
        builder.add(scratch.messages[extra_index], scratch.sources[extra_index])


def _as_parts(content: Any) -> list[dict[str, Any]]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)


def _span(first: str, later: str) -> str:
    start = first.split(" ", 1)[1].split("-")[0] if first.startswith("line") else first
    end = later.split(" ", 1)[1] if later.startswith("line") else later
    return f"lines {start}-{end}"
