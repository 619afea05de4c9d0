"""Private keys (PEM, OpenSSH, PGP), whole, including keys whose END line is missing (cut output)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from core.redaction.strict.registry import Candidate, TextView, detector

_PRIVATE_KEY_BEGIN_RE = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_KEY_END_RE = re.compile(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# How far after its BEGIN line a key's END line may be.
_MAX_KEY_CHARS = 40_000
# Body of a key whose END line is missing (truncated output): lines of base64, with real or escaped
# newlines, optional "Header: value" lines.
# Escaped newlines may carry any number of backslashes (JSON escaped inside JSON, then repr'd), and
# the last line may be cut short (truncated output, or a 200-char argument leaf cut by Phase 1), so
# newline-separated runs of any length count; space-separated runs only when long, to spare prose.
# It is only matched right after a BEGIN line's closing dashes: the lookbehind makes every other
# position fail at once, so a search over a long run of blanks is not a scan from each position.
_PRIVATE_KEY_BODY_RE = re.compile(
    r"(?<=-----)(?:(?:\s|\\+[nr])+[A-Za-z0-9+/=]{16,}"
    r"|(?:[ \t]*(?:\r?\n|\\+[nr]))+[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z\-]{2,30}: [^\r\n\\]{1,80}))*+"
)


@detector("private_keys", "private keys, whole (PEM, OpenSSH, PGP), also when the END line is cut off")
def scan(view: TextView) -> Iterator[Candidate]:
    text = view.text
    if "PRIVATE KEY" not in text:
        return
    # Every END line once (searching ahead of each BEGIN line would read the same text again for
    # every BEGIN line of a long run of them).
    ends = [m.start() for m in _PRIVATE_KEY_END_RE.finditer(text)] if "-----END" in text else []
    pos = 0
    while True:
        m = _PRIVATE_KEY_BEGIN_RE.search(text, pos)
        if not m:
            return
        index = bisect.bisect_left(ends, m.end())
        end_marker = None
        if index < len(ends) and ends[index] < m.end() + _MAX_KEY_CHARS:
            end_marker = _PRIVATE_KEY_END_RE.match(text, ends[index])
        if end_marker is not None and end_marker.end() <= m.end() + _MAX_KEY_CHARS:
            end = end_marker.end()
        else:
            end = _PRIVATE_KEY_BODY_RE.match(text, m.end()).end()
        yield m.start(), end, "private-key"
        pos = end
