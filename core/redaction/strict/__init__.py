"""Strict redaction: an extra masking layer for everything sent to a summarizer.

The profiles' own redaction (``core.redaction.hermes``) reproduces the reference exactly, gaps
included. When ``strict_redaction`` is on, this layer runs after it and also masks what the reference
lets through. Each family of credentials is one module of this package, registered in
:mod:`registry` (``detectors()`` lists them with what each catches):

* ``private_keys``: PEM, OpenSSH and PGP private keys, also cut short;
* ``vendor``: keys with a vendor prefix, bot tokens, Slack and Discord webhooks;
* ``plugins``: detect-secrets' vendor formats;
* ``connection``: ``Password=``, ``AccountKey=``, ``SharedAccessKey=`` in connection strings;
* ``urls``: ``user:password@`` in URLs, keys as a URL's user (Sentry DSNs), ``?sig=``;
* ``command_line``: ``curl -u``, ``mysql -p'...'``, ``docker login -p``, ``echo pw | ... --password-stdin``,
  ``htpasswd -b``, ``redis-cli -a``, ``ldapsearch -w`` and more;
* ``headers``: ``Authorization`` in any case and scheme, cookies;
* ``shapes``: AWS secret access keys and Azure storage keys by their shape, phone numbers;
* ``credential_files``: ``.pgpass`` and ``.netrc`` lines, kubeconfig keys, base64-encoded private keys;
* ``prose``: "log in with admin / P@ssw0rd123", "password (Staging!Pw9)", password sentences in German,
  Spanish, French and other languages, "the secret word is ...", PINs;
* ``labels``: the label grammar (``password = v``, ``"apiKey": "v"``, ``.env`` lines in any case,
  ``my password is v``, high-entropy values next to secret / token / key / credential, session ids,
  GCP ``private_key_id``, credentials inside JSON escaped inside a string, at any depth).

Before the families run, keys disguised with invisible characters or full-width and mathematical
letters are folded to ASCII (:mod:`folding`); the mask then covers the original characters.

Vendor formats and the entropy measure come from ``detect-secrets`` (its plugins and heuristic
filters); the label/value grammar, escaped-JSON handling and the near-miss filters are our own,
because its keyword plugin takes values up to the end of the line and cannot see through escaped
quotes.

Masks follow the reference's shape: values of 18+ characters keep their first 6 and last 4
characters (``wJalrX...EKEY``), shorter ones become ``***`` and private keys become
``[REDACTED PRIVATE KEY]``. Text that is already masked is left alone, so running the layer twice
changes nothing more. Every pattern of every family is linear in the length of the text
(``core.pattern_audit``).
"""

from __future__ import annotations

import bisect
import importlib
from collections import Counter
from collections.abc import Iterable, Iterator

from core.redaction.strict.common import ASCII_LOWER as _ASCII_LOWER
from core.redaction.strict.common import PRIVATE_KEY_MASK, SecretSpan, is_masked, mask_value
from core.redaction.strict.folding import fold
from core.redaction.strict.protected import protected_regions
from core.redaction.strict.registry import (
    FAMILY_MODULES,
    GENERIC_KINDS,
    KIND_PRIORITY,
    Candidate,
    Detector,
    TextView,
    detectors,
)
from core.remembered import recall

for _module in FAMILY_MODULES:  # each family registers itself on import, in this order
    importlib.import_module(f"{__name__}.{_module}")

from core.redaction.strict.vendor import VENDOR_GATES  # noqa: E402  (after the families are registered)

__all__ = [
    "PRIVATE_KEY_MASK",
    "VENDOR_GATES",
    "Detector",
    "SecretSpan",
    "count_by_kind",
    "detectors",
    "find_secrets",
    "mask_value",
    "redact_with_spans",
    "strict_redact",
]


def _candidates(view: TextView) -> Iterator[Candidate]:
    for family in detectors():
        yield from family.scan(view)


def _overlaps(span: tuple[int, int], regions: tuple[tuple[int, int], ...], starts: list[int]) -> bool:
    """Whether ``span`` touches one of the sorted, disjoint ``regions``."""
    idx = bisect.bisect_left(starts, span[1]) - 1
    return idx >= 0 and regions[idx][1] > span[0]


def _rank(kind: str) -> int:
    if kind in KIND_PRIORITY:
        return KIND_PRIORITY.index(kind)
    return len(KIND_PRIORITY) + (kind in GENERIC_KINDS)


def _merge(cands: Iterable[Candidate]) -> list[Candidate]:
    merged: list[Candidate] = []
    for start, end, kind in sorted(cands):
        if merged and start < merged[-1][1]:
            m_start, m_end, m_kind = merged[-1]
            merged[-1] = (m_start, max(m_end, end), kind if _rank(kind) < _rank(m_kind) else m_kind)
        else:
            merged.append((start, end, kind))
    return merged


def _check_text(text: object, function: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{function}() expects the text as str, got {type(text).__name__}")
    return text


def _find(text: str) -> list[SecretSpan]:
    low = text.translate(_ASCII_LOWER)
    protected = protected_regions(text, low)
    starts = [s for s, _ in protected]
    view = TextView(text, low, protected)
    cands = (
        c for c in _candidates(view)
        if c[1] > c[0] and not (protected and _overlaps((c[0], c[1]), protected, starts))
    )
    spans = []
    for start, end, kind in _merge(cands):
        value = text[start:end]
        if kind != "private-key" and is_masked(value):
            continue
        spans.append(SecretSpan(start, end, kind, mask_value(value, kind)))
    return spans


def find_secrets(text: str) -> list[SecretSpan]:
    """Every value strict mode would mask, with positions in ``text`` (sorted, non-overlapping)."""
    _check_text(text, "find_secrets")
    if not text:
        return []
    folded = fold(text)
    if folded is None:
        return _find(text)
    spans = []
    for span in _find(folded.text):
        start, end = folded.original_span(span.start, span.end)
        spans.append(SecretSpan(start, end, span.kind, span.masked))
    return spans


def redact_with_spans(text: str) -> tuple[str, list[SecretSpan]]:
    """The redacted text and its masked spans, positioned in the *redacted* text."""
    _check_text(text, "redact_with_spans")
    pieces: list[str] = []
    out_spans: list[SecretSpan] = []
    cursor = 0
    out_len = 0
    for span in find_secrets(text):
        kept = text[cursor:span.start]
        pieces.append(kept)
        out_len += len(kept)
        pieces.append(span.masked)
        out_spans.append(SecretSpan(out_len, out_len + len(span.masked), span.kind, span.masked))
        out_len += len(span.masked)
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces), out_spans


def strict_redact(text: str) -> str:
    """Mask every credential strict mode finds; text without any comes back unchanged.

    Within a scope of :mod:`core.remembered` (a transcript's analyses) a text is searched once: the
    summaries, the fact index and the credential checks all pass the same tool outputs through here."""
    _check_text(text, "strict_redact")
    return recall(_STRICT_RULE, text, _redacted)


_STRICT_RULE = "strict-redaction"  # the memo's rule key


def _redacted(text: str) -> str:
    return redact_with_spans(text)[0]


def count_by_kind(spans: Iterable[SecretSpan]) -> dict[str, int]:
    """How many masked values of each kind, most frequent first."""
    return dict(Counter(span.kind for span in spans).most_common())
