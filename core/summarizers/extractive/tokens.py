"""Token counting: the summary's size is measured with tiktoken ``cl100k_base``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from core.remembered import recall

_RULE = "extractive-cl100k-tokens"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    from core.tokens import ensure_tiktoken_cache

    ensure_tiktoken_cache()
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def _count(text: str) -> int:
    return len(_encoding().encode_ordinary(text))


def count_tokens(text: str) -> int:
    """Tokens of ``text`` with ``cl100k_base`` (remembered within a transcript's scope: every
    compression of it weighs the same candidate lines)."""
    return recall(_RULE, text, _count) if text else 0
