"""Keys and tokens recognised by a vendor's prefix (``sk-``, ``ghp_``, ``AKIA``, ``xoxb-``, ...), Telegram
bot tokens, Slack and Discord webhook URLs.

Each pattern starts with its literal prefix, so the engine skips ahead to it, and is only run when
that literal is in the text at all. Boundaries are checked in code, not in the pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.literals import Literals
from core.redaction.strict.common import boundary_after, boundary_before, is_masked
from core.redaction.strict.registry import Candidate, TextView, detector

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
# An npm registry token in .npmrc ("//registry.npmjs.org/:_authToken=..."); detect-secrets' own pattern
# ("//.+/:_authToken=...") backtracks over a long line of slashes.
_NPM_AUTH_RE = re.compile(r"/:_authToken=[ \t]*+(npm_[A-Za-z0-9_\-]++|[A-Fa-f0-9-]{36})")
_WEBHOOK_RE = re.compile(
    r"https://(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,25}/)"
    r"([A-Za-z0-9_\-/]{16,})"
)


# Every literal scan() asks for, found in one pass over the text.
_SCAN_LITERALS = Literals((*VENDOR_GATES, "SG.", "_authToken", "https://"))


@detector("vendor", "keys and tokens with a vendor prefix, bot tokens, Slack and Discord webhooks")
def scan(view: TextView) -> Iterator[Candidate]:
    text = view.text
    present = _SCAN_LITERALS.found_in(text)
    for kind, gate, pattern in _VENDOR_COMPILED:
        if gate not in present:
            continue
        for m in pattern.finditer(text):
            start, end = m.span()
            if boundary_before(text, start) and boundary_after(text, end):
                yield start, end, kind
    if "SG." in present:
        for m in _SENDGRID_AFTER_REFERENCE_RE.finditer(text):
            yield m.start(1), m.end(1), "sendgrid-key"
    if ":" in text:
        for m in _TELEGRAM_SECRET_RE.finditer(text):
            bot_id = _BOT_ID_RE.search(text, max(0, m.start() - 10), m.start())
            if (bot_id and (bot_id.start() == 0 or not text[bot_id.start() - 1].isdigit())
                    and boundary_after(text, m.end(1)) and not is_masked(m.group(1))):
                yield m.start(1), m.end(1), "telegram-bot-token"
    if "_authToken" in present:
        for m in _NPM_AUTH_RE.finditer(text):
            line_from = text.rfind("\n", max(0, m.start() - 1000), m.start()) + 1
            if "//" in text[line_from:m.start()] and not is_masked(m.group(1)):
                yield m.start(1), m.end(1), "npm-token"
    if "https://" in present:
        for m in _WEBHOOK_RE.finditer(text):
            kind = "slack-webhook" if "slack" in m.group(0) else "discord-webhook"
            yield m.start(1), m.end(1), kind
