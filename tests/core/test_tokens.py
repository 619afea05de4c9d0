"""Token estimators: the reference's rough counts and exact tiktoken counts."""

from __future__ import annotations

import importlib.util

from hypothesis import given, settings
from hypothesis import strategies as st

from core.phases.content import content_length_for_budget, message_budget_tokens
from core.tokens import (
    encoding_name_for_model,
    ensure_tiktoken_cache,
    estimate_messages_tokens_rough,
    estimate_tokens_rough,
    get_counter,
    repr_len,
)

IMG = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 5000}}

values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=300), st.text(min_size=256, max_size=500)),
    lambda c: st.one_of(st.lists(c, max_size=9), st.dictionaries(st.text(max_size=5), c, max_size=4), st.tuples(c), st.tuples(c, c)),
    max_leaves=30,
)


@settings(max_examples=1000, deadline=None)
@given(values)
def test_repr_len_equals_python_repr(value):
    assert repr_len(value) == len(repr(value))


def _reference_estimate(messages):
    """The spec's definition, written out plainly: str() of the shadow copy, one ceiling, 1,500 per image."""
    chars = images = 0
    for m in messages:
        if not isinstance(m, dict):
            chars += len(str(m))
            continue
        shadow = {}
        for k, v in m.items():
            if k == "_anthropic_content_blocks":
                continue
            if k == "content" and isinstance(v, list):
                v = [{"type": p.get("type"), "image": "[stripped]"} if isinstance(p, dict) and p.get("type") in ("image", "image_url", "input_image") else p for p in v]
                images += sum(1 for p in m[k] if isinstance(p, dict) and p.get("type") in ("image", "image_url", "input_image"))
            elif k == "content" and isinstance(v, dict) and v.get("_multimodal"):
                inner = v.get("content")
                if isinstance(inner, list):
                    images += sum(1 for p in inner if isinstance(p, dict) and p.get("type") in ("image", "image_url"))
                v = v.get("text_summary", "")
            shadow[k] = v
        blocks = m.get("_anthropic_content_blocks")
        if isinstance(blocks, list):
            images += sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "image")
        chars += len(str(shadow))
    return (chars + 3) // 4 + 1500 * images


def test_rough_estimates():
    assert estimate_tokens_rough("") == 0 and estimate_tokens_rough(None) == 0 and estimate_tokens_rough("abcde") == 2
    msg = {"role": "user", "content": "hi"}
    assert estimate_messages_tokens_rough([msg]) == (33 + 3) // 4
    messages = [
        msg,
        {"role": "user", "content": [{"type": "text", "text": "look"}, IMG]},
        {"role": "assistant", "content": None, "_anthropic_content_blocks": [{"type": "image"}], "x": 1},
        {"role": "tool", "content": {"_multimodal": True, "text_summary": "shot", "content": [IMG, {"type": "input_image"}]}},
        "not a dict",
    ]
    assert estimate_messages_tokens_rough(messages) == _reference_estimate(messages)


def test_budget_walk_weights():
    assert content_length_for_budget("abcd") == 4
    assert content_length_for_budget(None) == 0
    assert content_length_for_budget([IMG, {"type": "text", "text": "abc"}, "xy", 5, {"type": "text"}]) == 6400 + 3 + 2 + 1
    assert content_length_for_budget({"a": 1}) == len("{'a': 1}")
    message = {"role": "assistant", "content": "x" * 40, "tool_calls": [{"function": {"arguments": "y" * 41}}, "obj"]}
    assert message_budget_tokens(message) == 40 // 4 + 10 + 41 // 4


def test_tiktoken_counts_are_exact_and_offline():
    assert ensure_tiktoken_cache() is not None
    spec = importlib.util.find_spec("litellm")
    assert spec is not None
    import tiktoken

    counter = get_counter("cl100k_base")
    texts = ["hello world", "def f(x):\n    return x * 2\n", "é🙂 mixed ünïcode"]
    raw = tiktoken.get_encoding("cl100k_base").encode_ordinary_batch(texts)
    assert counter.count_texts(texts) == [len(r) for r in raw]
    assert counter.count_text(texts[0]) == len(raw[0])
    parts = counter.message_parts({"role": "user", "content": [{"type": "text", "text": "hello world"}, IMG]})
    assert parts["text"] == len(raw[0]) and parts["images"] > 0


def test_encoding_choice():
    assert encoding_name_for_model("gpt-4o-mini") == "o200k_base"
    assert encoding_name_for_model("openai/gpt-5") == "o200k_base"
    assert encoding_name_for_model("o3-mini") == "o200k_base"
    assert encoding_name_for_model("claude-sonnet-4-5") == "cl100k_base"
    assert encoding_name_for_model(None) == "cl100k_base"


def test_known_counts_answer_before_the_encoding_and_only_for_their_texts() -> None:
    import uuid

    from core.tokens import TokenCounter, add_known_counts, text_digest

    known = f"a text only this test counts {uuid.uuid4()}"
    unknown = f"another text only this test counts {uuid.uuid4()}"
    counter = TokenCounter("cl100k_base")
    truth = counter.count_text(unknown)
    # A table is trusted as made with its encoding: an impossible figure shows it was the one read.
    add_known_counts("cl100k_base", {text_digest(known): 10_001})
    fresh = TokenCounter("cl100k_base")
    assert fresh.uncounted_chars([known, unknown]) == len(unknown)
    assert fresh.count_texts([known, unknown]) == [10_001, truth]
    assert TokenCounter("cl100k_base").count_text(known) == 10_001
    assert TokenCounter("o200k_base").count_text(known) < 100  # another encoding's counts are its own
