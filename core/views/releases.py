"""Release comparison: the same transcript and settings compressed by every Hermes release.

What upgrading Hermes changes for one session: each release's threshold and zones (from its own
compression plan), which messages move between zones from one release to the next, the tokens
after, the summary message's layout and the tool-pair repairs, and the differences in words. Every
figure comes from a real ``compress()`` of each profile (the same summarizer and clocks for all), so
the table is what each release would do, not a model of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeVar

import pandas as pd

from core import rules
from core.compressor import CompressionResult, ContextCompressor
from core.config import CompressorConfig
from core.plan import NOTHING_TO_COMPRESS, TOO_SMALL, prepare, prune_plan_key
from core.profiles import PROFILES
from core.rules import PrunePlan

__all__ = ["ReleaseComparison", "ReleaseRun", "compare_releases", "release_compression", "runs_of"]

HEAD, MIDDLE, TAIL, UNCHANGED = "HEAD", "MIDDLE", "TAIL", "UNCHANGED"
V = TypeVar("V")
TABLE_COLUMNS = [
    "release", "threshold_tokens", "triggers", "outcome", "head", "middle", "tail", "compress_start", "compress_end",
    "messages_after", "tokens_before", "tokens_after", "savings_pct", "summary_layout", "repairs", "focus",
    "cooldown_s",
]


@dataclass
class ReleaseRun:
    """One release's compression of the transcript."""

    release: str
    result: CompressionResult
    threshold_tokens: int
    triggers: bool  # the estimate of the whole transcript reaches the threshold
    zones: list[str]  # per input message
    cooldown_s: float = 0.0  # the summary-failure cooldown the call left (0: none)

    @property
    def outcome(self) -> str:
        return self.result.outcome

    @property
    def left_whole(self) -> bool:
        """Whether the run left the conversation whole, without zones (too small to compress)."""
        return UNCHANGED in self.zones

    def count(self, zone: str) -> int | None:
        """How many input messages fell in ``zone``; None for HEAD, MIDDLE and TAIL when the run left
        the conversation whole (it has no zones, which 0 in each would not say)."""
        if zone != UNCHANGED and self.left_whole:
            return None
        return self.zones.count(zone)

    @property
    def summary_layout(self) -> str:
        """The summary message in words: role, merged or standalone, END marker, flag."""
        result = self.result
        if not result.compressed or result.assembly is None:
            return "—"
        profile = PROFILES[self.release]
        if result.assembly.summary_merged:
            where = rules.merge_rule(profile).where
            layout = f"merged into the first tail message ({where})"
        else:
            marker = result.assembly.summary_role == "user" or profile.end_marker_on_every_summary
            layout = f"standalone {result.assembly.summary_role} message" + (", END marker" if marker else ", no END marker")
        if profile.summary_flag:
            layout += ", _compressed_summary flag"
        return layout + (" — fallback text" if result.assembly.fallback_used else "")

    @property
    def repairs(self) -> str:
        assembly = self.result.assembly
        if assembly is None:  # nothing was assembled, so nothing was repaired
            return "none"
        parts = []
        if assembly.orphans_removed:
            parts.append(f"{assembly.orphans_removed} orphan result(s) removed")
        if assembly.stubs_added:
            parts.append(f"{assembly.stubs_added} stub result(s) added")
        if assembly.calls_stripped:
            parts.append(f"{assembly.calls_stripped} unanswered call(s) stripped")
        return ", ".join(parts) or "none"


