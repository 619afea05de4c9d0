"""The label grammar: a value introduced by a name that says it is a credential.

``password = v``, ``"apiKey": "v"``, ``DB_PASSWORD=v`` at the start of a line, ``token: v``, ``my
password is v``, ``--secret v``, ``<password>v</password>``, ``<add key="DbPassword" value="v"/>``.
A label is found by a stem (``pass``, ``secret``, ``token``, ``key``, ``auth``, ...) and read whole
(``client_secret``, ``x-api-key``); what it names is classified from its segments
(:mod:`label_words`), and the value after it is accepted by the label's class and the form it
takes (quoted, assigned, in a sentence). detect-secrets' keyword plugin takes values up to the end of
the line and cannot see through escaped quotes, hence this grammar.
"""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Iterator
from functools import lru_cache

from core.literals import Literals, matches_at
from core.redaction.strict import label_words as W
from core.redaction.strict.common import (
    HEX_RE,
    MAX_VALUE,
    UUID_RE,
    is_identifier,
    is_masked,
    is_placeholder,
    looks_random,
    secretish,
)
from core.redaction.strict.registry import Candidate, TextView, detector

_STEM_RE = re.compile(  # run on the lowered copy; skips the commonest words that are never labels
    r"pass(?!ed\b|es\b|ing\b|age|enger|port|ive|ion|through)|pwd|pw\b|secret|token(?!s\b|iz)"
    r"|key(?!s\b|word|board|frame|stroke|note|err)|auth(?!or|entic)|credential|creds?\b|sess(?!ions\b)"
    r"|sid\b|signature|sig\b|bearer|jwt|hmac"
)
# The literal each _STEM_RE alternative starts with: an Aho-Corasick pass finds where they are, and
# the pattern is tried there only (as a search, it tries every position of the text).
_STEMS = Literals(("pass", "pwd", "pw", "secret", "token", "key", "auth", "credential", "cred", "sess", "sid",
                   "signature", "sig", "bearer", "jwt", "hmac"))
# labels that only take machine-made values are skipped early when no such run follows on the line
_RANDOM_RUN_AHEAD_RE = re.compile(r"[A-Za-z0-9+/=_\-.~%]{12,}")
_IDENT_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_IDENT_RIGHT_RE = re.compile(r"[A-Za-z0-9_.\-]{0,48}")
_CAMEL_SPLIT_RE = re.compile(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])")


# The separator, connector and attribute patterns are matched right after a label (never inside a
# run of blanks): each starts only where no blank precedes, so a long run of blanks is scanned once
# and not again from each of its positions, and blanks are taken whole (possessively) where what
# follows them cannot be a blank.
_SEP_RE = re.compile(r"(?<![ \t])(?:\\{0,7}[\"'`])?\]?[ \t]*+(:=|=>|->|::|==|!=|=|:)")
_CONNECTOR_RE = re.compile(
    r"(?<![ \t])[ \t]++(?P<gap>(?:[A-Za-z0-9_.@/'\-]{1,30}[ \t]++){0,4}?)"
    r"(?:(?:(?:is|was|are|were|has[ \t]++been|have[ \t]++been|will[ \t]++be|got|been)[ \t]++)?"
    r"(?:(?:set|changed|reset|updated|rotated|switched)[ \t]++to|is|was|are|were|becomes|to|now)[ \t]*:?"
    r"|(?P<last>[A-Za-z0-9_.@/'\-]{1,30}):)(?=[ \t])",
    re.IGNORECASE,
)
_VALUE_ATTR_RE = re.compile(r"(?<![ \t])[ \t]++value[ \t]*+=[ \t]*+(?=\\{0,7}[\"'])", re.IGNORECASE)
# Matched after _SPACES_RE has skipped the blanks in front of a value.
_OPEN_QUOTE_RE = re.compile(r"(\\{0,7})([\"'`])")
_SPACES_RE = re.compile(r"[ \t]*")
_QUOTED_VALUE_RE = {q: re.compile(rf"[^{re.escape(q)}\\\r\n]{{1,{MAX_VALUE}}}") for q in "\"'`"}
_UNQUOTED_VALUE_RE = re.compile(rf"[^\s\"'`\\]{{1,{MAX_VALUE}}}")
_PASSPHRASE_RE = re.compile(r"[^\s\"'`\\.,;]{1,40}(?:[ ][^\s\"'`\\.,;]{1,40}){0,7}")
# Three or more words of three letters or more, joined by hyphens (a diceware-style passphrase).
_HYPHEN_PASSPHRASE_RE = re.compile(r"^[A-Za-z]{3,}(?:-[A-Za-z]{3,}){2,}$")
_CALL_RE = re.compile(r"^[A-Za-z_$][\w$.]*[(\[]")
_ATTR_PATH_RE = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$")
_IDENTIFIER_RE = re.compile(r"^[A-Za-z_]+$")
# paths, test ids and file names: words after a label in prose that are not values
_PATHISH_RE = re.compile(r"/|\\|::|^[\w\-]+\.(?:py|js|ts|json|md|txt|ya?ml|toml|cfg|ini|lock|log|sh|rs|go|rb|java|html?)$")
_NEXT_PAIR_SEMI_RE = re.compile(r";(?=\s*[A-Za-z][\w ]{0,40}=)")
_NEXT_PAIR_AMP_RE = re.compile(r"&(?=[A-Za-z_][\w.\-]{0,40}=)")
_SYMBOL_RE = re.compile(r"[^A-Za-z0-9]")

