"""Choosing one session of a multi-session source."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.formats.messages import FieldProblem
from core.formats.model import Conversation, FormatError, SessionInfo
from core.formats.source import InputSource, JsonLines
from core.safe_text import quoted


def pick_session(infos: list[SessionInfo], requested: str | None, src: InputSource, default: str) -> str:
    """``requested`` when it names a session, ``default`` when nothing was requested."""
    if requested is None:
        return default
    ids = [info.id for info in infos]
    if str(requested) in ids:
        return str(requested)
    shown = ", ".join(quoted(i, 80) for i in ids[:20]) + (" ..." if len(ids) > 20 else "")
    raise FormatError(f"{src.name}: session {quoted(requested, 80)} not found; the file holds: {shown}")


def one_session_per_line(
    lines: JsonLines,
    src: InputSource,
    session: str | None,
    *,
    holds_session: Callable[[Any], bool],
    info_of: Callable[[int, Any], SessionInfo],
    rows_of: Callable[[Any], int],
    convert: Callable[[int, Any], Conversation],
    not_a_session: str,
    none_found: str,
) -> Conversation:
    """A JSONL input whose lines are whole sessions (eval outputs, datasets): the chosen line
    converted (the last one by default), the others listed as sessions and counted in its report,
    and lines holding no session skipped with the reason ``not_a_session``."""
    records: list[tuple[int, Any]] = []
    others: list[str] = []
    for line, record in lines.records():
        if holds_session(record):
            records.append((line, record))
        else:
            others.append(f"line {line}")
    if not records:
        raise FieldProblem(None, none_found)
    infos = [info_of(line, record) for line, record in records]
    chosen = pick_session(infos, session, src, default=infos[-1].id)
    position = [info.id for info in infos].index(chosen)
    conv = convert(*records[position])
    conv.sessions, conv.session_id = infos, chosen
    conv.warnings[:0] = lines.warnings
    conv.report.add_other_sessions(sum(rows_of(record) for i, (_, record) in enumerate(records) if i != position))
    for where in others:
        conv.report.skip(not_a_session, where)
    return conv
