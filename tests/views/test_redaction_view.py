"""core.views.redaction and the plan's summary request: the text a compression sends to its summarizer.

The preview must be the very text ``compress()`` puts in the summary prompt (checked against a
recording summarizer on every sample, both profiles, strict on and off), and every mask in it must
be located, named and counted.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import CompressorConfig, ContextCompressor
from core.formats import load
from core.plan import plan
from core.profiles import CONTENT_HEAD, CONTENT_TAIL, SERIALIZER_TRUNCATION_MARK
from core.redaction.hermes import redact_many, redact_sensitive_text
from core.redaction.strict import count_by_kind, redact_with_spans
from core.views.redaction import (
    REFERENCE,
    STRICT,
    mask_counter,
    redaction_view,
    reference_spans,
    strict_spans,
)
from tests.app.conftest import SAMPLES, sample_paths
from tests.helpers import CapturingExtractive, Recorder

SECRETS = SAMPLES / "secrets_in_tool_output.json"
# Fake credentials of the secrets sample that sit in the summarised turns (messages 4-20).
FAKE_SECRETS = (
    "hunter2-FAKE-pass",
    "sk-proj-FAKEKEY0000",
    "AKIAFAKEEXAMPLE00001",
    "FaKe/SeCrEt+KeY/0000/NotARealKey/EXAMPLE1",
    "FAKEsignatureNOTvalid",
    "dGhpcyBpcyBhIGZha2Uga2V5",
)


RECORDED = "## Active Task\nrecorded"


def _messages(path: Any) -> list[dict[str, Any]]:
    return load(str(path)).messages


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.name)
def test_the_preview_is_what_compress_sends(path):
    messages = _messages(path)
    for profile in ("v0.16.0", "v0.15.1"):
        for strict in (False, True):
            config = CompressorConfig(profile=profile, strict_redaction=strict)
            recording = Recorder(RECORDED)
            result = ContextCompressor(config, summarizer=recording).compress(messages)
            view = redaction_view(messages, config)
            assert view.located
            if not recording.calls:
                assert not view.calls_summarizer and view.text == "" and view.spans == []
                continue
            (prompt, max_tokens), = recording.calls
            request = view.plan.summary_request(result.summarizer_call.anchoring_date)
            assert request.prompt == prompt
            assert request.max_tokens == max_tokens
            assert view.text == result.summarizer_call.serialized_turns
            assert f"TURNS TO SUMMARIZE:\n{view.text}\n\n" in prompt or f"NEW TURNS TO INCORPORATE:\n{view.text}\n\n" in prompt
            assert (view.plan.turns_start, view.plan.compress_end) == (result.plan.turns_start, result.plan.compress_end)
            # Every mask is where it says, in order, without overlaps; blocks tile the text.
            previous_end = 0
            for span in view.spans:
                assert view.text[span.start:span.end] == span.masked
                assert span.start >= previous_end
                previous_end = span.end
            assert view.blocks[0][0] == 0 and view.blocks[-1][1] == len(view.text)
            assert len(view.blocks) == len(result.plan.pruned_messages[result.plan.turns_start:result.plan.compress_end])
            for (_a, end), (start, _b) in zip(view.blocks, view.blocks[1:], strict=False):
                assert view.text[end:start] == "\n\n"


def test_the_extractive_summarizer_receives_the_same_request():
    messages = _messages(SAMPLES / "long_coding_session.json")
    config = CompressorConfig()
    capturing = CapturingExtractive()
    received = capturing.requests
    today = datetime.datetime(2026, 7, 1, 9, 0, tzinfo=datetime.UTC)
    result = ContextCompressor(config, summarizer=capturing, wall_clock=lambda: today).compress(
        messages, focus_topic="parser")
    decided = plan(messages, config, focus_topic="parser")
    # It reads the turns, not the prompt: the request carries neither text, and everything else is the plan's.
    assert decided.summary_request("2026-07-01", prompt="", serialized_turns="") == received[0]
    assert result.summarizer_call.prompt == decided.summary_request("2026-07-01").prompt


def test_strict_counts_match_count_by_kind_and_no_fake_secret_is_sent():
    messages = _messages(SECRETS)
    on = redaction_view(messages, CompressorConfig(strict_redaction=True, profile="v0.16.0"))
    off = redaction_view(messages, CompressorConfig(strict_redaction=False, profile="v0.16.0"))

    # Independently: the pieces the serializer redacts, the profile's redaction, then the strict layer.
    result = ContextCompressor(CompressorConfig(profile="v0.16.0"), summarizer=Recorder(RECORDED)).compress(messages)
    turns = result.plan.pruned_messages[result.plan.turns_start:result.plan.compress_end]
    pieces: list[str] = []
    for message in turns:
        pieces.append(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            pieces.append(call["function"]["arguments"])
    profile_redacted = redact_many(pieces, release="v0.16.0")
    strict = [span for text in profile_redacted for span in redact_with_spans(text)[1]]
    assert count_by_kind(strict) == mask_counter(on.spans, STRICT)
    assert mask_counter(off.spans, STRICT) == {}
    assert sum(count_by_kind(strict).values()) >= 1

    for secret in FAKE_SECRETS:
        assert secret not in on.text, secret
    # The strict layer is what catches the AWS secret key: without it, it is sent.
    assert "FaKe/SeCrEt+KeY/0000/NotARealKey/EXAMPLE1" in off.text
    # Every reference mask is the profile's own: the text outside the masks is the unmasked text's.
    assert off.text == result.summarizer_call.serialized_turns
    assert {span.layer for span in off.spans} == {REFERENCE}
    assert mask_counter(off.spans, REFERENCE) == {
        "database-url": 6, "vendor-key": 2, "jwt": 1, "private-key": 1,
    }


@pytest.mark.parametrize(
    ("text", "masks"),
    [
        ("key sk-abcdefghijklmnopqrstuvwx end", [("sk-abc...uvwx", "vendor-key")]),
        ("OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx", [("***", "vendor-key")]),
        ("export DB_PASSWORD=hunter2hunter2", [("***", "env-assignment")]),
        ('{"password": "hunter2", "user": "bob"}', [("***", "json-field")]),
        ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123", [("abcdef...0123", "bearer-header")]),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
         [("[REDACTED PRIVATE KEY]", "private-key")]),
        ("see postgres://app:s3cretpw@db.internal:5432/x now", [("***", "database-url")]),
        ("user=bob&password=hunter2&token=abc", [("***", "form-field"), ("***", "form-field")]),
        ("  user=bob&password=hunter2&token=abc  ", [("***", "form-field"), ("***", "form-field")]),
        ("  a=1&api_key=sk-abcdefghijklmnopqrstuvwx&b=2", [("***", "vendor-key")]),
        ("call +4915112345678 today", [("+491****5678", "phone-number")]),
        ("bot123456789:AAEhBOweik9ai2o4ab_c-defghijklmnopqrstu", [("***", "telegram-token")]),
        ("nothing secret here", []),
    ],
)
def test_reference_masks_are_located_and_named(text, masks):
    out, spans = reference_spans(text, release="v0.16.0")
    assert out == redact_sensitive_text(text, release="v0.16.0")
    assert [(out[start:end], kind) for start, end, kind in spans] == masks


def test_a_jwt_mask_and_the_discord_pass_of_v0_15_1():
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMDAwMDAw"
    out, spans = reference_spans(f"token {jwt} <@123456789012345678>", release="v0.15.1")
    assert out == redact_sensitive_text(f"token {jwt} <@123456789012345678>", release="v0.15.1")
    assert [(out[s:e], k) for s, e, k in spans] == [("eyJhbG...MDAw", "jwt"), ("***", "discord-mention")]


def test_strict_masks_replace_the_reference_ones_they_cover():
    text, spans = reference_spans("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ok")
    assert spans == []
    out, moved, added = strict_spans(text, spans)
    assert out == redact_with_spans(text)[0]
    assert moved == [] and [(out[s:e], k) for s, e, k in added] == [
        (span.masked, span.kind) for span in redact_with_spans(text)[1]
    ]
    assert "wJalrXUtnFEMI" not in out


def _tool_turns(output: str) -> list[dict[str, Any]]:
    """A conversation whose only summarised tool output is ``output``."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}]
    for i in range(3):
        messages += [{"role": "assistant", "content": f"step {i}"}, {"role": "user", "content": f"ok {i}"}]
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": "a.env"})}}
    messages += [{"role": "assistant", "content": "", "tool_calls": [call]},
                 {"role": "tool", "tool_call_id": "c1", "content": output}]
    for i in range(6):
        messages += [{"role": "user", "content": f"later {i}"}, {"role": "assistant", "content": f"done {i}"}]
    return messages


