"""Strategy comparison: Hermes beside simpler context-reduction strategies on one transcript.

Strategies (all read the messages, none modifies them):

* **Hermes v0.15.1 / v0.16.0**: ``ContextCompressor.compress`` with the chosen parameters and
  summarizer (run unconditionally, like ``/compress``).
* **Truncation**: the protected head (system prompt + ``protect_first_n``, extended over the tool
  results that follow it) plus the most recent messages that fit the token budget. The kept
  tail never starts with a tool result (leading results whose call was cut are dropped), so it
  promises valid tool pairs.
* **Observation masking**: every tool output except the last ``keep_last`` is replaced by a short
  placeholder; every message stays, so pairs stay valid. It does not aim at the budget.
* **Codex-style**: the leading system messages, then the user's own messages (newest first, up
  to ``user_tokens`` tokens, the one that overflows cut to what is left, kept in their original
  order; earlier handoff summaries skipped), then a summary of the whole history as a user
  message. No assistant or tool messages remain.

Budget: tokens are exact ``tiktoken`` counts with the model's encoding. Unless given, the budget is
what Hermes with the chosen profile kept, so truncation is compared at the same size.

Facts: every fact of the conversation is checked against each output (same denominator for
all), and the facts of each strategy's *compacted part* (the original messages it dropped or
altered) are checked too; API validity comes from :mod:`core.inspections.lint`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from core import rules
from core.compressor import ContextCompressor
from core.config import CompressorConfig
from core.inspections.lint import error_count, lint
from core.plan import plan_for_turns
from core.profiles import PROFILES
from core.summary_call import request_summary
from core.tokens import TokenCounter, encoding_name_for_model, get_counter
from core.views.replay import DEFAULT_SUMMARIZER
from core.views.retention import FactIndex, retention_summary

__all__ = [
    "CODEX_SUMMARY_PREFIX",
    "MASK_PLACEHOLDER",
    "PAIR_RULES",
    "StrategyComparison",
    "StrategyRun",
    "codex_style",
    "compare_strategies",
    "hermes",
    "observation_masking",
    "truncation",
]

MASK_PLACEHOLDER = "[Old tool output omitted to save context]"
CODEX_SUMMARY_PREFIX = "Summary of the earlier conversation, written when the context was compacted:\n"
CODEX_TRUNCATION_MARK = " …[truncated]"
CODEX_USER_TOKENS = 20_000
DEFAULT_KEEP_LAST = 10

#: Lint rules about tool calls and their results.
PAIR_RULES = frozenset({
    "unanswered_tool_call", "misplaced_tool_result", "orphan_tool_result", "duplicate_tool_result",
    "tool_call_id_missing", "tool_result_not_next",
})


@dataclass
class StrategyRun:
    """One strategy's output and what it did to the original messages."""

    name: str
    family: str  # "hermes", "truncation", "masking" or "codex"
    messages: list[Any]
    kept: list[int]  # original indices carried over unchanged
    altered: list[int]  # original indices carried over in a changed form
    promises_pairs: bool
    summary_text: str | None = None
    notes: list[str] = field(default_factory=list)

    def compacted(self, n_original: int) -> list[int]:
        """Original indices not carried over unchanged (dropped, summarised or altered)."""
        unchanged = set(self.kept)
        return [index for index in range(n_original) if index not in unchanged]


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else None


def _counter(config: CompressorConfig) -> TokenCounter:
    return get_counter(encoding_name_for_model(config.model))


def _resolve(summarizer: Any) -> Any:
    if summarizer is DEFAULT_SUMMARIZER:
        from core.summarizers.factory import make_summarizer

        return make_summarizer("extractive")
    return summarizer


# ---------------------------------------------------------------------------------------------
# The strategies


