"""Which release wrote a transcript's handoff summaries: each release's own output is recognised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import CompressorConfig, ContextCompressor
from core.inspections.release_detect import detect_release
from core.profiles import (
    END_MARKER,
    LEGACY_SUMMARY_PREFIX,
    PROFILES,
    STUB_RESULT,
    SUMMARY_PREFIX_V0_16_0,
    SUMMARY_PREFIX_V0_17_0,
)
from tests.helpers import asst, call, long_agent_run, tool, user

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
FAMILY = {"v0.15.1": "Hermes v0.15.1", "v0.16.0": "Hermes v0.16.0", "v0.18.0": "Hermes v0.18.0, v0.18.1 or v0.18.2",
          "v0.18.1": "Hermes v0.18.0, v0.18.1 or v0.18.2", "v0.19.0": "Hermes v0.19.0"}
# What the newest candidate is: v0.18.0 and v0.18.1 write the same summaries, so the newer is offered.
OFFERED = {"v0.18.0": "v0.18.1"}


def _failing(prompt: str, max_tokens: int) -> str:
    raise RuntimeError("provider down")


def _output(profile: str, summarizer) -> list[dict]:
    example = json.loads((GOLDEN / "delta_worked_example.json").read_text(encoding="utf-8"))
    config = CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile=profile)
    return ContextCompressor(config, summarizer=summarizer).compress(example["input"]).messages


@pytest.mark.parametrize("profile", list(PROFILES))
def test_each_release_is_recognised_from_its_own_merged_fallback(profile):
    guess = detect_release(_output(profile, _failing))
    assert guess is not None and guess.summaries == 1 and guess.indices == [2]
    if profile == "v0.17.0":
        # v0.17.0's merged fallback carries nothing v0.18.x could not also have written.
        assert (guess.family, guess.profile) == ("Hermes v0.17.0, v0.18.0, v0.18.1 or v0.18.2", "v0.18.1")
    else:
        assert (guess.family, guess.profile) == (FAMILY[profile], OFFERED.get(profile, profile))
    assert guess.sentence == f"The handoff summary here was written by {guess.family}."


def test_v0_18_0_merges_after_the_tail_text_and_strips_orphaned_calls():
    messages = long_agent_run(12)
    messages.insert(3, asst(None, [call("lost", "terminal", {"command": "ls"})]))
    messages.insert(4, user("and the docs?"))
    out = ContextCompressor(CompressorConfig(profile="v0.18.0"), summarizer=_failing).compress(messages).messages
    guess = detect_release(out)
    assert guess is not None and guess.family == "Hermes v0.18.0, v0.18.1 or v0.18.2"
    assert any("orphaned calls" in line or "merged after" in line or "fallback" in line
               for line in guess.evidence)


def test_a_v0_17_0_stub_result_tells_it_from_v0_18_0():
    summary = {"role": "user", "content": SUMMARY_PREFIX_V0_17_0 + "\n## Historical Task Snapshot\nNone.\n\n" + END_MARKER,
               "_compressed_summary": True}
    stub = {"role": "tool", "content": STUB_RESULT, "tool_call_id": "c1"}
    common = [user("go"), asst("ok"), summary, asst(None, [call("c1", "terminal", {"command": "ls"})])]
    with_stub = detect_release([*common, stub, user("next")])
    assert (with_stub.family, with_stub.profile) == ("Hermes v0.17.0", "v0.17.0")
    assert any("stub tool result" in line for line in with_stub.evidence)
    assert any("historical headings" in line for line in with_stub.evidence)
    without = detect_release([*common, tool("c1", "a.py"), user("next")])
    assert without.family == "Hermes v0.17.0, v0.18.0, v0.18.1 or v0.18.2"
    # Two summaries, one from each family: the newest names the release.
    older = {"role": "user", "content": SUMMARY_PREFIX_V0_16_0 + "\n## Active Task\nNone."}
    both = detect_release([older, *common, stub])
    assert both.summaries == 2 and both.family == "Hermes v0.17.0" and len(both.evidence) >= 2


def test_no_summary_and_the_legacy_prefix():
    assert detect_release(long_agent_run(3)) is None
    guess = detect_release([user("hi"), {"role": "user", "content": LEGACY_SUMMARY_PREFIX + " old notes"}])
    assert guess is not None and guess.profile is None and "early Hermes release" in guess.family
    assert guess.sentence == ("The handoff summary here was written by an early Hermes release (the "
                              "[CONTEXT SUMMARY]: prefix).")


def test_a_build_between_releases_reads_as_one_sentence():
    from core.profiles import HISTORICAL_PREFIX_V0_16_0

    guess = detect_release([user("hi"), {"role": "user", "content": HISTORICAL_PREFIX_V0_16_0 + "\n## Active Task\nx"}])
    assert guess.sentence == "The handoff summary here was written by a Hermes build between v0.15.1 and v0.16.0."
    assert guess.evidence == ["It starts with that handoff prefix."]
    assert "Hermes a build" not in guess.paragraph and "1 with" not in guess.paragraph
    assert guess.profile == "v0.16.0"


def test_the_v0_19_0_sentence_names_the_release():
    from core.profiles import SUMMARY_PREFIX_V0_19_0

    guess = detect_release([user("hi"), {"role": "user", "content": SUMMARY_PREFIX_V0_19_0 + "\n## Goal\nx"}])
    assert (guess.family, guess.profile) == ("Hermes v0.19.0", "v0.19.0")


def test_every_evidence_line_is_a_sentence_of_its_own():
    from core.profiles import HISTORICAL_PREFIX_V0_16_0

    summary = {"role": "user", "content": SUMMARY_PREFIX_V0_17_0 + "\n## Historical Task Snapshot\nNone.\n\n" + END_MARKER}
    older = {"role": "user", "content": HISTORICAL_PREFIX_V0_16_0 + "\n## Active Task\nx"}
    stub = {"role": "tool", "content": STUB_RESULT, "tool_call_id": "c1"}
    guess = detect_release([older, user("go"), summary, asst(None, [call("c1", "terminal", {"command": "ls"})]), stub])
    assert guess is not None and guess.summaries == 2
    for line in guess.evidence:
        assert (line[0].isupper() or line[0].isdigit()) and line.endswith("."), line
    # Two prefixes: each is named, with how many of the summaries carry it.
    assert sum(line.startswith("1 of the 2 starts with the handoff prefix of") for line in guess.evidence) == 2
    assert "1 stub tool result stands in" in guess.paragraph
