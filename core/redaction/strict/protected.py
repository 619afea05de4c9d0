"""Regions of a text that are never masked: base64 data URLs and content hashes.

An image embedded as a data URL is a long random-looking run, and so is a lock file's checksum;
neither is a credential, whatever words stand next to it.
"""

from __future__ import annotations

import re

_DATA_URL_RE = re.compile(r"data:[\w.+-]{1,60}/[\w.+-]{1,60}(?:;[\w.+-]{1,60}=[\w.+-]{1,60})*;base64,[A-Za-z0-9+/=]*")
# content hashes in lock files, image digests and checksums (run on the lowered copy)
_HASH_RE = re.compile(r"(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?|h1)[-:=][ \t]*[a-z0-9+/=_-]{16,}")


def protected_regions(text: str, low: str) -> tuple[tuple[int, int], ...]:
    """Spans that are never masked, sorted and merged."""
    regions: list[tuple[int, int]] = []
    if "base64," in text:
        regions += [m.span() for m in _DATA_URL_RE.finditer(text)]
    if "sha" in low or "md5" in low or "blake" in low or "h1:" in low:
        regions += [m.span() for m in _HASH_RE.finditer(low)]
    regions.sort()
    merged: list[tuple[int, int]] = []
    for start, end in regions:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return tuple(merged)
