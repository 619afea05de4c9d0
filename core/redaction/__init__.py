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
# The texts go to the worker in this many pieces of about equal size, one call each.
AHEAD_PIECES = 8


def _pieces(texts: list[str], count: int) -> list[list[str]]:
    """``texts`` in order, cut into at most ``count`` runs of about equal characters."""
    share = max(1, sum(len(text) for text in texts) // count)
    pieces: list[list[str]] = [[]]
    size = 0
    for text in texts:
        if size >= share and len(pieces) < count:
            pieces.append([])
            size = 0
        pieces[-1].append(text)
        size += len(text)
    return [piece for piece in pieces if piece]


class RedactionAhead:
    """A profile's redaction of many texts, made in a worker process while the caller does other work.

    Made within a scope (``core.remembered``): only the texts the scope has no answer for go; nothing
    goes when they are too few to be worth a worker. The worker runs at a lower priority and takes the
    texts in ``AHEAD_PIECES`` pieces, from the first. :meth:`keep`, in the same scope, masks the pieces
    it has not reached yet itself, from the last (so a worker the rest of the machine left little
    time does not keep the caller waiting for all of them), waits for the piece it is on, and
    remembers every answer there, where ``redaction.redact`` then finds them. A worker that fails or
    runs past ``AHEAD_SECONDS`` only means its texts are masked here after all."""

    def __init__(self, redaction: ProfileRedaction, texts: list[Any]) -> None:
        import threading

        self.redaction = redaction
        self.texts = unknown(redaction, texts)
        self._pieces: list[list[str]] = []
        self._answers: list[list[str] | None] = []
        self._lock = threading.Lock()
        self._next = 0  # the worker's next piece
        self._end = 0  # pieces from here on are the caller's
        self._worker_done = threading.Event()
        if sum(len(text) for text in self.texts) >= AHEAD_MIN_CHARS:
            self._pieces = _pieces(self.texts, AHEAD_PIECES)
            self._answers = [None] * len(self._pieces)
            self._end = len(self._pieces)
            threading.Thread(target=self._work, daemon=True, name="context-lens-masking-ahead").start()
        else:
            self._worker_done.set()
        self.started = bool(self._pieces)  # whether a worker was started for them

    def _work(self) -> None:
        import time

        from core.budget import Budget, run_in_worker

        deadline = time.monotonic() + AHEAD_SECONDS
        try:
            while True:
                with self._lock:
                    if self._next >= self._end:
                        return
                    index = self._next
                    self._next += 1
                seconds = deadline - time.monotonic()
                if seconds <= 0:
                    return
                budget = Budget(seconds=seconds, memory_mb=None, scope="masking ahead")
                # At a lower priority: the caller's own work (and the browser drawing it) comes first.
                answer = run_in_worker(_masked_plainly, self.redaction, self._pieces[index], budget=budget,
                                       background=True)
                if len(answer) != len(self._pieces[index]):
                    return
                self._answers[index] = answer
        except BaseException:  # noqa: BLE001 (the caller masks what the worker did not)
            return
        finally:
            self._worker_done.set()

    def keep(self, timeout: float | None = AHEAD_SECONDS) -> bool:
        """Mask the pieces the worker has not begun, wait (up to ``timeout`` seconds) for the one it is
        on, and remember every answer; False when there is nothing to keep (not started, or kept
        already) or the worker's piece did not come. Once kept, the answers live in the scope only:
        this object, which a memo may hold longer, lets them go."""
        import time

        if not self._pieces:
            return False
        while True:  # the pieces the worker has not reached, from the last
            with self._lock:
                if self._end <= self._next:
                    break
                self._end -= 1
                index = self._end
            self._answers[index] = self.redaction.redact_many(self._pieces[index])
        deadline = None if timeout is None else time.monotonic() + timeout
        # Short waits: a budget's watchdog (and Streamlit's stop) reach this thread between them.
        while not self._worker_done.wait(0.01):
            if deadline is not None and time.monotonic() > deadline:
                break
        complete = True
        for piece, answer in zip(self._pieces, self._answers, strict=True):
            if answer is None:
                complete = False  # masked when a reader asks
            else:
                remember_many(self.redaction, piece, answer)
        self._pieces, self._answers, self.texts = [], [], []
        return complete