@dataclass
class ReleaseComparison:
    runs: list[ReleaseRun]
    n_messages: int
    explanations: list[str] = field(default_factory=list)

    def run(self, release: str) -> ReleaseRun:
        return next(run for run in self.runs if run.release == release)

    @property
    def table(self) -> pd.DataFrame:
        rows = []
        for run in self.runs:
            result = run.result
            rows.append({
                "release": run.release,
                "threshold_tokens": run.threshold_tokens,
                "triggers": run.triggers,
                "outcome": result.outcome,
                "head": run.count(HEAD),
                "middle": run.count(MIDDLE),
                "tail": run.count(TAIL),
                "compress_start": result.plan.compress_start,
                "compress_end": result.plan.compress_end,
                "messages_after": len(result.messages),
                "tokens_before": result.plan.input_tokens,
                "tokens_after": result.assembly.tokens_after if result.compressed else result.plan.input_tokens,
                "savings_pct": round(result.assembly.savings_pct, 1) if result.compressed else 0.0,
                "summary_layout": run.summary_layout,
                "repairs": run.repairs,
                "focus": "automatic (recent user turns)" if result.plan.focus_is_automatic
                else ("given" if result.plan.focus_topic else "none"),
                "cooldown_s": run.cooldown_s,
            })
        return pd.DataFrame(rows, columns=TABLE_COLUMNS)

    def moves(self, older: str, newer: str) -> pd.DataFrame:
        """The runs of messages whose zone differs between two releases: ``messages`` (a range),
        ``count``, then the zone in each release."""
        pairs = list(zip(self.run(older).zones, self.run(newer).zones, strict=True))
        rows = [{"messages": f"{i}–{j}" if j > i else str(i), "count": j - i + 1, older: was, newer: now}
                for (was, now), i, j in runs_of(pairs) if was != now]
        return pd.DataFrame(rows, columns=["messages", "count", older, newer])


def runs_of(values: Sequence[V]) -> list[tuple[V, int, int]]:
    """``(value, first, last)`` of each run of equal consecutive values, in order (a release's zones
    message by message: its HEAD, MIDDLE and TAIL runs)."""
    runs: list[tuple[V, int, int]] = []
    for index, value in enumerate(values):
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1], index)
        else:
            runs.append((value, index, index))
    return runs


def _zones(result: CompressionResult, n: int) -> list[str]:
    if result.outcome == TOO_SMALL or result.plan.compress_start is None or result.plan.compress_end is None:
        return [UNCHANGED] * n
    start, end = min(result.plan.compress_start, n), min(result.plan.compress_end, n)
    if result.outcome == NOTHING_TO_COMPRESS:
        end = start
    return [HEAD] * start + [MIDDLE] * max(0, end - start) + [TAIL] * (n - max(start, end))


def _span(indices: Sequence[int]) -> str:
    if not indices:
        return "no messages"
    if len(indices) == 1:
        return f"message {indices[0]}"
    if list(indices) == list(range(indices[0], indices[-1] + 1)):
        return f"messages {indices[0]}–{indices[-1]}"
    return f"{len(indices)} messages ({', '.join(str(i) for i in indices[:6])}{', …' if len(indices) > 6 else ''})"


_STEP_WORDS = {
    "raw_rewalk": "re-walks the tail against the plain budget when everything fits 1.5x of it",
    "min_tail": "keeps a larger minimum tail (up to 8 messages, from protect_last_n)",
    "last_user": "keeps the newest user message in the tail",
    "turn_pair": "keeps a user message at the head boundary together with its reply",
    "last_assistant": "keeps the last reply the user saw in the tail",
    "aligned_backward": "keeps a tool call with its results",
    "aligned_forward": "moves a cut that lands on tool results past them, so their call is summarised with them",
    "forced_small": "forces a small tail because everything fits the budget",
}




