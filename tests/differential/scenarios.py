"""Focused shapes the plain random transcripts reach too rarely, each from an "inputs worth testing"
list of the spec: volumes calibrated to the tail budget (v0.17.0 §5), odd contents where the tail
begins (merge targets, anchors; v0.17.0 §4–5, v0.18.0 §10), sanitiser inputs (v0.18.0 §10.4),
failure sequences over rounds (v0.18.0 §7.5, v0.19.0 §8.1) and early-return runs (v0.19.0 §9).
"""

from __future__ import annotations

import random
from typing import Any

from tests.differential import catalogue as C


def tail_budget_chars(config: dict[str, Any]) -> int:
    """About the characters of the tail budget (v0.15.1's formula; later releases move it a little,
    which is fine: the point is to land near the 1.0x and 1.5x edges often)."""
    threshold = max(int(config["context_length"] * config["threshold_percent"]), 64_000)
    ratio = max(0.10, min(config["summary_target_ratio"], 0.80))
    return int(threshold * ratio) * 4


def calibrate(rng: random.Random, messages: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """Resize the long string tool results so the transcript's volume is a chosen multiple of the budget."""
    big = [m for m in messages if m.get("role") == "tool" and isinstance(m.get("content"), str) and len(m["content"]) > 200]
    if not big:
        return
    target = int(tail_budget_chars(config) * rng.choice([0.5, 0.9, 1.0, 1.05, 1.2, 1.45, 1.5, 1.55, 2.0, 3.0, 6.0]))
    each = max(201, min(target // len(big), 400_000))
    for message in big:
        text = message["content"]
        message["content"] = (text * (each // len(text) + 1))[:each]


def odd_tail(rng: random.Random, messages: list[dict[str, Any]]) -> None:
    """Odd contents in the last messages, where the tail (and so a merge target or an anchor) begins."""
    shapes: list[Any] = [None, "", "   ", [], [{"type": "text", "text": ""}], [{"type": "text", "text": "  "}],
                         ["bare", "strings"], [{"type": "output_text", "content": "visible"}],
                         [{"text": None, "content": "from content"}], {"type": "text", "text": "dict"},
                         [{"type": "text", "text": "t"}, {"type": "image_url", "image_url": {"url": "https://x/y.png"}}, "bare"]]
    for message in messages[-rng.randint(2, 10):]:
        if message.get("role") in ("user", "assistant") and rng.random() < 0.35:
            if rng.random() < 0.15:
                message.pop("content", None)
            else:
                message["content"] = rng.choice(shapes)
        if rng.random() < 0.08:
            message["_compressed_summary"] = rng.choice([True, False])


def strip_results(rng: random.Random, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop some tool results so calls lose theirs (stubs up to v0.17.0, stripping from v0.18.0),
    and re-key some results by ``id`` where the call carries another ``call_id``."""
    kept = []
    for message in messages:
        if message.get("role") == "tool" and rng.random() < 0.25:
            continue
        if message.get("role") == "assistant" and message.get("tool_calls") and rng.random() < 0.1:
            for call in message["tool_calls"]:
                if isinstance(call, dict) and "id" in call and rng.random() < 0.5:
                    call["call_id"] = "fc_" + C.token(rng, 6)
        kept.append(message)
    return kept


def failure_sequence(rng: random.Random, rounds: int) -> list[list[dict[str, Any]]]:
    """Answers for consecutive rounds: a sticky auth or network failure, skipped or forced retries,
    a success that clears the flags, then unrelated failures; or a run of timeouts."""
    sticky = rng.choice([
        {"raise": {"cls": "APIStatusError", "msg": "boom", "status_code": 401}},
        {"raise": {"cls": "ConnectionError", "base": "ConnectionError", "msg": "boom"}},
        {"raise": {"cls": "Exception", "msg": "Request timed out."}},
        {"raise": {"cls": "Exception", "msg": "quota exceeded"}},
    ])
    generic = {"raise": {"cls": "Exception", "msg": "Error code: 500 - upstream exploded"}}
    success = {"text": C.summary_text(rng)}
    plan = [[sticky], [generic], [generic], [success], [generic], [sticky], [success]]
    return [rng.choice(plan) if rng.random() < 0.2 else plan[i % len(plan)] for i in range(rounds)]
