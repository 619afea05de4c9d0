"""Strict redaction: an extra masking layer for everything sent to a summarizer.

The profiles' own redaction (``core.redaction.hermes``) reproduces the reference exactly, gaps
included. When ``strict_redaction`` is on, this layer runs after it and also masks what the reference
lets through: cloud keys without a vendor prefix (AWS secret access keys, Azure storage and
shared-access keys), passwords written in plain sentences, connection-string keys, credentials
inside JSON that is itself escaped inside a string (any depth), ``.env`` lines with lower- or
mixed-case names, high-entropy values next to secret-sounding words, basic auth in URLs and
``curl -u``, ``Authorization`` headers in any case and scheme, cookies and session ids, GCP
``private_key_id``, PGP and truncated private keys, Slack/Discord webhooks and vendor tokens the
reference does not know.

Vendor formats and the entropy measure come from ``detect-secrets`` (its plugins and heuristic
filters); the label/value grammar, escaped-JSON handling and the near-miss filters are our own,
because its keyword plugin takes values up to the end of the line and cannot see through escaped
quotes.

Masks follow the reference's shape: values of 18+ characters keep their first 6 and last 4
characters (``wJalrX...EKEY``), shorter ones become ``***`` and private keys become
``[REDACTED PRIVATE KEY]``. Text that is already masked is left alone, so running the layer twice
changes nothing more.
"""

from __future__ import annotations

import bisect
import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["SecretSpan", "count_by_kind", "find_secrets", "mask_value", "redact_with_spans", "strict_redact"]

PRIVATE_KEY_MASK = "[REDACTED PRIVATE KEY]"
_MASK_FLOOR = 18
_MAX_VALUE = 600


@dataclass(frozen=True)
class SecretSpan:
    """One masked value: ``text[start:end]`` is replaced by ``masked``.

    ``find_secrets`` reports positions in its input; ``redact_with_spans`` reports positions in the
    redacted output, where ``output[start:end] == masked``.
    """

    start: int
    end: int
    kind: str
    masked: str


def mask_value(value: str, kind: str = "") -> str:
    """The replacement for one secret value (same shape as the reference's masks)."""
    if kind == "private-key":
        return PRIVATE_KEY_MASK
    if len(value) < _MASK_FLOOR:
        return "***"
    return f"{value[:6]}...{value[-4:]}"


# ---------------------------------------------------------------------------------------------
# Small shared helpers
# ---------------------------------------------------------------------------------------------

_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-]")
# ASCII-only lowering keeps every index, so case-insensitive searches can run case-sensitively on the
# copy (much faster: the regex engine then skips ahead to literal prefixes).
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_MASKED_VALUE_RE = re.compile(r"^(?:\S{0,6}\.\.\.\S{0,4}|\[REDACTED[^\]]*\])$")


def _is_masked(value: str) -> bool:
    return "***" in value or bool(_MASKED_VALUE_RE.match(value.strip("`'\".,;:)]}")))


def _boundary_before(text: str, pos: int) -> bool:
    """No token character right before ``pos``; an escape such as ``\\n`` also counts as a boundary."""
    if pos == 0 or not _TOKEN_CHAR.match(text[pos - 1]):
        return True
    return pos >= 2 and text[pos - 2] == "\\" and text[pos - 1] in "nrt"


def _boundary_after(text: str, pos: int) -> bool:
    return pos >= len(text) or not _TOKEN_CHAR.match(text[pos])


@lru_cache(maxsize=1)
def _entropy_plugins() -> tuple[Any, Any]:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString

    return Base64HighEntropyString(), HexHighEntropyString()


_HEX_RE = re.compile(r"^[0-9a-fA-F]+$")
_RANDOM_CHARS_RE = re.compile(r"^[A-Za-z0-9+/=_\-.~%:]+$")
_WORDY_RE = re.compile(r"^[A-Za-z]+(?:[_\-./][A-Za-z]+)*[_\-./]?$")
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _looks_random(value: str, min_len: int = 16) -> bool:
    """A machine-generated value: long, mixed character classes, high Shannon entropy."""
    if len(value) < min_len or not _RANDOM_CHARS_RE.match(value) or _WORDY_RE.match(value):
        return False
    if "/" in value and value.count("/") >= 2 and re.search(r"\.[A-Za-z]{1,5}$", value):
        return False  # a path ending in a file extension
    if _heuristic_filters()[2](value):
        return False
    base64_plugin, hex_plugin = _entropy_plugins()
    if _HEX_RE.match(value):
        has_letter = any(c.isalpha() for c in value)
        return len(value) >= 20 and has_letter and hex_plugin.calculate_shannon_entropy(value) >= 2.9
    classes = sum(
        (any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value))
    )
    if classes < 2:
        return False
    threshold = min(4.3, 0.8 * math.log2(len(value)))
    return base64_plugin.calculate_shannon_entropy(value) >= threshold


# ---------------------------------------------------------------------------------------------
# Regions that are never masked
# ---------------------------------------------------------------------------------------------

_DATA_URL_RE = re.compile(r"data:[\w.+-]{1,60}/[\w.+-]{1,60}(?:;[\w.+-]{1,60}=[\w.+-]{1,60})*;base64,[A-Za-z0-9+/=]*")
# content hashes in lock files, image digests and checksums (run on the lowered copy)
_HASH_RE = re.compile(r"(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?|h1)[-:=][ \t]*[a-z0-9+/=_-]{16,}")


def _protected_regions(text: str, low: str) -> list[tuple[int, int]]:
    """Spans that are never masked: base64 data URLs and content hashes."""
    regions: list[tuple[int, int]] = []
    if "base64," in text:
        regions += [m.span() for m in _DATA_URL_RE.finditer(text)]
    if "sha" in low or "md5" in low or "blake" in low or "h1:" in low:
        regions += [m.span() for m in _HASH_RE.finditer(low)]
    regions.sort()
    merged: list[tuple[int, int]] = []
    for start, end in regions:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


# ---------------------------------------------------------------------------------------------
# Detectors. Each yields (start, end, kind) for the *value* to mask.
# ---------------------------------------------------------------------------------------------

Candidate = tuple[int, int, str]

