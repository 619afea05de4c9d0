"""Token counting: the summary's size is measured with tiktoken ``cl100k_base``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _encoding() -> Any:
    from core.tokens import ensure_tiktoken_cache

    ensure_tiktoken_cache()
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    """Tokens of ``text`` with ``cl100k_base``."""
    return len(_encoding().encode_ordinary(text)) if text else 0
