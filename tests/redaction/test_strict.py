"""Strict redaction: what it masks, how, where, and what it must leave alone.

The corpora under tests/data/secrets are produced by tests/data/secrets/generate.py. ``credentials``
is the tuning corpus, ``heldout`` uses another seed and other sentences, key names, files and tools,
and ``near_misses`` holds look-alikes (hashes, ids, data URLs, code) that must survive unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from core.redaction.hermes import redact_sensitive_text
from core.redaction.strict import (
    PRIVATE_KEY_MASK,
    SecretSpan,
    count_by_kind,
    find_secrets,
    mask_value,
    redact_with_spans,
    strict_redact,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "secrets"
CONTEXTS = {"user_text", "tool_args", "escaped_json", "escaped_json_2", "tool_output"}


def _load(name: str) -> list[dict]:
    with (DATA / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


CREDENTIALS = _load("credentials.jsonl")
HELDOUT = _load("heldout.jsonl")
NEAR_MISSES = _load("near_misses.jsonl")


def leaked(secret: str, text: str) -> bool:
    """The secret, or any 12-character piece of it, is still in ``text``.

    A mask keeps at most the first 6 and last 4 characters, so no 12-character piece survives a
    correct mask; a value masked only in part (say its first half) is still reported as leaked.
    """
    if len(secret) <= 12:
        return secret in text
    return any(secret[i:i + 12] in text for i in range(len(secret) - 11))


def _ids(rows: list[dict]) -> list[str]:
    return [row["id"] for row in rows]


# --------------------------------------------------------------------------------------------
# The corpora themselves
# --------------------------------------------------------------------------------------------


def test_corpus_has_every_kind_in_every_context() -> None:
    by_kind: dict[str, set[str]] = {}
    for row in CREDENTIALS:
        assert row["secret"] in row["text"], row["id"]
        by_kind.setdefault(row["kind"], set()).add(row["context"])
    assert all(contexts == CONTEXTS for contexts in by_kind.values())
    assert {"aws-secret-key", "azure-storage-key", "password-sentence", "passphrase", "sql-server-password",
            "env-lowercase-secret", "high-entropy-labelled", "basic-auth-url", "authorization-basic",
            "authorization-mixed-case", "session-cookie", "gcp-private-key-id", "slack-webhook",
            "sendgrid-key-full", "twilio-api-key", "mailgun-key", "heroku-key", "npm-legacy-token",
            "stripe-webhook-secret"} <= set(by_kind)
    # every pattern kind of the reference redaction is there too
    assert {"openai-key", "github-token", "slack-token", "google-api-key", "aws-access-key-id", "stripe-live-key",
            "sendgrid-key-prefix", "env-assignment", "json-secret-field", "bearer-token", "telegram-bot-token",
            "private-key-rsa", "db-url-password", "jwt", "form-body-secret", "phone-number"} <= set(by_kind)
    # escaped JSON really is escaped, once and twice
    assert all('\\"' in row["text"] for row in CREDENTIALS if row["context"] == "escaped_json")
    assert all('\\\\\\"' in row["text"] for row in CREDENTIALS if row["context"] == "escaped_json_2")


def test_heldout_differs_from_the_tuning_corpus() -> None:
    assert {row["kind"] for row in HELDOUT} == {row["kind"] for row in CREDENTIALS}
    tuning_secrets = {row["secret"] for row in CREDENTIALS}
    assert not tuning_secrets & {row["secret"] for row in HELDOUT}
    assert not {row["text"] for row in CREDENTIALS} & {row["text"] for row in HELDOUT}


def test_strict_only_kinds_really_get_past_the_reference() -> None:
    """The strict-only kinds are exactly what the reference lets through (so this layer is needed)."""
    strict_only = [row for row in CREDENTIALS + HELDOUT if not row["reference"]]
    leaked_by_reference = [row for row in strict_only if leaked(row["secret"], redact_sensitive_text(row["text"]))]
    rate = len(leaked_by_reference) / len(strict_only)
    print(f"reference alone leaks {len(leaked_by_reference)}/{len(strict_only)} strict-only lines ({rate:.1%})")
    assert rate > 0.9


# --------------------------------------------------------------------------------------------
# Catching credentials
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("row", CREDENTIALS, ids=_ids(CREDENTIALS))
def test_credential_is_masked(row: dict) -> None:
    out = strict_redact(row["text"])
    assert not leaked(row["secret"], out), out


@pytest.mark.parametrize("row", CREDENTIALS, ids=_ids(CREDENTIALS))
def test_credential_is_masked_after_the_reference(row: dict) -> None:
    """In the product the profile's own redaction runs first; strict must finish the job on its output."""
    out = strict_redact(redact_sensitive_text(row["text"]))
    assert not leaked(row["secret"], out), out