# Vendor formats with a recognisable prefix. Each entry: kind, literal gate, pattern (the match is
# the value; boundaries are checked in code so the regex can start with its literal).
_VENDOR_TABLE: tuple[tuple[str, str, str], ...] = (
    ("anthropic-key", "sk-ant-", r"sk-ant-[A-Za-z0-9_\-]{16,}"),
    ("openai-key", "sk-", r"sk-[A-Za-z0-9_\-]{10,}"),
    ("stripe-key", "_live_", r"(?:sk|rk|pk)_live_[A-Za-z0-9]{10,}"),
    ("stripe-key", "_test_", r"(?:sk|rk|pk)_test_[A-Za-z0-9]{10,}"),
    ("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9]{16,}"),
    ("api-key", "sk_", r"sk_[A-Za-z0-9_]{10,}"),
    ("github-token", "gh", r"gh[pousr]_[A-Za-z0-9]{10,}"),
    ("github-token", "github_pat_", r"github_pat_[A-Za-z0-9_]{10,}"),
    ("gitlab-token", "gl", r"gl(?:pat|dt|ft|soat|rt|cbt|ptt|agent|oas)-[A-Za-z0-9_\-]{16,}"),
    ("slack-token", "xox", r"xox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("slack-token", "xapp-", r"xapp-\d-[A-Za-z0-9\-]{10,}"),
    ("google-api-key", "AIza", r"AIza[A-Za-z0-9_\-]{30,}"),
    ("google-oauth-secret", "GOCSPX-", r"GOCSPX-[A-Za-z0-9_\-]{20,}"),
    ("google-oauth-token", "ya29.", r"ya29\.[A-Za-z0-9_\-]{20,}"),
    ("aws-access-key-id", "A", r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}"),
    ("sendgrid-key", "SG.", r"SG\.[A-Za-z0-9_\-]{10,}(?:\.[A-Za-z0-9_\-]{10,})?"),
    ("huggingface-token", "hf_", r"hf_[A-Za-z0-9]{10,}"),
    ("replicate-token", "r8_", r"r8_[A-Za-z0-9]{10,}"),
    ("npm-token", "npm_", r"npm_[A-Za-z0-9]{10,}"),
    ("pypi-token", "pypi-", r"pypi-[A-Za-z0-9_\-]{10,}"),
    ("digitalocean-token", "_v1_", r"do[opr]_v1_[A-Za-z0-9]{10,}"),
    ("groq-key", "gsk_", r"gsk_[A-Za-z0-9]{10,}"),
    ("xai-key", "xai-", r"xai-[A-Za-z0-9]{30,}"),
    ("perplexity-key", "pplx-", r"pplx-[A-Za-z0-9]{10,}"),
    ("tavily-key", "tvly-", r"tvly-[A-Za-z0-9\-]{10,}"),
    ("fal-key", "fal_", r"fal_[A-Za-z0-9_\-]{10,}"),
    ("firecrawl-key", "fc-", r"fc-[A-Za-z0-9]{10,}"),
    ("exa-key", "exa_", r"exa_[A-Za-z0-9]{10,}"),
    ("api-key", "syt_", r"syt_[A-Za-z0-9_]{10,}"),
    ("api-key", "bb_live_", r"bb_live_[A-Za-z0-9_\-]{10,}"),
    ("api-key", "am_", r"am_[A-Za-z0-9_\-]{10,}"),
    ("api-key", "retaindb_", r"retaindb_[A-Za-z0-9]{10,}"),
    ("api-key", "hsk-", r"hsk-[A-Za-z0-9]{10,}"),
    ("api-key", "mem0_", r"mem0_[A-Za-z0-9]{10,}"),
    ("api-key", "brv_", r"brv_[A-Za-z0-9]{10,}"),
    ("fernet-token", "gAAAA", r"gAAAA[A-Za-z0-9_=\-]{20,}"),
    ("twilio-key", "SK", r"SK[0-9a-f]{32}"),
    ("mailgun-key", "key-", r"key-[0-9a-f]{32}"),
    ("heroku-key", "HRKU-", r"HRKU-[A-Za-z0-9_\-]{20,}"),
    ("databricks-token", "dapi", r"dapi[0-9a-f]{32}(?:-\d)?"),
    ("shopify-token", "shp", r"shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}"),
    ("square-token", "sq0", r"sq0(?:csp|atp)-[A-Za-z0-9_\-]{22,}"),
    ("jwt", "eyJ", r"eyJ[A-Za-z0-9_\-]{10,}(?:\.[A-Za-z0-9_=\-]{4,}){0,2}"),
)
#: The literal each vendor pattern needs, for readers that need a cheap test of whether a text could hold a key.
VENDOR_GATES: tuple[str, ...] = tuple(gate for _kind, gate, _pattern in _VENDOR_TABLE)
_VENDOR_COMPILED = tuple((kind, gate, re.compile(pattern)) for kind, gate, pattern in _VENDOR_TABLE)

# The reference masks only the first dotted part of a SendGrid key; catch what it leaves behind.
_SENDGRID_AFTER_REFERENCE_RE = re.compile(r"SG\.[A-Za-z0-9_\-]{1,6}\.\.\.[A-Za-z0-9_\-]{4}\.([A-Za-z0-9_\-]{16,})")
_TELEGRAM_SECRET_RE = re.compile(r":([A-Za-z0-9_\-]{30,})")
_BOT_ID_RE = re.compile(r"\d{8,10}\Z")
_WEBHOOK_RE = re.compile(
    r"https://(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,25}/)"
    r"([A-Za-z0-9_\-/]{16,})"
)


def _detect_vendor(text: str) -> Iterator[Candidate]:
    for kind, gate, pattern in _VENDOR_COMPILED:
        if gate not in text:
            continue
        for m in pattern.finditer(text):
            start, end = m.span()
            if _boundary_before(text, start) and _boundary_after(text, end):
                yield start, end, kind
    if "SG." in text:
        for m in _SENDGRID_AFTER_REFERENCE_RE.finditer(text):
            yield m.start(1), m.end(1), "sendgrid-key"
    if ":" in text:
        for m in _TELEGRAM_SECRET_RE.finditer(text):
            bot_id = _BOT_ID_RE.search(text, max(0, m.start() - 10), m.start())
            if (bot_id and (bot_id.start() == 0 or not text[bot_id.start() - 1].isdigit())
                    and _boundary_after(text, m.end(1)) and not _is_masked(m.group(1))):
                yield m.start(1), m.end(1), "telegram-bot-token"
    if "https://" in text:
        for m in _WEBHOOK_RE.finditer(text):
            kind = "slack-webhook" if "slack" in m.group(0) else "discord-webhook"
            yield m.start(1), m.end(1), kind


_MAILCHIMP_GATE = re.compile(r"-us\d")
# detect-secrets' regex plugins, each with a cheap gate (a literal looked up in the lowered copy, or a
# regex) and the kind it reports. They yield values without positions; ``_locate`` finds every
# occurrence with token boundaries. Telegram tokens are left to ``_detect_vendor``, which covers them.
_DS_PLUGINS: tuple[tuple[str, str, tuple[str | re.Pattern[str], ...], str], ...] = (
    ("aws", "AWSKeyDetector", (re.compile(r"aws[^\n]{0,60}[\"'][0-9a-z/+]{40}[\"']"),), "aws-secret-key"),
    ("azure_storage_key", "AzureStorageKeyDetector", ("accountkey",), "connection-string-key"),
    ("basic_auth", "BasicAuthDetector", ("://",), "basic-auth"),
    ("discord", "DiscordBotTokenDetector", (re.compile(r"\.[a-z0-9_-]{6}\.[a-z0-9_-]{27}"),), "discord-bot-token"),
    ("github_token", "GitHubTokenDetector", ("gh",), "github-token"),
    ("gitlab_token", "GitLabTokenDetector", ("gl", "gr1348941"), "gitlab-token"),
    ("jwt", "JwtTokenDetector", ("eyj",), "jwt"),
    ("mailchimp", "MailchimpDetector", (_MAILCHIMP_GATE,), "mailchimp-key"),
    ("npm", "NpmDetector", ("_authtoken",), "npm-token"),
    ("openai", "OpenAIDetector", ("t3blbkfj",), "openai-key"),
    ("pypi_token", "PypiTokenDetector", ("pypi-",), "pypi-token"),
    ("sendgrid", "SendGridDetector", ("sg.",), "sendgrid-key"),
    ("slack", "SlackDetector", (re.compile(r"xox[abposr]-"), "hooks.slack.com"), "slack-token"),
    ("square_oauth", "SquareOAuthDetector", ("sq0csp-",), "square-token"),
    ("stripe", "StripeDetector", ("k_live_",), "stripe-key"),
    ("twilio", "TwilioKeyDetector", ("ac", "sk"), "twilio-key"),
)


@lru_cache(maxsize=1)
def _ds_plugin_instances() -> tuple[tuple[Any, tuple[str | re.Pattern[str], ...], str], ...]:
    import importlib

    instances = []
    for module_name, class_name, gates, kind in _DS_PLUGINS:
        module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
        instances.append((getattr(module, class_name)(), gates, kind))
    return tuple(instances)


_VALUE_STOP_RE = re.compile(r"[\s\"'`\\]")
_SLACK_WEBHOOK_PREFIX_RE = re.compile(r"^https://hooks\.slack\.com/services/", re.IGNORECASE)


def _normalise_ds_value(value: str) -> str:
    value = _SLACK_WEBHOOK_PREFIX_RE.sub("", value)
    if value.startswith("AccountKey="):
        value = value[len("AccountKey="):]
    cut = _VALUE_STOP_RE.search(value)
    if cut:
        value = value[: cut.start()]
    return value.rstrip(".,;:)]}>")


def _locate(text: str, value: str) -> Iterator[tuple[int, int]]:
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        if _boundary_before(text, start) and _boundary_after(text, end):
            yield start, end
        start = text.find(value, start + 1)


def _gate_open(gate: str | re.Pattern[str], low: str) -> bool:
    return gate in low if isinstance(gate, str) else gate.search(low) is not None


def _detect_with_detect_secrets(text: str, low: str) -> Iterator[Candidate]:
    for plugin, gates, kind in _ds_plugin_instances():
        if not any(_gate_open(gate, low) for gate in gates):
            continue
        seen: set[str] = set()
        for raw in plugin.analyze_string(text):
            value = _normalise_ds_value(raw)
            if len(value) < 8 or value in seen or _is_masked(value):
                continue
            seen.add(value)
            for start, end in _locate(text, value):
                yield start, end, kind


# --- label/value grammar ---------------------------------------------------------------------

_STEM_RE = re.compile(  # run on the lowered copy; skips the commonest words that are never labels
    r"pass(?!ed\b|es\b|ing\b|age|enger|port|ive|ion|through)|pwd|pw\b|secret|token(?!s\b|iz)"
    r"|key(?!s\b|word|board|frame|stroke|note|err)|auth(?!or|entic)|credential|creds?\b|sess(?!ions\b)"
    r"|sid\b|signature|sig\b|bearer|jwt|hmac"
)
# labels that only take machine-made values are skipped early when no such run follows on the line
_RANDOM_RUN_AHEAD_RE = re.compile(r"[A-Za-z0-9+/=_\-.~%]{12,}")
_IDENT_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_IDENT_RIGHT_RE = re.compile(r"[A-Za-z0-9_.\-]{0,48}")
_CAMEL_SPLIT_RE = re.compile(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])")

