"""Parameter sweep: final tokens and savings across threshold_percent x summary_target_ratio.

Each grid cell runs what ``ContextCompressor.compress`` runs before its summary call, with that
cell's parameters: the trigger test, Phase 1's prune boundary, the head, the forward alignment,
the tail walk, the summary-rehydration scan, the summary role (or merge), the system note and the
tool-pair repair. Nothing is re-tokenized per cell: every message is measured once in its three
possible forms (original, deduplicated only, fully pruned), because Phase 1's passes act on each
message independently once the boundary is known.

**Assumption: the summary is exactly as long as its budget.** No summarizer is called; the
summary body is taken to be ``summary_budget`` tokens (``max(2000, min(20% of the summarised
turns, max_summary_tokens))``), the size the prompt asks for. With the ``hermes`` estimator the
body is modelled as ``4 x budget`` characters, so a cell equals a real compression whose summary
has exactly that length, handoff prefix, END marker, system note and repair stubs included. With
``tiktoken`` the body counts ``budget`` tokens. A real summary can be shorter or longer (the
prompt allows ``1.3 x budget``), so read the grid as the compressor's intended outcome.

Not modelled: the stripping of historical images after compression (it only changes conversations
with images in user messages), and anything after the first compression (see the timeline replay).

The trigger: by default a cell whose threshold the conversation does not reach is reported as
``not triggered`` (no compression, 0 % savings), as a live session would behave; pass
``respect_trigger=False`` to see what a forced ``/compress`` would do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core import profiles as P
from core.analysis.phase1 import estimator_key
from core.compressor import CompressorConfig
from core.phases import assemble, boundaries, prune
from core.phases import summary as summary_phase
from core.phases.prune import PrunePlan
from core.profiles import get_profile
from core.tokens import encoding_name_for_model, get_counter, make_estimator, message_rough_chars

__all__ = [
    "DEFAULT_RATIOS",
    "DEFAULT_THRESHOLDS",
    "SweepBase",
    "prepare_sweep",
    "sweep",
    "sweep_cell",
    "sweep_heatmap",
]

DEFAULT_THRESHOLDS: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_RATIOS: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)

SWEEP_COLUMNS = [
    "protect_first_n", "threshold_percent", "summary_target_ratio", "threshold_tokens", "tail_token_budget",
    "triggered", "outcome", "prune_boundary", "compress_start", "compress_end", "tail_forced_small", "messages_after",
    "summary_budget", "tokens_before", "final_tokens", "savings_pct",
]


@dataclass
class SweepBase:
    """Everything about one conversation the grid needs, measured once."""

    messages: list[Any]
    estimator: str
    model: str
    proxies: list[dict[str, Any]]  # role, tool_calls and position only: what the boundary code reads
    walk_original: list[int]  # per-message weight (estimator.message_tokens) of the original form
    walk_dedup: list[int]  # ... of the form after deduplication only (at or after the prune boundary)
    walk_pruned: list[int]  # ... of the fully pruned form (before the boundary)
    size_dedup: list[tuple[int, int]]  # (chars, images) for hermes, (tokens, 0) for tiktoken
    size_pruned: list[tuple[int, int]]
    dedup_form: list[Any]
    pruned_form: list[Any]
    call_ids: list[list[Any]]  # per assistant message: its tool-call ids
    result_id: list[Any]  # per tool message: its tool_call_id
    tokens_before: int
    _summary_flags: dict[str, list[bool]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.messages)

    def summary_flags(self, profile_name: str) -> list[bool]:
        flags = self._summary_flags.get(profile_name)
        if flags is None:
            profile = get_profile(profile_name)
            flags = [isinstance(m, dict) and summary_phase.is_summary_content(m.get("content"), profile)
                     for m in self.dedup_form]
            self._summary_flags[profile_name] = flags
        return flags

    def size(self, message: Any) -> tuple[int, int]:
        if self.estimator == "tiktoken":
            return get_counter(encoding_name_for_model(self.model)).count_message(message), 0
        return message_rough_chars(message)

    def total(self, chars: int, images: int) -> int:
        if self.estimator == "tiktoken":
            return chars
        return (chars + 3) // 4 + P.ROUGH_IMAGE_TOKENS * images


def _call_id(call: Any) -> Any:
    if isinstance(call, dict):
        return call.get("call_id") or call.get("id")
    return None


def prepare_sweep(
    messages: Sequence[Any], estimator: str = "hermes", model: str = "", *, plan: PrunePlan | None = None
) -> SweepBase:
    """Measure ``messages`` once (the expensive part of a sweep; cache it per transcript).

    ``plan``: the conversation's Phase-1 plan with the same estimator
    (:func:`core.analysis.phase1.plan_for`), when one is kept already.
    """
    messages = list(messages)
    est = make_estimator(estimator, model)
    n = len(messages)
    if plan is None:
        plan = PrunePlan(messages, est.message_tokens, key=estimator_key(estimator, model))
    elif plan.key != estimator_key(estimator, model) or not plan.built_from(messages):
        raise ValueError("the Phase-1 plan was built from other messages or with another estimator")
    # Everything protected (boundary 0) leaves the deduplicated forms; nothing protected, the pruned ones.
    dedup_form = plan.apply(n, None, record_actions=False).messages
    pruned_form = plan.apply(0, None, record_actions=False).messages
    proxies = []
    call_ids: list[list[Any]] = []
    result_id: list[Any] = []
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        proxy: dict[str, Any] = {"_i": index}
        if isinstance(message, dict):
            if "role" in message:
                proxy["role"] = role
            if message.get("tool_calls"):
                proxy["tool_calls"] = message["tool_calls"]
        proxies.append(proxy)
        ids = []
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                cid = _call_id(call)
                if cid:
                    ids.append(cid)
        call_ids.append(ids)
        result_id.append(message.get("tool_call_id") if role == "tool" else None)
    base = SweepBase(
        messages=messages, estimator=estimator, model=model, proxies=proxies,
        walk_original=plan.source_weights(),
        walk_dedup=plan.result_weights(0),
        walk_pruned=plan.result_weights(n),
        size_dedup=[], size_pruned=[], dedup_form=dedup_form, pruned_form=pruned_form,
        call_ids=call_ids, result_id=result_id, tokens_before=est.messages_tokens(messages) if n else 0,
    )
    base.size_dedup = [base.size(m) for m in dedup_form]
    base.size_pruned = [base.size(m) for m in pruned_form]
    return base


def _unchanged(base: SweepBase, config: CompressorConfig, outcome: str, triggered: bool,
               threshold: int, tail_budget: int) -> dict[str, Any]:
    return {
        "protect_first_n": config.protect_first_n, "threshold_percent": config.threshold_percent,
        "summary_target_ratio": config.summary_target_ratio, "threshold_tokens": threshold,
        "tail_token_budget": tail_budget, "triggered": triggered, "outcome": outcome, "prune_boundary": None,
        "compress_start": None, "compress_end": None, "tail_forced_small": False, "messages_after": base.n, "summary_budget": None,
        "tokens_before": base.tokens_before, "final_tokens": base.tokens_before, "savings_pct": 0.0,
    }


def _summary_body_size(base: SweepBase, budget: int) -> str | int:
    return "x" * (budget * P.CHARS_PER_TOKEN) if base.estimator == "hermes" else budget


def sweep_cell(base: SweepBase, config: CompressorConfig, *, respect_trigger: bool = True) -> dict[str, Any]:
    """One grid cell: the compressor's boundaries and the estimated result for ``config``."""
    n = base.n
    threshold = config.threshold_tokens
    tail_budget = config.tail_token_budget
    triggered = base.tokens_before >= threshold
    head_size = boundaries.protect_head_size(base.proxies, config.protect_first_n)
    if n <= head_size + P.MIN_TAIL_MESSAGES + 1:
        return _unchanged(base, config, "too_small", triggered, threshold, tail_budget)
    if respect_trigger and not triggered:
        return _unchanged(base, config, "not triggered", triggered, threshold, tail_budget)

    walk_original = base.walk_original
    boundary = prune.find_prune_boundary(base.proxies, config.protect_last_n, tail_budget,
                                         lambda proxy: walk_original[proxy["_i"]])
    walk = base.walk_pruned[:max(boundary, 0)] + base.walk_dedup[max(boundary, 0):]
    sizes = base.size_pruned[:max(boundary, 0)] + base.size_dedup[max(boundary, 0):]

    def form(index: int) -> Any:
        return base.pruned_form[index] if index < boundary else base.dedup_form[index]

    start = boundaries.align_boundary_forward(base.proxies, head_size)
    tail = boundaries.find_tail_cut(base.proxies, start, tail_budget, lambda proxy: walk[proxy["_i"]])
    end = tail.cut
    row = _unchanged(base, config, "nothing_to_compress", triggered, threshold, tail_budget)
    row.update({"prune_boundary": boundary, "compress_start": start, "compress_end": end,
                "tail_forced_small": tail.forced_small})
    if start >= end or start >= n:
        chars = sum(c for c, _ in sizes)
        images = sum(i for _, i in sizes)
        final = base.total(chars, images)
        row.update({"final_tokens": final, "savings_pct": _savings(base.tokens_before, final)})
        return row

    profile = get_profile(config.profile)
    flags = base.summary_flags(config.profile)
    scan_from = 1 if base.proxies and base.proxies[0].get("role") == "system" else 0
    existing = next((k for k in range(min(end, n) - 1, scan_from - 1, -1) if flags[k]), None)
    turns_start = max(start, existing + 1) if existing is not None else start
    turn_chars = sum(c for c, _ in sizes[turns_start:end])
    turn_images = sum(i for _, i in sizes[turns_start:end])
    content_tokens = base.total(turn_chars, turn_images)
    budget = summary_phase.summary_budget(content_tokens, config.max_summary_tokens)

    kept = list(range(start)) + list(range(end, n))
    chars = sum(sizes[i][0] for i in kept)
    images = sum(sizes[i][1] for i in kept)
    messages_after = len(kept)
    body = _summary_body_size(base, budget)
    if base.estimator == "hermes":
        summary_text = summary_phase.with_summary_prefix(str(body), profile)
    else:
        summary_text = profile.summary_prefix + "\n"
    placement = assemble.choose_summary_role(base.proxies, start, end)
    if placement.merged:
        merged = assemble.merge_summary_into(form(end), summary_text)
        merged_size = base.size(merged)
        chars += merged_size[0] - sizes[end][0]
        images += merged_size[1] - sizes[end][1]
    else:
        content = summary_text + assemble.SUMMARY_END if placement.role == "user" else summary_text
        summary_size = base.size({"role": placement.role, "content": content})
        chars += summary_size[0]
        images += summary_size[1]
        messages_after += 1
    if base.estimator != "hermes":
        chars += int(body)
    if start > 0 and base.proxies[0].get("role") == "system":
        noted = base.size(assemble.add_system_note(form(0)))
        chars += noted[0] - sizes[0][0]
        images += noted[1] - sizes[0][1]

    surviving = {cid for i in kept for cid in base.call_ids[i]}
    results = {base.result_id[i] for i in kept if base.result_id[i]}
    for i in kept:
        cid = base.result_id[i]
        if cid and cid not in surviving:
            chars -= sizes[i][0]
            images -= sizes[i][1]
            messages_after -= 1
    for i in kept:
        for cid in base.call_ids[i]:
            if cid not in results:
                stub = base.size({"role": "tool", "content": P.STUB_RESULT, "tool_call_id": cid})
                chars += stub[0]
                messages_after += 1
    final = base.total(chars, images)
    row.update({"outcome": "summarized", "messages_after": messages_after, "summary_budget": budget,
                "final_tokens": final, "savings_pct": _savings(base.tokens_before, final)})
    return row


