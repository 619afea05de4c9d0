"""Catalogues the case generator draws from, written from the spec's "inputs worth testing" lists:
secret shapes, summary failures (each release's classification tables), summary answers and
memory-provider texts. Every secret below is fake.
"""

from __future__ import annotations

import random
import string
from typing import Any

from tests.differential.spec_strings import END_MARKER, MERGE_DELIMITER, PREFIXES, TASK_HEADING

ALNUM = string.ascii_letters + string.digits


def token(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def secret(rng: random.Random) -> str:
    """One secret-looking string, of one of the shapes the releases' redaction passes treat differently."""
    t = lambda n, a=ALNUM: token(rng, n, a)  # noqa: E731
    shapes = [
        lambda: f"sk-proj-{t(24)}", lambda: f"sk-{t(12)}", lambda: f"ghp_{t(36)}", lambda: f"github_pat_{t(40)}",
        lambda: f"gho_{t(20)}", lambda: f"xoxb-1234-{t(24)}", lambda: f"xapp-1-A0B1C2D3E4F5-1234567890-{t(12)}",
        lambda: f"AIza{t(35)}", lambda: f"AKIA{t(16, string.ascii_uppercase + string.digits)}",
        lambda: f"sk_live_{t(24)}", lambda: f"SG.{t(22)}.{t(30)}", lambda: f"hf_{t(34)}", lambda: f"npm_{t(36)}",
        lambda: f"pypi-{t(40)}", lambda: f"ntn_{t(rng.choice([8, 10, 14, 46]))}", lambda: f"fw_{t(36)}",
        lambda: f"fw-{t(rng.choice([29, 30, 34]))}", lambda: f"fpk_{t(40)}", lambda: f"tvly-{t(20)}",
        lambda: f"xai-{t(40)}", lambda: f"gAAAA{t(30)}", lambda: f"r8_{t(20)}",
        lambda: f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi{t(12)}.{t(20)}",
        lambda: f"-----BEGIN RSA PRIVATE KEY-----\nMIIB{t(40)}\n-----END RSA PRIVATE KEY-----",
        lambda: f"postgres://admin:{t(10)}@db.internal:5432/app", lambda: "mongodb+srv://u:pass word@cluster/x",
        lambda: f"bot{rng.randint(10**8, 10**9)}:{t(35, ALNUM + '_-')}", lambda: "+14155552671", lambda: "+1234567",
        lambda: f"Authorization: Bearer {t(26)}", lambda: f"Authorization: Basic {t(30)}", lambda: "authorization:Bearer",
        lambda: f"AUTHorization: Basic {t(26)}", lambda: f"Proxy-Authorization: Basic {t(26)}",
        lambda: f"x-api-key: {t(26)}", lambda: f"X-Auth-Token:{t(8)}", lambda: f"API_KEY={t(26)}",
        lambda: f"export OPENAI_API_KEY=sk-{t(30)}", lambda: f"A_TOKEN = {t(20)}", lambda: f"set MY_TOKEN={t(26)} now",
        lambda: f"password: {t(20)}", lambda: f"  api_key: {t(26)}", lambda: "Token: abc", lambda: f"my_token:{t(10)}",
        lambda: f"spring.datasource.password={t(21)}", lambda: "app.api.key=xyz&other=1", lambda: "author=JohnSmith",
        lambda: f"access_token={t(20)}&user=bob", lambda: f'{{"api_key": "{t(20)}", "user": "x"}}',
        lambda: f'"token": "{t(16)}"', lambda: "OPENAI_API_KEY=os.getenv('OPENAI_API_KEY')",
        lambda: "TOKEN=process.env.GITHUB_TOKEN", lambda: "API_KEY = os.getenv('X') # comment",
        lambda: "secret: $ENV{S}", lambda: "password: os.environ['DB_PW']", lambda: "API_KEY=xos.getenv('X')",
        lambda: f"https://ghp_{t(30)}@github.com/o/r.git", lambda: f"https://deploy{t(8)}@github.com/o/r",
        lambda: "https://user:pass@host/x", lambda: f"ssh://deploykey{t(4)}@host:22", lambda: "<@123456789012345678>",
        lambda: f"API_KEY={t(26)} see https://x.com", lambda: f"curl -H \"Authorization: Bearer {t(26)}\" https://x",
    ]
    return rng.choice(shapes)()


def _exc(cls: str, msg: str | None, base: str = "Exception", **attrs: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"cls": cls, "base": base, "msg": msg}
    spec.update(attrs)
    return {"raise": spec}


# Each release's classification tables (v0.15.1 §6.3, v0.18.0 §7.3, v0.19.0 §8.2–8.3), as failures.
FAILURES: list[dict[str, Any]] = [
    _exc("RuntimeError", "No LLM provider configured for task=compression provider=auto.", "RuntimeError"),
    _exc("RuntimeError", "no provider", "RuntimeError"),
    _exc("RuntimeError", "provider down", "RuntimeError"),
    _exc("RuntimeError", "Connection refused", "RuntimeError"),
    _exc("NotImplementedError", "not here", "NotImplementedError"),
    _exc("ProviderError", "No LLM provider configured", "Exception"),
    _exc("APIStatusError", "boom", status_code=401), _exc("APIStatusError", "denied", status_code=403),
    _exc("APIStatusError", "boom", response_status_code=403), _exc("APIStatusError", "boom", status_code=401.0),
    _exc("APIStatusError", "boom", status_code="401"), _exc("APIStatusError", "Error code: 402 - payment required", status_code=402),
    _exc("APIStatusError", "boom", response_status_code=402), _exc("NotFoundError", "model_not_found", status_code=404),
    _exc("APIStatusError", "Service Unavailable", status_code=503), _exc("APIStatusError", "upstream", status_code=500),
    _exc("APIStatusError", "Unauthorized", status_code=500), _exc("APIStatusError", "gateway", status_code=502),
    _exc("APIStatusError", "request timeout", status_code=408), _exc("APIStatusError", "gateway timeout", status_code=504),
    _exc("RateLimitError", "Error code: 429 - rate limited", status_code=429),
    _exc("RateLimitError", "insufficient_quota"), _exc("RateLimitError", "Unauthorized"),
    _exc("APIStatusError", "Error code: 429 - insufficient_quota", status_code=429),
    _exc("APIStatusError", "Connection refused", status_code=429),
    _exc("APIStatusError", "usage limit reached, try again in 5 minutes", status_code=402),
    _exc("APIStatusError", "request flagged by content_filter", status_code=401),
    _exc("Exception", "Error code: 401 - Unauthorized"), _exc("Exception", "API key is invalid"),
    _exc("Exception", "Your API key is invalid or has expired"), _exc("Exception", "api key blocked by administrator"),
    _exc("Exception", "invalid x-api-key header"), _exc("Exception", "invalid api_key"), _exc("X", "forbidden"),
    _exc("Exception", "Authentication failed for provider"), _exc("Exception", "Access denied for this resource"),
    _exc("Exception", "token expired"), _exc("Exception", "Invalid token supplied"), _exc("Exception", "403 Forbidden"),
    _exc("Exception", "You exceeded your current quota, please check your plan and billing details (insufficient_quota)"),
    _exc("Exception", "quota exceeded"), _exc("Exception", "Monthly quota_exceeded for this key"),
    _exc("Exception", "Account is out of credits"), _exc("Exception", "Organisation ran out of funds"),
    _exc("Exception", "quota exceeded, retry after 20s"), _exc("Exception", "credit balance is too low"),
    _exc("Exception", "no api key provided"), _exc("Exception", "No API key was found for provider 'openrouter'"),
    _exc("Exception", "Too many requests: unauthorized burst"), _exc("Exception", "Unauthorized - rate limit exceeded"),
    _exc("Exception", "content_filter: Unauthorized"), _exc("Exception", "overloaded: invalid api key"),
    _exc("Exception", "You do not have an active Grok subscription"),
    _exc("Exception", "Request timed out."), _exc("Exception", "timeout"), _exc("Exception", "upstream request timeout"),
    _exc("Exception", "connection timed out"), _exc("APITimeoutError", "Request timed out."),
    _exc("ReadTimeout", "The read operation timed out"), _exc("APIConnectionError", "Connection error."),
    _exc("ConnectionError", "boom", "ConnectionError"), _exc("TimeoutError", None, "TimeoutError"),
    _exc("ConnectionResetError", "peer reset", "ConnectionResetError"), _exc("BrokenPipeError", "broken", "BrokenPipeError"),
    _exc("DNSFailure", "lookup failed"), _exc("SSLError", "handshake"),
    _exc("Exception", "httpx.RemoteProtocolError: incomplete chunked read"), _exc("Exception", "peer closed connection"),
    _exc("Exception", "Expecting value: line 1 column 1 (char 0)"), _exc("JSONDecodeError", "Expecting value", "JSONDecodeError"),
    _exc("Exception", "Error code: 500 - upstream exploded"), _exc("Exception", ""),
    _exc("Exception", "model does not exist"), _exc("Exception", "boom\ntoken: abcdefghijklmnopqrstuvwxyz"),
    _exc("Exception", "   padded failure   "),
]
TIMEOUTS: list[dict[str, Any]] = [
    _exc("RateLimitError", "Error code: 429 - rate limited", status_code=429), _exc("APIStatusError", "gateway timeout", status_code=504),
    _exc("Exception", "Request timed out."), _exc("Exception", "upstream request timeout"),
]


def failure(rng: random.Random) -> dict[str, Any]:
    pick = rng.random()
    if pick < 0.08:  # a long text: the 220-character reason cut, with a space near the cut
        words = " ".join(token(rng, rng.randint(1, 9)) for _ in range(60))
        return _exc("Exception", f"Error code: 500 - {words}")
    if pick < 0.12:
        return {"text": rng.choice(["", "   \n", "\u200b", None, 0, {}])}  # empty answers (v0.18.0+: a failure)
    return rng.choice(FAILURES)


def summary_text(rng: random.Random, user_ask: str = "fix the login bug") -> Any:
    """An answer from the summary model: the usual template, or one of the shapes the releases
    post-process differently (echoed prefixes, END markers, the merge delimiter, think blocks)."""
    body = rng.choice([
        f"{TASK_HEADING}\nUser asked: '{user_ask}'\n\n## Goal\nShip it.\n\n## Completed Actions\n1. READ config.py:45 [tool: read_file]",
        "## Active Task\nNone.\n\n## Goal\nKeep going.",
        "## Goal\nG",
        f"## Goal\nG\n{TASK_HEADING}",
        f"{TASK_HEADING}: x\n## Goal\nG",
        f"{TASK_HEADING}\nA\n\n## Goal\nG\n\n{TASK_HEADING}\nB",
        f"  {TASK_HEADING}\nX\n## Goal\nG",
        f"{TASK_HEADING}\r\nX\r\n## Goal\r\nG",
        "## Goal\nFix the chart with 日本語 and émoji 🚀.\n\n## Relevant Files\n- src/app.py",
    ])
    shape = rng.random()
    if shape < 0.1:
        return f"{rng.choice(list(PREFIXES.values()))}\n{body}"
    if shape < 0.2:
        return f"{body}\n\n{END_MARKER}"
    if shape < 0.26:
        return f"pre text\n{MERGE_DELIMITER}\n{body}"
    if shape < 0.34:
        return f"<think>reasoning about it</think>\n{body}"
    if shape < 0.37:
        return "<think>all reasoning</think>"
    if shape < 0.40:
        return f"   \n{END_MARKER}"
    if shape < 0.46:
        return f"{body}\n\n## Critical Context\nKey was {secret(rng)} and {secret(rng)}."
    if shape < 0.48:
        return {"text": body}  # a non-string answer is str()-ed
    if shape < 0.52:
        return body + "\n" + "Detail line. " * rng.randint(50, 400)
    if shape < 0.56:
        return rng.choice(["[CONTEXT SUMMARY]:", f"[CONTEXT SUMMARY]: {body}", f"\t {body} \r\n", body.replace("\n", "\r\n")])
    return body


def memory_context(rng: random.Random) -> str:
    """v0.19.0's memory-provider text (sanitised with the strict URL pass, JSON-quoted in the prompt)."""
    return rng.choice([
        "",
        "   \n\t",
        "Prefers <small> PRs & squash merges.\nDB: postgres://ops:hunter2@db/prod?sslmode=require&password=pw",
        'User said "ship it" \\ quickly\ttabs\rcarriage',
        f"Callback https://api.x.com/v1?api_key=abc123&format=json and {secret(rng)}",
        "GET /cb?code=AUTHCODE&state=xyz HTTP/1.1 and https://user:pass@host/x",
        "M" * rng.choice([5999, 6000, 6001, 7000]),
        "Notes: " + "é日本 " * 300,
    ])