_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode", "passwort",
                             "contrasena", "mdp"})
_SECRET_WORDS = frozenset({"secret", "token", "credential", "credentials", "creds", "cred", "apikey", "bearer",
                           "jwt", "sas"})
_SESSION_WORDS = frozenset({"sessionid", "sessid", "phpsessid", "jsessionid", "sid", "session", "sessiontoken"})
_WEAK_WORDS = frozenset({"auth", "signature", "sig", "hmac"})
# The word before "key" that makes it a credential ("api key", "signing key", ...).
_KEY_PREFIXES = frozenset({
    "api", "secret", "access", "private", "account", "master", "signing", "sign", "encryption", "enc",
    "auth", "client", "shared", "storage", "service", "app", "application", "hmac", "subscription",
    "license", "licence", "webhook", "jwt", "session", "crypto", "aes", "deploy", "admin", "root",
    "consumer", "developer", "dev", "prod", "live", "test", "bot", "personal", "azure", "aws", "gcp",
    "stripe", "openai", "anthropic", "twilio", "sendgrid", "mailgun", "heroku", "slack", "github",
    "gitlab", "npm", "pypi", "groq", "mistral", "cohere", "google", "maps", "firebase", "supabase",
    "pinecone", "algolia", "datadog", "sentry", "vercel", "netlify", "cloudflare", "linear", "notion",
    "airtable", "shopify", "paypal", "braintree", "plaid", "cipher", "decryption", "sas", "storageaccount",
    "primaryaccess", "secondary", "primarykey",
})
_KEY_BENIGN_PREFIXES = frozenset({
    "sort", "cache", "primary", "foreign", "partition", "hot", "public", "pub", "dict", "map", "react",
    "idempotency", "lookup", "row", "group", "object", "s3", "redis", "i18n", "translation", "index",
    "unique", "composite", "sorting", "hash", "keyboard", "registry", "config", "setting", "settings",
    "dedup", "routing", "shard", "cluster", "bucket", "file", "local", "global", "the", "a", "my", "your",
    "this", "that", "each", "any", "every", "no", "by", "one", "dedupe", "lock", "state", "item", "node",
    "column", "field", "event", "message", "record", "entry", "table", "json", "yaml", "env",
    "ssh", "gpg", "pgp", "host", "server", "trust", "signed",
})
_KEY_WORD_BENIGN = frozenset({"monkey", "donkey", "turkey", "whiskey", "hockey", "jockey", "hotkey", "turnkey",
                              "keykey", "passkey", "sortkey", "pubkey", "publickey", "hashkey", "cachekey"})
_KEY_WORD_SECRET = frozenset({"secretkey", "accesskey", "privatekey", "accountkey", "masterkey", "signingkey",
                              "authkey", "clientkey", "sharedaccesskey", "sharedkey", "encryptionkey", "hmackey",
                              "subscriptionkey", "licensekey", "storagekey", "servicekey", "appkey", "apikey"})
