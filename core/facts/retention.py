"""Retention: which facts a summary (or a compressed conversation) keeps verbatim.

A summary *retains* a fact when the fact's value appears in it verbatim. This needs no model, so it
scores any summary (an LLM's, the extractive one, the deterministic fallback) the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.facts.extract import FACT_KINDS
from core.facts.search import found_in
from core.facts.text import searchable_text

if TYPE_CHECKING:  # imported where used: the Hermes plugin imports core.facts without pandas
    import pandas as pd


def retention(facts: pd.DataFrame, text_or_messages: str | Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """A copy of ``facts`` with a boolean ``kept`` column: whether each value appears verbatim in
    the text (or in ``searchable_text`` of the given messages)."""
    import pandas as pd

    if not isinstance(facts, pd.DataFrame) or "value" not in facts.columns:
        raise TypeError("facts must be a DataFrame with a 'value' column (as returned by extract_facts)")
    if isinstance(text_or_messages, str):
        haystack = text_or_messages
    else:
        haystack = searchable_text(text_or_messages)
    result = facts.copy()
    result["kept"] = found_in(list(facts["value"]), haystack)
    result["kept"] = result["kept"].astype(bool)
    return result


def _check_scored(df: Any) -> None:
    import pandas as pd

    if not isinstance(df, pd.DataFrame) or "kept" not in df.columns:
        raise TypeError("expected a DataFrame with a 'kept' column (as returned by retention)")


def retention_score(df: pd.DataFrame) -> float:
    """The fraction of facts kept; 1.0 when there are no facts (nothing was lost)."""
    _check_scored(df)
    if len(df) == 0:
        return 1.0
    return float(df["kept"].astype(bool).mean())


def retention_by_kind(df: pd.DataFrame) -> pd.DataFrame:
    """Per kind (in ``FACT_KINDS`` order, kinds without facts omitted): ``kind``, ``total``,
    ``kept`` and ``score``."""
    _check_scored(df)
    records: list[dict[str, Any]] = []
    kinds: Iterable[str] = [kind for kind in FACT_KINDS if kind in set(df["kind"])]
    kinds = list(kinds) + sorted(set(df["kind"]) - set(FACT_KINDS))
    for kind in kinds:
        kept_flags = df.loc[df["kind"] == kind, "kept"].astype(bool)
        total = int(kept_flags.size)
        kept = int(kept_flags.sum())
        records.append({"kind": kind, "total": total, "kept": kept, "score": kept / total})
    import pandas as pd

    return pd.DataFrame(records, columns=["kind", "total", "kept", "score"])