def hermes(messages: Sequence[Any], config: CompressorConfig, summarizer: Any = DEFAULT_SUMMARIZER) -> StrategyRun:
    """One ``compress()`` with ``config`` (its profile names the run)."""
    compressor = ContextCompressor(config, summarizer=_resolve(summarizer))
    result = compressor.compress(list(messages), on_crash="report")
    kept: list[int] = []
    altered: list[int] = []
    notes: list[str] = []
    if result.compressed:
        for origin in result.origins:
            if origin.kind not in ("head", "tail") or origin.source_index is None:
                continue
            extra = [badge for badge in origin.badges if badge not in ("HEAD", "TAIL")]
            (altered if extra else kept).append(origin.source_index)
        if result.fallback_used:
            notes.append(f"summary failed ({result.failure_reason or 'cooldown'}); fallback summary inserted")
    else:
        for index, (old, new) in enumerate(zip(messages, result.messages, strict=False)):
            (kept if old == new else altered).append(index)
        notes.append(result.crash.describe() if result.crash is not None else f"no compaction: outcome {result.outcome}")
    return StrategyRun(
        name=f"Hermes {config.profile}", family="hermes", messages=list(result.messages), kept=sorted(kept),
        altered=sorted(altered), promises_pairs=True, summary_text=result.summary_text, notes=notes,
    )


def truncation(messages: Sequence[Any], budget_tokens: int, protect_first_n: int = 3,
               counter: TokenCounter | None = None) -> StrategyRun:
    """The protected head plus the most recent messages within ``budget_tokens`` (exact tokens)."""
    counter = counter or get_counter("cl100k_base")
    n = len(messages)
    head_end = min(rules.head_end(messages, protect_first_n), n)
    remaining = budget_tokens - sum(counter.count_message(m) for m in messages[:head_end])
    start = n
    for index in range(n - 1, head_end - 1, -1):
        tokens = counter.count_message(messages[index])
        if tokens > remaining:
            break
        remaining -= tokens
        start = index
    dropped_leading = 0
    while start < n and _role(messages[start]) == "tool":
        start += 1
        dropped_leading += 1
    kept = list(range(head_end)) + list(range(start, n))
    notes = []
    if remaining < 0:
        notes.append("the protected head alone exceeds the budget")
    if dropped_leading:
        notes.append(f"{dropped_leading} tool result(s) at the cut dropped with their call")
    return StrategyRun(
        name="Truncation", family="truncation", messages=[messages[i] for i in kept], kept=kept, altered=[],
        promises_pairs=True, notes=notes,
    )


def observation_masking(messages: Sequence[Any], keep_last: int = DEFAULT_KEEP_LAST) -> StrategyRun:
    """Every tool output but the last ``keep_last`` becomes ``MASK_PLACEHOLDER`` (when that is shorter)."""
    tool_indices = [index for index, message in enumerate(messages) if _role(message) == "tool"]
    masked_set = set(tool_indices[: max(len(tool_indices) - max(keep_last, 0), 0)])
    out: list[Any] = []
    kept: list[int] = []
    altered: list[int] = []
    for index, message in enumerate(messages):
        if index in masked_set:
            content = message.get("content")
            text_length = len(content) if isinstance(content, str) else len(str(content))
            if text_length > len(MASK_PLACEHOLDER):
                out.append({**message, "content": MASK_PLACEHOLDER})
                altered.append(index)
                continue
        out.append(message)
        kept.append(index)
    return StrategyRun(
        name=f"Observation masking (last {keep_last})", family="masking", messages=out, kept=kept, altered=altered,
        promises_pairs=True, notes=[f"{len(altered)} tool output(s) masked"],
    )


def _user_text(message: Mapping[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, Mapping) and isinstance(part.get("text"), str)]
        return "\n".join(texts) if texts else None
    return None


def _is_handoff(text: str) -> bool:
    """An earlier compaction's summary (Codex-style or any Hermes prefix), not the user's own words."""
    if text.startswith(CODEX_SUMMARY_PREFIX):
        return True
    return any(rules.is_summary_text(text, profile) for profile in PROFILES.values())


def _cut_to_tokens(text: str, tokens: int, counter: TokenCounter) -> str:
    """The beginning of ``text`` within ``tokens`` tokens (mark included)."""
    if tokens <= counter.count_text(CODEX_TRUNCATION_MARK):
        return ""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if counter.count_text(text[:middle]) + counter.count_text(CODEX_TRUNCATION_MARK) <= tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low] + CODEX_TRUNCATION_MARK if low else ""


