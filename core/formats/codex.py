"""Codex CLI rollout logs (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Two layouts. Since autumn 2025 every line is ``{timestamp, type, payload}``: ``session_meta``
(the session id, time, instructions), ``turn_context`` (the model), ``response_item`` (a Responses
API item), ``event_msg`` and ``compacted``. Rollouts of mid 2025 have no envelope: the first line
is a bare header ``{id, timestamp, instructions, git, ...}``, then ``{"record_type": "state"}``
markers and bare Responses items; both are read the same way.

Response items go through the Responses assembler. ``event_msg`` lines mostly repeat them (they
are metadata in the load report) except ``token_count``, whose ``last_token_usage`` becomes the
usage of the assistant message its response produced: the latest one, or the next one when the
count comes before the response's items, as Codex 0.5x writes them; a repeated count changes nothing (without it, the growth of ``total_token_usage`` since the
previous count; ``model_context_window`` goes to ``metadata``). A ``compacted`` line is a compaction point: its summary
text is what Codex hands the model afterwards, so it is kept as a user message there and recorded
as a :class:`CompactionEvent`. The context messages Codex injects on its own
(``<environment_context>``, ``<user_instructions>``, ``# AGENTS.md`` ...) are left out of
``messages`` and listed in ``metadata["excluded_messages"]`` (with their text), in
``Conversation.injected`` (the whole-request accounting counts them) and in a warning.

Codex 0.56 to 0.58 sent the model a shortened copy of a long tool output (``core.formats.codex_outputs``,
chosen by the rollout's ``cli_version``) while the rollout keeps the whole text: the message keeps
the whole text too, and ``metadata["model_copies"]`` holds, by call id, the copy the model read and
how much of the output it cut (``Conversation.sent_messages`` puts the copies in place).
"""

from __future__ import annotations

from typing import Any

from core.formats.codex_outputs import SHORTENED_ITEMS, history_rule_applies, model_copy
from core.formats.messages import Builder, kind_of, make_message, text_of
from core.formats.model import CompactionEvent, Conversation, InjectedContext, SessionInfo
from core.formats.openai_responses import ResponsesAssembler
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec

NAME = "codex"
ENVELOPE_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
# Keys of the mid-2025 header line besides id and timestamp.
LEGACY_HEADER_KEYS = ("instructions", "git", "cwd", "originator", "cli_version")
CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions instructions>")


def _is_legacy_header(record: Any) -> bool:
    """The first line of a rollout without envelopes: ``{id, timestamp, instructions?, git?, ...}``."""
    return (
        isinstance(record, dict)
        and "id" in record
        and "timestamp" in record
        and "type" not in record
        and "role" not in record
        and "payload" not in record
    )


def _is_state_marker(record: Any) -> bool:
    return isinstance(record, dict) and record.get("record_type") == "state"


