"""core.views.releases: each row is that release's own compression; the differences are named."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from core import CompressorConfig, ContextCompressor
from core.profiles import PROFILES
from core.render.releases import release_zones_html
from core.views.releases import compare_releases
from tests.helpers import Recorder, release_bands

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
NOW = datetime.datetime(2026, 7, 1, 12, 0, tzinfo=datetime.UTC)


def _example() -> list[dict]:
    return json.loads((GOLDEN / "delta_worked_example.json").read_text(encoding="utf-8"))["input"]


def test_every_row_is_the_release_s_own_compression():
    messages = _example()
    config = CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2)
    comparison = compare_releases(messages, config, lambda: Recorder("## Goal\nShip it."), now=NOW)
    table = comparison.table
    assert table["release"].tolist() == list(PROFILES)
    for row, release in zip(table.itertuples(), PROFILES, strict=True):
        own = ContextCompressor(
            CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2, profile=release),
            summarizer=Recorder("## Goal\nShip it."), wall_clock=lambda: NOW,
        ).compress(messages, force=True)
        assert (row.compress_start, row.compress_end, row.messages_after) == (
            own.plan.compress_start, own.plan.compress_end, len(own.messages))
        assert row.tokens_after == own.assembly.tokens_after
        assert comparison.run(release).result.messages == own.messages
    # The head ends with a user message and the tail starts with an assistant: merged in every release,
    # but v0.18.0 puts the summary after the tail message's text.
    layouts = table["summary_layout"].tolist()
    assert layouts[0] == "merged into the first tail message (before the first tail message's text)"
    assert layouts[3].startswith("merged into the first tail message (after the first tail message's text")
    assert layouts[2].endswith("_compressed_summary flag") and "flag" not in layouts[1]
    assert any("the summary is written as" in line and line.startswith("v0.17.0 → v0.18.0")
               for line in comparison.explanations)


def test_without_a_summarizer_v0_18_0_explains_its_new_failure_reason():
    messages = _example()
    config = CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2)
    comparison = compare_releases(messages, config, None, now=NOW)
    assert set(comparison.table["outcome"]) == {"fallback"}
    assert all("fallback text" in layout for layout in comparison.table["summary_layout"])
    bands = release_bands(release_zones_html(comparison))
    assert [release for release, _runs in bands] == list(PROFILES)
    for (release, runs), run in zip(bands, comparison.runs, strict=True):
        # Each band's runs, in order, are the release's zones message by message.
        assert [zone for zone, first, last in runs for _ in range(first, last + 1)] == run.zones, release
    assert comparison.moves("v0.15.1", "v0.18.0").empty


def test_moves_are_runs_of_messages_with_their_zones():
    from tests.helpers import long_agent_run

    messages = long_agent_run(40, size=3_000)
    comparison = compare_releases(messages, CompressorConfig(), lambda: Recorder("## Goal\nx"), now=NOW)
    moves = comparison.moves("v0.16.0", "v0.18.0")
    runs = comparison.run("v0.16.0").zones, comparison.run("v0.18.0").zones
    changed = [i for i, (a, b) in enumerate(zip(*runs, strict=True)) if a != b]
    assert moves["count"].sum() == len(changed)


def _as_compared(comparison) -> tuple:
    return (comparison.table.to_dict("records"), comparison.explanations,
            [run.result.messages for run in comparison.runs], [run.cooldown_s for run in comparison.runs])


def test_a_compression_made_elsewhere_stands_in_for_its_release_only_when_it_is_the_same_run():
    from core.summarizers.factory import make_summarizer
    from tests.helpers import long_agent_run

    messages = long_agent_run(40, size=3_000)
    config = CompressorConfig()
    plain = compare_releases(messages, config, lambda: make_summarizer("extractive"), now=NOW)

    # The dashboard's own run of the sidebar's release: real clocks, no force, its own Phase-1 plan.
    made = ContextCompressor(config, summarizer=make_summarizer("extractive"), wall_clock=lambda: NOW).compress(
        messages, on_crash="report")
    assert made.outcome == "summarized"
    shared = compare_releases(messages, config, lambda: make_summarizer("extractive"), now=NOW,
                              known={config.profile: made})
    assert shared.run(config.profile).result is made
    assert _as_compared(shared) == _as_compared(plain)

    # Dated another day (v0.17.0+ write the date into the prompt): made again, on the comparison's date.
    other_day = ContextCompressor(config, summarizer=make_summarizer("extractive"),
                                  wall_clock=lambda: NOW - datetime.timedelta(days=1)).compress(messages)
    redone = compare_releases(messages, config, lambda: make_summarizer("extractive"), now=NOW,
                              known={config.profile: other_day})
    assert redone.run(config.profile).result is not other_day
    assert _as_compared(redone) == _as_compared(plain)

    # A failed summary leaves a cooldown the comparison reports from its own run: made again too.
    from core.summarizers.failing import FailingSummarizer

    failing = lambda: FailingSummarizer("timeout")  # noqa: E731
    failed = ContextCompressor(config, summarizer=failing(), wall_clock=lambda: NOW).compress(messages)
    assert failed.outcome != "summarized"
    plain_failing = compare_releases(messages, config, failing, now=NOW)
    with_failed = compare_releases(messages, config, failing, now=NOW, known={config.profile: failed})
    assert with_failed.run(config.profile).result is not failed
    assert with_failed.run(config.profile).cooldown_s == plain_failing.run(config.profile).cooldown_s > 0


def test_the_releases_that_weigh_messages_alike_share_one_phase1_plan_and_compress_as_with_their_own():
    from core.plan import prepare
    from tests.helpers import long_agent_run

    messages = long_agent_run(40, size=3_000)
    config = CompressorConfig()
    asked: list[str] = []

    def own_plan(release_config):
        asked.append(release_config.profile)
        return prepare(messages, release_config)

    own = compare_releases(messages, config, lambda: Recorder("## Goal\nx"), now=NOW, prune_plan=own_plan)
    assert asked == list(PROFILES)
    shared = compare_releases(messages, config, lambda: Recorder("## Goal\nx"), now=NOW)
    assert _as_compared(shared) == _as_compared(own)
    plans = {id(run.result.plan.prune_plan) for run in shared.runs}
    assert 1 < len(plans) < len(PROFILES)


def test_the_release_bands_show_runs_that_are_not_contiguous_and_name_the_counts():
    from core.views.releases import ReleaseComparison, ReleaseRun, runs_of

    zones = ["HEAD", "HEAD", "MIDDLE", "HEAD", "MIDDLE", "MIDDLE", "TAIL"]
    assert runs_of(zones) == [("HEAD", 0, 1), ("MIDDLE", 2, 2), ("HEAD", 3, 3), ("MIDDLE", 4, 5), ("TAIL", 6, 6)]
    one = compare_releases(_example(), CompressorConfig(context_length=100_000, protect_first_n=1, protect_last_n=2),
                           None, releases=["v0.19.0"], now=NOW).runs[0]
    drawn = ReleaseComparison([ReleaseRun("v0.19.0", one.result, 1, True, zones)], len(zones))
    markup = release_zones_html(drawn)
    assert release_bands(markup) == [("v0.19.0", runs_of(zones))]
    assert "HEAD 3 · MIDDLE 3 · TAIL 1" in markup
    assert markup.count('data-chart="release_zones"') == 1 and "<script" not in markup


def test_a_band_of_a_conversation_too_small_to_compress_says_it_is_left_whole():
    tiny = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    comparison = compare_releases(tiny, CompressorConfig(), None, now=NOW)
    assert set(comparison.table["outcome"]) == {"too_small"}
    markup = release_zones_html(comparison)
    assert markup.count("UNCHANGED 2</span>") == len(PROFILES)
    assert "HEAD 0" not in markup


def test_a_conversation_too_small_to_run_keeps_its_size_in_the_table():
    """A release measures nothing on a conversation too small to run (its plan's figure is 0): the row
    says how large the conversation is by that release's estimate, unchanged after, nothing saved."""
    from core import ContextCompressor

    tiny = [{"role": "user", "content": "hi " * 40}, {"role": "assistant", "content": "hello " * 30}]
    table = compare_releases(tiny, CompressorConfig(), None, now=NOW).table
    for release, before, after, saved in zip(table["release"], table["tokens_before"], table["tokens_after"],
                                             table["savings_pct"], strict=True):
        plan = ContextCompressor(CompressorConfig(profile=release)).compress(tiny).plan
        assert plan.display_tokens == 0
        assert before == after == plan.estimator.messages_tokens(tiny) > 20, release
        assert saved == 0.0
