"""The canonical conversation every importer produces.

Messages are plain OpenAI chat dicts holding only the keys such a message really has
(``role``, ``content``, ``tool_calls``, ``tool_call_id``, ``name``). Everything else the log
knows about a message (where it came from, real token usage, reasoning text) lives in lists
parallel to ``messages``, because the compressor's rough estimator counts every key of a
message and extra keys would change its decisions.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from core.formats.report import LoadReport

#: The only keys a canonical message dict may carry.
MESSAGE_KEYS: frozenset[str] = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})


class FormatError(ValueError):
    """Input that cannot be read as a transcript.

    The message always names the file and, where it applies, the line or field and what
    was expected there, so it can be shown to the user as is: it quotes file content only through
    ``core.safe_text.quoted`` (a short, redacted start), and any terminal control in it (a file name
    can hold one too) is escaped.
    """

    def __init__(self, message: object = "") -> None:
        from core.safe_text import bounded

        super().__init__(bounded(str(message)))


@dataclass
class CompactionEvent:
    """A point where the agent that wrote the log compacted its own context.

    ``position`` is the index in ``Conversation.messages`` of the first message after the
    compaction (the summary message, when the log keeps one).
    """

    position: int
    kind: str
    summary: str | None = None
    pre_tokens: int | None = None
    source: str = ""
    details: dict[str, Any] = field(default_factory=dict)


#: Compactions after which the agent sent none of the earlier messages again (other than the system
#: prompt and the messages the event names as kept): the log's later requests start there. Hermes'
#: handoffs are not among them: Hermes rewrites its message list in place (its store archives the rows
#: it replaced, a compression split starts a new session), so a log holding a Hermes summary already
#: holds the head Hermes kept before it. aider's summaries and context-lens' own records are not either.
HISTORY_REPLACING_KINDS = frozenset({
    "compact_boundary", "compact_summary", "compacted", "condensation", "gemini-checkpoint", "opencode-compaction",
    "cline-summarize", "cline-truncation", "roo-condense", "copilot-compaction", "copilot-context-cleared",
    "compaction", "context-cleared",
})


def _index_detail(details: dict[str, Any], key: str) -> int | None:
    value = details.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ContextCut:
    """The agent's last compaction of a log, and the messages of the full history it still sent after it.

    ``kept`` are indices into the full history's messages, in order (``start`` and every later one,
    after the system prompt and what the event names as kept); ``summary_at`` is where, among
    them, the compaction's summary was inserted when the log keeps it outside the messages (an OpenHands
    condensation's ``summary_offset``), else None.
    """

    event: CompactionEvent
    kept: tuple[int, ...]
    total: int
    start: int  # the first message of the full history the agent sent on from (every later one is kept)
    summary_at: int | None = None

    @property
    def position(self) -> int:
        """The compaction's place in the full history (its summary message, when the log keeps one)."""
        return self.event.position

    @property
    def hidden(self) -> int:
        """Messages of the full history the agent no longer sent after its compaction."""
        return self.total - len(self.kept)

    def describe(self, live: bool) -> str:
        """One sentence saying which messages are shown: the live context (``live``) or the full history."""
        if live:
            return (f"The context the model last saw: the {len(self.kept):,} messages from the agent's compaction at "
                    f"message {self.position:,} ({self.event.kind}) on; the {self.hidden:,} messages before it are "
                    "only in the full history.")
        return (f"The full history: all {self.total:,} messages, including the {self.hidden:,} the agent compacted at "
                f"message {self.position:,} ({self.event.kind}); the model last saw only the {len(self.kept):,} after it.")

    def to_dict(self, shown: str) -> dict[str, Any]:
        """The ``context`` entry of a report: ``shown`` is ``after_last_compaction`` or ``full_history``."""
        return {"shown": shown, "compaction_at": self.position, "compaction_kind": self.event.kind,
                "messages_before_compaction": self.hidden, "full_history_messages": self.total}


