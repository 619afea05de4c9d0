"""Credentials carried by a URL: ``user:password@host``, a key as the user name (Sentry DSNs, token
clone URLs) and Azure shared-access signatures (``?sig=``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.redaction.strict.common import HEX_RE, is_masked, is_placeholder, looks_random
from core.redaction.strict.registry import Candidate, TextView, detector

_URL_USERINFO_RE = re.compile(
    r"://[^\s:/?#@\"'\\<>]{0,200}:([^\s/@\"'\\<>]{1,300})@(?=[\w\[.\-])"
)
# A URL whose user part alone is a key (no password): a Sentry DSN "https://<public key>@o1.ingest.sentry.io/2",
# a token-as-username clone URL "https://<token>@github.com/...". Only machine-made user names count.
_URL_USER_KEY_RE = re.compile(r"://([A-Za-z0-9_\-]{16,200})@(?=[\w\[.\-])")
_SAS_SIG_RE = re.compile(r"[?&;]sig=([A-Za-z0-9%+/=]{16,})")


@detector("urls", "passwords and keys inside URLs (user:password@, Sentry DSNs, token clone URLs, ?sig=)")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    if "://" in text:
        for m in _URL_USERINFO_RE.finditer(text):
            value = m.group(1)
            if not is_masked(value) and not is_placeholder(value):
                yield m.start(1), m.end(1), "basic-auth"
        for m in _URL_USER_KEY_RE.finditer(text):
            value = m.group(1)
            if (HEX_RE.match(value) or looks_random(value)) and not is_placeholder(value):
                host = low[m.end(1) + 1 : m.end(1) + 200]
                yield m.start(1), m.end(1), "sentry-dsn" if ".sentry.io" in host.split("/", 1)[0] else "url-key"
    if "sig=" in text:
        for m in _SAS_SIG_RE.finditer(text):
            yield m.start(1), m.end(1), "sas-signature"