def looks_like(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    if not dicts:
        return False
    if dicts[0].get("type") == "session_meta" and "payload" in dicts[0]:
        return True
    if _is_legacy_header(dicts[0]) and (
        any(_is_state_marker(r) for r in dicts[1:]) or any(key in dicts[0] for key in LEGACY_HEADER_KEYS)
    ):
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


class _Rollout:
    """The state of reading one rollout (either layout)."""

    def __init__(self, src: InputSource) -> None:
        self.builder = Builder(NAME, src.name)
        self.assembler = ResponsesAssembler(self.builder)
        self.tally = self.builder.tally
        self.model: str | None = None
        self.meta: dict[str, Any] = {}
        self.excluded: list[dict[str, Any]] = []
        self.previous_total: dict[str, Any] | None = None
        self.usage_owner: int | None = None  # the assistant message the latest new count went to
        self.pending_usage: dict[str, Any] | None = None  # a count written before its response's items

    def header(self, payload: dict[str, Any], line: int, where: str) -> None:
        self.meta = payload
        self.tally.meta(line, "session header (id, time, instructions)", where)
        instructions = payload.get("instructions")
        if isinstance(instructions, str) and instructions.strip() and not self.builder.messages:
            self.builder.add(make_message("system", instructions), f"{where} instructions")
            self.tally.place(line, where)

    def item(self, item: dict[str, Any], line: int, where: str) -> None:
        context = _context_kind(item)
        if context:
            text = _item_text(item)
            self.excluded.append({"source": where, "kind": context, "role": item.get("role"), "text": text})
            self.builder.injected.append(InjectedContext(len(self.builder), context, text, where))
            self.tally.skip(line, "context messages Codex injects itself", where, announced=True)
            return
        if self.assembler.add(item, where):
            self.tally.place(line, where)
            if item.get("type") in SHORTENED_ITEMS and history_rule_applies(self.meta.get("cli_version")):
                self.model_copy(item)
        else:
            self.tally.skip(line, "Responses items without a chat equivalent", where, announced=True)

    def model_copy(self, item: dict[str, Any]) -> None:
        """Record the shortened copy of an output the model was sent instead of the full one (the
        message keeps the full text), under ``metadata["model_copies"][call_id]``."""
        index = len(self.builder) - 1
        message = self.builder.messages[index]
        copy = model_copy(item.get("output"), message.get("content"))
        if copy is not None:
            entry = {"message": index, **copy.to_dict()}
            self.builder.metadata.setdefault("model_copies", {})[str(message.get("tool_call_id"))] = entry

    def token_count(self, payload: dict[str, Any], line: int, where: str) -> None:
        info = payload.get("info")
        target = _last_assistant(self.builder)
        if isinstance(info, dict):
            total = info.get("total_token_usage") if isinstance(info.get("total_token_usage"), dict) else None
            usage = info.get("last_token_usage")
            if not isinstance(usage, dict) and total is not None:
                # Without last_token_usage, the calls since the previous event are the difference of the
                # running totals (a repeated event differs by nothing and changes nothing).
                usage = _usage_difference(total, self.previous_total)
            self.settle_usage()
            repeated = total is not None and total == self.previous_total
            if isinstance(usage, dict) and usage and not repeated:
                if target is not None and target != self.usage_owner:
                    self.builder.usage[target] = dict(usage)
                    self.usage_owner = target
                else:
                    # Codex 0.5x writes a response's count before the response's items: it belongs
                    # to the next assistant message, not to the previous response's.
                    self.pending_usage = dict(usage)
            if total is not None:
                self.previous_total = total
                self.builder.metadata["total_token_usage"] = dict(total)
            window = info.get("model_context_window")
            if isinstance(window, int) and not isinstance(window, bool) and window > 0:
                self.builder.metadata["model_context_window"] = window
        self.tally.meta(line, "token counts (the usage of the assistant messages)", where)

    def settle_usage(self) -> None:
        """Give a held count to the assistant message its response produced, once it exists."""
        target = _last_assistant(self.builder)
        if self.pending_usage is not None and target is not None and target != self.usage_owner:
            self.builder.usage[target] = self.pending_usage
            self.usage_owner = target
            self.pending_usage = None

    def compacted(self, payload: dict[str, Any], line: int, where: str) -> None:
        summary = payload.get("message")
        summary = summary if isinstance(summary, str) else None
        event = CompactionEvent(position=len(self.builder), kind="compacted", summary=summary, source=where)
        replacement = payload.get("replacement_history")
        if isinstance(replacement, list):
            event.details["replacement_history_items"] = len(replacement)
        self.builder.events.append(event)
        if summary:
            self.builder.add(make_message("user", summary), f"{where} (compacted)")
        self.tally.place(line, where)


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    rollout = _Rollout(src)
    tally = rollout.tally
    first = True
    for line, record in lines.records():
        where = f"line {line}"
        if not isinstance(record, dict):
            tally.skip(line, f"not an object ({kind_of(record)})", where)
            continue
        is_first, first = first, False
        kind = record.get("type")
        payload = record.get("payload")
        if is_first and _is_legacy_header(record):
            rollout.header(record, line, where)
        elif _is_state_marker(record):
            tally.meta(line, "state markers", where)
        elif isinstance(kind, str) and kind in ENVELOPE_TYPES and "payload" in record:
            if not isinstance(payload, dict):
                tally.skip(line, "envelopes without a 'payload' object", where)
            elif kind == "session_meta":
                rollout.header(payload, line, where)
            elif kind == "turn_context":
                rollout.model = payload.get("model") if isinstance(payload.get("model"), str) else rollout.model
                tally.meta(line, "turn settings (model, working directory, policies)", where)
            elif kind == "response_item":
                rollout.item(payload, line, where)
            elif kind == "compacted":
                rollout.compacted(payload, line, where)
            elif payload.get("type") == "token_count":
                rollout.token_count(payload, line, where)
            else:
                tally.meta(line, "event messages (what the terminal showed; they repeat the response items)", where)
        elif isinstance(kind, str) or "role" in record:
            rollout.item(record, line, where)  # a bare Responses item (mid-2025 layout)
        else:
            tally.skip(line, "lines that are neither an envelope nor a Responses item", where)
    builder = rollout.builder
    rollout.assembler.finish()
    rollout.settle_usage()
    if rollout.pending_usage is not None:  # a request whose response the log does not hold (cut short)
        builder.metadata["usage_without_response"] = rollout.pending_usage
        lines.warnings.append("the last token count belongs to a request whose response is not in the log; "
                              "it is kept in metadata (usage_without_response), not on a message")
    if not builder.messages and not rollout.excluded:
        lines.warnings.append("no conversation items found in the rollout")
    if rollout.excluded:
        builder.metadata["excluded_messages"] = rollout.excluded
        listed = ", ".join(f"{e['kind']} at {e['source']}" for e in rollout.excluded)
        builder.warnings.append(f"left out {len(rollout.excluded)} context message(s) Codex injects itself: {listed}")
    builder.warnings[:0] = lines.warnings
    meta = rollout.meta
    session_id = str(meta.get("id")) if meta.get("id") else None
    model = rollout.model or (meta.get("model") if isinstance(meta.get("model"), str) else None)
    info = SessionInfo(id=session_id or src.name, message_count=len(builder), started_at=meta.get("timestamp"), model=model)
    if meta:
        kept = {k: meta[k] for k in ("cwd", "originator", "cli_version", "source", "git", "timestamp") if k in meta}
        builder.metadata["session_meta"] = kept
    return builder.build(model=model, sessions=[info], session_id=info.id)


def _item_text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return text_of(content)


def _usage_difference(total: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, int]:
    """The usage between two running totals (the whole total when there is no earlier one); {} when
    nothing changed."""
    difference = {}
    for key, value in total.items():
        if isinstance(value, int) and not isinstance(value, bool):
            before = (previous or {}).get(key, 0)
            difference[key] = value - (before if isinstance(before, int) else 0)
    return difference if any(difference.values()) else {}


def _last_assistant(builder: Builder) -> int | None:
    for index in range(len(builder.messages) - 1, -1, -1):
        if builder.messages[index]["role"] == "assistant":
            return index
    return None


FORMAT = FormatSpec(
    name=NAME,
    description="Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl)",
    detect_records=looks_like,
    parse_records=parse_records,
)
