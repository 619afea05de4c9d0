"""Passwords written in sentences that the label grammar does not read.

* a user and a password after a log-in phrase: "Log in with admin / P@ssw0rd123", "login: root /
  Toor!2023", "sign in as alice | Wonderland#42";
* a password in brackets: "the staging password (Staging!Pw9) expires";
* password sentences in other languages: "Das Passwort lautet ...", "la contraseña es ...", "le mot
  de passe est ...", "la password è ...", "a senha é ...", "het wachtwoord is ...", and more;
* secret words, codes and PINs: "the secret word is swordfish", "the magic word is ...", "PIN: 4711".

A value in a sentence is only taken when it does not read as a word (digits or symbols in it), unless
it is quoted or the label says the value is a word (a secret word, a code word) or digits (a PIN).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.literals import Literals, matches_at
from core.redaction.strict import label_words as W
from core.redaction.strict.common import is_masked, is_placeholder
from core.redaction.strict.registry import Candidate, TextView, detector

_QUOTES = "\"'`«»„“”‚‘’"
_VALUE = (rf"(?:\\{{0,7}}(?P<q>[{_QUOTES}])(?P<vq>[^\s\\{_QUOTES}]{{1,100}})\\{{0,7}}[{_QUOTES}]"
          rf"|(?P<vb>[^\s\\{_QUOTES},;()]{{3,100}}))")

_LOGIN_RE = re.compile(  # run on the lowered copy
    r"(?<![\w-])(?:log[ \t]?in|log[ \t]?on|sign[ \t]?in|credentials?|creds)"
    r"(?:[ \t]++(?:with|as|using|via|is|are|to)|[ \t]*+[:=])[ \t]*+"
    r"(?P<user>[^\s/|:,;\"'`()\\]{1,64})[ \t]*+[/|][ \t]*+(?P<vb>[^\s\"'`,;()\\]{3,100})"
)
_BRACKETED_RE = re.compile(  # run on the lowered copy
    r"(?<![\w-])(?:password|passwort|passwd|pwd|passphrase|passcode|kennwort|contrase[ñn]a|mot de passe|senha"
    r"|wachtwoord)(?:[ \t]++(?:is|was|ist|est|es|[:=]))?[ \t]*+\([ \t]*+(?P<vb>[^\s()\\\"'`]{3,100})[ \t]*+\)"
)
# What a bracket after "password" holds when it is not the password.
_NOT_IN_BRACKETS = frozenset({
    "optional", "required", "hidden", "redacted", "masked", "plaintext", "hashed", "encrypted", "sha1", "sha256",
    "sha512", "md5", "bcrypt", "pbkdf2", "argon2", "scrypt", "base64", "hex", "utf-8", "again", "twice", "confirm",
    "confirmation", "repeat", "new", "old", "current", "default", "unchanged", "e.g.", "i.e.", "etc.",
})

# Password words and the verbs that introduce a value, by language (matched ignoring case).
_WORDS = (
    "passwort|kennwort|zugangspasswort|contraseñas?|contrasenas?|clave(?: de acceso)?|mot de passe|mdp|senha"
    "|wachtwoord|has[łl]o|l[öo]senord|adgangskode|passord|salasana|[şs]ifre|parola d'ordine|heslo|jelsz[óo]"
    "|пароль|(?P<italian>password)"
)
_VERBS = (
    "ist|lautet|war|lautete|es|era|ser[áa]|est|était|etait|sera|è|e'|é|eh|is|luidt|jest|är|ar|er|on"
)
_SENTENCE_RE = re.compile(
    rf"(?<![\w-])(?:{_WORDS})"
    # a few words may stand between the password word and its verb ("für den Server", "del servidor")
    rf"(?:[ \t]++(?!(?:{_VERBS})[ \t:])[^\s:=]{{1,30}}){{0,4}}?"
    rf"(?:[ \t]++(?P<verb>{_VERBS})(?:[ \t]*+:)?[ \t]++|[ \t]*+[:=][ \t]*+){_VALUE}",
    re.IGNORECASE,
)
# The word for a password in each language _SENTENCE_RE reads (on the lowered copy).
_SENTENCE_GATE = Literals((
    "passwort", "kennwort", "contrase", "clave", "mot de passe", "mdp", "senha", "wachtwoord", "hasło", "haslo",
    "senord", "adgangskode", "passord", "salasana", "ifre", "parola", "heslo", "jelsz", "пароль", "password",
))
# Stopwords of those languages (what follows "ist" when the sentence is about the password).
_FOREIGN_STOPWORDS = frozenset({
    "nicht", "falsch", "leer", "ungültig", "abgelaufen", "korrekt", "richtig", "geändert", "gesetzt", "zu", "der",
    "die", "das", "ein", "eine", "incorrecta", "incorrecto", "vacía", "vacia", "válida", "valida", "la", "el", "un",
    "una", "muy", "demasiado", "incorrect", "vide", "expiré", "expire", "le", "les", "trop", "pas", "sbagliata",
    "vuota", "errata", "il", "lo", "uma", "errada", "inválida", "onjuist", "leeg", "het", "een",
})

_SECRET_WORD_RE = re.compile(  # run on the lowered copy
    r"(?<![\w-])(?:(?P<word>(?:secret|magic|code|safe)[ \t]?(?:word|phrase)|secret[ \t]code|safe[ \t]code)"
    r"|(?P<pin>pin(?:[ \t]?(?:code|number))?|passcode))"
    r"(?:[ \t]++(?:is|was)[ \t]*+:?|[ \t]*+[:=])[ \t]*+"
    rf"{_VALUE}"
)
# The words each pattern's matches start with (on the lowered copy): the pattern is tried there only.
_LOGIN_STARTS = Literals(("log", "sign", "cred"))
_BRACKETED_STARTS = Literals(("pass", "pwd", "kennwort", "contrase", "mot de passe", "senha", "wachtwoord"))
_SECRET_WORD_STARTS = Literals(("secret", "magic", "code", "safe", "pin", "passcode"))
_PIN_RE = re.compile(r"\d{4,12}")
# Code, not a value: an attribute path or a call ("request.POST.get(...)", "config.password").
_CODE_LIKE_RE = re.compile(r"\A[A-Za-z_$][\w$]*+(?:\.[A-Za-z_$][\w$]*+)++\Z")
# English sentences are the label grammar's; "password" here is the Italian and Portuguese word.
_ITALIAN_VERBS = frozenset({"è", "e'", "é", "era", "sarà"})
_PLAIN_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]{2,40}")


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    for name in ("vq", "vb"):
        if match.group(name) is not None:
            return match.span(name)
    raise AssertionError("a value pattern always holds a value")


def _readable(value: str) -> str:
    return value.rstrip(".,;:!?").lower()


def _shaped(value: str) -> bool:
    """Digits or symbols with letters: what a password in a sentence looks like (not "GitHub")."""
    core = value.rstrip(".,;:!?")
    has_letter = any(c.isalpha() for c in core)
    return has_letter and any(c.isdigit() or not c.isalnum() for c in core)


# Ways to sign in that a log-in phrase names where a password would stand ("sign in via SSO / SAML2").
_SIGN_IN_METHODS = frozenset({
    "sso", "saml", "saml2", "oauth", "oauth2", "oidc", "ldap", "kerberos", "2fa", "mfa", "totp", "otp", "google",
    "github", "gitlab", "microsoft", "azure", "okta", "apple", "passkey", "webauthn", "fido2", "u2f",
})


def _login_shaped(value: str) -> bool:
    """A log-in pair's password: a symbol, or both cases, besides letters and digits or symbols."""
    core = value.rstrip(".,;:!?")
    symbol = any(not c.isalnum() for c in core)
    both_cases = any(c.isupper() for c in core) and any(c.islower() for c in core)
    return _shaped(value) and (symbol or both_cases) and _readable(value) not in _SIGN_IN_METHODS


