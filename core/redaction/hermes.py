"""The reference redaction (``redact_sensitive_text``), pass for pass, per profile.

The profiles must mask exactly what the reference masks and nothing more, so every pattern,
gate and replacement below follows the specification literally, including its gaps (the
case-sensitive ``uthorization`` gate, the form-body stripping). Stricter masking lives in
``core.redaction.strict`` and only runs when the user turns it on.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from core.literals import Literals

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


def _vendor_re(patterns: tuple[str, ...]) -> re.Pattern[str]:
    # Python's alternation takes the first alternative that matches, so the order is the release's.
    return re.compile(r"(?<![A-Za-z0-9_-])(" + "|".join(patterns) + r")(?![A-Za-z0-9_-])")


_VENDOR_RE = _vendor_re(_VENDOR_PATTERNS)
# v0.17.0 appends Notion's integration tokens; v0.18.0 inserts Slack app-level tokens before the
# other Slack tokens and appends Fireworks keys.
_VENDOR_PATTERNS_V0_17_0 = (*_VENDOR_PATTERNS, r"ntn_[A-Za-z0-9]{10,}")
_SLACK_AT = _VENDOR_PATTERNS.index(r"xox[baprs]-[A-Za-z0-9-]{10,}")
_VENDOR_PATTERNS_V0_18_0 = (
    *_VENDOR_PATTERNS[:_SLACK_AT],
    r"xapp-\d+-[A-Za-z0-9-]{10,}",
    *_VENDOR_PATTERNS_V0_17_0[_SLACK_AT:],
    r"fw_[A-Za-z0-9]{30,}",
)
# v0.18.1 adds Fireworks' dash form right before its underscore form, and project keys at the end.
_FW_AT = _VENDOR_PATTERNS_V0_18_0.index(r"fw_[A-Za-z0-9]{30,}")
_VENDOR_PATTERNS_V0_18_1 = (
    *_VENDOR_PATTERNS_V0_18_0[:_FW_AT],
    r"fw-[A-Za-z0-9]{30,}",
    *_VENDOR_PATTERNS_V0_18_0[_FW_AT:],
    r"fpk_[A-Za-z0-9]{30,}",
)
_VENDOR_RE_V0_17_0 = _vendor_re(_VENDOR_PATTERNS_V0_17_0)
_VENDOR_RE_V0_18_0 = _vendor_re(_VENDOR_PATTERNS_V0_18_0)
_VENDOR_RE_V0_18_1 = _vendor_re(_VENDOR_PATTERNS_V0_18_1)
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
# Cheap pre-checks. Each probe below finds something exactly when its pattern finds a match
# (``_DB_SCHEME_RE`` only needs the scheme), but opens with a literal character or keyword the
# regex engine scans for quickly, instead of trying the pattern's opening (an optional group, a
# case-insensitive word, a run of digits) at every position of long tool outputs. The JSON keys
# all open with a, t, s, p, r, b or k (case-insensitively: the class folds like the letters, ſ
# and the Kelvin sign included): checking that first is cheaper than trying the twelve
# alternatives after every double quote of a JSON-heavy text.
_JSON_PROBE_RE = re.compile(_JSON_FIELD_RE.pattern.replace('("(?:', '("(?=[atsprbk])(?:', 1), re.IGNORECASE)
_ENV_PROBE_RE = re.compile(r"(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)[A-Z0-9_]{0,50}\s*=\s*\S")
_AUTH_PROBE_RE = re.compile(r":(?<=(?i:Authorization):)\s*(?i:Bearer)\s+\S")
_TELEGRAM_PROBE_RE = re.compile(r":(?<=\d{8}:)[-A-Za-z0-9_]{30}")
_DB_SCHEME_RE = re.compile(
    r"://(?:(?<=(?i:amqp)://)|(?<=(?i:mysql|redis)://)|(?<=(?i:mongodb)://)|(?<=(?i:postgres)://)"
    r"|(?<=(?i:postgresql)://)|(?<=(?i:mongodb\+srv)://))"
)
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


# Every vendor alternative starts with one of these literals, right after a character outside
# ``[A-Za-z0-9_-]`` (or at the start): a text without such an occurrence cannot match.
_VENDOR_STARTS = (
    "sk-", "ghp_", "github_pat_", "gho_", "ghu_", "ghs_", "ghr_", "xox", "AIza", "pplx-", "fal_", "fc-",
    "bb_live_", "gAAAA", "AKIA", "sk_", "rk_live_", "SG.", "hf_", "r8_", "npm_", "pypi-", "dop_v1_",
    "doo_v1_", "am_", "tvly-", "exa_", "gsk_", "syt_", "retaindb_", "hsk-", "mem0_", "brv_", "xai-",
    "ntn_", "xapp-", "fw_", "fw-", "fpk_",
)
#: The vendor literals, for readers that need a cheap test of whether a text could hold a key.
VENDOR_STARTS = _VENDOR_STARTS
_BOUNDARY = r"(?<![A-Za-z0-9_-])"


def _after_boundary(separator: str, heads: tuple[str, ...]) -> re.Pattern[str]:
    """``separator`` preceded by one of ``heads`` that starts after a boundary.

    The pattern starts with a literal character, which the regex engine finds with a plain scan
    (far cheaper than trying an alternation at every position); the look-behinds are grouped by
    width because each must have a fixed one.
    """
    by_width: dict[int, list[str]] = {}
    for head in heads:
        by_width.setdefault(len(re.sub(r"\[[^]]*\]", "x", head)), []).append(head)
    checks = "|".join(
        f"(?<={_BOUNDARY}(?:{'|'.join(group)}){re.escape(separator)})" for _width, group in sorted(by_width.items())
    )
    return re.compile(f"{re.escape(separator)}(?:{checks})")


# The literals above, each found by its first "_", "-" or "." (or its "A" when it has none).
_VENDOR_GATES = (
    _after_boundary(
        "_",
        ("gh[pousr]", "github", "fal", "bb", "sk", "rk", "hf", "r8", "npm", "dop", "doo", "am", "exa", "gsk", "syt",
         "retaindb", "mem0", "brv", "ntn", "fw", "fpk"),
    ),
    _after_boundary("-", ("sk", "xox[baprs]", "pplx", "fc", "pypi", "tvly", "hsk", "xai", "xapp", "fw")),
    _after_boundary(".", ("SG",)),
    re.compile(rf"A(?:(?<={_BOUNDARY}A)(?:Iza|KIA)|(?<={_BOUNDARY}gA)AAA)"),
)


def _has_vendor_start(text: str) -> bool:
    """Is one of the vendor literals in ``text`` right after a boundary (necessary for a match)?"""
    return any(gate.search(text) is not None for gate in _VENDOR_GATES)


def _vendor_pass(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def substitute(text: str) -> str:
        if not _has_vendor_start(text):
            return text
        return pattern.sub(lambda m: mask_secret(m.group(1)), text)

    return substitute


def _json_gate(text: str) -> bool:
    return ":" in text and '"' in text


def _env_gate(text: str) -> bool:
    return "=" in text and _ENV_PROBE_RE.search(text) is not None


def _auth_gate(text: str) -> bool:
    return ("uthorization" in text or "UTHORIZATION" in text) and _AUTH_PROBE_RE.search(text) is not None


def _telegram_gate(text: str) -> bool:
    return ":" in text and _TELEGRAM_PROBE_RE.search(text) is not None


def _db_gate(text: str) -> bool:
    return "://" in text and _DB_SCHEME_RE.search(text) is not None


@dataclass(frozen=True)
class _Pass:
    """One redaction pass: a cheap gate, the replacement, and the pattern whose match it needs.

    ``gate(text)`` is false only when the pass cannot change ``text``. ``probe`` (optional) has a
    ``search`` that finds something in a text wherever the pattern matches; it is only worth
    having where it is cheap and the gate alone lets much ordinary text through.
    """

    kind: str  # what the pass masks (the redaction preview labels its masks with it)
    gate: Callable[[str], bool]
    apply: Callable[[str], str]
    pattern: Any  # the pattern ``apply`` substitutes; None when it is not one pattern
    probe: Any = None
    batch_gate: Callable[[str], bool] | None = None  # for redact_many's joined text; ``gate`` when None


_VENDOR_PASS = _Pass("vendor-key", _has_vendor_start, _vendor_pass(_VENDOR_RE), _VENDOR_RE)
_ENV_PASS = _Pass(
    "env-assignment",
    _env_gate,
    lambda t: _ENV_RE.sub(lambda m: f"{m.group(1)}={m.group(2)}{mask_secret(m.group(3))}{m.group(2)}", t),
    _ENV_RE,
)
_JSON_PASS = _Pass(
    "json-field",
    _json_gate,
    lambda t: _JSON_FIELD_RE.sub(lambda m: f'{m.group(1)}: "{mask_secret(m.group(2))}"', t),
    _JSON_FIELD_RE,
    _JSON_PROBE_RE,
)
_BEARER_PASS = _Pass(
    "bearer-header", _auth_gate, lambda t: _AUTH_HEADER_RE.sub(lambda m: m.group(1) + mask_secret(m.group(2)), t),
    _AUTH_HEADER_RE,
)
_TELEGRAM_PASS = _Pass(
    "telegram-token",
    _telegram_gate,
    lambda t: _TELEGRAM_RE.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}:***", t),
    _TELEGRAM_RE,
)
_PRIVATE_KEY_PASS = _Pass(
    "private-key",
    lambda t: "BEGIN" in t and "-----" in t,
    lambda t: _PRIVATE_KEY_RE.sub("[REDACTED PRIVATE KEY]", t),
    _PRIVATE_KEY_RE,
    _PRIVATE_KEY_RE,
)
_DB_PASS = _Pass(
    "database-url", _db_gate, lambda t: _DB_URL_RE.sub(lambda m: m.group(1) + "***" + m.group(3), t), _DB_URL_RE
)
_JWT_PASS = _Pass("jwt", lambda t: "eyJ" in t, lambda t: _JWT_RE.sub(lambda m: mask_secret(m.group(0)), t), _JWT_RE, _JWT_RE)
_FORM_PASS = _Pass("form-field", lambda t: "&" in t and "=" in t, _redact_form_body, None)
_DISCORD_PASS = _Pass(
    "discord-mention",
    lambda t: "<@" in t,
    lambda t: _DISCORD_RE.sub(lambda m: "<@!***>" if "!" in m.group(0) else "<@***>", t),
    _DISCORD_RE,
    _DISCORD_RE,
)
_PHONE_PASS = _Pass("phone-number", lambda t: "+" in t, lambda t: _PHONE_RE.sub(_mask_phone, t), _PHONE_RE, _PHONE_RE)

_V0_16_PASSES = (
    _VENDOR_PASS, _ENV_PASS, _JSON_PASS, _BEARER_PASS, _TELEGRAM_PASS, _PRIVATE_KEY_PASS, _DB_PASS, _JWT_PASS,
    _FORM_PASS, _PHONE_PASS,
)
_V0_17_PASSES = (_Pass("vendor-key", _has_vendor_start, _vendor_pass(_VENDOR_RE_V0_17_0), _VENDOR_RE_V0_17_0),
                 *_V0_16_PASSES[1:])

# --- v0.18.0: config keys in any case, YAML keys, any Authorization scheme, API-key headers,
# whitespace-bounded connection strings and bare-token URL userinfo ---------------------------------
_KEY_WORD = r"(?:api[ _.\-]?key|token|secret|passwd|password|credential|auth)"
_VALUE = r"""(['"]?)([^\s&]+?)\2(?=[\s&]|$)"""
_DOTTED_KEY_RE = re.compile(
    rf"((?:[A-Za-z0-9_\-]+\.)+[A-Za-z0-9_.\-]*{_KEY_WORD}[A-Za-z0-9_.\-]*|[A-Za-z0-9_.\-]*{_KEY_WORD}[A-Za-z0-9_.\-]*\.[A-Za-z0-9_.\-]+)={_VALUE}",
    re.IGNORECASE,
)
_LINE_KEY_RE = re.compile(
    rf"(^[ \t]*(?:export[ \t]+)?[A-Za-z0-9_\-]*{_KEY_WORD}[A-Za-z0-9_\-]*)={_VALUE}", re.IGNORECASE | re.MULTILINE
)
_YAML_KEY_RE = re.compile(
    r"(^[ \t]*[A-Za-z0-9_.\-]*(?:api[ _.\-]?key|token|secret|passwd|password|credential)[A-Za-z0-9_.\-]*)"
    r"""(:[ \t]*)(?!['"])([^\s&]+)""",
    re.IGNORECASE | re.MULTILINE,
)
# The YAML key's colon follows its last character, a letter of the key word or one of the
# characters the pattern allows after it (with the pattern's own case folding): necessary for a
# match, and found by scanning for the colon.
_YAML_KEY_PROBE_RE = re.compile(r":(?<=[A-Za-z0-9_.\-]:)", re.IGNORECASE)


def _yaml_key_gate(text: str) -> bool:
    return ":" in text and "://" not in text and _YAML_KEY_PROBE_RE.search(text) is not None


_ANY_AUTH_RE = re.compile(r"""((?:Proxy-)?Authorization:\s*)([A-Za-z][\w.+-]*\s+)?([^\s"']+)""", re.IGNORECASE)
_KEY_HEADER_RE = re.compile(
    r"((?:x-api-key|x-goog-api-key|api-key|apikey|x-api-token|x-auth-token|x-access-token)\s*:\s*)(\S+)", re.IGNORECASE
)
# Every header name above ends in "key" or "token", and only whitespace may come between it and
# the colon: a colon right after one of those words, or right after whitespace, is necessary for a
# match. Opening with the colon lets the engine scan for it instead of trying seven
# case-insensitive names at every position.
_KEY_HEADER_PROBE_RE = re.compile(r":(?:(?<=(?i:key):)|(?<=(?i:token):)|(?<=\s:))")


def _key_header_gate(text: str) -> bool:
    return ":" in text and _KEY_HEADER_PROBE_RE.search(text) is not None


_DB_URL_RE_V0_18_0 = re.compile(
    r"((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^:\s]+:)([^@\s]+)(@)", re.IGNORECASE
)
_URL_USERINFO_RE = re.compile(r"((?:https?|wss?|git|ssh|ftp|ftps|sftp)://)([^\s:@/]{8,})(@[^\s]+)", re.IGNORECASE)


def _key_value_sub(pattern: re.Pattern[str]) -> Callable[[str], str]:
    return lambda t: pattern.sub(lambda m: f"{m.group(1)}={m.group(2)}{mask_secret(m.group(3))}{m.group(2)}", t)


# A config key's match holds one of its key words (_KEY_WORD; "passwd" and "password" by their
# common start). Most texts with an "=" hold none, and the patterns try their opening run of name
# characters at every position: the words are looked for first, in one case-blind pass.
_KEY_WORDS = Literals(("apikey", "api key", "api_key", "api.key", "api-key", "token", "secret", "passw",
                       "credential", "auth"))
_has_key_word = _KEY_WORDS.any_in_ignorecase


def _in_key_lines(apply: Callable[[str], str]) -> Callable[[str], str]:
    """``apply`` (the dotted config key's substitution) line by line, on the lines holding an "=" and a
    key word only. A match never holds a line break (none of its parts matches one, and a line's end
    ends a value as the break does), and the pattern looks at nothing before it: the lines are
    substituted as in the whole text. On a line of dotted names (source code) the pattern tries its
    opening run again from every position, so the lines without a key word are worth skipping."""

    def on_key_lines(text: str) -> str:
        lines = text.split("\n")
        changed = False
        for index, line in enumerate(lines):
            if "=" in line and _has_key_word(line):
                redacted = apply(line)
                if redacted != line:
                    lines[index] = redacted
                    changed = True
        return "\n".join(lines) if changed else text

    return on_key_lines


def _config_key_gate(text: str) -> bool:
    return "=" in text and "://" not in text and _has_key_word(text)


def _config_key_batch_gate(text: str) -> bool:
    return "=" in text and _has_key_word(text)


# Gates that need a literal to be absent ("://") hold per text only: for a batch, ``batch_gate``
# is the part that a joined text can answer for all of them.
_V0_18_PASSES = (
    _Pass("vendor-key", _has_vendor_start, _vendor_pass(_VENDOR_RE_V0_18_0), _VENDOR_RE_V0_18_0),
    _ENV_PASS,
    _Pass("config-key", _config_key_gate, _in_key_lines(_key_value_sub(_DOTTED_KEY_RE)), _DOTTED_KEY_RE,
          batch_gate=_config_key_batch_gate),
    _Pass("config-key", _config_key_gate, _key_value_sub(_LINE_KEY_RE), _LINE_KEY_RE, batch_gate=_config_key_batch_gate),
    _JSON_PASS,
    _Pass("yaml-key", _yaml_key_gate,
          lambda t: _YAML_KEY_RE.sub(lambda m: m.group(1) + m.group(2) + mask_secret(m.group(3)), t), _YAML_KEY_RE,
          _YAML_KEY_PROBE_RE, batch_gate=lambda t: ":" in t),
    _Pass("authorization-header", lambda t: "uthorization" in t or "UTHORIZATION" in t,
          lambda t: _ANY_AUTH_RE.sub(lambda m: m.group(1) + (m.group(2) or "") + mask_secret(m.group(3)), t),
          _ANY_AUTH_RE),
    _Pass("api-key-header", _key_header_gate,
          lambda t: _KEY_HEADER_RE.sub(lambda m: m.group(1) + mask_secret(m.group(2)), t), _KEY_HEADER_RE,
          _KEY_HEADER_PROBE_RE),
    _TELEGRAM_PASS,
    _PRIVATE_KEY_PASS,
    # The same schemes as before v0.18.0 (only the characters allowed after them changed).
    _Pass("database-url", _db_gate,
          lambda t: _DB_URL_RE_V0_18_0.sub(lambda m: m.group(1) + "***" + m.group(3), t), _DB_URL_RE_V0_18_0),
    # Its match holds an "@" after the "://".
    _Pass("url-userinfo", lambda t: "://" in t and "@" in t,
          lambda t: _URL_USERINFO_RE.sub(lambda m: m.group(1) + mask_secret(m.group(2)) + m.group(3), t),
          _URL_USERINFO_RE),
    _JWT_PASS,
    _FORM_PASS,
    _PHONE_PASS,
)

# --- v0.18.1: programmatic environment lookups are not secrets (#2852) -----------------------------
# Tested with ``match`` on the captured value: the whole match is then kept as it was.
_ENV_LOOKUP_VALUE_RE = re.compile(r"(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)")


def _unless_lookup(group: int, replace: Callable[[re.Match[str]], str]) -> Callable[[re.Match[str]], str]:
    def replacement(match: re.Match[str]) -> str:
        if _ENV_LOOKUP_VALUE_RE.match(match.group(group)):
            return match.group(0)
        return replace(match)

    return replacement


def _env_replacement(m: re.Match[str]) -> str:
    return f"{m.group(1)}={m.group(2)}{mask_secret(m.group(3))}{m.group(2)}"


_ENV_KEEP_LOOKUPS = _unless_lookup(3, _env_replacement)
_V0_18_1_PASSES = (
    _Pass("vendor-key", _has_vendor_start, _vendor_pass(_VENDOR_RE_V0_18_1), _VENDOR_RE_V0_18_1),
    dataclasses.replace(_ENV_PASS, apply=lambda t: _ENV_RE.sub(_ENV_KEEP_LOOKUPS, t)),
    dataclasses.replace(_V0_18_PASSES[2], apply=_in_key_lines(lambda t: _DOTTED_KEY_RE.sub(_ENV_KEEP_LOOKUPS, t))),
    dataclasses.replace(_V0_18_PASSES[3], apply=lambda t: _LINE_KEY_RE.sub(_ENV_KEEP_LOOKUPS, t)),
    dataclasses.replace(_JSON_PASS, apply=lambda t: _JSON_FIELD_RE.sub(
        _unless_lookup(2, lambda m: f'{m.group(1)}: "{mask_secret(m.group(2))}"'), t)),
    dataclasses.replace(_V0_18_PASSES[5], apply=lambda t: _YAML_KEY_RE.sub(
        _unless_lookup(3, lambda m: m.group(1) + m.group(2) + mask_secret(m.group(3))), t)),
    *_V0_18_PASSES[6:],
)

# --- v0.19.0: the opt-in URL credential passes (``redact_url_credentials=True``), which the release
# runs over a memory provider's context only ---------------------------------------------------------
_URL_PARAM_RE = re.compile(r"""([?#&;])([A-Za-z0-9_.~+%\-]+)=([^#&;\s"'<>]*)""")
_URL_SENSITIVE_PARAMS = _FORM_SENSITIVE_KEYS
_ANY_USERINFO_RE = re.compile(r"((?:[A-Za-z][A-Za-z0-9+.-]*:)?//)([^/\s?#@]+)@")


def _canonical_param(name: str) -> str:
    for _ in range(3):
        decoded = unquote_plus(name)
        if decoded == name:
            break
        name = decoded
    return name.casefold().replace("-", "_")


def _mask_url_param(m: re.Match[str]) -> str:
    if _canonical_param(m.group(2)) in _URL_SENSITIVE_PARAMS:
        return f"{m.group(1)}{m.group(2)}=***"
    return m.group(0)


def _mask_userinfo(m: re.Match[str]) -> str:
    userinfo = m.group(2)
    masked = userinfo.split(":", 1)[0] + ":***@" if ":" in userinfo else "***@"
    return m.group(1) + masked


_URL_CREDENTIAL_PASSES = (
    _Pass("url-parameter", lambda t: "=" in t and any(c in t for c in "?#&;"),
          lambda t: _URL_PARAM_RE.sub(_mask_url_param, t), _URL_PARAM_RE),
    _Pass("url-userinfo", lambda t: "//" in t and "@" in t, lambda t: _ANY_USERINFO_RE.sub(_mask_userinfo, t),
          _ANY_USERINFO_RE),
)
_JWT_AT = _V0_18_1_PASSES.index(_JWT_PASS) + 1
_V0_19_MEMORY_PASSES = (*_V0_18_1_PASSES[:_JWT_AT], *_URL_CREDENTIAL_PASSES, *_V0_18_1_PASSES[_JWT_AT:])

# A profile's ``redaction`` names its passes, in their order (``memory_redaction`` likewise).
REDACTIONS: dict[str, tuple[_Pass, ...]] = {
    "v0.15.1": (*_V0_16_PASSES[:-1], _DISCORD_PASS, _PHONE_PASS),
    "v0.16.0": _V0_16_PASSES,
    "v0.17.0": _V0_17_PASSES,
    "v0.18.0": _V0_18_PASSES,
    "v0.18.1": _V0_18_1_PASSES,
    "v0.19.0-memory": _V0_19_MEMORY_PASSES,
}


def passes_for(release: str | None = None) -> tuple[_Pass, ...]:
    """The reference passes of ``release`` (a profile's ``redaction``; the default profile's when None), in order."""
    if release is None:
        from core.profiles import DEFAULT_PROFILE, PROFILES

        release = PROFILES[DEFAULT_PROFILE].redaction
    try:
        return REDACTIONS[release]
    except KeyError:
        raise ValueError(f"no redaction rules for {release!r}; expected one of {sorted(REDACTIONS)}") from None


def _reference_substitutes(text: str, passes: tuple[_Pass, ...]) -> bool:
    """Does one of the reference's own pre-checks let ``text`` into a pass that calls ``re.sub``?"""
    return (
        any(literal in text for literal in _VENDOR_STARTS)
        or "=" in text
        or ":" in text  # the JSON, Telegram and database passes all need one
        or "uthorization" in text
        or "UTHORIZATION" in text
        or ("BEGIN" in text and "-----" in text)
        or "eyJ" in text
        or (_DISCORD_PASS in passes and "<@" in text)
        or "+" in text
    )


def _plain_text(text: str, passes: tuple[_Pass, ...]) -> str:
    """``text``, or a plain ``str`` copy of a str subclass where the reference would make one.

    ``re.sub`` returns a plain ``str`` even when nothing matches, so the reference returns a
    subclass instance as a plain copy once any substitution pass has run on it, which depends on
    its pre-checks rather than on the tighter ones used here (the copy only differs where the
    subclass formats or prints itself differently).
    """
    if type(text) is str or not _reference_substitutes(text, passes):
        return text
    return str.__str__(text)


def redact_sensitive_text(text: Any, *, release: str | None = None) -> Any:
    """Mask credentials the way ``release`` (a profile's ``redaction``; the default profile's when None) does.

    ``None`` stays ``None``, other non-strings are ``str()``-ed first, ``""`` is returned as is.
    """
    passes = passes_for(release)
    if text is None:
        return None
    if not isinstance(text, str):
        text = str(text)
    if not text:
        return text
    text = _plain_text(text, passes)
    for redaction_pass in passes:
        if redaction_pass.gate(text):
            text = redaction_pass.apply(text)
    return text


# Joins texts for one check per pass. None of the patterns is anchored, and their boundary
# checks treat this character like the start or end of a text, so a gate or probe that finds
# something in one text also finds it in the joined text: a pass whose gate or probe finds
# nothing there can be skipped for every text.
_JOIN = "\x00"


def redact_many(texts: list[str], *, release: str | None = None) -> list[str]:
    """``redact_sensitive_text`` over many strings, skipping passes that cannot match any of them."""
    passes = passes_for(release)
    texts = [text if type(text) is str or not text else _plain_text(text, passes) for text in texts]
    joined = None
    for redaction_pass in passes:
        if joined is None:
            joined = _JOIN.join(texts)
        gate = redaction_pass.gate
        batch_gate = redaction_pass.batch_gate or gate
        if not batch_gate(joined) or (redaction_pass.probe is not None and redaction_pass.probe.search(joined) is None):
            continue
        apply = redaction_pass.apply
        for i, text in enumerate(texts):
            if text and gate(text):
                redacted = apply(text)
                if redacted is not text:
                    texts[i] = redacted
                    joined = None
    return texts
