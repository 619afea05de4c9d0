"""Text from a transcript made safe to print in a message: no terminal control, no secret, short.

A transcript is untrusted input. Its model name, session id, roles or first line end up in error
messages, warnings and the command line's output, and from there on a terminal, in a CSV report or in
an issue. Three things can go wrong there, and each has a function here:

* :func:`neutralise` writes terminal control characters (ESC, the C1 controls such as CSI, BEL,
  backspace, carriage return) and text-direction overrides as visible escapes (``\\x1b``), so a
  transcript cannot set a terminal's title, clear its screen or reorder what it shows;
* :func:`redact` masks what any profile's redaction or the strict layer would mask;
* :func:`quoted` is a short, redacted, neutralised excerpt of a value in quotes, the only way a
  message quotes file content.

Nothing here imports Streamlit, pandas or the formats (the redaction is imported on first use).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

__all__ = ["EXCERPT_CHARS", "bounded", "neutralise", "quoted", "redact", "safe_message"]

#: The most characters of file content a message quotes.
EXCERPT_CHARS = 16
#: The longest message built from file content (the rest is cut, with a note).
MESSAGE_CHARS = 2_000

# C0 controls but tab and newline, DEL, the C1 controls (0x9B is CSI on 8-bit terminals), and the
# bidirectional overrides and isolates that reorder what a terminal shows ("Trojan Source").
_CONTROLS_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS_RE = re.compile(r"[\t\n]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def neutralise(text: str, *, keep_lines: bool = False) -> str:
    """``text`` with every terminal control written as a visible escape (``\\x1b``).

    Tabs and newlines are kept with ``keep_lines``, escaped otherwise (one line of output stays one).
    """
    text = _CONTROLS_RE.sub(_escape, text)
    return text if keep_lines else _LINE_BREAKS_RE.sub(_escape, text)


def redact(text: str) -> str:
    """``text`` with everything masked that any profile's redaction or the strict layer would mask."""
    if not text:
        return text
    from core.redaction.hermes import REDACTIONS, redact_sensitive_text
    from core.redaction.strict import strict_redact

    for release in REDACTIONS:
        text = redact_sensitive_text(text, release=release)
    return strict_redact(text)


# A short plain name (a role, a tool call's id) that no redaction can mask: too short for a key
# without a prefix, no separator a label or a URL needs, and no vendor key's prefix.
_PLAIN_RE = re.compile(r"[A-Za-z0-9_.-]{1,32}")


@lru_cache(maxsize=1)
def _vendor_prefixes() -> re.Pattern[str]:
    from core.redaction.hermes import VENDOR_STARTS
    from core.redaction.strict import VENDOR_GATES

    gates = {*VENDOR_STARTS, *(gate for gate in VENDOR_GATES if gate != "A"), "AKIA", "ASIA", "ABIA", "ACCA", "A3T"}
    return re.compile("|".join(re.escape(gate) for gate in sorted(gates, key=len, reverse=True)))


def audited_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    """The pattern built at run time, for ``core.pattern_audit``."""
    yield f"{__name__}._vendor_prefixes()", _vendor_prefixes()


def quoted(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A value from a file as a message quotes it: its start only (one line, at most ``limit``
    characters), with secrets masked and controls escaped, in quotes."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit and _PLAIN_RE.fullmatch(text) and not _vendor_prefixes().search(text):
        return f"'{text}'"  # nothing to mask or escape (most roles and ids: no redaction run)
    first_line = text.lstrip().split("\n", 1)[0]
    # Redact a longer piece than is shown, so a secret that starts within the excerpt is seen whole.
    shown = redact(first_line[: limit * 16])
    cut = len(shown) > limit or len(first_line) < len(text.lstrip())
    shown = neutralise(shown[:limit])
    return "'" + shown.replace("'", "\\'") + ("…'" if cut else "'")


def bounded(text: str) -> str:
    """A message as one line of at most about ``MESSAGE_CHARS`` characters, controls escaped."""
    text = str(text)
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + f" … ({len(text) - MESSAGE_CHARS:,} more characters)"
    return neutralise(text)


def safe_message(text: str) -> str:
    """A message of unknown origin (an exception's text, which may hold anything it was given):
    secrets masked, controls escaped, one line, bounded."""
    return bounded(redact(str(text)[: MESSAGE_CHARS * 2]))
