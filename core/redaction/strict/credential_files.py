"""Lines of credential files pasted or printed into a transcript.

* ``~/.pgpass``: ``host:port:database:user:password`` (``\\:`` and ``\\\\`` escaped);
* ``~/.netrc``: ``machine HOST login USER password PW`` (or ``default login ...``), on one or more lines;
* kubeconfig's ``client-key-data``, and any base64 whose decoded start is a private key's BEGIN line.

``.env`` lines, ``.my.cnf``'s ``password=``, ``.npmrc``'s ``_authToken=``, ``.pypirc`` and the AWS
credentials file are label/value lines: the label grammar reads them.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from core.redaction.strict import label_words as W
from core.redaction.strict.common import is_masked, is_placeholder, secretish
from core.redaction.strict.registry import Candidate, TextView, detector

_FIELD = r"(?:[^:\s\\\"']|\\:){1,100}"
_HOST = (r"(?P<host>localhost|\*|\[[0-9A-Fa-f:.]{2,45}\]|(?:\d{1,3}\.){3}\d{1,3}"
         r"|[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,10})")
# One .pgpass line: it starts a line (a real one, or "\n" escaped inside a JSON string, or a string
# of its own) and holds exactly five fields, the second a port.
_PGPASS_RE = re.compile(
    rf"(?:^|(?<=\\n)|(?<=[\"'])){_HOST}:(?:\d{{1,5}}|\*):{_FIELD}:{_FIELD}:"
    rf"(?P<v>(?:[^:\s\\\"']|\\:){{3,300}})(?=$|\\{{1,7}}[nr\"']|[\"'])",
    re.MULTILINE,
)
_BLANKS = r"(?:[ \t\r\n]|\\[nrt])++"
_NETRC_RE = re.compile(  # run on the lowered copy (the keywords are lowercase); the value is read from the text
    rf"(?<![\w-])(?:machine[ \t]++[^\s\\]{{1,253}}|default){_BLANKS}login{_BLANKS}[^\s\\]{{1,100}}"
    rf"{_BLANKS}password[ \t]++(?P<v>[^\s\\\"']{{1,300}})"
)
_KEY_DATA_RE = re.compile(r"client-key-data[\"']?[ \t]*+:[ \t]*+[\"']?(?P<v>[A-Za-z0-9+/=]{40,})")
# base64 of "-----BEGIN": a PEM block encoded once more (kubeconfig, Kubernetes secrets, CI variables).
_ENCODED_PEM_RE = re.compile(r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}")


def _acceptable(value: str, strict_shape: bool) -> bool:
    if len(value) < 3 or is_masked(value) or is_placeholder(value) or value.lower() in W.STOPWORDS:
        return False
    return secretish(value) or not strict_shape


def _encodes_private_key(run: str) -> bool:
    head = run[:96]
    head = head[: len(head) // 4 * 4]
    try:
        decoded = base64.b64decode(head, validate=True)
    except (binascii.Error, ValueError):
        return False
    return b"PRIVATE KEY" in decoded


@detector("credential_files", "lines of .pgpass, .netrc and kubeconfig files, base64-encoded private keys")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    if text.count(":") >= 4:
        for m in _PGPASS_RE.finditer(text):
            # A host without a dot ("db") is as likely a log prefix ("INFO:12:app:user:started"): then
            # only a value that does not read as a word is taken.
            host = m.group("host")
            plain_host = host not in ("localhost", "*") and "." not in host and ":" not in host
            if _acceptable(m.group("v"), strict_shape=plain_host):
                yield m.start("v"), m.end("v"), "password"
    if "login" in low and "password" in low:
        for m in _NETRC_RE.finditer(low):
            value = text[m.start("v"):m.end("v")]
            if _acceptable(value, strict_shape=False):
                yield m.start("v"), m.end("v"), "password"
    if "client-key-data" in low:
        for m in _KEY_DATA_RE.finditer(text):
            yield m.start("v"), m.end("v"), "private-key"
    if "LS0tLS1CRUdJTi" in text:
        for m in _ENCODED_PEM_RE.finditer(text):
            if _encodes_private_key(m.group(0)):
                yield m.start(), m.end(), "private-key"
