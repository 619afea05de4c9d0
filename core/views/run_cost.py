"""What one compression run costs and saves in money (``core.inspections.cost`` applied to a result).

Token figures are exact tiktoken counts: the conversation before and after with the main model's
encoding, the summary prompt and the summary with the summary model's. A summary written on this
machine (the extractive summary, the local model, the fallback) costs nothing; for those runs
``if_remote`` also prices the same summary call as if the main model had written it through its
provider, which is what choosing a remote summarizer would add.

Nothing here imports Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.inspections.cost import compression_cost_report
from core.tokens import encoding_name_for_model, get_counter

__all__ = ["RunCost", "format_usd", "run_cost"]

NO_MODEL = "(no model chosen)"


@dataclass
class RunCost:
    """The cost report of one run (``compression_cost_report``'s dict) and what it is based on."""

    model: str
    report: dict[str, Any]
    remote_summary: bool  # the summary call went to a provider
    summary_prompt_tokens: int
    summary_output_tokens: int
    if_remote: dict[str, Any] | None = None  # local summaries: the same call priced for the main model

    @property
    def priced(self) -> bool:
        """The main model has a price (requests before and after can be compared)."""
        return self.report["cost_per_request_before"] is not None

    @property
    def model_label(self) -> str:
        return self.model or NO_MODEL


def _answered_call(result: Any) -> Any:
    """The summary call that produced the summary (None when no call returned one)."""
    for call in reversed(getattr(result, "summarizer_calls", None) or []):
        if call.response is not None and not call.error:
            return call
    return None


def run_cost(
    original: Sequence[Any],
    result: Any,
    *,
    model: str,
    remote_summary: bool,
    summary_model: str | None = None,
) -> RunCost:
    """The money figures of ``result`` (a ``CompressionResult`` of ``original``).

    ``model`` is the main model (requests before and after), ``summary_model`` the model that
    wrote the summary when ``remote_summary`` (the main model when None).
    """
    main_counter = get_counter(encoding_name_for_model(model))
    tokens_before = main_counter.count_messages(list(original))
    tokens_after = main_counter.count_messages(list(result.messages))
    writer = (summary_model or model) if remote_summary else model
    call = _answered_call(result)
    prompt_tokens = output_tokens = 0
    if call is not None:
        writer_counter = get_counter(encoding_name_for_model(writer))
        prompt_tokens = writer_counter.count_text(call.prompt)
        output_tokens = writer_counter.count_text(call.response or "")
    priced_model = model or NO_MODEL
    if remote_summary:
        report = compression_cost_report(
            priced_model, tokens_before, tokens_after, prompt_tokens, output_tokens,
            summary_model=(summary_model or None) if summary_model != model else None,
        )
        return RunCost(model, report, True, prompt_tokens, output_tokens)
    report = compression_cost_report(priced_model, tokens_before, tokens_after, 0, 0)
    if_remote = (
        compression_cost_report(priced_model, tokens_before, tokens_after, prompt_tokens, output_tokens)
        if call is not None
        else None
    )
    return RunCost(model, report, False, prompt_tokens, output_tokens, if_remote)


def format_usd(value: float | None) -> str:
    """``$1,234.5678``; amounts under a cent with six decimals (``$0.000312``); "—" when unknown."""
    if value is None:
        return "—"
    if abs(value) < 0.01:
        return f"${value:,.6f}"
    return f"${value:,.4f}"
