"""Facts that are credentials: never scored as something to keep, never shown in clear text.

A summary that masks a secret has done right, so a secret must not count against it as a lost
fact, and a table of lost facts must not print it. A value is a credential when a redaction would
mask it where it stands: any profile's redaction (``core.redaction.hermes``, every release's passes)
or the strict layer (``core.redaction.strict``). The test
is made in context (an ``API_KEY=…`` line, a JSON ``"token"`` field, a URL's basic auth), not on the
value alone: a value found in a text but no longer in its redacted form overlapped a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from core.facts.text import text_pieces, tool_call_arguments
from core.message_view import content_text
from core.redaction.hermes import REDACTIONS, VENDOR_STARTS, redact_sensitive_text
from core.redaction.strict import VENDOR_GATES, strict_redact


def redact_all(text: str) -> str:
    """``text`` with everything masked that any profile's or the strict redaction would mask."""
    if not text:
        return text
    for release in REDACTIONS:
        text = redact_sensitive_text(text, release=release)
    return strict_redact(text)


def redacted_views(message: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(text, its redacted form) for each place of ``message`` facts are read from that redaction
    changes (unchanged places cannot hide a secret)."""
    places = list(text_pieces(content_text(message.get("content"))))
    places.extend(arguments for _name, arguments in tool_call_arguments(message) if arguments)
    changed: list[tuple[str, str]] = []
    for text in places:
        redacted = redact_all(text)
        if redacted != text:
            changed.append((text, redacted))
    # Arguments are also read as decoded JSON strings: their leaves are checked on their own.
    for _name, arguments in tool_call_arguments(message):
        for leaf in text_pieces(arguments) if arguments else ():
            if leaf != arguments:
                redacted = redact_all(leaf)
                if redacted != leaf:
                    changed.append((leaf, redacted))
    return changed


def is_credential(value: str, views: Iterable[tuple[str, str]]) -> bool:
    """Whether ``value`` overlaps a secret in one of the ``views`` (it is in the text and no longer
    in the redacted text)."""
    return any(value in text and value not in redacted for text, redacted in views)


# Every text a redaction masks something in names it or shows its shape: a cheap test first. The
# vendor prefixes come from the redaction layers themselves (each a literal its pattern starts with);
# the rest are the labels, URL forms, phone numbers and mentions the other passes look for.
_GENERIC_GATES = {"A": r"A(?:KIA|SIA|BIA|CCA|3T)", "gl": r"gl[a-z]{2,5}-", "gh": r"gh[pousr]_", "SK": r"SK[0-9a-f]{8}",
                  "sq0": r"sq0(?:csp|atp)-", "shp": r"shp(?:at|ss|ca|pa)_"}
_VENDOR_HINTS = sorted({*VENDOR_STARTS, *(gate for gate in VENDOR_GATES if gate not in _GENERIC_GATES)}, key=len,
                       reverse=True)
CREDENTIAL_HINT_RE = re.compile(
    r"secret|passw|passphrase|\bpwd?\b|token\\*\"?\s*[:=]|_token|credential|auth\w*\s*[:=]|authorization|bearer|cookie|"
    r"session_?id|private[_ ]?key|key\\*\"?\s*[:=]|://[^\s/@]+@|://[^\s/@]+:[^/@\n]*@|-----BEGIN|webhook|"
    r"\+[1-9]\d{6}|<@!?\d|curl\b[^\n]*\s-u\s|"
    + "|".join([*_GENERIC_GATES.values(), *(re.escape(literal) for literal in _VENDOR_HINTS)]),
    re.IGNORECASE,
)


# Lower-case words of which every CREDENTIAL_HINT_RE match holds one (plain substring tests first).
_HINT_WORDS = ("secret", "pass", "pw", "token", "credential", "auth", "bearer", "cookie", "session", "private", "key",
               "://", "-----begin", "webhook", "+", "<@", "curl", "akia", "asia", "abia", "acca", "a3t", "gl", "gh", "sk",
               "sq0", "shp",
               *(literal.lower() for literal in _VENDOR_HINTS))
_HINT_WORDS_RE = re.compile("|".join(re.escape(word) for word in sorted(set(_HINT_WORDS), key=len, reverse=True)))


def might_hold_credentials(texts: Iterable[str]) -> bool:
    """False when no redaction could mask anything in ``texts`` (none has a hint of a secret)."""
    for text in texts:
        if text and _HINT_WORDS_RE.search(text.lower()) and CREDENTIAL_HINT_RE.search(text):
            return True
    return False


def without_credentials(found: list[tuple[str, str]], message: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``found`` (the (kind, value) facts of ``message``) without the values that are credentials."""
    if not found:
        return found
    views = redacted_views(message)
    if not views:
        return found
    return [(kind, value) for kind, value in found if not is_credential(value, views)]


def without_credentials_by_line(found: list[tuple[str, str]], texts: Iterable[str]) -> list[tuple[str, str]]:
    """:func:`without_credentials` for a reader that must stay fast: only the lines of ``texts`` that
    hint at a secret are redacted and looked in (a private key, which spans lines, makes the whole
    text count)."""
    views: list[tuple[str, str]] = []
    for text in texts:
        if not text or not CREDENTIAL_HINT_RE.search(text):
            continue
        if "BEGIN" in text:
            redacted = redact_all(text)
            if redacted != text:
                views.append((text, redacted))
            continue
        for line in text.split("\n"):
            if CREDENTIAL_HINT_RE.search(line):
                redacted = redact_all(line)
                if redacted != line:
                    views.append((line, redacted))
    if not views:
        return found
    return [(kind, value) for kind, value in found if not is_credential(value, views)]
