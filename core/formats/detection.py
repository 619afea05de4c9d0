"""Which format a parsed input is in: the registry's formats are asked in order, first match wins."""

from __future__ import annotations

from typing import Any

from core.formats.registry import FORMATS


def detect_document(doc: Any) -> str | None:
    """The format of one parsed JSON document, or None."""
    for spec in FORMATS:
        if spec.detect_document is not None and spec.detect_document(doc):
            return spec.name
    return None


def detect_records(records: list[tuple[int, Any]]) -> str | None:
    """The format of a JSONL input, from its first ``(line, value)`` records, or None."""
    for spec in FORMATS:
        if spec.detect_records is not None and spec.detect_records(records):
            return spec.name
    return None


def detect_text(head: str) -> str | None:
    """The format of a text input that is not JSON, from its start, or None."""
    for spec in FORMATS:
        if spec.detect_text is not None and spec.detect_text(head):
            return spec.name
    return None
