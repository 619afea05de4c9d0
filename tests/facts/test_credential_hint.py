"""The cheap test of whether a text could hold a credential must never say no where a redaction
masks something: the extractive summary trusts it to skip the redaction of ordinary text."""

from __future__ import annotations

import pytest

from core.facts.credentials import might_hold_credentials, redact_all, without_credentials_by_line

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
