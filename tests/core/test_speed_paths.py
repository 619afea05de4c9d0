"""The shortcuts taken for speed give exactly what the plain computation gives.

Each one is checked against the plain statement of the same thing on generated inputs: the redaction
probes against their patterns, the lower bound of the rough estimate against the estimate, the
summary budget taken from that bound against the budget of the exact estimate, deduplication that
hashes each distinct text once against hashing every candidate, and a compression whose summarizer
reads only the prompt against one that reads the whole request.
"""

from __future__ import annotations

import copy
import hashlib
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core import CompressorConfig, ContextCompressor
from core import profiles as P
from core.phases import summary
from core.phases.prune import DEDUPLICATED, dedup_tool_results, prune_old_tool_results
from core.plan import plan
from core.redaction import hermes as H
from core.redaction.hermes import redact_many, redact_sensitive_text
from core.tokens import estimate_messages_tokens_rough, make_estimator, rough_chars_at_least
from tests.helpers import Recorder, asst, sys, tool, user

from .test_fast_paths import _PIECES, _estimated_message
from .test_properties import conversations

# Header names, YAML keys and their near misses, with the characters the patterns fold (the Kelvin
# sign, the long s, the dotless i) and Unicode whitespace around the colon.
_HEADER_PIECES = [
    "x-api-key", "X-API-KEY", "x-goog-api-key", "api-key", "apikey", "x-api-token", "x-auth-token", "X-Access-Token",
    "ke", "y", "\u212aey", "to", "ken", "api_key", "secret", "paſſword", "passwd", "credentıal", "token", "auth",
    ":", " :", "\t:", "\u00a0:", ": ", ":\u2003", "value", "'q'", '"q"', "&", "\n", "  ", "-", ".", "_", "a", "Z", "0",
    "https://", "://", "é",
]
_header_texts = st.lists(st.one_of(st.sampled_from(_HEADER_PIECES), st.sampled_from(_PIECES)), max_size=16).map("".join)


@settings(max_examples=2500, deadline=None)
@given(_header_texts)
def test_the_header_and_yaml_probes_find_something_wherever_their_patterns_match(text):
    if H._KEY_HEADER_RE.search(text):
        assert H._KEY_HEADER_PROBE_RE.search(text)
        assert H._KEY_HEADER_PROBE_RE.search("\x00".join(["x", text, "y"]))
    if H._YAML_KEY_RE.search(text):
        assert H._YAML_KEY_PROBE_RE.search(text)
        assert H._YAML_KEY_PROBE_RE.search("\x00".join(["x", text, "y"]))


def _plain_v0_18_header_and_yaml(text: str) -> str:
    """The two v0.18.0 passes the probes gate, as the reference runs them (its own substring gates)."""
    m = H.mask_secret
    if ":" in text and "://" not in text:
        text = re.sub(r"(^[ \t]*[A-Za-z0-9_.\-]*(?:api[ _.\-]?key|token|secret|passwd|password|credential)"
                      r"[A-Za-z0-9_.\-]*)(:[ \t]*)(?!['\"])([^\s&]+)",
                      lambda g: g.group(1) + g.group(2) + m(g.group(3)), text, flags=re.I | re.M)
    if ":" in text:
        text = re.sub(r"((?:x-api-key|x-goog-api-key|api-key|apikey|x-api-token|x-auth-token|x-access-token)\s*:\s*)(\S+)",
                      lambda g: g.group(1) + m(g.group(2)), text, flags=re.I)
    return text


@settings(max_examples=1500, deadline=None)
@given(_header_texts)
def test_the_gated_header_and_yaml_passes_equal_the_ungated_ones(text):
    passes = {p.kind: p for p in H.passes_for("v0.18.0")}
    got = text
    for kind in ("yaml-key", "api-key-header"):
        if passes[kind].gate(got):
            got = passes[kind].apply(got)
    assert got == _plain_v0_18_header_and_yaml(text)


@settings(max_examples=600, deadline=None)
@given(st.lists(_header_texts, max_size=6))
def test_batched_v0_18_0_redaction_equals_redacting_each_text(texts):
    assert redact_many(list(texts), release="v0.18.0") == [redact_sensitive_text(t, release="v0.18.0") for t in texts]


