"""``CompressionResult``: what one ``compress()`` call did, a small value beside its plan and assembly."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.assembly import Assembly
from core.phases.summary import ReferenceCrash
from core.plan import CompressionPlan
from core.summary_call import SummarizerCall

__all__ = ["CompressionResult"]


@dataclass
class CompressionResult:
    """What one ``compress()`` call did.

    The decisions (zones, Phase 1, the turns, the budget) are ``plan``'s; the summary, the repairs
    and the output's size are ``assembly``'s, which is ``None`` unless the summary (or the fallback)
    was assembled (outcomes ``summarized`` and ``fallback``). The fields here say what the call
    itself did: its outcome, the summary calls, a failure, a cooldown, an abort or a crash.
    """

    messages: list[Any]
    outcome: str  # "too_small", "nothing_to_compress", "summarized", "fallback" or "aborted"
    input_messages: list[Any]
    plan: CompressionPlan
    assembly: Assembly | None = None
    failure_reason: str | None = None
    summarizer_calls: list[SummarizerCall] = field(default_factory=list)
    cooldown_skipped: bool = False
    aux_model_failure: str | None = None
    aux_model_failure_model: str | None = None
    abort_reason: str | None = None  # "configured", "authentication" or "network" when aborted
    crash: ReferenceCrash | None = None  # outcome "crashed": where the release itself raises (the input is kept)

    # -- the call
    @property
    def compressed(self) -> bool:
        return self.outcome in ("summarized", "fallback")

    @property
    def aborted(self) -> bool:
        return self.outcome == "aborted"

    @property
    def summarizer_call(self) -> SummarizerCall | None:
        return self.summarizer_calls[-1] if self.summarizer_calls else None
