"""Pi coding agent session files, shared by the ``pi`` and ``openclaw`` formats.

pi (``badlogic/pi-mono``, ``packages/coding-agent/docs/session.md``) writes
``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``; OpenClaw embeds pi's session manager and
writes the same lines to ``~/.openclaw/agents/<agent>/sessions/<id>.jsonl``. The first line is a
``session`` header (id, time, cwd, version); every other line is an entry:

* ``message``: ``user`` (text or text and images), ``assistant`` (``text``, ``thinking``,
  ``toolCall`` blocks, ``usage``, ``stopReason``), ``toolResult`` (``toolCallId``, ``isError``),
  ``bashExecution`` (a ``!command`` the user ran: sent as a user message, unless
  ``excludeFromContext``), ``custom`` (what an extension sent; ``hookMessage`` before version 3);
* ``custom_message`` (an extension's message, sent as a user message), ``branch_summary`` (the
  summary of a branch left behind, sent as a user message), ``compaction`` (below);
* ``model_change``, ``thinking_level_change``, ``custom`` (extension state, never sent), ``label``
  and ``session_info`` (the session's name): metadata.

**Tree.** Since version 2 entries link to their parent by ``id`` / ``parentId``; version 1 files
(and files without ids) are one chain in file order. pi resumes the branch that ends at the last
entry of the file; that branch is the conversation. Other leaves are branches left behind
(``/tree`` navigation, ``/fork``): each is listed in ``Conversation.sessions`` with
``kind="branch"`` and loads with ``session=``. Entries without an ``id`` in a tree file are on no
branch pi walks (they are skipped, with the reason). A ``parentId`` that names no entry of the file
joins the entry to the one before it, and a loop is cut at its first entry, each with a warning.

**Messages as pi sends them** (``convertToLlm``, ``transformMessages``): assistant responses that
ended in an error or were aborted are not sent again and are left out (unless a later tool result
answers one of their calls); a tool call still without a result when the next user or assistant
message comes gets the tool result ``"No result provided"``, as pi inserts it; a compaction's summary is sent as a user message wrapped in pi's
``<summary>`` text. The compaction is a :class:`CompactionEvent` (``kind="compaction"``,
``pre_tokens`` = ``tokensBefore``) at that message; pi keeps sending the entries from
``firstKeptEntryId`` on, whose first message is ``details["first_kept_position"]``.

**Usage.** pi's per-response ``usage`` (``input``, ``output``, ``cacheRead``, ``cacheWrite``,
``cost.total``) becomes ``input_tokens`` / ``output_tokens`` / ``cache_read_input_tokens`` /
``cache_creation_input_tokens`` (the cache is counted apart, as Anthropic does) and ``cost``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.formats.messages import (
    Builder,
    FieldProblem,
    data_url,
    image_part,
    kind_of,
    make_message,
    simplify_parts,
    text_part,
    tool_call,
)
from core.formats.model import CompactionEvent, Conversation, SessionInfo
from core.formats.report import RowTally
from core.formats.session_pick import pick_session
from core.formats.source import InputSource, JsonLines

ENTRY_TYPES = frozenset({
    "message", "model_change", "thinking_level_change", "compaction", "branch_summary", "custom", "custom_message",
    "label", "session_info",
})
MESSAGE_ROLES = frozenset({"user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage",
                           "branchSummary", "compactionSummary"})
# pi's own wrappers (packages/coding-agent/src/core/messages.ts).
COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
COMPACTION_SUFFIX = "\n</summary>"
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUFFIX = "</summary>"
TITLE_CHARS = 60

HEADER_META = "session header (id, time, working directory)"
META = {
    "model_change": "model changes",
    "thinking_level_change": "thinking-level changes",
    "custom": "extension state (never sent to the model)",
    "label": "labels",
    "session_info": "session names",
}
FAILED_RESPONSE = "responses that ended in an error or were aborted (pi does not send them again)"
EXCLUDED_BASH = "!! commands (run by the user and kept out of the model's context)"
NO_ID = "entries without an 'id' in a session whose entries form a tree (on no branch pi walks)"


def is_header(record: Any) -> bool:
    return isinstance(record, dict) and record.get("type") == "session" and "payload" not in record and (
        "cwd" in record or "version" in record or "id" in record
    )


def is_entry(record: Any) -> bool:
    """A pi entry: one of pi's entry types, and a message entry holds a pi message."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str) or record["type"] not in ENTRY_TYPES:
        return False
    if record["type"] == "message":
        message = record.get("message")
        return isinstance(message, dict) and isinstance(message.get("role"), str) and message["role"] in MESSAGE_ROLES
    return True


