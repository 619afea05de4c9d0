"""The sessions index: which files are sessions, the cache that makes a rescan cheap, search and sort."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

import core.live.index as index_module
from core.config import CompressorConfig
from core.formats import load
from core.inspections.request import request_report
from core.live.index import SessionIndex, discover
from core.message_view import content_text
from tests.live.helpers import SAMPLES, append

CLAUDE = ".claude/projects/-home-dev-ledgerline"
CODEX = ".codex/sessions/2026/03/22"
GEMINI = ".gemini/tmp/5d41e0c8/chats"


def _home(tmp_path: Path) -> Path:
    """A home folder laid out as the agents write it, with files that are not sessions beside them."""
    home = tmp_path / "home"
    files = {
        f"{CLAUDE}/72e04900-fcf9-4a53-ab1a-9216228923a4.jsonl": "claude_code_v2_session.jsonl",
        f"{CLAUDE}/5c1d7a2e.jsonl": "claude_code_session.jsonl",
        f"{CLAUDE}/5c1d7a2e/subagents/agent-a1b2.jsonl": "claude_code_session.jsonl",  # part of its session
        f"{CODEX}/rollout-2026-03-22T10-00-00-21be3e9c.jsonl": "codex_rollout.jsonl",
        f"{GEMINI}/session-2025-10-14T09-00-eefc764c.json": "gemini_cli_session.json",
        f"{GEMINI}/session-2026-05-26T14-00-a0846826.jsonl": "gemini_cli_session.jsonl",
        ".hermes/state.db": "hermes_state.db",
    }
    for target, sample in files.items():
        path = home / target
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SAMPLES / sample, path)
    (home / ".gemini/tmp/5d41e0c8/logs.json").write_text("[]", encoding="utf-8")
    (home / ".hermes/config.yaml").write_text("model: x\n", encoding="utf-8")
    (home / ".codex/sessions/notes.txt").write_text("no\n", encoding="utf-8")
    return home


def _roots(home: Path) -> list[Path]:
    return [home / ".claude/projects", home / ".codex/sessions", home / ".gemini/tmp", home / ".hermes"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return _home(tmp_path)


def test_discover_keeps_the_session_files_of_each_layout(home):
    found, missing = discover([*_roots(home), home / "nowhere"])
    names = sorted(Path(path).name for path in found)
    assert names == ["5c1d7a2e.jsonl", "72e04900-fcf9-4a53-ab1a-9216228923a4.jsonl",
                     "rollout-2026-03-22T10-00-00-21be3e9c.jsonl", "session-2025-10-14T09-00-eefc764c.json",
                     "session-2026-05-26T14-00-a0846826.jsonl", "state.db"]
    assert missing == [str(home / "nowhere")]


def test_first_scan_rescan_and_changes(home, tmp_path):
    cache = tmp_path / "cache"
    index = SessionIndex(_roots(home), cache_dir=cache)
    first = index.refresh()
    assert (first.files, first.indexed, first.reused, first.failed) == (6, 6, 0, 0)
    rows = index.rows()
    assert len(rows) == 8  # the store holds three sessions
    assert {row.tool for row in rows} == {"claude-code", "codex", "gemini-cli", "hermes"}
    config = CompressorConfig()
    for row in rows:
        conversation = load(row.file, session=row.session if row.tool == "hermes" else None)
        report = request_report(conversation, config)
        assert row.messages == len(conversation.messages)
        assert row.request_tokens == report["total"]
        assert row.would_compress == report["trigger"]["would_compress"]
        assert row.compactions == len(conversation.compaction_events)
    codex = next(row for row in rows if row.tool == "codex")
    assert codex.project == "/home/dev/ledgerline" and codex.started.startswith("2026-03-22")
    claude = next(row for row in rows if row.session == "72e04900-fcf9-4a53-ab1a-9216228923a4")
    assert claude.project == "/home/dev/ledgerline" and claude.title == "Fix DKB dates and the refund test"
    # Codex writes no title: the session is named by its first request (the context Codex injects is
    # not one), as Codex's own session picker names it.
    conversation = load(codex.file)
    first = next(m for m in conversation.messages if m["role"] == "user")
    assert codex.title and not codex.title.startswith("<")
    assert content_text(first["content"]).strip().startswith(codex.title.rstrip("…"))

    again = index.refresh()
    assert (again.indexed, again.reused) == (0, 6)
    assert [row.to_dict() for row in index.rows()] == [row.to_dict() for row in rows]

    rollout = Path(codex.file)
    data = rollout.read_bytes()
    rollout.write_bytes(data[: data.index(b"\n", len(data) // 2) + 1])
    os.remove(claude.file)
    changed = index.refresh()
    assert (changed.indexed, changed.removed) == (1, 1)
    rows = index.rows()
    assert len(rows) == 7 and next(row for row in rows if row.tool == "codex").messages < codex.messages
    append(rollout, data[len(rollout.read_bytes()):])
    assert index.refresh().indexed == 1
    index.close()


def test_the_cache_lives_outside_the_watched_folders(home):
    with pytest.raises(ValueError, match="must not be inside a watched folder"):
        SessionIndex(_roots(home), cache_dir=home / ".hermes" / "cache")
    before = sorted(str(p) for p in home.rglob("*"))
    index = SessionIndex(_roots(home), cache_dir=home.parent / "cache")
    index.refresh()
    assert sorted(str(p) for p in home.rglob("*")) == before  # nothing written where sessions live


def test_search_sort_and_filter(home, tmp_path):
    index = SessionIndex(_roots(home), cache_dir=tmp_path / "cache")
    index.refresh()
    hits = index.search("currency option")
    assert hits and all(hit.snippet for hit in hits)
    assert hits[0].tool == "gemini-cli"
    assert "**" in hits[0].snippet
    assert index.search("zzzunseenword") == []
    index.rows("an \"odd\" (query* OR NEAR")  # quotes and operators never break the query
    by_messages = index.rows(sort_by="messages")
    assert [row.messages for row in by_messages] == sorted((row.messages for row in by_messages), reverse=True)
    ascending = index.rows(sort_by="request_tokens", descending=False)
    assert ascending[0].request_tokens == min(row.request_tokens for row in ascending)
    assert {row.tool for row in index.rows(tool="hermes")} == {"hermes"}
    with pytest.raises(ValueError, match="cannot sort"):
        index.rows(sort_by="nope")
    frame = index.frame(sort_by="messages")
    assert list(frame["messages"]) == [row.messages for row in by_messages]
    text = index.render(by_messages)
    assert text.splitlines()[0].startswith("tool") and len(text.splitlines()) == len(by_messages) + 1


def test_would_compress_follows_the_threshold_without_a_rescan(home, tmp_path):
    cache = tmp_path / "cache"
    SessionIndex(_roots(home), cache_dir=cache).refresh()
    tight = SessionIndex(_roots(home), config=CompressorConfig(context_length=60_000), cache_dir=cache)
    assert tight.refresh().indexed == 0
    decided = {row.session: row.would_compress for row in tight.rows()}
    assert decided["72e04900-fcf9-4a53-ab1a-9216228923a4"] is True
    exact = SessionIndex(_roots(home), config=CompressorConfig(token_estimator="tiktoken", model="gpt-4o"),
                         cache_dir=cache)
    assert exact.refresh().indexed == 6  # another unit: its own cache


def test_a_store_reads_only_the_sessions_that_moved(home, tmp_path, monkeypatch):
    index = SessionIndex([home / ".hermes"], cache_dir=tmp_path / "cache")
    index.refresh()
    conn = sqlite3.connect(home / ".hermes/state.db")
    with conn:
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'more', ?)",
                     ("20260314_083011_7a1c44e2", 1773478000.0))
    conn.close()
    import core.formats

    loads: list[str | None] = []
    real = core.formats.load

    def counting(*args, **kwargs):
        loads.append(kwargs.get("session"))
        return real(*args, **kwargs)

    monkeypatch.setattr(core.formats, "load", counting)
    assert index.refresh().indexed == 1
    assert loads == [None, "20260314_083011_7a1c44e2"]  # the store's list, then the one session that moved
    groceries = next(row for row in index.rows() if row.session == "20260314_083011_7a1c44e2")
    assert groceries.messages == 6 and len(index.rows()) == 3


def test_an_unreadable_file_is_an_error_row(home, tmp_path):
    broken = home / CODEX / "rollout-2026-03-22T11-00-00-broken.jsonl"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
    index = SessionIndex(_roots(home), cache_dir=tmp_path / "cache")
    summary = index.refresh()
    assert summary.failed == 1
    assert all(row.error is None for row in index.rows())
    errors = [row for row in index.rows(include_errors=True) if row.error]
    assert len(errors) == 1 and "PNG" in errors[0].error
    assert index.refresh().indexed == 0  # not read again until it changes


def test_a_large_scan_runs_on_the_batch_engine(home, tmp_path, monkeypatch):
    inline = SessionIndex(_roots(home), cache_dir=tmp_path / "inline")
    inline.refresh()
    monkeypatch.setattr(index_module, "ENGINE_MIN_FILES", 2)
    pooled = SessionIndex(_roots(home), cache_dir=tmp_path / "pooled", workers=2)
    done: list[tuple[int, int]] = []
    summary = pooled.refresh(progress=lambda d, t: done.append((d, t)))
    assert summary.engine == "local" and summary.indexed == 6
    assert done == [(n, 6) for n in range(1, 7)]  # each file kept as it is done
    assert [row.to_dict() for row in pooled.rows()] == [row.to_dict() for row in inline.rows()]


@pytest.mark.ray
@pytest.mark.timeout(600)
def test_a_large_scan_on_ray(home, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    inline = SessionIndex(_roots(home), cache_dir=tmp_path / "inline")
    inline.refresh()
    ray_index = SessionIndex(_roots(home), cache_dir=tmp_path / "ray", engine="ray", workers=2)
    summary = ray_index.refresh()
    assert summary.engine == "ray" and summary.indexed == 6
    assert [row.to_dict() for row in ray_index.rows()] == [row.to_dict() for row in inline.rows()]


def test_a_session_without_a_title_is_named_by_the_first_request_the_user_wrote():
    from core.live.index_worker import TITLE_CHARS, first_request

    handoff = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below."
    preamble = "This session is being continued from a previous conversation that ran out of context."
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": handoff},
        {"role": "user", "content": preamble},
        {"role": "user", "content": "<command-name>/clear</command-name>"},
        {"role": "user", "content": [{"type": "text", "text": "\n  Fix the DKB importer's dates  \nthen run the tests"}]},
    ]
    assert first_request(messages) == "Fix the DKB importer's dates"
    long = "x" * (TITLE_CHARS + 20)
    named = first_request([{"role": "user", "content": long}])
    assert named is not None and len(named) == TITLE_CHARS and named.endswith("…")
    assert first_request([{"role": "assistant", "content": "hello"}, {"role": "user", "content": handoff}]) is None