# "NextToken", "page_token", "ClientToken" (AWS idempotency): opaque, but not credentials.
_NON_SECRET_TOKEN_PREFIXES = frozenset({
    "next", "page", "continuation", "pagination", "purchase", "sync", "cancel", "cancellation", "idempotency",
    "client", "request", "resume", "marker", "start", "end", "cursor", "input", "output", "max", "total",
    "prompt", "completion", "special", "stop", "bos", "eos", "pad", "unk", "sep", "mask", "cls",
})
# A trailing segment that only qualifies the value ("password_plain", "secret_key_base", "token_v2").
_VALUE_SUFFIXES = frozenset({
    "value", "val", "raw", "plain", "plaintext", "str", "string", "b64", "base64", "hex", "literal", "input",
    "material", "base", "live", "test", "prod", "production", "dev", "staging", "local", "new", "old",
    "current", "backup", "confirmation", "confirm", "again", "override", "default", "env", "encoded",
})
# Names ending in one of these are about a secret, not the secret itself.
_NON_SECRET_LAST = frozenset({
    "id", "ids", "type", "types", "name", "names", "file", "files", "filename", "path", "paths", "dir", "url",
    "uri", "urls", "endpoint", "host", "length", "len", "count", "counts", "size", "limit", "limits", "field",
    "fields", "label", "prompt", "hint", "ttl", "expiry", "expires", "expiration", "exp", "lifetime",
    "timeout", "header", "headers", "var", "vars", "variable", "policy", "strength", "format", "mode",
    "enabled", "enable", "disabled", "required", "min", "max", "regex", "pattern", "hash", "hashed", "salt",
    "usage", "kind", "index", "version", "rotation", "store", "manager", "provider", "scope", "scopes",
    "encoding", "encoder", "tokenizer", "tokenizers", "tokens", "budget", "widget", "form", "reset", "change",
    "forgot", "prefix", "suffix", "location", "source", "ref", "arn", "schema", "model", "class", "error",
    "errors", "message", "status", "state", "valid", "validator", "validation", "check", "handler", "helper",
    "util", "utils", "module", "test", "tests", "spec", "mock", "fixture", "placeholder", "description", "help",
    "rule", "rules", "chars", "request", "response", "callback", "redirect", "flow", "grant", "method",
    "algorithm", "alg", "cipher", "user", "username", "login", "email", "generator", "py", "js", "ts", "json",
    "yaml", "yml", "md", "txt", "db", "rs", "go", "rb", "env", "cfg", "ini", "toml", "lock", "pem",
    "rotated", "expired", "refresh", "at", "on", "by", "issued", "created", "updated", "used", "sent",
    "data", "list", "map", "dict", "set", "get", "fn", "func", "function", "object", "obj", "info", "meta",
    "metadata", "params", "config", "settings", "options", "opts", "args", "kwargs", "client", "service",
    "server", "backend", "storage", "cache", "reader", "writer", "loader", "parser", "builder", "factory",
    "counter", "estimator", "estimate", "window", "stats", "metrics", "cost", "price", "rate", "ratio",
    "percent", "threshold", "target", "span", "offset", "start", "end", "pos", "position",
    "rejected", "accepted", "missing", "invalid", "insensitive", "sensitive", "case", "exists", "present",
    "masked", "redacted", "redaction", "detector", "detection", "scanner", "scan", "leak", "leaks", "holder",
})
# Words between a label and "is"/":" that show the sentence is about the secret, not its value
# ("the token limit is 128000", "the password policy is ...").
_GAP_WORDS_BAD = frozenset({
    "id", "ids", "type", "name", "file", "path", "url", "length", "count", "size", "limit", "limits", "field",
    "label", "prompt", "hint", "ttl", "expiry", "expiration", "lifetime", "timeout", "header", "policy",
    "strength", "format", "mode", "usage", "budget", "rotation", "store", "manager", "provider", "scope",
    "hash", "salt", "reset", "change", "prefix", "suffix", "requirements", "rules", "rule", "sauce", "window",
    "refresh", "counts", "estimate", "estimator", "cost", "price", "usage:", "spent", "used", "left",
    "remaining", "version", "schema", "validation", "error", "status", "check", "generation",
})
_STOPWORDS = frozenset({
    "required", "optional", "none", "null", "nil", "true", "false", "yes", "no", "undefined", "empty", "missing",
    "invalid", "incorrect", "wrong", "expired", "correct", "valid", "changed", "reset", "set", "unset", "hidden",
    "redacted", "masked", "string", "str", "int", "bool", "boolean", "number", "bytes", "object", "any", "secret",
    "password", "token", "key", "see", "below", "above", "here", "there", "the", "a", "an", "not", "is", "was",
    "and", "or", "for", "of", "to", "in", "on", "at", "with", "this", "that", "your", "my", "our", "their",
    "its", "it", "same", "different", "provided", "stored", "needed", "generated", "updated", "rotated",
    "revoked", "example", "placeholder", "todo", "tbd", "n/a", "xxx", "await", "new", "yield", "return",
    "function", "lambda", "async", "self", "cls", "nan", "secretstr", "optional[str]", "str|none",
    "none,", "also", "now", "still", "only", "just", "already", "being", "be", "been", "from", "by", "as",
    "if", "then", "else", "when", "which", "what", "who", "how", "where", "why", "saved", "used",
    "sent", "shown", "printed", "logged", "ok", "okay", "fine", "strong", "weak", "long", "short", "too",
    "very", "case-sensitive", "supplied", "given", "accepted", "rejected", "omitted", "ignored", "absent",
    "present", "unknown", "default", "env", "environment", "file", "config", "vault", "specified",
})
_TYPE_NAMES = frozenset({"str", "string", "int", "bytes", "bool", "boolean", "number", "any", "object",
                         "secretstr", "secretbytes", "optional", "none", "char", "text", "varchar", "uuid"})

_SEP_RE = re.compile(r"(?:\\{0,7}[\"'`])?\]?[ \t]*(:=|=>|->|::|==|!=|=|:)")
_CONNECTOR_RE = re.compile(
    r"[ \t]+(?P<gap>(?:[A-Za-z0-9_.@/'\-]{1,30}[ \t]+){0,4}?)"
    r"(?:(?:(?:is|was|are|were|has[ \t]+been|have[ \t]+been|will[ \t]+be|got|been)[ \t]+)?"
    r"(?:(?:set|changed|reset|updated|rotated|switched)[ \t]+to|is|was|are|were|becomes|to|now)[ \t]*:?"
    r"|(?P<last>[A-Za-z0-9_.@/'\-]{1,30}):)(?=[ \t])",
    re.IGNORECASE,
)
_VALUE_ATTR_RE = re.compile(r"^[ \t]+value[ \t]*=[ \t]*(?=\\{0,7}[\"'])", re.IGNORECASE)
_OPEN_QUOTE_RE = re.compile(r"[ \t]*(\\{0,7})([\"'`])")
_SPACES_RE = re.compile(r"[ \t]*")
_QUOTED_VALUE_RE = {q: re.compile(rf"[^{re.escape(q)}\\\r\n]{{1,{_MAX_VALUE}}}") for q in "\"'`"}
_UNQUOTED_VALUE_RE = re.compile(rf"[^\s\"'`\\]{{1,{_MAX_VALUE}}}")
_PASSPHRASE_RE = re.compile(r"[^\s\"'`\\.,;]{1,40}(?:[ ][^\s\"'`\\.,;]{1,40}){0,7}")
# Three or more words of three letters or more, joined by hyphens (a diceware-style passphrase).
_HYPHEN_PASSPHRASE_RE = re.compile(r"^[A-Za-z]{3,}(?:-[A-Za-z]{3,}){2,}$")
_CALL_RE = re.compile(r"^[A-Za-z_$][\w$.]*[(\[]")
_ATTR_PATH_RE = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$")
_IDENTIFIER_RE = re.compile(r"^[A-Za-z_]+$")
# paths, test ids and file names: words after a label in prose that are not values
_PATHISH_RE = re.compile(r"/|\\|::|^[\w\-]+\.(?:py|js|ts|json|md|txt|ya?ml|toml|cfg|ini|lock|log|sh|rs|go|rb|java|html?)$")
_NEXT_PAIR_SEMI_RE = re.compile(r";(?=\s*[A-Za-z][\w ]{0,40}=)")
_NEXT_PAIR_AMP_RE = re.compile(r"&(?=[A-Za-z_][\w.\-]{0,40}=)")
_SYMBOL_RE = re.compile(r"[^A-Za-z0-9]")
_DETERMINERS = frozenset({"the", "my", "our", "your", "a", "an", "this", "that", "new", "old", "current", "their",
                          "his", "her", "its", "same", "real", "actual"})


