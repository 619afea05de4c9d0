"""Strategy comparison: Hermes beside simpler context-reduction strategies on one transcript.

Every strategy of ``core.strategies.STRATEGIES`` runs on the same messages (none modifies them):
Hermes with each release profile, then the others held to the budget Hermes with the chosen profile
kept (unless the caller gives one), so truncation is compared at the same size.

Budget: tokens are exact ``tiktoken`` counts with the model's encoding.

Facts: every fact of the conversation is checked against each output (same denominator for
all), and the facts of each strategy's *compacted part* (the original messages it dropped or
altered) are checked too; API validity comes from :mod:`core.inspections.lint`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from core.config import CompressorConfig
from core.inspections.lint import API_NAMES, APIS, error_count, lint
from core.strategies import CODEX_USER_TOKENS, DEFAULT_KEEP_LAST, STRATEGIES, StrategyRun, StrategySettings
from core.summarizers.factory import DEFAULT_SUMMARIZER, resolve_summarizer
from core.tokens import encoding_name_for_model, get_counter
from core.views.retention import FactIndex, retention_summary

__all__ = ["PAIR_RULES", "TABLE_COLUMNS", "StrategyComparison", "compare_strategies", "strategy_overview",
           "strategy_tradeoffs", "tradeoff_note", "upload_errors_note"]

#: Lint rules about tool calls and their results.
PAIR_RULES = frozenset({
    "unanswered_tool_call", "misplaced_tool_result", "orphan_tool_result", "duplicate_tool_result",
    "tool_call_id_missing", "tool_result_not_next",
})


def strategy_overview() -> str:
    """One sentence naming every registered strategy, for the page that compares them."""
    parts = [strategy.description for strategy in STRATEGIES.values()]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return f"The same conversation reduced {len(parts)} ways: {listed}."


def strategy_tradeoffs() -> pd.DataFrame:
    """What each registered strategy keeps and what it gives up for it, one row each."""
    return pd.DataFrame(
        [{"strategy": s.label, "keeps": s.keeps, "gives_up": s.gives_up} for s in STRATEGIES.values()],
        columns=["strategy", "keeps", "gives_up"],
    )


def tradeoff_note(comparison: StrategyComparison) -> str | None:
    """Why a smaller output can keep more facts, named from the table (None when no run is both smaller
    and richer in facts than another)."""
    rows = comparison.table
    if rows.empty:
        return None
    richest = rows[rows["retention_all"] == rows["retention_all"].max()]
    best = richest.loc[richest["tokens_after"].idxmin()]
    larger = rows[(rows["tokens_after"] > best["tokens_after"]) & (rows["retention_all"] < best["retention_all"])]
    if larger.empty:
        return None
    other = larger.loc[larger["tokens_after"].idxmax()]
    return (
        f"{best['strategy']} is smaller than {other['strategy']} ({int(best['tokens_after']):,} against "
        f"{int(other['tokens_after']):,} tokens) yet keeps more facts ({best['retention_all']:.1%} against "
        f"{other['retention_all']:.1%}): facts are identifiers, and a text that copies identifiers keeps them "
        "wherever it puts them. What the facts column does not measure is what each gives up: the messages "
        "themselves, exact tool outputs and valid tool pairs (see what each strategy keeps and gives up below)."
    )


def upload_errors_note(comparison: StrategyComparison) -> str | None:
    """What the error columns owe to the log itself: the API errors the uploaded messages already
    have (a strategy that keeps those messages keeps their errors), or None when it has none."""
    found = comparison.violations.get("upload")
    if found is None:
        return None
    counts = {api: error_count(found, api) for api in APIS}
    if not any(counts.values()):
        return None
    said = " and ".join(f"{count:,} {API_NAMES[api]} error{'s' if count != 1 else ''}"
                        for api, count in counts.items() if count)
    return (f"The log as uploaded already has {said} (the API validity page lists them): a strategy that keeps "
            "those messages keeps their errors, so only errors beyond these are the strategy's own.")


@dataclass
class StrategyComparison:
    runs: list[StrategyRun]
    table: pd.DataFrame
    budget_tokens: int
    tokens_before: int
    scored: dict[str, pd.DataFrame]  # per run name: facts of its compacted part with ``kept``
    violations: dict[str, pd.DataFrame]  # per run name: lint rows ("upload" for the input)
    # Strategies not run yet (a first view without the whole-log summaries), by label.
    left_out: list[str] = field(default_factory=list)

    def run(self, name: str) -> StrategyRun:
        for candidate in self.runs:
            if candidate.name == name:
                return candidate
        raise KeyError(name)


TABLE_COLUMNS = [
    "strategy", "messages_after", "messages_kept", "tokens_after", "fits_budget", "facts_kept", "retention_all",
    "compacted_facts", "compacted_kept", "retention_compacted", "openai_errors", "anthropic_errors",
    "pair_violations", "pairs_ok", "notes",
]


def compare_strategies(
    messages: Sequence[Any],
    config: CompressorConfig | None = None,
    summarizer: Callable[[str, int], Any] | Any = DEFAULT_SUMMARIZER,
    *,
    budget_tokens: int | None = None,
    keep_last: int = DEFAULT_KEEP_LAST,
    user_tokens: int = CODEX_USER_TOKENS,
    facts: FactIndex | None = None,
    hermes_profiles: Sequence[str] | None = None,
    hermes_results: Mapping[str, Any] | None = None,
    without_whole_log_summaries: bool = False,
    earlier: StrategyComparison | None = None,
) -> StrategyComparison:
    """Run every strategy on ``messages`` and tabulate size, fact retention and API validity.

    The table has one row per strategy (``TABLE_COLUMNS``): ``messages_after`` counts the output's
    messages, ``messages_kept`` the original messages carried over (unchanged or shortened). ``pairs_ok`` is False when a strategy
    that promises valid tool pairs produced more pair violations than the upload already had;
    the notes then say so. ``hermes_profiles`` are the releases Hermes runs with (None: every one;
    the chosen profile always): each is a whole compression with its summary, unless
    ``hermes_results`` holds it already (by profile: made with these messages, config and summarizer).

    ``without_whole_log_summaries`` leaves out the strategies that summarise the whole log with the
    summarizer (the longest step on a long log; ``left_out`` names them), for a first view. ``earlier``, a comparison of
    the same messages with the same options, lends its runs and rows: only what it left out runs, and
    the result is the one a whole comparison gives.
    """
    config = config or CompressorConfig()
    counter = get_counter(encoding_name_for_model(config.model))
    settings = StrategySettings(config=config, summarizer=resolve_summarizer(summarizer), counter=counter,
                                budget_tokens=budget_tokens, keep_last=keep_last, user_tokens=user_tokens,
                                hermes_profiles=tuple(hermes_profiles) if hermes_profiles is not None else None,
                                hermes_results=dict(hermes_results or {}))
    facts = facts or FactIndex(messages)
    lent: dict[str, list[StrategyRun]] = {}
    for run in earlier.runs if earlier is not None else ():
        lent.setdefault(run.family, []).append(run)
    runs: list[StrategyRun] = []
    left_out: list[str] = []
    for strategy in STRATEGIES.values():
        if strategy.family in lent:
            produced = lent[strategy.family]
        elif without_whole_log_summaries and strategy.summarises_whole_log and settings.summarizer is not None:
            left_out.append(strategy.label)
            continue
        else:
            produced = strategy.run(messages, settings)
        runs.extend(produced)
        sizing = strategy.budget_run(produced, settings) if settings.budget_tokens is None else None
        if sizing is not None:
            settings = replace(settings, budget_tokens=counter.count_messages(sizing.messages))
    if settings.budget_tokens is None:
        raise ValueError("no strategy set a token budget and none was given")
    budget_tokens = settings.budget_tokens

    if earlier is not None:
        upload_violations = earlier.violations["upload"]
        all_facts_total = int(earlier.table.attrs["facts_total"])
    else:
        upload_violations = lint(messages)
        all_facts_total = len(facts.facts_in(range(len(messages))))
    upload_pairs = int(upload_violations["rule"].isin(PAIR_RULES).sum())
    records = []
    scored: dict[str, pd.DataFrame] = {}
    violations: dict[str, pd.DataFrame] = {"upload": upload_violations}
    known_rows = ({row["strategy"]: row for row in earlier.table.to_dict("records")}
                  if earlier is not None else {})
    for run in runs:
        if earlier is not None and run.name in known_rows:
            records.append(known_rows[run.name])
            scored[run.name] = earlier.scored[run.name]
            violations[run.name] = earlier.violations[run.name]
            continue
        tokens = counter.count_messages(run.messages)
        everything = retention_summary(facts.retention_all(run.messages))
        part = facts.retention_of(run.compacted(len(messages)), run.messages)
        scored[run.name] = part
        part_summary = retention_summary(part)
        found = lint(run.messages)
        violations[run.name] = found
        pair_count = int(found["rule"].isin(PAIR_RULES).sum())
        pairs_ok = pair_count <= upload_pairs
        notes = list(run.notes)
        if run.promises_pairs and not pairs_ok:
            notes.append(f"promised valid tool pairs but the lint found {pair_count} pair violation(s)")
        records.append({
            "strategy": run.name, "messages_after": len(run.messages),
            "messages_kept": len(run.kept) + len(run.altered), "tokens_after": tokens,
            "fits_budget": tokens <= budget_tokens, "facts_kept": everything["kept"],
            "retention_all": everything["score"], "compacted_facts": part_summary["total"],
            "compacted_kept": part_summary["kept"], "retention_compacted": part_summary["score"],
            "openai_errors": error_count(found, "openai"), "anthropic_errors": error_count(found, "anthropic"),
            "pair_violations": pair_count, "pairs_ok": pairs_ok, "notes": "; ".join(notes),
        })
    table = pd.DataFrame(records, columns=TABLE_COLUMNS)
    table.attrs["facts_total"] = all_facts_total
    return StrategyComparison(
        runs=runs, table=table, budget_tokens=budget_tokens, tokens_before=counter.count_messages(messages),
        scored=scored, violations=violations, left_out=left_out,
    )