_VERSION_SEGMENT_RE = re.compile(r"v?\d{1,3}")


def _segments(name: str) -> list[str]:
    return [s.lower() for s in _CAMEL_SPLIT_RE.split(name) if s]


_WORD_CHARS = frozenset(string.ascii_letters + string.digits)


def _previous_word(text: str, pos: int) -> str:
    """The word before a bare "key" in prose ("API key", "cache key"), skipping one determiner."""
    word = ""
    for _ in range(2):
        end = pos
        while end > 0 and end > pos - 3 and text[end - 1] in " \t":
            end -= 1
        if end == pos:
            return word
        start = end
        while start > 0 and end - start < 25 and text[start - 1] in _WORD_CHARS:
            start -= 1
        word = text[start:end].lower()
        if word not in W.DETERMINERS:
            return word
        pos = start
    return ""


@lru_cache(maxsize=8192)
def _classify_label(name: str, prev_word: str) -> tuple[str | None, tuple[str, ...]]:
    """Classify a label (cached: the same names recur all over a transcript)."""
    segments = _segments(name)
    if prev_word and len(segments) == 1:
        segments = [prev_word, *segments]
    return _classify(segments), tuple(segments)


def _classify(segments: list[str]) -> str | None:
    """What a label names: 'password', 'secret', 'weak' (only random values), 'session', 'key-id' or None."""
    segs = [s for s in segments if s]
    while len(segs) > 1 and (segs[-1] in W.VALUE_SUFFIXES or _VERSION_SEGMENT_RE.fullmatch(segs[-1])):
        segs = segs[:-1]
    if not segs:
        return None
    last = segs[-1]
    prev = segs[-2] if len(segs) > 1 else ""
    if last == "id" and segs[-3:-1] == ["private", "key"]:
        return "key-id"
    if last in W.NON_SECRET_LAST:
        return None
    if last in W.PASSWORD_WORDS or last.endswith(("password", "passwd", "passphrase", "pwd")):
        return "password"
    if last in W.SESSION_WORDS:
        return "session"
    if last in W.SECRET_WORDS or last.endswith(("token", "secret", "apikey", "credential", "credentials")):
        if last.endswith("token") and (prev in W.NON_SECRET_TOKEN_PREFIXES or last[:-5] in W.NON_SECRET_TOKEN_PREFIXES):
            return None  # pagination cursors and idempotency tokens are not credentials
        return "secret"
    if last.endswith("key"):
        if last in W.KEY_WORD_BENIGN:
            return None
        if last != "key":
            return "secret" if last in W.KEY_WORD_SECRET or last[:-3] in W.KEY_PREFIXES else None
        if prev in W.KEY_PREFIXES:
            return "secret"
        if prev in W.KEY_BENIGN_PREFIXES:
            return None
        return "weak"
    if last in W.WEAK_WORDS or (last.endswith("auth") and last not in {"oauth", "author"}):
        return "weak"
    return None





