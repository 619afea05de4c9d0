"""The event tree of one Claude Code session: which rows make the conversation, in which order.

Every row with a ``uuid`` is a node; ``parentUuid`` (or, on a ``compact_boundary``,
``logicalParentUuid``) links it to the row before it. Rows of every type sit in that chain
(``attachment``, ``progress``, system notices ...), so walks go through all of them.

* **Leaf.** The conversation is the chain that ends at the branch Claude Code would resume: the
  one whose latest *turn* (an assistant row, or a user row the user wrote: not a meta row, not a
  tool result alone) is the most recent by timestamp; on a tie, the longest chain, then the later
  line. The last row of the file is not the leaf: late rows (a stray tool result, a permission
  event) can point far back into an abandoned branch.
* **Parallel tool calls.** One API response is logged as several assistant rows sharing
  ``message.id``, chained one after the other, and each tool result is written as a child of
  its own ``tool_use`` row; the next turn continues from one of them. A walk from the leaf
  therefore passes only some of them: every assistant row of a response on the chain brings the
  others, and every result whose parent is one of them, as Claude Code itself does when it
  resumes. The results follow the response, in the order of its calls.
* **Branches.** Rows of the tree the conversation does not use, under a leaf of their own, are
  abandoned branches (an edited prompt, a rewind, a retried turn); each can be walked the same way.
* **Damage.** A ``parentUuid`` loop is cut at its first row in the file (so every row of the loop
  stays, in file order); a ``parentUuid`` naming a row that is not in the file joins the row to the
  one before it in the file (a gap in what was written), except at the start of the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

Row = dict[str, Any]


def parent_uuid(row: Row) -> str | None:
    parent = row.get("parentUuid") or row.get("logicalParentUuid")
    return str(parent) if parent else None  # uuids are keyed as strings; odd types must stay hashable


def timestamp(row: Row) -> float | None:
    value = row.get("timestamp")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def message_id(row: Row) -> str | None:
    message = row.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return str(value) if value else None


def blocks(row: Row) -> list[Any]:
    message = row.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def tool_use_ids(row: Row) -> list[str]:
    return [str(b["id"]) for b in blocks(row) if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id")]


def result_ids(row: Row) -> list[str]:
    return [
        str(b["tool_use_id"])
        for b in blocks(row)
        if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id")
    ]


def is_result_row(row: Row) -> bool:
    """A user row holding only tool results (what the harness wrote, not the user)."""
    found = blocks(row)
    return (
        row.get("type") == "user"
        and bool(found)
        and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in found)
    )


def is_turn(row: Row) -> bool:
    """A row the model or the user wrote (what resuming anchors on)."""
    kind = row.get("type")
    if kind == "assistant":
        return not row.get("isApiErrorMessage")
    if kind != "user" or row.get("isMeta") or is_result_row(row):
        return False
    message = row.get("message")
    return isinstance(message, dict) and bool(message.get("content"))


@dataclass
class Damage:
    """What was repaired in the tree, for warnings."""

    loops: list[list[int]] = field(default_factory=list)  # lines of each loop's rows
    bridged: list[tuple[int, int]] = field(default_factory=list)  # (line, line it was joined to)


class EventTree:
    """The rows of one session (file order) and their parent links, repaired (module docstring)."""

    def __init__(self, rows: list[tuple[int, str, Row]], known: set[str], bridge_gaps: bool) -> None:
        """``rows`` are ``(line, uuid, row)`` in file order; ``known`` is every uuid in the file."""
        self.line: dict[str, int] = {}
        self.row: dict[str, Row] = {}
        self.order: list[str] = []
        for line, uuid, row in rows:
            self.line[uuid] = line
            self.row[uuid] = row
            self.order.append(uuid)
        self.damage = Damage()
        self.parent: dict[str, str | None] = {}
        previous: str | None = None
        for uuid in self.order:
            parent = parent_uuid(self.row[uuid])
            if parent is not None and parent not in self.row:
                if bridge_gaps and parent not in known and previous is not None:
                    self.damage.bridged.append((self.line[uuid], self.line[previous]))
                    parent = previous
                else:
                    parent = None  # the start of the file, or a row of another session
            self.parent[uuid] = parent
            previous = uuid
        self._cut_loops()
        self.children: dict[str, list[str]] = {uuid: [] for uuid in self.order}
        for uuid in self.order:
            parent = self.parent[uuid]
            if parent is not None:
                self.children[parent].append(uuid)
        # What the walks ask of each row, worked out once (a log may be walked once per branch).
        self.response: dict[str, str | None] = {
            u: message_id(r) if r.get("type") == "assistant" else None for u, r in self.row.items()
        }
        self.result_only: dict[str, bool] = {u: is_result_row(r) for u, r in self.row.items()}
        self.answers: dict[str, list[str]] = {u: result_ids(r) for u, r in self.row.items() if self.result_only[u]}
        self._depth: dict[str, int] = {}
        self._anchor: dict[str, str | None] = {}
        self._root: dict[str, str] = {}

    def _cut_loops(self) -> None:
        state: dict[str, int] = {}  # 1: on the current walk, 2: done
        for start in self.order:
            path = []
            current: str | None = start
            while current is not None and current not in state:
                state[current] = 1
                path.append(current)
                current = self.parent[current]
            if current is not None and state[current] == 1:
                loop = path[path.index(current):]
                first = min(loop, key=self.line.__getitem__)
                self.parent[first] = None
                self.damage.loops.append(sorted(self.line[u] for u in loop))
            for uuid in path:
                state[uuid] = 2

    def depth(self, uuid: str) -> int:
        """How many rows from the root to ``uuid`` (inclusive)."""
        path = []
        current: str | None = uuid
        while current is not None and current not in self._depth:
            path.append(current)
            current = self.parent[current]
        base = self._depth[current] if current is not None else 0
        for node in reversed(path):
            base += 1
            self._depth[node] = base
        return self._depth[uuid]

    def root(self, uuid: str) -> str:
        """The first row of ``uuid``'s chain (memoised)."""
        path = []
        current = uuid
        while current not in self._root:
            parent = self.parent[current]
            if parent is None:
                self._root[current] = current
                break
            path.append(current)
            current = parent
        found = self._root[current]
        for node in path:
            self._root[node] = found
        return found

    def anchor(self, uuid: str, is_message: Callable[[Row], bool]) -> str | None:
        """The nearest row at or above ``uuid`` that ``is_message`` accepts (memoised for one predicate)."""
        path = []
        current: str | None = uuid
        while current is not None and current not in self._anchor:
            if is_message(self.row[current]):
                self._anchor[current] = current
                break
            path.append(current)
            current = self.parent[current]
        found = self._anchor.get(current) if current is not None else None
        for node in path:
            self._anchor[node] = found
        return found

    def chain(self, leaf: str) -> list[str]:
        """uuids from the root down to ``leaf``."""
        found = []
        current: str | None = leaf
        while current is not None:
            found.append(current)
            current = self.parent[current]
        found.reverse()
        return found

    def leaves(self) -> list[str]:
        return [uuid for uuid in self.order if not self.children[uuid]]

    def turn_tip(self, leaf: str) -> str | None:
        current: str | None = leaf
        while current is not None and not is_turn(self.row[current]):
            current = self.parent[current]
        return current

    def resume_key(self, leaf: str) -> tuple[float, int, int]:
        """How Claude Code ranks a leaf for resuming: its latest turn's time, chain length, line."""
        tip = self.turn_tip(leaf)
        when = timestamp(self.row[tip]) if tip is not None else None
        return (when if when is not None else float("-inf"), self.depth(leaf), self.line[leaf])

    def _response_rows(self, start: str, key: str, used: set[str]) -> list[str]:
        """The rows of one API response around ``start``: its chained neighbours with the same
        ``message.id`` (the chain may pass only some of them), in file order."""
        found = {start}
        current = self.parent[start]
        while current is not None and current not in used and self.response[current] == key:
            found.add(current)  # reached when the chain enters a response in its middle
            current = self.parent[current]
        stack = list(found)
        while stack:
            for child in self.children[stack.pop()]:
                if child not in found and child not in used and self.response[child] == key:
                    found.add(child)
                    stack.append(child)
        return sorted(found, key=self.line.__getitem__)

    def live_sequence(self, leaf: str) -> tuple[list[str], list[str]]:
        """The rows of the conversation ending at ``leaf``, in conversation order, and the tool
        result rows left out because their call already had a result.

        The chain from the root, where each API response brings all of its rows and each tool
        result of it follows the response (module docstring).
        """
        chain = self.chain(leaf)
        on_chain = set(chain)
        sequence: list[str] = []
        used: set[str] = set()
        duplicates: list[str] = []
        answered: set[str] = set()
        call_order: dict[str, int] = {}
        pending: list[tuple[int, int, str]] = []
        current_response: str | None = None

        def flush() -> None:
            pending.sort()
            sequence.extend(uuid for _, _, uuid in pending)
            pending.clear()

        def take_result(uuid: str) -> None:
            used.add(uuid)
            ids = self.answers.get(uuid) or result_ids(self.row[uuid])
            if ids and all(i in answered for i in ids):
                duplicates.append(uuid)
                return
            answered.update(ids)
            rank = min((call_order.get(i, len(call_order)) for i in ids), default=len(call_order))
            pending.append((rank, self.line[uuid], uuid))

        for uuid in chain:
            if uuid in used:
                continue
            row = self.row[uuid]
            key = self.response[uuid]
            if key is not None:
                if key != current_response:
                    flush()
                    current_response = key
                    call_order = {}
                group = self._response_rows(uuid, key, used)
                for member in group:
                    used.add(member)
                    sequence.append(member)
                    for call in tool_use_ids(self.row[member]):
                        call_order.setdefault(call, len(call_order))
                for member in group:
                    for child in self.children[member]:
                        if child not in on_chain and child not in used and self.result_only[child]:
                            take_result(child)
                continue
            if self.result_only[uuid]:
                take_result(uuid)
                continue
            if row.get("type") in ("user", "assistant", "system"):
                flush()
                current_response = None
            used.add(uuid)
            sequence.append(uuid)
        flush()
        return sequence, duplicates
