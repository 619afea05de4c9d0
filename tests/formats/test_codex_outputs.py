"""Codex 0.56-0.58 sent its model a shortened copy of a long tool output while the rollout keeps the
whole text: the copy, what it cut, and the whole-request estimate that counts it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.formats import load
from core.formats.codex_outputs import history_rule_applies, model_copy
from core.inspections.request import ExactWeigher, request_breakdown
from tests.formats.layouts import jsonl

Record = dict[str, Any]
BYTES_MARKER = "\n[... output truncated to fit 10240 bytes ...]\n\n"


def shell_output(text: str) -> str:
    """A shell call's output as Codex 0.5x writes it: a JSON object on one line."""
    return json.dumps({"output": text, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}, separators=(",", ":"))


def spec_text(lines: int = 128) -> str:
    return "".join(f"- FR-{k:03d}: the orchestrator records step {k} of every run in spec_workflow_runs.\r\n"
                   for k in range(lines))


# --- the rule ------------------------------------------------------------------------------------


def test_a_long_one_line_output_keeps_its_first_5120_bytes():
    output = shell_output(spec_text())  # about 10.6 KB, one line: a `cat spec.md` of 128 lines
    assert len(output.encode()) > 10_240 and "\n" not in output
    copy = model_copy(output, output)
    assert copy.content == "Total output lines: 1\n\n" + output[:5120] + BYTES_MARKER
    assert (copy.bytes, copy.kept_bytes, copy.lines) == (len(output), 5120, 1)
    assert copy.sent_bytes == len(copy.content.encode())
    assert copy.to_dict()["cut_bytes"] == len(output) - 5120
    assert copy.marker == "[... output truncated to fit 10240 bytes ...]"


def test_many_lines_keep_the_first_and_last_128():
    text = "".join(f"line-{k}\n" for k in range(400))
    copy = model_copy(text, text)
    head = "".join(f"line-{k}\n" for k in range(128))
    tail = "".join(f"line-{k}\n" for k in range(272, 400))
    assert copy.content == f"Total output lines: 400\n\n{head}\n[... omitted 144 of 400 lines ...]\n\n{tail}"
    assert copy.kept_bytes == len(head) + len(tail) and copy.lines == 400


def test_long_lines_share_the_10240_bytes_between_head_and_tail():
    text = "".join(f"{k:03d} " + "x" * 96 + "\n" for k in range(300))  # 30,000 bytes, 300 lines
    copy = model_copy(text, text)
    marker = "\n[... omitted 44 of 300 lines ...]\n\n"
    body = copy.content.removeprefix("Total output lines: 300\n\n")
    head, tail = body.split(marker)
    assert head == text[:5120] and len(head) + len(marker) + len(tail) == 10_240
    assert text.endswith(tail) and tail.endswith("299 " + "x" * 96 + "\n")


def test_a_cut_never_splits_a_character():
    text = "é" * 6_000  # 12,000 bytes, one line
    copy = model_copy(text, text)
    assert copy.content == "Total output lines: 1\n\n" + "é" * 2560 + BYTES_MARKER
    odd = "a" + "é" * 6_000
    assert model_copy(odd, odd).content == "Total output lines: 1\n\n" + "a" + "é" * 2559 + BYTES_MARKER


def test_an_output_within_the_limits_is_sent_as_it_is():
    assert model_copy(shell_output("3 passed"), shell_output("3 passed")) is None
    exactly = "y" * 10_240
    assert model_copy(exactly, exactly) is None
    lines = "z\n" * 256
    assert model_copy(lines, lines) is None


def test_parts_share_the_budget_in_order():
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    parts = [{"type": "text", "text": "a" * 6000}, image, {"type": "text", "text": "b" * 6000},
             {"type": "text", "text": "c" * 10}]
    copy = model_copy([{"type": "input_text", "text": "…"}], parts)
    assert copy.content == [{"type": "text", "text": "a" * 6000}, image, {"type": "text", "text": "b" * 4240},
                            {"type": "text", "text": "[omitted 1 text items ...]"}]
    assert (copy.bytes, copy.kept_bytes) == (12_010, 10_240)


@pytest.mark.parametrize(("version", "applies"), [
    ("0.55.0", False), ("0.56.0", True), ("0.58.0", True), ("0.58.3", True), ("0.59.0", False), ("1.0.0", False),
    (None, False), ("dev", False),
])
def test_the_rule_is_the_one_of_the_rollout_s_release(version, applies):
    assert history_rule_applies(version) is applies


# --- the rollout ---------------------------------------------------------------------------------


def _envelope(kind: str, payload: Record) -> Record:
    return {"timestamp": "2025-11-14T02:21:11.289Z", "type": kind, "payload": payload}


def _count(prompt: int) -> Record:
    usage = {"input_tokens": prompt, "cached_input_tokens": 0, "output_tokens": 20, "reasoning_output_tokens": 0,
             "total_tokens": prompt + 20}
    return _envelope("event_msg", {"type": "token_count",
                                   "info": {"last_token_usage": usage, "model_context_window": 258_400}})