def _segments(name: str) -> list[str]:
    return [s.lower() for s in _CAMEL_SPLIT_RE.split(name) if s]


_WORD_CHARS = frozenset(string.ascii_letters + string.digits)


def _previous_word(text: str, pos: int) -> str:
    """The word before a bare "key" in prose ("API key", "cache key"), skipping one determiner."""
    word = ""
    for _ in range(2):
        end = pos
        while end > 0 and end > pos - 3 and text[end - 1] in " \t":
            end -= 1
        if end == pos:
            return word
        start = end
        while start > 0 and end - start < 25 and text[start - 1] in _WORD_CHARS:
            start -= 1
        word = text[start:end].lower()
        if word not in _DETERMINERS:
            return word
        pos = start
    return ""


@lru_cache(maxsize=8192)
def _classify_label(name: str, prev_word: str) -> tuple[str | None, tuple[str, ...]]:
    """Classify a label (cached: the same names recur all over a transcript)."""
    segments = _segments(name)
    if prev_word and len(segments) == 1:
        segments = [prev_word, *segments]
    return _classify(segments), tuple(segments)


def _classify(segments: list[str]) -> str | None:
    """What a label names: 'password', 'secret', 'weak' (only random values), 'session', 'key-id' or None."""
    segs = [s for s in segments if s]
    while len(segs) > 1 and (segs[-1] in _VALUE_SUFFIXES or re.fullmatch(r"v?\d{1,3}", segs[-1])):
        segs = segs[:-1]
    if not segs:
        return None
    last = segs[-1]
    prev = segs[-2] if len(segs) > 1 else ""
    if last == "id" and segs[-3:-1] == ["private", "key"]:
        return "key-id"
    if last in _NON_SECRET_LAST:
        return None
    if last in _PASSWORD_WORDS or last.endswith(("password", "passwd", "passphrase", "pwd")):
        return "password"
    if last in _SESSION_WORDS:
        return "session"
    if last in _SECRET_WORDS or last.endswith(("token", "secret", "apikey", "credential", "credentials")):
        if last.endswith("token") and (prev in _NON_SECRET_TOKEN_PREFIXES or last[:-5] in _NON_SECRET_TOKEN_PREFIXES):
            return None  # pagination cursors and idempotency tokens are not credentials
        return "secret"
    if last.endswith("key"):
        if last in _KEY_WORD_BENIGN:
            return None
        if last != "key":
            return "secret" if last in _KEY_WORD_SECRET or last[:-3] in _KEY_PREFIXES else None
        if prev in _KEY_PREFIXES:
            return "secret"
        if prev in _KEY_BENIGN_PREFIXES:
            return None
        return "weak"
    if last in _WEAK_WORDS or (last.endswith("auth") and last not in {"oauth", "author"}):
        return "weak"
    return None


def _secretish(value: str) -> bool:
    """Not a plain word: letters with digits or symbols, or mixed case inside the word."""
    core = value.rstrip(".!?")
    has_letter = any(c.isalpha() for c in core)
    has_digit = any(c.isdigit() for c in core)
    has_symbol = bool(_SYMBOL_RE.search(core.replace("-", "").replace("_", "")))
    mixed_case = any(c.isupper() for c in core[1:]) and any(c.islower() for c in core)
    if not has_letter:
        return False
    if re.fullmatch(r"[a-z]+(?:-[a-z]+)+", core):
        return False  # hyphenated English ("case-sensitive")
    return has_digit or has_symbol or mixed_case


@lru_cache(maxsize=1)
def _heuristic_filters() -> tuple[Any, Any, Any]:
    from detect_secrets.filters.heuristic import (
        is_prefixed_with_dollar_sign,
        is_sequential_string,
        is_templated_secret,
    )

    return is_templated_secret, is_prefixed_with_dollar_sign, is_sequential_string


def _is_placeholder(value: str) -> bool:
    is_templated_secret, is_prefixed_with_dollar_sign, _ = _heuristic_filters()
    return (
        is_templated_secret(value)
        or is_prefixed_with_dollar_sign(value)
        or "{{" in value
        or "${" in value
        or "%s" in value
        or "%(" in value
        or value.startswith(("<", "{", "[", "process.env", "os.environ"))
    )


_CODE_IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z_]*$|^[a-z_][a-z0-9_]*_[a-z0-9_]*$")


# Values that are never secrets: type expressions ("Token[Span | None]", "str | None"), colours, and
# documentation placeholders ("your-access-token", "<token>", "xxxx", "..._here").
_NOT_A_VALUE_RE = re.compile(
    r"^(?:[\w.]+\[.*\]|.*\s\|\s.*|#[0-9a-fA-F]{3,8}|(?i:your|insert|replace|enter|put)[-_ ].*|(?i:x{3,}|\.{3,})"
    r"|.*(?i:[-_]here))$"
)


def _is_identifier(value: str) -> bool:
    """A name in code (``api_key``, ``ClientSecret``, ``auth_token2``) rather than a machine-made value."""
    return bool(_CODE_IDENTIFIER_RE.match(value)) and not _looks_random(value)


def _accept(value: str, klass: str, form: str, quoted: bool, line_start: bool) -> bool:
    if not value or _is_masked(value) or _is_placeholder(value) or _NOT_A_VALUE_RE.match(value):
        return False
    lowered = value.lower()
    if lowered in _STOPWORDS or lowered.rstrip(".,;:!?") in _STOPWORDS:
        return False
    if not quoted:
        if _CALL_RE.match(value) or _ATTR_PATH_RE.match(value):
            return False
        if not line_start and _is_identifier(value) and not (klass == "password" and form == "colon"):
            return False  # a variable, parameter or type name, not a literal
        if form in ("sentence", "direct") and not value[0].isalnum() and not _looks_random(value):
            return False
        if lowered in _TYPE_NAMES or lowered.startswith(("optional[", "list[", "dict[")):
            return False
        if value.startswith("-") or "://" in value:
            return False
    if klass in ("weak", "session"):
        return _looks_random(value, 12 if klass == "session" else 16) and not _UUID_RE.match(value)
    if klass == "key-id":
        return len(value) >= 16 and _HEX_RE.match(value) is not None
    if klass == "password":
        if len(value) < 3:
            return False
        if quoted or line_start:
            return True
        if form in ("assign", "colon"):
            if _IDENTIFIER_RE.match(value) and ("_" in value or value[:1].isupper() or form == "assign"):
                return False  # a variable or type, not a literal
            return len(value) >= 4
        if _HYPHEN_PASSPHRASE_RE.match(value):
            return True  # "my password is correct-horse-battery": words joined into a passphrase
        return len(value) >= 4 and _secretish(value) and not _PATHISH_RE.search(value)
    # klass == "secret": keys and tokens never contain spaces, and a call is code even when quoted
    if len(value) < 6 or " " in value or _CALL_RE.match(value) or (not line_start and _is_identifier(value)):
        return False
    if quoted or line_start:
        return _secretish(value) or len(value) >= 16
    if form == "direct":
        return _looks_random(value)  # "token <value>" in prose: only machine-made values
    return (len(value) >= 8 and _secretish(value) and not _PATHISH_RE.search(value)) or _looks_random(value)


