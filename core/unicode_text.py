"""Text that can be encoded: lone UTF-16 surrogates replaced.

A lone surrogate (``"\\ud800"`` in JSON, or a file name Python decoded with ``surrogateescape``)
is a valid Python ``str`` but not UTF-8: an HTTP request body, an Arrow column or a terminal
refuses it. The importer already replaces the ones it reads; this is for text that arrives by
another way (raw dicts passed to the library, arguments parsed out of a tool call).
"""

from __future__ import annotations

import re

# Every code point U+D800-U+DFFF: in a Python str a surrogate is always "lone" (a proper pair is
# one character outside the BMP), so each one is replaced.
_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def has_lone_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (same length; unchanged when there is none)."""
    if not has_lone_surrogates(text):
        return text
    return _SURROGATE.sub(REPLACEMENT, text)
