"""mini-swe-agent trajectories (``*.traj.json``): ``{"info", "messages", "trajectory_format"}``.

``messages`` is the OpenAI-shaped history the model saw, each message with mini-swe-agent's own
``extra`` dict (kept out of the message; a model response's ``usage`` in it becomes the message's
usage). The run ends with a message of role ``exit`` carrying the exit status and the submission:
it is not sent to the model, so it goes to ``metadata`` (``exit_status``, ``submission``) and the
load report counts it as metadata. A message of any other unknown role, or one that cannot be
read, is skipped with a warning and the rest is kept.
"""

from __future__ import annotations

from typing import Any

from core.formats.messages import Builder, FieldProblem, kind_of
from core.formats.model import Conversation
from core.formats.openai_chat import ACCEPTED_ROLES, MessageNormalizer
from core.formats.source import InputSource
from core.formats.spec import FormatSpec
from core.safe_text import quoted

NAME = "mini-swe-agent"
FORMAT_PREFIX = "mini-swe-agent"
EXIT_ROLE = "exit"
_MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content")


def looks_like(doc: Any) -> bool:
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        return False
    trajectory_format = doc.get("trajectory_format")
    if isinstance(trajectory_format, str) and trajectory_format.startswith(FORMAT_PREFIX):
        return True
    info = doc.get("info")
    if isinstance(info, dict) and ("mini_version" in info or {"exit_status", "model_stats"} <= set(info)):
        return True
    return any(isinstance(m, dict) and m.get("role") == EXIT_ROLE for m in doc["messages"][-3:])


def _usage(extra: Any) -> dict[str, Any] | None:
    response = extra.get("response") if isinstance(extra, dict) else None
    usage = response.get("usage") if isinstance(response, dict) else None
    return dict(usage) if isinstance(usage, dict) else None


def _model_name(info: dict[str, Any]) -> str | None:
    config = info.get("config")
    model = config.get("model") if isinstance(config, dict) else None
    name = model.get("model_name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        raise FieldProblem(None, f"expected a mini-swe-agent trajectory object with 'messages', got {kind_of(doc)}")
    builder = Builder(NAME, src.name, unit="message")
    normalizer = MessageNormalizer(builder)
    for index, raw in enumerate(doc["messages"]):
        where = f"messages[{index}]"
        if not isinstance(raw, dict):
            builder.tally.skip(index, f"not a message object ({kind_of(raw)})", where)
            continue
        role = raw.get("role")
        if role == EXIT_ROLE:
            extra = raw.get("extra") if isinstance(raw.get("extra"), dict) else {}
            builder.metadata["exit_status"] = extra.get("exit_status", raw.get("content"))
            if "submission" in extra:
                builder.metadata["submission"] = extra["submission"]
            builder.tally.meta(index, "the run's exit message (status and submission)", where)
            continue
        if not isinstance(role, str) or role not in ACCEPTED_ROLES:
            builder.tally.skip(index, f"role {quoted(role)} is not one of {', '.join(ACCEPTED_ROLES)}", where)
            continue
        clean = {key: raw[key] for key in _MESSAGE_KEYS if key in raw}
        try:
            normalizer.add(clean, where, usage=_usage(raw.get("extra")))
        except FieldProblem as exc:
            builder.tally.skip(index, exc.what, exc.where or where)
            continue
        builder.tally.place(index, where)
    normalizer.finish()
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    for key in ("exit_status", "submission", "model_stats", "mini_version"):
        if key in info:
            builder.metadata.setdefault(key, info[key])
    if isinstance(doc.get("trajectory_format"), str):
        builder.metadata["trajectory_format"] = doc["trajectory_format"]
    return builder.build(model=_model_name(info))


FORMAT = FormatSpec(
    name=NAME,
    description="mini-swe-agent trajectories (.traj.json)",
    detect_document=looks_like,
    parse_document=parse_document,
)
