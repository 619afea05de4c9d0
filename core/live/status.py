"""The status of a live session: where its whole request stands against the compression threshold.

:func:`measure` is the analysis of one conversation state, built only from the functions ``analyze``
reports with, so that its figures equal a fresh ``analyze --json`` of the same file state:

* ``request_tokens`` is ``request_report(...)["total"]`` (the whole request in exact tokens of the
  configured model's encoding), and the trigger (``trigger_tokens``, ``would_compress``) is that
  report's: the last prompt size the log recorded when it has one, else the whole-request estimate
  in the configured estimator's unit, against ``config.threshold_tokens``;
* the zones are ``core.plan.plan(messages, config)``'s: what Hermes would summarise now (the MIDDLE),
  without any summary call.

``turns_to_threshold`` counts model requests (Hermes tests the threshold before each one): the room
left under the threshold divided by the recent growth per request, the mean over the last
``RECENT_TURNS`` requests of the trigger series (the recorded prompt sizes, or the whole-request
estimate at each assistant message), from the last drop of the series on (a compaction or a reset
starts it again). None when the series does not grow.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from core.config import CompressorConfig
from core.formats import CompactionEvent, Conversation

__all__ = ["RECENT_TURNS", "LiveStatus", "Measurement", "Zones", "compaction_record", "growth_per_turn", "measure"]

#: Requests over which the growth rate is averaged.
RECENT_TURNS = 8
# Points of the trigger series looked at: the growth window and room to find a drop before it.
SERIES_LENGTH = 4 * RECENT_TURNS
# A fall of the trigger series by more than this share is a compaction or a reset, not noise.
DROP_SHARE = 0.10
# Characters of a compaction summary shown in a status.
SUMMARY_PREVIEW = 160


@dataclass(frozen=True)
class Zones:
    """What Hermes would do now (``core.plan.plan``): ``outcome`` is ``summarize``, ``too_small`` or
    ``nothing_to_compress``; the MIDDLE is ``[compress_start, compress_end)``."""

    outcome: str
    head: int
    middle: int
    tail: int
    compress_start: int | None
    compress_end: int | None
    summary_budget: int | None = None


@dataclass(frozen=True)
class Measurement:
    """The figures of one conversation state (see the module docstring)."""

    messages: int
    request_tokens: int
    request_unit: str
    recorded_last_prompt: int | None
    trigger_tokens: int
    trigger_source: str
    threshold_tokens: int
    context_length: int
    would_compress: bool
    growth_per_turn: float | None
    turns_to_threshold: int | None
    zones: Zones | None
    compactions: int
    request: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    #: The trigger's size at each of the recent requests (at most ``SERIES_LENGTH + 1``), the last
    #: one now: the growth the forecast is drawn from.
    series: tuple[int, ...] = field(repr=False, compare=False, default=())

    @property
    def share_of_threshold(self) -> float:
        return self.trigger_tokens / self.threshold_tokens if self.threshold_tokens else 0.0


def growth_per_turn(series: Sequence[int], recent: int = RECENT_TURNS) -> float | None:
    """The mean growth per step over the last ``recent`` steps of ``series``, counted from its last
    drop (a compaction starts the series again); None when it does not grow."""
    start = 0
    for index in range(1, len(series)):
        if series[index] < series[index - 1] * (1 - DROP_SHARE):
            start = index
    window = list(series[start:])[-(recent + 1):]
    if len(window) < 2:
        return None
    growth = (window[-1] - window[0]) / (len(window) - 1)
    return growth if growth > 0 else None


def _trigger_series(conversation: Conversation, config: CompressorConfig, source: str, now: int) -> list[int]:
    """The trigger's size at each recent request, in the trigger's unit, ending with ``now``."""
    from core.inspections.request import recorded_prompt, request_breakdown, weigher_for

    if source == "recorded":
        # The recent recorded prompts only (read backwards: a long log has thousands).
        found: list[int] = []
        usage = conversation.usage
        for index in range(len(usage) - 1, -1, -1):
            prompt = recorded_prompt(usage[index], index)
            if prompt is not None and prompt.prompt_tokens > 0:
                found.append(prompt.prompt_tokens)
                if len(found) > SERIES_LENGTH:
                    break
        found.reverse()
        return found
    breakdown = request_breakdown(conversation, weigher_for(config), every_turn=True)
    series = [turn.counted for turn in breakdown.turns[-SERIES_LENGTH:]]
    return [*series, now]


def _zones(conversation: Conversation, config: CompressorConfig) -> Zones:
    from core.plan import plan

    decided = plan(conversation.messages, config)
    n = len(conversation.messages)
    start, end = decided.compress_start, decided.compress_end
    if start is None or end is None or decided.outcome != "summarize":
        head = decided.head_size if start is None else start
        return Zones(decided.outcome, min(head, n), 0, max(0, n - min(head, n)), start, end)
    return Zones(decided.outcome, start, end - start, n - end, start, end, decided.summary_budget)


def measure(conversation: Conversation, config: CompressorConfig, *, zones: bool = True) -> Measurement:
    """The status figures of ``conversation`` under ``config`` (see the module docstring).

    Measured on the context the model last saw (after the agent's last compaction), as ``analyze``
    reads a log; the compactions are counted over the whole log."""
    from core.inspections.request import request_report

    logged_compactions = len(conversation.compaction_events)
    conversation = conversation.live_context()
    report = request_report(conversation, config)
    trigger = report["trigger"]
    tokens, source = int(trigger["tokens"]), str(trigger["source"])
    threshold = int(trigger["threshold_tokens"])
    would = bool(trigger["would_compress"])
    series = _trigger_series(conversation, config, source, tokens)
    growth = growth_per_turn(series)
    if would:
        turns: int | None = 0
    elif growth:
        turns = max(1, math.ceil((threshold - tokens) / growth))
    else:
        turns = None
    return Measurement(
        messages=len(conversation.messages),
        request_tokens=int(report["total"]),
        request_unit=str(report["unit"]),
        recorded_last_prompt=report["recorded_last_prompt"],
        trigger_tokens=tokens,
        trigger_source=source,
        threshold_tokens=threshold,
        context_length=config.context_length,
        would_compress=would,
        growth_per_turn=round(growth, 1) if growth else None,
        turns_to_threshold=turns,
        zones=_zones(conversation, config) if zones else None,
        compactions=logged_compactions,
        request=report,
        series=tuple(series[-(SERIES_LENGTH + 1):]),
    )


def compaction_record(event: CompactionEvent) -> dict[str, Any]:
    """A compaction the log recorded, as a status lists it."""
    summary = " ".join((event.summary or "").split())
    return {
        "position": event.position,
        "kind": event.kind,
        "pre_tokens": event.pre_tokens,
        "source": event.source,
        "summary": summary if len(summary) <= SUMMARY_PREVIEW else summary[: SUMMARY_PREVIEW - 1] + "…",
    }


@dataclass
class LiveStatus:
    """One update of a followed session.

    ``state`` is ``live`` (the figures are the file's current state), ``waiting`` (nothing to read
    yet, or a rewrite in progress), ``missing``, ``unreadable``, ``invalid`` (the file cannot be read
    as a transcript) or ``error``; outside ``live`` the figures are the last ones measured (or none).
    ``event`` says what happened since the previous status (``start``, ``appended``, ``rewritten``,
    ``reset``, ``session``, ``missing`` ...) and ``note`` says it in words. ``new_compactions`` are the
    compactions the log recorded since the previous status.
    """

    path: str
    state: str
    event: str
    sequence: int
    time: float
    note: str = ""
    format: str | None = None
    session: str | None = None
    measurement: Measurement | None = None
    new_compactions: list[dict[str, Any]] = field(default_factory=list)
    appended_lines: int = 0
    appended_bytes: int = 0
    file_bytes: int | None = None  # how much of the file the figures were read from
    seconds: float = 0.0  # processor time of this update (reading, converting, measuring)
    warnings: int = 0

    @property
    def live(self) -> bool:
        return self.state == "live"

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object of this update (one line each)."""
        m = self.measurement
        figures: dict[str, Any] = dict.fromkeys(
            ("messages", "request_tokens", "request_unit", "recorded_last_prompt", "trigger_tokens", "trigger_source",
             "threshold_tokens", "context_length", "share_of_threshold", "would_compress", "growth_per_turn",
             "turns_to_threshold", "compactions", "zones"))
        if m is not None:
            figures.update({name: getattr(m, name) for name in figures if name not in ("zones", "share_of_threshold")})
            figures["share_of_threshold"] = round(m.share_of_threshold, 4)
            figures["zones"] = asdict(m.zones) if m.zones is not None else None
        return {
            "path": self.path,
            "state": self.state,
            "event": self.event,
            "sequence": self.sequence,
            "time": round(self.time, 3),
            "format": self.format,
            "session": self.session,
            **figures,
            "new_compactions": self.new_compactions,
            "appended_lines": self.appended_lines,
            "appended_bytes": self.appended_bytes,
            "file_bytes": self.file_bytes,
            "warnings": self.warnings,
            "seconds": round(self.seconds, 4),
            "note": self.note,
        }

    def gauge(self, width: int = 10) -> str:
        """The one-line terminal form: ``[#######---] 71% of threshold · 182 msgs · ~6 turns to compaction``."""
        m = self.measurement
        if m is None:
            return f"[{'?' * width}] {self.state}: {self.note}" if self.note else f"[{'?' * width}] {self.state}"
        share = m.share_of_threshold
        filled = min(width, int(share * width))
        bar = "#" * filled + "-" * (width - filled)
        parts = [f"[{bar}] {share * 100:.0f}% of threshold", f"{m.messages:,} msgs",
                 f"{m.trigger_tokens:,}/{m.threshold_tokens:,} tok"]
        if m.would_compress:
            zones = m.zones
            middle = (f" (summarise messages {zones.compress_start}-{zones.compress_end - 1})"
                      if zones is not None and zones.middle and zones.compress_end is not None else "")
            parts.append("Hermes would compress now" + middle)
        elif m.turns_to_threshold is not None:
            parts.append(f"~{m.turns_to_threshold:,} turn{'s' if m.turns_to_threshold != 1 else ''} to compaction")
        else:
            parts.append("not growing")
        if m.compactions:
            parts.append(f"{m.compactions} compaction{'s' if m.compactions != 1 else ''}")
        line = " · ".join(parts)
        if not self.live:
            line += f" · {self.state}" + (f": {self.note}" if self.note else "")
        return line
