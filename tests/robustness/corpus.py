"""Shared helpers for the robustness tests: the hostile corpus, its manifest and outcome checks."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from core.formats import FORMAT_NAMES, Conversation, FormatError, load

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "data" / "hostile"
SECRETS = ROOT / "tests" / "data" / "secrets"
SAMPLES = ROOT / "sample_conversations"

#: Hypothesis examples per fuzz test; ``make fuzz`` sets 10000.
FUZZ_EXAMPLES = int(os.environ.get("CONTEXT_LENS_FUZZ_EXAMPLES", "300"))

#: Every error message says what the input should have been, or what is wrong with it, in these terms.
EXPECTATION_WORDS = ("expected", "limit", "not found", "holds no", "damaged", "decompress", "save it as", "re-save",
                     "truncated", "invalid json", "cannot be decoded", "nested too deeply", "can only be read as")


def generator() -> ModuleType:
    """``tests/data/hostile/generate.py`` as a module (it is a script, not a package member)."""
    name = "hostile_corpus_generator"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HOSTILE / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def manifest() -> dict[str, dict[str, Any]]:
    return json.loads((HOSTILE / "manifest.json").read_text(encoding="utf-8"))


def corpus_files() -> list[str]:
    return sorted(manifest())


def check_error_message(message: str, name: str) -> None:
    """A FormatError message a user can act on: it names the file and says what was expected."""
    assert message.startswith(f"{name}: "), f"the message does not start with the file name {name!r}: {message!r}"
    assert len(message) > len(name) + 10, message
    lowered = message.lower()
    assert any(word in lowered for word in EXPECTATION_WORDS), f"the message does not say what was expected: {message!r}"


ROLES = {"system", "developer", "user", "assistant", "tool"}
MESSAGE_KEYS = {"role", "content", "tool_calls", "tool_call_id", "name"}


def check_conversation(conv: Conversation) -> None:
    """What the compressor and the dashboard rely on in every loaded conversation."""
    assert isinstance(conv, Conversation)
    assert conv.format in FORMAT_NAMES
    n = len(conv.messages)
    assert len(conv.sources) == n and len(conv.usage) == n and len(conv.reasoning) == n
    for index, message in enumerate(conv.messages):
        assert isinstance(message, dict), (index, message)
        assert set(message) <= MESSAGE_KEYS, (index, set(message) - MESSAGE_KEYS)
        assert message.get("role") in ROLES, (index, message.get("role"))
        content = message.get("content")
        assert content is None or isinstance(content, (str, list)), (index, type(content))
        if isinstance(content, list):
            for part in content:
                assert isinstance(part, dict) and isinstance(part.get("type"), str), (index, part)
        calls = message.get("tool_calls")
        if calls is not None:
            assert isinstance(calls, list), (index, calls)
            for call in calls:
                assert isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"], (index, call)
                function = call.get("function")
                assert isinstance(function, dict), (index, call)
                assert isinstance(function.get("name"), str) and isinstance(function.get("arguments"), str), (index, call)
        if message["role"] == "tool":
            assert isinstance(message.get("tool_call_id"), str), (index, message)
        assert isinstance(conv.sources[index], str) and conv.sources[index], index
    for warning in conv.warnings:
        assert isinstance(warning, str) and warning, conv.warnings
    for event in conv.compaction_events:
        assert 0 <= event.position <= n, event
    ids = [info.id for info in conv.sessions]
    assert all(isinstance(i, str) for i in ids), ids
    if conv.sessions:
        assert conv.session_id in ids, (conv.session_id, ids)
    # Plain data all the way down, and encodable text: the dashboard and the exports serialise it.
    json.dumps(conv.messages, ensure_ascii=False).encode("utf-8")
    "".join(conv.warnings).encode("utf-8")


def load_outcome(source: Any, name: str, **kwargs: Any) -> Conversation | str:
    """The conversation, or the FormatError message (checked); any other exception propagates."""
    try:
        conv = load(source, **kwargs)
    except FormatError as exc:
        message = str(exc)
        check_error_message(message, name)
        return message
    check_conversation(conv)
    return conv
