"""aider's chat history (``.aider.chat.history.md``) and its LLM history (``.aider.llm.history``).

The chat history is Markdown that aider appends to as it runs (``aider/io.py``):

* ``# aider chat started at 2025-05-04 17:02:36`` starts a session (one launch of aider); each is a
  session of the conversation list, and the last one holding a message is loaded by default;
* ``#### `` lines are what the user typed (one input may span several ``####`` lines); inputs that
  start with ``/`` are commands to aider, not messages, except that ``/ask``, ``/code``,
  ``/architect`` and ``/context`` send their text when aider does not log it again on its own;
* ``> `` lines are what aider printed (confirmations, ``Applied edit to ...``, commits, warnings).
  They never reach the model and are metadata, except ``> Tokens: 3.2k sent, 222 received.
  Cost: ...`` which is the usage of the reply above it. aider ends each of these lines with two
  spaces (a Markdown line break); a ``> `` line without them inside a reply is the reply's own
  quote, when the file keeps those endings at all;
* everything else is the assistant's reply, SEARCH/REPLACE blocks included.

The file does not hold what aider sends besides the chat (system prompt, repo map, file
contents, the output of ``/run`` added to the chat): the recorded usage is the whole request, so
the request accounting shows that part as unrecorded overhead. The token counts are rounded as
aider prints them (``3.2k`` is 3,150 to 3,249): ``usage["tokens_rounded"]`` says so.

The LLM history is read by :mod:`core.formats.aider_llm`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.formats import aider_llm
from core.formats.messages import Builder, FieldProblem, make_message
from core.formats.model import CompactionEvent, Conversation, SessionInfo
from core.formats.session_pick import pick_session
from core.formats.source import InputSource
from core.formats.spec import FormatSpec

NAME = "aider"
HEADER = re.compile(r"^# aider chat started at (?P<time>.+?)\s*$")
TOKENS = re.compile(
    r"Tokens: (?P<sent>[\d.,]+k?) sent(?:, (?P<write>[\d.,]+k?) cache write)?(?:, (?P<hit>[\d.,]+k?) cache hit)?"
    r", (?P<received>[\d.,]+k?) received\."
)
COST = re.compile(r"Cost: \$(?P<message>[\d.]+) (?:message|request), \$(?P<session>[\d.]+) session\.")
MODEL = re.compile(r"^(?:Main model|Model): (?P<model>\S+)")
ADDED_OUTPUT = re.compile(r"^Added \d+ lines? of output to the chat\.")
# Commands whose text goes to the model; aider logs that text again as a ``####`` line of its own.
MESSAGE_COMMANDS = ("/ask", "/code", "/architect", "/context")
# Commands that empty the chat aider sends: what came before is no longer in its requests.
CLEARING_COMMANDS = ("/clear", "/reset")
CLEARED = "context-cleared"
TITLE_CHARS = 60

HEADER_META = "session headers (# aider chat started at ...)"
TERMINAL_META = "terminal output (what aider printed; not sent to the model)"
TOKENS_META = "token and cost reports (the usage of the reply above them)"
COMMAND_META = "commands typed to aider (not sent to the model)"
BLANK_META = "blank lines before the first session"
PLACE = "placed"  # a line placed on the conversation (the other classes are metadata kinds)


# ---------------------------------------------------------------------------------------------
# Detection


def _is_tool_line(line: str) -> bool:
    return line.startswith("> ") or line.rstrip() == ">"


def looks_like_chat(head: str) -> bool:
    """A session header at the start of a line, or (a fragment without one) ``####`` input lines
    together with aider's ``> Tokens: ... sent, ... received.`` reports; a README has neither."""
    lines = head.splitlines()
    if any(HEADER.match(line) for line in lines):
        return True
    has_input = any(line.startswith("#### ") for line in lines)
    return has_input and any(line.startswith("> ") and TOKENS.search(line) for line in lines)


def looks_like(head: str) -> bool:
    return looks_like_chat(head) or aider_llm.looks_like(head)


# ---------------------------------------------------------------------------------------------
# Reading the Markdown into blocks


