"""Choosing one session of a multi-session source."""

from __future__ import annotations

from core.formats.model import FormatError, SessionInfo
from core.formats.source import InputSource


def pick_session(infos: list[SessionInfo], requested: str | None, src: InputSource, default: str) -> str:
    """``requested`` when it names a session, ``default`` when nothing was requested."""
    if requested is None:
        return default
    ids = [info.id for info in infos]
    if str(requested) in ids:
        return str(requested)
    shown = ", ".join(repr(i) for i in ids[:20]) + (" ..." if len(ids) > 20 else "")
    raise FormatError(f"{src.name}: session {requested!r} not found; the file holds: {shown}")
