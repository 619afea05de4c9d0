"""The Live and Sessions pages: a session in a temporary folder, written by the test while the page is open.

The configured folder is the ``live_folders`` fixture's (``tests/app/conftest.py``), never the
user's own. Each figure is compared with a fresh reading of the file as it is at that moment.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from core.formats import load
from core.live.index_worker import session_text
from core.live.status import measure
from tests.app.conftest import SAMPLES, go, metrics, number, plain, run, sidebar_config
from tests.live.helpers import append

CODEX = SAMPLES / "codex_rollout.jsonl"
CLAUDE = SAMPLES / "claude_code_v2_session.jsonl"


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _fresh(at, path: Path):
    return measure(load(path), sidebar_config(at))


def _texts(elements) -> str:
    return "\n".join(plain(str(element.value)) for element in elements)


def test_the_live_page_follows_a_session_as_it_is_appended_to(app, live_folders):
    lines = _lines(CODEX)
    path = live_folders / "rollout-1.jsonl"
    path.write_bytes(b"".join(lines[:20]))
    go(app, "live")
    assert not app.error, [e.value for e in app.error]
    assert app.selectbox[0].value.startswith(str(path))  # the one session of the folder, picked
    before = _fresh(app, path)
    shown = metrics(app)
    assert number(shown["Messages"]) == before.messages
    assert number(shown["Whole request"]) == before.request_tokens
    assert "Following" in _texts(app.success)

    append(path, b"".join(lines[20:]))
    run(app)
    after = _fresh(app, path)
    assert after.request_tokens != before.request_tokens  # the appended part changed the context (it may compact it)
    shown = metrics(app)
    assert number(shown["Messages"]) == after.messages
    assert number(shown["Whole request"]) == after.request_tokens
    # Only the appended lines were read: the update says how many.
    appended = sum(1 for line in lines[20:] if line.strip())
    assert f"{appended} line(s) appended" in _texts(app.success)


def test_pausing_keeps_the_figures_and_says_how_far_behind(app, live_folders):
    lines = _lines(CLAUDE)
    path = live_folders / "session.jsonl"
    path.write_bytes(b"".join(lines[:10]))
    go(app, "live")
    first = number(metrics(app)["Messages"])
    app.toggle(key="live_paused").set_value(True)
    run(app)
    extra = b"".join(lines[10:])
    append(path, extra)
    run(app)
    assert number(metrics(app)["Messages"]) == first
    warning = _texts(app.warning)
    assert "Paused" in warning and f"grown by {len(extra):,} bytes" in warning
    app.toggle(key="live_paused").set_value(False)
    run(app)
    assert number(metrics(app)["Messages"]) == len(load(path).messages) > first


def test_a_typed_path_that_goes_missing_is_said_with_the_reason(app, tmp_path):
    path = tmp_path / "typed.jsonl"
    path.write_bytes(CODEX.read_bytes())
    go(app, "live")
    app.radio(key="live_source").set_value("Type a path")
    run(app)
    app.text_input(key="live_path").set_value(str(path))
    run(app)
    messages = number(metrics(app)["Messages"])
    assert messages == len(load(path).live_context().messages)
    path.unlink()
    run(app)
    error = _texts(app.error)
    assert "File missing" in error and "no such file" in error
    # The last figures stay on the page, and say they are the last ones read.
    assert number(metrics(app)["Messages"]) == messages and "last ones read" in error
    path.write_bytes(b"this is not a transcript\n")
    run(app)
    assert "Not a transcript" in _texts(app.error)


def test_opening_the_live_session_makes_it_every_page_s_conversation(app, live_folders):
    lines = _lines(CODEX)
    path = live_folders / "rollout-2.jsonl"
    path.write_bytes(b"".join(lines[:25]))
    go(app, "live")
    append(path, b"".join(lines[25:]))
    run(app)
    expected = len(load(path).live_context().messages)
    next(button for button in app.button if button.label == "Open in the dashboard").click()
    run(app)
    # The overview now analyses the live file as it is, through the upload path.
    assert app.selectbox(key="conversation_choice").value.startswith("Uploaded: rollout-2.jsonl (live")
    assert number(metrics(app)["Messages"]) == expected
    go(app, "zones")
    assert "rollout-2.jsonl" in _texts(app.caption)
    assert not app.error
    assert path.read_bytes() == b"".join(lines)  # the watched file was never written


def test_the_sessions_page_lists_searches_and_opens_sessions(app, live_folders):
    codex = live_folders / "a" / "rollout-a.jsonl"
    claude = live_folders / "b" / "session-b.jsonl"
    for path, source in ((codex, CODEX), (claude, CLAUDE)):
        path.parent.mkdir()
        path.write_bytes(source.read_bytes())
    os.utime(codex, (1_700_000_000, 1_700_000_000))  # the Claude Code session is the most recent
    go(app, "sessions")
    assert not app.error, [e.value for e in app.error]
    frame = app.dataframe[0].value
    assert list(frame["file"]) == [str(claude), str(codex)]
    assert list(frame["messages"]) == [len(load(claude).messages), len(load(codex).messages)]
    assert list(frame["tool"]) == ["claude-code", "codex"]
    # A word only the Codex session holds.
    codex_text = session_text(load(codex).messages)
    claude_text = session_text(load(claude).messages).lower()
    word = next(w for w in sorted(set(re.findall(r"\b[A-Za-z]{7,}\b", codex_text)), key=lambda w: (-len(w), w))
                if w.lower() not in claude_text)
    app.text_input(key="sessions_search").set_value(word)
    run(app)
    frame = app.dataframe[0].value
    assert list(frame["file"]) == [str(codex)]
    assert word.lower() in str(frame["snippet"].iloc[0]).lower()
    next(button for button in app.button if button.label == "Open in the dashboard").click()
    run(app)
    assert app.selectbox(key="conversation_choice").value.startswith("Uploaded: rollout-a.jsonl")
    assert number(metrics(app)["Messages"]) == len(load(codex).live_context().messages)  # the overview shows the context after the agent's last compaction


def test_follow_live_from_the_sessions_list_opens_the_live_page_on_it(app, live_folders):
    path = live_folders / "rollout-3.jsonl"
    path.write_bytes(CODEX.read_bytes())
    go(app, "sessions")
    next(button for button in app.button if button.label == "Follow live").click()
    run(app)
    assert app.text_input(key="live_path").value == str(path)
    assert number(metrics(app)["Messages"]) == len(load(path).live_context().messages)  # the context after the agent's last compaction, as analyze reads it


def test_a_folder_that_cannot_be_read_is_named(app, live_folders, monkeypatch):
    """A permission error while listing a folder is a message on the page, not a silent gap."""
    import core.live.index as index_module

    (live_folders / "locked").mkdir()
    (live_folders / "ok.jsonl").write_bytes(CODEX.read_bytes())
    real_walk = os.walk

    def walk(top, onerror=None, **kwargs):
        for directory, dirs, files in real_walk(top, onerror=onerror, **kwargs):
            if Path(directory).name == "locked":
                onerror(PermissionError(13, "Permission denied", directory))
                dirs[:] = []
                continue
            yield directory, dirs, files

    monkeypatch.setattr(index_module.os, "walk", walk)
    go(app, "sessions")
    warning = _texts(app.warning)
    assert "cannot be read" in warning and str(live_folders / "locked") in warning and "permission denied" in warning
    assert list(app.dataframe[0].value["file"]) == [str(live_folders / "ok.jsonl")]


def test_a_folder_of_many_sessions_is_indexed_on_the_batch_engine_and_listed_whole(app, live_folders):
    """Past ``ENGINE_MIN_FILES`` the first scan runs in worker processes; every session is listed, and a
    second visit reads nothing again."""
    from core.live.index import ENGINE_MIN_FILES

    lines = _lines(CODEX)
    count = ENGINE_MIN_FILES + 2
    for nth in range(count):
        (live_folders / f"rollout-{nth:03d}.jsonl").write_bytes(b"".join(lines[: 12 + nth % 20]))
    go(app, "sessions")
    assert not app.error, [e.value for e in app.error]
    frame = app.dataframe[0].value
    assert len(frame) == count
    by_name = dict(zip((Path(f).name for f in frame["file"]), frame["messages"], strict=True))
    assert by_name["rollout-007.jsonl"] == len(load(live_folders / "rollout-007.jsonl").messages)
    assert "local" in _texts(app.caption)  # the scan said which engine read the files
    run(app)
    assert f"0 read (inline), {count:,} from the cache" in _texts(app.caption)


def test_a_session_of_a_store_opens_and_follows_as_that_session(app, live_folders):
    """A Hermes ``state.db`` holds several sessions: the one picked is the one opened and followed."""
    store = live_folders / "state.db"
    store.write_bytes((SAMPLES / "hermes_state.db").read_bytes())
    before = store.read_bytes()
    sessions = {info.id: info for info in load(store).sessions}
    assert len(sessions) > 1
    go(app, "sessions")
    listed = app.dataframe[0].value
    assert len(listed) == len(sessions)
    other = next(key for key in app.selectbox(key="sessions_pick").options if "5 msgs" in key)
    picked = next(session for session, info in sessions.items() if info.message_count == 5)
    app.selectbox(key="sessions_pick").select_index(app.selectbox(key="sessions_pick").options.index(other))
    run(app)
    next(button for button in app.button if button.label == "Open in the dashboard").click()
    run(app)
    assert app.selectbox(key="conversation_choice").value.startswith("Uploaded: state.db")
    assert number(metrics(app)["Messages"]) == len(load(store, session=picked).live_context().messages)  # the overview shows the context after the agent's last compaction
    go(app, "sessions")
    next(button for button in app.button if button.label == "Follow live").click()
    run(app)
    assert number(metrics(app)["Messages"]) == len(load(store, session=picked).live_context().messages)  # the overview shows the context after the agent's last compaction
    assert store.read_bytes() == before and sorted(p.name for p in live_folders.iterdir()) == ["state.db"]


def test_a_folder_not_found_is_named_once(app, live_folders, monkeypatch):
    """The Sessions page names a configured folder that does not exist once: not in the refresh's
    caption and again in the summary line under it."""
    missing = live_folders.parent / "no-such-folder"
    monkeypatch.setenv("CONTEXT_LENS_LIVE_ROOTS", os.pathsep.join([str(live_folders), str(missing)]))
    (live_folders / "ok.jsonl").write_bytes(CODEX.read_bytes())
    go(app, "sessions")
    assert not app.error, [e.value for e in app.error]
    captions = _texts(app.caption)
    assert captions.count(str(missing)) == 1, captions
    assert list(app.dataframe[0].value["file"]) == [str(live_folders / "ok.jsonl")]
