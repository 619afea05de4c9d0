"""What every detector family shares: the span and mask types, and the tests of a value's shape."""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

PRIVATE_KEY_MASK = "[REDACTED PRIVATE KEY]"
MASK_FLOOR = 18
# The longest value a label, a flag or a header is read for (a longer run is not one value).
MAX_VALUE = 600


@dataclass(frozen=True)
class SecretSpan:
    """One masked value: ``text[start:end]`` is replaced by ``masked``.

    ``find_secrets`` reports positions in its input; ``redact_with_spans`` reports positions in the
    redacted output, where ``output[start:end] == masked``.
    """

    start: int
    end: int
    kind: str
    masked: str


def mask_value(value: str, kind: str = "") -> str:
    """The replacement for one secret value (same shape as the reference's masks)."""
    if kind == "private-key":
        return PRIVATE_KEY_MASK
    if len(value) < MASK_FLOOR:
        return "***"
    return f"{value[:6]}...{value[-4:]}"


_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-]")
# ASCII-only lowering keeps every index, so case-insensitive searches can run case-sensitively on the
# copy (much faster: the regex engine then skips ahead to literal prefixes).
ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_MASKED_VALUE_RE = re.compile(r"^(?:\S{0,6}\.\.\.\S{0,4}|\[REDACTED[^\]]*\])$")


def is_masked(value: str) -> bool:
    return "***" in value or bool(_MASKED_VALUE_RE.match(value.strip("`'\".,;:)]}")))


def boundary_before(text: str, pos: int) -> bool:
    """No token character right before ``pos``; an escape such as ``\\n`` also counts as a boundary."""
    if pos == 0 or not _TOKEN_CHAR.match(text[pos - 1]):
        return True
    return pos >= 2 and text[pos - 2] == "\\" and text[pos - 1] in "nrt"


def boundary_after(text: str, pos: int) -> bool:
    return pos >= len(text) or not _TOKEN_CHAR.match(text[pos])


def after_space(text: str, pos: int) -> bool:
    """A command-line flag starts the text or follows whitespace or an opening quote."""
    return pos == 0 or text[pos - 1] in " \t\r\n\"'"


@lru_cache(maxsize=1)
def entropy_plugins() -> tuple[Any, Any]:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString

    return Base64HighEntropyString(), HexHighEntropyString()


@lru_cache(maxsize=1)
def heuristic_filters() -> tuple[Any, Any, Any]:
    from detect_secrets.filters.heuristic import (
        is_prefixed_with_dollar_sign,
        is_sequential_string,
        is_templated_secret,
    )

    return is_templated_secret, is_prefixed_with_dollar_sign, is_sequential_string


HEX_RE = re.compile(r"^[0-9a-fA-F]+$")
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_RANDOM_CHARS_RE = re.compile(r"^[A-Za-z0-9+/=_\-.~%:]+$")
_WORDY_RE = re.compile(r"^[A-Za-z]+(?:[_\-./][A-Za-z]+)*[_\-./]?$")
_FILE_EXTENSION_END_RE = re.compile(r"\.[A-Za-z]{1,5}\Z")


def looks_random(value: str, min_len: int = 16) -> bool:
    """A machine-generated value: long, mixed character classes, high Shannon entropy."""
    if len(value) < min_len or not _RANDOM_CHARS_RE.match(value) or _WORDY_RE.match(value):
        return False
    if "/" in value and value.count("/") >= 2 and _FILE_EXTENSION_END_RE.search(value):
        return False  # a path ending in a file extension
    if heuristic_filters()[2](value):
        return False
    base64_plugin, hex_plugin = entropy_plugins()
    if HEX_RE.match(value):
        has_letter = any(c.isalpha() for c in value)
        return len(value) >= 20 and has_letter and hex_plugin.calculate_shannon_entropy(value) >= 2.9
    classes = sum(
        (any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value))
    )
    if classes < 2:
        return False
    threshold = min(4.3, 0.8 * math.log2(len(value)))
    return base64_plugin.calculate_shannon_entropy(value) >= threshold


_SYMBOL_RE = re.compile(r"[^A-Za-z0-9]")
_HYPHENATED_WORDS_RE = re.compile(r"\A[a-z]++(?:-[a-z]++)+\Z")


def secretish(value: str) -> bool:
    """Not a plain word: letters with digits or symbols, or mixed case inside the word."""
    core = value.rstrip(".!?")
    has_letter = any(c.isalpha() for c in core)
    has_digit = any(c.isdigit() for c in core)
    has_symbol = bool(_SYMBOL_RE.search(core.replace("-", "").replace("_", "")))
    mixed_case = any(c.isupper() for c in core[1:]) and any(c.islower() for c in core)
    if not has_letter:
        return False
    if _HYPHENATED_WORDS_RE.fullmatch(core):
        return False  # hyphenated English ("case-sensitive")
    return has_digit or has_symbol or mixed_case


def is_placeholder(value: str) -> bool:
    is_templated_secret, is_prefixed_with_dollar_sign, _ = heuristic_filters()
    return (
        is_templated_secret(value)
        or is_prefixed_with_dollar_sign(value)
        or "{{" in value
        or "${" in value
        or "%s" in value
        or "%(" in value
        or value.startswith(("<", "{", "[", "process.env", "os.environ"))
    )


# A name of letters and underscores, or a snake_case name with digits (one "_" at least). Possessive
# and checked ahead, so a long run of underscores is scanned once, not once per split point.
_CODE_IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z_]*+$|^[a-z_](?=[a-z0-9]*+_)[a-z0-9_]*+$")


def is_identifier(value: str) -> bool:
    """A name in code (``api_key``, ``ClientSecret``, ``auth_token2``) rather than a machine-made value."""
    return bool(_CODE_IDENTIFIER_RE.match(value)) and not looks_random(value)
