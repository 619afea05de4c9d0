"""Redaction: each profile's reference masking, and the optional strict layer that runs after it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from core.redaction.hermes import REDACTIONS, mask_secret, redact_many, redact_sensitive_text
from core.redaction.strict import SecretSpan, count_by_kind, find_secrets, redact_with_spans, strict_redact
from core.remembered import recall, recall_many, remember_many, unknown

if TYPE_CHECKING:
    from core.profiles import Profile

__all__ = [
    "REFERENCE_INLINE_CHARS",
    "ProfileRedaction",
    "RedactionAhead",
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


# Within a budget (the dashboard's and the command line's work; core.budget.within), a text longer
# than this goes through the reference's passes in a child process. Outside one (the library, the
# Hermes plugin) they run here, as in the reference. Some of the
# reference's own patterns (core.redaction.hermes, which keeps the reference's output and so its
# patterns) backtrack over a long run: a 100 KB message of "auth" repeated takes over 15 minutes in
# one call, holding the interpreter (every other thread, every other dashboard session) for all of
# it. A child (a worker kept between calls: core.budget.run_in_worker) has an
# interpreter of its own, and is stopped at its budget; the text comes back the same as it would
# here. Shorter texts cost at most a fraction of a second here.
REFERENCE_INLINE_CHARS = 2_000


def _all_releases(texts: list[str]) -> list[str]:
    for release in REDACTIONS:
        texts = redact_many(texts, release=release)
    return texts


def _reference_many(texts: list[Any], release: str | None, *, every_release: bool = False) -> list[Any]:
    """``redact_many`` of ``texts`` (of every release in turn with ``every_release``), the long ones in
    one child process."""
    from core.budget import in_budget

    long = [index for index, text in enumerate(texts) if isinstance(text, str) and len(text) > REFERENCE_INLINE_CHARS]
    if not long or not in_budget():
        return _all_releases(texts) if every_release else redact_many(texts, release=release)
    from core.budget import Budget, run_in_worker

    chosen = set(long)
    short = [text for index, text in enumerate(texts) if index not in chosen]
    far = [texts[index] for index in long]
    budget = Budget(memory_mb=None, scope="the limit of one redaction")
    if every_release:
        far = run_in_worker(_all_releases, far, budget=budget)
        short = _all_releases(short)
    else:
        far = run_in_worker(_child_many, far, release, budget=budget)
        short = redact_many(short, release=release)
    merged: list[Any] = []
    near, away = iter(short), iter(far)
    for index in range(len(texts)):
        merged.append(next(away) if index in chosen else next(near))
    return merged


def _child_many(texts: list[str], release: str | None) -> list[str]:
    return redact_many(texts, release=release)


def reference_redact(text: Any, release: str | None = None) -> Any:
    """``redact_sensitive_text`` (the same text back), a long text's in a child process."""
    if isinstance(text, str) and len(text) > REFERENCE_INLINE_CHARS:
        return _reference_many([text], release)[0]
    return redact_sensitive_text(text, release=release)


def reference_redact_all(texts: list[str]) -> list[str]:
    """Every release's reference redaction in turn over each text (the long ones in a child process)."""
    return _reference_many(list(texts), None, every_release=True)


@dataclass(frozen=True)
class ProfileRedaction:
    """What a compressor masks before text leaves the process: the release's reference passes,
    then, when ``strict`` is on, the strict layer."""

    release: str
    strict_layer: bool

    def redact(self, text: Any) -> Any:
        return recall(self, text, self._redact)

    def _redact(self, text: Any) -> Any:
        redacted = reference_redact(text, self.release)
        if self.strict_layer and isinstance(redacted, str) and redacted:
            redacted = strict_redact(redacted)
        return redacted

    def redact_many(self, texts: list[str]) -> list[str]:
        """``redact`` over a list (one search per pass across all of them)."""
        return recall_many(self, list(texts), self._redact_many)

    def _redact_many(self, texts: list[str]) -> list[str]:
        redacted = _reference_many(texts, self.release)
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


def _masked_plainly(redaction: ProfileRedaction, texts: list[str]) -> list[str]:
    return redaction._redact_many(texts)


# Fewer characters than this are masked here in less time than a worker's round trip saves.
AHEAD_MIN_CHARS = 200_000
# How long a worker may mask (a log of hostile texts then ends masked here, within its own limits).
AHEAD_SECONDS = 60.0


class RedactionAhead:
    """A profile's redaction of many texts, made in a worker process while the caller does other work.

    Made within a scope (``core.remembered``): only the texts the scope has no answer for go; nothing
    goes when they are too few to be worth a worker. :meth:`keep`, in the same scope, waits for the
    answers and remembers them there, where ``redaction.redact`` then finds them. A worker that
    fails or runs past ``AHEAD_SECONDS`` only means the texts are masked here after all."""

    def __init__(self, redaction: ProfileRedaction, texts: list[Any]) -> None:
        from core.budget import Budget, Pending

        self.redaction = redaction
        self.texts = unknown(redaction, texts)
        self._pending = None
        if sum(len(text) for text in self.texts) >= AHEAD_MIN_CHARS:
            budget = Budget(seconds=AHEAD_SECONDS, memory_mb=None, scope="masking ahead")
            # At a lower priority: the caller's own work (and the browser drawing it) comes first.
            self._pending = Pending(_masked_plainly, redaction, self.texts, budget=budget, background=True)
        self.started = self._pending is not None  # whether a worker was started for them

    def keep(self, timeout: float | None = AHEAD_SECONDS) -> bool:
        """Wait (up to ``timeout`` seconds) for the worker's answers and remember them; False when
        there are none to keep (not started, failed, not yet there, or kept already). Once kept, the
        answers live in the scope only: this object, which a memo may hold longer, lets them go."""
        outcome = self._pending.outcome(timeout) if self._pending is not None else None
        if outcome is None or not outcome[0] or len(outcome[1]) != len(self.texts):
            return False
        remember_many(self.redaction, self.texts, outcome[1])
        self._pending, self.texts = None, []
        return True
