"""Every regular expression the product applies to text, and inputs built to make each one slow.

Python's ``re`` backtracks: a pattern such as ``[A-Z]{2,}[a-z]{2,}`` looks linear but, searched
over a run of 50,000 capitals, retries the whole run from every position (quadratic: 40 s on a
50 KB transcript), and a nested repetition can be worse on one line. The regular expression call
also holds the interpreter lock for its whole duration, so one such file stalls every other
thread of the process (every other dashboard session).

:func:`product_patterns` collects the compiled patterns of every ``core`` module (and the
dashboard's shared helpers) from their module globals, including those held in tuples and
dicts, the patterns a module hands over through an ``audited_patterns()`` function (those it
builds at run time or takes from a library), and the literal patterns written inline in calls
such as ``re.search(r"...", text)`` (read from the source). :func:`inline_calls` lists the calls
whose pattern is neither (computed inside a function): none may exist. ``core.redaction.hermes``
is left out: it reproduces the reference's own patterns, which must keep their exact output.

:func:`adversarial_inputs` derives, from a pattern's own syntax tree, the texts that make a
backtracking matcher work hardest: long runs of every character the pattern mentions (and one of
each class it uses), runs of every pair of them alternating, and its literal words repeated or
followed by a long run. :func:`worst_case` times ``finditer`` (a search from every position, the
strictest use) over each of them. Nothing here is used by the product at run time.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import pkgutil
import re
import time
from collections.abc import Iterator
from re import _parser as sre_parse  # the stdlib's own parser: the syntax tree of a pattern
from typing import Any

__all__ = ["EXCLUDED_MODULES", "adversarial_inputs", "inline_calls", "product_patterns", "worst_case"]

#: Modules whose patterns are not the product's to change (they reproduce the reference exactly).
EXCLUDED_MODULES: frozenset[str] = frozenset({"core.redaction.hermes", "core.pattern_audit"})
#: Modules outside ``core`` whose patterns read transcript text.
EXTRA_MODULES: tuple[str, ...] = ("dashboard.sidebar",)

# One representative character for each class a pattern can use.
_CATEGORY_CHARS = {
    sre_parse.CATEGORY_DIGIT: "7",
    sre_parse.CATEGORY_NOT_DIGIT: "x",
    sre_parse.CATEGORY_SPACE: " ",
    sre_parse.CATEGORY_NOT_SPACE: "x",
    sre_parse.CATEGORY_WORD: "x",
    sre_parse.CATEGORY_NOT_WORD: "-",
    sre_parse.CATEGORY_LINEBREAK: "\n",
    sre_parse.CATEGORY_NOT_LINEBREAK: "x",
}
# Characters every pattern is tried with: the usual separators of agent text.
_BASE_CHARS = "Aa0 \n\t-./\\\"':=_"
# Pairs are formed among this many of a pattern's characters (its own first, then the base ones).
_PAIR_CHARS = 18
_REPEATS = (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT)
# Runs of these lengths, each ended by a NUL, are tried with this many of a pattern's characters.
_RUN_LENGTHS = (39, 299, 999)
_RUN_CHARS = 12


def _iter_patterns(value: Any, path: str) -> Iterator[tuple[str, re.Pattern[str]]]:
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield path, value
    elif isinstance(value, tuple | list | frozenset | set):
        for index, item in enumerate(value):
            yield from _iter_patterns(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _iter_patterns(item, f"{path}[{key!r}]")


def product_modules() -> list[str]:
    """Every module of the ``core`` package, and the dashboard helpers that read transcript text."""
    import core

    names = [info.name for info in pkgutil.walk_packages(core.__path__, "core.")]
    return sorted(name for name in names if name not in EXCLUDED_MODULES) + list(EXTRA_MODULES)


_RE_FUNCTIONS = frozenset({"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"})


def _re_calls(module: Any) -> Iterator[tuple[int, ast.Call, bool]]:
    """``(line, call, inside a function)`` for every ``re.<function>(...)`` call of a module."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return
    tree = ast.parse(source)
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    inside = {id(call) for function in functions for call in ast.walk(function) if isinstance(call, ast.Call)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RE_FUNCTIONS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args):
            yield node.lineno, node, id(node) in inside


def _literal_flags(call: ast.Call) -> int:
    flags = 0
    for node in [*call.args[1:], *(keyword.value for keyword in call.keywords if keyword.arg == "flags")]:
        for name in ast.walk(node):
            if isinstance(name, ast.Attribute) and isinstance(name.value, ast.Name) and name.value.id == "re":
                flags |= int(getattr(re, name.attr, 0)) if name.attr.isupper() else 0
    return flags


def inline_calls() -> list[str]:
    """``module:line`` of every ``re`` call inside a function whose pattern is not a literal (it cannot
    be audited; build it at module level, or hand it over through ``audited_patterns()``)."""
    found = []
    for name in product_modules():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if callable(vars(module).get("audited_patterns")):
            continue  # the module hands over the patterns it builds at run time
        for line, call, in_function in _re_calls(module):
            first = call.args[0]
            literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
            if in_function and not literal:
                found.append(f"{name}:{line}")
    return found