def _label_kind(klass: str, segments: tuple[str, ...]) -> str:
    if klass == "password":
        return "password"
    if klass == "session":
        return "session-id"
    if klass == "key-id":
        return "private-key-id"
    if klass == "weak":
        return "high-entropy"
    joined = "".join(segments)
    if "token" in joined:
        return "token"
    if "key" in joined:
        return "api-key"
    if "cred" in joined:
        return "credential"
    return "secret"


def _parse_value(text: str, pos: int, multiword: bool) -> tuple[int, int, bool] | None:
    """The value starting at ``pos`` (after optional spaces and an optional, possibly escaped, quote)."""
    quote = _OPEN_QUOTE_RE.match(text, pos)
    if quote:
        start = quote.end()
        m = _QUOTED_VALUE_RE[quote.group(2)].match(text, start)
        if not m:
            return None
        value = m.group(0)
        stripped = value.rstrip()
        if len(value) - len(value.lstrip()) or not stripped:
            return None
        return start, start + len(stripped), True
    start = _SPACES_RE.match(text, pos).end()
    if multiword:
        m = _PASSPHRASE_RE.match(text, start)
    else:
        m = _UNQUOTED_VALUE_RE.match(text, start)
    if not m:
        return None
    value = m.group(0)
    # a value ends where the next key=value pair of a connection string or query starts
    for splitter in (_NEXT_PAIR_SEMI_RE, _NEXT_PAIR_AMP_RE):
        cut = splitter.search(value)
        if cut:
            value = value[: cut.start()]
    value = value.rstrip(".,;:)]}>")
    if "<" in value:
        value = value.split("<", 1)[0]
    if not value:
        return None
    return start, start + len(value), False


def _detect_labelled(text: str, low: str, skip: list[tuple[int, int]]) -> Iterator[Candidate]:
    done_until = 0
    skip_starts = [s for s, _ in skip]
    for m in _STEM_RE.finditer(low):
        if m.start() < done_until:
            continue
        if skip:
            idx = bisect.bisect_right(skip_starts, m.start()) - 1
            if idx >= 0 and skip[idx][1] > m.start():
                done_until = skip[idx][1]
                continue
        name_start = m.start()
        floor = max(0, name_start - 48)
        while name_start > floor and text[name_start - 1] in _IDENT_CHARS:
            name_start -= 1
        name_end = _IDENT_RIGHT_RE.match(text, m.end()).end()
        done_until = name_end
        # an escape such as "\n" before the name is not part of it
        if name_start > 0 and text[name_start - 1] == "\\" and text[name_start] in "nrt":
            name_start += 1
        while name_start < name_end and text[name_start] in ".-":
            name_start += 1
        while name_end > name_start and text[name_end - 1] in ".-":
            name_end -= 1
        name = text[name_start:name_end]
        if not name or len(name) > 64:
            continue
        prev_word = _previous_word(text, name_start) if name.lower() == "key" else ""
        klass, segments = _classify_label(name, prev_word)
        if klass is None:
            continue
        if klass in ("weak", "session"):
            line_end = text.find("\n", name_end, name_end + 200)
            if not _RANDOM_RUN_AHEAD_RE.search(text, name_end, line_end if line_end != -1 else name_end + 200):
                continue
        multiword = segments[-1].endswith("phrase")
        found = _value_after_label(text, name_start, name_end, multiword)
        if found is None:
            continue
        start, end, form, quoted, line_start = found
        if segments == ("pass",) and text[name_start - 1:name_start] != "-" and (
                form in ("sentence", "direct") or not (quoted or _secretish(text[start:end]))):
            continue  # the English verb, Python's `pass` or "1st pass: ...", not a label
        value = text[start:end]
        if _accept(value, klass, form, quoted, line_start):
            yield start, end, _label_kind(klass, segments)
            done_until = max(done_until, end)


def _line_start(text: str, name_start: int) -> bool:
    """``NAME=`` at column 0 (``.env`` style), optionally after ``export``/``set``; indented lines are code."""
    i = name_start
    before = text[max(0, i - 12):i]
    for prefix in ("export ", "set ", "setx "):
        if before.endswith(prefix):
            i -= len(prefix)
            break
    if i == 0 or text[i - 1] in "\r\n\"'[,":
        return True
    return i >= 2 and text[i - 2] == "\\" and text[i - 1] in "nr"


def _value_after_label(text: str, name_start: int, name_end: int, multiword: bool
                       ) -> tuple[int, int, str, bool, bool] | None:
    """Find the value a label introduces: ``name = v``, ``"name": "v"``, ``name is v``, ``--name v``."""
    line_start = False
    sep = _SEP_RE.match(text, name_end)
    if sep:
        op = sep.group(1)
        if op == "::":
            return None
        form = "colon" if op == ":" else "assign"
        pos = sep.end()
        if op == "=" and sep.start(1) == name_end:
            line_start = _line_start(text, name_start)
    elif name_start > 0 and text[name_start - 1] == "<" and text.startswith(">", name_end):
        form, pos = "assign", name_end + 1  # <password>value</password>
    else:
        attr = _VALUE_ATTR_RE.match(text, name_end + 1) if text.startswith(("\"", "'"), name_end) else None
        if attr:
            form, pos = "assign", attr.end()  # <add key="DbPassword" value="..."/>
        else:
            conn = _CONNECTOR_RE.match(text, name_end)
            if conn:
                gap = (conn.group("gap") or "").split() + ([conn.group("last")] if conn.group("last") else [])
                if any(w.lower().strip(".,:'") in _GAP_WORDS_BAD for w in gap):
                    return None
                form, pos = "sentence", conn.end()
            elif text.startswith((" ", "\t"), name_end):
                form, pos = "direct", name_end
            else:
                return None
    if form in ("sentence", "direct") and name_start > 0 and text[name_start - 1] in "\"'`":
        # the label sits inside a string literal ("Bearer "): the next quote closes it
        after = _SPACES_RE.match(text, pos).end()
        if text.startswith(text[name_start - 1], after):
            return None
    parsed = _parse_value(text, pos, multiword)
    if parsed is None:
        return None
    start, end, quoted = parsed
    return start, end, form, quoted, line_start and not quoted


# --- structured formats ----------------------------------------------------------------------

_CONN_KEY_RE = re.compile(  # run on the lowered copy, line by line
    r"(?<![a-z])(?:accountkey|sharedaccesskey|sharedaccesssignature|password|pwd|clientsecret|"
    r"sharedsecret|accesskey|secretkey|apikey|token)[ \t]*=[ \t]*"
)
_CONN_CONTEXT_RE = re.compile(  # run on the lowered copy
    r"(?:defaultendpointsprotocol|accountname|endpoint|server|data source|host|initial catalog|database|"
    r"user ?id|uid|username|sharedaccesskeyname|provider|driver)[ \t]*="
)
_CONN_VALUE_RE = re.compile(r"\{[^}\r\n]{1,300}\}|[^;\r\n\"'\\]{1,300}")