def test_heldout_secrets_do_not_survive() -> None:
    survivors = [row["id"] for row in HELDOUT if leaked(row["secret"], strict_redact(row["text"]))]
    caught = len(HELDOUT) - len(survivors)
    print(f"held-out catch rate: {caught}/{len(HELDOUT)} ({caught / len(HELDOUT):.1%})")
    assert survivors == []


def test_heldout_secrets_do_not_survive_after_the_reference() -> None:
    survivors = [row["id"] for row in HELDOUT
                 if leaked(row["secret"], strict_redact(redact_sensitive_text(row["text"])))]
    assert survivors == []


# --------------------------------------------------------------------------------------------
# Shape of the masks
# --------------------------------------------------------------------------------------------


def test_mask_value_rules() -> None:
    assert mask_value("a" * 17) == "***"
    assert mask_value("abcdefghijklmnopqr") == "abcdef...opqr"
    assert mask_value("") == "***"
    assert mask_value("anything", "private-key") == PRIVATE_KEY_MASK


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
         "aws_secret_access_key = wJalrX...EKEY"),
        ("my password is hunter2!", "my password is ***"),
        ("pw: Tr0ub4dor&3", "pw: ***"),
        ('{"cmd": "{\\"api_key\\": \\"Zq8rT2mW9xK4pL7vN1cY5bH3\\"}"}',
         '{"cmd": "{\\"api_key\\": \\"Zq8rT2...5bH3\\"}"}'),
        ("clone https://deploy:S3cr3tPass@git.example.com/x.git",
         "clone https://deploy:***@git.example.com/x.git"),
        ("AUTHorization: Bearer Xy7kP2mQ9rT4vW8zA1bC5dE3", "AUTHorization: Bearer Xy7kP2...5dE3"),
        ("Cookie: sessionid=q8w7e6r5t4y3u2i1o0p9", "Cookie: sessionid=q8w7e6...o0p9"),
        ("db_password=Fk82!x", "db_password=***"),
    ],
)
def test_masked_shape(text: str, expected: str) -> None:
    assert strict_redact(text) == expected


def test_private_keys_become_one_marker() -> None:
    body = "\n".join(["MIIEowIBAAKCAQEA" + "Q" * 48, "A1b2C3d4" * 8, "Zz9Yy8Xx" * 8])
    full = f"key:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nthanks"
    assert strict_redact(full) == f"key:\n{PRIVATE_KEY_MASK}\nthanks"
    pgp = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n{body}\n-----END PGP PRIVATE KEY BLOCK-----"
    assert strict_redact(pgp) == PRIVATE_KEY_MASK
    truncated = f"head of file:\n-----BEGIN PRIVATE KEY-----\n{body}\n[output truncated]"
    assert strict_redact(truncated) == f"head of file:\n{PRIVATE_KEY_MASK}\n[output truncated]"
    escaped = json.dumps({"private_key": f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"})
    assert strict_redact(escaped) == json.dumps({"private_key": PRIVATE_KEY_MASK + "\n"})


# --------------------------------------------------------------------------------------------
# Spans
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("row", CREDENTIALS[::3], ids=_ids(CREDENTIALS[::3]))
def test_spans_point_at_the_masks_in_the_output(row: dict) -> None:
    text = row["text"]
    out, spans = redact_with_spans(text)
    assert out == strict_redact(text)
    assert spans, "a credential line yields at least one span"
    for span in spans:
        assert out[span.start:span.end] == span.masked
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))
    # rebuilding the input from the output spans and the input spans gives the input back
    in_spans = find_secrets(text)
    assert [s.masked for s in in_spans] == [s.masked for s in spans]
    rebuilt, cursor_out = [], 0
    for in_span, out_span in zip(in_spans, spans, strict=True):
        rebuilt.append(out[cursor_out:out_span.start])
        rebuilt.append(text[in_span.start:in_span.end])
        cursor_out = out_span.end
    rebuilt.append(out[cursor_out:])
    assert "".join(rebuilt) == text


def test_input_spans_describe_the_original_values() -> None:
    text = "user: admin\npassword: Sup3r$ecretValue2024\naws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    spans = find_secrets(text)
    assert [(text[s.start:s.end], s.kind) for s in spans] == [
        ("Sup3r$ecretValue2024", "password"),
        ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret-key"),
    ]
    assert [s.masked for s in spans] == ["Sup3r$...2024", "wJalrX...EKEY"]
    assert all(isinstance(s, SecretSpan) for s in spans)


