"""Property-based fuzzing of the public API: ``ContextCompressor.compress`` and ``core.formats.load``.

* ``compress`` never raises on valid input (a list of dicts with string roles and OpenAI-shaped
  content / tool calls, however odd their values), never mutates its input, and whenever it
  compresses the output's tool calls and results pair up. On arbitrary JSON-ish messages it may
  refuse the input with an exception, but it still never mutates it, and when it does compress
  the tool pairs are valid.
* ``load`` (and ``detect``) raise nothing but ``FormatError`` on any bytes, and a successful load
  is a canonical conversation that ``compress`` accepts.

The number of examples per test is ``CONTEXT_LENS_FUZZ_EXAMPLES`` (300 by default, 10000 with
``make fuzz``).
"""

from __future__ import annotations

import codecs
import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from core import CompressorConfig, ContextCompressor
from core.formats import FORMAT_NAMES, FormatError, detect
from core.profiles import SUMMARY_PREFIX_V0_15_1, SUMMARY_PREFIX_V0_16_0
from tests.helpers import pairs_valid
from tests.robustness.corpus import FUZZ_EXAMPLES, HOSTILE, SAMPLES, generator, load_outcome

SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
# Generous, against hangs only (the examples themselves take milliseconds).
TIMEOUT = 120 + FUZZ_EXAMPLES // 5

GEN = generator()

# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

TOOLS = ["terminal", "read_file", "write_file", "search_files", "patch", "web_search", "web_extract", "browser_navigate",
         "execute_code", "delegate_task", "vision_analyze", "skill_view", "memory", "process", "custom", "", "ünï"]
WORDS = ["fix", "the", "test", "src/app.py", "error", "sk-abcdefghijklmnop123456", "é", "🙂", "\n", "{", '"', "ok", "\x00",
         "\u202e", "\ud7ff", "[CONTEXT SUMMARY]:", "exit_code", "Traceback", "<tool_call>", "AKIAABCDEFGHIJKLMNOP"]

words = st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join)
huge_text = st.integers(0, 200_000).map(lambda n: "x" * n)
long_text = st.integers(0, 5_000).map(lambda n: "y" * n)
text = st.one_of(words, st.text(max_size=50), long_text, st.sampled_from(["", " ", "R" * 500]))
big_text = st.one_of(text, huge_text)


def nested(depth: int, leaf: Any = "x") -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


# Lone surrogates: valid in JSON ("\ud800"), not encodable as UTF-8.
surrogates = st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), text,
                    surrogates)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)),
    max_leaves=12,
)
deep_values = st.integers(1, 300).map(nested)
any_value = st.one_of(json_values, deep_values)

# Arguments strings: JSON objects of every shape, invalid JSON, deep JSON, huge JSON.
arguments = st.one_of(
    st.dictionaries(st.sampled_from(["command", "path", "content", "query", "url", "urls", "code", "goal", "pattern",
                                     "question", "name", "action", "offset"]), any_value, max_size=4).map(json.dumps),
    json_values.map(json.dumps),
    st.integers(1, 900).map(lambda d: "[" * d + "]" * d),
    text,
    big_text.map(lambda t: json.dumps({"content": t})),
)
ids = st.one_of(st.sampled_from(["call_1", "call_2", "call_3", "", "same", "toolu_01", "x" * 300]), st.text(max_size=12))

text_part = text.map(lambda t: {"type": "text", "text": t})
image_part = st.sampled_from(
    [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo"}},
        {"type": "image_url", "image_url": {"url": "https://example.org/a.png", "detail": "low"}},
        {"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
    ]
)
odd_part = st.fixed_dictionaries({"type": st.sampled_from(["input_audio", "file", "refusal", "weird", ""])},
                                 optional={"data": any_value, "text": any_value})
content = st.one_of(st.none(), big_text, st.lists(st.one_of(text_part, image_part, odd_part), max_size=4))
roles = st.one_of(st.sampled_from(["system", "user", "assistant", "tool", "developer", "function"]), st.text(max_size=10))


@st.composite
def tool_call(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "id": draw(ids),
        "type": "function",
        "function": {"name": draw(st.sampled_from(TOOLS)), "arguments": draw(arguments)},
    }


@st.composite
def valid_message(draw: st.DrawFn, call_ids: list[str]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["user", "assistant", "calls", "tool", "summary", "other"]))
    if kind == "calls":
        calls = draw(st.lists(tool_call(), min_size=1, max_size=3))
        call_ids.extend(c["id"] for c in calls)
        message: dict[str, Any] = {"role": "assistant", "content": draw(st.one_of(st.none(), text)), "tool_calls": calls}
    elif kind == "tool":
        known = draw(st.sampled_from(call_ids)) if call_ids and draw(st.booleans()) else draw(ids)
        message = {"role": "tool", "tool_call_id": known, "content": draw(content)}
    elif kind == "summary":
        prefix = draw(st.sampled_from([SUMMARY_PREFIX_V0_16_0, SUMMARY_PREFIX_V0_15_1, "[CONTEXT SUMMARY]:"]))
        message = {"role": draw(st.sampled_from(["user", "assistant", "system"])), "content": prefix + "\n" + draw(text)}
    elif kind == "other":
        message = {"role": draw(roles), "content": draw(content)}
    else:
        message = {"role": kind, "content": draw(content)}
    if draw(st.integers(0, 9)) == 0:
        message["name"] = draw(text)
    return message