@dataclass
class _Block:
    """A run of lines of one kind: ``user``, ``assistant`` or ``tool`` (blank lines join the block
    before them). A tool block's lines are grouped by what aider printed at once (``chunks``: one
    line, or a message of several lines of which only the first has the ``> ``)."""

    kind: str
    lines: list[tuple[int, str]] = field(default_factory=list)
    chunks: list[list[tuple[int, str]]] = field(default_factory=list)


@dataclass
class _Session:
    started: str | None
    header_line: int | None
    blocks: list[_Block] = field(default_factory=list)
    blank_before: list[int] = field(default_factory=list)  # blank lines before its first block


def _split(text: str) -> tuple[list[_Session], list[int]]:
    """Sessions with their blocks, and the blank lines before the first session."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    # aider ends the lines it writes itself (inputs, its own output) with two spaces. A file whose
    # trailing spaces were trimmed (an editor, a pre-commit hook) has lost that mark; then every
    # ``> `` line is aider's and every ``####`` line an input, as aider's own reader takes them.
    marked = any(_is_tool_line(line) and line.rstrip("\r").endswith("  ") for line in lines)
    sessions: list[_Session] = []
    leading_blanks: list[int] = []
    current: _Session | None = None
    continued = False  # inside a message of several lines that aider printed at once
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        header = HEADER.match(line)
        if header:
            current = _Session(header.group("time"), number)
            sessions.append(current)
            continued = False
            continue
        if current is None:
            if not line.strip():
                leading_blanks.append(number)
                continue
            current = _Session(None, None)  # a fragment that starts inside a session
            sessions.append(current)
        blocks = current.blocks
        # A new line of aider's own (an input, another output line) also ends an unfinished message.
        if continued and not ((line.startswith("####") or _is_tool_line(line)) and line.endswith("  ")):
            blocks[-1].lines.append((number, line))
            blocks[-1].chunks[-1].append((number, line))
            continued = not line.endswith("  ")
            continue
        continued = False
        if not line.strip():
            if blocks:
                blocks[-1].lines.append((number, line))
            else:
                current.blank_before.append(number)
            continue
        in_reply = bool(blocks) and blocks[-1].kind == "assistant"
        own = not marked or line.endswith("  ")  # written by aider, not by the model
        if line.startswith("####") and (own or not in_reply):
            kind = "user"
        elif _is_tool_line(line) and (own or not in_reply):
            kind = "tool"
            continued = marked and not line.endswith("  ")
        else:
            kind = "assistant"
        previous = blocks[-1] if blocks else None
        # A blank line ends a user input: the next ``####`` line is another input.
        same = previous is not None and previous.kind == kind and not (kind == "user" and not previous.lines[-1][1].strip())
        if same:
            assert previous is not None
            previous.lines.append((number, line))
        else:
            previous = _Block(kind, [(number, line)])
            blocks.append(previous)
        if kind == "tool":
            previous.chunks.append([(number, line)])
    return sessions, leading_blanks


def _user_text(block: _Block) -> str:
    parts = []
    for _, line in block.lines:
        if not line.strip():
            continue
        body = line[5:] if line.startswith("#### ") else line[4:]
        parts.append(body[:-2] if body.endswith("  ") else body.rstrip())
    text = "\n".join(parts)
    return "" if text == "<blank>" else text


def _assistant_text(block: _Block) -> str:
    return "\n".join(line for _, line in block.lines).strip("\n")


def _tool_text(line: str) -> str:
    return line[2:].rstrip() if line.startswith("> ") else line.rstrip()


def _count(value: str) -> tuple[int, bool]:
    """aider's printed token count as a number, and whether it was rounded (``3.2k``)."""
    value = value.replace(",", "")
    if value.endswith("k"):
        return round(float(value[:-1]) * 1000), True
    return int(float(value)), False


def _usage(tokens: re.Match[str], cost: re.Match[str] | None) -> dict[str, Any]:
    sent, rounded = _count(tokens.group("sent"))
    received, rounded_out = _count(tokens.group("received"))
    usage: dict[str, Any] = {"prompt_tokens": sent, "completion_tokens": received}
    rounded = rounded or rounded_out
    if tokens.group("hit"):
        hit, hit_rounded = _count(tokens.group("hit"))
        usage["prompt_tokens_details"] = {"cached_tokens": hit}
        rounded = rounded or hit_rounded
    if tokens.group("write"):
        write, write_rounded = _count(tokens.group("write"))
        usage["cache_creation_tokens"] = write
        rounded = rounded or write_rounded
    if cost is not None:
        usage["cost"] = float(cost.group("message"))
        usage["session_cost"] = float(cost.group("session"))
    if rounded:
        usage["tokens_rounded"] = True
    return usage