# --- the rough estimate's lower bound and the summary budget -----------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.lists(_estimated_message(), max_size=12))
def test_the_lower_bound_never_exceeds_the_rough_estimate(messages):
    chars = rough_chars_at_least(messages)
    assert (chars + 3) // 4 <= estimate_messages_tokens_rough(messages)
    estimator = make_estimator("hermes")
    assert estimator.messages_tokens_at_least(messages) <= estimator.messages_tokens(messages)


def test_the_lower_bound_counts_contents_and_arguments_of_plain_messages():
    call = {"id": "c", "type": "function", "function": {"name": "x", "arguments": "a" * 50}}
    messages = [{"role": "assistant", "content": "b" * 30, "tool_calls": [call, call]}, {"role": "tool", "content": "c" * 7}]
    assert rough_chars_at_least(messages) == 30 + 50 + 50 + 7
    looped: dict[str, Any] = {"role": "assistant", "content": "d" * 9}
    looped["tool_calls"] = [looped]  # the repr of a container inside itself is "{...}": nothing counted
    assert rough_chars_at_least([looped]) == 9 <= len(str(looped))


@settings(max_examples=300, deadline=None)
@given(conversations(), st.sampled_from(sorted(P.PROFILES)), st.sampled_from([8_000, 64_000, 128_000, 400_000]),
       st.sampled_from(["hermes", "tiktoken"]))
def test_the_budget_equals_the_budget_of_the_exact_estimate(messages, profile, context_length, estimator_name):
    config = CompressorConfig(context_length=context_length, protect_last_n=4, profile=profile,
                              token_estimator=estimator_name)
    decided = plan(messages, config, current_tokens=10**6)
    if not decided.calls_summarizer:
        assert decided.content_tokens == 0
        return
    exact = make_estimator(estimator_name, "", config.release.budget_weight).messages_tokens(decided.turns)
    assert decided.content_tokens == exact
    assert decided.summary_budget == summary.summary_budget(exact, config.max_summary_tokens)
    capped = config.release.sends_max_tokens  # v0.19.0 sends no output cap
    assert decided.max_tokens == (summary.max_tokens_for_budget(decided.summary_budget) if capped else None)


def test_a_long_middle_gets_the_capped_budget_and_its_estimate_on_request():
    messages = [sys()] + [user("w " * 10_000) if i % 2 else asst("v " * 10_000) for i in range(20)]
    config = CompressorConfig(context_length=64_000, protect_last_n=4)
    decided = plan(messages, config, current_tokens=10**6)
    assert decided.measured_content_tokens is None  # the bound alone settled the budget
    assert decided.summary_budget == config.max_summary_tokens
    assert decided.content_tokens == estimate_messages_tokens_rough(decided.turns)
    assert decided.content_tokens // 5 >= config.max_summary_tokens


# --- deduplication ---------------------------------------------------------------------------------------


def _dedup_hashing_everything(messages: list[Any]) -> tuple[list[Any], int]:
    result = list(messages)
    seen: set[str] = set()
    pruned = 0
    for i in range(len(result) - 1, -1, -1):
        m = result[i]
        if not isinstance(m, dict) or m.get("role") != "tool":
            continue
        content = m.get("content")
        if not isinstance(content, str) or len(content) < P.DEDUP_MIN_CHARS:
            continue
        key = hashlib.md5(content.encode("utf-8", errors="replace")).hexdigest()[:12]
        if key in seen:
            result[i] = {**m, "content": P.DEDUP_PLACEHOLDER}
            pruned += 1
        else:
            seen.add(key)
    return result, pruned


