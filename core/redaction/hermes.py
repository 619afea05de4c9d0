"""The reference redaction (``redact_sensitive_text``), pass for pass, per profile.

The profiles must mask exactly what the reference masks and nothing more, so every pattern,
gate and replacement below follows the specification literally, including its gaps (the
case-sensitive ``uthorization`` gate, the form-body stripping). Stricter masking lives in
``core.redaction.strict`` and only runs when the user turns it on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
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


# Every vendor alternative starts with one of these literals: a text containing none of them
# cannot match, and looking for plain bytes is far cheaper than running the 36-way alternation at
# every character of long tool outputs.
_VENDOR_STARTS = (
    "sk-", "ghp_", "github_pat_", "gho_", "ghu_", "ghs_", "ghr_", "xox", "AIza", "pplx-", "fal_", "fc-",
    "bb_live_", "gAAAA", "AKIA", "sk_", "rk_live_", "SG.", "hf_", "r8_", "npm_", "pypi-", "dop_v1_",
    "doo_v1_", "am_", "tvly-", "exa_", "gsk_", "syt_", "retaindb_", "hsk-", "mem0_", "brv_", "xai-",
)
_VENDOR_STARTS_BYTES = tuple(literal.encode() for literal in _VENDOR_STARTS)


def _has_vendor_start(text: str) -> bool:
    if text.isascii():
        return any(literal in text for literal in _VENDOR_STARTS)
    # Searching wide strings is slow; their UTF-8 bytes contain the ASCII literals just the same.
    data = text.encode("utf-8", "surrogatepass")
    return any(literal in data for literal in _VENDOR_STARTS_BYTES)


def _vendor_sub(text: str) -> str:
    if not _has_vendor_start(text):
        return text
    return _VENDOR_RE.sub(lambda m: mask_secret(m.group(1)), text)


def _json_gate(text: str) -> bool:
    return ":" in text and '"' in text


def _db_gate(text: str) -> bool:
    return "://" in text and any(literal in _fold(text) for literal in _DB_LITERALS)


@dataclass(frozen=True)
class _Pass:
    """One redaction pass: a cheap gate, the replacement, and the pattern whose match it needs."""

    gate: Callable[[str], bool]
    apply: Callable[[str], str]
    pattern: Any  # has ``search(text)``; None: the pass cannot be skipped by a search


_PASSES: tuple[_Pass, ...] = (
    _Pass(_has_vendor_start, _vendor_sub, _VENDOR_RE),
    _Pass(
        lambda t: "=" in t,
        lambda t: _ENV_RE.sub(lambda m: f"{m.group(1)}={m.group(2)}{mask_secret(m.group(3))}{m.group(2)}", t),
        _ENV_RE,
    ),
    _Pass(_json_gate, lambda t: _JSON_FIELD_RE.sub(lambda m: f'{m.group(1)}: "{mask_secret(m.group(2))}"', t), _JSON_FIELD_RE),
    _Pass(
        lambda t: "uthorization" in t or "UTHORIZATION" in t,
        lambda t: _AUTH_HEADER_RE.sub(lambda m: m.group(1) + mask_secret(m.group(2)), t),
        _AUTH_HEADER_RE,
    ),
    _Pass(
        lambda t: ":" in t and _DIGIT_COLON_RE.search(t) is not None,
        lambda t: _TELEGRAM_RE.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}:***", t),
        _TELEGRAM_RE,
    ),
    _Pass(lambda t: "BEGIN" in t and "-----" in t, lambda t: _PRIVATE_KEY_RE.sub("[REDACTED PRIVATE KEY]", t), _PRIVATE_KEY_RE),
    _Pass(_db_gate, lambda t: _DB_URL_RE.sub(lambda m: m.group(1) + "***" + m.group(3), t), _DB_URL_RE),
    _Pass(lambda t: "eyJ" in t, lambda t: _JWT_RE.sub(lambda m: mask_secret(m.group(0)), t), _JWT_RE),
    _Pass(lambda t: "&" in t and "=" in t, _redact_form_body, None),
)
_DISCORD_PASS = _Pass(
    lambda t: "<@" in t, lambda t: _DISCORD_RE.sub(lambda m: "<@!***>" if "!" in m.group(0) else "<@***>", t), _DISCORD_RE
)
_PHONE_PASS = _Pass(lambda t: "+" in t, lambda t: _PHONE_RE.sub(_mask_phone, t), _PHONE_RE)


def _passes(discord_mentions: bool) -> tuple[_Pass, ...]:
    return _PASSES + ((_DISCORD_PASS,) if discord_mentions else ()) + (_PHONE_PASS,)


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
    for redaction_pass in _passes(discord_mentions):
        if redaction_pass.gate(text):
            text = redaction_pass.apply(text)
    return text


# Joins texts for one search per pass. None of the patterns is anchored, and their boundary
# checks treat this character like the start or end of a text, so any match inside one text is
# also found in the joined text: a pass with no match there can be skipped for every text.
_JOIN = "\x00"


def redact_many(texts: list[str], *, discord_mentions: bool = False) -> list[str]:
    """``redact_sensitive_text`` over many strings, skipping passes that cannot match any of them."""
    texts = list(texts)
    for redaction_pass in _passes(discord_mentions):
        if redaction_pass.pattern is not None:
            joined = _JOIN.join(texts)
            if not redaction_pass.gate(joined) or redaction_pass.pattern.search(joined) is None:
                continue
        texts = [redaction_pass.apply(t) if t and redaction_pass.gate(t) else t for t in texts]
    return texts