def _summarize(turns: list[Any], config: CompressorConfig, summarizer: Any) -> tuple[str | None, str | None]:
    """(summary body, error) for ``turns``, requested the way the compressor requests a first summary."""
    if summarizer is None:
        return None, "no summarizer configured"
    decided = plan_for_turns(turns, config)
    if decided.reference_crash is not None:
        return None, decided.reference_crash.describe()
    outcome = request_summary(decided, summarizer, may_fall_back=False)
    if not outcome.succeeded:
        return None, outcome.error or "no summary"
    return (outcome.stored or None), (None if outcome.stored else "empty summary")


def codex_style(messages: Sequence[Any], config: CompressorConfig, summarizer: Any = DEFAULT_SUMMARIZER,
                user_tokens: int = CODEX_USER_TOKENS, counter: TokenCounter | None = None) -> StrategyRun:
    """Initial system messages + the user's messages (newest first, within ``user_tokens``) + a summary."""
    counter = counter or get_counter("cl100k_base")
    summarizer = _resolve(summarizer)
    n = len(messages)
    lead = 0
    while lead < n and _role(messages[lead]) in ("system", "developer"):
        lead += 1
    chosen: list[tuple[int, Any, bool]] = []  # (index, message, altered)
    remaining = user_tokens
    for index in range(n - 1, lead - 1, -1):
        message = messages[index]
        if _role(message) != "user":
            continue
        text = _user_text(message)
        if text is None or not text.strip() or _is_handoff(text.lstrip()):
            continue
        tokens = counter.count_text(text)
        if tokens <= remaining:
            chosen.append((index, message, False))
            remaining -= tokens
            continue
        cut = _cut_to_tokens(text, remaining, counter)
        if cut:
            chosen.append((index, {"role": "user", "content": cut}, True))
        break
    chosen.reverse()
    body, error = _summarize([m for m in messages[lead:]], config, summarizer)
    out = list(messages[:lead]) + [message for _i, message, _a in chosen]
    notes = [f"{len(chosen)} user message(s) kept within {user_tokens:,} tokens"]
    summary_text = None
    if body:
        summary_text = CODEX_SUMMARY_PREFIX + body
        out.append({"role": "user", "content": summary_text})
    else:
        notes.append(f"summary failed ({error}); none inserted")
    return StrategyRun(
        name="Codex-style", family="codex", messages=out,
        kept=list(range(lead)) + [i for i, _m, altered in chosen if not altered],
        altered=[i for i, _m, altered in chosen if altered], promises_pairs=True,
        summary_text=summary_text, notes=notes,
    )


# ---------------------------------------------------------------------------------------------
# The comparison


@dataclass
class StrategyComparison:
    runs: list[StrategyRun]
    table: pd.DataFrame
    budget_tokens: int
    tokens_before: int
    scored: dict[str, pd.DataFrame]  # per run name: facts of its compacted part with ``kept``
    violations: dict[str, pd.DataFrame]  # per run name: lint rows ("upload" for the input)

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
) -> StrategyComparison:
    """Run every strategy on ``messages`` and tabulate size, fact retention and API validity.

    The table has one row per strategy (``TABLE_COLUMNS``): ``messages_after`` counts the output's
    messages, ``messages_kept`` the original messages carried over (unchanged or shortened). ``pairs_ok`` is False when a strategy
    that promises valid tool pairs produced more pair violations than the upload already had;
    the notes then say so.
    """
    config = config or CompressorConfig()
    summarizer = _resolve(summarizer)
    counter = _counter(config)
    facts = facts or FactIndex(messages)
    runs = [hermes(messages, replace(config, profile=name), summarizer) for name in PROFILES]
    own = next(run for run in runs if run.name == f"Hermes {config.profile}")
    if budget_tokens is None:
        budget_tokens = counter.count_messages(own.messages)
    runs.append(truncation(messages, budget_tokens, config.protect_first_n, counter))
    runs.append(observation_masking(messages, keep_last))
    runs.append(codex_style(messages, config, summarizer, user_tokens, counter))

    upload_violations = lint(messages)
    upload_pairs = int(upload_violations["rule"].isin(PAIR_RULES).sum())
    all_facts_total = len(facts.facts_in(range(len(messages))))
    records = []
    scored: dict[str, pd.DataFrame] = {}
    violations: dict[str, pd.DataFrame] = {"upload": upload_violations}
    for run in runs:
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
        scored=scored, violations=violations,
    )


