# Over 600 lines: one reader in one pass: message rows, compaction records, sidechains and usage share its state.
"""Claude Code session logs (``~/.claude/projects/<cwd>/<session>.jsonl``, subagents ``agent-<id>.jsonl``).

Each line is an event; ``user`` / ``assistant`` events carry an Anthropic ``message``. Events
form a tree through ``uuid`` / ``parentUuid``: :mod:`core.formats.claude_code_tree` chooses the
conversation the way Claude Code resumes it, brings back the parallel tool results written as
sibling branches, and repairs loops and gaps. What the tree leaves over are abandoned branches:
each is listed in ``Conversation.sessions`` (``kind="branch"``) and loads with ``session=``.

Sessions: the main (non-sidechain) events are one session; sidechain (subagent) events are one
session per ``agentId``, and without an ``agentId`` (older logs write the runs of the Task tool
inline) one per run, a run being the events under one ``parentUuid: null`` root.

Messages, as Claude Code sends them to the model:

* one API response logged as several assistant events sharing ``message.id`` is one message,
  whose usage is the last one logged;
* consecutive user messages are one user turn: ``isMeta`` rows (the local-command caveat, skill
  and command expansions), ``<command-name>`` / ``<local-command-stdout>`` rows (user rows in
  older logs, ``system`` rows of subtype ``local_command`` in newer ones) and the
  ``[Request interrupted by user]`` notices join the user text around them (a list of text parts);
* ``compact_boundary`` plus the ``isCompactSummary`` message is a :class:`CompactionEvent`;
* ``attachment`` rows (hook output, reminders, file context Claude Code adds itself), other system
  notices, progress rows and synthetic API-error messages are not messages: the load report
  counts them (attachments as skipped, with a warning; the others as metadata). The text of an
  attachment is kept in ``Conversation.injected``: the model read it with the next request.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.formats.anthropic import AnthropicConverter
from core.formats.claude_code_tree import EventTree, Row, is_result_row
from core.formats.messages import Builder, FieldProblem, kind_of, make_message, simplify_parts, text_part
from core.formats.model import CompactionEvent, Conversation, InjectedContext, SessionInfo
from core.formats.report import RowTally
from core.formats.session_pick import pick_session
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec
from core.safe_text import quoted

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
        "ai-title",
        "last-prompt",
        "progress",
        "attachment",
    }
)
# Row types that carry no conversation text (what the load report calls them).
BOOKKEEPING = {
    "file-history-snapshot": "file-history snapshots",
    "queue-operation": "prompt-queue operations",
    "summary": "session summaries",
    "custom-title": "session titles",
    "ai-title": "session titles",
    "last-prompt": "last-prompt markers",
    "permission-mode": "permission-mode changes",
    "progress": "progress updates",
}
MESSAGE_TYPES = ("user", "assistant")
ATTACHMENT_SKIP = "attachment rows (hook output, reminders and file context Claude Code adds) are not messages"
NOTICE_META = "system notices (shown to the user, not sent to the model)"
API_ERROR_META = "API-error placeholders (written by Claude Code, not by the model)"
DUPLICATE_RESULT = "a second tool result for a call that already has one (the first is kept)"
TITLE_CHARS = 60


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


def _is_message_row(row: Row) -> bool:
    """Rows that can become messages (the anchors of everything else in the tree)."""
    kind = row.get("type")
    if kind in MESSAGE_TYPES:
        return True
    return kind == "system" and row.get("subtype") in ("compact_boundary", "local_command")


# ---------------------------------------------------------------------------------------------
# Reading the rows into sessions


@dataclass
class _Session:
    """One session of the file: its tree, the conversation it resumes to and its abandoned branches."""

    key: str
    rows: list[tuple[int, str, Row]]
    is_sidechain: bool
    tree: EventTree | None = None
    sequence: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    branches: list[tuple[str, list[str], list[str]]] = field(default_factory=list)  # (leaf, sequence, duplicates)


def _string_id(value: Any) -> str | None:
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
        return str(value)
    return None


def _read(lines: JsonLines, tally: RowTally) -> tuple[list[_Session], dict[str, Any]]:
    """Every row classified or grouped into sessions; ``info`` holds session id, titles and summaries."""
    main_rows: list[tuple[int, str, Row]] = []
    agents: dict[str, list[tuple[int, str, Row]]] = {}
    inline: list[tuple[int, str, Row]] = []
    first_line: dict[str, int] = {}
    seen_uuids: dict[str, int] = {}
    info: dict[str, Any] = {"session_id": None, "titles": {}, "summaries": {}}
    for line, record in lines.records():
        where = f"line {line}"
        if not isinstance(record, dict):
            tally.skip(line, f"not an event object ({kind_of(record)})", where)
            continue
        kind = record.get("type")
        uuid = _string_id(record.get("uuid"))
        info["session_id"] = info["session_id"] or _string_id(record.get("sessionId"))
        if kind == "summary" and record.get("leafUuid"):
            info["summaries"][str(record["leafUuid"])] = str(record.get("summary", ""))
        elif kind in ("custom-title", "ai-title"):
            title = record.get("customTitle") or record.get("aiTitle")
            if isinstance(title, str) and title:
                info["titles"][kind] = title
        bookkeeping = isinstance(kind, str) and kind in BOOKKEEPING
        if uuid is None or (bookkeeping and kind != "progress"):
            if bookkeeping:
                tally.meta(line, BOOKKEEPING[kind], where)
            elif kind in MESSAGE_TYPES or kind in ("system", "attachment"):
                tally.skip(line, f"{kind} rows without a 'uuid' cannot be placed in the conversation", where)
            else:
                tally.skip(line, f"rows of type {quoted(kind)} are not part of a Claude Code conversation", where)
            continue
        if uuid in seen_uuids:
            tally.skip(line, f"a second row with a uuid already used (line {seen_uuids[uuid]} is kept)", where)
            continue
        seen_uuids[uuid] = line
        entry = (line, uuid, record)
        if record.get("isSidechain"):
            agent = _string_id(record.get("agentId"))
            if agent is None:
                inline.append(entry)
            else:
                agents.setdefault(agent, []).append(entry)
                first_line.setdefault(agent, line)
        else:
            main_rows.append(entry)
    known = set(seen_uuids)
    sessions: list[_Session] = []
    if main_rows:
        sessions.append(_Session("main", main_rows, is_sidechain=False))
    for agent, rows in agents.items():
        sessions.append(_Session(f"agent:{agent}", rows, is_sidechain=True))
    sessions += _inline_runs(inline, known)
    sessions.sort(key=lambda s: (s.is_sidechain, s.rows[0][0]))
    for session in sessions:
        session.tree = EventTree(session.rows, known, bridge_gaps=not session.is_sidechain)
    return sessions, info


def _inline_runs(rows: list[tuple[int, str, Row]], known: set[str]) -> list[_Session]:
    """Sidechain rows without an ``agentId``: one session per run (the rows under one root)."""
    if not rows:
        return []
    tree = EventTree(rows, known, bridge_gaps=False)
    runs: dict[str, list[tuple[int, str, Row]]] = {}
    for line, uuid, row in rows:
        root = tree.root(uuid)
        runs.setdefault(root, []).append((line, uuid, row))
    return [_Session(f"inline:{root}", members, is_sidechain=True) for root, members in runs.items()]


def _resolve(session: _Session) -> None:
    """The conversation the session resumes to, and its abandoned branches (newest first)."""
    tree = session.tree
    assert tree is not None
    leaves = sorted(tree.leaves(), key=tree.resume_key, reverse=True)
    session.sequence, session.duplicates = tree.live_sequence(leaves[0])
    covered = set(session.sequence) | set(session.duplicates)
    for leaf in leaves[1:]:
        anchor = tree.anchor(leaf, _is_message_row)
        if anchor is None or anchor in covered:
            continue
        sequence, duplicates = tree.live_sequence(leaf)
        session.branches.append((leaf, sequence, duplicates))
        covered.update(sequence)
        covered.update(duplicates)


# ---------------------------------------------------------------------------------------------
# Rows to messages


class _Outcome:
    """What became of each row of a sequence: placed, metadata (kind) or skipped (reason)."""

    def __init__(self) -> None:
        self.meta: dict[str, str] = {}
        self.skipped: dict[str, str] = {}


@dataclass
class _Mark:
    """The state of a conversion after one row: all a later row needs to continue from there."""

    messages: int
    last_role: str | None
    previous_message_id: str | None
    boundary_open: bool


class _Conversion:
    """Rows of a sequence into messages on a Builder, one row at a time (see the module docstring)."""

    def __init__(self, tree: EventTree, builder: Builder) -> None:
        self.tree = tree
        self.builder = builder
        self.converter = AnthropicConverter(builder)
        self.outcome = _Outcome()
        self.model: str | None = None
        self.open_boundary: CompactionEvent | None = None
        self.previous_message_id: str | None = None
        self.marks: list[_Mark] = []

    def run(self, sequence: list[str], record: bool = False) -> _Conversion:
        for uuid in sequence:
            self.feed(uuid)
            if record:
                last = self.builder.last()
                self.marks.append(_Mark(len(self.builder), last["role"] if last else None, self.previous_message_id,
                                        self.open_boundary is not None and self.open_boundary.summary is None))
        return self

    def finish(self) -> str | None:
        self.converter.finish()
        return self.model if isinstance(self.model, str) else None

    def resume(self, mark: _Mark) -> None:
        """Continue counting from ``mark`` of another conversion (a stand-in for its last message)."""
        if mark.last_role is not None:
            self.builder.add(make_message(mark.last_role, ""), "(shared prefix)")
        self.previous_message_id = mark.previous_message_id
        if mark.boundary_open:
            self.open_boundary = CompactionEvent(position=len(self.builder), kind="compact_boundary")
            self.builder.events.append(self.open_boundary)

    def feed(self, uuid: str) -> None:
        builder = self.builder
        event = self.tree.row[uuid]
        kind = event.get("type")
        where = f"line {self.tree.line[uuid]}"
        if kind == "system":
            subtype = event.get("subtype")
            if subtype == "compact_boundary":
                self.open_boundary = _boundary(event, len(builder), where)
                builder.events.append(self.open_boundary)
            elif subtype == "local_command" and isinstance(event.get("content"), str):
                builder.add(make_message("user", event["content"]), where)
                _fold_user_turn(builder)
            else:
                self.outcome.meta[uuid] = NOTICE_META
            self.previous_message_id = None
            return
        if kind == "attachment":
            _note_attachment(builder, event, where)
            return  # not a message: classified by its type in the load report
        if kind not in MESSAGE_TYPES:
            return  # progress ...: classified by their type
        if kind == "assistant" and event.get("isApiErrorMessage"):
            self.outcome.meta[uuid] = API_ERROR_META
            return
        message = event.get("message")
        if not isinstance(message, dict):
            self.outcome.skipped[uuid] = f"{kind} rows without a 'message' object"
            return
        usage = message.get("usage") if isinstance(message.get("usage"), dict) else None
        try:
            if kind == "assistant":
                self.model = message.get("model") or self.model
                message_id = message.get("id")
                last = builder.last()
                if message_id and message_id == self.previous_message_id and last is not None and last["role"] == "assistant":
                    _merge_into_last(builder, self.converter, message, where, usage)
                    return
                self.previous_message_id = message_id
            else:
                self.previous_message_id = None
            before = len(builder)
            produced = self.converter.add(message, where, usage=usage)
        except FieldProblem as exc:
            self.outcome.skipped[uuid] = exc.what
            return
        if event.get("isCompactSummary"):
            summary_text = _text(message.get("content"))
            boundary = self.open_boundary
            if boundary is not None and boundary.summary is None:
                boundary.summary = summary_text
                boundary.position = produced[0]
            else:
                builder.events.append(
                    CompactionEvent(position=produced[0], kind="compact_summary", summary=summary_text, source=where)
                )
            self.open_boundary = None
        elif kind == "user" and len(builder) == before + 1 and not is_result_row(event):
            _fold_user_turn(builder)


def _count(tree: EventTree, sequence: list[str], base: _Conversion | None, base_sequence: list[str]) -> int:
    """How many messages ``sequence`` gives; the part it shares with ``base_sequence`` is not converted again."""
    shared = 0
    if base is not None:
        limit = min(len(sequence), len(base_sequence))
        while shared < limit and sequence[shared] == base_sequence[shared]:
            shared += 1
    if base is None or shared == 0:
        return len(_Conversion(tree, Builder(NAME, None)).run(sequence).builder)
    mark = base.marks[shared - 1]
    if shared == len(sequence):
        return mark.messages
    rest = _Conversion(tree, Builder(NAME, None))
    rest.resume(mark)
    rest.run(sequence[shared:])
    return mark.messages - (1 if mark.last_role is not None else 0) + len(rest.builder)


def _boundary(event: Row, position: int, where: str) -> CompactionEvent:
    meta = event.get("compactMetadata")
    meta = meta if isinstance(meta, dict) else {}
    pre = meta.get("preTokens")
    return CompactionEvent(
        position=position,
        kind="compact_boundary",
        pre_tokens=int(pre) if isinstance(pre, (int, float)) and not isinstance(pre, bool) else None,
        source=where,
        details={"trigger": meta.get("trigger")} if meta.get("trigger") else {},
    )


def _note_attachment(builder: Builder, event: Row, where: str) -> None:
    """An attachment's text (what Claude Code adds to the next request) as injected context."""
    attachment = event.get("attachment")
    if not isinstance(attachment, dict):
        return
    text = _attachment_text(attachment.get("content"))
    if text:
        kind = attachment.get("type") if isinstance(attachment.get("type"), str) else "attachment"
        builder.injected.append(InjectedContext(len(builder), kind, text, where))