@st.composite
def valid_conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(st.one_of(text, content))})
    call_ids: list[str] = []
    for _ in range(draw(st.integers(0, 40))):
        messages.append(draw(valid_message(call_ids)))
    return messages


def _summarizer(choice: str, calls: list[str]) -> Any:
    def summarize(prompt: str, max_tokens: int) -> Any:
        calls.append(prompt)
        if choice == "raise":
            raise ValueError("provider exploded")
        if choice == "runtime":
            raise RuntimeError("no provider")
        return {"ok": "## Active Task\nNone.", "empty": "", "none": None, "number": 42, "dict": {"a": 1},
                "huge": "s" * 100_000, "secret": "key sk-abcdefghijklmnop123456"}[choice]

    return summarize


def _config(data: st.DataObject) -> CompressorConfig:
    return CompressorConfig(
        context_length=data.draw(st.sampled_from([1, 8_000, 64_000, 128_000, 1_000_000])),
        threshold_percent=data.draw(st.sampled_from([0.01, 0.5, 0.95])),
        protect_first_n=data.draw(st.integers(0, 5)),
        protect_last_n=data.draw(st.integers(0, 30)),
        summary_target_ratio=data.draw(st.sampled_from([0.0, 0.1, 0.2, 0.8, 2.0])),
        profile=data.draw(st.sampled_from(["v0.15.1", "v0.16.0"])),
        abort_on_summary_failure=data.draw(st.booleans()),
        strict_redaction=data.draw(st.booleans()),
    )


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _loose_pairs_valid(messages: list[Any]) -> bool:
    """``pairs_valid`` for messages of any shape: dict calls and results with a hashable id take part
    (an unhashable id cannot be matched at all; the compressor leaves such messages alone)."""
    calls, results = set(), set()
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant" and isinstance(message.get("tool_calls"), list):
            for call in message["tool_calls"]:
                call_id = (call.get("call_id") or call.get("id")) if isinstance(call, dict) else None
                if call_id and _hashable(call_id):
                    calls.add(call_id)
        call_id = message.get("tool_call_id")
        if message.get("role") == "tool" and call_id and _hashable(call_id):
            results.add(call_id)
    return calls <= results and results <= calls


# --------------------------------------------------------------------------------------------
# compress
# --------------------------------------------------------------------------------------------


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(messages=valid_conversations(), data=st.data())
def test_compress_never_raises_on_valid_input(messages: list[dict[str, Any]], data: st.DataObject) -> None:
    snapshot = copy.deepcopy(messages)
    prompts: list[str] = []
    choice = data.draw(st.sampled_from(["ok", "raise", "runtime", "empty", "none", "number", "dict", "huge", "secret"]))
    compressor = ContextCompressor(_config(data), summarizer=_summarizer(choice, prompts))
    result = compressor.compress(messages, current_tokens=data.draw(st.sampled_from([None, 0, 1, 10**9])),
                                 focus_topic=data.draw(st.sampled_from([None, "", "the parser", "sk-abcdefghijklmnop123456"])))
    assert messages == snapshot
    event(f"outcome: {result.outcome}")
    if result.compressed:
        assert pairs_valid(result.messages)
        assert len(prompts) >= 1 or result.cooldown_skipped or result.assembly.fallback_used
    json.dumps(result.messages)
    # A second round on the output (iterative summary, cooldowns) is valid input too.
    second_input = copy.deepcopy(result.messages)
    again = compressor.compress(result.messages, force=True)
    assert result.messages == second_input
    if again.compressed:
        assert pairs_valid(again.messages)


