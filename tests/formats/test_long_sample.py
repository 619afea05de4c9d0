"""The long coding session is what the brief promises: big, realistic, and compressible at default settings."""

import hashlib
import importlib.util
import json
import os
from collections import Counter
from pathlib import Path

import pytest

from core import CompressorConfig, ContextCompressor
from core.formats import load
from tests.formats.checks import SAMPLES

HERMES_TOOLS = {"terminal", "read_file", "write_file", "patch", "search_files", "web_search"}


@pytest.fixture(scope="module")
def conv():
    return load(SAMPLES / "long_coding_session.json")


@pytest.fixture(scope="module")
def cl100k():
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        litellm_dir = importlib.util.find_spec("litellm").submodule_search_locations[0]
        os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(litellm_dir) / "litellm_core_utils" / "tokenizers")
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def _words(content: str) -> int:
    """Words of a tool result as a reader sees them: the string values of its JSON, or the raw text."""
    try:
        value = json.loads(content)
    except ValueError:
        return len(content.split())
    stack, total = [value], 0
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item.split())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return total


def test_size_and_shape(conv, cl100k):
    messages = conv.messages
    assert len(messages) >= 300
    assert messages[0]["role"] == "system" and conv.system_prompt
    roles = Counter(m["role"] for m in messages)
    assert 0.07 <= roles["user"] / len(messages) <= 0.13
    text = [m["content"] for m in messages if isinstance(m["content"], str)]
    text += [c["function"]["arguments"] for m in messages for c in m.get("tool_calls") or []]
    tokens = sum(len(cl100k.encode(t)) for t in text)
    assert tokens > 140_000


def test_rough_estimate_is_far_above_the_default_threshold(conv):
    rough = sum(len(str(m)) for m in conv.messages) // 4
    threshold = max(int(128_000 * 0.50), 64_000)
    assert rough > 2 * threshold


def test_uses_the_hermes_tools_with_their_argument_shapes(conv):
    calls = [c["function"] for m in conv.messages for c in m.get("tool_calls") or []]
    assert {c["name"] for c in calls} == HERMES_TOOLS
    for call in calls:
        args = json.loads(call["arguments"])
        required = {"terminal": {"command"}, "read_file": {"path", "offset"}, "write_file": {"path", "content"},
                    "patch": {"path", "old_string", "new_string"}, "search_files": {"pattern"}, "web_search": {"query"}}
        assert required[call["name"]] <= set(args), call


def test_tool_results_look_like_hermes_results(conv):
    names = {c["id"]: c["function"]["name"] for m in conv.messages for c in m.get("tool_calls") or []}
    results = [(names[m["tool_call_id"]], m["content"]) for m in conv.messages if m["role"] == "tool"]
    for name, content in results:
        value = json.loads(content)
        if name == "terminal":
            assert isinstance(value["exit_code"], int) and isinstance(value["output"], str)
        if name == "search_files":
            assert value["total_count"] == len(value["matches"])
    assert {json.loads(c)["exit_code"] for n, c in results if n == "terminal"} >= {0, 1}
    words = [_words(content) for _name, content in results]
    assert min(words) >= 50 and max(words) <= 1500


def test_has_duplicate_tool_outputs_for_dedup(conv):
    long_results = [m["content"] for m in conv.messages if m["role"] == "tool" and len(m["content"]) >= 200]
    digests = Counter(hashlib.md5(c.encode()).hexdigest()[:12] for c in long_results)
    assert sum(n - 1 for n in digests.values() if n > 1) >= 10


def test_compresses_at_default_settings(conv):
    compressor = ContextCompressor(CompressorConfig(), summarizer=None)
    assert compressor.should_compress(sum(len(str(m)) for m in conv.messages) // 4)
    result = compressor.compress(conv.messages)
    assert result.outcome in ("summarized", "fallback")
    assert len(result.messages) < len(conv.messages)
    assert result.assembly.tokens_after < result.plan.display_tokens / 3
    assert result.plan.pruned_count >= 10
    assert result.messages[0]["role"] == "system"
