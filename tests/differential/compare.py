"""Field-by-field comparison of two case results, and a short readable report of the first difference.

The order of the fields is the order a reader wants the cause in: an exception first, then the
returned messages, then the state, then each summary call's compared parts, then the probes.
"""

from __future__ import annotations

import json
from typing import Any

ROUND_FIELDS = ("error", "messages", "aborted", "compression_count", "previous_summary", "calls")
CALL_FIELDS = ("layout", "kind", "max_tokens", "model", "turns", "memory", "previous", "budget", "focus", "date")
TAIL_FIELDS = ("threshold", "probes", "input_mutated")
SHORT = 90


def _short(value: Any, around: int = 0) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    start = max(0, around - SHORT // 3)
    piece = text[start:start + SHORT]
    return ("…" if start else "") + repr(piece)[1:-1] + ("…" if start + SHORT < len(text) else "") + f" ({len(text)} chars)"


def _first_difference(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def _values(field: str, ours: Any, theirs: Any) -> str:
    if isinstance(ours, str) and isinstance(theirs, str):
        at = _first_difference(ours, theirs)
        return f"{field} differs at character {at}:\n  ours:   {_short(ours, at)}\n  hermes: {_short(theirs, at)}"
    return f"{field} differs:\n  ours:   {_short(ours)}\n  hermes: {_short(theirs)}"


def _message_difference(ours: list[Any], theirs: list[Any]) -> str | None:
    for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a == b and (not isinstance(a, dict) or list(a) == list(b)):
            continue
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return _values(f"message {index}", a, b)
        for key in dict.fromkeys([*b, *a]):
            if key not in a or key not in b:
                return f"message {index} key {key!r}: ours {'has' if key in a else 'lacks'} it, hermes {'has' if key in b else 'lacks'} it" + (
                    f" ({_short(a.get(key, b.get(key)))})")
            if a[key] != b[key]:
                return _values(f"message {index} key {key!r}", a[key], b[key])
        return f"message {index}: same keys in another order: ours {list(a)}, hermes {list(b)}"
    if len(ours) != len(theirs):
        return f"messages: ours has {len(ours)}, hermes {len(theirs)} (the first {min(len(ours), len(theirs))} agree)"
    return None


def _round_difference(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    if ours.get("op") != theirs.get("op"):
        return f"operation: ours {ours.get('op')}, hermes {theirs.get('op')}"
    for field in ROUND_FIELDS + TAIL_FIELDS:
        a, b = ours.get(field), theirs.get(field)
        if field == "messages" and isinstance(a, list) and isinstance(b, list):
            found = _message_difference(a, b)
            if found:
                return found
            continue
        if field == "calls" and isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return f"summary calls: ours made {len(a)}, hermes {len(b)}"
            for index, (call_a, call_b) in enumerate(zip(a, b, strict=True)):
                for name in CALL_FIELDS:
                    if call_a.get(name) != call_b.get(name):
                        return _values(f"summary call {index} {name}", call_a.get(name), call_b.get(name))
            continue
        if a != b:
            return _values(field, a, b)
    return None


def difference(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """None when the results agree; else where they first differ, in a few readable lines."""
    if "harness_error" in theirs:
        return "the Hermes runner failed on this case:\n" + theirs["harness_error"]
    if ours.get("error") != theirs.get("error"):
        return _values("constructor", ours.get("error"), theirs.get("error"))
    for number, (a, b) in enumerate(zip(ours.get("rounds", []), theirs.get("rounds", []), strict=False)):
        found = _round_difference(a, b)
        if found:
            return f"operation {number} ({a.get('op')}): {found}"
    if len(ours.get("rounds", [])) != len(theirs.get("rounds", [])):
        return "the number of operations differs"
    return None


def report(release: str, case: dict[str, Any], found: str) -> str:
    return f"v{release} seed {case.get('seed')}: {found}"