messages_of_anything = st.lists(
    st.one_of(
        any_value,
        st.dictionaries(
            st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "name", "function", "id", "type"]),
            any_value,
            max_size=5,
        ),
        st.fixed_dictionaries(
            {"role": st.one_of(roles, any_value)},
            optional={"content": any_value, "tool_calls": st.one_of(any_value, st.lists(any_value, max_size=3)),
                      "tool_call_id": any_value},
        ),
    ),
    max_size=30,
)


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(messages=messages_of_anything, data=st.data())
def test_compress_on_json_ish_messages(messages: list[Any], data: st.DataObject) -> None:
    snapshot = copy.deepcopy(messages)
    compressor = ContextCompressor(_config(data), summarizer=_summarizer(data.draw(st.sampled_from(["ok", "raise"])), []))
    try:
        result = compressor.compress(messages)
    except Exception as exc:
        # Not valid input: like the reference, the compressor may refuse it (non-dict messages,
        # unhashable ids, ...), but it never leaves the caller's list changed.
        event(f"raised {type(exc).__name__}")
        assert messages == snapshot
        return
    assert messages == snapshot
    event(f"outcome: {result.outcome}")
    if result.compressed:
        assert _loose_pairs_valid(result.messages)


# --------------------------------------------------------------------------------------------
# load / detect
# --------------------------------------------------------------------------------------------

PREFIXES = [b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, b"SQLite format 3\x00",
            b"\x89PNG\r\n\x1a\n", b"PK\x03\x04", b"\x1f\x8b", b"[", b"{", b'{"messages": [', b"\n\n"]
SUFFIXES = ["x.json", "x.jsonl", "x.ndjson", "x.traj", "x.db", "x", "x.JSONL", "noext."]
forced_format = st.one_of(st.none(), st.sampled_from(FORMAT_NAMES))


def _check_load(data: bytes, name: str, fmt: str | None, compress: bool = True) -> None:
    outcome = load_outcome(data, name, filename=name, format=fmt)
    event("load: error" if isinstance(outcome, str) else "load: conversation")
    if isinstance(outcome, str):
        return
    if fmt is None:
        assert detect(data, filename=name) == outcome.format
    if compress:
        before = copy.deepcopy(outcome.messages)
        result = ContextCompressor(CompressorConfig(protect_last_n=2)).compress(outcome.messages)
        assert outcome.messages == before
        if result.compressed:
            assert pairs_valid(result.messages)


def _check_detect(data: bytes, name: str) -> None:
    try:
        found = detect(data, filename=name)
    except FormatError as exc:
        assert str(exc).startswith(f"{name}: ")
        return
    assert found in FORMAT_NAMES


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(prefix=st.sampled_from(PREFIXES), body=st.binary(max_size=3000), name=st.sampled_from(SUFFIXES), fmt=forced_format)
def test_load_random_bytes(prefix: bytes, body: bytes, name: str, fmt: str | None) -> None:
    data = prefix + body
    _check_load(data, name, fmt)
    _check_detect(data, name)


format_keys = st.sampled_from(
    ["role", "content", "tool_calls", "tool_call_id", "type", "uuid", "parentUuid", "logicalParentUuid", "sessionId",
     "isSidechain", "agentId", "message", "payload", "id", "source", "action", "observation", "args", "tool_call_metadata",
     "history", "trajectory", "conversations", "from", "value", "messages", "input", "output", "call_id", "name",
     "arguments", "summary", "data", "kwargs", "lc", "started_at", "parent_session_id", "session_id", "session_start",
     "end_reason", "subtype", "compactMetadata", "isCompactSummary", "leafUuid", "text", "tool_use_id", "info",
     "image_urls", "tool_call_ids", "function", "instructions", "system"]
)
format_values = st.one_of(
    st.sampled_from(["user", "assistant", "system", "tool", "human", "gpt", "ai", "message", "function_call",
                     "function_call_output", "reasoning", "response_item", "session_meta", "event_msg", "compacted",
                     "turn_context", "compact_boundary", "agent", "environment", "run", "text", "tool_use", "tool_result",
                     "input_text", "output_text", "constructor", "compression", "a", "b", 0, 1]),
    any_value,
)
records = st.recursive(
    st.dictionaries(format_keys, format_values, max_size=8),
    lambda children: st.dictionaries(format_keys, st.one_of(format_values, children, st.lists(children, max_size=3)), max_size=8),
    max_leaves=8,
)


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(
    values=st.lists(st.one_of(records, any_value), max_size=12),
    layout=st.sampled_from(["jsonl", "list", "wrapped", "single"]),
    name=st.sampled_from(SUFFIXES),
    fmt=forced_format,
)
def test_load_format_shaped_json(values: list[Any], layout: str, name: str, fmt: str | None) -> None:
    if layout == "jsonl":
        data = "\n".join(json.dumps(v) for v in values).encode()
    elif layout == "list":
        data = json.dumps(values).encode()
    elif layout == "wrapped":
        data = json.dumps({"messages": values, "history": values, "conversations": values}).encode()
    else:
        data = json.dumps(values[0] if values else None).encode()
    _check_load(data, name, fmt)


