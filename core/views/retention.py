"""Fact retention of one compaction: which identifiers of the compacted part survive verbatim.

``core.facts`` extracts facts (paths, commands, errors, URLs, quantities, identifiers, issue
numbers, the latest user request) and scores verbatim retention. This module applies it to *part*
of a conversation without re-extracting per run: the facts of the whole conversation are extracted
once (:class:`FactIndex`), each fact is located in every message that contains it, and the facts of
a part are the facts found in that part's messages, plus the part's own latest user request (as
``extract_facts`` of the part alone would report it). Values that are
credentials are never facts here (``core.facts.credentials``): a summary that masks a secret has
not lost anything, and no table shows the secret.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from core.facts import (
    FACT_KINDS,
    extract_facts,
    facts_frame,
    latest_request,
    message_text,
    retention,
    retention_score,
    searchable_text,
)
from core.facts.search import occurrences

__all__ = ["FactIndex", "lost_facts", "retention_summary"]

FACT_TABLE_COLUMNS = ["kind", "value", "message_index"]


class FactIndex:
    """The facts of a conversation and, for each, the messages that contain it verbatim."""

    def __init__(self, messages: Sequence[Mapping[str, Any]]) -> None:
        self.messages = list(messages)
        facts = extract_facts(self.messages)
        self.facts = facts[facts["kind"] != "user_request"].reset_index(drop=True)
        self._texts = [message_text(message) for message in self.messages]
        self.occurrences: list[list[int]] = occurrences(list(self.facts["value"]), self._texts)
        # A run's output carries most messages over as the very objects given here: their text is known.
        self._positions = {id(message): index for index, message in enumerate(self.messages)}

    def facts_in(self, indices: Iterable[int]) -> pd.DataFrame:
        """The facts of ``messages[i] for i in indices``: ``kind``, ``value``, ``message_index`` (the
        first of those messages containing it), ordered like ``extract_facts``."""
        chosen = sorted(set(indices))
        wanted = set(chosen)
        rows: list[tuple[int, int, int, str, str]] = []
        rank = {kind: position for position, kind in enumerate(FACT_KINDS)}
        for serial, (kind, value, where) in enumerate(
            zip(self.facts["kind"], self.facts["value"], self.occurrences, strict=True)
        ):
            inside = [index for index in where if index in wanted]
            if inside:
                rows.append((inside[0], rank.get(kind, len(rank)), serial, kind, value))
        request = latest_request([self.messages[index] for index in chosen])
        if request is not None:
            rows.append((chosen[request[0]], rank["user_request"], -1, "user_request", request[1]))
        rows.sort()
        return facts_frame((kind, value, index) for index, _rank, _serial, kind, value in rows)

    def retention_of(self, indices: Iterable[int], output: Sequence[Mapping[str, Any]] | str) -> pd.DataFrame:
        """The facts of the part with ``kept``: does each appear verbatim in ``output``?"""
        haystack = output if isinstance(output, str) else searchable_text(output, self._text_of)
        return retention(self.facts_in(indices), haystack)

    def _text_of(self, message: Mapping[str, Any]) -> str:
        """``message_text(message)``, read from the one made here for a message carried over unchanged
        (the same object: ``self.messages`` keeps each alive, so no other object has its id)."""
        position = self._positions.get(id(message))
        return self._texts[position] if position is not None else message_text(message)

    def retention_all(self, output: Sequence[Mapping[str, Any]] | str) -> pd.DataFrame:
        """Every fact of the conversation (same denominator for every run) with ``kept``."""
        return self.retention_of(range(len(self.messages)), output)


def retention_summary(scored: pd.DataFrame) -> dict[str, Any]:
    """``total``, ``kept``, ``lost`` and ``score`` (1.0 when there is nothing to keep)."""
    total = int(len(scored))
    kept = int(scored["kept"].astype(bool).sum()) if total else 0
    return {"total": total, "kept": kept, "lost": total - kept, "score": retention_score(scored)}


def lost_facts(scored: pd.DataFrame) -> pd.DataFrame:
    """The facts that did not survive verbatim (``kind``, ``value``, ``message_index``)."""
    lost = scored[~scored["kept"].astype(bool)]
    return lost[FACT_TABLE_COLUMNS].reset_index(drop=True)


