"""The offline summary is never longer than what it summarises: the release asks for at least 2,000
tokens whatever the middle holds, and a summary of a small middle keeps within the middle instead."""

from __future__ import annotations

import dataclasses

import pytest

from core import CompressorConfig, ContextCompressor
from core.phases.summary import strip_summary_prefix
from core.plan import plan
from core.profiles import PROFILES
from core.summarizers.extractive import ExtractiveSummarizer
from tests.helpers import asst, call, tool, user
from tests.helpers import sys as system


def small_session(rounds: int, lines: int) -> list[dict]:
    """A task, ``rounds`` short reads (``lines`` lines each), then a last request and its answer."""
    messages = [system(), user("Update CLAUDE.md to the current state of the project.")]
    for j in range(rounds):
        messages.append(asst(f"Reading docs/part{j}.md.", [call(f"c{j}", "read_file", {"path": f"docs/part{j}.md"})]))
        messages.append(tool(f"c{j}", "\n".join(f"- item {j}.{k}: uses src/mod{k}.ts and `pnpm test:{k}`"
                                                 for k in range(lines))))
    return [*messages, user("Now write the file."), asst("Writing CLAUDE.md.")]


def _config(profile: str) -> CompressorConfig:
    return CompressorConfig(profile=profile, protect_first_n=1, protect_last_n=2)


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_summary_of_a_small_middle_is_smaller_than_the_middle(profile):
    messages = small_session(rounds=6, lines=10)
    decided = plan(messages, _config(profile))
    request = decided.summary_request()
    room = request.room
    # What the release asks for is unchanged: the 2,000-token floor (and v0.19.0 sends no cap).
    assert request.summary_budget == 2000 and request.max_tokens == (None if profile == "v0.19.0" else 2600)
    assert room.replaced == decided.estimator.messages_tokens(decided.work[decided.compress_start:decided.compress_end])
    # Written to that budget, the offline summary outweighs the ten messages it replaces ...
    unbounded = ExtractiveSummarizer().summarize_request(dataclasses.replace(request, room=None))
    assert room.weigh(unbounded) > room.replaced
    # ... so it keeps to the room the middle leaves once the handoff's prefix is paid for.
    result = ContextCompressor(_config(profile), summarizer=ExtractiveSummarizer()).compress(messages)
    assert result.outcome == "summarized"
    body = strip_summary_prefix(result.assembly.summary_text, decided.profile)
    assert room.weigh(body) <= room.replaced
    estimate = decided.estimator.messages_tokens
    assert estimate(result.messages) < estimate(messages)
    assert "## Active Task" in body or "## Historical Task Snapshot" in body


def test_when_the_prefix_alone_outweighs_the_middle_the_summary_keeps_its_facts():
    messages = small_session(rounds=3, lines=8)
    decided = plan(messages, _config("v0.16.0"))
    request = decided.summary_request()
    room = request.room
    assert room.overhead > room.replaced  # no summary can make this compaction smaller
    body = ExtractiveSummarizer().summarize_request(request)
    # Cutting it would lose values and still not make the compaction smaller: the release's budget holds.
    assert body == ExtractiveSummarizer().summarize_request(dataclasses.replace(request, room=None))
    assert "docs/part1.md" in body and "`pnpm test:7`" in body


def test_a_long_middle_gets_the_release_s_budget():
    messages = small_session(rounds=60, lines=40)
    decided = plan(messages, dataclasses.replace(_config("v0.16.0"), summary_target_ratio=0.1))
    request = decided.summary_request()
    assert request.room.replaced - request.room.overhead > request.max_tokens  # the room does not bind
    assert ExtractiveSummarizer().summarize_request(request) == ExtractiveSummarizer().summarize_request(
        dataclasses.replace(request, room=None))
