"""Which format a parsed input is in.

Order (first match wins): SQLite stores (Hermes); JSONL envelopes (Claude Code, Codex); the
``codex exec --json`` event stream; the OpenHands event list; SWE-agent trajectories; Hermes
sessions; ShareGPT; Responses items; Anthropic messages; OpenAI chat; LangChain dicts. Richer
formats come first because the later rules are looser (almost everything has ``role`` and
``content``).
"""

from __future__ import annotations

from typing import Any

from core.formats import (
    anthropic,
    claude_code,
    codex,
    codex_exec,
    hermes,
    langchain,
    openai_chat,
    openai_responses,
    openhands,
    sharegpt,
    swe_agent,
)

WRAPPING_KEYS = ("messages", "conversations", "input", "history", "trajectory")


def candidate_items(doc: Any) -> list[Any]:
    """The list of messages/items a document wraps (under one of the usual keys), or []."""
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        for key in WRAPPING_KEYS:
            if isinstance(doc.get(key), list):
                return doc[key]
        if isinstance(doc.get("output"), list):
            return doc["output"]
    return []


def detect_document(doc: Any) -> str | None:
    if openhands.looks_like(doc):
        return openhands.NAME
    if swe_agent.looks_like(doc):
        return swe_agent.NAME
    if hermes.looks_like(doc):
        return hermes.NAME
    if sharegpt.looks_like(doc):
        return sharegpt.NAME
    items = candidate_items(doc)
    if isinstance(doc, dict) and isinstance(doc.get("input"), str):
        return openai_responses.NAME
    if openai_responses.looks_like(items) and not (isinstance(doc, dict) and "messages" in doc and "input" not in doc):
        return openai_responses.NAME
    if anthropic.looks_like(items, doc if isinstance(doc, dict) and isinstance(doc.get("messages"), list) else None):
        return anthropic.NAME
    if openai_chat.looks_like(items):
        return openai_chat.NAME
    if langchain.looks_like(doc):
        return langchain.NAME
    return None


def detect_records(records: list[tuple[int, Any]]) -> str | None:
    """The format of a JSONL input, from its first records."""
    values = [value for _, value in records]
    if claude_code.looks_like(records):
        return claude_code.NAME
    if codex.looks_like(records):
        return codex.NAME
    if codex_exec.looks_like(records):
        return codex_exec.NAME
    if openhands.looks_like_records(records):
        return openhands.NAME
    if hermes.looks_like_records(records):
        return hermes.NAME
    dicts = [value for value in values if isinstance(value, dict)]
    if dicts and all(sharegpt.conversation_list(value) is not None for value in dicts[:5]):
        return sharegpt.NAME
    if dicts and all(isinstance(value.get("messages"), list) for value in dicts[:5]):
        return openai_chat.NAME
    if openai_responses.looks_like(values):
        return openai_responses.NAME
    if anthropic.looks_like(values):
        return anthropic.NAME
    if openai_chat.looks_like(values):
        return openai_chat.NAME
    if langchain.looks_like(values):
        return langchain.NAME
    return None