def _savings(before: int, after: int) -> float:
    return (before - after) / before * 100 if before > 0 else 0.0


def sweep(
    messages_or_base: Sequence[Any] | SweepBase,
    config: CompressorConfig | None = None,
    *,
    thresholds: Iterable[float] = DEFAULT_THRESHOLDS,
    ratios: Iterable[float] = DEFAULT_RATIOS,
    protect_first_ns: Iterable[int] | None = None,
    respect_trigger: bool = True,
) -> pd.DataFrame:
    """One row per (protect_first_n, threshold_percent, summary_target_ratio) cell (``SWEEP_COLUMNS``).

    The other parameters (context length, protect_last_n, profile, estimator, model) come from
    ``config``.
    """
    config = config or CompressorConfig()
    if isinstance(messages_or_base, SweepBase):
        base = messages_or_base
        if (base.estimator, base.model) != (config.token_estimator, config.model):
            raise ValueError("the prepared sweep was measured with another estimator or model than config")
    else:
        base = prepare_sweep(messages_or_base, config.token_estimator, config.model)
    firsts = list(protect_first_ns) if protect_first_ns is not None else [config.protect_first_n]
    rows = []
    for first in firsts:
        for threshold in thresholds:
            for ratio in ratios:
                cell = CompressorConfig(
                    context_length=config.context_length, threshold_percent=float(threshold),
                    protect_first_n=int(first), protect_last_n=config.protect_last_n,
                    summary_target_ratio=float(ratio), profile=config.profile,
                    token_estimator=config.token_estimator, model=config.model,
                )
                rows.append(sweep_cell(base, cell, respect_trigger=respect_trigger))
    return pd.DataFrame(rows, columns=SWEEP_COLUMNS)


