"""``Password=...;``, ``AccountKey=...;``, ``SharedAccessKey=...`` in connection strings.

Only lines shaped like a connection string are read (a ``;`` and a context key such as ``Server=``,
``AccountName=`` or ``Data Source=``), so prose with an ``=`` is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.redaction.strict.common import is_masked, is_placeholder
from core.redaction.strict.registry import Candidate, TextView, detector

_CONN_KEY_RE = re.compile(  # run on the lowered copy, line by line
    r"(?<![a-z])(?:accountkey|sharedaccesskey|sharedaccesssignature|password|pwd|clientsecret|"
    r"sharedsecret|accesskey|secretkey|apikey|token)[ \t]*=[ \t]*"
)
_CONN_CONTEXT_RE = re.compile(  # run on the lowered copy
    r"(?:defaultendpointsprotocol|accountname|endpoint|server|data source|host|initial catalog|database|"
    r"user ?id|uid|username|sharedaccesskeyname|provider|driver)[ \t]*="
)
_CONN_VALUE_RE = re.compile(r"\{[^}\r\n]{1,300}\}|[^;\r\n\"'\\]{1,300}")


@detector("connection", "Password=, AccountKey=, SharedAccessKey= and the like in connection strings")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    if "=" not in text or ";" not in text:
        return
    line_start = 0
    for line in low.split("\n"):
        line_end = line_start + len(line)
        if ";" in line and "=" in line and _CONN_CONTEXT_RE.search(line):
            for m in _CONN_KEY_RE.finditer(low, line_start, line_end):
                v = _CONN_VALUE_RE.match(text, m.end(), line_end)
                if not v:
                    continue
                value = v.group(0).rstrip()
                if value and not is_masked(value) and not is_placeholder(value.strip("{}")):
                    yield m.end(), m.end() + len(value), "connection-string-key"
        line_start = line_end + 1
