"""Where the tokens go: each Phase-1 pass applied step by step, then the summary and reassembly.

Phase 1's lists come from the conversation's Phase-1 plan (``core.rules.PrunePlan``), so each
step's list is exactly what the compressor builds; the second pass both writes one-liners and strips
tool-result images, and its changes are split by message into those two steps. The steps after
Phase 1 are the lists of a real compression's assembly (``CompressionResult.assembly``): the
summary placed, the tool pairs repaired, the historical images stripped.

Every step is counted exactly (tiktoken, cached per text) and with the Hermes estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from core import rules
from core.compressor import CompressionResult
from core.config import CompressorConfig
from core.inspections.overview import (
    CATEGORIES,
    message_frame,
    tokens_by_category,
    tokens_by_role,
    tokens_by_tool,
)
from core.plan import TOO_SMALL, usable_prune_plan
from core.plan import plan as compression_plan
from core.rules import PrunePlan
from core.tokens import TokenCounter, message_rough_chars, rough_tokens

# Step keys in pipeline order, with their labels (the palette in charts.py uses the keys).
STEP_LABELS: dict[str, str] = {
    "original": "Original",
    "dedup": "Duplicate tool outputs",
    "one_liners": "Old tool results → one-liners",
    "args": "Tool-call arguments shrunk",
    "tool_images": "Images stripped (old tool results)",
    "summary": "Middle → summary",
    "repair": "Tool-pair repair",
    "historical_images": "Images stripped (after reassembly)",
    "final": "Final",
}
PHASE1_STEPS: tuple[str, ...] = ("dedup", "one_liners", "args", "tool_images")
AFTER_STEPS: tuple[str, ...] = ("summary", "repair", "historical_images")
# What a step that only rewrites messages did, said of one message and of several.
REWRITES: dict[str, tuple[str, str]] = {
    "dedup": ("1 older copy of a repeated tool output → a back-reference",
              "{n} older copies of repeated tool outputs → a back-reference each"),
    "one_liners": ("1 old tool output → a one-line description of its call",
                   "{n} old tool outputs → a one-line description of their call each"),
    "args": ("1 message's long tool-call arguments shortened", "{n} messages' long tool-call arguments shortened"),
    "tool_images": ("1 tool result's images → a placeholder", "{n} tool results' images → a placeholder"),
    "historical_images": ("1 message's older images → a placeholder", "{n} messages' older images → a placeholder"),
}


def rewrite_note(key: str, touched: Sequence[int]) -> str:
    """What step ``key`` did to the ``touched`` messages, in words ("none" when it touched none)."""
    if not touched:
        return "none"
    one, several = REWRITES[key]
    return one if len(touched) == 1 else several.format(n=f"{len(touched):,}")


@dataclass
class Step:
    key: str
    label: str
    exact_tokens: int  # total after this step
    hermes_tokens: int
    exact_delta: int  # change made by this step (negative = saved)
    hermes_delta: int
    messages: Sequence[int] = field(default_factory=list)  # input indices the step touched
    note: str = ""


@dataclass
class SavingsAnalysis:
    steps: list[Step]
    outcome: str  # the compressor's outcome, or "phase1_only" when no result was given
    original: list[Any]
    after_phase1: list[Any]
    final: list[Any]
    prune_boundary: int | None
    phase1_actions: dict[int, list[str]]
    reassembly_matches: bool  # the replayed reassembly equals result.messages

    @property
    def table(self) -> pd.DataFrame:
        """One row per step: label, tokens after it and its change, exact and estimated, messages touched."""
        rows = [
            {
                "step": s.label,
                "exact_tokens": s.exact_tokens,
                "exact_change": s.exact_delta,
                "hermes_tokens": s.hermes_tokens,
                "hermes_change": s.hermes_delta,
                "messages_touched": len(s.messages),
                "which": _index_list(s.messages),
                "note": s.note,
            }
            for s in self.steps
        ]
        return pd.DataFrame(rows)

    def step(self, key: str) -> Step:
        for s in self.steps:
            if s.key == key:
                return s
        raise KeyError(key)

    @property
    def saved_exact(self) -> int:
        return self.steps[0].exact_tokens - self.steps[-1].exact_tokens


def _index_list(indices: Sequence[int], limit: int = 40) -> str:
    shown = ", ".join(str(i) for i in indices[:limit])
    return shown + (f" … (+{len(indices) - limit})" if len(indices) > limit else "")


def _with_indices(base: list[Any], source: list[Any], indices: Sequence[int]) -> list[Any]:
    out = list(base)
    for i in indices:
        out[i] = source[i]
    return out


def phase1_steps(
    messages: Sequence[Any], config: CompressorConfig, *, plan: PrunePlan | None = None
) -> tuple[list[tuple[str, list[Any], list[int]]], int, dict[int, list[str]]]:
    """The list after each Phase-1 step, with the indices each step touched.

    Returns ``([(step key, list, touched indices), ...], prune_boundary, actions)``; the last list
    equals ``prune_old_tool_results(...).messages``. ``plan``: the Phase-1 plan of ``messages``
    with the config's estimator (:func:`core.plan.prepare`).
    """
    plan = usable_prune_plan(plan, messages, config)
    pruned = plan.apply(config.protect_last_n, config.tail_token_budget)
    boundary, actions = pruned.prune_boundary, pruned.actions
    after_dedup, after_pass2, after_pass3 = plan.pass_lists(boundary)
    dedup_idx = sorted(i for i, a in actions.items() if rules.DEDUPLICATED in a)

    one_liner_idx = sorted(i for i, a in actions.items() if rules.ONE_LINER in a)
    image_idx = sorted(i for i, a in actions.items() if rules.IMAGE_STRIPPED in a)
    args_idx = sorted(i for i, a in actions.items() if rules.ARGS_SHRUNK in a)

    after_one_liners = _with_indices(after_dedup, after_pass2, one_liner_idx)
    after_args = _with_indices(after_one_liners, after_pass3, args_idx)
    after_images = _with_indices(after_args, after_pass2, image_idx)
    steps = [
        ("dedup", after_dedup, dedup_idx),
        ("one_liners", after_one_liners, one_liner_idx),
        ("args", after_args, args_idx),
        ("tool_images", after_images, image_idx),
    ]
    return steps, boundary, actions


class _Totals:
    """Exact and estimated totals of successive lists that share most of their message objects.

    The exact total is the sum of the per-message counts (as ``TokenCounter.count_messages``), the
    estimate applies the ceiling to the summed characters (as ``estimate_messages_tokens_rough``).
    A list as long as the one before it is measured by its differences only: positions holding
    the same object keep their figures, so a step costs what it changed, and no table of every
    message's figures is held beside the lists.
    """

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.previous: Sequence[Any] = ()
        self.sums = (0, 0, 0)  # exact, characters, images of ``previous``

    def _measure(self, message: Any) -> tuple[int, int, int]:
        return (self.counter.count_message(message), *message_rough_chars(message))

    def __call__(self, messages: Sequence[Any]) -> tuple[int, int]:
        previous, measure = self.previous, self._measure
        if previous and len(previous) == len(messages):
            exact, chars, images = self.sums
            for old, new in zip(previous, messages, strict=True):
                if old is not new:
                    old_figures, new_figures = measure(old), measure(new)
                    exact += new_figures[0] - old_figures[0]
                    chars += new_figures[1] - old_figures[1]
                    images += new_figures[2] - old_figures[2]
        else:
            exact = chars = images = 0
            for message in messages:
                figures = measure(message)
                exact += figures[0]
                chars += figures[1]
                images += figures[2]
        self.previous, self.sums = messages, (exact, chars, images)
        return exact, rough_tokens(chars, images)


def phase_savings(
    messages: Sequence[Any],
    config: CompressorConfig,
    counter: TokenCounter,
    result: CompressionResult | None = None,
    *,
    plan: PrunePlan | None = None,
) -> SavingsAnalysis:
    """Token totals after each step, from the original conversation to the final one.

    Args:
        messages: The original conversation (never modified).
        config: The parameters the steps run with (the same ones ``result`` was computed with).
        counter: Exact counter (its per-text cache makes repeated calls cheap).
        result: A compression of ``messages`` under ``config``. Without one, only Phase 1 is
            shown and the later steps stay at zero. When the compressor returned early because
            the conversation is too small, nothing runs, so every step is zero.
        plan: The Phase-1 plan of ``messages`` with the config's estimator
            (:func:`core.plan.prepare`), kept to make the next parameter change cheap.
    """
    original = list(messages)
    totals = _Totals(counter)
    exact0, hermes0 = totals(original)
    steps = [Step("original", STEP_LABELS["original"], exact0, hermes0, 0, 0)]
    decided = result.plan if result is not None else compression_plan(original, config, prune_plan=plan)
    too_small = decided.outcome == TOO_SMALL

    def add(key: str, listing: Sequence[Any], touched: Sequence[int], note: str = "") -> None:
        exact, hermes = totals(listing)
        previous = steps[-1]
        steps.append(
            Step(
                key,
                STEP_LABELS[key],
                exact,
                hermes,
                exact - previous.exact_tokens,
                hermes - previous.hermes_tokens,
                touched if isinstance(touched, range) else list(touched),
                note,
            )
        )

    if too_small:
        note = "too few messages: the compressor returns the conversation unchanged"
        for key in (*PHASE1_STEPS, *AFTER_STEPS):
            add(key, original, [], note)
        add("final", original, [])
        return SavingsAnalysis(steps, "too_small", original, original, original, None, {}, True)

    phase1, boundary, actions = phase1_steps(original, config, plan=plan or decided.prune_plan)
    for key, listing, touched in phase1:
        add(key, listing, touched, rewrite_note(key, touched))
    pruned = phase1[-1][1]

    final = pruned
    matches = True
    outcome = "phase1_only" if result is None else result.outcome
    if result is not None and result.assembly is not None:
        built = result.assembly
        final = built.messages
        matches = final == result.messages
        middle = range(result.plan.compress_start or 0, result.plan.compress_end or 0)  # a range: no list of every index
        add("summary", built.assembled, middle, f"{len(middle)} messages → 1 summary" + (" (merged)" if built.summary_merged else ""))
        repair_note = f"{built.orphans_removed} orphan results removed, " + (
            f"{built.stubs_added} stubs added" if rules.orphan_call_rule(built.plan.profile).adds_stubs
            else f"{built.calls_stripped} calls without results stripped"
        )
        add("repair", built.repaired, [], repair_note)
        add("historical_images", final, built.media_stripped, rewrite_note("historical_images", built.media_stripped))
    else:
        note = {
            "phase1_only": "run the compressor to see the summary step",
            "nothing_to_compress": "the middle is empty: nothing to summarise",
            "aborted": "the summary failed and abort_on_summary_failure is on: nothing replaced",
            "crashed": "the release raises while serialising the turns: nothing replaced",
        }.get(outcome, "")
        for key in AFTER_STEPS:
            add(key, pruned, [], note)
    add("final", final, [])
    # "final" repeats the last total; its change is the whole saving.
    steps[-1].exact_delta = steps[-1].exact_tokens - exact0
    steps[-1].hermes_delta = steps[-1].hermes_tokens - hermes0
    return SavingsAnalysis(steps, outcome, original, pruned, final, boundary, actions, matches)


def before_after(
    original: Sequence[Any],
    final: Sequence[Any],
    counter: TokenCounter,
    by: str,
    *,
    original_frame: pd.DataFrame | None = None,
    final_frame: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``<by>, before, after, change`` for ``by`` in ``"role"``, ``"tool"`` or ``"category"``.

    ``original_frame`` / ``final_frame`` are the ``message_frame`` of each list when the caller
    already has them (they are built here otherwise).
    """
    if by == "tool":
        before = tokens_by_tool(original, counter).set_index("tool")["tokens"]
        after = tokens_by_tool(final, counter).set_index("tool")["tokens"]
    elif by in ("role", "category"):
        frames = [
            original_frame if original_frame is not None else message_frame(original, counter),
            final_frame if final_frame is not None else message_frame(final, counter),
        ]
        group = tokens_by_role if by == "role" else tokens_by_category
        before, after = (group(frame).set_index(by)["tokens"] for frame in frames)
    else:
        raise ValueError(f"by must be 'role', 'tool' or 'category', got {by!r}")
    keys = list(before.index) + [k for k in after.index if k not in before.index]
    if by == "category":
        keys = list(CATEGORIES)
    table = pd.DataFrame(
        {
            by: keys,
            "before": [int(before.get(k, 0)) for k in keys],
            "after": [int(after.get(k, 0)) for k in keys],
        }
    )
    table["change"] = table["after"] - table["before"]
    return table


def touched_messages(analysis: SavingsAnalysis, frame: pd.DataFrame, counter: TokenCounter) -> pd.DataFrame:
    """Per message Phase 1 touched: index, role, tool, what happened, exact tokens before and after."""
    rows = []
    for index in sorted(analysis.phase1_actions):
        row = frame.iloc[index]
        after = counter.count_message(analysis.after_phase1[index])
        rows.append(
            {
                "index": index,
                "role": row["role"],
                "tool": row["tool"],
                "actions": ", ".join(analysis.phase1_actions[index]),
                "tokens_before": int(row["tokens"]),
                "tokens_after": after,
                "saved": int(row["tokens"]) - after,
            }
        )
    columns = ["index", "role", "tool", "actions", "tokens_before", "tokens_after", "saved"]
    return pd.DataFrame(rows, columns=columns)