def rollout(output: str, version: str = "0.58.0", prompts: tuple[int, int] = (4_000, 5_000)) -> bytes:
    """A task, a `cat` of ``output``, and the answer; each response with its recorded prompt size."""
    call = {"type": "function_call", "name": "shell", "call_id": "call_spec",
            "arguments": json.dumps({"command": ["bash", "-lc", "cat specs/spec.md"]})}
    return jsonl([
        _envelope("session_meta", {"id": "0199-spec", "timestamp": "2025-11-14T02:21:11Z", "cwd": "/repo",
                                   "originator": "codex_cli_rs", "cli_version": version}),
        _envelope("turn_context", {"cwd": "/repo", "model": "gpt-5.1-codex"}),
        _envelope("response_item", {"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": "Summarise the spec."}]}),
        _count(prompts[0]),
        _envelope("response_item", call),
        _envelope("response_item", {"type": "function_call_output", "call_id": "call_spec", "output": output}),
        _count(prompts[1]),
        _envelope("response_item", {"type": "message", "role": "assistant",
                                    "content": [{"type": "output_text", "text": "The spec has 128 requirements."}]}),
    ])


def test_the_message_keeps_the_whole_text_and_the_metadata_the_copy(tmp_path):
    output = shell_output(spec_text())
    path = tmp_path / "rollout-2025-11-14T02-21-11-0199-spec.jsonl"
    path.write_bytes(rollout(output))
    conversation = load(path)
    index = next(i for i, m in enumerate(conversation.messages) if m["role"] == "tool")
    assert conversation.messages[index]["content"] == output  # shown and searched in full
    entry = conversation.metadata["model_copies"]["call_spec"]
    expected = "Total output lines: 1\n\n" + output[:5120] + BYTES_MARKER
    assert entry["message"] == index and entry["content"] == expected
    assert (entry["bytes"], entry["kept_bytes"], entry["cut_bytes"]) == (len(output), 5120, len(output) - 5120)
    assert entry["rule"].startswith("codex 0.56-0.58")
    sent = conversation.sent_messages()
    assert sent[index]["content"] == expected and sent[index]["tool_call_id"] == "call_spec"
    assert [m for i, m in enumerate(sent) if i != index] == [m for i, m in enumerate(conversation.messages) if i != index]
    assert conversation.live_context().sent_messages()[index]["content"] == expected


@pytest.mark.parametrize("version", ["0.55.0", "0.59.0"])
def test_other_releases_are_counted_as_written(tmp_path, version):
    path = tmp_path / "rollout-2025-11-14T02-21-11-0199-spec.jsonl"
    path.write_bytes(rollout(shell_output(spec_text()), version))
    conversation = load(path)
    assert "model_copies" not in conversation.metadata
    assert conversation.sent_messages() is conversation.messages


def test_the_whole_request_estimate_counts_what_the_model_was_sent(tmp_path):
    output = shell_output(spec_text())
    weigher = ExactWeigher("o200k_base")
    # What the model was sent, written out by hand: the first 5,120 bytes of the output, and the marker.
    path = tmp_path / "rollout-2025-11-14T02-21-11-0199-spec.jsonl"
    path.write_bytes(rollout(output))
    as_sent = load(path)
    tool_at = next(i for i, m in enumerate(as_sent.messages) if m["role"] == "tool")
    as_sent.messages[tool_at] = {**as_sent.messages[tool_at],
                                 "content": "Total output lines: 1\n\n" + output[:5120] + BYTES_MARKER}
    as_sent.metadata.pop("model_copies")
    first, second = request_breakdown(as_sent, weigher).turns[:2]
    growth = second.counted - first.counted
    # The provider recorded the prompt that grew by the copy, not by the whole output.
    path.write_bytes(rollout(output, prompts=(4_000, 4_000 + growth)))
    conversation = load(path)
    breakdown = request_breakdown(conversation, weigher)
    table = breakdown.turn_table().dropna(subset=["estimate_error_pct"])
    assert table["estimate_error_pct"].abs().max() == 0
    assert breakdown.shortened == 1
    full = weigher.counter.count_message(conversation.messages[tool_at])
    assert breakdown.shortened_tokens == full - weigher.counter.count_message(as_sent.messages[tool_at]) > 1_000
    assert breakdown.to_dict()["messages_shortened"] == {"messages": 1, "tokens_cut": breakdown.shortened_tokens}
    assert "1 tool output counted as the shortened copy the agent sent" in breakdown.sources()["messages"]
    # Counted in full, the same turn would be off by the tokens the copy left out.
    path.write_bytes(rollout(output, "0.59.0", prompts=(4_000, 4_000 + growth)))
    whole = request_breakdown(load(path), weigher).turn_table().dropna(subset=["estimate_error_pct"])
    assert whole["estimate_error_pct"].abs().max() > 5