def test_spans_stay_right_after_non_ascii_text() -> None:
    # "İ" lower-cases to two code points with str.lower(); positions must not drift
    text = "İİİ 日本語 🙂 — the password is Kx9!pQ2#zW " + "İ" * 5 + " token=Zq8rT2mW9xK4pL7vN1cY5bH3"
    out, spans = redact_with_spans(text)
    assert [out[s.start:s.end] for s in spans] == [s.masked for s in spans]
    assert out == "İİİ 日本語 🙂 — the password is *** " + "İ" * 5 + " token=Zq8rT2...5bH3"


def test_count_by_kind() -> None:
    text = ("password: Kx9!pQ2#zW\nsecond password: Lm3@nB7$vC\n"
            "aws secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    assert count_by_kind(find_secrets(text)) == {"password": 2, "aws-secret-key": 1}
    assert count_by_kind([]) == {}


# --------------------------------------------------------------------------------------------
# What must stay untouched
# --------------------------------------------------------------------------------------------


def test_near_misses_stay_untouched() -> None:
    touched = [row for row in NEAR_MISSES if strict_redact(row["text"]) != row["text"]]
    rate = 1 - len(touched) / len(NEAR_MISSES)
    print(f"near misses untouched: {len(NEAR_MISSES) - len(touched)}/{len(NEAR_MISSES)} ({rate:.1%})")
    for row in touched:
        print("  changed:", row["id"], [(s.kind, row["text"][s.start:s.end]) for s in find_secrets(row["text"])])
    assert rate >= 0.95
    # image data URLs are never masked, not even one of them
    assert not [row for row in touched if row["kind"] == "data-url"]


def test_near_miss_corpus_covers_the_look_alikes() -> None:
    kinds = Counter(row["kind"] for row in NEAR_MISSES)
    assert set(kinds) == {"git-sha", "uuid", "data-url", "hex-id-url", "lockfile-hash", "docker-digest",
                          "file-path", "code", "test-name", "words"}
    assert min(kinds.values()) >= 4


def test_text_masked_by_the_reference_is_left_alone() -> None:
    text = ("key sk-pro...3456 and password=*** and token: ghp_ab...wxyz\n"
            "postgres://app:***@db:5432/x  bot12345678:***  call +141****2671\n"
            "[REDACTED PRIVATE KEY]\nAuthorization: Bearer eyJhbG...J9ab\n"
            "AWS_SECRET_ACCESS_KEY=wJalrX...EKEY\n" + '{"refresh_token": "Fk0123...cdef"}')
    assert find_secrets(text) == []
    assert strict_redact(text) == text


@pytest.mark.parametrize("row", CREDENTIALS + NEAR_MISSES, ids=_ids(CREDENTIALS + NEAR_MISSES))
def test_running_twice_changes_nothing_more(row: dict) -> None:
    once = strict_redact(row["text"])
    assert strict_redact(once) == once


def test_plain_text_is_returned_unchanged() -> None:
    text = "Fixed the flaky test in tests/test_api.py; 42 passed, 0 failed. Next: update the README."
    assert strict_redact(text) == text
    assert strict_redact("") == ""
    assert redact_with_spans("") == ("", [])


# --------------------------------------------------------------------------------------------
# Bad and weird input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, b"password=hunter2!", 42, ["password=x"]])
def test_non_text_input_gets_a_clear_error(bad: object) -> None:
    with pytest.raises(TypeError, match=r"expects the text as str, got"):
        strict_redact(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"find_secrets\(\) expects the text as str"):
        find_secrets(bad)  # type: ignore[arg-type]


def _assert_consistent(text: str) -> str:
    out, spans = redact_with_spans(text)
    assert isinstance(out, str)
    assert all(out[s.start:s.end] == s.masked for s in spans)
    return out


def test_binary_looking_text() -> None:
    rng = random.Random(5)
    noise = bytes(rng.getrandbits(8) for _ in range(200_000)).decode("latin-1")
    _assert_consistent(noise)
    _assert_consistent("\x00" * 1000 + "password=\x00\x01\x02" + "\ud800" + "token=\x7f" * 50)


def test_huge_text_still_finds_the_secret_at_the_end() -> None:
    filler = ("INFO step ok; tokens=1532 session=abc commit 3f2a9c1b keyboard passed auth\n" * 40_000)
    text = filler + "finally: db_password=Qw7!eR4#tY2u"
    assert len(text) > 3_000_000
    out = _assert_consistent(text)
    assert out.endswith("db_password=***")
    assert out[: len(filler)] == filler


def test_degenerate_shapes() -> None:
    shapes = [
        "\\" * 5000 + '"' * 5000,
        'password=' * 5000,
        '"password": "' * 3000,
        "-----BEGIN PRIVATE KEY-----" + "\\n" * 5000,
        "-----BEGIN PRIVATE KEY-----\n" + "A" * 200_000,
        "https://" + "a:" * 5000 + "@" * 10,
        "Cookie: " + "a=b; " * 10_000,
        "key " * 20_000,
        "=" * 50_000 + "A" * 86 + "==",
        base64.b64encode(bytes(range(256)) * 2000).decode(),
        "x" * 1_000_000,
        json.dumps(json.dumps(json.dumps(json.dumps({"api_key": "Zq8rT2mW9xK4pL7vN1cY5bH3"})))),
    ]
    for text in shapes:
        _assert_consistent(text)
    deep = json.dumps(json.dumps(json.dumps(json.dumps({"api_key": "Zq8rT2mW9xK4pL7vN1cY5bH3"}))))
    assert "Zq8rT2mW9xK4pL7vN1cY5bH3" not in strict_redact(deep)


def test_data_urls_are_never_masked_even_next_to_secret_words() -> None:
    payload = base64.b64encode(bytes(random.Random(3).getrandbits(8) for _ in range(3000))).decode()
    text = f"secret screenshot token: data:image/png;base64,{payload} aws key"
    assert strict_redact(text) == text


def test_masks_leave_surrounding_json_valid() -> None:
    row = next(r for r in CREDENTIALS if r["id"] == "tune-password-sentence-escaped_json_2")
    out = strict_redact(row["text"])
    inner = json.loads(json.loads(json.loads(out)["data"])["body"])
    assert re.fullmatch(r"my password is \*\*\*", inner["text"])


# -- passphrases stated in prose and keys carried as a URL's user name ---------------------------

PROSE_PASSPHRASES = [
    ("my password is correct-horse-battery", "correct-horse-battery"),
    ("Reminder: the passphrase was purple-monkey-dishwasher-lamp, keep it safe.", "purple-monkey-dishwasher-lamp"),
    ("fyi my wifi password is Tangerine-Kettle-Orbit.", "Tangerine-Kettle-Orbit"),
    ('{"content": "my password is correct-horse-battery"}', "correct-horse-battery"),
]


@pytest.mark.parametrize(("text", "secret"), PROSE_PASSPHRASES)
def test_a_hyphen_joined_passphrase_in_prose_is_masked(text: str, secret: str) -> None:
    assert secret not in strict_redact(text)
    assert [span.kind for span in find_secrets(text)] == ["password"]


SENTRY_KEY = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d"
URL_KEYS = [
    (f"SENTRY_DSN=https://{SENTRY_KEY}@o448812.ingest.sentry.io/5551234", SENTRY_KEY, "sentry-dsn"),
    (f'sentry_sdk.init(dsn="https://{SENTRY_KEY}@o448812.ingest.sentry.io/5551234")', SENTRY_KEY, "sentry-dsn"),
    (f"the dsn is https://{SENTRY_KEY}@o448812.ingest.us.sentry.io/42 for staging", SENTRY_KEY, "sentry-dsn"),
    ("git push https://x9Kq2LmN8pR4sT6vW1yZ3b@git.example.com/team/repo.git", "x9Kq2LmN8pR4sT6vW1yZ3b", "url-key"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), URL_KEYS)
def test_a_key_carried_as_the_user_of_a_url_is_masked(text: str, secret: str, kind: str) -> None:
    redacted = strict_redact(text)
    assert secret not in redacted
    assert ".sentry.io/" in redacted or "git.example.com" in redacted  # the rest of the URL stays readable
    assert [span.kind for span in find_secrets(text)] == [kind]


@pytest.mark.parametrize("text", [
    "git clone https://git@github.com/org/repo.git",
    "ssh://deploy-user-production@build.example.com/srv",
    "mailto:release-notes-team@example.com",
    "pip install git+https://oauth2@gitlab.example.com/group/pkg.git",
    "the password policy is auto-rotate",
    "see the password-reset-flow docs for details",
    "a password reset is self-service-only here",
    "my password is long",  # one word: not a passphrase
    "the password is made-up",  # two short words
])
def test_look_alikes_of_the_new_rules_stay_untouched(text: str) -> None:
    assert strict_redact(text) == text
