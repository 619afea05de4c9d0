"""The reference redaction, pass by pass (spec §6.1, delta §6)."""

from __future__ import annotations

import pytest

from core.redaction.hermes import mask_secret, redact_sensitive_text

R = redact_sensitive_text


def test_mask_rule():
    assert mask_secret("") == "***"
    assert mask_secret("a" * 17) == "***"
    assert mask_secret("abcdef0123456789XYZW") == "abcdef...XYZW"


def test_none_non_string_and_empty():
    assert R(None) is None
    assert R("") == ""
    assert R(12345) == "12345"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-abc1234567890123456 end", "key sk-abc...3456 end"),
        ("ghp_" + "a" * 36, "ghp_aa...aaaa"),
        ("xsk-abc1234567890123456", "xsk-abc1234567890123456"),  # bounded by the lookbehind
        ("AKIAABCDEFGHIJKLMNOP", "AKIAAB...MNOP"),
        ("short sk-1234567890", "short ***"),
        ("API_TOKEN = abcdefghijklmnopqrstuvwxyz", "API_TOKEN=abcdef...wxyz"),
        ('MY_SECRET="abcdefghijklmnopqrstuvwxyz"', 'MY_SECRET="abcdef...wxyz"'),
        ("myTOKEN=abc", "myTOKEN=***"),
        ('{"Api_Key" :  "abcdefghijklmnopqrstuvwxyz"}', '{"Api_Key": "abcdef...wxyz"}'),
        ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: Bearer abcdef...wxyz"),
        ("AUTHorization: Bearer abcdefghijklmnopqrstuvwxyz", "AUTHorization: Bearer abcdefghijklmnopqrstuvwxyz"),
        ("bot123456789:" + "A" * 35, "bot123456789:***"),
        ("-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "[REDACTED PRIVATE KEY]"),
        ("postgres://u:p@ss@h/db", "postgres://u:***@ss@h/db"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig12345", "eyJhbG...2345"),
        ("  a=1&token=xyz&b=2 ", "a=1&token=***&b=2"),
        ("a=1&b=2\nc", "a=1&b=2\nc"),
        ("call +14155552671 now", "call +141****2671 now"),
        ("+1234567", "+1****67"),
    ],
)
def test_passes(text, expected):
    assert R(text) == expected


def test_discord_mentions_only_in_v0_15_1():
    text = "hi <@123456789012345678> and <@!123456789012345678>"
    assert R(text, discord_mentions=True) == "hi <@***> and <@!***>"
    assert R(text) == text


def test_second_pass_collapses_masks_like_the_reference():
    once = R("export API_TOKEN=abcdefghijklmnopqrstuvwxyz")
    assert once == "export API_TOKEN=abcdef...wxyz"
    assert R(once) == "export API_TOKEN=***"
