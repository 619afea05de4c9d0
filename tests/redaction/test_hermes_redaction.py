"""The reference redaction, pass by pass (spec §6.1, delta §6)."""

from __future__ import annotations

import pytest

from core.redaction.hermes import mask_secret, redact_sensitive_text


def R(text, release: str = "v0.16.0"):  # noqa: N802  (these are the v0.15.1/v0.16.0 passes)
    return redact_sensitive_text(text, release=release)


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
    assert R(text, release="v0.15.1") == "hi <@***> and <@!***>"
    assert R(text) == text


def test_second_pass_collapses_masks_like_the_reference():
    once = R("export API_TOKEN=abcdefghijklmnopqrstuvwxyz")
    assert once == "export API_TOKEN=abcdef...wxyz"
    assert R(once) == "export API_TOKEN=***"


@pytest.mark.parametrize(
    "text",
    [
        '{"paſsword": "abcdefghijklmnopqrstuvwxyz"}',
        '{"apİ_key": "abcdefghijklmnopqrstuvwxyz"}',
        '{"TOKEN": "abcdefghijklmnopqrstuvwxyz"}',
        "ReDıs://user:hunter2@host",
        "mySQL://user:pw@host",
        "bot12345678:" + "x" * 40,
    ],
)
def test_fast_gates_match_the_full_patterns(text):
    """The cheap pre-checks must never skip a match the full pattern would find."""
    import re

    from core.redaction import hermes

    expected = text
    for pattern, repl in (
        (hermes._JSON_FIELD_RE, lambda m: f'{m.group(1)}: "{mask_secret(m.group(2))}"'),
        (hermes._DB_URL_RE, lambda m: m.group(1) + "***" + m.group(3)),
        (hermes._TELEGRAM_RE, lambda m: f"{m.group(1) or ''}{m.group(2)}:***"),
    ):
        expected = re.sub(pattern, repl, expected)
    assert expected != text
    assert R(text) == expected


def _ungated(text: str, discord: bool = False) -> str:
    """The passes without any pre-check, to compare against the gated implementation."""
    from core.redaction import hermes as h

    text = h._VENDOR_RE.sub(lambda m: mask_secret(m.group(1)), text)
    if "=" in text:
        text = h._ENV_RE.sub(lambda m: f"{m.group(1)}={m.group(2)}{mask_secret(m.group(3))}{m.group(2)}", text)
    if ":" in text and '"' in text:
        text = h._JSON_FIELD_RE.sub(lambda m: f'{m.group(1)}: "{mask_secret(m.group(2))}"', text)
    if "uthorization" in text or "UTHORIZATION" in text:
        text = h._AUTH_HEADER_RE.sub(lambda m: m.group(1) + mask_secret(m.group(2)), text)
    if ":" in text:
        text = h._TELEGRAM_RE.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}:***", text)
    if "BEGIN" in text and "-----" in text:
        text = h._PRIVATE_KEY_RE.sub("[REDACTED PRIVATE KEY]", text)
    if "://" in text:
        text = h._DB_URL_RE.sub(lambda m: m.group(1) + "***" + m.group(3), text)
    if "eyJ" in text:
        text = h._JWT_RE.sub(lambda m: mask_secret(m.group(0)), text)
    if "&" in text and "=" in text:
        text = h._redact_form_body(text)
    if discord and "<@" in text:
        text = h._DISCORD_RE.sub(lambda m: "<@!***>" if "!" in m.group(0) else "<@***>", text)
    if "+" in text:
        text = h._PHONE_RE.sub(h._mask_phone, text)
    return text


_PIECES = [
    "sk-", "ghp_", "AKIA", "API_KEY", "TOKEN", "=", ":", '"', "password", "paſsword", "apİ_key", "Authorization: Bearer ",
    "bot", "123456789", ":", "postgres://", "ReDıs://", "u", "@", "eyJ", "abcdefghij", "ABCDEFGHIJKLMNOPQRSTUVWX",
    "&", "token=", "+1415555267", " ", "\n", "<@123456789012345678>", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----",
]


def test_gated_redaction_equals_ungated_on_random_text():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=1500, deadline=None)
    @given(st.lists(st.sampled_from(_PIECES), max_size=25).map("".join), st.booleans())
    def check(text, discord):
        assert R(text, release="v0.15.1" if discord else "v0.16.0") == _ungated(text, discord)

    check()


def test_vendor_pass_by_candidates_equals_the_plain_substitution():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from core.redaction import hermes as h

    starts = list(h._VENDOR_STARTS) + ["sk_live_", "xoxb-", "xapp-1-", "-", "_", "a", "Z", "0", " ", ".", "\x00"]

    @settings(max_examples=2000, deadline=None)
    @given(st.lists(st.one_of(st.sampled_from(starts), st.text(alphabet="aZ09_-.", max_size=40)), max_size=12).map("".join))
    def check(text):
        for pattern in (h._VENDOR_RE, h._VENDOR_RE_V0_17_0, h._VENDOR_RE_V0_18_0):
            substitute = h._vendor_pass(pattern)
            expected = pattern.sub(lambda m: mask_secret(m.group(1)), text)
            assert substitute(text) == expected
            assert substitute(text + "—") == pattern.sub(lambda m: mask_secret(m.group(1)), text + "—")
            if pattern.search(text):
                assert h._has_vendor_start(text) and h._has_vendor_start("—" + text)

    check()
