"""The shared vocabulary of the extractive summary: sections, candidate lines, calls, actions, facts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.profiles import TEMPLATE_HEADINGS

# The 13 template sections by position. Releases name some of them differently (v0.17.0 made four
# "historical"), so lines are filed under these keys and rendered under the request's headings.
SECTION_KEYS: tuple[str, ...] = (
    "task",
    "goal",
    "constraints",
    "actions",
    "state",
    "in_progress",
    "blocked",
    "decisions",
    "resolved",
    "pending",
    "files",
    "remaining",
    "context",
)
DEFAULT_HEADINGS: tuple[str, ...] = TEMPLATE_HEADINGS
EMPTY_SECTION_TEXT = "None."
NO_RESULT = "no result yet"

# Every heading name a summary of any release (or the v0.16.0 fallback) uses, by section key.
HEADING_KEYS: dict[str, str] = {
    "Active Task": "task",
    "Historical Task Snapshot": "task",
    "Goal": "goal",
    "Constraints & Preferences": "constraints",
    "Completed Actions": "actions",
    "Active State": "state",
    "In Progress": "in_progress",
    "Historical In-Progress State": "in_progress",
    "Blocked": "blocked",
    "Key Decisions": "decisions",
    "Resolved Questions": "resolved",
    "Pending User Asks": "pending",
    "Historical Pending User Asks": "pending",
    "Relevant Files": "files",
    "Remaining Work": "remaining",
    "Historical Remaining Work": "remaining",
    "Last Dropped Turns": "context",
    "Critical Context": "context",
}


@dataclass
class Item:
    """One candidate line of the summary."""

    section: str  # a SECTION_KEYS key
    text: str
    priority: float
    order: float
    group: str | None = None  # values of one group render on one line: "- {group}: a, b, c"
    mandatory: bool = False
    # A compact restatement of a value another line already quotes: rendered only when the
    # budget dropped every line that quotes it.
    alternative: bool = False
    focused: bool = False  # about the request's focus topic
    essential: bool = False  # kept first under a tight budget, whatever its section
    sources: tuple[int, ...] = ()  # indices of the turns the line was read from
    coverage: frozenset[int] | None = None  # the facts it quotes, once known (see coverage.py)


@dataclass(frozen=True)
class Fact:
    """An exact value of the turns and what keeping it is worth."""

    kind: str
    value: str
    weight: float  # by kind and recency: what a tight budget should keep first
    indices: tuple[int, ...]  # every turn it was read from


@dataclass
class Call:
    call_id: str
    name: str
    arguments: Any  # parsed JSON object, or the raw string
    index: int  # message index of the assistant turn
    result: str | None = None
    result_index: int | None = None
    action: Action | None = None  # classified as soon as its result is read
    command: str | None = None  # the shell command it ran, read once from the arguments


@dataclass
class Action:
    """One tool call as a Completed Actions line: ``VERB target — outcome [tool: name]``."""

    index: int
    verb: str
    target: str
    outcome: str
    tool: str | None
    succeeded: bool | None  # None when unknown
    key: str  # what a later success of the same thing resolves
    is_test: bool = False
    errors: Sequence[str] = ()  # read-only; an empty tuple rather than one list per call of a long session
    result_index: int | None = None
    paths: tuple[str, ...] = ()  # files the call read or changed

    @property
    def sources(self) -> tuple[int, ...]:
        return (self.index,) if self.result_index is None else (self.index, self.result_index)


@dataclass
class Reading:
    """What the turns say, before ranking."""

    n_turns: int
    user_asks: list[tuple[int, str]] = field(default_factory=list)  # the user's own words
    assistant_texts: list[tuple[int, str]] = field(default_factory=list)
    # Indices of assistant texts sent without tool calls: replies to the user, not preambles.
    reply_indices: set[int] = field(default_factory=set)
    actions: list[Action] = field(default_factory=list)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    workdir: tuple[int, str] | None = None
    branch: tuple[int, str] | None = None
    background: list[tuple[int, str]] = field(default_factory=list)
    embedded_summaries: list[str] = field(default_factory=list)
    ends_mid_work: bool = False
    # For each user ask: the agent's replies (index, text) until the next ask, and whether one follows.
    replies: dict[int, tuple[list[tuple[int, str]], bool]] = field(default_factory=dict)
    # The (kind, value) facts of each turn, in order (core.facts.message_facts).
    turn_facts: list[Sequence[tuple[str, str]]] = field(default_factory=list)
    # Tool-result index -> its text, for the results that are outputs (not Phase-1 placeholders).
    outputs: dict[int, str] = field(default_factory=dict)
    # Turn index -> whether its text might hold a credential, where the reader asked already.
    secret_hints: dict[int, bool] = field(default_factory=dict)
    # A text-acting harness's last observation (index, text) when the turns end on one.
    last_observation: tuple[int, str] | None = None