class _EqualToEverything(str):
    """A str subclass that claims equality with (and hashes like) any text: it must still be hashed itself."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


_outputs = st.sampled_from(["x" * 250, "y" * 250, "x" * 251, "\ud800" + "z" * 300, "é" * 210])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_outputs, _outputs.map(lambda t: t[:-1] + "q"), _outputs.map(_EqualToEverything),
                          st.just("short"), st.just(None)), max_size=14))
def test_hashing_each_distinct_output_once_equals_hashing_every_output(outputs):
    messages = [tool(f"c{i}", text) for i, text in enumerate(outputs)]
    expected, expected_count = _dedup_hashing_everything(messages)
    got = list(messages)
    actions: dict[int, list[str]] = {}
    assert dedup_tool_results(got, actions) == expected_count
    assert got == expected
    assert sorted(actions) == sorted(i for i, m in enumerate(expected) if m is not messages[i])
    assert all(v == [DEDUPLICATED] for v in actions.values())


# --- the summary call ----------------------------------------------------------------------------------------


class _RequestReader:
    def __init__(self) -> None:
        self.requests: list[Any] = []

    def summarize_request(self, request: Any) -> str:
        self.requests.append(request)
        return "## Active Task\nNone."


@settings(max_examples=150, deadline=None)
@given(conversations(), st.sampled_from(sorted(P.PROFILES)))
def test_a_prompt_reader_and_a_request_reader_get_the_same_call(messages, profile):
    config = CompressorConfig(context_length=8_000, protect_last_n=3, profile=profile)
    prompt_reader, request_reader = Recorder(), _RequestReader()
    by_prompt = ContextCompressor(config, summarizer=prompt_reader).compress(messages, current_tokens=10**6)
    by_request = ContextCompressor(config, summarizer=request_reader).compress(messages, current_tokens=10**6)
    assert by_prompt.messages == by_request.messages
    assert len(prompt_reader.calls) == len(request_reader.requests)
    for (prompt, max_tokens), request, one, other in zip(
        prompt_reader.calls, request_reader.requests, by_prompt.summarizer_calls, by_request.summarizer_calls, strict=True
    ):
        assert (prompt, max_tokens) == (request.prompt, request.max_tokens)
        assert request.turns == summary.redacted_turns(one.plan.turns, one.plan.redaction.redact)
        assert (one.prompt, one.max_tokens, one.summary_budget, one.serialized_turns, one.content_tokens, one.iterative) == (
            other.prompt, other.max_tokens, other.summary_budget, other.serialized_turns, other.content_tokens,
            other.iterative,
        )
        assert one.iterative == bool(request.previous_summary)


@settings(max_examples=150, deadline=None)
@given(conversations(), st.sampled_from(sorted(P.PROFILES)))
def test_redacted_turns_share_only_what_redaction_leaves_as_it_was(messages, profile):
    def plain_copy(message: Any) -> Any:
        # What the turns were before sharing: every turn copied, its texts redacted.
        if not isinstance(message, dict):
            return redact(str(message))
        out = dict(message)
        content = message.get("content")
        if isinstance(content, str):
            out["content"] = redact(content)
        elif isinstance(content, list):
            out["content"] = [{**p, "text": redact(p["text"])} if isinstance(p, dict) and isinstance(p.get("text"), str)
                              else redact(p) if isinstance(p, str) else p for p in content]
        elif content is not None:
            out["content"] = redact(str(content))
        if isinstance(message.get("tool_calls"), list):
            out["tool_calls"] = [
                {**c, "function": {**c["function"], "arguments": redact(a if isinstance(a, str) else str(a))}}
                if isinstance(c, dict) and isinstance(c.get("function"), dict)
                and (a := c["function"].get("arguments")) is not None
                else {**c, "function": dict(c["function"])} if isinstance(c, dict) and isinstance(c.get("function"), dict)
                else c
                for c in message["tool_calls"]]
        return out

    redact = plan(messages, CompressorConfig(profile=profile)).redaction.redact
    before = copy.deepcopy(messages)
    turns = summary.redacted_turns(messages, redact)
    assert turns == [plain_copy(m) for m in messages]
    assert messages == before
    for message, turn in zip(messages, turns, strict=True):
        if turn is message:
            assert type(message) is dict and plain_copy(message) == message


# --- Phase 1 copies only what it changes -----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(conversations(), st.sampled_from(sorted(P.PROFILES)), st.booleans())
def test_no_output_message_is_one_of_the_callers_dicts(messages, profile, abort):
    config = CompressorConfig(context_length=8_000, protect_last_n=3, profile=profile, abort_on_summary_failure=abort)
    before = copy.deepcopy(messages)
    summarizer = Recorder() if not abort else None
    result = ContextCompressor(config, summarizer=summarizer).compress(messages, current_tokens=10**6)
    if result.outcome == "too_small":  # the reference returns the input itself there
        assert result.messages is messages
        return
    inputs = {id(m) for m in messages}
    assert not any(id(m) in inputs for m in result.messages if isinstance(m, dict))
    for message in result.messages:
        if isinstance(message, dict):
            message["content"] = "scribbled"
    assert messages == before


def test_prune_old_tool_results_hands_out_copies():
    messages = [user("a"), asst("b"), tool("c", "x" * 300), user("d")]
    result = prune_old_tool_results(messages, 1)
    assert result.messages == [m if i != 2 else result.messages[2] for i, m in enumerate(messages)]
    assert all(out is not m for out, m in zip(result.messages, messages, strict=True))
