"""The figures of a status: growth, requests left, the gauge and the JSON line."""

from __future__ import annotations

import json
import math

from core.config import CompressorConfig
from core.formats import load
from core.inspections.request import request_report
from core.live.status import LiveStatus, growth_per_turn, measure
from core.plan import plan
from tests.live.helpers import SAMPLES


def test_growth_is_the_recent_mean_since_the_last_drop():
    assert growth_per_turn([]) is None and growth_per_turn([5]) is None
    assert growth_per_turn([100, 200, 300]) == 100
    assert growth_per_turn([100, 300, 280]) == 90  # a small dip is noise, not a compaction
    # A compaction (a fall of more than 10 %) starts the series again.
    assert growth_per_turn([1000, 2000, 3000, 500, 600, 700]) == 100
    assert growth_per_turn([1000, 2000, 3000, 500]) is None
    assert growth_per_turn([300, 300, 300]) is None  # not growing
    assert growth_per_turn(list(range(0, 2000, 10)) + [3000], recent=4) == (3000 - 1960) / 4


def test_a_recorded_log_is_measured_as_analyze_reports_it():
    conversation = load(SAMPLES / "claude_code_v2_session.jsonl")
    config = CompressorConfig()
    m = measure(conversation, config)
    report = request_report(conversation, config)
    assert m.request_tokens == report["total"] and m.trigger_source == "recorded"
    assert m.trigger_tokens == report["trigger"]["tokens"] == report["recorded_last_prompt"]
    assert m.would_compress is False and m.threshold_tokens == config.threshold_tokens
    assert m.growth_per_turn and m.growth_per_turn > 0
    assert m.turns_to_threshold == math.ceil((m.threshold_tokens - m.trigger_tokens) / m.growth_per_turn)
    decided = plan(conversation.messages, config)
    assert (m.zones.compress_start, m.zones.compress_end) == (decided.compress_start, decided.compress_end)
    assert m.zones.head + m.zones.middle + m.zones.tail == m.messages


def test_a_log_without_usage_grows_by_its_estimate():
    conversation = load(SAMPLES / "long_coding_session.json")
    config = CompressorConfig(context_length=400_000)
    m = measure(conversation, config)
    assert m.trigger_source == "estimate (hermes)" and m.recorded_last_prompt is None
    assert m.would_compress is False and m.growth_per_turn and m.turns_to_threshold > 0
    over = measure(conversation, CompressorConfig())
    assert over.would_compress is True and over.turns_to_threshold == 0


def test_too_few_messages_have_no_middle():
    conversation = load(SAMPLES / "copilot_cli_history_session.json")
    m = measure(conversation, CompressorConfig())
    assert m.zones.outcome == "too_small" and m.zones.middle == 0
    assert m.zones.head + m.zones.tail == m.messages


def _status(**figures) -> LiveStatus:
    conversation = load(SAMPLES / "claude_code_v2_session.jsonl")
    return LiveStatus(path="s.jsonl", state="live", event="start", sequence=1, time=0.0,
                      measurement=measure(conversation, CompressorConfig(**figures)))


def test_the_gauge_line():
    text = _status().gauge()
    assert text.startswith("[#####-----] 55% of threshold · 23 msgs · 52,337/96,000 tok · ~")
    assert text.endswith("turns to compaction")
    over = _status(context_length=60_000).gauge()
    assert over.startswith("[##########] ") and "Hermes would compress now (summarise messages 5-11)" in over
    stale = LiveStatus(path="s", state="missing", event="missing", sequence=2, time=0.0, note="no such file",
                       measurement=_status().measurement).gauge()
    assert stale.endswith(" · missing: no such file")
    assert LiveStatus(path="s", state="waiting", event="start", sequence=1, time=0.0,
                      note="the file is empty").gauge() == "[??????????] waiting: the file is empty"


def test_the_json_line_has_the_documented_keys():
    line = json.dumps(_status().to_dict())
    data = json.loads(line)
    for key in ("messages", "request_tokens", "threshold_tokens", "would_compress", "turns_to_threshold",
                "trigger_tokens", "zones", "new_compactions", "state", "event"):
        assert key in data
    empty = LiveStatus(path="s", state="waiting", event="start", sequence=1, time=0.0).to_dict()
    assert empty["messages"] is None and empty["zones"] is None