def context_cut(messages: list[dict[str, Any]], events: list[CompactionEvent]) -> ContextCut | None:
    """The last history-replacing compaction of ``messages`` that hides any of them (None: none does).

    After it the agent sent the leading system messages, the messages the event names as kept (a pi
    compaction's ``first_kept_position``, an OpenHands condensation's ``kept_positions``) and everything
    from the event's position on.
    """
    total = len(messages)
    replacing = [e for e in events if e.kind in HISTORY_REPLACING_KINDS and 0 < e.position < total]
    if not replacing:
        return None
    event = max(replacing, key=lambda e: e.position)
    start = event.position
    first_kept = _index_detail(event.details, "first_kept_position")
    if first_kept is not None and 0 <= first_kept < start:
        start = first_kept
    before: set[int] = set()
    for index in range(start):
        if messages[index].get("role") not in ("system", "developer"):
            break
        before.add(index)
    listed = event.details.get("kept_positions")
    if isinstance(listed, list):
        before |= {i for i in listed if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < start}
    kept = (*sorted(before), *range(start, total))
    if len(kept) == total:
        return None
    offset = _index_detail(event.details, "summary_offset")
    summary_at = min(max(offset, 0), len(before)) if offset is not None and event.summary and isinstance(listed, list) else None
    return ContextCut(event, kept, total, start, summary_at)


@dataclass
class InjectedContext:
    """Context the agent that wrote the log put into its requests on its own, kept out of ``messages``.

    Codex's ``<environment_context>`` / AGENTS.md messages and Claude Code's attachment rows (hook
    output, reminders, skill listings) are what the model read besides the conversation; the
    whole-request accounting (``core.inspections.request``) counts them. ``position`` is the index in
    ``Conversation.messages`` of the first message sent after it.
    """

    position: int
    kind: str
    text: str
    source: str = ""


@dataclass
class SessionInfo:
    """One session of a multi-session source (a Hermes store, a Claude Code log with sidechains, ...).

    For Hermes compression splits, ``compressed_from`` is the parent session that holds the
    full transcript *before* compaction (this session starts with its compacted form), and
    ``compressed_into`` is the child session that holds the transcript *after* compaction.
    ``kind`` is ``"session"``, ``"sidechain"`` (a subagent run) or ``"branch"`` (an abandoned
    branch of ``parent_id``: the conversation as it stood on that branch). ``message_count`` is
    the number of messages ``load(..., session=id)`` returns.
    """

    id: str
    title: str | None = None
    message_count: int = 0
    parent_id: str | None = None
    is_sidechain: bool = False
    compressed_from: str | None = None
    compressed_into: str | None = None
    started_at: float | str | None = None
    end_reason: str | None = None
    model: str | None = None
    kind: str = "session"


