"""The reference redaction (``redact_sensitive_text``), pass for pass, per profile.

The profiles must mask exactly what the reference masks and nothing more, so every pattern,
gate and replacement below follows the specification literally, including its gaps (the
case-sensitive ``uthorization`` gate, the form-body stripping). Stricter masking lives in
``core.redaction.strict`` and only runs when the user turns it on.
"""

from __future__ import annotations

import re
from typing import Any

_VENDOR_PATTERNS = (
    r"sk-[A-Za-z0-9_-]{10,}",
    r"ghp_[A-Za-z0-9]{10,}",
    r"github_pat_[A-Za-z0-9_]{10,}",
    r"gho_[A-Za-z0-9]{10,}",
    r"ghu_[A-Za-z0-9]{10,}",
    r"ghs_[A-Za-z0-9]{10,}",
    r"ghr_[A-Za-z0-9]{10,}",
    r"xox[baprs]-[A-Za-z0-9-]{10,}",
    r"AIza[A-Za-z0-9_-]{30,}",
    r"pplx-[A-Za-z0-9]{10,}",
    r"fal_[A-Za-z0-9_-]{10,}",
    r"fc-[A-Za-z0-9]{10,}",
    r"bb_live_[A-Za-z0-9_-]{10,}",
    r"gAAAA[A-Za-z0-9_=-]{20,}",
    r"AKIA[A-Z0-9]{16}",
    r"sk_live_[A-Za-z0-9]{10,}",
    r"sk_test_[A-Za-z0-9]{10,}",
    r"rk_live_[A-Za-z0-9]{10,}",
    r"SG\.[A-Za-z0-9_-]{10,}",
    r"hf_[A-Za-z0-9]{10,}",
    r"r8_[A-Za-z0-9]{10,}",
    r"npm_[A-Za-z0-9]{10,}",
    r"pypi-[A-Za-z0-9_-]{10,}",
    r"dop_v1_[A-Za-z0-9]{10,}",
    r"doo_v1_[A-Za-z0-9]{10,}",
    r"am_[A-Za-z0-9_-]{10,}",
    r"sk_[A-Za-z0-9_]{10,}",
    r"tvly-[A-Za-z0-9]{10,}",
    r"exa_[A-Za-z0-9]{10,}",
    r"gsk_[A-Za-z0-9]{10,}",
    r"syt_[A-Za-z0-9]{10,}",
    r"retaindb_[A-Za-z0-9]{10,}",
    r"hsk-[A-Za-z0-9]{10,}",
    r"mem0_[A-Za-z0-9]{10,}",
    r"brv_[A-Za-z0-9]{10,}",
    r"xai-[A-Za-z0-9]{30,}",
)
_VENDOR_RE = re.compile(r"(?<![A-Za-z0-9_-])(" + "|".join(_VENDOR_PATTERNS) + r")(?![A-Za-z0-9_-])")
_ENV_RE = re.compile(
    r"([A-Z0-9_]{0,50}(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)[A-Z0-9_]{0,50})\s*=\s*(['\"]?)(\S+)\2"
)
_JSON_FIELD_RE = re.compile(
    r'("(?:api_?[Kk]ey|token|secret|password|access_token|refresh_token|auth_token|bearer|secret_value'
    r'|raw_secret|secret_input|key_material)")\s*:\s*"([^"]+)"',
    re.IGNORECASE,
)
_AUTH_HEADER_RE = re.compile(r"(Authorization:\s*Bearer\s+)(\S+)", re.IGNORECASE)
_TELEGRAM_RE = re.compile(r"(bot)?(\d{8,}):([-A-Za-z0-9_]{30,})")
_PRIVATE_KEY_RE = re.compile(r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----")
_DB_URL_RE = re.compile(
    r"((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^:]+:)([^@]+)(@)", re.IGNORECASE
)
_JWT_RE = re.compile(r"eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}")
_FORM_BODY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*(?:&[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*)+$")
_FORM_SENSITIVE_KEYS = frozenset(
    {
        "access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "client_secret",
        "password", "auth", "jwt", "session", "secret", "key", "code", "signature", "x-amz-signature",
    }
)
# Cheap pre-checks: every match of the pattern contains these, so checking them first is exact
# and skips the slow scans on ordinary text.
_JSON_LITERALS = ("key", "token", "secret", "password", "bearer")
_DB_LITERALS = ("postgres", "mysql", "mongodb", "redis", "amqp")
_DIGIT_COLON_RE = re.compile(r"\d:")


def _fold(text: str) -> str:
    """Lower-case ``text`` the way ``re.IGNORECASE`` matches ASCII letters (ſ, ı, İ and the Kelvin sign too)."""
    lowered = text.lower()
    if not text.isascii():
        lowered = lowered.replace("\u017f", "s").replace("\u0131", "i").replace("i\u0307", "i")
    return lowered
_DISCORD_RE = re.compile(r"<@!?(\d{17,20})>")
_PHONE_RE = re.compile(r"(\+[1-9]\d{6,14})(?![A-Za-z0-9])")


def mask_secret(value: str, head: int = 6, tail: int = 4, floor: int = 18) -> str:
    """Keep a recognisable shape (``sk-abc...3456``) without the value; short values become ``***``."""
    if not value or len(value) < floor:
        return "***"
    return f"{value[:head]}...{value[-tail:]}"


def _redact_form_body(text: str) -> str:
    if "\n" in text or "&" not in text:
        return text
    stripped = text.strip()
    if not _FORM_BODY_RE.match(stripped):
        return text
    pairs = []
    for pair in stripped.split("&"):
        if "=" not in pair:
            pairs.append(pair)
            continue
        key, _, _value = pair.partition("=")
        pairs.append(f"{key}=***" if key.lower() in _FORM_SENSITIVE_KEYS else pair)
    return "&".join(pairs)


def _mask_phone(match: re.Match[str]) -> str:
    number = match.group(1)
    if len(number) <= 8:
        return number[:2] + "****" + number[-2:]
    return number[:4] + "****" + number[-4:]


def redact_sensitive_text(text: Any, *, discord_mentions: bool = False) -> Any:
    """Mask credentials the way the reference does.

    ``None`` stays ``None``, other non-strings are ``str()``-ed first, ``""`` is returned as is.
    ``discord_mentions`` enables the v0.15.1 Discord pass (removed in v0.16.0).
    """
    if text is None:
        return None
    if not isinstance(text, str):
        text = str(text)
    if not text:
        return text

    text = _VENDOR_RE.sub(lambda m: mask_secret(m.group(1)), text)
    if "=" in text:
        text = _ENV_RE.sub(lambda m: f"{m.group(1)}={m.group(2)}{mask_secret(m.group(3))}{m.group(2)}", text)
    if ":" in text and '"' in text:
        lowered = _fold(text)
        if any(literal in lowered for literal in _JSON_LITERALS):
            text = _JSON_FIELD_RE.sub(lambda m: f'{m.group(1)}: "{mask_secret(m.group(2))}"', text)
    if "uthorization" in text or "UTHORIZATION" in text:
        text = _AUTH_HEADER_RE.sub(lambda m: m.group(1) + mask_secret(m.group(2)), text)
    if ":" in text and _DIGIT_COLON_RE.search(text):
        text = _TELEGRAM_RE.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}:***", text)
    if "BEGIN" in text and "-----" in text:
        text = _PRIVATE_KEY_RE.sub("[REDACTED PRIVATE KEY]", text)
    if "://" in text:
        lowered = _fold(text)
        if any(literal in lowered for literal in _DB_LITERALS):
            text = _DB_URL_RE.sub(lambda m: m.group(1) + "***" + m.group(3), text)
    if "eyJ" in text:
        text = _JWT_RE.sub(lambda m: mask_secret(m.group(0)), text)
    if "&" in text and "=" in text:
        text = _redact_form_body(text)
    if discord_mentions and "<@" in text:
        text = _DISCORD_RE.sub(lambda m: "<@!***>" if "!" in m.group(0) else "<@***>", text)
    if "+" in text:
        text = _PHONE_RE.sub(_mask_phone, text)
    return text
