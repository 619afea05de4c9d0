"""Pi coding agent sessions (``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``).

The reading is :mod:`core.formats.pi_session`'s (OpenClaw writes the same lines and has a format of
its own, :mod:`core.formats.openclaw`, for its extra entries and its trace files).
"""

from __future__ import annotations

from core.formats import pi_session
from core.formats.model import Conversation
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec

NAME = "pi"


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    return pi_session.read_session(lines, src, session, NAME)


FORMAT = FormatSpec(
    name=NAME,
    description="Pi coding agent sessions (~/.pi/agent/sessions/*/*.jsonl)",
    detect_records=pi_session.looks_like,
    parse_records=parse_records,
)
