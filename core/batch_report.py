"""A batch report: its columns, the rows as a DataFrame, the file written and the corpus totals."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from core.batch_files import BatchError
from core.unicode_text import replace_lone_surrogates

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CONTEXT_KEYS", "SAVING_STEPS", "REPORT_COLUMNS", "TIMING_COLUMNS", "iter_errors", "report_frame", "summary_stats", "write_report"]

# Steps of ``core.views.savings`` reported as their own column, in pipeline order.
SAVING_STEPS: tuple[str, ...] = (
    "dedup",
    "one_liners",
    "args",
    "tool_images",
    "summary",
    "repair",
    "historical_images",
)

#: The ``context`` entry of ``analyze --json`` (``Conversation.context_report``) a row carries, each as a
#: ``context_<key>`` column: which part of a log the agent compacted the row describes.
CONTEXT_KEYS: tuple[str, ...] = (
    "shown", "compaction_at", "compaction_kind", "messages_before_compaction", "full_history_messages")

#: Columns of a batch report, with their pandas dtypes (nullable, so error rows hold NA).
REPORT_COLUMNS: dict[str, str] = {
    "file": "string",
    "session": "string",
    "format": "string",
    "model": "string",
    "context_shown": "string",
    "context_compaction_at": "Int64",
    "context_compaction_kind": "string",
    "context_messages_before_compaction": "Int64",
    "context_full_history_messages": "Int64",
    "profile": "string",
    "messages": "Int64",
    "exact_tokens": "Int64",
    "hermes_tokens": "Int64",
    # The whole request (core.inspections.request), exact tokens: its total, the part the log's recorded
    # usage implies beyond what was counted, and the last recorded prompt size (NA when none).
    "request_tokens": "Int64",
    "unrecorded_overhead": "Int64",
    "recorded_last_prompt": "Int64",
    "output_reserve": "Int64",
    "threshold_tokens": "Int64",
    "would_compress": "boolean",
    "head": "Int64",
    "middle": "Int64",
    "tail": "Int64",
    "outcome": "string",
    "fallback_used": "boolean",
    # "configured", "authentication" or "network" (v0.18.0) when the compression aborted.
    "abort_reason": "string",
    # "empty" or "oversized": a summary the profile counts as a success but should not be trusted.
    "summary_problem": "string",
    **{f"saved_{step}": "Int64" for step in SAVING_STEPS},
    "saved_phase1": "Int64",
    "saved_total": "Int64",
    "tokens_after": "Int64",
    "savings_pct": "Float64",
    "hermes_tokens_after": "Int64",
    "hermes_savings_pct": "Float64",
    "facts": "Int64",
    "facts_kept": "Int64",
    "fact_retention": "Float64",
    "middle_facts": "Int64",
    "middle_facts_kept": "Int64",
    "middle_fact_retention": "Float64",
    "valid": "boolean",
    "valid_anthropic": "boolean",
    "input_valid": "boolean",
    "input_valid_anthropic": "boolean",
    "problems": "Int64",
    "first_problem": "string",
    "warnings": "Int64",
    "error": "string",
    "seconds": "Float64",
}
#: Columns that depend on timing, not on the input (ignored when comparing engines).
TIMING_COLUMNS: tuple[str, ...] = ("seconds",)


def report_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The rows as a DataFrame with the report's columns and nullable dtypes."""
    import pandas as pd

    text_columns = [name for name, dtype in REPORT_COLUMNS.items() if dtype == "string"]
    cleaned = [{**row, **{c: _storable(row.get(c)) for c in text_columns}} for row in rows]
    frame = pd.DataFrame(cleaned, columns=list(REPORT_COLUMNS))
    return frame.astype(REPORT_COLUMNS)


def _storable(value: Any) -> Any:
    """Text Arrow can store: lone surrogates (undecodable file names, damaged input) become U+FFFD."""
    return replace_lone_surrogates(value) if isinstance(value, str) else value


def write_report(frame: pd.DataFrame, output: str) -> str:
    """Write the report as Parquet or CSV, chosen by the file's extension; returns the format.

    Written atomically: a failure half-way leaves an existing report as it was.
    """
    from core.atomic_files import write_atomically

    lower = output.lower()
    if lower.endswith(".parquet"):
        write_atomically(output, lambda path: frame.to_parquet(path, index=False))
        return "parquet"
    if lower.endswith(".csv"):
        write_atomically(output, lambda path: frame.to_csv(path, index=False))
        return "csv"
    raise BatchError(f"{output}: the report must end in .parquet or .csv")


def summary_stats(frame: pd.DataFrame) -> dict[str, Any]:
    """Corpus totals for the end-of-batch message (and ``batch --json``)."""
    ok = frame[frame["error"].isna()]
    files = frame["file"].nunique()
    failed_files = frame.loc[frame["error"].notna(), "file"].nunique()

    def mean(column: str) -> float | None:
        values = ok[column].dropna()
        return round(float(values.mean()), 4) if len(values) else None

    return {
        "files": int(files),
        "rows": len(frame),
        "failed_files": int(failed_files),
        "would_compress": int(ok["would_compress"].fillna(False).sum()),
        "exact_tokens": int(ok["exact_tokens"].fillna(0).sum()),
        "saved_total": int(ok["saved_total"].fillna(0).sum()),
        "mean_savings_pct": mean("savings_pct"),
        "mean_fact_retention": mean("fact_retention"),
        "invalid": int((ok["valid"] == False).sum()),  # noqa: E712 (nullable boolean)
        "suspect_summaries": int(ok["summary_problem"].notna().sum()),
        "after_compaction": int((ok["context_shown"] == "after_last_compaction").fillna(False).sum()),
    }


def iter_errors(frame: pd.DataFrame) -> Iterator[str]:
    for value in frame["error"].dropna():
        yield str(value)