def _attachment_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(piece for piece in (_attachment_text(item) for item in content) if piece)
    if isinstance(content, dict):
        return json.dumps(content, ensure_ascii=False)
    return ""


def _fold_user_turn(builder: Builder) -> None:
    """Join the user message just added to a user message right before it (one user turn for the
    model); never across a compaction point, whose first message must stay where it is."""
    if len(builder) < 2:
        return
    last, previous = builder.messages[-1], builder.messages[-2]
    if last["role"] != "user" or previous["role"] != "user":
        return
    if any(event.position == len(builder) - 1 for event in builder.events):
        return
    parts = _as_parts(previous.get("content")) + _as_parts(last.get("content"))
    previous["content"] = simplify_parts(parts) if parts else ""
    builder.sources[-2] = _span(builder.sources[-2], builder.sources[-1])
    for column in (builder.messages, builder.sources, builder.usage, builder.reasoning):
        column.pop()


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
        return [text_part(content)]
    return list(content)


def _span(first: str, later: str) -> str:
    start = first.split(" ", 1)[1].split("-")[0] if first.startswith("line") else first
    end = later.split(" ", 1)[1].split("-")[-1] if later.startswith("line") else later
    return f"lines {start}-{end}"


# ---------------------------------------------------------------------------------------------
# The load report


