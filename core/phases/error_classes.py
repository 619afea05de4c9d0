"""v0.19.0's error classifier, as far as a summary failure reaches it.

The release decides whether a failed summary call is an *access or quota* failure (which aborts the
compression, like an authentication failure did in v0.18) with its general error classifier. An
exception raised by a summarizer carries only a class name, ``str(exc)``, ``status_code`` /
``status`` and causes, so only the classifier's text-and-status steps apply: :func:`error_class`
gives ``rate_limit``, ``auth`` or ``other`` for such an exception, :func:`is_access_failure` the
compressor's verdict. The pattern lists are the release's lower-case substrings.
"""

from __future__ import annotations

from typing import Any

RATE_LIMIT, AUTH, OTHER = "rate_limit", "auth", "other"

CONTENT_POLICY = (
    "flagged for possible cybersecurity risk", "trusted access for cyber", "violates our usage policies",
    "violates openai's usage policies", "your request was flagged by", "prompt was flagged by our safety",
    "responses cannot be generated due to safety", "content_filter", "responsibleaipolicyviolation", "new_sensitive",
)
BILLING = (
    "insufficient credits", "insufficient_quota", "insufficient balance", "credit balance", "credits exhausted",
    "credits have been exhausted", "no usable credits", "top up your credits", "payment required",
    "billing hard limit", "exceeded your current quota", "account is deactivated", "plan does not include",
    "out of extra usage", "out of funds", "run out of funds", "balance_depleted", "model_not_supported_on_free_tier",
    "not available on the free tier",
)
RATE_LIMITED = (
    "rate limit", "rate_limit", "too many requests", "throttled", "requests per minute", "tokens per minute",
    "requests per day", "try again in", "please retry after", "resource_exhausted", "rate increased too quickly",
    "throttlingexception", "too many concurrent requests", "servicequotaexceededexception",
)
OVERLOADED = (
    "overloaded", "temporarily overloaded", "service is temporarily overloaded",
    "service may be temporarily overloaded", "server is overloaded", "server overloaded", "service overloaded",
    "service is overloaded", "upstream overloaded", "currently overloaded", "at capacity", "over capacity",
)
USAGE_LIMIT = ("usage limit", "quota", "limit exceeded", "key limit exceeded")
TRANSIENT = ("try again", "retry", "resets at", "reset in", "wait", "requests remaining", "periodic", "window")
PAYLOAD_TOO_LARGE = ("request entity too large", "payload too large", "error code: 413")
IMAGE_TOO_LARGE = (
    "image exceeds", "image too large", "image_too_large", "image size exceeds", "image dimensions exceed",
    "dimensions exceed max allowed size", "max allowed size: 8000",
)
MULTIMODAL_TOOL = (
    "text is not set", "tool message content must be a string", "tool content must be a string",
    "tool message must be a string", "expected string, got list", "expected string, got array",
    "tool_call.content must be string",
)
CONTEXT_OVERFLOW = (
    "context length", "context size", "maximum context", "token limit", "too many tokens", "reduce the length",
    "exceeds the limit", "context window", "prompt is too long", "prompt exceeds max length", "max_tokens",
    "maximum number of tokens", "exceeds the max_model_len", "max_model_len", "prompt length", "input is too long",
    "maximum model length", "context length exceeded", "truncating input", "slot context", "n_ctx_slot",
    "超过最大长度", "上下文长度", "tokens in request more than max tokens allowed", "max input token", "input token",
    "exceeds the maximum number of input tokens",
)
MODEL_NOT_FOUND = (
    "is not a valid model", "invalid model", "model not found", "model_not_found", "does not exist", "no such model",
    "unknown model", "unsupported model", "no endpoints found that support tool use",
)
REQUEST_VALIDATION = (
    "unknown parameter", "unsupported parameter", "unrecognized request argument", "unknown_parameter",
    "unsupported_parameter",
)
POLICY_BLOCKED = (
    "no endpoints available matching your guardrail", "no endpoints available matching your data policy",
    "no endpoints found matching your data policy",
)
EMPTY_RESPONSE = (
    "returned an empty response", "empty response despite retries", "provider returned an empty response",
    "model returning empty responses", "empty response stream",
)
AUTH_TEXTS = (
    "invalid api key", "invalid_api_key", "authentication", "unauthorized", "forbidden", "invalid token",
    "token expired", "token revoked", "access denied",
)
# The compressor's own access test after the classifier.
MISSING_KEY_TEXTS = ("no api key was found", "no api key found")
ACCESS_STATUSES = (401, 402, 403)
QUOTA_TEXTS = (
    "insufficient_quota", "quota exceeded", "quota_exceeded", "out of funds", "out of credits", "out of credit",
    "out of extra usage",
)
_CHAIN_DEPTH = 5


