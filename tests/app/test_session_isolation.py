"""Two sessions on one transcript share its reading, never each other's results; what a closed session
held is let go; a hostile upload or a runaway analysis costs the session that asked for it a clear
message, and nothing else.

Both ``AppTest`` sessions of a test run in this one process, as two browser tabs share one server: the
transcript cache is shared between them exactly as it is between real sessions.
"""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path

import pytest

from core.budget import Budget
from core.tokens import encoding_name_for_model, get_counter
from tests.app.chat_server import SUMMARY, chat_server, run_remote  # noqa: F401 - chat_server is a fixture
from tests.app.conftest import go, metrics, new_app, number, plain, run, sidebar_config, upload

OFFLINE = "Offline extractive summary (default)"


def _run_offline(at):  # noqa: ANN001, ANN202
    go(at, "compress")
    at.radio(key="summarizer_choice").set_value(OFFLINE)
    run(at)
    at.button(key="run_compressor").click()
    return run(at)


def _shown_summary(at, prefix: str) -> str:  # noqa: ANN001
    at.button(key=f"{prefix}_summary").click()
    run(at)
    return "\n".join(str(block.value) for block in at.code)


def test_two_sessions_on_one_transcript_never_see_each_others_runs(chat_server):  # noqa: F811
    first, second = new_app(), new_app()  # both open the bundled long session
    run_remote(first, chat_server)  # a model's summary
    go(first, "savings")
    first_final = number(metrics(first)["Final"])

    _run_offline(second)  # the offline summary, in a session of its own
    result = second.session_state["compression"]["result"]
    go(second, "savings")
    counter = get_counter(encoding_name_for_model(sidebar_config(second).model))
    assert number(metrics(second)["Final"]) == counter.count_messages(result.messages) != first_final
    assert any("your last run" in plain(caption.value) for caption in second.caption)
    shown = _shown_summary(second, "savings")
    assert SUMMARY not in shown
    assert result.assembly.summary_text.splitlines()[1] in shown

    # The first session still sees its own run, on both pages that open the summary.
    assert SUMMARY in _shown_summary(first, "savings")
    go(first, "zones")
    first.button(key="zones_summary").click()
    run(first)
    assert SUMMARY in "\n".join(str(block.value) for block in first.code)
    go(second, "zones")
    assert SUMMARY not in _shown_summary(second, "zones")
    assert second.session_state["compression"]["run_id"] != first.session_state["compression"]["run_id"]


def _captions(at) -> str:  # noqa: ANN001
    return "\n".join(plain(str(caption.value)) for caption in at.caption)


def test_the_same_bytes_under_another_name_are_shown_under_that_name():
    """Two sessions upload one file's bytes under two names: each page names the file as its own session
    uploaded it (a shared reading would show the other user's file name)."""
    from tests.app.conftest import SAMPLES

    data = (SAMPLES / "codex_rollout.jsonl").read_bytes()
    first, second = new_app(), new_app()
    upload(first, "first-users-notes.jsonl", data, "application/jsonl")
    upload(second, "second.jsonl", data, "application/jsonl")
    for at, own, other in ((first, "first-users-notes.jsonl", "second.jsonl"),
                           (second, "second.jsonl", "first-users-notes.jsonl")):
        go(at, "zones")
        captions = _captions(at)
        assert own in captions and other not in captions
    # The bundled sample holding the same bytes is still named as the sample.
    third = new_app()
    third.selectbox(key="conversation_choice").set_value("Sample: codex_rollout.jsonl")
    run(third)
    go(third, "zones")
    captions = _captions(third)
    assert "codex_rollout.jsonl" in captions and "second.jsonl" not in captions


