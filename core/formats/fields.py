"""Checking the fields a reader interprets, where it reads them.

A field the conversation is made of (a message's text, a tool call's name, id and arguments, a
list of parts, a tool's output) must have the type the tool writes: anything else is a
:class:`FieldProblem` naming the field, and ``load`` refuses the file with it. A guess (``"None"``
for a missing name, an empty string for a number) would hand the compressor a conversation that
never happened.

Optional metadata of the wrong type (token counts, model names, titles, timestamps, reasoning
summaries) should not cost the user the whole file: :class:`SetAside` leaves the value out and
says so in one warning per field, listing the places, so nothing is dropped without a word.

JSON ``null`` stands for a field that is absent, as the tools write it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.formats.messages import FieldProblem, kind_of

#: How many places a set-aside warning lists (the count always covers all of them).
LISTED_PLACES = 8


def is_number(value: Any) -> bool:
    """A JSON number (``true`` is a bool to JSON, whatever Python thinks)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_text(value: Any) -> bool:
    return isinstance(value, str)


def is_object(value: Any) -> bool:
    return isinstance(value, dict)


def is_list(value: Any) -> bool:
    return isinstance(value, list)


def is_flag(value: Any) -> bool:
    return isinstance(value, bool)


def is_time(value: Any) -> bool:
    """A timestamp as the tools write them: ISO text or a number of (milli)seconds."""
    return isinstance(value, str) or is_number(value)


def need_text(value: Any, where: str, what: str) -> str:
    """A string the conversation needs; ``what`` says what it is ("the tool's name")."""
    if not isinstance(value, str):
        raise FieldProblem(where, f"expected {what} as a string, got {kind_of(value)}")
    return value


def text_or_none(value: Any, where: str, what: str) -> str | None:
    """A string that may be absent."""
    if value is None or isinstance(value, str):
        return value
    raise FieldProblem(where, f"expected {what} as a string, got {kind_of(value)}")


def object_or_none(value: Any, where: str, what: str) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    raise FieldProblem(where, f"expected {what} (an object), got {kind_of(value)}")


def list_or_empty(value: Any, where: str, what: str) -> list[Any]:
    """A list that may be absent (then empty)."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    raise FieldProblem(where, f"expected {what} (a list), got {kind_of(value)}")


def flag_or_none(value: Any, where: str, what: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise FieldProblem(where, f"expected {what} (true or false), got {kind_of(value)}")


def call_id_or_none(value: Any, where: str) -> str | None:
    """A tool call's id; None where the source left it out (null or ""), and the reader makes one."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    raise FieldProblem(where, f"expected the tool call's id as a string, got {kind_of(value)}")


def arguments_or_empty(value: Any, where: str) -> Any:
    """Tool-call arguments: an object, or the JSON text of one; absent (null or "") is no arguments."""
    if value is None or value == "":
        return {}
    if isinstance(value, (dict, str)):
        return value
    raise FieldProblem(where, f"expected the tool's arguments as an object, got {kind_of(value)}")


@dataclass
class _Group:
    count: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    places: list[str] = field(default_factory=list)


class SetAside:
    """Optional values of the wrong type, left out and reported (module docstring).

    ``keep`` returns the value when it is absent or of the expected kind, else notes it and
    returns None; ``warnings`` gives one line per field, expectation and consequence.
    """

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str], _Group] = {}

    def __bool__(self) -> bool:
        return bool(self.groups)

    def note(self, value: Any, where: str, name: str, expected: str, effect: str) -> None:
        group = self.groups.setdefault((name, expected, effect), _Group())
        group.count += 1
        group.kinds[kind_of(value)] += 1
        if len(group.places) < LISTED_PLACES:
            group.places.append(where)

    def keep(self, value: Any, ok: Callable[[Any], bool], where: str, name: str, expected: str, effect: str) -> Any:
        if value is None or ok(value):
            return value
        self.note(value, where, name, expected, effect)
        return None

    def counts(self, raw: dict[str, Any], names: dict[str, str], where: str, *, whole: bool = True) -> dict[str, Any]:
        """The token counts of ``raw`` under the keys ``names`` maps them to; one of the wrong type is
        left out. ``whole=False`` also takes fractions (a tool that averages), rounded down."""
        found: dict[str, Any] = {}
        expected = "a whole number of tokens" if whole else "a number of tokens"
        for key, name in names.items():
            value = raw.get(key)
            if value is None:
                continue
            if is_count(value) or (not whole and is_number(value)):
                found[name] = int(value)
            else:
                self.note(value, f"{where}.{key}", key, expected, "left out of the usage")
        return found

    def warnings(self) -> list[str]:
        lines = []
        for (name, expected, effect), group in self.groups.items():
            places = ", ".join(group.places)
            if group.count > len(group.places):
                places += f" and {group.count - len(group.places)} more"
            kinds = ", ".join(group.kinds)
            lines.append(f"set aside {group.count} '{name}' value(s) of the wrong type ({places}): "
                         f"expected {expected}, got {kinds}; {effect}")
        return lines