def _classify(
    session: _Session,
    sequence: list[str],
    duplicates: list[str],
    outcome: _Outcome,
    tally: RowTally,
) -> None:
    """Every row of the loaded session: placed, metadata, skipped, or on another branch."""
    tree = session.tree
    assert tree is not None
    live = set(sequence)
    dup = set(duplicates)
    here = live | dup
    for uuid in tree.order:
        line = tree.line[uuid]
        where = f"line {line}"
        row = tree.row[uuid]
        anchor = tree.anchor(uuid, _is_message_row)
        on_this = uuid in here or (not _is_message_row(row) and (anchor is None or anchor in here))
        if not on_this:
            tally.other_branch(line, where)
        elif uuid in dup:
            tally.skip(line, DUPLICATE_RESULT, where)
        elif uuid in outcome.skipped:
            tally.skip(line, outcome.skipped[uuid], where)
        elif uuid in outcome.meta:
            tally.meta(line, outcome.meta[uuid], where)
        elif _is_message_row(row):
            tally.place(line, where)
        else:
            _classify_other(row, line, where, tally)


def _classify_other(row: Row, line: int, where: str, tally: RowTally) -> None:
    kind = row.get("type")
    if kind == "attachment":
        tally.skip(line, ATTACHMENT_SKIP, where)
    elif kind == "system":
        tally.meta(line, NOTICE_META, where)
    elif isinstance(kind, str) and kind in BOOKKEEPING:
        tally.meta(line, BOOKKEEPING[kind], where)
    else:
        tally.skip(line, f"rows of type {quoted(kind)} are not part of a Claude Code conversation", where)


