"""The cheap test of whether a text could hold a credential must never say no where a redaction
masks something: the extractive summary trusts it to skip the redaction of ordinary text. Checked
for every release's own passes, the keys known by their shape or vendor prefix and the labels the
test knows (the strict label family's values after a bare word are its documented gap)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.facts.credentials import (
    LABEL_ANCHORS,
    hints_at_credentials,
    label_hint,
    might_hold_credentials,
    redact_all,
    without_credentials_by_line,
)
from core.redaction.hermes import REDACTIONS, redact_sensitive_text

# One of each shape a redaction layer masks, written the way agents' logs carry them.
MASKED = [
    "export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234",
    "use glpat-abcdefghijklmnopqrst for the mirror",
    "AIzaSyD-abcdefghijklmnopqrstuvwxyz0123456",
    "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig12345",
    "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "xapp-1-A0B1C2D3E4F5-1234567890-abcdef",
    "ssh://deploy-user-production@build.example.com/srv",
    "git push https://x9Kq2LmN8pR4sT6vW1yZ3b@git.example.com/team/repo.git",
    "postgres://user:pass word@host",
    "call +14155552671 now",
    "hi <@123456789012345678>",
    "pw: Tr0ub4dor&3",
    "Reminder: the passphrase was purple-monkey-dishwasher-lamp, keep it safe.",
    '{"TOKEN": "abcdefghijklmnopqrstuvwxyz"}',
    '{"cmd": "{\\"api_key\\": \\"Zq8rT2mW9xK4pL7vN1cY5bH3\\"}"}',
    "author=JohnSmith",
    '{"pa\u017fsword": "abcdefghijklmnopqrstuvwxyz"}',  # a long s: a case-insensitive match folds it
    "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ1",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    # Keys known by their shape next to a cloud word (core.redaction.strict.shapes), with no label.
    "aws wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ok",
    "iam user: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "storage account blob " + "iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g5ubQ" * 2 + "Ab3dE6==",
    # Names holding a key word before their = or :, which the reference's passes mask.
    "TOKEN_LIMIT = 128000",
    "db.token_ttl=5",
    "api.key_id=3",
    "  token_ttl: 5",
    "tokenizer.model=gpt",
    "x.auth.mode=basic",
    "-u=admin:hunter2@host",
    # A key after a full-width letter: the releases' passes see the boundary the folded text lacks.
    "ＥＸＡＭＰＬＥsk-unused-local",
]


@pytest.mark.parametrize("text", MASKED)
def test_every_masked_shape_is_hinted(text):
    assert redact_all(text) != text  # a redaction masks something here
    assert might_hold_credentials([text])


def test_ordinary_agent_text_is_not_hinted():
    text = ("Ran pytest tests/test_parser.py::test_amount -q; FAILED: AssertionError: 2.67 != 2.68 at "
            "src/ledgerline/parser.py:42. See the decimal docs.")
    assert redact_all(text) == text and not might_hold_credentials([text])


def test_a_fact_inside_a_masked_value_is_dropped_line_by_line():
    text = "notes\nthe mirror token is glpat-abcdefghijklmnopqrst\nsee src/app.py"
    found = [("secret-looking", "glpat-abcdefghijklmnopqrst"), ("path", "src/app.py")]
    assert without_credentials_by_line(found, [text]) == [("path", "src/app.py")]


# The hint's fast form (punctuation shapes, then anchored words) answers as the single alternation it
# replaced: that pattern is kept here as the oracle.
ORACLE = re.compile(
    r"secret|passw|passphrase|\bpwd?\b|token\\{0,7}\"?\s{0,8}+[:=]|_token|credential|auth[\w.\-]{0,64}+\s{0,8}+[:=]"
    r"|token[\w.\-]{1,64}+\s{0,8}+[:=]|api[ _.\-]?key[\w.\-]{0,64}+\s{0,8}+[:=]"
    r"|authorization|bearer|cookie|session_?id|private[_ ]?key|key\\{0,7}\"?\s{0,8}+[:=]|key-data"
    r"|://[^\s/@]{1,600}+@|://[^\s/@:]{0,300}+:[^/@\n]{0,600}+@|-----begin|ls0tls1crudjti|webhook"
    r"|\+[1-9]\d{6}|<@!?\d|-u[\s=]|--user\b"
    r"|mysql|mariadb|sshpass|sqlcmd|\bbcp\b|\bosql\b|\bisql\b|\blogin\b|-cli\b|mongo|\bldap|\bsmb|rpcclient"
    r"|\bnxc\b|crackmapexec|\b(?:un)?zip\b|zipcloak|\b7z|keytool|jarsigner|apksigner|mosquitto|openssl|ssh-keygen"
    r"|htpasswd|rabbitmqctl|\bnet\s{1,8}+user\b"
    r"|:(?:\d{1,5}|\*):[^:\s]{1,100}+:[^:\s]{1,100}+:|\bmachine\b|log\s?[io]n|sign\s?in|\bcreds\b"
    r"|kennwort|contrase|\bclave\b|mot de passe|\bmdp\b|\bsenha\b|wachtwoord|has[łl]o|senord|adgangskode|passord"
    r"|salasana|ifre\b|\bparola\b|\bheslo\b|jelsz|пароль|\b(?:secret|magic|code|safe)\s?(?:word|phrase|code)\b"
    r"|\bpin\b|passcode"
)

# Pieces that sit at the edges of the patterns: anchors, separators, word characters around them.
PIECES = [*LABEL_ANCHORS, "://", "a:b@", "u@", "@", ":", "+1234567", "+0123456", "<@", "<@!1", "<@x", " -u ", "-u=",
          "x-u ", "--user", "--users", "-----begin", "-cli", "-client", ":12:", ":*:", "ab:cd:", " ", "\n", "\t",
          "_", "x", "7", "word", "phrase", "=", '"', "\\", "in", "on", "i n", "user", "  user", "id", "_id",
          "key-data", "_key", "ssh-", "un", "cloak", "gen", "s", "é", ".", "-", "api", "api.", "api key", "_limit", "izer",
          "\u00a0", "\u3000", "\x1c", "catalog", "sessions"]


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 9))) for _ in range(count)]


def test_the_fast_hint_agrees_with_the_single_pattern_on_pieces_of_every_alternative() -> None:
    texts = _texts(60_000, seed=7)
    disagree = [text for text in texts if label_hint(text) != bool(ORACLE.search(text))]
    assert disagree == []
    # Both answers occur: the pieces reach matches and near misses alike.
    answers = {label_hint(text) for text in texts}
    assert answers == {True, False}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=4), max_size=12))
def test_the_fast_hint_agrees_on_generated_text(parts: list[str]) -> None:
    text = "".join(parts).casefold()
    assert label_hint(text) == bool(ORACLE.search(text))


@pytest.mark.parametrize(("text", "expected"), [
    ("export DB_PASSWORD=hunter2", True),
    ("curl -u admin:pw https://example.com", True),
    ("postgres://alice:s3cret@db.internal:5432/app", True),
    ("mysql -h db -p app", True),
    ("db.example.com:5432:app:alice:hunter2:", True),
    ("Ran 212 tests in 3.1s\nOK", False),
    ("def spinning_wheel(): return catalog.network", False),
])
def test_hints_on_everyday_text(text: str, expected: bool) -> None:
    assert hints_at_credentials(text) is expected


def test_the_anchor_spellings_know_every_blank_a_pattern_knows() -> None:
    import sys

    from core.facts.credentials import WHITESPACE

    assert WHITESPACE == "".join(char for char in map(chr, range(sys.maxunicode + 1)) if re.match(r"\s", char))
    assert WHITESPACE.casefold() == WHITESPACE


def test_the_vendor_hint_agrees_with_its_look_behind_form() -> None:
    from core.facts.credentials import _GENERIC_STARTS, _INNER_GATES, _STARTS, vendor_hint

    oracle = re.compile(
        r"(?<![A-Za-z0-9_-])(?:" + "|".join([*_GENERIC_STARTS.values(), *(re.escape(s) for s in _STARTS)]) + ")"
        + "|" + "|".join(re.escape(literal) for literal in _INNER_GATES) + r"|\d{8}:[A-Za-z0-9_-]{30}")
    pieces = [*_STARTS, *_INNER_GATES, "AKIA", "ASIA", "glpat-", "glx-", "ghp_", "SK0123abcd", "sq0csp-", "shpat_",
              "ya29.", "SG.", ".", "-", "_", "x", "7", " ", "\n", "12345678:", "a" * 30, "desk", "monkey"]
    rng = random.Random(5)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(60_000)]
    assert [text for text in texts if vendor_hint(text) != bool(oracle.search(text))] == []
    assert {vendor_hint(text) for text in texts} == {True, False}


# Pieces of the shapes the strict layer masks without a label, and the words it needs beside them.
SHAPE_PIECES = ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g5ubQ" * 2 + "Ab3dE6",
                "==", "aws", "iam", "boto", "access_", "akia", "asia", "azure", "storage", "account", "blob",
                "secret", " ", "\n", "-", "_", ".", "/", "x", "7", "+1415555267", "ABCDEFGHIJabcdefghij1234567890ABCDEFGHIJ"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(SHAPE_PIECES), min_size=1, max_size=8))
def test_a_key_masked_by_its_shape_is_always_hinted(parts: list[str]) -> None:
    text = "".join(parts)
    assert redact_all(text) == text or hints_at_credentials(text), text


def test_a_commit_hash_or_a_long_path_is_not_taken_for_a_key() -> None:
    for text in ("commit 3f2a9c0e1b7d4a5f6e8c9b0a1d2e3f4a5b6c7d8e merged",
                 "ls /home/dev/ledgerline/src/ledgerline/importers/formats/dkb.py"):
        assert redact_all(text) == text and not hints_at_credentials(text)


# Pieces of what the releases' own passes mask (core.redaction.hermes): names that hold a key word,
# written as env lines, dotted keys, YAML keys, JSON fields, headers, form bodies and URLs.
REFERENCE_PIECES = ["TOKEN", "token", "API_KEY", "api-key", "apiKey", "SECRET", "Password", "passwd", "CREDENTIAL",
                    "AUTH", "auth", "_LIMIT", "_ttl", ".", "-", "_", "x", "db", "=", " = ", ":", ": ", "\n", "  ",
                    '"', "'", "&", "?", "value1", "s3cr3tV4lue", "export ", "https://", "u:p@h", "Bearer ",
                    "Authorization", "x-api-key", "+14155552671", "<@123>", "eyJhbGciOiJIUzI1NiJ9"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(REFERENCE_PIECES), min_size=1, max_size=9))
def test_what_a_release_masks_is_always_hinted(parts: list[str]) -> None:
    text = "".join(parts)
    masked_by_a_release = any(redact_sensitive_text(text, release=release) != text for release in REDACTIONS)
    assert not masked_by_a_release or hints_at_credentials(text), text