# Values that are never secrets: type expressions ("Token[Span | None]", "str | None"), colours, and
# documentation placeholders ("your-access-token", "<token>", "xxxx", "..._here").
_NOT_A_VALUE_RE = re.compile(
    r"^(?:[\w.]+\[.*\]|.*\s\|\s.*|#[0-9a-fA-F]{3,8}|(?i:your|insert|replace|enter|put)[-_ ].*|(?i:x{3,}|\.{3,})"
    r"|.*(?i:[-_]here))$"
)



def _accept(value: str, klass: str, form: str, quoted: bool, line_start: bool) -> bool:
    if not value or is_masked(value) or is_placeholder(value) or _NOT_A_VALUE_RE.match(value):
        return False
    lowered = value.lower()
    if lowered in W.STOPWORDS or lowered.rstrip(".,;:!?") in W.STOPWORDS:
        return False
    if not quoted:
        if _CALL_RE.match(value) or _ATTR_PATH_RE.match(value):
            return False
        if not line_start and is_identifier(value) and not (klass == "password" and form == "colon"):
            return False  # a variable, parameter or type name, not a literal
        if form in ("sentence", "direct") and not value[0].isalnum() and not looks_random(value):
            return False
        if lowered in W.TYPE_NAMES or lowered.startswith(("optional[", "list[", "dict[")):
            return False
        if value.startswith("-") or "://" in value:
            return False
    if klass in ("weak", "session"):
        return looks_random(value, 12 if klass == "session" else 16) and not UUID_RE.match(value)
    if klass == "key-id":
        return len(value) >= 16 and HEX_RE.match(value) is not None
    if klass == "password":
        if len(value) < 3:
            return False
        if quoted or line_start:
            return True
        if form in ("assign", "colon"):
            if _IDENTIFIER_RE.match(value) and ("_" in value or value[:1].isupper() or form == "assign"):
                return False  # a variable or type, not a literal
            return len(value) >= 4
        if _HYPHEN_PASSPHRASE_RE.match(value):
            return True  # "my password is correct-horse-battery": words joined into a passphrase
        return len(value) >= 4 and secretish(value) and not _PATHISH_RE.search(value)
    # klass == "secret": keys and tokens never contain spaces, and a call is code even when quoted
    if len(value) < 6 or " " in value or _CALL_RE.match(value) or (not line_start and is_identifier(value)):
        return False
    if quoted or line_start:
        return secretish(value) or len(value) >= 16
    if form == "direct":
        return looks_random(value)  # "token <value>" in prose: only machine-made values
    return (len(value) >= 8 and secretish(value) and not _PATHISH_RE.search(value)) or looks_random(value)


def _label_kind(klass: str, segments: tuple[str, ...]) -> str:
    if klass == "password":
        return "password"
    if klass == "session":
        return "session-id"
    if klass == "key-id":
        return "private-key-id"
    if klass == "weak":
        return "high-entropy"
    joined = "".join(segments)
    if "token" in joined:
        return "token"
    if "key" in joined:
        return "api-key"
    if "cred" in joined:
        return "credential"
    return "secret"


def _parse_value(text: str, pos: int, multiword: bool) -> tuple[int, int, bool] | None:
    """The value starting at ``pos`` (after optional spaces and an optional, possibly escaped, quote)."""
    start = _SPACES_RE.match(text, pos).end()
    quote = _OPEN_QUOTE_RE.match(text, start)
    if quote:
        start = quote.end()
        m = _QUOTED_VALUE_RE[quote.group(2)].match(text, start)
        if not m:
            return None
        value = m.group(0)
        stripped = value.rstrip()
        if len(value) - len(value.lstrip()) or not stripped:
            return None
        return start, start + len(stripped), True
    if multiword:
        m = _PASSPHRASE_RE.match(text, start)
    else:
        m = _UNQUOTED_VALUE_RE.match(text, start)
    if not m:
        return None
    value = m.group(0)
    # a value ends where the next key=value pair of a connection string or query starts
    for splitter in (_NEXT_PAIR_SEMI_RE, _NEXT_PAIR_AMP_RE):
        cut = splitter.search(value)
        if cut:
            value = value[: cut.start()]
    value = value.rstrip(".,;:)]}>")
    if "<" in value:
        value = value.split("<", 1)[0]
    if not value:
        return None
    return start, start + len(value), False


