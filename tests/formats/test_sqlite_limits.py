"""A Hermes store is read within limits, whatever its columns compute.

A 16 KB file whose ``sessions.title`` is a generated column of 400 million characters took 2 GB to
read; every value is now read under SQLite's own length limit and the text read is counted against
the file's budget (``max_bytes``, 200 MB by default), so such a file reads in a moment, or is refused
with the table, column and row that went over.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.formats import FormatError, load


def _store(path: Path, *, title: str = "NULL", content: str | None = None, role: str | None = None) -> Path:
    conn = sqlite3.connect(path)
    content_column = f"content TEXT GENERATED ALWAYS AS ({content}) VIRTUAL" if content else "content TEXT"
    role_column = f"role TEXT GENERATED ALWAYS AS ({role}) VIRTUAL" if role else "role TEXT"
    conn.executescript(f"""
        CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, model TEXT, started_at REAL,
            parent_session_id TEXT, end_reason TEXT, system_prompt TEXT,
            title TEXT GENERATED ALWAYS AS ({title}) VIRTUAL);
        CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, {role_column}, {content_column},
            tool_calls TEXT, tool_call_id TEXT, token_count INTEGER, kind TEXT);
    """)
    for number in range(4):
        conn.execute("INSERT INTO sessions (id, source, model, started_at) VALUES (?, 'cli', 'gpt-4o', ?)",
                     (f"s{number}", number))
        for kind in ("user", "assistant"):
            columns, values = ["session_id", "kind"], [f"s{number}", kind]
            if not role:
                columns.append("role")
                values.append(kind)
            if not content:
                columns.append("content")
                values.append(f"{kind} says hello")
            conn.execute(f"INSERT INTO messages ({', '.join(columns)}) VALUES ({', '.join('?' * len(values))})", values)
    conn.commit()
    conn.close()
    return path


def test_a_title_that_computes_40_million_characters_is_read_as_nothing(tmp_path: Path) -> None:
    path = _store(tmp_path / "state.db", title="printf('%.*c', 40000000, 'T')")
    assert path.stat().st_size < 64 * 1024
    conversation = load(path)  # SQLite's printf gives NULL past the length limit: nothing is built
    assert [message["content"] for message in conversation.messages] == ["user says hello", "assistant says hello"]
    assert all(info.title is None for info in conversation.sessions)


def test_a_value_over_the_limit_of_one_value_names_its_column_and_row(tmp_path: Path) -> None:
    path = _store(tmp_path / "state.db", title="hex(zeroblob(20000000))")  # 40 million characters
    with pytest.raises(FormatError) as caught:
        load(path)
    message = str(caught.value)
    assert "sessions.title: a value in the first row is longer than 16 MB (the limit of one value" in message
    assert message.startswith(str(path))


def test_a_role_is_a_short_value(tmp_path: Path) -> None:
    path = _store(tmp_path / "state.db", role="hex(zeroblob(1000000))")
    with pytest.raises(FormatError, match=r"messages\.role: a value in the first row is longer than 64 KB"):
        load(path)


def test_message_text_counts_against_the_files_budget(tmp_path: Path) -> None:
    path = _store(tmp_path / "state.db", content="hex(zeroblob(1500000))")  # 3 million characters a row
    with pytest.raises(FormatError, match=r"table messages: the store holds more than 5 MB of text to read"):
        load(path, max_bytes=5 * 1024 * 1024)
    assert len(load(path, max_bytes=40 * 1024 * 1024).messages) == 2  # within a larger budget it reads


def test_columns_the_reader_does_not_use_are_never_computed(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    _store(path)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE messages ADD COLUMN junk TEXT GENERATED ALWAYS AS (hex(zeroblob(50000000))) VIRTUAL")
    conn.commit()
    conn.close()
    assert len(load(path).messages) == 2
