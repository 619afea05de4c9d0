"""detect-secrets' regex plugins: the vendor formats it knows, each behind a cheap gate.

Each plugin runs only when its gate (a literal looked up in the lowered copy, or a short regex) is in
the text. The plugins yield values without positions; every occurrence of a value with token
boundaries around it is masked. Telegram tokens are left to the vendor family, which covers them.

Three of detect-secrets' plugins are not used: their patterns backtrack over a long run (JWT's
``eyJ[...]+\\.``, OpenAI's ``sk-[...]*[...]{20}T3BlbkFJ`` and npm's ``//.+/:_authToken=``, each
quadratic on a run of its own characters) and the vendor family and the label grammar already mask
every value they find (any ``eyJ`` or ``sk-`` token, ``_authToken=`` values).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from core.literals import Literals
from core.redaction.strict.common import boundary_after, boundary_before, is_masked
from core.redaction.strict.registry import Candidate, TextView, detector

_MAILCHIMP_GATE = re.compile(r"-us\d")
_PLUGINS: tuple[tuple[str, str, tuple[str | re.Pattern[str], ...], str], ...] = (
    ("aws", "AWSKeyDetector", (re.compile(r"aws[^\n]{0,60}[\"'][0-9a-z/+]{40}[\"']"),), "aws-secret-key"),
    ("azure_storage_key", "AzureStorageKeyDetector", ("accountkey",), "connection-string-key"),
    ("basic_auth", "BasicAuthDetector", ("://",), "basic-auth"),
    ("discord", "DiscordBotTokenDetector", (re.compile(r"\.[a-z0-9_-]{6}\.[a-z0-9_-]{27}"),), "discord-bot-token"),
    ("github_token", "GitHubTokenDetector", ("gh",), "github-token"),
    ("gitlab_token", "GitLabTokenDetector", ("gl", "gr1348941"), "gitlab-token"),
    ("mailchimp", "MailchimpDetector", (_MAILCHIMP_GATE,), "mailchimp-key"),
    ("pypi_token", "PypiTokenDetector", ("pypi-",), "pypi-token"),
    ("sendgrid", "SendGridDetector", ("sg.",), "sendgrid-key"),
    ("slack", "SlackDetector", (re.compile(r"xox[abposr]-"), "hooks.slack.com"), "slack-token"),
    ("square_oauth", "SquareOAuthDetector", ("sq0csp-",), "square-token"),
    ("stripe", "StripeDetector", ("k_live_",), "stripe-key"),
    ("twilio", "TwilioKeyDetector", ("ac", "sk"), "twilio-key"),
)


@lru_cache(maxsize=1)
def plugin_instances() -> tuple[tuple[Any, tuple[str | re.Pattern[str], ...], str], ...]:
    """The plugins, imported on first use (detect-secrets is not needed until a text is redacted)."""
    import importlib

    instances = []
    for module_name, class_name, gates, kind in _PLUGINS:
        module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
        instances.append((getattr(module, class_name)(), gates, kind))
    return tuple(instances)


def audited_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    """The plugins' own patterns, for ``core.pattern_audit`` (they live in detect-secrets, not here)."""
    for plugin, _gates, _kind in plugin_instances():
        for index, pattern in enumerate(getattr(plugin, "denylist", ())):
            if isinstance(pattern, re.Pattern):
                yield f"detect_secrets.{type(plugin).__name__}.denylist[{index}]", pattern


_VALUE_STOP_RE = re.compile(r"[\s\"'`\\]")
_SLACK_WEBHOOK_PREFIX_RE = re.compile(r"^https://hooks\.slack\.com/services/", re.IGNORECASE)


def _normalise(value: str) -> str:
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
        if boundary_before(text, start) and boundary_after(text, end):
            yield start, end
        start = text.find(value, start + 1)


# The gates that are literals, found in the lowered copy in one pass.
_LITERAL_GATES = Literals(gate for _module, _class, gates, _kind in _PLUGINS for gate in gates if isinstance(gate, str))


@detector("plugins", "detect-secrets' vendor formats (AWS, Azure, GitHub, GitLab, Slack, Stripe, Twilio, ...)")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    present = _LITERAL_GATES.found_in(low)
    for plugin, gates, kind in plugin_instances():
        if not any(gate in present if isinstance(gate, str) else gate.search(low) is not None for gate in gates):
            continue
        seen: set[str] = set()
        for raw in plugin.analyze_string(text):
            value = _normalise(raw)
            if len(value) < 8 or value in seen or is_masked(value):
                continue
            seen.add(value)
            for start, end in _locate(text, value):
                yield start, end, kind
