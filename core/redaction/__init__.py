"""Redaction: each profile's reference masking, and the optional strict layer that runs after it."""

from core.redaction.hermes import mask_secret, redact_sensitive_text
from core.redaction.strict import SecretSpan, count_by_kind, find_secrets, redact_with_spans, strict_redact

__all__ = [
    "SecretSpan",
    "count_by_kind",
    "find_secrets",
    "mask_secret",
    "redact_sensitive_text",
    "redact_with_spans",
    "strict_redact",
]
