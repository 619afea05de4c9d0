"""SWE-agent trajectories (``.traj``): the ``history`` list is what the model saw.

History entries are OpenAI-shaped (``role``, ``content``, ``tool_calls``) with SWE-agent's own
keys (``message_type``, ``agent``, ``thought``, ``action``, ``tool_call_ids``, ``is_demo``...);
a ``tool`` entry names its call through ``tool_call_ids``. Demonstration entries are kept.
"""

from __future__ import annotations

import json
from typing import Any

from core.formats.messages import Builder, FieldProblem, kind_of
from core.formats.model import Conversation
from core.formats.openai_chat import MessageNormalizer
from core.formats.source import InputSource
from core.formats.spec import FormatSpec

NAME = "swe-agent"


def looks_like(doc: Any) -> bool:
    if not isinstance(doc, dict):
        return False
    history = doc.get("history")
    trajectory = doc.get("trajectory")
    if isinstance(history, list) and any(isinstance(h, dict) and "role" in h for h in history[:20]):
        return "trajectory" in doc or "info" in doc or any(
            isinstance(h, dict) and ("message_type" in h or "agent" in h) for h in history[:20]
        )
    return isinstance(trajectory, list) and any(
        isinstance(step, dict) and "action" in step and "observation" in step for step in trajectory[:20]
    )


def _model_name(doc: dict[str, Any]) -> str | None:
    config = doc.get("replay_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            config = None
    if isinstance(config, dict):
        model = (config.get("agent") or {}).get("model") if isinstance(config.get("agent"), dict) else None
        if isinstance(model, dict) and isinstance(model.get("name"), str):
            return model["name"]
    return None


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if not isinstance(doc, dict):
        raise FieldProblem(None, f"expected a SWE-agent trajectory object, got {kind_of(doc)}")
    history = doc.get("history")
    if not isinstance(history, list) or not history:
        raise FieldProblem("history", "expected the non-empty 'history' list of the trajectory")
    builder = Builder(NAME, src.name, unit="history entry")
    normalizer = MessageNormalizer(builder)
    demos = 0
    for index, entry in enumerate(history):
        where = f"history[{index}]"
        if not isinstance(entry, dict):
            raise FieldProblem(where, f"expected a message object, got {kind_of(entry)}")
        clean = {key: entry[key] for key in ("role", "content", "tool_calls", "name") if key in entry}
        if entry.get("role") == "tool":
            ids = entry.get("tool_call_ids") or ([entry["tool_call_id"]] if entry.get("tool_call_id") else [])
            if not isinstance(ids, list):
                ids = [ids] if isinstance(ids, (str, int)) else []
            if not ids:
                raise FieldProblem(f"{where}.tool_call_ids", "expected the id of the call this tool output answers")
            clean["tool_call_id"] = ids[0]
        if entry.get("role") == "assistant" and isinstance(entry.get("thought"), str) and not clean.get("content"):
            clean["content"] = entry["thought"]
        demos += bool(entry.get("is_demo"))
        normalizer.add(clean, where)
        builder.tally.place(index)
    normalizer.finish()
    if demos:
        builder.metadata["demonstration_messages"] = demos
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    for key in ("exit_status", "model_stats"):
        if key in info:
            builder.metadata[key] = info[key]
    return builder.build(model=_model_name(doc))


FORMAT = FormatSpec(
    name=NAME,
    description="SWE-agent trajectories (.traj)",
    detect_document=looks_like,
    parse_document=parse_document,
)
