"""Fact extraction skips a pattern only when a literal every match of it needs is absent.

The plain extraction below runs every pattern on every piece (the code before the substring
tests); on text built from the literals, their near misses and ordinary prose it must find the
same facts, in the same order.
"""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis import facts as F


def _plain_error_lines(text: str) -> Iterator[str]:
    if not F._ERROR_LINE_RE.search(text):
        return
    for line in text.splitlines():
        if F._ERROR_LINE_RE.search(line) and not F._CODE_LINE_RE.match(line):
            value = F.cap_value(line)
            if value:
                yield value


def _plain_identifiers(text: str) -> Iterator[str]:
    for match in F._DEFINITION_RE.finditer(text):
        name = next(group for group in match.groups() if group)
        if name not in F._NOT_IDENTIFIERS:
            yield name
    for match in F._CALL_RE.finditer(text):
        name = match.group(1)
        for prefix in F._RECEIVER_PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix):]
                break
        last = name.rsplit(".", 1)[-1]
        if len(last) >= 3 and last not in F._NOT_IDENTIFIERS:
            yield name
    for match in F._CAMEL_RE.finditer(text):
        word = match.group(0)
        if F._CAMEL_SHAPE_RE.search(word) and not F._DIGIT_RUN_RE.search(word):
            yield word


def _plain_facts_in_piece(piece: str, role: str) -> Iterator[tuple[str, str]]:
    urls = [match.group(0).rstrip(".,;:!?") for match in F._URL_RE.finditer(piece)]
    rest = F._URL_RE.sub(" ", piece) if urls else piece
    for match in F._PATH_RE.finditer(rest):
        value = match.group(0).rstrip(".,;:")
        if len(value) > 1:
            yield "path", value
    for value in F._backticked_commands(rest):
        yield "command", F.cap_value(value.splitlines()[0])
    if role in ("tool", "user"):
        for value in _plain_error_lines(rest):
            yield "error", value
    for value in urls:
        yield "url", value
    for match in F._QUANTITY_RE.finditer(rest):
        if F._is_progress_marker(rest, match):
            continue
        yield "quantity", match.group(0)
    for value in _plain_identifiers(rest):
        yield "identifier", value
    for match in F._ISSUE_RE.finditer(rest):
        yield "issue", match.group(0)


_PIECES = [
    # paths and their anchors
    "/", ".", "\\", "C:\\x\\y.py", "src/app.py", "./run.sh", "~/notes", "Dockerfile", "Makefile", "dir/", "::test_x[1]",
    # commands, URLs, issues
    "`", "`pytest -q`", "$ ", "http", "https://example.com/a.", "http:/", "#", "#12", "&#1", "(#7)",
    # errors and their near misses
    "Traceback (most recent call last)", "Traceback", "Error", "Error:", "ValueError: bad", "Exception", "error", "error:",
    "error[E0432]:", "FAIL", "FAILED", "ERROR", "FATAL", "fatal", "panic", "Panic", "panicked at", "ERR!", "failed to",
    "failed", "Segmentation fault", "command not found", "No such file or directory", "Permission denied", "raise ",
    "except ", "  45| ",
    # quantities, identifiers
    "3", "12", "1.5", "٣", "%", " ms", "MB", " passed", "port 8080", "localhost:8000", "10.0.0.1:22", "[ 42%]",
    "def foo(", "async def bar(", "class Baz:", "function qux(", "fn run<", "struct Point", "enum Kind", "trait T",
    "interface I", "self.call(", "obj.method(", "print(", "CamelCase", "HTTPServer", "ABC123456",
    # separators and prose
    " ", "\n", "\t", "\u00a0", ",", ";", ":", "(", ")", "'", '"', "word", "the value", "é",
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_texts, st.sampled_from(["tool", "user", "assistant", "system"]))
def test_facts_of_a_piece_equal_running_every_pattern(text, role):
    assert list(F._facts_in_piece(text, role)) == list(_plain_facts_in_piece(text, role))


@settings(max_examples=1500, deadline=None)
@given(_texts)
def test_error_lines_equal_checking_every_line(text):
    assert list(F.error_lines(text)) == list(_plain_error_lines(text))
