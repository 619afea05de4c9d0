import json

import pytest

from core.formats import FORMAT_NAMES, FormatError, detect, load
from tests.formats.checks import SAMPLE_FORMATS, SAMPLES


def test_every_format_has_a_sample():
    assert set(SAMPLE_FORMATS.values()) == set(FORMAT_NAMES)


@pytest.mark.parametrize(("name", "expected"), sorted(SAMPLE_FORMATS.items()))
def test_detect_sample_from_path(name, expected):
    assert detect(SAMPLES / name) == expected


@pytest.mark.parametrize(("name", "expected"), sorted(SAMPLE_FORMATS.items()))
def test_detect_sample_from_bytes_with_and_without_filename(name, expected):
    data = (SAMPLES / name).read_bytes()
    assert detect(data, filename=name) == expected
    assert detect(data) == expected


def _jsonl(*records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


INLINE = {
    "openai-chat list": (
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
         {"role": "tool", "tool_call_id": "c1", "content": "a.py"}],
        "openai-chat",
    ),
    "openai-chat plain wrapped": ({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}, "openai-chat"),
    "openai-chat legacy function_call": (
        [{"role": "user", "content": "x"}, {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
         {"role": "function", "name": "f", "content": "1"}],
        "openai-chat",
    ),
    "responses list": (
        [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
         {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
         {"type": "function_call_output", "call_id": "c", "output": "1"}],
        "openai-responses",
    ),
    "responses input string": ({"model": "gpt-5", "input": "hello"}, "openai-responses"),
    "anthropic blocks": (
        {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t", "name": "bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]},
        "anthropic",
    ),
    "anthropic top-level system": ({"system": "be brief", "messages": [{"role": "user", "content": "x"}]}, "anthropic"),
    "sharegpt": ({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}, "sharegpt"),
    "sharegpt bare turns": ([{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}], "sharegpt"),
    "openhands list": (
        [{"id": 0, "source": "user", "action": "message", "args": {"content": "go"}},
         {"id": 1, "source": "agent", "action": "message", "args": {"content": "done"}}],
        "openhands",
    ),
    "openhands history wrapper": (
        {"instance_id": "x__y-1", "history": [{"id": 0, "source": "user", "action": "message", "args": {"content": "go"}}]},
        "openhands",
    ),
    "swe-agent": ({"history": [{"role": "user", "content": "fix", "message_type": "observation"}], "info": {}}, "swe-agent"),
    "hermes export object": (
        {"id": "20260101_120000_ab12cd", "source": "cli", "started_at": 1.0, "messages": [{"role": "user", "content": "x"}]},
        "hermes",
    ),
    "hermes snapshot": (
        {"session_id": "s1", "model": "m", "session_start": "2026-01-01T00:00:00", "messages": [{"role": "user", "content": "x"}]},
        "hermes",
    ),
    "langchain messages_to_dict": (
        [{"type": "human", "data": {"content": "hi"}}, {"type": "ai", "data": {"content": "yo", "tool_calls": []}}],
        "langchain",
    ),
    "langchain flat": ([{"type": "human", "content": "hi"}, {"type": "ai", "content": "yo"}], "langchain"),
    "langchain serialized": (
        [{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "hi"}}],
        "langchain",
    ),
}


@pytest.mark.parametrize("case", sorted(INLINE))
def test_detect_inline_documents(case):
    document, expected = INLINE[case]
    assert detect(json.dumps(document).encode()) == expected


JSONL_INLINE = {
    "openai-chat jsonl": (_jsonl({"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}), "openai-chat"),
    "conversations per line": (_jsonl({"messages": [{"role": "user", "content": "a"}]}, {"messages": [{"role": "user", "content": "b"}]}), "openai-chat"),
    "sharegpt per line": (_jsonl({"conversations": [{"from": "human", "value": "a"}]}, {"conversations": [{"from": "human", "value": "b"}]}), "sharegpt"),
    "hermes gateway": (_jsonl({"role": "session_meta", "tools": [], "model": "m", "platform": "telegram"}, {"role": "user", "content": "a"}), "hermes"),
    "hermes export": (_jsonl({"id": "a", "source": "cli", "messages": []}, {"id": "b", "source": "cli", "messages": []}), "hermes"),
    "openhands events": (_jsonl({"id": 0, "source": "user", "action": "message", "args": {"content": "go"}},
                                {"id": 1, "source": "agent", "action": "message", "args": {"content": "ok"}}), "openhands"),
    "claude code": (_jsonl({"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "x"}},
                           {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
                            "message": {"role": "assistant", "content": [{"type": "text", "text": "y"}]}}), "claude-code"),
    "codex": (_jsonl({"type": "session_meta", "payload": {"id": "x"}},
                     {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}}), "codex"),
    "codex exec": (_jsonl({"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                          {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "x"}}), "codex-exec"),
    "codex exec, old item_type": (_jsonl({"type": "item.completed", "item": {"id": "item_0", "item_type": "agent_message", "text": "x"}},
                                         {"type": "turn.completed", "usage": {"input_tokens": 1}}), "codex-exec"),
}


@pytest.mark.parametrize("case", sorted(JSONL_INLINE))
def test_detect_inline_jsonl(case):
    data, expected = JSONL_INLINE[case]
    assert detect(data) == expected
    assert detect(data, filename="log.jsonl") == expected


def test_format_override_wins_over_detection():
    data = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}).encode()
    assert load(data).format == "openai-chat"
    conv = load(data, format="anthropic")
    assert conv.format == "anthropic"
    assert [m["content"] for m in conv.messages] == ["hi", "yo"]


def test_override_that_does_not_fit_gives_a_clear_error():
    data = (SAMPLES / "long_coding_session.json").read_bytes()
    with pytest.raises(FormatError) as excinfo:
        load(data, filename="long.json", format="sharegpt")
    message = str(excinfo.value)
    assert message.startswith("long.json: ") and "conversations" in message


def test_unknown_format_name_is_rejected():
    with pytest.raises(FormatError, match=r"unknown format 'gemini'; expected one of claude-code, codex"):
        load(b"[]", filename="x.json", format="gemini")


def test_formats_are_listed_once_in_one_registry():
    import importlib
    import pkgutil

    import core.formats as package
    from core.formats import FORMATS
    from core.formats.spec import FormatSpec

    assert FORMAT_NAMES == tuple(spec.name for spec in FORMATS)
    assert len(set(FORMAT_NAMES)) == len(FORMAT_NAMES)
    declared = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"core.formats.{info.name}")
        if isinstance(getattr(module, "FORMAT", None), FormatSpec):
            declared.append(module.FORMAT)
    # every format module's own declaration is in the registry, and nothing else is
    assert sorted(spec.name for spec in declared) == sorted(FORMAT_NAMES)
    assert all(spec in FORMATS for spec in declared)
    assert all(spec.parse_document or spec.parse_records or spec.parse_sqlite or spec.parse_text for spec in FORMATS)


def test_detection_asks_the_registry_in_its_order(monkeypatch):
    import core.formats.detection as detection
    from core.formats.spec import FormatSpec

    asked = []

    def spec(name):
        return FormatSpec(name=name, description=name, detect_document=lambda doc: asked.append(name) or name == "second")

    monkeypatch.setattr(detection, "FORMATS", (spec("first"), spec("second"), spec("third")))
    assert detection.detect_document({}) == "second" and asked == ["first", "second"]
