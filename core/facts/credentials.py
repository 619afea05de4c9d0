"""Facts that are credentials: never scored as something to keep, never shown in clear text.

A summary that masks a secret has done right, so a secret must not count against it as a lost
fact, and a table of lost facts must not print it. A value is a credential when a redaction would
mask it where it stands: the profiles' redaction (``core.redaction.hermes``, Discord mentions
included, the wider of the two profiles) or the strict layer (``core.redaction.strict``). The test
is made in context (an ``API_KEY=…`` line, a JSON ``"token"`` field, a URL's basic auth), not on the
value alone: a value found in a text but no longer in its redacted form overlapped a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from core.facts.text import text_pieces, tool_call_arguments
from core.message_view import content_text
from core.redaction.hermes import redact_sensitive_text
from core.redaction.strict import strict_redact


def redact_all(text: str) -> str:
    """``text`` with everything masked that the profiles' or the strict redaction would mask."""
    if not text:
        return text
    return strict_redact(redact_sensitive_text(text, discord_mentions=True))


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


# Every text a redaction masks something in names it or shows its shape: a cheap test first.
CREDENTIAL_HINT_RE = re.compile(
    r"\bkey\b|api_?key|_key\b|secret|token|passw|pwd|bearer|credential|private|cookie|auth|://[^\s/@]+@|BEGIN|"
    r"\bsk[-_]|gh[pousr]_|xox|AKIA|ntn_",
    re.IGNORECASE,
)


def might_hold_credentials(texts: Iterable[str]) -> bool:
    """False when no redaction could mask anything in ``texts`` (none has a hint of a secret)."""
    return any(text and CREDENTIAL_HINT_RE.search(text) for text in texts)


def without_credentials(found: list[tuple[str, str]], message: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``found`` (the (kind, value) facts of ``message``) without the values that are credentials."""
    if not found:
        return found
    views = redacted_views(message)
    if not views:
        return found
    return [(kind, value) for kind, value in found if not is_credential(value, views)]
