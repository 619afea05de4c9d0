"""The canonical conversation every importer produces.

Messages are plain OpenAI chat dicts holding only the keys such a message really has
(``role``, ``content``, ``tool_calls``, ``tool_call_id``, ``name``). Everything else the log
knows about a message (where it came from, real token usage, reasoning text) lives in lists
parallel to ``messages``, because the compressor's rough estimator counts every key of a
message and extra keys would change its decisions.
"""

from __future__ import annotations

import copy
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

    def __len__(self) -> int:
        return len(self.messages)

    def copy_messages(self) -> list[dict[str, Any]]:
        """A deep copy of the messages, safe to hand to code that may change them."""
        return copy.deepcopy(self.messages)
