"""OpenClaw sessions (``~/.openclaw/agents/<agent>/sessions/<id>.jsonl``, formerly ``~/.clawdbot``).

OpenClaw runs pi's agent and session manager, so its session files are pi's (read by
:mod:`core.formats.pi_session`, branches and compactions included) with entries of its own:
``custom`` rows such as ``model-snapshot`` and ``openclaw:*`` (bootstrap context, prompt errors,
cache markers; never sent to the model, so metadata named after their type) and
``custom_message`` rows such as ``openclaw.runtime-context`` (sent as user messages). A file is
taken as OpenClaw's when its first entries show one of these, or its working directory is under
``.openclaw`` / ``.clawdbot``; otherwise the same file reads as ``pi``, with the same result.

Next to each session OpenClaw writes ``<id>.trajectory.jsonl``: timing events of each run
(``session.started``, ``context.compiled``, ``prompt.submitted``, ``model.completed``,
``session.ended``) keyed by ``runId``. They describe the runtime, not the conversation, and are
refused with an error that points to the session file.
"""

from __future__ import annotations

from typing import Any

from core.formats import pi_session
from core.formats.messages import FieldProblem, quoted
from core.formats.model import Conversation
from core.formats.source import InputSource, JsonLines
from core.formats.spec import FormatSpec

NAME = "openclaw"
TRAJECTORY_TYPES = frozenset({
    "session.started", "context.compiled", "prompt.submitted", "model.completed", "session.ended", "trace.artifacts",
    "model.step.started", "model.request", "model.response", "tool.call", "tool.result",
})
HOMES = ("/.openclaw/", "/.clawdbot/", "\\.openclaw\\", "\\.clawdbot\\")


def _openclaw_custom(record: dict[str, Any]) -> bool:
    kind = record.get("customType")
    return isinstance(kind, str) and (kind == "model-snapshot" or kind.startswith("openclaw"))


def _is_trajectory(record: Any) -> bool:
    return isinstance(record, dict) and (
        record.get("traceSchema") == "openclaw-trajectory"
        or (isinstance(record.get("type"), str) and record["type"] in TRAJECTORY_TYPES
            and ("runId" in record or "ts" in record))
    )


def looks_like(records: list[tuple[int, Any]]) -> bool:
    dicts = [record for _, record in records if isinstance(record, dict)]
    if dicts and sum(1 for r in dicts if _is_trajectory(r)) * 2 >= len(dicts):
        return True
    if not pi_session.looks_like(records):
        return False
    header = dicts[0] if pi_session.is_header(dicts[0]) else {}
    cwd = header.get("cwd")
    if isinstance(cwd, str) and any(home in cwd for home in HOMES):
        return True
    for record in dicts:
        if record.get("type") in ("custom", "custom_message") and _openclaw_custom(record):
            return True
        message = record.get("message")
        if isinstance(message, dict) and ("provenance" in message or message.get("model") == "delivery-mirror"):
            return True
    return False


def is_index(doc: Any) -> bool:
    """OpenClaw's ``sessions.json``: session keys mapped to entries that name their transcript."""
    entries = list(doc.values())[:20] if isinstance(doc, dict) else []
    return bool(entries) and all(
        isinstance(entry, dict) and isinstance(entry.get("sessionId"), str)
        and ("sessionFile" in entry or "updatedAt" in entry)
        for entry in entries
    )


def parse_index(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if not is_index(doc):  # a JSON document read as OpenClaw (a forced format): neither form it writes
        raise FieldProblem(None, "this JSON document is neither an OpenClaw session nor its index; expected a session "
                                 "transcript (JSON Lines, one row per line) or sessions.json (session keys mapped "
                                 "to entries with a sessionId)")
    first = next(iter(doc.values()))
    raise FieldProblem(
        None,
        f"this is OpenClaw's session index (sessions.json: {len(doc)} sessions keyed like {quoted(next(iter(doc)), 40)}, "
        "each naming its transcript); it holds no messages. Expected one session transcript, "
        f"~/.openclaw/agents/<agent>/sessions/<sessionId>.jsonl (for example {first['sessionId']}.jsonl)",
    )


def _label(entry: dict[str, Any]) -> str | None:
    kind = entry.get("customType")
    if kind == "model-snapshot":
        return "model snapshots (the model of each run)"
    if isinstance(kind, str) and kind.startswith("openclaw"):
        return f"OpenClaw state rows ({kind.split(':')[0].split('.')[0]}:*; never sent to the model)"
    return None


def parse_records(lines: JsonLines, src: InputSource, session: str | None) -> Conversation:
    head = [record for _, record in lines.head() if isinstance(record, dict)]
    if head and sum(1 for r in head if _is_trajectory(r)) * 2 >= len(head):
        raise FieldProblem(
            None,
            "this is an OpenClaw trajectory file (run timing events: session.started, context.compiled, "
            "model.completed ...): a runtime trace, not a conversation; expected the session transcript "
            "<session id>.jsonl next to it",
        )
    return pi_session.read_session(lines, src, session, NAME, _label)


FORMAT = FormatSpec(
    name=NAME,
    description="OpenClaw sessions (~/.openclaw/agents/*/sessions/*.jsonl)",
    detect_records=looks_like,
    parse_records=parse_records,
    detect_document=is_index,
    parse_document=parse_index,
)