def test_masks_in_a_truncated_tool_output_are_placed_after_the_cut():
    head_key = "sk-" + "h" * 30
    hidden_key = "sk-" + "m" * 30
    tail_key = "sk-" + "t" * 30
    output = f"first {head_key} " + "x" * 5000 + f" {hidden_key} " + "y" * 5000 + f" {tail_key} last"
    messages = _tool_turns(output)
    config = CompressorConfig(protect_first_n=1, protect_last_n=4)
    recording = Recorder(RECORDED)
    result = ContextCompressor(config, summarizer=recording).compress(messages)
    view = redaction_view(messages, config)
    assert view.text == result.summarizer_call.serialized_turns
    assert SERIALIZER_TRUNCATION_MARK in view.text
    shown = [(span.masked, span.kind) for span in view.spans]
    assert shown == [("sk-hhh...hhhh", "vendor-key"), ("sk-ttt...tttt", "vendor-key")]
    redacted_output = redact_sensitive_text(output)
    tail_at = view.text.index(SERIALIZER_TRUNCATION_MARK) + len(SERIALIZER_TRUNCATION_MARK)
    assert view.text[tail_at:].startswith(redacted_output[-CONTENT_TAIL:])
    assert view.spans[1].start == tail_at + redacted_output[-CONTENT_TAIL:].index("sk-ttt")
    assert view.spans[0].start == view.text.index(redacted_output[:CONTENT_HEAD]) + redacted_output.index("sk-hhh")