SEEDS = GEN.SEEDS


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(seed_index=st.integers(0, len(SEEDS) - 1), data=st.data(), fmt=forced_format)
def test_load_seed_with_random_values_replaced(seed_index: int, data: st.DataObject, fmt: str | None) -> None:
    seed = SEEDS[seed_index]
    value = seed.value
    paths = list(GEN.node_paths(value))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        value = GEN.replace_at(value, path, data.draw(st.one_of(any_value, records)))
        paths = list(GEN.node_paths(value)) or paths
    raw = GEN.seed_bytes(seed, value)
    _check_load(raw, "seed" + seed.suffix, fmt)


SAMPLE_NAMES = sorted(
    p.name for p in SAMPLES.iterdir()
    if p.suffix in (".json", ".jsonl", ".traj") and p.stat().st_size < 100_000
)


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(name=st.sampled_from(SAMPLE_NAMES), data=st.data())
def test_load_damaged_samples(name: str, data: st.DataObject) -> None:
    """Byte-level damage to real transcripts: cuts, junk, dropped and repeated lines."""
    raw = (SAMPLES / name).read_bytes()
    for _ in range(data.draw(st.integers(1, 3))):
        action = data.draw(st.sampled_from(["truncate", "insert", "delete", "duplicate_line", "drop_line", "flip"]))
        at = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if action == "truncate":
            raw = raw[:at]
        elif action == "insert":
            raw = raw[:at] + data.draw(st.binary(min_size=1, max_size=20)) + raw[at:]
        elif action == "delete":
            raw = raw[:at] + raw[at + data.draw(st.integers(1, 200)):]
        elif action == "flip" and raw:
            raw = raw[:at] + bytes([raw[at] ^ data.draw(st.integers(1, 255))]) + raw[at + 1:]
        else:
            lines = raw.split(b"\n")
            index = data.draw(st.integers(0, len(lines) - 1))
            if action == "duplicate_line":
                lines.insert(index, lines[index])
            else:
                del lines[index]
            raw = b"\n".join(lines)
    _check_load(raw, name, data.draw(forced_format), compress=False)


STORES = [SAMPLES / "hermes_state.db", HOSTILE / "sqlite_hermes_healthy.db"]


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(store=st.sampled_from(STORES), data=st.data())
def test_load_damaged_sqlite_stores(store: Any, data: st.DataObject) -> None:
    """Hermes stores with random bytes overwritten or cut short: a FormatError or clean sessions."""
    raw = bytearray(store.read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(raw) - 1))
        action = data.draw(st.sampled_from(["byte", "run", "truncate"]))
        if action == "byte":
            raw[at] = data.draw(st.integers(0, 255))
        elif action == "run":
            junk = data.draw(st.binary(min_size=1, max_size=64))
            raw[at:at + len(junk)] = junk
        else:
            del raw[max(at, 100):]
    outcome = load_outcome(bytes(raw), "store.db", filename="store.db")
    event("load: error" if isinstance(outcome, str) else "load: conversation")
    if not isinstance(outcome, str):
        for info in outcome.sessions:
            load_outcome(bytes(raw), "store.db", filename="store.db", session=info.id)


@pytest.mark.timeout(TIMEOUT)
@SETTINGS
@given(messages=valid_conversations(), suffix=st.sampled_from(["x.json", "x.jsonl"]))
def test_valid_chat_round_trips_through_load(messages: list[dict[str, Any]], suffix: str) -> None:
    """Valid OpenAI chat written as JSON or JSONL always loads (possibly with warnings), never errors oddly."""
    if suffix.endswith("l"):
        raw = "\n".join(json.dumps(m) for m in messages).encode()
    else:
        raw = json.dumps({"messages": messages}).encode()
    outcome = load_outcome(raw, suffix, filename=suffix, format="openai-chat")
    if isinstance(outcome, str):
        # Only the empty JSONL file or a role outside the chat roles may be refused.
        roles = {m["role"] for m in messages}
        assert not messages or not roles <= {"system", "user", "assistant", "tool", "developer", "function"}, outcome
        return
    assert outcome.format == "openai-chat"