def _detect_connection_strings(text: str, low: str) -> Iterator[Candidate]:
    """``Password=...;`` and friends, only on lines shaped like a connection string."""
    if "=" not in text or ";" not in text:
        return
    line_start = 0
    for line in low.split("\n"):
        line_end = line_start + len(line)
        if ";" in line and "=" in line and _CONN_CONTEXT_RE.search(line):
            for m in _CONN_KEY_RE.finditer(low, line_start, line_end):
                v = _CONN_VALUE_RE.match(text, m.end(), line_end)
                if not v:
                    continue
                value = v.group(0).rstrip()
                if value and not _is_masked(value) and not _is_placeholder(value.strip("{}")):
                    yield m.end(), m.end() + len(value), "connection-string-key"
        line_start = line_end + 1


_URL_USERINFO_RE = re.compile(
    r"://[^\s:/?#@\"'\\<>]{0,200}:([^\s/@\"'\\<>]{1,300})@(?=[\w\[.\-])"
)
# A URL whose user part alone is a key (no password): a Sentry DSN "https://<public key>@o1.ingest.sentry.io/2",
# a token-as-username clone URL "https://<token>@github.com/...". Only machine-made user names count.
_URL_USER_KEY_RE = re.compile(r"://([A-Za-z0-9_\-]{16,200})@(?=[\w\[.\-])")
_CURL_USER_RE = re.compile(r"-(?:u|-user)(?:[ \t]+|=)\\{0,7}[\"']?[^\s:\"'\\]{1,100}:([^\s\"'\\]{1,300})")
_CLI_PASSWORD_RES = (
    (("mysql", "mariadb"), re.compile(r"-p(?=[^\s-])(?P<v>[^\s\"'\\]{3,300})")),
    (("sshpass",), re.compile(r"\bsshpass[ \t]+-p[ \t]*\\{0,7}[\"']?(?P<v>[^\s\"'\\]{3,300})")),
    (("sqlcmd", "bcp ", "osql"), re.compile(r"-P[ \t]+\\{0,7}[\"']?(?P<v>[^\s\"'\\]{3,300})")),
    (("ssh-keygen",), re.compile(r"-[NP][ \t]+\\{0,7}(?P<q>[\"'])(?P<v>[^\"'\\\r\n]{3,300})")),
    (("openssl",), re.compile(r"-pass(?:in|out)?[ \t]+\\{0,7}[\"']?pass:(?P<v>[^\s\"'\\]{3,300})")),
)


def _after_space(text: str, pos: int) -> bool:
    """A command-line flag starts the text or follows whitespace or an opening quote."""
    return pos == 0 or text[pos - 1] in " \t\r\n\"'"


def _detect_basic_auth(text: str, low: str) -> Iterator[Candidate]:
    if "://" in text:
        for m in _URL_USERINFO_RE.finditer(text):
            value = m.group(1)
            if not _is_masked(value) and not _is_placeholder(value):
                yield m.start(1), m.end(1), "basic-auth"
        for m in _URL_USER_KEY_RE.finditer(text):
            value = m.group(1)
            if (_HEX_RE.match(value) or _looks_random(value)) and not _is_placeholder(value):
                host = low[m.end(1) + 1 : m.end(1) + 200]
                yield m.start(1), m.end(1), "sentry-dsn" if ".sentry.io" in host.split("/", 1)[0] else "url-key"
    if "-u" in text:
        for m in _CURL_USER_RE.finditer(text):
            if _after_space(text, m.start()) and not _is_masked(m.group(1)) and not _is_placeholder(m.group(1)):
                yield m.start(1), m.end(1), "basic-auth"
    for tools, pattern in _CLI_PASSWORD_RES:
        if not any(tool in low for tool in tools):
            continue
        for m in pattern.finditer(text):
            if m.start() > 0 and not _after_space(text, m.start()) and not text.startswith("sshpass", m.start()):
                continue
            window_from = max(0, m.start() - 1000)  # the command starts on the same line, not far back
            line_from = text.rfind("\n", window_from, m.start()) + 1 or window_from
            if any(tool in low[line_from:m.start("v")] for tool in tools) and not _is_masked(m.group("v")):
                yield m.start("v"), m.end("v"), "password"


_AUTH_HEADER_RE = re.compile(  # run on the lowered copy; the value's case is read from the original
    r"authori[sz]ation(?![a-z0-9_])(?:\\{0,7}[\"'])?[ \t]*[:=][ \t]*(?:\\{0,7}[\"'])?[ \t]*"
    r"(?:(?:basic|bearer|token|negotiate|ntlm|apikey|api-key|sso-key|ssws|key|hmac|jwt|otp)[ \t]+)?"
    r"([^\s\"'`\\,;)}\]]{8,})"
)
_COOKIE_HEADER_RE = re.compile(  # run on the lowered copy; "--cookie v" and "cookie: v" both start here
    r"cookie(?![a-z0-9_])(?:(?:\\{0,7}[\"'])?[ \t]*[:=]|[ \t]+)[ \t]*(?:\\{0,7}[\"'])?[ \t]*"
)
_CURL_COOKIE_FLAG_RE = re.compile(r"-b[ \t]+(?:\\{0,7}[\"'])?")
_COOKIE_PAIR_RE = re.compile(r"([!#$%&*+.^_|~0-9A-Za-z\-]{1,80})=([^;\s\"'\\,]{1,600})(?:;[ \t]*)?")
_COOKIE_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "secure", "httponly",
                                "priority", "partitioned", "version", "comment"})


def _detect_headers(text: str, low: str) -> Iterator[Candidate]:
    if "authori" in low:
        for m in _AUTH_HEADER_RE.finditer(low):
            value = text[m.start(1):m.end(1)]
            if not _is_masked(value) and not _is_placeholder(value) and not _is_identifier(value):
                yield m.start(1), m.end(1), "authorization"
    starts: list[int] = []
    if "cookie" in low:
        for m in _COOKIE_HEADER_RE.finditer(low):
            # the bare "cookie v" form only after "--cookie", the rest needs ":" or "="
            if ":" in m.group(0) or "=" in m.group(0) or (m.start() >= 2 and low.startswith("--", m.start() - 2)):
                starts.append(m.end())
    if "-b " in text:
        starts += [m.end() for m in _CURL_COOKIE_FLAG_RE.finditer(text) if _after_space(text, m.start())]
    for pos in starts:
        for _ in range(40):  # a header carries a bounded number of pairs
            pair = _COOKIE_PAIR_RE.match(text, pos)
            if not pair:
                break
            name, value = pair.group(1), pair.group(2)
            if (name.lower() not in _COOKIE_ATTRIBUTES and len(value) >= 8 and not _is_masked(value)
                    and not _is_placeholder(value)):
                yield pair.start(2), pair.end(2), "cookie"
            pos = pair.end()