def _any(text: str, patterns: tuple[str, ...]) -> bool:
    return any(pattern in text for pattern in patterns)


def classifier_status(exc: BaseException) -> int | None:
    """The classifier's status: an int ``status_code`` (a bool counts), else an int ``status`` in
    100-599, on the exception and then along its causes (``__cause__``, else ``__context__``)."""
    current: BaseException | None = exc
    for _ in range(_CHAIN_DEPTH):
        if current is None:
            break
        code = getattr(current, "status_code", None)
        if isinstance(code, int):
            return code
        status = getattr(current, "status", None)
        if isinstance(status, int) and 100 <= status <= 599:
            return status
        current = current.__cause__ or current.__context__
    if type(exc).__name__ == "RateLimitError":
        return 429
    return None


def _encrypted_content(s: str) -> bool:
    return ("invalid_encrypted_content" in s or ("encrypted content for item" in s and "could not be verified" in s)
            or "could not decrypt the provided encrypted_content" in s)


def _by_status(status: int, s: str) -> str | None:
    """Step 4: what the status decides (None: a status below 400 or from 600 on decides nothing)."""
    if status == 401:
        return AUTH
    if status == 403:
        return OTHER if "key limit exceeded" in s or "spending limit" in s or _any(s, BILLING) else AUTH
    if status == 402:
        return RATE_LIMIT if _any(s, USAGE_LIMIT) and _any(s, TRANSIENT) else OTHER
    if status == 429:
        return OTHER if _any(s, OVERLOADED) else RATE_LIMIT
    if status == 400:
        if (_any(s, MULTIMODAL_TOOL) or _any(s, IMAGE_TOO_LARGE) or _encrypted_content(s)
                or _any(s, REQUEST_VALIDATION) or _any(s, EMPTY_RESPONSE) or _any(s, CONTEXT_OVERFLOW)
                or _any(s, POLICY_BLOCKED) or _any(s, MODEL_NOT_FOUND)):
            return OTHER
        return RATE_LIMIT if _any(s, RATE_LIMITED) else OTHER
    if 400 <= status <= 599:
        return OTHER
    return None


def _by_message(s: str) -> str:
    """Step 5: the message patterns."""
    if _any(s, PAYLOAD_TOO_LARGE) or _any(s, MULTIMODAL_TOOL) or _any(s, IMAGE_TOO_LARGE):
        return OTHER
    if _any(s, USAGE_LIMIT):
        return RATE_LIMIT if _any(s, TRANSIENT) else OTHER
    if _any(s, OVERLOADED) or _any(s, BILLING):
        return OTHER
    if _any(s, RATE_LIMITED):
        return RATE_LIMIT
    if _any(s, EMPTY_RESPONSE) or _any(s, CONTEXT_OVERFLOW):
        return OTHER
    return AUTH if _any(s, AUTH_TEXTS) else OTHER


def error_class(exc: BaseException) -> str:
    """``rate_limit``, ``auth`` or ``other``: the release's classifier on an exception without a body."""
    s = str(exc).lower()
    status = classifier_status(exc)
    if _any(s, CONTENT_POLICY):
        return OTHER
    if status == 400 and "thinking" in s and ("signature" in s or "cannot be modified" in s
                                                or "must remain as they were" in s):
        return OTHER
    if status == 429 and "extra usage" in s and "long context" in s:
        return OTHER
    if status == 400 and "long context beta" in s and "not yet available" in s:
        return OTHER
    if status == 400 and ("error parsing grammar" in s or "json-schema-to-grammar" in s
                          or ("unable to generate parser" in s and "template" in s)):
        return OTHER
    if "do not have an active grok subscription" in s or ("out of available resources" in s and "grok" in s):
        return AUTH
    if status is not None:
        decided = _by_status(status, s)
        if decided is not None:
            return decided
    return _by_message(s)


def _status_in(status: Any, statuses: tuple[int, ...]) -> bool:
    try:
        return status in statuses
    except TypeError:  # an unhashable or odd status matches nothing
        return False


def is_access_failure(exc: BaseException, status: Any) -> bool:
    """v0.19.0: the failure aborts as "access or quota" (``status``: the compressor's own reading)."""
    kind = error_class(exc)
    if kind == RATE_LIMIT:
        return False
    if kind == AUTH:
        return True
    s = str(exc).lower()
    return _any(s, MISSING_KEY_TEXTS) or _status_in(status, ACCESS_STATUSES) or _any(s, QUOTA_TEXTS)
