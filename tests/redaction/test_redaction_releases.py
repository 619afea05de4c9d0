"""The v0.17.0 and v0.18.0 redaction passes: the delta's verified examples, and the passes written out
plainly (without the implementation's pre-checks and batching) on random text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.redaction.hermes import mask_secret, redact_many, redact_sensitive_text

A26 = "abcdefghijklmnopqrstuvwxyz"

# (input, v0.18.0 output) from the delta's table of verified examples.
V0_18_EXAMPLES = [
    ("API_KEY=" + A26, "API_KEY=***"),
    ("  export API_KEY=" + A26, "  export API_KEY=***"),
    ('API_KEY="' + A26 + '"', 'API_KEY="***"'),
    ("A_TOKEN = " + A26, "A_TOKEN=***"),
    ("set MY_TOKEN=" + A26 + " now", "set MY_TOKEN=abcdef...wxyz now"),
    ("API_KEY=" + A26 + " see https://x.com", "API_KEY=abcdef...wxyz see https://x.com"),
    ("spring.datasource.password=hunter2hunter2hunter2", "spring.datasource.password=hunter...ter2"),
    ("app.api.key=xyz&other=1", "app.api.key=***&other=1"),
    ("password=supersecretvalue123456", "password=supers...3456"),
    ("db_password=abc", "db_password=***"),
    ("author=JohnSmith", "author=***"),
    ("I have password=foo in prose", "I have password=foo in prose"),
    ("my.password = spaced", "my.password = spaced"),
    ('export  token="quoted value"', 'export  token=*** value"'),
    ('token="abc"def', "token=***"),
    ("password: hunter2hunter2hunter2", "password: hunter...ter2"),
    ("  api_key: " + A26, "  api_key: abcdef...wxyz"),
    ("Token: abc", "Token: ***"),
    ("my_token:abc", "my_token:***"),
    ("secrets: [a, b]", "secrets: *** b]"),
    ("x_api_key: k1 more", "x_api_key: *** more"),
    ("note: secret meeting", "note: secret meeting"),
    ("token: 'quoted'", "token: 'quoted'"),
    ("- password: x", "- password: x"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZGxvbmdsb25n", "Authorization: Basic dXNlcj...b25n"),
    ("Authorization: token ghx_" + A26, "Authorization: token ghx_ab...wxyz"),
    ("authorization: " + A26, "authorization: abcdef...wxyz"),
    ("Authorization: required for this endpoint", "Authorization: required *** this endpoint"),
    ("Authorization: Bearer", "Authorization: ***"),
    ("authorization:Bearer", "authorization:***"),
    ('curl -H "Authorization: Bearer ' + A26 + '" https://x', 'curl -H "Authorization: Bearer abcdef...wxyz" https://x'),
    ("AUTHorization: Basic " + A26, "AUTHorization: Basic " + A26),
    ("Proxy-Authorization: Basic " + A26, "Proxy-Authorization: Basic abcdef...wxyz"),
    ("x-api-key: " + A26, "x-api-key: ***"),
    ("send my-api-key: value123 now", "send my-api-key: *** now"),
    ("X-Auth-Token:abc", "X-Auth-Token:***"),
    ("see: x-api-key:abc, ok", "see: x-api-key:*** ok"),
    ('curl -H "x-api-key: ' + A26 + '" https://x', 'curl -H "x-api-key: abcdef...xyz" https://x'),
    ("postgres://user:pass word@host", "postgres://user:pass word@host"),
    ("https://ghp_" + "A1b2C3d4E5" * 3 + "@github.com/x.git", "https://***@github.com/x.git"),
    ("https://abcdefgh12345@github.com/o/r", "https://***@github.com/o/r"),
    ("ssh://deploykey99@host:22", "ssh://***@host:22"),
    ("ftp://anonymous1@host", "ftp://***@host"),
    ("https://user:pass@host/x", "https://user:pass@host/x"),
    ("https://short@host", "https://short@host"),
    ("http://a.b@host", "http://a.b@host"),
    ("https://abcdefgh@", "https://abcdefgh@"),
    ("?q=user@example.com", "?q=user@example.com"),
    ("xapp-1-A0B1C2D3E4F5-1234567890-abcdef", "xapp-1...cdef"),
    ("fw_abc" + "0" * 27 + "123456789", "fw_abc...6789"),
]


@pytest.mark.parametrize(("text", "expected"), V0_18_EXAMPLES)
def test_v0_18_0_verified_examples(text, expected):
    assert redact_sensitive_text(text, release="v0.18.0") == expected


@pytest.mark.parametrize(
    ("text", "v0_17", "v0_16"),
    [
        ("ntn_abcdefgh", "ntn_abcdefgh", "ntn_abcdefgh"),
        ("ntn_abcdefghij", "***", "ntn_abcdefghij"),
        ("ntn_abcdefghijklmn", "ntn_ab...klmn", "ntn_abcdefghijklmn"),
        ("(ntn_abcdefghijklmnop)", "(ntn_ab...mnop)", "(ntn_abcdefghijklmnop)"),
        ("xntn_abcdefghijklmn", "xntn_abcdefghijklmn", "xntn_abcdefghijklmn"),
        ("ntn_abcdefghijklmn_x", "ntn_abcdefghijklmn_x", "ntn_abcdefghijklmn_x"),
        ("ntn_abcdefghijklmn-x", "ntn_abcdefghijklmn-x", "ntn_abcdefghijklmn-x"),
    ],
)
def test_v0_17_0_notion_tokens(text, v0_17, v0_16):
    assert redact_sensitive_text(text, release="v0.17.0") == v0_17 == redact_sensitive_text(text, release="v0.18.0")
    assert redact_sensitive_text(text, release="v0.16.0") == v0_16


def test_v0_17_0_only_adds_the_notion_pattern():
    text = "export API_TOKEN=" + A26 + " and Authorization: Bearer " + A26
    assert redact_sensitive_text(text, release="v0.17.0") == redact_sensitive_text(text, release="v0.16.0")


# --- the passes written out plainly ----------------------------------------------------------------

_VENDORS = [
    r"sk-[A-Za-z0-9_-]{10,}", r"ghp_[A-Za-z0-9]{10,}", r"github_pat_[A-Za-z0-9_]{10,}", r"gho_[A-Za-z0-9]{10,}",
    r"ghu_[A-Za-z0-9]{10,}", r"ghs_[A-Za-z0-9]{10,}", r"ghr_[A-Za-z0-9]{10,}", r"xapp-\d+-[A-Za-z0-9-]{10,}",
    r"xox[baprs]-[A-Za-z0-9-]{10,}", r"AIza[A-Za-z0-9_-]{30,}", r"pplx-[A-Za-z0-9]{10,}", r"fal_[A-Za-z0-9_-]{10,}",
    r"fc-[A-Za-z0-9]{10,}", r"bb_live_[A-Za-z0-9_-]{10,}", r"gAAAA[A-Za-z0-9_=-]{20,}", r"AKIA[A-Z0-9]{16}",
    r"sk_live_[A-Za-z0-9]{10,}", r"sk_test_[A-Za-z0-9]{10,}", r"rk_live_[A-Za-z0-9]{10,}", r"SG\.[A-Za-z0-9_-]{10,}",
    r"hf_[A-Za-z0-9]{10,}", r"r8_[A-Za-z0-9]{10,}", r"npm_[A-Za-z0-9]{10,}", r"pypi-[A-Za-z0-9_-]{10,}",
    r"dop_v1_[A-Za-z0-9]{10,}", r"doo_v1_[A-Za-z0-9]{10,}", r"am_[A-Za-z0-9_-]{10,}", r"sk_[A-Za-z0-9_]{10,}",
    r"tvly-[A-Za-z0-9]{10,}", r"exa_[A-Za-z0-9]{10,}", r"gsk_[A-Za-z0-9]{10,}", r"syt_[A-Za-z0-9]{10,}",
    r"retaindb_[A-Za-z0-9]{10,}", r"hsk-[A-Za-z0-9]{10,}", r"mem0_[A-Za-z0-9]{10,}", r"brv_[A-Za-z0-9]{10,}",
    r"xai-[A-Za-z0-9]{30,}", r"ntn_[A-Za-z0-9]{10,}", r"fw_[A-Za-z0-9]{30,}",
]
K = r"(?:api[ _.\-]?key|token|secret|passwd|password|credential|auth)"
V = r"""(['"]?)([^\s&]+?)\2(?=[\s&]|$)"""


def _plain_v0_18(text: str) -> str:
    m = mask_secret
    text = re.sub(r"(?<![A-Za-z0-9_-])(" + "|".join(_VENDORS) + r")(?![A-Za-z0-9_-])", lambda g: m(g.group(1)), text)
    kv = lambda g: f"{g.group(1)}={g.group(2)}{m(g.group(3))}{g.group(2)}"  # noqa: E731
    if "=" in text:
        text = re.sub(r"([A-Z0-9_]{0,50}(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)[A-Z0-9_]{0,50})"
                      r"\s*=\s*(['\"]?)(\S+)\2", kv, text)
        if "://" not in text:
            text = re.sub(rf"((?:[A-Za-z0-9_\-]+\.)+[A-Za-z0-9_.\-]*{K}[A-Za-z0-9_.\-]*|[A-Za-z0-9_.\-]*{K}"
                          rf"[A-Za-z0-9_.\-]*\.[A-Za-z0-9_.\-]+)={V}", kv, text, flags=re.I)
            text = re.sub(rf"(^[ \t]*(?:export[ \t]+)?[A-Za-z0-9_\-]*{K}[A-Za-z0-9_\-]*)={V}", kv, text,
                          flags=re.I | re.M)
    if ":" in text and '"' in text:
        text = re.sub(r'("(?:api_?[Kk]ey|token|secret|password|access_token|refresh_token|auth_token|bearer|secret_value'
                      r'|raw_secret|secret_input|key_material)")\s*:\s*"([^"]+)"', lambda g: f'{g.group(1)}: "{m(g.group(2))}"',
                      text, flags=re.I)
    if ":" in text and "://" not in text:
        text = re.sub(r"(^[ \t]*[A-Za-z0-9_.\-]*(?:api[ _.\-]?key|token|secret|passwd|password|credential)"
                      r"[A-Za-z0-9_.\-]*)(:[ \t]*)(?!['\"])([^\s&]+)",
                      lambda g: g.group(1) + g.group(2) + m(g.group(3)), text, flags=re.I | re.M)
    if "uthorization" in text or "UTHORIZATION" in text:
        text = re.sub(r"((?:Proxy-)?Authorization:\s*)([A-Za-z][\w.+-]*\s+)?([^\s\"']+)",
                      lambda g: g.group(1) + (g.group(2) or "") + m(g.group(3)), text, flags=re.I)
    if ":" in text:
        text = re.sub(r"((?:x-api-key|x-goog-api-key|api-key|apikey|x-api-token|x-auth-token|x-access-token)\s*:\s*)(\S+)",
                      lambda g: g.group(1) + m(g.group(2)), text, flags=re.I)
        text = re.sub(r"(bot)?(\d{8,}):([-A-Za-z0-9_]{30,})", lambda g: f"{g.group(1) or ''}{g.group(2)}:***", text)
    if "BEGIN" in text and "-----" in text:
        text = re.sub(r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----",
                      "[REDACTED PRIVATE KEY]", text)
    if "://" in text:
        text = re.sub(r"((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^:\s]+:)([^@\s]+)(@)",
                      lambda g: g.group(1) + "***" + g.group(3), text, flags=re.I)
        text = re.sub(r"((?:https?|wss?|git|ssh|ftp|ftps|sftp)://)([^\s:@/]{8,})(@[^\s]+)",
                      lambda g: g.group(1) + m(g.group(2)) + g.group(3), text, flags=re.I)
    if "eyJ" in text:
        text = re.sub(r"eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}", lambda g: m(g.group(0)), text)
    if "&" in text and "=" in text and "\n" not in text:
        stripped = text.strip()
        if re.match(r"^[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*(?:&[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*)+$", stripped):
            sensitive = {"access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "client_secret",
                         "password", "auth", "jwt", "session", "secret", "key", "code", "signature", "x-amz-signature"}
            pairs = []
            for pair in stripped.split("&"):
                key, sep, _value = pair.partition("=")
                pairs.append(f"{key}=***" if sep and key.lower() in sensitive else pair)
            text = "&".join(pairs)
    if "+" in text:
        text = re.sub(r"(\+[1-9]\d{6,14})(?![A-Za-z0-9])",
                      lambda g: (g.group(1)[:2] + "****" + g.group(1)[-2:]) if len(g.group(1)) <= 8
                      else (g.group(1)[:4] + "****" + g.group(1)[-4:]), text)
    return text


PIECES = [
    "API_KEY", "api.key", "db_password", "token", "export ", "  ", "\n", "=", ":", ": ", '"', "'", "&", "://", "https://",
    "postgres://", "ssh://", "user", "@", "host", "abcdefgh12345", A26, "value123", "x-api-key", "Proxy-", "Authorization: ",
    "Basic ", "Bearer ", "secret", "auth", "xapp-1-", "fw_", "ntn_", "sk-", "ghp_", "0123456789", "eyJ", "+1415555267",
    "-", ".", ",", " ",
]


@settings(max_examples=2500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=20).map("".join))
def test_v0_18_0_equals_the_passes_written_out(text):
    assert redact_sensitive_text(text, release="v0.18.0") == _plain_v0_18(text)


@settings(max_examples=800, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), max_size=6))
def test_v0_18_0_batches_keep_each_text_gate_apart(texts):
    # One text's "://" must not switch another text's config-key or YAML pass off, nor the reverse.
    assert redact_many(list(texts), release="v0.18.0") == [_plain_v0_18(t) for t in texts]
