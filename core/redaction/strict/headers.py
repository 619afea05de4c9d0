"""``Authorization`` headers in any case and scheme, and cookies (``Cookie:``, ``--cookie``, ``curl -b``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.redaction.strict.common import after_space, is_identifier, is_masked, is_placeholder
from core.redaction.strict.registry import Candidate, TextView, detector

# Runs of blanks are taken whole (possessive): two optional runs side by side would otherwise be
# split every possible way before a long run of blanks fails.
_AUTH_HEADER_RE = re.compile(  # run on the lowered copy; the value's case is read from the original
    r"authori[sz]ation(?![a-z0-9_])(?:\\{0,7}[\"'])?[ \t]*+[:=][ \t]*+(?:\\{0,7}[\"'])?[ \t]*+"
    r"(?:(?:basic|bearer|token|negotiate|ntlm|apikey|api-key|sso-key|ssws|key|hmac|jwt|otp)[ \t]++)?"
    r"([^\s\"'`\\,;)}\]]{8,})"
)
_COOKIE_HEADER_RE = re.compile(  # run on the lowered copy; "--cookie v" and "cookie: v" both start here
    r"cookie(?![a-z0-9_])(?:(?:\\{0,7}[\"'])?[ \t]*+[:=]|[ \t]++)[ \t]*+(?:\\{0,7}[\"'])?[ \t]*+"
)
_CURL_COOKIE_FLAG_RE = re.compile(r"-b[ \t]++(?:\\{0,7}[\"'])?")
_COOKIE_PAIR_RE = re.compile(r"([!#$%&*+.^_|~0-9A-Za-z\-]{1,80})=([^;\s\"'\\,]{1,600})(?:;[ \t]*+)?")
_COOKIE_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "secure", "httponly",
                                "priority", "partitioned", "version", "comment"})


@detector("headers", "Authorization headers (any scheme) and cookies")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    if "authori" in low:
        for m in _AUTH_HEADER_RE.finditer(low):
            value = text[m.start(1):m.end(1)]
            if not is_masked(value) and not is_placeholder(value) and not is_identifier(value):
                yield m.start(1), m.end(1), "authorization"
    starts: list[int] = []
    if "cookie" in low:
        for m in _COOKIE_HEADER_RE.finditer(low):
            # the bare "cookie v" form only after "--cookie", the rest needs ":" or "="
            if ":" in m.group(0) or "=" in m.group(0) or (m.start() >= 2 and low.startswith("--", m.start() - 2)):
                starts.append(m.end())
    if "-b " in text:
        starts += [m.end() for m in _CURL_COOKIE_FLAG_RE.finditer(text) if after_space(text, m.start())]
    for pos in starts:
        for _ in range(40):  # a header carries a bounded number of pairs
            pair = _COOKIE_PAIR_RE.match(text, pos)
            if not pair:
                break
            name, value = pair.group(1), pair.group(2)
            if (name.lower() not in _COOKIE_ATTRIBUTES and len(value) >= 8 and not is_masked(value)
                    and not is_placeholder(value)):
                yield pair.start(2), pair.end(2), "cookie"
            pos = pair.end()
