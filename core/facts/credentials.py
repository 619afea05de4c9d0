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
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from core.facts.text import text_pieces, tool_call_arguments
from core.message_view import content_text
from core.redaction import REFERENCE_INLINE_CHARS, reference_redact_all
from core.redaction.hermes import REDACTIONS, VENDOR_STARTS, redact_sensitive_text
from core.redaction.strict import VENDOR_GATES, strict_redact
from core.redaction.strict.folding import fold
from core.redaction.strict.shapes import shape_hint


def redact_all(text: str) -> str:
    """``text`` with everything masked that any profile's or the strict redaction would mask (a long
    text's reference passes run in a child process: ``core.redaction.reference_redact_all``)."""
    if not text:
        return text
    if len(text) > REFERENCE_INLINE_CHARS:
        return strict_redact(reference_redact_all([text])[0])
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


def credentials_among(values: Sequence[str], views: Sequence[tuple[str, str]]) -> set[str]:
    """The ``values`` that are credentials in the ``views`` (:func:`is_credential` of each), found with
    one pass over each text for all of them (``core.facts.search``): asking value by value scans a long
    text once per value (thousands of "paths" in one base64 blob, each against its megabytes)."""
    from core.facts.search import found_in

    found: set[str] = set()
    for text, redacted in views:
        present = found_in(values, text)
        candidates = [value for value, here in zip(values, present, strict=True) if here and value not in found]
        if candidates:
            kept = found_in(candidates, redacted)
            found.update(value for value, still in zip(candidates, kept, strict=True) if not still)
    return found


# Every text a redaction masks something in names it or shows its shape: a cheap test first.
# Vendor keys: the literal each pattern of the redaction layers starts with, after a character that
# cannot be part of a key (as the patterns require), in its own case.
# Gates too short to hint on their own, each with the start its patterns really need.
_GENERIC_STARTS = {"A": r"A(?:KIA|SIA|BIA|CCA|3T)", "gl": r"gl[a-z]{2,5}-", "gh": r"gh[pousr]_", "SK": r"SK[0-9a-f]{8}",
                   "sq0": r"sq0(?:csp|atp)-", "shp": r"shp(?:at|ss|ca|pa)_"}
# Literals a pattern needs anywhere, not after a boundary: inside a vendor key, or a JWT's header, which
# the releases' own pass masks wherever it starts (``core.redaction.hermes``: no boundary before it).
_INNER_GATES = ("_live_", "_test_", "_v1_", "eyJ")
_STARTS = sorted({*VENDOR_STARTS, *(g for g in VENDOR_GATES if g not in _INNER_GATES and g not in _GENERIC_STARTS)},
                 key=len, reverse=True)
# Vendor starts are found by one Aho-Corasick pass (a look-behind before an alternation of 60 starts
# made the engine try each at every position): a literal start, or the fixed head of a generic
# start whose pattern is then checked in place; the character before is checked by hand.
_GENERIC_HEADS = {"A": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"), "gl": ("gl",), "gh": ("gh",), "SK": ("SK",),
                  "sq0": ("sq0",), "shp": ("shp",)}
_GENERIC_RES = {head: re.compile(pattern) for head, pattern in _GENERIC_STARTS.items()}
_TELEGRAM_RE = re.compile(r"\d{8}:[A-Za-z0-9_-]{30}")  # a Telegram bot token
_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@lru_cache(maxsize=1)
def _vendor_automaton() -> Any:
    import ahocorasick

    automaton = ahocorasick.Automaton()
    for literal in _STARTS:
        automaton.add_word(literal, (len(literal), None, False))
    for literal in _INNER_GATES:
        automaton.add_word(literal, (len(literal), None, True))
    for generic, heads in _GENERIC_HEADS.items():
        for head in heads:
            if automaton.exists(head):  # a literal start already (AKIA): its own entry answers
                continue
            automaton.add_word(head, (len(head), _GENERIC_RES[generic], False))
    automaton.make_automaton()
    return automaton


def vendor_hint(text: str) -> bool:
    """Whether ``text`` holds a vendor key's start after a character that cannot be part of a key
    (an inner literal anywhere), or a Telegram bot token."""
    for end, (length, generic, inner) in _vendor_automaton().iter(text):
        start = end - length + 1
        if inner:
            return True
        if start and text[start - 1] in _KEY_CHARACTERS:
            continue
        if generic is None or generic.match(text, start):
            return True
    return ":" in text and _TELEGRAM_RE.search(text) is not None  # the colon first: a scan, not a pattern