def _damage_warnings(sessions: list[_Session]) -> list[str]:
    found = []
    for session in sessions:
        assert session.tree is not None
        for loop in session.tree.damage.loops:
            lines = ", ".join(str(n) for n in loop)
            found.append(
                f"line {loop[0]}: the parentUuid links of lines {lines} form a loop; it was cut at line {loop[0]} "
                f"so all {len(loop)} rows are kept, in file order"
            )
        bridged = session.tree.damage.bridged
        if bridged:
            shown = ", ".join(f"line {a} → line {b}" for a, b in bridged[:5]) + (" ..." if len(bridged) > 5 else "")
            found.append(
                f"{len(bridged)} row(s) name a parentUuid that is not in the file (a gap in the log); each was "
                f"joined to the row before it ({shown})"
            )
    return found


# ---------------------------------------------------------------------------------------------
# Sessions and the entry point


def _first_prompt(tree: EventTree, sequence: list[str]) -> str | None:
    for uuid in sequence:
        row = tree.row[uuid]
        if row.get("type") == "user" and not row.get("isMeta") and not is_result_row(row):
            message = row.get("message")
            text = " ".join(_text(message.get("content") if isinstance(message, dict) else None).split())
            if text:
                return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
    return None


def _unique(wanted: str, taken: set[str]) -> str:
    candidate, n = wanted, 2
    while candidate in taken:
        candidate, n = f"{wanted}-{n}", n + 1
    taken.add(candidate)
    return candidate


