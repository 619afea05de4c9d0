"""The follower: a status per change, equal to a fresh load of the file as it stands, for every layout."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

import pytest

from core.config import CompressorConfig
from core.formats import load
from core.live.follower import SessionFollower, follow
from core.live.sources import DocumentSource, LinesSource, StoreSource
from tests.live.helpers import SAMPLES, append, assert_matches_fresh_load, chunks

JSONL_SAMPLES = sorted(path.name for path in SAMPLES.glob("*.jsonl"))


@pytest.mark.parametrize("name", JSONL_SAMPLES)
def test_every_jsonl_sample_appended_in_chunks(tmp_path, name):
    data = (SAMPLES / name).read_bytes()
    path = tmp_path / name
    path.write_bytes(b"")
    follower = SessionFollower(path)
    first = follower.poll()
    assert first is not None and first.state == "waiting" and first.note == "the file is empty"
    for number, piece in enumerate(chunks(data, 9, seed=len(name))):
        append(path, piece)
        follower.poll()
        if follower.conversation is not None and follower.last is not None and follower.last.state == "live":
            assert_matches_fresh_load(follower, path)
        if number == 0:
            assert isinstance(follower.source, LinesSource)
    assert follower.last is not None and follower.last.state == "live"
    assert_matches_fresh_load(follower, path)
    assert follower.poll() is None  # nothing changed: nothing to say


def test_appends_are_read_once(tmp_path, monkeypatch):
    """Each line is parsed once, however many statuses follow (the file is not read again)."""
    import core.live.sources as sources

    data = (SAMPLES / "claude_code_v2_session.jsonl").read_bytes()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    parsed: list[int] = []
    real = sources.read_line

    def counting(line_no, raw):
        parsed.append(line_no)
        return real(line_no, raw)

    monkeypatch.setattr(sources, "read_line", counting)
    follower = SessionFollower(path)
    lines = data.splitlines(keepends=True)
    for start in range(0, len(lines), 6):
        append(path, b"".join(lines[start:start + 6]))
        follower.poll()
    assert sorted(parsed) == list(range(1, len(lines) + 1))
    assert_matches_fresh_load(follower, path)


def test_compactions_are_reported_as_they_appear(tmp_path):
    data = (SAMPLES / "codex_rollout.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"type": "compacted"' in line or b'"type":"compacted"' in line)
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(lines[:at]))
    follower = SessionFollower(path)
    start = follower.poll()
    assert start is not None and start.measurement is not None and start.measurement.compactions == 0
    append(path, b"".join(lines[at:]))
    status = follower.poll()
    assert status is not None and status.event == "appended"
    assert [item["kind"] for item in status.new_compactions] == ["compacted"]
    assert status.measurement is not None and status.measurement.compactions == 1
    assert "compaction" in status.gauge()


def test_truncation_and_rewrite_are_statuses(tmp_path):
    data = (SAMPLES / "claude_code_session.jsonl").read_bytes()
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    follower = SessionFollower(path)
    assert follower.poll().state == "live"
    half = data[: data.index(b"\n", len(data) // 2) + 1]
    path.write_bytes(half)  # truncated
    status = follower.poll()
    assert status is not None and status.state == "live" and status.event == "reset" and "shrank" in status.note
    assert_matches_fresh_load(follower, path)
    other = (SAMPLES / "claude_code_v2_session.jsonl").read_bytes()
    path.write_bytes(other)  # rewritten with other content, longer
    status = follower.poll()
    assert status is not None and status.event == "reset"
    assert_matches_fresh_load(follower, path)


def test_rotation_deletion_and_return(tmp_path):
    data = (SAMPLES / "codex_rollout.jsonl").read_bytes()
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(data)
    follower = SessionFollower(path)
    live = follower.poll()
    assert live is not None and live.state == "live"
    os.rename(path, tmp_path / "rollout.jsonl.1")
    gone = follower.poll()
    assert gone is not None and gone.state == "missing" and "no such file" in gone.note
    assert gone.measurement is live.measurement  # the last figures, marked missing
    assert "missing" in gone.gauge()
    assert follower.poll() is None  # said once
    path.write_bytes(data[: data.index(b"\n", 2000) + 1])
    back = follower.poll()
    assert back is not None and back.state == "live" and back.event == "reappeared"
    assert_matches_fresh_load(follower, path)


def test_permission_errors_are_statuses(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    path.write_bytes((SAMPLES / "claude_code_v2_session.jsonl").read_bytes())
    real_open = open

    def refuse(file, *args, **kwargs):
        if os.fspath(file) == os.fspath(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refuse)
    follower = SessionFollower(path)
    status = follower.poll()
    assert status is not None and status.state == "unreadable" and "permission denied" in status.note
    monkeypatch.setattr("builtins.open", real_open)
    assert follower.poll().state == "live"


def test_a_file_that_is_no_transcript(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("just some text\nnot json either\n", encoding="utf-8")
    follower = SessionFollower(path)
    status = follower.poll()
    assert status is not None and status.state == "invalid"
    assert follower.poll() is None
    path.write_bytes((SAMPLES / "codex_rollout.jsonl").read_bytes())
    assert follower.poll().state == "live"


def test_a_missing_file_is_waited_for(tmp_path):
    path = tmp_path / "later.jsonl"
    follower = SessionFollower(path)
    assert follower.poll().state == "missing"
    path.write_bytes((SAMPLES / "codex_rollout.jsonl").read_bytes())
    assert follower.poll().state == "live"


def test_a_gemini_document_rewritten_whole(tmp_path):
    doc = json.loads((SAMPLES / "gemini_cli_session.json").read_text(encoding="utf-8"))
    full = list(doc["messages"])
    path = tmp_path / "session-2025-10-14.json"
    doc["messages"] = full[:6]
    path.write_text(json.dumps(doc), encoding="utf-8")
    follower = SessionFollower(path)
    first = follower.poll()
    assert first is not None and first.state == "live" and isinstance(follower.source, DocumentSource)
    assert_matches_fresh_load(follower, path)
    assert follower.poll() is None  # a stat, nothing read
    doc["messages"] = full
    text = json.dumps(doc)
    path.write_text(text[: len(text) // 2], encoding="utf-8")  # the tool caught half-way through its rewrite
    waiting = follower.poll()
    assert waiting is not None and waiting.state == "waiting" and "half-written" in waiting.note
    path.write_text(text, encoding="utf-8")
    status = follower.poll()
    assert status is not None and status.state == "live" and status.event == "rewritten"
    assert_matches_fresh_load(follower, path)


def test_a_hermes_store_and_a_compression_that_continues_the_session(tmp_path):
    path = tmp_path / "state.db"
    shutil.copy(SAMPLES / "hermes_state.db", path)
    follower = SessionFollower(path)
    first = follower.poll()
    assert first is not None and first.state == "live" and isinstance(follower.source, StoreSource)
    assert first.session == "20260315_114233_9d02fa"
    before = first.measurement.messages
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                     ("20260315_114233_9d02fa", "and now the budget report", 1773575999.0))
    status = follower.poll()
    assert status is not None and status.measurement.messages == before + 1
    assert_matches_fresh_load(follower, path)
    with conn:  # Hermes compresses: the session ends, a new one continues it
        conn.execute("UPDATE sessions SET end_reason = 'compression' WHERE id = '20260315_114233_9d02fa'")
        conn.execute("INSERT INTO sessions (id, source, parent_session_id, started_at, title) VALUES "
                     "('20260315_121000_aa11bb', 'cli', '20260315_114233_9d02fa', 1773576600.0, 'Fix rounding #3')")
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                     ("20260315_121000_aa11bb", "[CONTEXT COMPACTION] earlier turns summarised", 1773576601.0))
    conn.close()
    status = follower.poll()
    assert status is not None and status.event == "session" and status.session == "20260315_121000_aa11bb"
    assert "continues as 20260315_121000_aa11bb" in status.note
    assert [item["kind"] for item in status.new_compactions][-1] == "session-continued"
    assert_matches_fresh_load(follower, path)


def test_a_named_store_session_follows_its_continuation(tmp_path):
    path = tmp_path / "state.db"
    shutil.copy(SAMPLES / "hermes_state.db", path)
    follower = SessionFollower(path, session="20260315_101502_4be1c9")  # already continued in the store
    status = follower.poll()
    assert status is not None and status.session == "20260315_114233_9d02fa"
    assert load(path, session="20260315_114233_9d02fa").messages == follower.conversation.messages


def test_a_cline_task_folder(tmp_path):
    folder = tmp_path / "task"
    shutil.copytree(SAMPLES / "cline_task", folder)
    follower = SessionFollower(folder)
    status = follower.poll()
    assert status is not None and status.state == "live" and status.format == "cline"
    assert follower.poll() is None
    history = folder / "api_conversation_history.json"
    messages = json.loads(history.read_text(encoding="utf-8"))
    history.write_text(json.dumps(messages[:-2]), encoding="utf-8")
    status = follower.poll()
    assert status is not None and status.state == "live"
    assert_matches_fresh_load(follower, folder)


def test_a_small_document_that_grows_into_json_lines(tmp_path):
    lines = (SAMPLES / "codex_rollout.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "rollout.log"  # no .jsonl suffix: one line reads as one document
    path.write_bytes(lines[0])
    follower = SessionFollower(path)
    follower.poll()
    append(path, b"".join(lines[1:]))
    status = follower.poll()
    assert status is not None and status.state == "live" and isinstance(follower.source, LinesSource)
    assert_matches_fresh_load(follower, path)


def test_reconfigure_measures_again_without_reading(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes((SAMPLES / "claude_code_v2_session.jsonl").read_bytes())
    follower = SessionFollower(path)
    status = follower.poll()
    assert status is not None and status.measurement.would_compress is False
    tight = CompressorConfig(context_length=60_000)
    changed = follower.reconfigure(tight)
    assert changed is not None and changed.measurement.would_compress is True
    assert changed.measurement.threshold_tokens == tight.threshold_tokens
    assert_matches_fresh_load(follower, path, tight)


def test_follow_yields_until_stopped(tmp_path):
    import threading

    path = tmp_path / "s.jsonl"
    path.write_bytes((SAMPLES / "codex_rollout.jsonl").read_bytes())
    stop = threading.Event()
    seen = []
    for status in follow(path, interval=0.01, stop=stop):
        seen.append(status)
        stop.set()
    assert len(seen) == 1 and seen[0].state == "live"


def test_an_unexpected_failure_is_a_status(tmp_path, monkeypatch):
    import core.live.follower as follow_module

    path = tmp_path / "s.jsonl"
    path.write_bytes((SAMPLES / "codex_rollout.jsonl").read_bytes())

    def broken(*args, **kwargs):
        raise AttributeError("boom")

    monkeypatch.setattr(follow_module, "measure", broken)
    status = SessionFollower(path).poll()
    assert status is not None and status.state == "error" and "boom" in status.note


def test_a_file_above_the_size_limit(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes((SAMPLES / "codex_rollout.jsonl").read_bytes())
    follower = SessionFollower(path, max_bytes=10_000)
    status = follower.poll()
    assert status is not None and status.state == "invalid" and "limit" in status.note


def test_a_log_rewritten_as_another_layout(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes((SAMPLES / "codex_rollout.jsonl").read_bytes())
    follower = SessionFollower(path)
    assert follower.poll().format == "codex"
    path.write_bytes((SAMPLES / "hermes_state.db").read_bytes())  # same path, now a SQLite store
    status = follower.poll()
    assert status is not None and status.state == "invalid"
    status = follower.poll()
    assert status is not None and status.state == "live" and status.format == "hermes"
    assert isinstance(follower.source, StoreSource)


def test_a_byte_order_mark_and_crlf_lines(tmp_path):
    lines = (SAMPLES / "codex_rollout.jsonl").read_bytes().split(b"\n")
    data = b"\xef\xbb\xbf" + b"\r\n".join(lines)
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(data[:5])  # a piece of the mark and the first line
    follower = SessionFollower(path)
    follower.poll()
    append(path, data[5:])
    status = follower.poll()
    assert status is not None and status.state == "live"
    assert_matches_fresh_load(follower, path)


def test_the_history_of_a_followed_session(tmp_path):
    lines = (SAMPLES / "claude_code_v2_session.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[:20]))
    follower = SessionFollower(path)
    follower.poll()
    append(path, b"".join(lines[20:]))
    follower.poll()
    follower.poll()  # nothing new: no point
    points = list(follower.history)
    assert len(points) == 2 and points[0].messages < points[1].messages
    assert points[1].request_tokens == follower.measurement.request_tokens


@pytest.mark.parametrize("sample", ["codex_rollout.jsonl", "gemini_cli_session.json", "hermes_state.db"])
def test_an_unchanged_file_is_looked_at_not_read(tmp_path, monkeypatch, sample):
    import builtins
    import sqlite3 as sqlite

    path = tmp_path / sample
    shutil.copy(SAMPLES / sample, path)
    follower = SessionFollower(path)
    assert follower.poll().state == "live"
    opened: list[str] = []
    real_open, real_connect = builtins.open, sqlite.connect

    def counting_open(file, *args, **kwargs):
        opened.append(os.fspath(file))
        return real_open(file, *args, **kwargs)

    def counting_connect(database, *args, **kwargs):
        opened.append(str(database))
        return real_connect(database, *args, **kwargs)

    import io

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(io, "open", counting_open)  # what pathlib opens files with
    monkeypatch.setattr(sqlite, "connect", counting_connect)
    for _ in range(5):
        assert follower.poll() is None
    assert opened == []
