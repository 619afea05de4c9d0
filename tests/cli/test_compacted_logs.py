"""``compress`` and ``batch`` on a log the agent compacted: the context it last sent by default (as
``analyze`` reads it), every message with ``--full-history``, and which part was read said in the output."""

from __future__ import annotations

import pandas as pd
import pytest

from core.formats import load
from tests.formats.test_live_context import CC_SUMMARY, CODEX_SUMMARY, claude_code_log, codex_rollout


@pytest.fixture(params=["claude-code", "codex"])
def compacted(request, tmp_path):
    """A compacted log, its full history and its live context."""
    if request.param == "claude-code":
        path = tmp_path / "cc-live.jsonl"
        path.write_bytes(claude_code_log(compactions=2))
        summary = CC_SUMMARY
    else:
        path = tmp_path / "rollout-2025-11-14T02-21-11-0199-live.jsonl"
        path.write_bytes(codex_rollout())
        summary = CODEX_SUMMARY
    full = load(path)
    live = full.live_context()
    assert 0 < len(live) < len(full)
    return path, full, live, summary


def _summary_at(full, summary: str) -> int:
    return [i for i, m in enumerate(full.messages) if str(m["content"]).startswith(summary)][-1]


def test_compress_reads_the_context_after_the_last_compaction(cli, tmp_path, compacted):
    path, full, live, summary = compacted
    out = tmp_path / "out.json"
    run = cli("compress", path, "-o", out, "--json")
    assert run.code == 0, run.err
    report = run.json()
    at = _summary_at(full, summary)
    assert report["messages_before"] == len(live)
    assert report["context"]["shown"] == "after_last_compaction"
    assert report["context"]["compaction_at"] == at
    assert report["context"]["messages_before_compaction"] == len(full) - len(live)
    assert report["context"]["full_history_messages"] == len(full)
    assert load(out).messages == live.messages  # below the threshold: written unchanged, from the summary on
    assert f"after the agent's compaction at message {at}" in run.err and "--full-history" in run.err

    whole = cli("compress", path, "-o", out, "--json", "--full-history")
    assert whole.code == 0, whole.err
    report = whole.json()
    assert report["messages_before"] == len(full)
    assert report["context"]["shown"] == "full_history" and report["context"]["compaction_at"] == at
    assert load(out).messages == full.messages
    assert "read the full history" in whole.err


def test_batch_rows_carry_the_context(cli, tmp_path, compacted):
    path, full, live, _ = compacted
    out = tmp_path / "report.csv"
    run = cli("batch", path, "-o", out, "--workers", "1", "--main-session-only")
    assert run.code == 0, run.err
    row = pd.read_csv(out).iloc[0]
    analyzed = cli("analyze", path, "--json").json()
    assert row["messages"] == len(live) == analyzed["messages"]
    assert row["exact_tokens"] == analyzed["exact_tokens"]
    for key in ("shown", "compaction_at", "compaction_kind", "messages_before_compaction", "full_history_messages"):
        assert row[f"context_{key}"] == analyzed["context"][key], key
    assert "1 row(s) read after the agent's last compaction" in run.out

    run = cli("batch", path, "-o", out, "--workers", "1", "--main-session-only", "--full-history")
    assert run.code == 0, run.err
    row = pd.read_csv(out).iloc[0]
    whole = cli("analyze", path, "--json", "--full-history").json()
    assert row["messages"] == len(full) == whole["messages"]
    assert row["context_shown"] == "full_history" and row["context_compaction_at"] == whole["context"]["compaction_at"]
    assert "read after" not in run.out


def test_a_log_without_compaction_reads_the_same_either_way(cli, corpus, tmp_path):
    out = tmp_path / "report.csv"
    assert cli("batch", corpus.mid, "-o", out, "--workers", "1").code == 0
    row = pd.read_csv(out).iloc[0]
    assert row["context_shown"] == "full_history" and pd.isna(row["context_compaction_at"])
    assert row["context_messages_before_compaction"] == 0
    run = cli("compress", corpus.mid, "-o", tmp_path / "out.json", "--json")
    assert run.json()["context"]["compaction_at"] is None
    assert "compaction" not in run.err


def test_replay_reads_the_context_after_the_last_compaction(cli, compacted):
    path, full, live, summary = compacted
    at = _summary_at(full, summary)
    run = cli("replay", path, "--json")
    assert run.code == 0, run.err
    document = run.json()
    assert document["context"]["shown"] == "after_last_compaction"
    assert document["context"]["compaction_at"] == at
    assert document["context"]["full_history_messages"] == len(full)
    whole = cli("replay", path, "--json", "--full-history")
    assert whole.code == 0, whole.err
    assert whole.json()["context"]["shown"] == "full_history"
    # The replay walks the messages it was given: the full history has turns the live context lacks.
    assert len(whole.json()["turns"]) > len(document["turns"])
