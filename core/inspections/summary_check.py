"""Is a "successful" summary really one? Empty and oversized summaries, told apart from good ones.

Hermes v0.15.1 and v0.16.0 accept whatever text the summarizer returns: an empty completion
replaces the whole middle with the handoff note alone, and a runaway one (a model that ignored
``max_tokens``) can make the "compressed" conversation larger than the original. The profiles
reproduce that faithfully (the outcome stays ``summarized``); this check says so, from the
public fields of the result only, so that the command line, the batch report and the dashboard
can warn about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.result import CompressionResult

EMPTY = "empty"
OVERSIZED = "oversized"


@dataclass(frozen=True)
class SummaryProblem:
    """What is wrong with a summary the compressor counted as a success."""

    kind: str  # EMPTY or OVERSIZED
    message: str  # one line, for a warning
    response_tokens: int | None = None
    max_tokens: int | None = None  # the limit it was held to: the call's max_tokens, else 1.3 x the budget
    limit_is_budget: bool = False  # the release sent no max_tokens (v0.19.0): the limit comes from the budget
    tokens_before: int | None = None
    tokens_after: int | None = None


def summary_problem(result: CompressionResult, counter: Any = None) -> SummaryProblem | None:
    """The problem with ``result``'s summary, or None when it is fine or none was written.

    Args:
        result: A ``CompressionResult``. Only ``outcome == "summarized"`` is checked (a fallback
            already says that the summarizer failed).
        counter: Counts the response's tokens (``core.tokens.TokenCounter``); cl100k_base when None.

    Empty: the summarizer's response (else the summary text) is only whitespace. Oversized: the
    response has more tokens than the call's ``max_tokens`` (v0.19.0 sends none: then 1.3 x the budget
    the prompt names, what the earlier releases capped it at), or the compression grew the
    conversation (more tokens after than before, by the compressor's own estimate).
    """
    assembly = result.assembly
    if result.outcome != "summarized" or assembly is None:
        return None
    call = result.summarizer_call
    response = call.response if call is not None else None
    text = response if isinstance(response, str) else (assembly.summary_text or "")
    before, after = int(result.plan.display_tokens or 0), int(assembly.tokens_after or 0)
    if not text.strip():
        return SummaryProblem(
            EMPTY,
            "the summarizer returned an empty summary, and this release counts it as a success: "
            f"the summarised middle was replaced by the handoff note alone ({before:,} → {after:,} tokens)",
            response_tokens=0,
            max_tokens=getattr(call, "max_tokens", None),
            tokens_before=before,
            tokens_after=after,
        )
    max_tokens = getattr(call, "max_tokens", None)
    budget = getattr(call, "summary_budget", None)
    from_budget = max_tokens is None and isinstance(budget, int) and budget > 0
    if from_budget:
        from core.rules import max_tokens_for_budget

        max_tokens = max_tokens_for_budget(budget)
    response_tokens = None
    if isinstance(response, str) and isinstance(max_tokens, int):
        if counter is None:
            from core.tokens import get_counter

            counter = get_counter()
        response_tokens = counter.count_text(response)
    too_long = response_tokens is not None and max_tokens is not None and response_tokens > max_tokens
    grew = after > before > 0
    if not (too_long or grew):
        return None
    reasons = []
    if too_long and from_budget:
        reasons.append(f"the summary is {response_tokens:,} tokens, more than 1.3 × the {budget:,}-token budget the "
                       f"prompt asks for ({max_tokens:,}; this release sends no max_tokens)")
    elif too_long:
        reasons.append(f"the summary is {response_tokens:,} tokens, more than the call's max_tokens of {max_tokens:,}")
    if grew:
        shown = f", savings {assembly.savings_pct:.0f} %"
        reasons.append(f"the compression grew the conversation ({before:,} → {after:,} tokens{shown})")
    return SummaryProblem(
        OVERSIZED,
        " and ".join(reasons) + "; this release counts it as a success",
        response_tokens=response_tokens,
        max_tokens=max_tokens,
        limit_is_budget=from_budget,
        tokens_before=before,
        tokens_after=after,
    )