_PRIVATE_KEY_BEGIN_RE = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_KEY_END_RE = re.compile(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# Body of a key whose END line is missing (truncated output): lines of base64, with real or escaped
# newlines, optional "Header: value" lines.
# Escaped newlines may carry any number of backslashes (JSON escaped inside JSON, then repr'd), and
# the last line may be cut short (truncated output, or a 200-char argument leaf cut by Phase 1), so
# newline-separated runs of any length count; space-separated runs only when long, to spare prose.
_PRIVATE_KEY_BODY_RE = re.compile(
    r"(?:(?:\s|\\+[nr])+[A-Za-z0-9+/=]{16,}"
    r"|(?:[ \t]*(?:\r?\n|\\+[nr]))+[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z\-]{2,30}: [^\r\n\\]{1,80}))*+"
)


def _detect_private_keys(text: str) -> Iterator[Candidate]:
    if "PRIVATE KEY" not in text:
        return
    pos = 0
    while True:
        m = _PRIVATE_KEY_BEGIN_RE.search(text, pos)
        if not m:
            return
        end_marker = _PRIVATE_KEY_END_RE.search(text, m.end(), m.end() + 40_000)
        if end_marker:
            end = end_marker.end()
        else:
            end = _PRIVATE_KEY_BODY_RE.match(text, m.end()).end()
        yield m.start(), end, "private-key"
        pos = end


_AWS_CONTEXT_RE = re.compile(r"aws|secret|akia|asia|access.?key|credential|iam|boto")  # on the lowered copy
_AZURE_CONTEXT_RE = re.compile(r"azure|storage|account|blob|key|secret|credential")  # on the lowered copy
_AWS_SECRET_RE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=_\-])")
_AZURE_KEY_TAIL_RE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/]{86}\Z")
_PHONE_RE = re.compile(r"\+[1-9]\d{6,14}(?![A-Za-z0-9]|[.,]\d)")


def _detect_shapes(text: str, low: str) -> Iterator[Candidate]:
    """Keys without a prefix, recognised by their exact shape plus a nearby cloud/secret word.

    Only the neighbourhood of a context word is scanned, which keeps long ordinary text fast.
    """
    base64_plugin, _ = _entropy_plugins()
    scanned_to = 0
    for ctx in _AWS_CONTEXT_RE.finditer(low):
        lo, hi = max(scanned_to, ctx.start() - 80), min(len(text), ctx.end() + 160)
        if lo >= hi:
            continue
        for m in _AWS_SECRET_RE.finditer(text, max(0, lo - 40), hi):
            run = m.group(0)
            if m.start() < scanned_to or _HEX_RE.match(run):
                continue
            if not (any(c.isupper() for c in run) and any(c.islower() for c in run)):
                continue
            if any(c.isdigit() or c in "+/" for c in run) and base64_plugin.calculate_shannon_entropy(run) >= 4.0:
                yield m.start(), m.end(), "aws-secret-key"
        scanned_to = hi
    if "==" in text:
        pos = text.find("==")
        while pos != -1:
            tail = _AZURE_KEY_TAIL_RE.search(text, max(0, pos - 86), pos)
            if tail and _boundary_after_base64(text, pos + 2):
                key = text[tail.start():pos + 2]
                if (base64_plugin.calculate_shannon_entropy(key) >= 4.5
                        and _AZURE_CONTEXT_RE.search(low, max(0, tail.start() - 200), tail.start())):
                    yield tail.start(), pos + 2, "azure-storage-key"
            pos = text.find("==", pos + 2)
    if "+" in text:
        for m in _PHONE_RE.finditer(text):
            if m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_+"):
                yield m.start(), m.end(), "phone-number"


def _boundary_after_base64(text: str, pos: int) -> bool:
    return pos >= len(text) or text[pos] not in _BASE64_CHARS


_BASE64_CHARS = frozenset(string.ascii_letters + string.digits + "+/=_-")


_SAS_SIG_RE = re.compile(r"[?&;]sig=([A-Za-z0-9%+/=]{16,})")


def _detect_signed_urls(text: str) -> Iterator[Candidate]:
    if "sig=" in text:
        for m in _SAS_SIG_RE.finditer(text):
            yield m.start(1), m.end(1), "sas-signature"


# ---------------------------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------------------------

# When overlapping candidates merge, the kind of the first in this order names the result.
_KIND_PRIORITY = ("private-key", "aws-secret-key", "azure-storage-key", "connection-string-key", "basic-auth",
                  "authorization", "cookie", "slack-webhook", "discord-webhook")


def _candidates(text: str, low: str, protected: list[tuple[int, int]]) -> Iterator[Candidate]:
    yield from _detect_private_keys(text)
    yield from _detect_vendor(text)
    yield from _detect_with_detect_secrets(text, low)
    yield from _detect_connection_strings(text, low)
    yield from _detect_basic_auth(text, low)
    yield from _detect_headers(text, low)
    yield from _detect_shapes(text, low)
    yield from _detect_signed_urls(text)
    yield from _detect_labelled(text, low, protected)


def _overlaps(span: tuple[int, int], regions: list[tuple[int, int]], starts: list[int]) -> bool:
    """Whether ``span`` touches one of the sorted, disjoint ``regions``."""
    idx = bisect.bisect_left(starts, span[1]) - 1
    return idx >= 0 and regions[idx][1] > span[0]


# Kinds named only after the label in front of a value; any specific kind names a merged span first.
_GENERIC_KINDS = frozenset({"password", "secret", "token", "api-key", "credential", "high-entropy", "session-id"})


def _merge(cands: Iterable[Candidate]) -> list[Candidate]:
    def rank(kind: str) -> int:
        if kind in _KIND_PRIORITY:
            return _KIND_PRIORITY.index(kind)
        return len(_KIND_PRIORITY) + (kind in _GENERIC_KINDS)

    merged: list[Candidate] = []
    for start, end, kind in sorted(cands):
        if merged and start < merged[-1][1]:
            m_start, m_end, m_kind = merged[-1]
            merged[-1] = (m_start, max(m_end, end), kind if rank(kind) < rank(m_kind) else m_kind)
        else:
            merged.append((start, end, kind))
    return merged


def _check_text(text: object, function: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{function}() expects the text as str, got {type(text).__name__}")
    return text


def find_secrets(text: str) -> list[SecretSpan]:
    """Every value strict mode would mask, with positions in ``text`` (sorted, non-overlapping)."""
    _check_text(text, "find_secrets")
    if not text:
        return []
    low = text.translate(_ASCII_LOWER)
    protected = _protected_regions(text, low)
    starts = [s for s, _ in protected]
    cands = (
        c for c in _candidates(text, low, protected)
        if c[1] > c[0] and not (protected and _overlaps((c[0], c[1]), protected, starts))
    )
    spans = []
    for start, end, kind in _merge(cands):
        value = text[start:end]
        if kind != "private-key" and _is_masked(value):
            continue
        spans.append(SecretSpan(start, end, kind, mask_value(value, kind)))
    return spans


def redact_with_spans(text: str) -> tuple[str, list[SecretSpan]]:
    """The redacted text and its masked spans, positioned in the *redacted* text."""
    _check_text(text, "redact_with_spans")
    pieces: list[str] = []
    out_spans: list[SecretSpan] = []
    cursor = 0
    out_len = 0
    for span in find_secrets(text):
        kept = text[cursor:span.start]
        pieces.append(kept)
        out_len += len(kept)
        pieces.append(span.masked)
        out_spans.append(SecretSpan(out_len, out_len + len(span.masked), span.kind, span.masked))
        out_len += len(span.masked)
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces), out_spans


def strict_redact(text: str) -> str:
    """Mask every credential strict mode finds; text without any comes back unchanged."""
    _check_text(text, "strict_redact")
    return redact_with_spans(text)[0]


def count_by_kind(spans: Iterable[SecretSpan]) -> dict[str, int]:
    """How many masked values of each kind, most frequent first."""
    return dict(Counter(span.kind for span in spans).most_common())
