"""``len(repr(value))`` of plain JSON-like data without building the whole repr.

The rough token estimates are ``len(str(message))``-based, and Hermes v0.18.0 weighs each tool call
by ``len(str(call))``: both measure the same long strings again and again, so long strings' repr
lengths are remembered (strings are immutable) and containers are summed by Python's repr rules.
"""

from __future__ import annotations

from typing import Any

from core.remembered import in_scope, recall

# ``len(repr(s))`` of long strings, remembered per string: strings are immutable, and the same
# content objects are estimated again and again (original list, turns, output, every re-analysis).
# Within an open scope (core.remembered: the dashboard's transcript) the scope keeps them, freed with
# it; outside one (the library, the command line, the Hermes plugin) this process-wide cache does.
_REPR_LEN_CACHE: dict[str, int] = {}
_REPR_CACHE_MIN_CHARS = 256
_REPR_CACHE_MAX_CHARS = 64_000_000
_repr_cache_chars = 0

# Printable ASCII except the two quotes and the backslash: the characters ``repr`` writes as
# themselves without affecting the choice of quotes.
_REPR_PLAIN_BYTES = bytes(c for c in range(0x20, 0x7F) if c not in b"'\"\\")


def _ascii_repr_len(value: str) -> int:
    r"""``len(repr(value))`` of an ASCII string, counted from its few special characters.

    Python's rules: the string is wrapped in two quotes; ``\\``, ``\n``, ``\r`` and ``\t`` take two
    characters, other control characters and DEL four (``\xhh``); single quotes are used unless
    the text has ``'`` and no ``"``, and only when it has both is each ``'`` escaped. Dropping
    the plain characters leaves a short byte string to count them in, which is several times
    faster than building the repr.
    """
    special = value.encode("ascii").translate(None, _REPR_PLAIN_BYTES)
    length = len(value) + 2
    if not special:
        return length
    squote = special.count(39)  # '
    dquote = special.count(34)  # "
    two = special.count(92) + special.count(10) + special.count(13) + special.count(9)  # \ \n \r \t
    length += two + 3 * (len(special) - squote - dquote - two)
    if squote and dquote:
        length += squote
    return length


def _measured_repr_len(value: str) -> int:
    return _ascii_repr_len(value) if value.isascii() else len(repr(value))


def _str_repr_len(value: str) -> int:
    global _repr_cache_chars
    if len(value) < _REPR_CACHE_MIN_CHARS:
        return len(repr(value))
    if in_scope():
        return recall(_str_repr_len, value, _measured_repr_len)
    cached = _REPR_LEN_CACHE.get(value)
    if cached is None:
        cached = _measured_repr_len(value)
        if _repr_cache_chars + len(value) > _REPR_CACHE_MAX_CHARS:
            _REPR_LEN_CACHE.clear()
            _repr_cache_chars = 0
        _REPR_LEN_CACHE[value] = cached
        _repr_cache_chars += len(value)
    return cached


def repr_len(value: Any, _depth: int = 0) -> int:
    """``len(repr(value))`` for plain JSON-like data, without building the whole repr.

    Exactly Python's container repr rules (``{k: v, ...}``, ``[a, b]``, ``(a,)``); any other
    type, or a subclass with its own repr, falls back to ``len(repr(value))``.
    """
    kind = type(value)
    if kind is str:
        return _str_repr_len(value)
    if _depth > 500 or kind not in (dict, list, tuple):
        return len(repr(value))
    if kind is list and len(value) < 8 and _depth > 0:
        # Small nested containers: one C-level repr beats walking them in Python.
        return len(repr(value))
    if kind is dict:
        if not value:
            return 2
        return 2 * len(value) + sum(repr_len(k, _depth + 1) + 2 + repr_len(v, _depth + 1) for k, v in value.items())
    if kind is list:
        if not value:
            return 2
        return 2 * len(value) + sum(repr_len(v, _depth + 1) for v in value)
    if kind is tuple:
        if len(value) == 1:
            return 3 + repr_len(value[0], _depth + 1)
        if not value:
            return 2
        return 2 * len(value) + sum(repr_len(v, _depth + 1) for v in value)
    if value is None:
        return 4
    return len(repr(value))


# Values whose repr cannot contain another object's (no recursion guard is involved).
_LEAVES = frozenset({str, int, float, bool, type(None)})
# ``len(repr(key))`` of the few dict keys tool calls use ("id", "type", "function", ...).
_KEY_REPR_LEN: dict[str, int] = {}


def _key_repr_len(key: Any) -> int | None:
    if type(key) is str:
        known = _KEY_REPR_LEN.get(key)
        if known is None:
            known = len(repr(key))
            if len(_KEY_REPR_LEN) < 1_000:
                _KEY_REPR_LEN[key] = known
        return known
    return len(repr(key)) if type(key) in _LEAVES else None


def _calls_repr_len(calls: list[Any]) -> int | None:
    """``len(repr(calls))`` for a list of dicts whose values are leaves or dicts of leaves; else None.

    Python's rules: ``[a, b]`` and ``{k: v, ...}``, so a list of n items adds 2n characters to
    its items' reprs and a dict of n items 4n to its keys' and values' (2 for an empty one).
    """
    leaves = _LEAVES
    total = 2 * len(calls) if calls else 2
    for call in calls:
        if type(call) is not dict:
            return None
        total += 4 * len(call) if call else 2
        for key, value in call.items():
            key_len = _key_repr_len(key)
            if key_len is None:
                return None
            total += key_len
            kind = type(value)
            if kind is str:
                total += len(repr(value)) if len(value) < _REPR_CACHE_MIN_CHARS else _str_repr_len(value)
            elif kind is dict:
                total += 4 * len(value) if value else 2
                for inner_key, inner in value.items():
                    key_len = _key_repr_len(inner_key)
                    if key_len is None:
                        return None
                    total += key_len
                    if type(inner) is str:
                        total += len(repr(inner)) if len(inner) < _REPR_CACHE_MIN_CHARS else _str_repr_len(inner)
                    elif type(inner) in leaves:
                        total += len(repr(inner))
                    else:
                        return None
            elif kind in leaves:
                total += len(repr(value))
            else:
                return None
    return total




def clear_cache() -> None:
    """Forget the remembered string lengths (benchmarks measure cold runs with it)."""
    global _repr_cache_chars
    _REPR_LEN_CACHE.clear()
    _repr_cache_chars = 0
