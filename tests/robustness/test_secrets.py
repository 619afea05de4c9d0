"""No credential reaches a summarizer when strict redaction is on; the reference masks its own kinds.

Every line of the credential corpora (``tests/data/secrets``, tuning and held-out) is placed in a
conversation as user text, as tool-call arguments and as tool output, in the middle of the
conversation so it is summarised. The text the summarizer receives is captured two ways: a
recording ``fn(prompt, max_tokens)`` and a recording wrapper around the extractive summarizer's
``summarize_request`` (the prompt, the serialised turns and the redacted turns themselves).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.profiles import DEFAULT_PROFILE
from core.redaction.hermes import redact_sensitive_text
from tests.app.conftest import download_bytes, go, media_files, new_app, run, sidebar_config, upload  # noqa: F401
from tests.helpers import CapturingExtractive, Recorder, strings_in
from tests.robustness.corpus import SECRETS


def _rows(name: str) -> list[dict[str, Any]]:
    with (SECRETS / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


CORPORA = {"credentials": _rows("credentials.jsonl"), "heldout": _rows("heldout.jsonl")}
PLACEMENTS = ("user_text", "tool_args", "tool_output")
PAD = "The build log line is ordinary text without anything secret in it. " * 30


def _windows(secret: str) -> set[str]:
    """The secret's 12-character pieces, raw and JSON-escaped (a short secret is its own piece).

    A mask keeps at most the first 6 and last 4 characters, so no 12-character piece survives it.
    """
    pieces: set[str] = set()
    for form in {secret, json.dumps(secret)[1:-1]}:
        pieces |= {form} if len(form) <= 12 else {form[i:i + 12] for i in range(len(form) - 11)}
    return pieces


_EVERY_TEXT = "\x00".join(row["text"] for rows in CORPORA.values() for row in rows) + "\x00" + PAD


@functools.cache
def _attributable(secret: str, text: str) -> tuple[str, ...]:
    """The pieces of ``secret`` that occur in no other corpus line (the generated values share
    prefixes such as ``sk_test_FAKE``), so finding one in a prompt pins the leak on this row."""
    pieces = tuple(sorted(p for p in _windows(secret) if _EVERY_TEXT.count(p) == text.count(p)))
    assert pieces, f"no piece of {secret!r} is unique to its line"
    return pieces


def leaked(row: dict[str, Any], seen: str) -> bool:
    """Some piece of the row's secret that belongs to no other row is in ``seen``."""
    return any(piece in seen for piece in _attributable(row["secret"], row["text"]))


def placed_text(row: dict[str, Any], placement: str) -> str:
    """The exact string the conversation carries for ``row`` in ``placement``."""
    text = row["text"]
    if placement != "tool_args":
        return text
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    return text if isinstance(parsed, dict) else json.dumps({"command": text})