def _fine(value: str) -> bool:
    word = _readable(value)
    return not (is_masked(value) or is_placeholder(value) or word in W.STOPWORDS or word in _FOREIGN_STOPWORDS
                or _CODE_LIKE_RE.fullmatch(value.rstrip(".,;:!?")))


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while end > start and text[end - 1] in ".,;:!?":
        end -= 1
    return start, end


@detector("prose", "passwords in sentences: log-in pairs, in brackets, in other languages, secret words and PINs")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    if "/" in text or "|" in text:
        for m in matches_at(_LOGIN_RE, low, _LOGIN_STARTS):
            start, end = _trimmed(text, *m.span("vb"))
            value = text[start:end]
            if _login_shaped(value) and "/" not in value and _fine(value):
                yield start, end, "password"
    if "(" in text:
        for m in matches_at(_BRACKETED_RE, low, _BRACKETED_STARTS):
            start, end = m.span("vb")
            value = text[start:end]
            if _readable(value) not in _NOT_IN_BRACKETS and _shaped(value) and _fine(value):
                yield start, end, "password"
    if _SENTENCE_GATE.any_in(low):
        for m in _SENTENCE_RE.finditer(text):
            if m.group("italian") is not None and (m.group("verb") or "").lower() not in _ITALIAN_VERBS:
                continue
            start, end = _value_span(m)
            if m.group("vb") is not None:
                start, end = _trimmed(text, start, end)
            value = text[start:end]
            if (m.group("vq") is not None or _shaped(value)) and len(value) >= 3 and _fine(value):
                yield start, end, "password"
    if "word" in low or "pin" in low or "code" in low or "phrase" in low:
        for m in matches_at(_SECRET_WORD_RE, low, _SECRET_WORD_STARTS):
            start, end = _value_span(m)
            if m.group("vb") is not None:
                start, end = _trimmed(text, start, end)
            value = text[start:end]
            if m.group("pin") is not None:
                if _PIN_RE.fullmatch(value):
                    yield start, end, "pin"
            elif (m.group("vq") is not None or _PLAIN_WORD_RE.fullmatch(value) or _shaped(value)) and _fine(value):
                yield start, end, "secret-word"
