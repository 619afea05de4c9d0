"""Every profile of ``core.profiles.PROFILES``, on random well-formed agent conversations.

For each profile in the table (a profile added to it is picked up without touching this file),
``CONTEXT_LENS_FUZZ_EXAMPLES`` conversations (300 by default, 10,000 with ``make fuzz``) go
through ``compress()`` with a summarizer that answers, answers with nothing, rambles, or fails.
None may produce an invalid output:

* an exception (the input is well formed: valid roles, every tool call answered right after it);
* an orphan tool call or tool result;
* a role collision: the inserted summary next to a message of its own role (unless the
  reference's tool-pair repair removed an orphan result next to it, which is reference
  behaviour, see ``tests/core/test_properties.py``);
* a lost head or tail message: every protected head message and every tail message is in the
  output, in order and unchanged (the system prompt gains the compaction note, the first tail
  message may carry the merged summary, and the repair may drop a tool result it orphaned);
* a changed input.
"""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import CompressorConfig, ContextCompressor
from core.message_view import content_text
from core.profiles import PROFILES
from tests.helpers import pairs_valid
from tests.robustness.corpus import FUZZ_EXAMPLES

SETTINGS = settings(max_examples=FUZZ_EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TIMEOUT = 300 + FUZZ_EXAMPLES // 4

TOOLS = ["terminal", "read_file", "write_file", "search_files", "patch", "web_search", "browser_navigate",
         "execute_code", "delegate_task", "memory", "custom"]
WORDS = ["fix", "the", "test", "src/app.py", "error", "Traceback", "exit_code", "sk-abcdefghijklmnop123456", "é", "🙂",
         "\n", "{", '"', "ok", "[CONTEXT SUMMARY]:", "<tool_call>"]
words = st.lists(st.sampled_from(WORDS), max_size=40).map(" ".join)
big = st.one_of(words, st.integers(0, 6_000).map(lambda n: "x" * n), st.sampled_from(["R" * 500, "line\n" * 800]))
image = st.just({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})
content = st.one_of(
    words,
    st.just(""),
    st.lists(st.one_of(words.map(lambda t: {"type": "text", "text": t}), image), min_size=1, max_size=3),
)
examples_run: dict[str, int] = {}


@st.composite
def agent_conversations(draw: st.DrawFn, prefix: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(words)})
    counter = 0
    for _ in range(draw(st.integers(0, 45))):
        kind = draw(st.sampled_from(["user", "assistant", "tools", "tools", "handoff"]))
        if kind == "user":
            messages.append({"role": "user", "content": draw(content)})
        elif kind == "assistant":
            messages.append({"role": "assistant", "content": draw(words)})
        elif kind == "handoff":  # a summary left by an earlier compaction, in this profile's words
            messages.append({"role": draw(st.sampled_from(["user", "assistant"])), "content": prefix + "\n" + draw(words)})
        else:
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                counter += 1
                arguments: dict[str, Any] = {"command": draw(words), "path": draw(words)}
                if draw(st.booleans()):
                    arguments["content"] = draw(big)
                calls.append({"id": f"call_{counter}", "type": "function",
                              "function": {"name": draw(st.sampled_from(TOOLS)), "arguments": json.dumps(arguments)}})
            messages.append({"role": "assistant", "content": draw(st.one_of(st.none(), words)), "tool_calls": calls})
            for call in calls:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": draw(st.one_of(big, content))})
    return messages


def _summarizer(choice: str) -> Any:
    def summarize(prompt: str, max_tokens: int) -> str:
        if choice == "ok":
            return "## Active Task\nFinish the refactor."
        if choice == "empty":
            return ""
        if choice == "ramble":
            return "## Active Task\n" + "more words " * (max_tokens * 2)
        raise (RuntimeError("no provider") if choice == "no-provider" else ValueError("boom"))

    return summarize


def _config(profile: str, data: st.DataObject) -> CompressorConfig:
    return CompressorConfig(
        context_length=data.draw(st.sampled_from([8_000, 64_000, 128_000, 200_000])),
        protect_first_n=data.draw(st.integers(0, 4)),
        protect_last_n=data.draw(st.integers(0, 25)),
        summary_target_ratio=data.draw(st.sampled_from([0.05, 0.2, 0.5, 0.9])),
        abort_on_summary_failure=data.draw(st.integers(0, 9)) == 0,
        profile=profile,
    )