def conversation(rows: list[dict[str, Any]], placement: str, long_outputs: bool = False) -> tuple[list[dict[str, Any]], range]:
    """A conversation carrying every row in ``placement``; also the index range of those messages."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Please set up the deployment for the staging cluster."},
        {"role": "assistant", "content": "Sure, let me look around first."},
    ]
    start = len(messages)
    for i, row in enumerate(rows):
        call_id = f"call_{i}"
        text = placed_text(row, placement)
        if placement == "user_text":
            content: Any = text if i % 2 else [{"type": "text", "text": text}]
            messages += [{"role": "user", "content": content}, {"role": "assistant", "content": "Noted."}]
        elif placement == "tool_args":
            messages += [
                {"role": "assistant", "content": None,
                 "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "terminal", "arguments": text}}]},
                {"role": "tool", "tool_call_id": call_id, "content": "exit code 0" + (PAD if long_outputs else "")},
            ]
        else:
            args = json.dumps({"command": "cat deploy/config.env"})
            messages += [
                {"role": "assistant", "content": "Reading the config.",
                 "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "terminal", "arguments": args}}]},
                {"role": "tool", "tool_call_id": call_id, "content": text + ("\n" + PAD if long_outputs else "")},
            ]
    end = len(messages)
    # A tail of ordinary messages that fills the kept-verbatim budget, so the rows are summarised.
    for i in range(40):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"Step {i}. {PAD}"})
    return messages, range(start, end)


def run_compressor(rows: list[dict[str, Any]], placement: str, summarizer: Any, *, strict: bool,
                   prune: bool = False, profile: str = DEFAULT_PROFILE) -> tuple[Any, range]:
    messages, rows_at = conversation(rows, placement, long_outputs=prune)
    config = CompressorConfig(
        context_length=64_000,
        summary_target_ratio=0.1,
        protect_first_n=1,
        # No Phase-1 pruning unless asked: every row then reaches the summarizer verbatim.
        protect_last_n=20 if prune else len(messages),
        strict_redaction=strict,
        profile=profile,
    )
    result = ContextCompressor(config, summarizer=summarizer).compress(messages)
    assert result.compressed, result.outcome
    # The rows really are in the summarised span.
    assert result.plan.compress_start is not None and result.plan.compress_end is not None
    assert result.plan.compress_start <= rows_at.start and rows_at.stop <= result.plan.compress_end, (
        result.plan.compress_start, result.plan.compress_end, rows_at)
    return result, rows_at


# --------------------------------------------------------------------------------------------
# Strict redaction on: nothing gets through
# --------------------------------------------------------------------------------------------

@pytest.mark.timeout(300)
@pytest.mark.parametrize("corpus", sorted(CORPORA))
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("kind", ["prompt", "extractive"])
def test_no_credential_reaches_the_summarizer_with_strict_redaction(corpus: str, placement: str, kind: str) -> None:
    rows = CORPORA[corpus]
    summarizer: Any = Recorder() if kind == "prompt" else CapturingExtractive()
    result, _ = run_compressor(rows, placement, summarizer, strict=True)
    seen = summarizer.seen()
    assert seen, "nothing was captured"
    assert result.outcome == "summarized", result.failure_reason
    assert [row["id"] for row in rows if leaked(row, seen)] == []
    # Nor in what the compressor hands back (the summary message and the call record).
    summary = (result.assembly.summary_text if result.assembly else None) or ""
    assert [row["id"] for row in rows if leaked(row, summary)] == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_no_credential_reaches_the_summarizer_after_phase1_pruning(placement: str) -> None:
    """With long tool outputs Phase 1 writes one-liners quoting (cut) arguments; they are redacted too."""
    rows = CORPORA["credentials"] + CORPORA["heldout"]
    summarizer = Recorder()
    result, _ = run_compressor(rows, placement, summarizer, strict=True, prune=True)
    if placement != "user_text":
        assert result.plan.pruned_count > 0
    assert [row["id"] for row in rows if leaked(row, summarizer.seen())] == []


# --------------------------------------------------------------------------------------------
# Strict redaction off: the reference masking, exactly
# --------------------------------------------------------------------------------------------

#: The families of the reference redaction (hermes-compressor spec section 6.1) and the corpus kinds in each.
REFERENCE_FAMILIES = {
    "vendor prefixes": {"openai-key", "anthropic-key", "github-token", "github-pat", "github-oauth", "slack-token",
                        "google-api-key", "aws-access-key-id", "stripe-live-key", "stripe-test-key",
                        "stripe-restricted-live", "huggingface-token", "replicate-token", "npm-token", "pypi-token",
                        "digitalocean-token", "groq-key", "xai-key", "perplexity-key", "tavily-key", "elevenlabs-key",
                        "fal-key", "firecrawl-key", "exa-key", "fernet-token", "sendgrid-key-prefix"},
    "env assignments": {"env-assignment"},
    "JSON fields": {"json-secret-field"},
    "bearer": {"bearer-token"},
    "telegram": {"telegram-bot-token"},
    "private keys": {"private-key-rsa", "private-key-openssh", "private-key-ec"},
    "DB URLs": {"db-url-password", "mongodb-url-password"},
    "JWTs": {"jwt"},
}
FAMILY_KINDS = set().union(*REFERENCE_FAMILIES.values())


def test_the_reference_families_are_all_in_the_corpus() -> None:
    kinds = {row["kind"] for row in CORPORA["credentials"] if row["reference"]}
    assert FAMILY_KINDS <= kinds, FAMILY_KINDS - kinds


@pytest.mark.timeout(300)
@pytest.mark.parametrize("placement", ["user_text", "tool_output"])
def test_reference_redaction_masks_its_own_kinds_in_plain_text(placement: str) -> None:
    """Strict mode off: every spec 6.1 family written in plain text never reaches the summarizer."""
    rows = [row for corpus in CORPORA.values() for row in corpus
            if row["kind"] in FAMILY_KINDS and row["context"] in ("user_text", "tool_output")]
    assert {row["kind"] for row in rows} == FAMILY_KINDS
    summarizer = Recorder()
    run_compressor(rows, placement, summarizer, strict=False)
    survivors = [row["id"] for row in rows if leaked(row, summarizer.seen())]
    assert survivors == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_without_strict_the_prompt_leaks_exactly_what_the_reference_leaks(placement: str) -> None:
    """The capture is real: with strict off, a row reaches the prompt exactly when the reference
    redaction alone would let it through (so the strict tests above are not passing vacuously)."""
    rows = CORPORA["credentials"]
    summarizer = Recorder()
    # v0.16.0: one redaction of each text (from v0.17.0 the prompt also quotes recent user turns as the
    # focus, and v0.18.0's line-anchored passes see list content only as its one-line repr).
    run_compressor(rows, placement, summarizer, strict=False, profile="v0.16.0")
    seen = summarizer.seen()
    mismatches = []
    for row in rows:
        text = placed_text(row, placement)
        if len(text) > 1_200:  # the serialiser cuts long tool arguments; nothing to compare there
            continue
        expected = leaked(row, redact_sensitive_text(text, release="v0.16.0"))
        if leaked(row, seen) != expected:
            mismatches.append((row["id"], expected))
    assert mismatches == []
    leaking = [row["id"] for row in rows if leaked(row, seen)]
    strict_only = [row for row in rows if not row["reference"]]
    assert len(leaking) >= len(strict_only) // 2, "the strict-only kinds should visibly get through without strict"


# --------------------------------------------------------------------------------------------
# The dashboard's Redaction preview
# --------------------------------------------------------------------------------------------


def _row_message(placement: str, position: int, start: int) -> int:
    """The conversation index of the message carrying row ``position`` (see ``conversation``)."""
    return start + 2 * position + (1 if placement == "tool_output" else 0)


def _pieces(message: dict[str, Any]) -> str:
    return "\n".join(strings_in(message.get("content"))) + "\n".join(
        str(call.get("function", {}).get("arguments", "")) for call in message.get("tool_calls") or [])


@pytest.mark.timeout(600)
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_redaction_preview_masks_every_credential(placement: str, media_files: dict[str, bytes]) -> None:  # noqa: F811
    """Strict on in the preview: every line whose secret is in the summarised text gets a mask in its
    message, and the text offered for download (exactly what is sent) holds no secret."""
    rows = CORPORA["credentials"] + CORPORA["heldout"]
    messages, rows_at = conversation(rows, placement)
    at = new_app()
    upload(at, f"credentials_{placement}.json", json.dumps({"messages": messages}).encode())
    assert not at.error, [e.value for e in at.error]
    go(at, "redaction_preview")
    at.toggle(key="preview_strict").set_value(True)
    run(at)
    assert at.toggle(key="preview_strict").value is True
    # What the page's parameters summarise, worked out with the library alone.
    config = dataclasses.replace(sidebar_config(at), strict_redaction=True)
    result = ContextCompressor(config, summarizer=lambda prompt, max_tokens: "x").compress(messages)
    assert result.plan.turns_start is not None and result.plan.compress_end is not None
    reaching = []
    for position, row in enumerate(rows):
        index = _row_message(placement, position, rows_at.start)
        if result.plan.turns_start <= index < result.plan.compress_end and row["secret"] in _pieces(result.plan.pruned_messages[index]):
            reaching.append((row, index))
    assert len(reaching) > len(rows) // 2, "most lines must reach the summarised text for this test to mean anything"
    # Every one of them is marked in its own message.
    spans = next(f.value for f in at.dataframe if list(f.value.columns) == ["turn", "layer", "kind", "mask"])
    marked = set(spans["turn"])
    assert [row["id"] for row, index in reaching if index not in marked] == []
    # Nothing of any secret is in the text as sent (downloaded whole, not the on-page excerpt).
    button = next(b for b in at.get("download_button") if b.proto.label == "Download this text")
    sent = download_bytes(media_files, button).decode("utf-8")
    assert sent == result.summarizer_call.serialized_turns
    assert [row["id"] for row in rows if leaked(row, sent)] == []
