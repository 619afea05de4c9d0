"""The whole request in ``analyze --json`` (the ``request`` object) and in the batch report."""

from __future__ import annotations

from core.batch import AnalysisSettings, process_file
from core.formats import load
from core.inspections.request import PARTS, ExactWeigher, request_breakdown
from core.tokens import encoding_name_for_model
from tests.inspections import request_fixtures as F


def test_analyze_json_has_the_request_object(cli, tmp_path):
    name, data = F.claude_code_session()
    path = tmp_path / name
    path.write_bytes(data)
    run = cli("analyze", path, "--json", "--model", "gpt-4o")
    assert run.code == 0, run.err
    request = run.json()["request"]
    live = load(path).live_context()  # analyze reads the context after the agent's compaction
    expected = request_breakdown(live, ExactWeigher("o200k_base"))
    assert {name: request[name] for name in PARTS} == expected.parts
    assert request["total"] == expected.total == sum(request[name] for name in PARTS)
    assert request["recorded_last_prompt"] == 14_900
    assert request["recorded_at_message"] == live.shown_cut.kept.index(5)  # message 5 of the full history
    assert request["trigger"]["source"] == "recorded" and request["trigger"]["would_compress"] is False

    readable = cli("analyze", path, "--model", "gpt-4o")
    assert f"{expected.total:,} whole request (o200k_base" in readable.out
    assert "last recorded prompt 14,900" in readable.out


def test_the_trigger_is_decided_on_the_recorded_prompt(cli, tmp_path):
    name, data = F.claude_code_session()
    path = tmp_path / name
    path.write_bytes(data)
    # v0.18.0 gives a 16,000-token window 85 % of itself: 13,600, below the recorded 14,900.
    report = cli("analyze", path, "--json", "--context-length", "16000").json()
    assert report["threshold_tokens"] == 13_600
    assert report["estimator_tokens"] < 13_600 < report["request"]["recorded_last_prompt"]
    assert report["request"]["trigger"] == {"tokens": 14_900, "source": "recorded", "threshold_tokens": 13_600,
                                            "would_compress": True}
    assert report["would_compress"] is True
    text = cli("analyze", path, "--context-length", "16000").out
    assert "yes: Hermes would compress now (the last recorded prompt is 14,900)" in text
    (row,) = process_file(str(path), AnalysisSettings(context_length=16_000).as_dict())
    assert row["would_compress"] is True
    wide = cli("analyze", path, "--context-length", "200000").out
    assert "no: the last recorded prompt is 14,900, below the threshold" in wide


def test_analyze_json_request_without_recorded_usage(cli, corpus):
    request = cli("analyze", corpus.mid, "--json").json()["request"]
    assert request["recorded_last_prompt"] is None and request["unrecorded_overhead"] == 0
    assert request["total"] == request["system"] + request["messages"]
    assert request["trigger"]["source"] == "estimate (hermes)"


def test_batch_rows_carry_the_request(tmp_path):
    name, data = F.codex_rollout()
    path = tmp_path / name
    path.write_bytes(data)
    (row,) = process_file(str(path), AnalysisSettings().as_dict())
    rollout = load(path)
    # No model configured: the request is counted with the log's own model's encoding.
    expected = request_breakdown(rollout, ExactWeigher(encoding_name_for_model(rollout.model)))
    assert expected.unit == "o200k_base"
    assert row["request_tokens"] == expected.total
    assert row["unrecorded_overhead"] == expected.unrecorded_overhead
    assert row["recorded_last_prompt"] == 4_300
    name, data = F.hermes_gateway()
    (tmp_path / name).write_bytes(data)
    (row,) = process_file(str(tmp_path / name), {})
    assert row["recorded_last_prompt"] is None
    assert row["request_tokens"] == request_breakdown(load(tmp_path / name)).total > row["exact_tokens"]