def _pi_message(record: dict[str, Any]) -> bool:
    """A message only pi writes: a ``toolResult`` role, or ``toolCall`` blocks / ``stopReason``."""
    message = record.get("message") if record.get("type") == "message" else None
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return message.get("role") in ("toolResult", "bashExecution") or "stopReason" in message or any(
        isinstance(b, dict) and b.get("type") == "toolCall" for b in blocks
    )


def looks_like(records: list[tuple[int, Any]]) -> bool:
    """A session header first, or (a fragment without one) pi entries that hold pi's own messages."""
    dicts = [record for _, record in records if isinstance(record, dict)]
    if not dicts:
        return False
    if is_header(dicts[0]):
        return all(is_header(r) or is_entry(r) or "type" in r for r in dicts[1:])
    entries = sum(1 for r in dicts if is_entry(r))
    return entries * 2 >= len(dicts) and any(_pi_message(r) for r in dicts)


# ---------------------------------------------------------------------------------------------
# The tree


@dataclass
class _Tree:
    """Entries keyed by id (or ``#<line>`` when the file is one chain), their parents and the leaf."""

    header: dict[str, Any] | None = None
    header_line: int | None = None
    line: dict[str, int] = field(default_factory=dict)
    entry: dict[str, dict[str, Any]] = field(default_factory=dict)
    parent: dict[str, str | None] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    by_index: dict[int, str] = field(default_factory=dict)  # a version-1 file's entry number → key
    no_id: list[int] = field(default_factory=list)
    others: list[tuple[int, str]] = field(default_factory=list)  # (line, reason) of lines that are not entries
    bridged: list[tuple[int, int]] = field(default_factory=list)
    loops: list[list[int]] = field(default_factory=list)

    def chain(self, leaf: str) -> list[str]:
        found, current = [], leaf
        while current is not None:
            found.append(current)
            current = self.parent[current]
        found.reverse()
        return found


def _read_tree(lines: JsonLines) -> _Tree:
    tree = _Tree()
    records = list(lines.records())
    version = 1
    for _, record in records:
        if is_header(record):
            version = record.get("version") if isinstance(record.get("version"), int) else 1
            break
    linked = version >= 2 and any(isinstance(r, dict) and r.get("type") != "session" and r.get("id") for _, r in records)
    raw_parents: dict[str, Any] = {}
    for index, (line, record) in enumerate(records):
        if not isinstance(record, dict):
            tree.others.append((line, f"lines that are not entry objects ({kind_of(record)})"))
            continue
        if is_header(record):
            if tree.header is None:
                tree.header, tree.header_line = record, line
            else:
                tree.others.append((line, "a second session header (the first one is used)"))
            continue
        if not isinstance(record.get("type"), str):
            tree.others.append((line, "lines without an entry 'type'"))
            continue
        raw_id = record.get("id")
        if linked and not (isinstance(raw_id, (str, int)) and str(raw_id)):
            tree.no_id.append(line)
            continue
        key = str(raw_id) if linked else f"#{line}"
        if key in tree.entry:
            tree.others.append((line, f"a second entry with an id already used (line {tree.line[key]} is kept)"))
            continue
        tree.line[key], tree.entry[key] = line, record
        tree.order.append(key)
        tree.by_index[index] = key
        raw_parents[key] = record.get("parentId")
    # Parents are resolved once every id is known: pi looks them up in the whole file.
    previous: str | None = None
    for key in tree.order:
        parent: str | None = previous
        if linked:
            raw = raw_parents[key]
            parent = str(raw) if isinstance(raw, (str, int)) and str(raw) else None
            if parent is not None and parent not in tree.entry:
                if previous is not None:
                    tree.bridged.append((tree.line[key], tree.line[previous]))
                parent = previous
        tree.parent[key] = parent
        previous = key
    _cut_loops(tree)
    return tree