# ---------------------------------------------------------------------------------------------
# Blocks into messages


class _Reader:
    """One session's blocks into messages on a Builder (module docstring), classifying every line."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.model: str | None = None
        self.version: str | None = None
        self.outputs_added = 0
        self.usage_owner: int | None = None  # the reply the next Tokens line belongs to
        self.cleared: str | None = None  # a /clear or /reset waiting for the next message
        self.pending_tokens: tuple[re.Match[str], int] | None = None  # the last Tokens line (a Cost line may follow)

    def run(self, session: _Session) -> None:
        tally = self.builder.tally
        if session.header_line is not None:
            tally.meta(session.header_line, HEADER_META)
        for number in session.blank_before:
            tally.meta(number, HEADER_META)
        blocks = session.blocks
        for position, block in enumerate(blocks):
            if block.kind == "user":
                self._user(block, blocks[position + 1 :])
            elif block.kind == "assistant":
                self._assistant(block)
            else:
                self._tool(block, blocks[position + 1] if position + 1 < len(blocks) else None)

    def _add(self, role: str, text: str, where: str) -> int:
        index = self.builder.add(make_message(role, text), where)
        if self.cleared is not None:
            self.builder.events.append(CompactionEvent(index, CLEARED, source=self.cleared))
            self.cleared = None
        return index

    def _user(self, block: _Block, later: list[_Block]) -> None:
        text = _user_text(block)
        where = _span(block)
        kind = PLACE
        if text.startswith("/"):
            command, _, argument = text.partition(" ")
            repeated = next((b for b in later if b.kind != "tool"), None)
            resent = repeated is not None and repeated.kind == "user" and _user_text(repeated) == argument.strip()
            if command in MESSAGE_COMMANDS and argument.strip() and not resent:
                text = argument.strip()
            else:
                kind = COMMAND_META
                if command in CLEARING_COMMANDS:
                    self.cleared = f"{where} ({command})"
        if kind == PLACE:
            self._add("user", text, where)
            self.usage_owner = None
        self._classify(block.lines, kind)

    def _assistant(self, block: _Block) -> None:
        self.usage_owner = self._add("assistant", _assistant_text(block), _span(block))
        self._classify(block.lines, PLACE)

    def _tool(self, block: _Block, following: _Block | None) -> None:
        # Output of several lines printed between two replies with no input between them is what
        # aider sent back to the model (a failed edit, lint or test errors): the reflection.
        reflection = None
        after_reply = bool(self.builder.messages) and self.builder.messages[-1]["role"] == "assistant"
        if after_reply and following is not None and following.kind == "assistant":
            several = [chunk for chunk in block.chunks if sum(1 for _, line in chunk if line.strip()) > 1]
            reflection = several[-1] if several else None
        for chunk in block.chunks:
            if chunk is reflection:
                self._add("user", _chunk_text(chunk), _span_of(chunk))
                self.usage_owner = None
                self._classify(chunk, PLACE)
                continue
            for number, line in chunk:
                self._tool_line(number, line)
        covered = {number for chunk in block.chunks for number, _ in chunk}
        self._classify([(n, line) for n, line in block.lines if n not in covered], TERMINAL_META)  # blank lines

    def _tool_line(self, number: int, line: str) -> None:
        tally = self.builder.tally
        text = _tool_text(line)
        tokens = TOKENS.search(text)
        cost = COST.search(text)
        if tokens:
            self.pending_tokens = (tokens, number)
            self._attach(tokens, cost)
            tally.meta(number, TOKENS_META)
            return
        pending = self.pending_tokens
        if cost and pending is not None and number == pending[1] + 1:
            self._attach(pending[0], cost)  # the cost has its own line when both cache counts are shown
            tally.meta(number, TOKENS_META)
            return
        model = MODEL.match(text)
        if model:
            self.model = model.group("model")  # the latest: /model switches it mid-session
        if text.startswith("Aider v") and self.version is None:
            self.version = text.split()[1]
        if ADDED_OUTPUT.match(text):
            self.outputs_added += 1
        tally.meta(number, TERMINAL_META)

    def _attach(self, tokens: re.Match[str], cost: re.Match[str] | None) -> None:
        if self.usage_owner is not None:
            self.builder.usage[self.usage_owner] = _usage(tokens, cost)

    def _classify(self, lines: list[tuple[int, str]], kind: str) -> None:
        for number, _ in lines:
            if kind == PLACE:
                self.builder.tally.place(number)
            else:
                self.builder.tally.meta(number, kind)


def _chunk_text(chunk: list[tuple[int, str]]) -> str:
    lines = [line for _, line in chunk]
    lines[0] = _tool_text(lines[0]) if _is_tool_line(lines[0]) else lines[0]
    if lines[-1].endswith("  "):
        lines[-1] = lines[-1][:-2]
    return "\n".join(lines).strip("\n")


def _span_of(lines: list[tuple[int, str]]) -> str:
    numbers = [number for number, line in lines if line.strip()] or [lines[0][0]]
    first, last = numbers[0], numbers[-1]
    return f"line {first}" if first == last else f"lines {first}-{last}"



def _span(block: _Block) -> str:
    return _span_of(block.lines)


# ---------------------------------------------------------------------------------------------
# Sessions and the entry points


def _title(session: _Session) -> str | None:
    for block in session.blocks:
        if block.kind == "user":
            text = " ".join(_user_text(block).split())
            if text and not text.startswith("/"):
                return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
    return None


def _unique(wanted: str, taken: set[str]) -> str:
    candidate, number = wanted, 2
    while candidate in taken:
        candidate, number = f"{wanted} ({number})", number + 1
    taken.add(candidate)
    return candidate


def parse_chat(text: str, src: InputSource, session: str | None) -> Conversation:
    sessions, leading_blanks = _split(text)
    if not sessions:
        raise FieldProblem(None, "no '# aider chat started at' session and no '####' input; expected an aider chat history")
    readers: list[tuple[_Reader, Builder]] = []
    for item in sessions:
        builder = Builder(NAME, src.name)
        reader = _Reader(builder)
        reader.run(item)
        readers.append((reader, builder))
    taken: set[str] = set()
    infos = []
    for item, (reader, builder) in zip(sessions, readers, strict=True):
        wanted = item.started or "before the first '# aider chat started at' line"
        infos.append(
            SessionInfo(id=_unique(wanted, taken), title=_title(item), message_count=len(builder), started_at=item.started,
                        model=reader.model)
        )
    with_messages = [info.id for info, (_, builder) in zip(infos, readers, strict=True) if len(builder)]
    chosen = pick_session(infos, session, src, default=(with_messages or [infos[-1].id])[-1])
    position = [info.id for info in infos].index(chosen)
    reader, builder = readers[position]
    for number in leading_blanks:
        builder.tally.meta(number, BLANK_META)
    for other_position, (_, other) in enumerate(readers):
        if other_position != position:
            for number in other.tally.keys():
                builder.tally.other_session(number)
    if sessions[position].header_line is None:
        builder.warnings.append(
            "no '# aider chat started at' line before line "
            f"{_first_line(sessions[position])}: the file starts inside a session"
        )
    if reader.outputs_added:
        builder.warnings.append(
            f"{reader.outputs_added} command output(s) were added to the chat ('Added ... lines of output to the chat'); "
            "the chat history does not keep their text, so they are not among the messages"
        )
    if reader.version:
        builder.metadata["aider_version"] = reader.version
    conv = builder.build(model=reader.model, sessions=infos, session_id=chosen)
    conv.report.notes.append("usage: aider's 'Tokens: ... sent' of each reply (the whole request, rounded as printed)")
    return conv


def _first_line(session: _Session) -> int:
    return session.blocks[0].lines[0][0] if session.blocks else 1


def parse_text(text: str, src: InputSource, session: str | None) -> Conversation:
    head = text[:65536]
    if aider_llm.looks_like(head) and not looks_like_chat(head):
        return aider_llm.parse(text, src, session)
    return parse_chat(text, src, session)


FORMAT = FormatSpec(
    name=NAME,
    description="aider histories (.aider.chat.history.md, .aider.llm.history)",
    detect_text=looks_like,
    parse_text=parse_text,
)
