"""Exact token counts made ahead of time, by encoding and text digest.

Bundled content (the dashboard's default sample) ships the counts its first page makes, so that page
does not wait for an encoding's files to be read (about 0.4 s for o200k_base): a counter
(``core.tokens.TokenCounter``) answers from these tables before it encodes anything. A table is
trusted as made with its encoding; its maker checks it is current (``sample_conversations/
first_page_counts.py --check``).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping

__all__ = ["add_known_counts", "known_counts", "text_digest"]

_KNOWN: dict[str, dict[str, int]] = {}
_LOCK = threading.Lock()


def text_digest(text: str) -> str:
    """The key of ``text`` in a table of known counts."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def add_known_counts(encoding_name: str, counts: Mapping[str, int]) -> None:
    """Known exact counts with ``encoding_name``: ``{text_digest(text): tokens}``, made with that encoding."""
    with _LOCK:
        _KNOWN[encoding_name] = {**_KNOWN.get(encoding_name, {}), **counts}


def known_counts(encoding_name: str) -> Mapping[str, int]:
    """The known counts with ``encoding_name`` (empty when there are none)."""
    return _KNOWN.get(encoding_name, {})
