"""Keys written so that a pattern does not see them: with invisible characters inside, in full-width
or mathematical letters, or as JSON ``\\uXXXX`` escapes.

``sk-pro\\u200bj-...`` (a zero-width space in the key), ``ＡＫＩＡ...`` (full-width) and ``𝐬𝐤-...``
(mathematical bold) read as the key to a person and to a model, but not to a pattern written for
ASCII; a tool argument serialised with ASCII escapes holds ``contrase\\u00f1a`` where the text said
"contraseña". :func:`fold` gives the text as the detectors should read it (non-ASCII escapes
decoded, invisible characters removed, compatibility forms of ASCII letters, digits and punctuation
replaced by them) with a map back to the original positions, so a span found in the folded text
masks the original characters, the invisible ones and the escapes inside it included. A text
without any of these is not copied at all.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

# Invisible characters: zero-width space, non-joiner and joiner, word joiner, invisible operators,
# byte-order mark, soft hyphen, Mongolian vowel separator.
_INVISIBLE = "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"
# Blocks whose compatibility forms are ASCII: full-width forms, mathematical alphanumerics and the
# ideographic space (enclosed and superscript digits are not how a key is disguised).
_COMPATIBILITY_BLOCKS = ((0xFF01, 0xFF5E), (0x1D400, 0x1D7FF), (0x3000, 0x3000))
# A JSON escape of a non-ASCII character (any number of backslashes: JSON escaped inside JSON),
# a surrogate pair taken as one.
# It starts at the first backslash of a run only, so a long run of backslashes is read once.
# After the first backslash of a run (not after another backslash): more backslashes, u and the hex
# of a character (a surrogate pair's two halves together).
_ESCAPE_REST = (r"(?<!\\\\)\\*+u(?:[dD][89abAB][0-9a-fA-F]{2}\\++u[dD][c-fC-F][0-9a-fA-F]{2}"
                r"|(?!00[0-7])[0-9a-fA-F]{4})")
_HEX_RE = re.compile(r"[0-9a-fA-F]{4}")


@lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    table = dict.fromkeys(_INVISIBLE, "")
    for low, high in _COMPATIBILITY_BLOCKS:
        for code in range(low, high + 1):
            char = chr(code)
            folded = unicodedata.normalize("NFKC", char)
            if folded != char and len(folded) == 1 and folded.isascii():
                table[char] = folded
    return table


@lru_cache(maxsize=1)
def _foldable() -> re.Pattern[str]:
    # The characters as ranges of consecutive code points: a class of 800 single characters (astral
    # ones among them) is tested one by one at every position (1 µs a character); ranges are not.
    codes = sorted(ord(char) for char in _table())
    ranges: list[tuple[int, int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    spans = "".join(re.escape(chr(low)) + (f"-{re.escape(chr(high))}" if high > low else "") for low, high in ranges)
    # The class and the backslash in one set, so the engine scans for the set's characters (an
    # alternation starting with a look-behind is tried at every position, twice as slow); a matched
    # backslash must then start an escape.
    return re.compile(f"[{spans}\\\\](?:(?<!\\\\)|{_ESCAPE_REST})")


def _decoded(escape: str) -> str | None:
    """The character a ``\\uXXXX`` escape (or a pair of them) stands for; None for a lone surrogate."""
    codes = [int(hex_digits, 16) for hex_digits in _HEX_RE.findall(escape.replace("\\", "").replace("u", " "))]
    if len(codes) == 2:
        return chr(0x10000 + ((codes[0] - 0xD800) << 10) + (codes[1] - 0xDC00))
    if 0xD800 <= codes[0] <= 0xDFFF:
        return None
    return chr(codes[0])


def audited_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    """The pattern built at run time, for ``core.pattern_audit``."""
    yield f"{__name__}._foldable()", _foldable()


@dataclass(frozen=True)
class Folded:
    """A folded text and where its characters came from.

    ``_anchors`` are ``(folded position, original position)`` pairs, sorted, at every place the
    offset between the two texts changes; between two anchors the texts run in step.
    """

    text: str
    _folded_at: tuple[int, ...]
    _original_at: tuple[int, ...]

    def original(self, position: int) -> int:
        """The original position of the folded character at ``position`` (or of the end)."""
        index = bisect.bisect_right(self._folded_at, position) - 1
        if index < 0:
            return position
        return self._original_at[index] + (position - self._folded_at[index])

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of folded ``[start, end)``: from its first character's original position to
        where the character after it starts (invisible characters and escapes inside included)."""
        return self.original(start), self.original(end)


def fold(text: str) -> Folded | None:
    """``text`` as the detectors read it, or None when it holds nothing to fold."""
    if text.isascii() and "\\u" not in text:
        return None  # only an escape folds in ASCII text, and every escape ends in a backslash and "u"
    pattern = _foldable()
    first = pattern.search(text)
    if first is None:
        return None
    table = _table()
    pieces: list[str] = []
    folded_at: list[int] = []
    original_at: list[int] = []
    cursor = 0
    size = 0
    for match in pattern.finditer(text, first.start()):
        found = match.group()
        if found[0] == "\\":
            char = _decoded(found)
            if char is None:
                continue  # a lone surrogate stays as it is written
            replacement = table.get(char, char)
        else:
            replacement = table.get(found, found)
        kept = text[cursor:match.start()]
        pieces.append(kept)
        size += len(kept)
        if replacement:
            folded_at.append(size)
            original_at.append(match.start())
            pieces.append(replacement)
            size += len(replacement)
        folded_at.append(size)
        original_at.append(match.end())
        cursor = match.end()
    if not folded_at:
        return None
    pieces.append(text[cursor:])
    return Folded("".join(pieces), tuple(folded_at), tuple(original_at))
