"""Hermes: one ``ContextCompressor.compress`` per release profile, run unconditionally like ``/compress``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.compressor import ContextCompressor
from core.config import CompressorConfig
from core.profiles import PROFILES
from core.strategies.base import OutputOrigin, StrategyRun, StrategySettings
from core.summarizers.factory import DEFAULT_SUMMARIZER, resolve_summarizer

__all__ = ["HermesStrategy", "hermes"]


def hermes(messages: Sequence[Any], config: CompressorConfig, summarizer: Any = DEFAULT_SUMMARIZER, *,
           result: Any = None) -> StrategyRun:
    """One ``compress()`` with ``config`` (its profile names the run); ``result``: that compression,
    made already by the caller with the same messages, config and summarizer."""
    if result is None:
        compressor = ContextCompressor(config, summarizer=resolve_summarizer(summarizer))
        result = compressor.compress(list(messages), on_crash="report")
    kept: list[int] = []
    altered: list[int] = []
    notes: list[str] = []
    origins: list[OutputOrigin] = []
    if result.compressed:
        for origin in result.assembly.origins:
            origins.append(OutputOrigin(origin.source_index, tuple(origin.badges)))
            if origin.kind not in ("head", "tail") or origin.source_index is None:
                continue
            extra = [badge for badge in origin.badges if badge not in ("HEAD", "TAIL")]
            (altered if extra else kept).append(origin.source_index)
        if result.assembly.fallback_used:
            notes.append(f"summary failed ({result.failure_reason or 'cooldown'}); fallback summary inserted")
    else:
        for index, (old, new) in enumerate(zip(messages, result.messages, strict=False)):
            (kept if old == new else altered).append(index)
            origins.append(OutputOrigin(index, () if old == new else ("CHANGED",)))
        origins += [OutputOrigin(None)] * (len(result.messages) - len(origins))
        notes.append(result.crash.describe() if result.crash is not None else f"no compaction: outcome {result.outcome}")
    return StrategyRun(
        name=f"Hermes {config.profile}", family=HermesStrategy.family, messages=list(result.messages),
        kept=sorted(kept), altered=sorted(altered), promises_pairs=True, summary_text=result.assembly.summary_text if result.assembly else None,
        notes=notes, origins=origins,
    )


@dataclass(frozen=True)
class HermesStrategy:
    family: str = "hermes"
    label: str = "Hermes"
    description: str = "Hermes with each release profile (the chosen parameters and summarizer)"
    keeps: str = ("the head and the tail verbatim (recent tool calls and outputs exact, tool pairs valid) and a "
                  "summary of the middle within the release's summary budget")
    gives_up: str = ("the middle's own words: what the summary budget has no room for is lost, so fewer facts survive "
                     "than a summary of everything would keep, in exchange for an exact recent context")
    summarises_whole_log: bool = False

    def run(self, messages: Sequence[Any], settings: StrategySettings) -> list[StrategyRun]:
        # The chosen profile always runs: its output is the budget the other strategies are held to.
        chosen = settings.config.profile
        wanted = set(PROFILES if settings.hermes_profiles is None else settings.hermes_profiles) | {chosen}
        names = [name for name in PROFILES if name in wanted] + ([chosen] if chosen not in PROFILES else [])
        return [hermes(messages, replace(settings.config, profile=name), settings.summarizer,
                       result=settings.hermes_results.get(name)) for name in names]

    def budget_run(self, runs: Sequence[StrategyRun], settings: StrategySettings) -> StrategyRun | None:
        """The chosen profile's run: what Hermes kept is the budget the others are held to."""
        return next(run for run in runs if run.name == f"Hermes {settings.config.profile}")

