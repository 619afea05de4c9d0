"""Keys without a prefix, recognised by their exact shape next to a cloud or secret word: AWS secret
access keys (40 base64 characters), Azure storage keys (88 ending in ``==``), and phone numbers.

Only the neighbourhood of a context word is scanned, which keeps long ordinary text fast.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

from core.redaction.strict.common import HEX_RE, entropy_plugins
from core.redaction.strict.registry import Candidate, TextView, detector

_AWS_CONTEXT_RE = re.compile(r"aws|secret|akia|asia|access.?key|credential|iam|boto")  # on the lowered copy
_AZURE_CONTEXT_RE = re.compile(r"azure|storage|account|blob|key|secret|credential")  # on the lowered copy
_AWS_SECRET_RE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=_\-])")
_AZURE_KEY_TAIL_RE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/]{86}\Z")
_PHONE_RE = re.compile(r"\+[1-9]\d{6,14}(?![A-Za-z0-9]|[.,]\d)")
_BASE64_CHARS = frozenset(string.ascii_letters + string.digits + "+/=_-")


def shape_hint(text: str) -> bool:
    """Whether ``text`` could hold a key :func:`scan` masks by its shape: a run of exactly 40 base64
    characters mixing cases with a digit, ``+`` or ``/`` (an AWS secret access key), or 86 before
    ``==`` (an Azure storage key). A cheap superset: neither the context word nor the entropy is
    checked (phone numbers are hinted elsewhere, ``core.facts.credentials``)."""
    # Both need a run of 40 base64 characters: one pass of str.translate finds most texts have none
    # (12 ms on a 2.5 MB log, against 50-100 ms for the pattern tried at every position).
    if _RUN not in text.translate(_RUNS):
        return False
    if any(_mixes_like_a_key(m.group(0)) for m in _AWS_SECRET_RE.finditer(text)):
        return True
    return "==" in text and _AZURE_KEY_HINT_RE.search(text) is not None


_RUNS = {code: ("a" if chr(code) in string.ascii_letters + string.digits + "+/" else " ") for code in range(128)}
_RUN = "a" * 40
_AZURE_KEY_HINT_RE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/]{86}==")


def _mixes_like_a_key(run: str) -> bool:
    """Both cases and a digit, ``+`` or ``/``: what an AWS secret access key's 40 characters hold."""
    return (any(c.isupper() for c in run) and any(c.islower() for c in run)
            and any(c.isdigit() or c in "+/" for c in run))


def _boundary_after_base64(text: str, pos: int) -> bool:
    return pos >= len(text) or text[pos] not in _BASE64_CHARS


@detector("shapes", "AWS secret access keys and Azure storage keys by their shape, phone numbers")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    base64_plugin, _ = entropy_plugins()
    scanned_to = 0
    for ctx in _AWS_CONTEXT_RE.finditer(low):
        lo, hi = max(scanned_to, ctx.start() - 80), min(len(text), ctx.end() + 160)
        if lo >= hi:
            continue
        for m in _AWS_SECRET_RE.finditer(text, max(0, lo - 40), hi):
            run = m.group(0)
            if m.start() < scanned_to or HEX_RE.match(run):
                continue
            if _mixes_like_a_key(run) and base64_plugin.calculate_shannon_entropy(run) >= 4.0:
                yield m.start(), m.end(), "aws-secret-key"
        scanned_to = hi
    if "==" in text:
        pos = text.find("==")
        while pos != -1:
            tail = _AZURE_KEY_TAIL_RE.search(text, max(0, pos - 86), pos)
            if tail and _boundary_after_base64(text, pos + 2):
                key = text[tail.start():pos + 2]
                if (base64_plugin.calculate_shannon_entropy(key) >= 4.5
                        and _AZURE_CONTEXT_RE.search(low, max(0, tail.start() - 200), tail.start())):
                    yield tail.start(), pos + 2, "azure-storage-key"
            pos = text.find("==", pos + 2)
    if "+" in text:
        for m in _PHONE_RE.finditer(text):
            if m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_+"):
                yield m.start(), m.end(), "phone-number"