def product_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """``(module.name, pattern)`` for every distinct pattern the product's modules apply to text."""
    found: dict[tuple[str, int], tuple[str, re.Pattern[str]]] = {}
    for name in product_modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional extra (Ray, the local model) that is not installed
            continue
        for attribute, value in vars(module).items():
            for path, pattern in _iter_patterns(value, f"{name}.{attribute}"):
                found.setdefault((pattern.pattern, pattern.flags), (path, pattern))
        hook = vars(module).get("audited_patterns")
        if callable(hook):
            for path, pattern in hook():
                found.setdefault((pattern.pattern, pattern.flags), (path, pattern))
        for line, call, _in_function in _re_calls(module):
            first = call.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                pattern = re.compile(first.value, _literal_flags(call))
                found.setdefault((pattern.pattern, pattern.flags), (f"{name}:{line}", pattern))
    return sorted(found.values(), key=lambda item: item[0])


def _characters(tree: Any, out: list[str]) -> list[str]:
    """The characters a syntax tree mentions, in order of appearance."""

    def add(char: str) -> None:
        if char not in out:
            out.append(char)

    for op, value in tree:
        if op is sre_parse.LITERAL or op is sre_parse.NOT_LITERAL:
            add(chr(value))
            if op is sre_parse.NOT_LITERAL:
                add("x")
        elif op is sre_parse.IN:
            for item_op, item in value:
                if item_op is sre_parse.LITERAL:
                    add(chr(item))
                elif item_op is sre_parse.RANGE:
                    add(chr(item[0]))
                    add(chr(item[1]))
                elif item_op is sre_parse.CATEGORY:
                    add(_CATEGORY_CHARS.get(item, "x"))
                elif item_op is sre_parse.NEGATE:
                    add("!")
        elif op is sre_parse.ANY:
            add("x")
        elif op in _REPEATS:
            _characters(value[2], out)
        elif op is sre_parse.SUBPATTERN:
            _characters(value[-1], out)
        elif op is sre_parse.BRANCH:
            for branch in value[1]:
                _characters(branch, out)
        elif op is sre_parse.ASSERT or op is sre_parse.ASSERT_NOT:
            _characters(value[1], out)
        elif op is sre_parse.ATOMIC_GROUP:
            _characters(value, out)
        elif op is sre_parse.GROUPREF_EXISTS:
            _characters(value[1], out)
            if value[2]:
                _characters(value[2], out)
    return out


def _literals(tree: Any) -> list[str]:
    """The literal words of a syntax tree (runs of two or more literal characters)."""
    words: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if len(current) >= 2 and "".join(current) not in words:
            words.append("".join(current))
        current.clear()

    def walk(nodes: Any) -> None:
        for op, value in nodes:
            if op is sre_parse.LITERAL:
                current.append(chr(value))
                continue
            flush()
            if op in _REPEATS:
                walk(value[2])
            elif op is sre_parse.SUBPATTERN:
                walk(value[-1])
            elif op is sre_parse.BRANCH:
                for branch in value[1]:
                    walk(branch)
                    flush()
        flush()

    walk(tree)
    return words


def adversarial_inputs(pattern: re.Pattern[str], size: int) -> Iterator[tuple[str, str]]:
    """``(label, text)`` pairs of about ``size`` characters each that make ``pattern`` work hardest."""
    tree = sre_parse.parse(pattern.pattern, pattern.flags)
    own = _characters(tree, [])
    if pattern.flags & re.IGNORECASE:
        own += [c.swapcase() for c in own if c.swapcase() != c and c.swapcase() not in own]
    chars = own + [c for c in _BASE_CHARS if c not in own]
    for char in chars:
        yield f"{char!r} * n", char * size
        # a run that fails at its very end (an anchored pattern scans it, then backtracks)
        yield f"{char!r} * n + '\\x00'", char * size + "\x00"
    for char in chars[:_RUN_CHARS]:
        # runs just short of a threshold ("{1000,}", "{40}"), each ended by a character nothing takes:
        # a pattern that starts at every position of a run rescans it from each, run after run
        for length in _RUN_LENGTHS:
            yield f"({char!r} * {length} + '\\x00') repeated", ((char * length + "\x00") * (size // (length + 1) + 1))[:size]
    for first, second in itertools.combinations(chars[:_PAIR_CHARS], 2):
        yield f"{first + second!r} * n", (first + second) * (size // 2)
    for word in _literals(tree):
        yield f"{word!r} repeated", (word * (size // len(word) + 1))[:size]
        for char in ("a", " ", "0", word[-1]):
            yield f"{word!r} + {char!r} * n", word + char * size


def time_finditer(pattern: re.Pattern[str], text: str) -> float:
    """Seconds to find every match of ``pattern`` in ``text`` (a search from every position)."""
    started = time.perf_counter()
    for _match in pattern.finditer(text):
        pass
    return time.perf_counter() - started


def worst_case(pattern: re.Pattern[str], size: int, *, give_up: float | None = None) -> tuple[float, str]:
    """The slowest of :func:`adversarial_inputs` at ``size`` characters: ``(seconds, label)``.

    With ``give_up``, the first input slower than that ends the search (the pattern fails anyway).
    """
    worst = (0.0, "")
    for label, text in adversarial_inputs(pattern, size):
        seconds = time_finditer(pattern, text)
        if seconds > worst[0]:
            worst = (seconds, label)
        if give_up is not None and seconds > give_up:
            break
    return worst