def sweep_heatmap(table: pd.DataFrame, metric: str = "final_tokens", protect_first_n: int | None = None) -> go.Figure:
    """Heat map of ``metric`` (``final_tokens`` or ``savings_pct``) over threshold x ratio.

    Cells that do not compress are labelled with their outcome (for example ``not triggered``).
    """
    if metric not in ("final_tokens", "savings_pct"):
        raise ValueError("metric must be 'final_tokens' or 'savings_pct'")
    data = table
    if protect_first_n is not None:
        data = table[table["protect_first_n"] == protect_first_n]
    elif data["protect_first_n"].nunique() > 1:
        data = table[table["protect_first_n"] == table["protect_first_n"].iloc[0]]
    thresholds = sorted(data["threshold_percent"].unique())
    ratios = sorted(data["summary_target_ratio"].unique())
    z = np.full((len(thresholds), len(ratios)), np.nan)
    text = [["" for _ in ratios] for _ in thresholds]
    for _, row in data.iterrows():
        y = thresholds.index(row["threshold_percent"])
        x = ratios.index(row["summary_target_ratio"])
        value = row[metric]
        z[y][x] = value
        if row["outcome"] == "summarized":
            text[y][x] = f"{int(row['final_tokens']):,}<br>{row['savings_pct']:.0f}%"
        else:
            text[y][x] = f"{int(row['final_tokens']):,}<br>{row['outcome']}"
    label = "final tokens" if metric == "final_tokens" else "savings %"
    fig = go.Figure(go.Heatmap(
        z=z, x=[f"{r:.2f}" for r in ratios], y=[f"{t:.2f}" for t in thresholds], text=text,
        texttemplate="%{text}", colorscale="Blues" if metric == "savings_pct" else "Oranges",
        colorbar={"title": {"text": label}},
        hovertemplate="threshold %{y}, ratio %{x}<br>%{text}<extra></extra>",
    ))
    fig.update_layout(height=120 + 48 * len(thresholds), margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      font={"family": "Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": 12},
                      paper_bgcolor="white", plot_bgcolor="white")
    fig.update_xaxes(title_text="summary_target_ratio", type="category")
    fig.update_yaxes(title_text="threshold_percent", type="category")
    return fig


def best_cells(table: pd.DataFrame, top: int = 5) -> pd.DataFrame:
    """The cells that compress, smallest final size first."""
    compressed = table[table["outcome"] == "summarized"]
    return compressed.sort_values(["final_tokens", "threshold_percent", "summary_target_ratio"]).head(top)