# Labels and shapes the other passes look for, in any case, searched in the case-folded text. One
# alternation of all of them tries every alternative at every position (0.47 s on a 2.6 MB log);
# instead the shapes that start with punctuation are one pattern whose first characters the regex
# engine scans for, and the words are found by one Aho-Corasick pass, each place checked with the
# word patterns there. Together they match where the single alternation (kept as the tests' oracle,
# tests/facts/test_credential_hint.py) matches. Every repetition is bounded (a label is at most 64
# characters, a URL's user part a few hundred), so a long run is never rescanned from each position.
_PUNCTUATION_HINT_RE = re.compile(
    r"://(?:[^\s/@]{1,600}+@|[^\s/@:]{0,300}+:[^/@\n]{0,600}+@)"  # a URL's user and password
    r"|\+[1-9]\d{6}|<@!?\d"  # a phone number, a chat mention
    r"|-(?:u[\s=]|-user\b|----begin|cli\b)"  # command-line users, a PEM block, *-cli
    r"|:(?:\d{1,5}|\*):[^:\s]{1,100}+:[^:\s]{1,100}+:"  # credential files (host:port:db:user:password)
)
# The word patterns, each starting with one of LABEL_ANCHORS (matched at an anchor's place).
_WORD_HINT_RE = re.compile(
    r"secret|passw|passphrase|\bpwd?\b|token\\{0,7}\"?\s{0,8}+[:=]|(?<=_)token|credential|auth[\w.\-]{0,64}+\s{0,8}+[:=]"
    # a name holding a key word before its = or : (the reference's env, dotted, line and YAML keys)
    r"|token[\w.\-]{1,64}+\s{0,8}+[:=]|api[ _.\-]?key[\w.\-]{0,64}+\s{0,8}+[:=]"
    r"|authorization|bearer|cookie|session_?id|private[_ ]?key|key\\{0,7}\"?\s{0,8}+[:=]|key-data"
    r"|ls0tls1crudjti|webhook"
    # command lines (core.redaction.strict.command_line)
    r"|mysql|mariadb|sshpass|sqlcmd|\bbcp\b|\bosql\b|\bisql\b|\blogin\b|mongo|\bldap|\bsmb|rpcclient"
    r"|\bnxc\b|crackmapexec|\b(?:un)?zip\b|zipcloak|\b7z|keytool|jarsigner|apksigner|mosquitto|openssl|ssh-keygen"
    r"|htpasswd|rabbitmqctl|\bnet\s{1,8}+user\b"
    # credential files, sentences, other languages (credential_files, prose)
    r"|\bmachine\b|log\s?[io]n|sign\s?in|\bcreds\b"
    r"|kennwort|contrase|\bclave\b|mot de passe|\bmdp\b|\bsenha\b|wachtwoord|has[łl]o|senord|adgangskode|passord"
    r"|salasana|ifre\b|\bparola\b|\bheslo\b|jelsz|пароль|\b(?:secret|magic|code|safe)\s?(?:word|phrase|code)\b"
    r"|\bpin\b|passcode"
)
# The word each _WORD_HINT_RE alternative starts with.
LABEL_ANCHORS = (
    "secret", "passw", "passphrase", "pw", "token", "credential", "auth", "api", "bearer", "cookie", "session",
    "private", "key", "ls0tls1crudjti", "webhook", "mysql", "mariadb", "sshpass", "sqlcmd", "bcp", "osql", "isql", "login",
    "mongo", "ldap", "smb", "rpcclient", "nxc", "crackmapexec", "unzip", "zip", "7z", "keytool", "jarsigner",
    "apksigner", "mosquitto", "openssl", "ssh-keygen", "htpasswd", "rabbitmqctl", "net", "machine", "log", "sign",
    "creds", "kennwort", "contrase", "clave", "mot de passe", "mdp", "senha", "wachtwoord", "hasło", "haslo",
    "senord", "adgangskode", "passord", "salasana", "ifre", "parola", "heslo", "jelsz", "пароль", "magic", "code",
    "safe", "pin", "passcode",
)


