"""Redaction: each profile's reference masking, and the optional strict layer that runs after it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from core.redaction.hermes import mask_secret, redact_many, redact_sensitive_text
from core.redaction.strict import SecretSpan, count_by_kind, find_secrets, redact_with_spans, strict_redact

if TYPE_CHECKING:
    from core.profiles import Profile

__all__ = [
    "ProfileRedaction",
    "SecretSpan",
    "count_by_kind",
    "find_secrets",
    "mask_secret",
    "profile_memory_redaction",
    "profile_redaction",
    "redact_sensitive_text",
    "redact_with_spans",
    "strict_redact",
]


@dataclass(frozen=True)
class ProfileRedaction:
    """What a compressor masks before text leaves the process: the release's reference passes,
    then, when ``strict`` is on, the strict layer."""

    release: str
    strict_layer: bool

    def redact(self, text: Any) -> Any:
        redacted = redact_sensitive_text(text, release=self.release)
        if self.strict_layer and isinstance(redacted, str) and redacted:
            redacted = strict_redact(redacted)
        return redacted

    def redact_many(self, texts: list[str]) -> list[str]:
        """``redact`` over a list (one search per pass across all of them)."""
        redacted = redact_many(texts, release=self.release)
        if self.strict_layer:
            redacted = [strict_redact(t) if t else t for t in redacted]
        return redacted

    def strict(self, text: str) -> str:
        """The strict layer alone (for text the reference sends unredacted, such as a rehydrated summary)."""
        return strict_redact(text) if self.strict_layer and text else text


@lru_cache(maxsize=32)
def profile_redaction(profile: Profile, *, strict: bool = False) -> ProfileRedaction:
    return ProfileRedaction(profile.redaction, bool(strict))


def profile_memory_redaction(profile: Profile, *, strict: bool = False) -> Any:
    """What the release masks in a memory provider's context (v0.19.0 adds URL credentials), as a function."""
    release = profile.memory_redaction or profile.redaction
    return ProfileRedaction(release, bool(strict)).redact
