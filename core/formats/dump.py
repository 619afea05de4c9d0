"""``dump``: a conversation (or a bare message list) written as JSON text."""

from __future__ import annotations

import json
from typing import Any

from core.formats import openai_chat
from core.formats.model import Conversation
from core.formats.registry import BY_NAME, DUMP_FORMATS


def as_conversation(conversation_or_messages: Conversation | list[dict[str, Any]]) -> Conversation:
    if isinstance(conversation_or_messages, Conversation):
        return conversation_or_messages
    if isinstance(conversation_or_messages, list):
        messages = conversation_or_messages
        return Conversation(
            format=openai_chat.NAME,
            messages=messages,
            sources=[f"[{i}]" for i in range(len(messages))],
            usage=[None] * len(messages),
            reasoning=[None] * len(messages),
        )
    raise TypeError(f"dump expects a Conversation or a list of message dicts, got {type(conversation_or_messages).__name__}")


def dump(conversation_or_messages: Conversation | list[dict[str, Any]], format: str = "openai-chat") -> str:
    """JSON text of the conversation in ``format``.

    ``openai-chat`` (``{"messages": [...]}``, plus ``model`` / ``tools`` when known) works for
    any conversation; ``openai-responses``, ``anthropic`` and ``sharegpt`` write those formats,
    so that loading the result gives back the same messages, tool pairs and content parts
    (ShareGPT keeps only the text of non-text parts; Anthropic drops an image's ``detail`` hint).
    Indented by 2, non-ASCII kept as is.
    The conversation is not modified.
    """
    writer = BY_NAME[format].write if format in DUMP_FORMATS else None
    if writer is None:
        raise ValueError(f"cannot write format {format!r}; dump writes one of {', '.join(DUMP_FORMATS)}")
    document = writer(as_conversation(conversation_or_messages))
    return json.dumps(document, indent=2, ensure_ascii=False, default=str)