# What "\s" matches in a str pattern (tests/facts/test_credential_hint.py checks it against every
# code point); casefolding leaves each as it is.
WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
# Two anchors are words of most agent logs that start an alternative only in a few spellings: the
# automaton holds those spellings instead ("session_?id"; "log\s?[io]n" and "\blogin\b"), and the
# pattern is still tried from the anchor's first letter.
ANCHOR_SPELLINGS: dict[str, tuple[str, ...]] = {
    "session": ("sessionid", "session_id"),
    "log": ("login", "logon", *(f"log{space}{end}" for space in WHITESPACE for end in ("in", "on"))),
}


@lru_cache(maxsize=1)
def _anchor_automaton() -> Any:
    import ahocorasick

    automaton = ahocorasick.Automaton()
    for anchor in LABEL_ANCHORS:
        for word in ANCHOR_SPELLINGS.get(anchor, (anchor,)):
            automaton.add_word(word, len(word))
    automaton.make_automaton()
    return automaton


def label_hint(folded: str) -> bool:
    """Whether the case-folded ``folded`` holds a label or shape a redaction pass looks for."""
    if _PUNCTUATION_HINT_RE.search(folded):
        return True
    at_anchor = _WORD_HINT_RE.match
    return any(at_anchor(folded, end - length + 1) for end, length in _anchor_automaton().iter(folded))


# The same texts are asked about again and again (each compression's summary reads its middle, the
# Codex-style strategy the whole log, the replay every compaction's): the answer is kept per text.
# A str caches its own hash, so a repeat costs a dictionary look-up.
@lru_cache(maxsize=65_536)
def hints_at_credentials(text: str) -> bool:
    """False when no redaction could mask anything in ``text`` (it has no hint of a secret).

    Known gap: the strict layer's label family also masks a machine-made value after a bare word
    ("token Zq8r...", "signature=..."), which this test does not look for (its words are in most
    agent logs: looking for them cost the summaries of a 2.6 MB log 0.5 s). With strict redaction on,
    the default, a summary reads text that layer has masked already."""
    folded = fold(text)  # a key disguised with invisible or full-width characters hints as itself
    if folded is not None:
        # The releases' own passes read the text as written: a full-width letter before a key is no
        # part of it there, while folded it is.
        if vendor_hint(text) or shape_hint(text):
            return True
        text = folded.text
    if not text:
        return False
    if vendor_hint(text) or shape_hint(text):
        return True
    return label_hint(text.casefold())


def might_hold_credentials(texts: Iterable[str]) -> bool:
    """False when no redaction could mask anything in ``texts`` (none has a hint of a secret)."""
    return any(hints_at_credentials(text) for text in texts)


class CredentialCheck:
    """Whether a value is a credential where it stands in ``messages[index]``: each message is
    redacted once, when first asked about (callers ask in message order)."""

    def __init__(self, messages: Sequence[Mapping[str, Any]]) -> None:
        self._messages = messages
        self._index = -1
        self._views: list[tuple[str, str]] = []

    def __call__(self, index: int, value: str) -> bool:
        return value in self.among(index, [value])

    def among(self, index: int, values: Sequence[str]) -> set[str]:
        """The ``values`` (found in ``messages[index]``) that are credentials where they stand."""
        if index != self._index:
            self._index, self._views = index, redacted_views(self._messages[index])
        return credentials_among(values, self._views) if self._views else set()


def without_credentials_by_line(
    found: Sequence[tuple[str, str]], texts: Iterable[str]
) -> Sequence[tuple[str, str]]:
    """``found`` (facts of ``texts``) without the values that are credentials, for a reader that must
    stay fast: only the lines of ``texts`` that hint at a secret are redacted and looked in (a private
    key, which spans lines, makes the whole text count)."""
    views: list[tuple[str, str]] = []
    for text in texts:
        if not hints_at_credentials(text):
            continue
        if "BEGIN" in text:
            redacted = redact_all(text)
            if redacted != text:
                views.append((text, redacted))
            continue
        for line in text.split("\n"):
            if hints_at_credentials(line):
                redacted = redact_all(line)
                if redacted != line:
                    views.append((line, redacted))
    if not views:
        return found
    credentials = credentials_among(list(dict.fromkeys(value for _kind, value in found)), views)
    return [(kind, value) for kind, value in found if value not in credentials]