def _cut_loops(tree: _Tree) -> None:
    state: dict[str, int] = {}
    for start in tree.order:
        path: list[str] = []
        current: str | None = start
        while current is not None and current not in state:
            state[current] = 1
            path.append(current)
            current = tree.parent[current]
        if current is not None and state[current] == 1:
            loop = path[path.index(current):]
            first = min(loop, key=tree.line.__getitem__)
            tree.parent[first] = None
            tree.loops.append(sorted(tree.line[key] for key in loop))
        for key in path:
            state[key] = 2


# ---------------------------------------------------------------------------------------------
# Entries into messages


def _usage(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        return None
    usage: dict[str, Any] = {}
    for source, target in (("input", "input_tokens"), ("output", "output_tokens"), ("cacheRead", "cache_read_input_tokens"),
                           ("cacheWrite", "cache_creation_input_tokens"), ("totalTokens", "total_tokens"),
                           ("reasoning", "reasoning_tokens")):
        value = raw.get(source)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            usage[target] = int(value)
    cost = raw.get("cost")
    if isinstance(cost, dict) and isinstance(cost.get("total"), (int, float)):
        usage["cost"] = cost["total"]
    return usage or None


def _parts(content: Any) -> list[dict[str, Any]]:
    """pi text and image blocks (or a plain string) as canonical parts."""
    if isinstance(content, str):
        return [text_part(content)]
    parts = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(text_part(str(block.get("text", ""))))
        elif block.get("type") == "image":
            parts.append(image_part(data_url(str(block.get("mimeType") or "image/png"), str(block.get("data", "")))))
    return parts


def _content(content: Any) -> Any:
    return simplify_parts(_parts(content), join_texts=True)


def bash_text(message: dict[str, Any]) -> str:
    """What pi sends for a ``!command`` (``bashExecutionToText``)."""
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(exit_code, int) and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


@dataclass
class _Conversion:
    """A chain of entries as messages, and what became of each entry that did not give one."""

    builder: Builder
    meta: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    model: str | None = None
    title: str | None = None
    produced: dict[str, int] = field(default_factory=dict)  # entry key → its first message
    pending: dict[str, tuple[str, str]] = field(default_factory=dict)  # call id → (tool name, where) awaiting a result
    placeholders: int = 0


NO_RESULT = "No result provided"  # what pi's transformMessages sends for a call left without a result


def _moves_on(entry: dict[str, Any]) -> bool:
    """Whether pi sends this entry as a user or assistant message (before which open calls get their placeholder)."""
    message = entry.get("message")
    if entry["type"] == "message":
        return isinstance(message, dict) and message.get("role") != "toolResult"
    return entry["type"] in ("custom_message", "compaction") or (
        entry["type"] == "branch_summary" and isinstance(entry.get("summary"), str) and bool(entry["summary"]))


def _close_pending(conversion: _Conversion) -> None:
    for call_id, (name, where) in conversion.pending.items():
        conversion.builder.add(make_message("tool", NO_RESULT, tool_call_id=call_id, name=name or None),
                               f"{where} (no result recorded: pi's placeholder)")
        conversion.placeholders += 1
    conversion.pending.clear()


def _answered_calls(tree: _Tree, chain: list[str]) -> set[str]:
    found = set()
    for key in chain:
        message = tree.entry[key].get("message")
        if isinstance(message, dict) and message.get("role") == "toolResult" and message.get("toolCallId"):
            found.add(str(message["toolCallId"]))
    return found


def convert(tree: _Tree, chain: list[str], builder: Builder, label: Callable[[dict[str, Any]], str | None]) -> _Conversion:
    """The messages of ``chain`` (module docstring). ``label`` names the metadata kind of a ``custom``
    entry (the OpenClaw format names its own ones)."""
    conversion = _Conversion(builder)
    answered = _answered_calls(tree, chain)
    compactions: list[tuple[CompactionEvent, str | None]] = []
    for key in chain:
        entry = tree.entry[key]
        kind = entry["type"]
        where = f"line {tree.line[key]}"
        if conversion.pending and _moves_on(entry):
            _close_pending(conversion)
        before = len(builder)
        if kind == "message" and not isinstance(entry.get("message"), dict):
            conversion.skipped[key] = "message entries without a 'message' object"
        elif kind == "message":
            _message(entry["message"], key, where, conversion, answered)
        elif kind == "custom_message":
            builder.add(make_message("user", _content(entry.get("content"))), where)
        elif kind == "branch_summary" and isinstance(entry.get("summary"), str) and entry["summary"]:
            builder.add(make_message("user", BRANCH_PREFIX + entry["summary"] + BRANCH_SUFFIX), where)
        elif kind == "compaction":
            summary = entry.get("summary") if isinstance(entry.get("summary"), str) else ""
            index = builder.add(make_message("user", COMPACTION_PREFIX + summary + COMPACTION_SUFFIX), where)
            tokens = entry.get("tokensBefore")
            event = CompactionEvent(index, "compaction", summary=summary, source=where,
                                    pre_tokens=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None)
            if entry.get("fromHook"):
                event.details["from_hook"] = True
            builder.events.append(event)
            compactions.append((event, _first_kept(tree, entry)))
        elif kind == "model_change":
            conversion.model = str(entry.get("modelId") or conversion.model or "") or None
            conversion.meta[key] = META[kind]
        elif kind == "session_info":
            if isinstance(entry.get("name"), str) and entry["name"].strip():
                conversion.title = entry["name"].strip()
            conversion.meta[key] = META[kind]
        elif kind == "custom":
            conversion.meta[key] = label(entry) or META[kind]
        elif kind in META:
            conversion.meta[key] = META[kind]
        elif kind == "branch_summary":
            conversion.meta[key] = "branch summaries without a summary"
        else:
            conversion.skipped[key] = f"entries of type {kind!r} are not part of a pi session"
        if len(builder) > before:
            conversion.produced[key] = before
        if kind == "message" and isinstance(entry.get("message"), dict) and entry["message"].get("role") == "assistant":
            model = entry["message"].get("model")
            conversion.model = model if isinstance(model, str) and model else conversion.model
    for event, first_kept in compactions:
        _place_first_kept(event, first_kept, chain, conversion)
    if conversion.placeholders:
        builder.warnings.append(f"{conversion.placeholders} tool call(s) have no result before the conversation goes on; "
                                f"each is answered with {NO_RESULT!r}, as pi sends it")
    return conversion


def _first_kept(tree: _Tree, entry: dict[str, Any]) -> str | None:
    kept = entry.get("firstKeptEntryId")
    if isinstance(kept, (str, int)) and str(kept) in tree.entry:
        return str(kept)
    index = entry.get("firstKeptEntryIndex")  # version 1: the entry's position in the file
    if isinstance(index, int):
        return tree.by_index.get(index)
    return None


def _place_first_kept(event: CompactionEvent, first_kept: str | None, chain: list[str], conversion: _Conversion) -> None:
    """The first message pi still sends after the compaction (the kept entries, then the summary)."""
    if first_kept is None or first_kept not in chain:
        return
    event.details["first_kept_entry"] = first_kept.lstrip("#")
    for key in chain[chain.index(first_kept):]:
        index = conversion.produced.get(key)
        if index is None:
            continue
        if index < event.position:
            event.details["first_kept_position"] = index
        return


def _message(message: dict[str, Any], key: str, where: str, conversion: _Conversion, answered: set[str]) -> None:
    builder = conversion.builder
    role = message.get("role")
    if role == "assistant":
        blocks = message.get("content") if isinstance(message.get("content"), list) else []
        calls = [b for b in blocks if isinstance(b, dict) and b.get("type") == "toolCall"]
        failed = message.get("stopReason") in ("error", "aborted")
        if failed and not any(str(call.get("id")) in answered for call in calls):
            conversion.meta[key] = FAILED_RESPONSE
            return
        texts = [str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        thinking = [str(b.get("thinking", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "thinking"]
        tool_calls = [tool_call(str(c.get("id") or f"{key}-{n}"), str(c.get("name", "")), c.get("arguments"))
                      for n, c in enumerate(calls)]
        text = "\n".join(t for t in texts if t)
        builder.add(make_message("assistant", text if text or not tool_calls else None, tool_calls=tool_calls),
                    where, usage=_usage(message.get("usage")), reasoning="\n".join(t for t in thinking if t) or None)
        conversion.pending = {call["id"]: (call["function"]["name"], where) for call in tool_calls}
    elif role == "toolResult":
        conversion.pending.pop(str(message.get("toolCallId", "")), None)
        builder.add(make_message("tool", _content(message.get("content")), tool_call_id=str(message.get("toolCallId", "")),
                                 name=str(message.get("toolName") or "") or None), where)
    elif role == "bashExecution":
        if message.get("excludeFromContext"):
            conversion.meta[key] = EXCLUDED_BASH
            return
        builder.add(make_message("user", bash_text(message)), where)
    elif role == "compactionSummary":
        builder.add(make_message("user", COMPACTION_PREFIX + str(message.get("summary", "")) + COMPACTION_SUFFIX), where)
    elif role == "branchSummary":
        builder.add(make_message("user", BRANCH_PREFIX + str(message.get("summary", "")) + BRANCH_SUFFIX), where)
    else:  # user, and extension messages (custom, hookMessage), sent as user messages
        builder.add(make_message("user", _content(message.get("content"))), where)


# ---------------------------------------------------------------------------------------------
# Sessions, the load report and the entry point


def _leaves(tree: _Tree, main: list[str]) -> list[str]:
    """Leaves of branches left behind, newest first: each holds an entry that gives a message and is
    on no chain listed before it."""
    parents = {parent for parent in tree.parent.values() if parent is not None}
    covered = set(main)
    found = []
    for leaf in reversed(tree.order):
        if leaf in parents or leaf in covered:
            continue
        own = [key for key in tree.chain(leaf) if key not in covered]
        if any(tree.entry[key]["type"] in ("message", "custom_message", "branch_summary", "compaction") for key in own):
            found.append(leaf)
            covered.update(own)
    return found


def _first_prompt(tree: _Tree, keys: list[str]) -> str | None:
    for key in keys:
        message = tree.entry[key].get("message")
        if isinstance(message, dict) and message.get("role") == "user":
            text = " ".join(part["text"] for part in _parts(message.get("content")) if part["type"] == "text")
            text = " ".join(text.split())
            if text:
                return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
    return None


def read_session(
    lines: JsonLines, src: InputSource, session: str | None, fmt: str,
    label: Callable[[dict[str, Any]], str | None] = lambda entry: None,
) -> Conversation:
    tree = _read_tree(lines)
    if not tree.order:
        raise FieldProblem(None, "no session entries found; expected a pi session header line and message entries")
    main = tree.chain(tree.order[-1])
    header = tree.header or {}
    main_id = str(header.get("id") or src.name)
    chains: list[tuple[SessionInfo, list[str]]] = []
    conversions: dict[int, _Conversion] = {}
    main_conversion = convert(tree, main, Builder(fmt, src.name), label)
    conversions[0] = main_conversion
    title = main_conversion.title or _first_prompt(tree, main)
    chains.append((SessionInfo(id=main_id, title=title, message_count=len(main_conversion.builder),
                               started_at=header.get("timestamp"), model=main_conversion.model), main))
    on_main = set(main)
    for number, leaf in enumerate(_leaves(tree, main), start=1):
        chain = tree.chain(leaf)
        conversion = convert(tree, chain, Builder(fmt, src.name), label)
        own = [key for key in chain if key not in on_main]
        first = min((tree.line[key] for key in own), default=tree.line[leaf])
        prompt = _first_prompt(tree, own)
        conversions[len(chains)] = conversion
        chains.append((SessionInfo(id=f"{main_id}:branch-{number}", kind="branch", parent_id=main_id,
                                   title=f"branch left at line {first}" + (f": {prompt}" if prompt else ""),
                                   message_count=len(conversion.builder), model=conversion.model), chain))
    infos = [info for info, _ in chains]
    chosen = pick_session(infos, session, src, default=main_id)
    position = [info.id for info in infos].index(chosen)
    conversion, chain = conversions[position], chains[position][1]
    builder = conversion.builder
    on_branches = {key for _, other in chains for key in other}
    _classify(tree, chain, on_branches, conversion, builder.tally, label)
    builder.warnings[:0] = [*lines.warnings, *_damage(tree)]
    if tree.header is None:
        builder.warnings.append("no session header line: the file starts without pi's {\"type\":\"session\"} line")
    builder.metadata["session_header"] = {k: v for k, v in header.items() if k in ("id", "timestamp", "cwd", "version",
                                                                                    "parentSession", "branchedFrom")}
    return builder.build(model=conversion.model, sessions=infos, session_id=chosen)


def _classify(tree: _Tree, chain: list[str], on_branches: set[str], conversion: _Conversion, tally: RowTally,
              label: Callable[[dict[str, Any]], str | None]) -> None:
    """Every line: the loaded chain's entries by what became of them, entries of the other listed
    branches as such, and entries on no branch (a stray ``custom`` row ...) by their type."""
    here = set(chain)
    if tree.header_line is not None:
        tally.meta(tree.header_line, HEADER_META)
    for line, reason in tree.others:
        tally.skip(line, reason, f"line {line}")
    for line in tree.no_id:
        tally.skip(line, NO_ID, f"line {line}")
    for key in tree.order:
        line = tree.line[key]
        if key not in here and key in on_branches:
            tally.other_branch(line)
        elif key not in here:
            kind = tree.entry[key]["type"]
            if kind == "custom" and label(tree.entry[key]):
                tally.meta(line, str(label(tree.entry[key])))
            elif kind in META:
                tally.meta(line, META[kind])
            else:
                tally.skip(line, f"{kind} entries on no branch of the session", f"line {line}")
        elif key in conversion.skipped:
            tally.skip(line, conversion.skipped[key], f"line {line}")
        elif key in conversion.meta:
            tally.meta(line, conversion.meta[key])
        else:
            tally.place(line)


def _damage(tree: _Tree) -> list[str]:
    found = []
    for loop in tree.loops:
        lines = ", ".join(str(n) for n in loop)
        found.append(f"line {loop[0]}: the parentId links of lines {lines} form a loop; it was cut at line {loop[0]}")
    if tree.bridged:
        shown = ", ".join(f"line {a} → line {b}" for a, b in tree.bridged[:5]) + (" ..." if len(tree.bridged) > 5 else "")
        found.append(f"{len(tree.bridged)} entr(y/ies) name a parentId that is not in the file; each was joined to the "
                     f"entry before it ({shown})")
    return found