def _with_a_password(tag: str) -> bytes:
    """The long session with a command that gives a database password, in the part that is summarised."""
    import json

    from core.formats import dump
    from tests.app.conftest import SAMPLES, load_messages

    messages = load_messages(SAMPLES / "long_coding_session.json")
    call = {"id": "call_db", "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": f"mysql -u root -p'{PASSWORD}' shop"})}}
    messages[40:40] = [
        {"role": "user", "content": f"Load the dump into the shop database ({tag})."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_db", "content": "ERROR 1045 (28000): Access denied for user 'root'"},
    ]
    return dump(messages, "openai-chat").encode()


PASSWORD = "Xy9#Secret"


def test_the_offline_summary_masks_credentials_by_default_and_each_session_keeps_its_own_switch(tmp_path):
    data = _with_a_password("strict")
    masked, clear = new_app(), new_app()
    upload(masked, "db.json", data)
    upload(clear, "db.json", data)  # the same bytes: one shared transcript
    go(clear, "compress")
    clear.radio(key="summarizer_choice").set_value(OFFLINE)
    run(clear)
    clear.toggle(key="strict_redaction").set_value(False)  # this session turns it off for the offline summary
    run(clear)
    go(masked, "savings")
    go(clear, "savings")
    assert PASSWORD not in _shown_summary(masked, "savings")  # on by default: the summary quotes no password
    assert PASSWORD in _shown_summary(clear, "savings")  # off, in the other session only, as it asked


def _unique_transcript(tmp_path: Path, tag: str, copies: int = 1) -> bytes:
    from core.formats import dump
    from tests.app.conftest import SAMPLES, load_messages

    messages = load_messages(SAMPLES / "long_coding_session.json")
    messages = messages[:1] + messages[1:] * copies
    messages[1] = {**messages[1], "content": f"{messages[1]['content']} ({tag})"}
    return dump(messages, "openai-chat").encode()


def test_a_transcript_is_let_go_once_no_session_holds_it(tmp_path):
    from dashboard.loading import transcript_cache

    data = _unique_transcript(tmp_path, "let go")
    first, second = new_app(), new_app()
    upload(first, "shared.json", data)
    upload(second, "shared.json", data)
    cache = transcript_cache()
    keys = [key for key in first.session_state["_transcripts_held"]]
    assert len(keys) == 1 and keys == list(second.session_state["_transcripts_held"])
    assert first.session_state["_transcripts_held"][keys[0]] is second.session_state["_transcripts_held"][keys[0]]
    go(first, "savings")
    del first
    gc.collect()
    assert keys[0] in cache  # the second session still holds it
    del second
    gc.collect()
    assert keys[0] not in cache  # and now nothing does: it is gone, its analyses and counts with it


def test_an_upload_over_its_reading_budget_is_a_clear_error(tmp_path, monkeypatch):
    import dashboard.loading as conversation

    monkeypatch.setattr(conversation, "READ_BUDGET", Budget(seconds=0.1, memory_mb=None, scope="the limit of one upload"))
    at = new_app()
    upload(at, "slow.json", _unique_transcript(tmp_path, "slow", copies=30))  # about a second to read
    errors = [plain(error.value) for error in at.error]
    # It leaves the picker, with why.
    assert errors == ["**slow.json** was not loaded, so it is not in the conversation picker: reading it timed out "
                      "after 0.1 s (the limit of one upload) and was stopped; the file is too large or too costly to "
                      "read here"]


def test_a_sqlite_bomb_upload_is_refused_with_its_column(tmp_path):
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL, model TEXT,
            title TEXT GENERATED ALWAYS AS (hex(zeroblob(20000000))) VIRTUAL);
        CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT);
        INSERT INTO sessions (id, started_at, model) VALUES ('s1', 1, 'gpt-4o');
        INSERT INTO messages (session_id, role, content) VALUES ('s1', 'user', 'hi'), ('s1', 'assistant', 'hello');
    """)
    conn.commit()
    conn.close()
    at = new_app()
    upload(at, "state.db", path.read_bytes(), mime="application/octet-stream")
    errors = [plain(error.value) for error in at.error]
    assert len(errors) == 1 and "sessions.title: a value in the first row is longer than 16 MB" in errors[0]
    assert not at.exception


@pytest.mark.parametrize("page", ["savings", "zones"])
def test_an_analysis_over_its_time_budget_stops_with_a_message(tmp_path, monkeypatch, page):
    import dashboard.loading as conversation

    monkeypatch.setattr(conversation, "ANALYSIS_BUDGET", Budget(0.05, None, "the limit of one analysis"))
    at = new_app()
    upload(at, "budget.json", _unique_transcript(tmp_path, f"budget {page}", copies=20))
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [plain(error.value) for error in at.error]
    stopped = "This view was stopped: computing it timed out after 0.05 s (the limit of one analysis)"
    assert any(error.startswith(stopped) for error in errors), errors
    # Another session on a sample is not held by it.
    other = new_app()
    go(other, page)
    assert not other.error