def invalid_output(result: Any) -> list[str]:
    """Every way ``result`` breaks the rules of the module docstring (empty: valid)."""
    problems: list[str] = []
    output = result.messages
    if not pairs_valid(output):
        problems.append("orphan tool call or result")
    if not result.compressed:
        return problems
    work = result.plan.pruned_messages
    start, end = result.plan.compress_start, result.plan.compress_end
    removed_next_to_summary = result.assembly.orphans_removed > 0
    # Role collisions around the summary where it was placed: with the messages really there (the
    # releases read a missing neighbour or role as "user"; v0.18.1 then pins a summary to user when no
    # user turn survives, which is no collision when that "user" is not a message).
    before = work[start - 1].get("role") if start > 0 else None
    after = work[end].get("role") if end < len(work) else None
    if result.assembly.summary_merged:
        if after not in ("user", "assistant", None) or (before == after and before is not None):
            problems.append(f"summary merged into a {after} message after a {before} one")
    elif result.assembly.summary_role in (before, after):
        problems.append(f"a {result.assembly.summary_role} summary between {before} and {after}")
    summary_at = [i for i, origin in enumerate(result.assembly.origins) if origin.kind == "summary"]
    if summary_at and not removed_next_to_summary:
        i = summary_at[0]
        for j in (i - 1, i + 1):
            if 0 <= j < len(output) and output[j].get("role") == output[i].get("role"):
                problems.append(f"role collision at output message {j}")
    # Head and tail: all there, in order, unchanged.
    kept = {"head": list(range(start)), "tail": list(range(end, len(work)))}
    for zone, expected in kept.items():
        found = [(i, o.source_index) for i, o in enumerate(result.assembly.origins) if o.kind == zone]
        sources = [source for _, source in found]
        missing = [k for k in expected if k not in sources]
        if any(work[k].get("role") != "tool" for k in missing) or sources != [k for k in expected if k in sources]:
            problems.append(f"{zone} messages lost or reordered: missing {missing}")
        for out_index, source in found:
            got, original = output[out_index], work[source]
            if got.get("role") != original.get("role"):
                problems.append(f"{zone} message {source} changed role")
            elif zone == "head" and source == 0 and original.get("role") == "system":
                continue  # the compaction note is appended
            elif zone == "tail" and "merged" in result.assembly.origins[out_index].badges:
                if not _merged_text_kept(got, original):
                    problems.append(f"tail message {source} lost its text when the summary merged into it")
            elif got.get("content") != original.get("content") and not _only_media_stripped(got, original):
                problems.append(f"{zone} message {source} changed")
    return problems


def _merged_text_kept(got: dict[str, Any], original: dict[str, Any]) -> bool:
    """The tail message's own text survives the merge (its images may give way to the historical-media placeholder)."""
    if _only_media_stripped(got, original):
        return True
    return content_text(original.get("content")) in content_text(got.get("content"))


def _only_media_stripped(got: dict[str, Any], original: dict[str, Any]) -> bool:
    """Historical images give way to a placeholder (reference behaviour): the text parts stay."""
    def texts(message: dict[str, Any]) -> list[str]:
        value = message.get("content")
        if isinstance(value, list):
            return [part.get("text") for part in value if isinstance(part, dict) and part.get("type") == "text"]
        return [value]

    has_image = isinstance(original.get("content"), list) and any(
        isinstance(part, dict) and part.get("type") == "image_url" for part in original["content"])
    return has_image and all(text in texts(got) for text in texts(original))


@pytest.mark.timeout(TIMEOUT)
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_well_formed_conversations_give_valid_outputs(profile: str) -> None:
    prefix = PROFILES[profile].summary_prefix
    examples_run[profile] = 0

    @SETTINGS
    @given(messages=agent_conversations(prefix), data=st.data(),
           choice=st.sampled_from(["ok", "ok", "empty", "ramble", "no-provider", "error"]))
    def check(messages: list[dict[str, Any]], data: st.DataObject, choice: str) -> None:
        examples_run[profile] += 1
        snapshot = copy.deepcopy(messages)
        compressor = ContextCompressor(_config(profile, data), summarizer=_summarizer(choice))
        result = compressor.compress(messages, force=data.draw(st.booleans()))
        assert messages == snapshot, "the input changed"
        assert invalid_output(result) == []
        json.dumps(result.messages)
        again = compressor.compress(result.messages, force=True)  # a second round on the output
        assert invalid_output(again) == []

    check()
    assert examples_run[profile] >= min(FUZZ_EXAMPLES, 100)
    print(f"{profile}: {examples_run[profile]} conversations, 0 invalid outputs")


def test_the_checks_catch_what_they_look_for() -> None:
    """The validity checks fail on outputs that really are invalid (so a pass means something)."""
    messages = [{"role": "system", "content": "s"}] + [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "w " * 3000} for i in range(30)
    ]
    config = CompressorConfig(context_length=64_000)
    result = ContextCompressor(config, summarizer=_summarizer("ok")).compress(messages)
    assert result.compressed and invalid_output(result) == []
    plan_fields = ("pruned_messages", "compress_start", "compress_end")
    assembly_fields = ("orphans_removed", "summary_merged", "summary_role", "origins")

    def edited(**changes: Any) -> SimpleNamespace:
        plan = {name: getattr(result.plan, name) for name in plan_fields}
        assembly = {name: getattr(result.assembly, name) for name in assembly_fields}
        top = {"messages": result.messages, "compressed": result.compressed}
        for name, value in changes.items():
            (plan if name in plan else assembly if name in assembly else top)[name] = value
        return SimpleNamespace(**top, plan=SimpleNamespace(**plan), assembly=SimpleNamespace(**assembly))

    lost_tail = edited(messages=result.messages[:-1], origins=result.assembly.origins[:-1])
    assert any("tail messages lost" in p for p in invalid_output(lost_tail))
    changed = [dict(m) for m in result.messages]
    changed[1]["content"] = "edited"
    assert any("head message 1 changed" in p for p in invalid_output(edited(messages=changed)))
    orphan = edited(messages=[*result.messages, {"role": "tool", "tool_call_id": "nowhere", "content": "x"}])
    assert "orphan tool call or result" in invalid_output(orphan)