@dataclass
class Conversation:
    """A transcript in canonical form.

    ``sources``, ``usage`` and ``reasoning`` always have one entry per message:
    ``sources[i]`` says where message ``i`` came from (``"line 12"``, ``"event 40"``,
    ``"row 813"``, ...), ``usage[i]`` is the real token usage the log recorded for it (or
    None) and ``reasoning[i]`` the reasoning/thinking text attached to it (or None).
    ``session_id`` names the session that was loaded when the source holds several
    (see ``sessions``). ``tools`` are the tool schemas the log records (request bodies, Responses
    ``tools``, Hermes' ``session_meta``) and ``injected`` the context the agent added to its
    requests outside the messages. ``metadata["usage_scope"]`` is ``"turn"`` when a usage entry
    totals every model call of a turn rather than describing one request. ``report`` says where every row of the input went (placed here, in
    other sessions or branches, metadata, skipped); its warnings are part of ``warnings``.
    """

    format: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    usage: list[dict[str, Any] | None] = field(default_factory=list)
    reasoning: list[str | None] = field(default_factory=list)
    model: str | None = None
    system_prompt: str | None = None
    tools: list[dict[str, Any]] | None = None
    compaction_events: list[CompactionEvent] = field(default_factory=list)
    injected: list[InjectedContext] = field(default_factory=list)
    sessions: list[SessionInfo] = field(default_factory=list)
    session_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    filename: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    report: LoadReport = field(default_factory=LoadReport)
    shown_cut: ContextCut | None = field(default=None, repr=False)
    full_history: Conversation | None = field(default=None, repr=False)

    def last_compaction(self) -> ContextCut | None:
        """The agent's last compaction of this log that hides earlier messages (None: there is none)."""
        if self.shown_cut is not None and self.full_history is not None:
            return self.shown_cut
        return context_cut(self.messages, self.compaction_events)

    def context_description(self) -> str:
        """One sentence saying which messages this conversation holds: the live context, the full history
        of a log the agent compacted, or a log whose messages are all in the agent's context."""
        cut = self.last_compaction()
        if cut is not None:
            return cut.describe(self.shown_cut is not None)
        handoffs = [event.position for event in self.compaction_events if event.kind.startswith("hermes-")]
        if handoffs:
            return (f"The log holds Hermes' handoff summary at message {handoffs[-1]:,}: Hermes rewrites its message "
                    "list in place, so every message here is in the context it last sent.")
        return "The log holds no compaction by the agent."

    def context_report(self) -> dict[str, Any]:
        """Which part of the log this conversation holds, as the ``context`` entry of a report: ``shown``
        (``after_last_compaction`` or ``full_history``), the agent's last compaction (``compaction_at``,
        ``compaction_kind``; None without one), ``messages_before_compaction`` (the messages the live
        context no longer holds), ``full_history_messages`` and ``description`` (one sentence)."""
        cut = self.last_compaction()
        if cut is None:
            context: dict[str, Any] = {"shown": "full_history", "compaction_at": None, "compaction_kind": None,
                                       "messages_before_compaction": 0, "full_history_messages": len(self.messages)}
        else:
            context = cut.to_dict("after_last_compaction" if self.shown_cut is not None else "full_history")
        context["description"] = self.context_description()
        return context

    def live_context(self) -> Conversation:
        """The context the model last saw: this conversation after the agent's last compaction (itself
        when no compaction hides a message). Every per-message list, event and injected context is
        carried over with its index in the new list; the messages are shared, not copied."""
        cut = self.last_compaction()
        if cut is None or self.shown_cut is not None:
            return self
        order: list[int | None] = list(cut.kept)
        if cut.summary_at is not None:
            order.insert(cut.summary_at, None)
        new_index = {old: new for new, old in enumerate(order) if old is not None}
        summary_source = f"{cut.event.source} (the compaction's summary)" if cut.event.source else "the compaction's summary"

        def pick(values: list[Any], inserted: Any) -> list[Any]:
            if len(values) != cut.total:  # a hand-made conversation without this per-message list
                return list(values)
            return [values[old] if old is not None else inserted for old in order]

        def moved(position: int) -> int:
            return new_index[position] if position < cut.total else len(order)

        events = [
            dataclasses.replace(event, position=cut.summary_at if event is cut.event and cut.summary_at is not None
                                else moved(event.position))
            for event in self.compaction_events if event.position >= cut.start
        ]
        injected = [dataclasses.replace(item, position=moved(item.position)) for item in self.injected
                    if item.position >= cut.start]
        return dataclasses.replace(
            self,
            messages=pick(self.messages, {"role": "user", "content": cut.event.summary}),
            sources=pick(self.sources, summary_source),
            usage=pick(self.usage, None),
            reasoning=pick(self.reasoning, None),
            compaction_events=events,
            injected=injected,
            metadata=dict(self.metadata),
            shown_cut=cut,
            full_history=self,
        )

    def sent_messages(self) -> list[dict[str, Any]]:
        """The messages as the agent sent them to its model: a tool result the agent shortened before
        sending it (``metadata["model_copies"]``, by call id: Codex 0.56-0.58's long outputs) has the
        copy the model read as its content; every other message is this conversation's own."""
        copies = self.metadata.get("model_copies")
        if not isinstance(copies, dict) or not copies:
            return self.messages
        sent = []
        for message in self.messages:
            entry = copies.get(message.get("tool_call_id")) if message.get("role") == "tool" else None
            sent.append({**message, "content": entry["content"]} if isinstance(entry, dict) else message)
        return sent

    def __len__(self) -> int:
        return len(self.messages)

    def copy_messages(self) -> list[dict[str, Any]]:
        """A deep copy of the messages, safe to hand to code that may change them."""
        return copy.deepcopy(self.messages)