@detector("labels", "values after a name that says they are a credential (password, secret, token, key, ...)")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low, skip = view.text, view.low, view.protected
    done_until = 0
    skip_starts = [s for s, _ in skip]
    for m in matches_at(_STEM_RE, low, _STEMS):
        if m.start() < done_until:
            continue
        if skip:
            idx = bisect.bisect_right(skip_starts, m.start()) - 1
            if idx >= 0 and skip[idx][1] > m.start():
                done_until = skip[idx][1]
                continue
        name_start = m.start()
        floor = max(0, name_start - 48)
        while name_start > floor and text[name_start - 1] in _IDENT_CHARS:
            name_start -= 1
        name_end = _IDENT_RIGHT_RE.match(text, m.end()).end()
        done_until = name_end
        # an escape such as "\n" before the name is not part of it
        if name_start > 0 and text[name_start - 1] == "\\" and text[name_start] in "nrt":
            name_start += 1
        while name_start < name_end and text[name_start] in ".-":
            name_start += 1
        while name_end > name_start and text[name_end - 1] in ".-":
            name_end -= 1
        name = text[name_start:name_end]
        if not name or len(name) > 64:
            continue
        prev_word = _previous_word(text, name_start) if name.lower() == "key" else ""
        klass, segments = _classify_label(name, prev_word)
        if klass is None:
            continue
        if klass in ("weak", "session"):
            line_end = text.find("\n", name_end, name_end + 200)
            if not _RANDOM_RUN_AHEAD_RE.search(text, name_end, line_end if line_end != -1 else name_end + 200):
                continue
        multiword = segments[-1].endswith("phrase")
        found = _value_after_label(text, name_start, name_end, multiword)
        if found is None:
            continue
        start, end, form, quoted, line_start = found
        if segments == ("pass",) and text[name_start - 1:name_start] != "-" and (
                form in ("sentence", "direct") or not (quoted or secretish(text[start:end]))):
            continue  # the English verb, Python's `pass` or "1st pass: ...", not a label
        value = text[start:end]
        if _accept(value, klass, form, quoted, line_start):
            yield start, end, _label_kind(klass, segments)
            done_until = max(done_until, end)


def _line_start(text: str, name_start: int) -> bool:
    """``NAME=`` at column 0 (``.env`` style), optionally after ``export``/``set``; indented lines are code."""
    i = name_start
    before = text[max(0, i - 12):i]
    for prefix in ("export ", "set ", "setx "):
        if before.endswith(prefix):
            i -= len(prefix)
            break
    if i == 0 or text[i - 1] in "\r\n\"'[,":
        return True
    return i >= 2 and text[i - 2] == "\\" and text[i - 1] in "nr"


def _value_after_label(text: str, name_start: int, name_end: int, multiword: bool
                       ) -> tuple[int, int, str, bool, bool] | None:
    """Find the value a label introduces: ``name = v``, ``"name": "v"``, ``name is v``, ``--name v``."""
    line_start = False
    sep = _SEP_RE.match(text, name_end)
    if sep:
        op = sep.group(1)
        if op == "::":
            return None
        form = "colon" if op == ":" else "assign"
        pos = sep.end()
        if op == "=" and sep.start(1) == name_end:
            line_start = _line_start(text, name_start)
    elif name_start > 0 and text[name_start - 1] == "<" and text.startswith(">", name_end):
        form, pos = "assign", name_end + 1  # <password>value</password>
    else:
        attr = _VALUE_ATTR_RE.match(text, name_end + 1) if text.startswith(("\"", "'"), name_end) else None
        if attr:
            form, pos = "assign", attr.end()  # <add key="DbPassword" value="..."/>
        else:
            conn = _CONNECTOR_RE.match(text, name_end)
            if conn:
                gap = (conn.group("gap") or "").split() + ([conn.group("last")] if conn.group("last") else [])
                if any(w.lower().strip(".,:'") in W.GAP_WORDS_BAD for w in gap):
                    return None
                form, pos = "sentence", conn.end()
            elif text.startswith((" ", "\t"), name_end):
                form, pos = "direct", name_end
            else:
                return None
    if form in ("sentence", "direct") and name_start > 0 and text[name_start - 1] in "\"'`":
        # the label sits inside a string literal ("Bearer "): the next quote closes it
        after = _SPACES_RE.match(text, pos).end()
        if text.startswith(text[name_start - 1], after):
            return None
    parsed = _parse_value(text, pos, multiword)
    if parsed is None:
        return None
    start, end, quoted = parsed
    return start, end, form, quoted, line_start and not quoted