def _explain(older: ReleaseRun, newer: ReleaseRun) -> list[str]:
    """Sentences saying what changes from ``older`` to ``newer`` for this transcript."""
    a, b = older.result, newer.result
    name = f"{older.release} → {newer.release}"
    lines: list[str] = []
    if older.threshold_tokens != newer.threshold_tokens:
        old_rule = rules.threshold_rule(PROFILES[older.release])
        new_rule = rules.threshold_rule(PROFILES[newer.release])
        why = f" ({new_rule.summary})" if new_rule != old_rule else ""
        lines.append(f"{name}: the threshold moves from {older.threshold_tokens:,} to {newer.threshold_tokens:,} "
                     f"tokens{why}.")
    if older.triggers != newer.triggers:
        lines.append(f"{name}: this transcript {'now reaches' if newer.triggers else 'no longer reaches'} "
                     "the threshold on its own.")
    if a.outcome != b.outcome:
        lines.append(f"{name}: the outcome changes from {a.outcome.replace('_', ' ')} to {b.outcome.replace('_', ' ')}"
                     + (f" ({b.failure_reason})" if b.failure_reason and b.outcome in ("fallback", "aborted", "crashed") else "")
                     + ".")
    to_tail = [i for i, (x, y) in enumerate(zip(older.zones, newer.zones, strict=True)) if x == MIDDLE and y == TAIL]
    to_middle = [i for i, (x, y) in enumerate(zip(older.zones, newer.zones, strict=True)) if x == TAIL and y == MIDDLE]
    head_to_middle = [i for i, (x, y) in enumerate(zip(older.zones, newer.zones, strict=True)) if x == HEAD and y == MIDDLE]
    if to_tail or to_middle or head_to_middle:
        new_steps = [s for s in (b.plan.tail_cut.steps if b.plan.tail_cut else []) if s not in (a.plan.tail_cut.steps if a.plan.tail_cut else [])]
        reasons = [_STEP_WORDS[s] for s in new_steps if s in _STEP_WORDS]
        ta, tb = a.plan.tail_cut, b.plan.tail_cut
        applies = {
            "budget_weight": bool(ta and tb and ta.budget_walk_cut != tb.budget_walk_cut),
            "tail_rule": bool(ta and tb and (ta.min_tail != tb.min_tail
                                             or {"raw_rewalk", "last_assistant", "aligned_forward"} & set(new_steps))),
            "last_user_rule": bool(ta and tb and (ta.last_user_index != tb.last_user_index or "turn_pair" in new_steps)),
        }
        reasons += [words for aspect, words in rules.tail_rule_changes(PROFILES[older.release], PROFILES[newer.release])
                    if applies[aspect]]
        because = "; ".join(dict.fromkeys(reasons))
        if to_tail:
            lines.append(f"{name}: {_span(to_tail)} move from the summary into the kept tail"
                         + (f" — {newer.release} {because}." if because else "."))
        if to_middle:
            lines.append(f"{name}: {_span(to_middle)} move from the tail into the summary"
                         + (f" — {newer.release} {because}." if because else "."))
        if head_to_middle:
            lines.append(f"{name}: {_span(head_to_middle)} leave the protected head and are summarised "
                         f"(protect_first_n no longer applies after a compaction).")
    if older.summary_layout != newer.summary_layout and a.compressed and b.compressed:
        lines.append(f"{name}: the summary is written as {newer.summary_layout} (was {older.summary_layout}).")
    if older.repairs != newer.repairs and (a.compressed and b.compressed):
        lines.append(f"{name}: tool-pair repair: {newer.repairs} (was {older.repairs}).")
    if a.compressed and b.compressed and a.assembly.tokens_after != b.assembly.tokens_after:
        delta = b.assembly.tokens_after - a.assembly.tokens_after
        lines.append(f"{name}: {abs(delta):,} estimated tokens {'more' if delta > 0 else 'fewer'} after compression "
                     f"({a.assembly.tokens_after:,} → {b.assembly.tokens_after:,}).")
    if bool(b.plan.focus_is_automatic) and not a.plan.focus_is_automatic:
        lines.append(f"{name}: the summary prompt now prioritises the last user turns (automatic focus) and "
                     "carries the date.")
    return lines


def _reusable(result: CompressionResult, moment: datetime) -> bool:
    """Whether a compression made elsewhere is the one this comparison would make: it summarised (a
    fresh compressor that succeeds has no cooldown left, and ``force`` only clears one) and dated its
    prompt as ``moment`` does (v0.17.0+)."""
    if result.outcome != "summarized" or not result.summarizer_calls:
        return False
    date = moment.strftime("%Y-%m-%d")
    return all(call.anchoring_date in (None, date) for call in result.summarizer_calls)


