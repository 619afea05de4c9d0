"""Property-based checks over random agent conversations, for every profile."""

from __future__ import annotations

import copy
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import CompressorConfig, ContextCompressor
from core.profiles import PROFILES, SUMMARY_PREFIX_V0_16_0
from tests.helpers import failing, pairs_valid

EXAMPLES = int(os.environ.get("CONTEXT_LENS_FUZZ_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOOLS = ["terminal", "read_file", "write_file", "search_files", "patch", "web_search", "browser_navigate", "custom"]
words = st.sampled_from(
    ["fix", "the", "test", "src/app.py", "error", "sk-abcdefghijklmnop123456", "é", "🙂", "\n", "{", '"', "ok"]
)
text = st.lists(words, max_size=40).map(" ".join)
big_text = st.one_of(text, st.integers(0, 3000).map(lambda n: "x" * n), st.sampled_from(["R" * 500, "S" * 250]))
image = st.just({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo"}})
content = st.one_of(
    text,
    st.none(),
    st.lists(st.one_of(text.map(lambda t: {"type": "text", "text": t}), image), min_size=1, max_size=3),
)


@st.composite
def conversations(draw, well_formed: bool = True):
    messages = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(text)})
    counter = 0
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["user", "assistant", "tools", "handoff"] if not well_formed else ["user", "assistant", "tools"]))
        if kind == "user":
            messages.append({"role": "user", "content": draw(content)})
        elif kind == "assistant":
            messages.append({"role": "assistant", "content": draw(text)})
        elif kind == "handoff":
            messages.append({"role": "user", "content": SUMMARY_PREFIX_V0_16_0 + "\n" + draw(text)})
        else:
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                counter += 1
                args = {"command": draw(text), "path": draw(text)}
                if draw(st.booleans()):
                    args["content"] = draw(big_text)
                calls.append(
                    {"id": f"call_{counter}", "type": "function", "function": {"name": draw(st.sampled_from(TOOLS)), "arguments": json.dumps(args)}}
                )
            messages.append({"role": "assistant", "content": draw(st.one_of(st.none(), text)), "tool_calls": calls})
            for c in calls:
                if well_formed or draw(st.booleans()):
                    messages.append({"role": "tool", "tool_call_id": c["id"], "content": draw(st.one_of(big_text, content))})
            if not well_formed and draw(st.booleans()):
                messages.append({"role": "tool", "tool_call_id": "orphan_" + str(counter), "content": draw(text)})
    return messages


def _config(profile: str, data) -> CompressorConfig:
    return CompressorConfig(
        context_length=data.draw(st.sampled_from([8_000, 64_000, 128_000, 200_000])),
        protect_first_n=data.draw(st.integers(0, 4)),
        protect_last_n=data.draw(st.integers(0, 25)),
        summary_target_ratio=data.draw(st.sampled_from([0.05, 0.2, 0.5, 0.9])),
        profile=profile,
    )


def _summarizer(data):
    choice = data.draw(st.sampled_from(["ok", "runtime", "other", "empty"]))
    if choice == "ok":
        return lambda prompt, max_tokens: "## Active Task\nNone."
    if choice == "empty":
        return lambda prompt, max_tokens: ""
    return failing(RuntimeError() if choice == "runtime" else ValueError("boom"))


def _check_roles_around_summary(result) -> None:
    """The summary itself never sits next to a message of its own role when it is placed.

    (Tool-pair repair runs afterwards and may drop orphan results next to it, exactly as the
    reference does; that is not the summary's doing.)
    """
    if not result.compressed:
        return
    work = result.plan.pruned_messages
    # Nothing precedes a summary that starts the conversation (no system prompt, no head): then only
    # the message after it counts (v0.18.1+ may make it a user message when no user turn survives).
    before = work[result.plan.compress_start - 1].get("role", "user") if result.plan.compress_start > 0 else None
    after = work[result.plan.compress_end].get("role", "user") if result.plan.compress_end < len(work) else "user"
    if result.assembly.summary_merged:
        assert after in ("user", "assistant") and before != after
    else:
        assert result.assembly.summary_role not in (before, after)
    summary_positions = [i for i, o in enumerate(result.assembly.origins) if o.kind == "summary"]
    if summary_positions and result.assembly.orphans_removed == 0:
        i = summary_positions[0]
        for j in (i - 1, i + 1):
            if 0 <= j < len(result.messages):
                assert result.messages[j].get("role") != result.messages[i]["role"]


@SETTINGS
@given(messages=conversations(), data=st.data(), profile=st.sampled_from(list(PROFILES)))
def test_well_formed_conversations(messages, data, profile):
    snapshot = copy.deepcopy(messages)
    comp = ContextCompressor(_config(profile, data), summarizer=_summarizer(data))
    result = comp.compress(messages, current_tokens=data.draw(st.sampled_from([None, 0, 100_000])))
    assert messages == snapshot
    assert pairs_valid(result.messages)
    _check_roles_around_summary(result)
    last_call_dropped = (
        bool(messages)
        and messages[-1].get("role") == "tool"
        and messages[-1].get("tool_call_id")
        not in {c.get("id") for m in result.messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []}
    )
    # A trailing tool result whose call fell into the summarised window is an orphan that the
    # reference's repair removes (its tail clamp can undo the backward alignment); otherwise the
    # last message always survives.
    if messages and not last_call_dropped:
        last_in, last_out = messages[-1], result.messages[-1]
        if isinstance(last_in.get("content"), str) and last_in["content"]:
            assert isinstance(last_out.get("content"), str) and last_out["content"].endswith(last_in["content"])
        assert last_out.get("role") == last_in.get("role")
    json.dumps(result.messages)  # the output is plain JSON-able data
    # A second round on the output must work too (iterative summaries, cooldowns).
    comp.compress(result.messages)


@SETTINGS
@given(messages=conversations(well_formed=False), data=st.data(), profile=st.sampled_from(list(PROFILES)))
def test_messy_conversations_never_raise(messages, data, profile):
    snapshot = copy.deepcopy(messages)
    comp = ContextCompressor(_config(profile, data), summarizer=_summarizer(data))
    result = comp.compress(messages)
    assert messages == snapshot
    if result.compressed:
        assert pairs_valid(result.messages)