@dataclass
class _Choice:
    info: SessionInfo
    session: _Session
    sequence: list[str]
    duplicates: list[str]


def _session_infos(sessions: list[_Session], meta: dict[str, Any], count: Callable[[_Session, list[str]], int]) -> list[_Choice]:
    taken: set[str] = set()
    choices: list[_Choice] = []
    main_id = None
    inline_runs = 0
    for position, session in enumerate(sessions):
        tree = session.tree
        assert tree is not None
        if position == 0:
            # A subagent file (agent-<id>.jsonl) holds only sidechain events: it is its own main session.
            wanted = meta["session_id"] or session.key.split(":", 1)[-1]
        elif session.key.startswith("agent:"):
            wanted = session.key.split(":", 1)[1]
        else:
            inline_runs += 1
            wanted = f"sidechain-{inline_runs}"
        session_id = _unique(wanted, taken)
        if position == 0:
            main_id = session_id
            titles = meta["titles"]
            title = titles.get("custom-title") or titles.get("ai-title") or next(
                (meta["summaries"][u] for u in reversed(session.sequence) if u in meta["summaries"]), None
            )
        else:
            title = _first_prompt(tree, session.sequence)
        choices.append(
            _Choice(
                SessionInfo(
                    id=session_id,
                    title=title,
                    message_count=count(session, session.sequence),
                    parent_id=None if position == 0 else main_id,
                    is_sidechain=position > 0,
                    kind="session" if position == 0 else "sidechain",
                ),
                session,
                session.sequence,
                session.duplicates,
            )
        )
        resumed = set(session.sequence)
        for number, (leaf, sequence, duplicates) in enumerate(session.branches, start=1):
            own = [u for u in sequence if u not in resumed]
            first = min((tree.line[u] for u in own), default=tree.line[leaf])
            prompt = _first_prompt(tree, own)
            title = f"abandoned branch from line {first}" + (f": {prompt}" if prompt else "")
            choices.append(
                _Choice(
                    SessionInfo(
                        id=_unique(f"{session_id}:branch-{number}", taken),
                        title=title,
                        message_count=count(session, sequence),
                        parent_id=session_id,
                        is_sidechain=session.is_sidechain,
                        kind="branch",
                    ),
                    session,
                    sequence,
                    duplicates,
                )
            )
    return choices


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    tally = RowTally("line")
    sessions, meta = _read(lines, tally)
    if not sessions:
        raise FieldProblem(None, "no user/assistant events with a 'uuid' found; expected a Claude Code session log")
    conversions: dict[str, _Conversion] = {}
    for item in sessions:
        _resolve(item)
        assert item.tree is not None
        # The state after each row is kept only where branches will be counted from it.
        conversions[item.key] = _Conversion(item.tree, Builder(NAME, src.name)).run(item.sequence, record=bool(item.branches))

    def count(owner: _Session, sequence: list[str]) -> int:
        assert owner.tree is not None
        if sequence is owner.sequence:
            return len(conversions[owner.key].builder)
        return _count(owner.tree, sequence, conversions[owner.key], owner.sequence)

    choices = _session_infos(sessions, meta, count)
    infos = [choice.info for choice in choices]
    chosen_id = pick_session(infos, session, src, default=infos[0].id)
    chosen = next(choice for choice in choices if choice.info.id == chosen_id)
    assert chosen.session.tree is not None
    if chosen.sequence is chosen.session.sequence:
        conversion = conversions[chosen.session.key]
    else:
        conversion = _Conversion(chosen.session.tree, Builder(NAME, src.name)).run(chosen.sequence)
    model = conversion.finish()
    builder, outcome = conversion.builder, conversion.outcome
    for other in sessions:
        if other is not chosen.session:
            assert other.tree is not None
            for uuid in other.tree.order:
                tally.other_session(other.tree.line[uuid], f"line {other.tree.line[uuid]}")
    _classify(chosen.session, chosen.sequence, chosen.duplicates, outcome, tally)
    report = tally.report()
    builder.metadata["events_on_other_branches"] = report.other_branches
    builder.warnings[:0] = [*lines.warnings, *_damage_warnings(sessions)]
    return builder.build(model=model, sessions=infos, session_id=chosen_id, report=report)


FORMAT = FormatSpec(
    name=NAME,
    description="Claude Code session logs (~/.claude/projects/*/*.jsonl)",
    detect_records=looks_like,
    parse_records=parse_records,
    aliases=("claude",),
)