def test_no_summary_call_means_nothing_is_sent():
    tiny = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    view = redaction_view(tiny, CompressorConfig(strict_redaction=True))
    assert view.plan.outcome == "too_small" and view.text == "" and view.count_frame().empty
    with pytest.raises(ValueError, match="no summary call"):
        view.plan.summary_request()


_FRAGMENTS = [
    "sk-abcdefghijklmnopqrstuvwx", "OPENAI_API_KEY=", "DB_PASSWORD=", '"token": "', '"', "Authorization: Bearer ",
    "postgres://u:pw@h/db", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "&password=x", "user=bob",
    "+4915112345678", "<@123456789012345678>", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----",
    "bot123456789:AAEhBOweik9ai2o4ab_c-defghijklmnopqrstu", " ", "\n", "=", ":", "x", "AKIAABCDEFGHIJKLMNOP",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=12), st.booleans())
def test_tracked_passes_give_the_reference_output_and_sane_spans(pieces, discord):
    text = "".join(pieces)
    out, spans = reference_spans(text, release="v0.15.1" if discord else "v0.16.0")
    assert out == redact_sensitive_text(text, release="v0.15.1" if discord else "v0.16.0")
    previous_end = 0
    for start, end, _kind in spans:
        assert previous_end <= start < end <= len(out)
        previous_end = end
    strict_out, moved, added = strict_spans(out, spans)
    assert strict_out == redact_with_spans(out)[0]
    assert [(s, e) for s, e, _k in added] == [(span.start, span.end) for span in redact_with_spans(out)[1]]
    for start, end, _kind in moved:
        assert 0 <= start < end <= len(strict_out)
        assert not any(s < end and start < e for s, e, _k in added)