def release_compression(
    messages: Sequence[Any],
    config: CompressorConfig,
    summarizer_factory: Callable[[], Any] | None = None,
    *,
    current_tokens: int | None = None,
    force: bool = True,
    now: datetime | None = None,
    prune_plan: PrunePlan | None = None,
) -> tuple[CompressionResult, float]:
    """(the compression, the cooldown it left) of ``messages`` with ``config`` (its ``profile`` is the
    release), as :func:`compare_releases` makes each of its runs: a fresh compressor and summarizer,
    the clocks fixed (``now``: the anchoring date's moment). Made ahead one release at a time, the
    results are :func:`compare_releases`' ``known``."""
    moment = now or datetime.now().astimezone()
    summarizer = summarizer_factory() if summarizer_factory is not None else None
    compressor = ContextCompressor(config, summarizer=summarizer, clock=lambda: 0.0, wall_clock=lambda: moment)
    result = compressor.compress(messages, current_tokens=current_tokens, force=force, on_crash="report",
                                 prune_plan=prune_plan if prune_plan is not None else prepare(messages, config))
    return result, compressor.cooldown_remaining()


def compare_releases(
    messages: Sequence[Any],
    config: CompressorConfig,
    summarizer_factory: Callable[[], Any] | None = None,
    *,
    releases: Sequence[str] | None = None,
    current_tokens: int | None = None,
    force: bool = True,
    now: datetime | None = None,
    prune_plan: Callable[[CompressorConfig], PrunePlan] | None = None,
    known: Mapping[str, CompressionResult] | None = None,
) -> ReleaseComparison:
    """Compress ``messages`` with ``config`` once per release (oldest first).

    Args:
        summarizer_factory: Builds a fresh summarizer per release (the same for all); None means no
            summarizer (each release's fallback path).
        releases: Which profiles (default: all of them).
        current_tokens: The prompt size the compressions report savings against.
        force: Compress even below the threshold, like ``/compress`` (the table still says whether
            each release's threshold is reached).
        now: The wall clock of the v0.17.0+ anchoring date (fixed, so every release sees the same).
        prune_plan: The Phase-1 plan of ``messages`` for a release's config, when the caller keeps
            them (default: one made here per distinct weighing, shared by the releases that weigh alike).
        known: Compressions made already, by release: each of ``messages`` with this release's config,
            ``current_tokens`` and a summarizer of the factory, by a compressor that had made no call
            before. One is used in place of its run when it summarised (so it left no cooldown) on
            the date of ``now``; any other is run again.
    """
    messages = list(messages)
    n = len(messages)
    moment = now or datetime.now().astimezone()
    runs: list[ReleaseRun] = []
    made: dict[Any, PrunePlan] = {}

    def phase1(release_config: CompressorConfig) -> PrunePlan:
        if prune_plan is not None:
            return prune_plan(release_config)
        key = prune_plan_key(release_config)
        if key not in made:
            made[key] = prepare(messages, release_config)
        return made[key]

    for release in releases or list(PROFILES):
        release_config = replace(config, profile=release)
        result = (known or {}).get(release)
        cooldown = 0.0
        if result is None or not _reusable(result, moment):
            result, cooldown = release_compression(messages, release_config, summarizer_factory,
                                                   current_tokens=current_tokens, force=force, now=moment,
                                                   prune_plan=phase1(release_config))
        threshold = release_config.threshold_tokens
        prompt = result.plan.input_tokens
        runs.append(ReleaseRun(release, result, threshold, prompt >= threshold, _zones(result, n), cooldown))
    comparison = ReleaseComparison(runs, n)
    for older, newer in zip(runs, runs[1:], strict=False):
        comparison.explanations.extend(_explain(older, newer))
    return comparison




def is_release_difference(table: pd.DataFrame, column: str) -> bool:
    """Whether the releases disagree on ``column`` (the page highlights those columns)."""
    return table[column].astype(str).nunique() > 1

