"""Every kind of bad input gives a FormatError naming the file, the line or field, and what was expected."""

import json
import sqlite3
import tracemalloc

import pytest

from core.formats import FormatError, load
from tests.formats.checks import SAMPLES


def error_for(data, filename="input.json", **kwargs) -> str:
    with pytest.raises(FormatError) as excinfo:
        load(data, filename=filename, **kwargs)
    assert isinstance(excinfo.value, ValueError)
    message = str(excinfo.value)
    assert message.startswith(f"{filename}: "), message
    return message


def test_empty_file():
    assert "the file is empty" in error_for(b"")
    assert "the file is empty" in error_for(b"  \n\t\n")


def test_empty_file_on_disk_names_the_path(tmp_path):
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    with pytest.raises(FormatError, match=rf"^{path}: the file is empty"):
        load(path)


def test_binary_file_with_a_known_signature():
    png = (SAMPLES / "screenshot_layout_bug.json").read_bytes()  # any bytes will do after the signature
    message = error_for(b"\x89PNG\r\n\x1a\n" + png[:100], filename="shot.png")
    assert "a PNG image, not text" in message and "expected a JSON or JSONL transcript" in message


def test_binary_file_with_nul_bytes():
    message = error_for(b'{"a": 1}\x00\x01\x02\x03garbage', filename="blob.bin")
    assert "NUL bytes at byte 8" in message and "binary file" in message


def test_gzip_archive_is_named():
    assert "gzip archive (decompress it first)" in error_for(b"\x1f\x8b\x08\x00rest", filename="log.jsonl.gz")


def test_wrong_encoding_reports_line_and_column():
    data = '[{"role": "user",\n  "content": "Grüße aus Köln"}]'.encode("latin-1")
    message = error_for(data, filename="latin1.json")
    assert "line 2, column 17" in message and "byte 0xfc is not valid UTF-8" in message


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32"])
def test_bom_encodings_are_accepted(encoding):
    text = json.dumps([{"role": "user", "content": "Grüße"}, {"role": "assistant", "content": "Hallo"}], ensure_ascii=False)
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    conv = load(data, filename="bom.json")
    assert conv.messages[0]["content"] == "Grüße"


def test_bom_jsonl_is_accepted():
    lines = "\n".join(json.dumps({"role": r, "content": "ü"}) for r in ("user", "assistant"))
    for encoding in ("utf-8-sig", "utf-16"):
        assert len(load(lines.encode(encoding), filename="x.jsonl").messages) == 2


def test_utf16_without_bom_is_explained():
    data = json.dumps([{"role": "user", "content": "hi"}]).encode("utf-16-le")
    assert "UTF-16 text without a byte-order mark" in error_for(data)


def test_truncated_json_reports_line_and_column():
    text = json.dumps({"messages": [{"role": "user", "content": "x" * 50}, {"role": "assistant", "content": "y"}]}, indent=2)
    cut = text[:-30]
    with pytest.raises(json.JSONDecodeError) as reference:
        json.loads(cut)
    message = error_for(cut.encode(), filename="cut.json")
    assert f"line {reference.value.lineno}, column {reference.value.colno}:" in message and "looks truncated" in message
    assert reference.value.lineno > 1


def test_truncated_string_reports_where_it_started():
    message = error_for(b'{"messages": [{"role": "user", "content": "never closed', filename="cut.json")
    assert "line 1, column 43" in message and "Unterminated string" in message


def test_syntax_error_inside_json():
    message = error_for(b'{"messages": [\n  {"role": "user" "content": "x"}\n]}', filename="bad.json")
    assert "line 2, column 19" in message and "invalid JSON: Expecting ',' delimiter" in message


def test_deeply_nested_json_is_refused_with_its_position():
    depth = 100_000
    data = b'{"messages": ' + b"[" * depth + b"]" * depth + b"}"
    message = error_for(data, filename="deep.json")
    assert "nested too deeply" in message and "line 1, column" in message


def test_deeply_nested_line_in_jsonl_is_skipped():
    good = json.dumps({"role": "user", "content": "ok"})
    deep = "[" * 50_000 + "]" * 50_000
    conv = load(f"{good}\n{deep}\n{good}\n".encode(), filename="deep.jsonl")
    assert len(conv.messages) == 2
    assert any(w.startswith("line 2, column") and "nested too deeply" in w for w in conv.warnings)


def test_enormous_number_is_refused():
    data = b'[{"role": "user", "content": "x", "n": ' + b"9" * 50_000 + b"}]"
    assert "a number with 50,000 digits" in error_for(data)


def test_unknown_structure():
    message = error_for(json.dumps({"rows": [{"a": 1}]}).encode(), filename="table.json")
    assert "unknown structure" in message and "openai-chat" in message and "format=" in message


def test_text_that_is_not_json():
    message = error_for(b"Hello, this is a plain text note.\n", filename="note.txt")
    assert "line 1" in message and "not JSON" in message


def test_bad_field_names_the_message_and_field():
    data = json.dumps({"messages": [{"role": "user", "content": "x"}, {"role": "bot", "content": "y"}]}).encode()
    message = error_for(data, filename="chat.json", format="openai-chat")
    assert "messages[1].role: expected one of system, developer, user, assistant, tool, function, got 'bot'" in message


def test_bad_content_part_names_the_field():
    data = json.dumps([{"role": "user", "content": [{"type": "image_url", "image_url": 42}]}]).encode()
    assert "[0].content[0].image_url: expected a URL string" in error_for(data, filename="parts.json")


def test_anthropic_tool_result_without_id_names_the_block():
    data = json.dumps({"system": "s", "messages": [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]}).encode()
    message = error_for(data, filename="a.json")
    assert "messages[0].content[0].tool_use_id: expected the id of the tool_use" in message


def test_size_limit_is_checked_before_reading(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b" " * 5000 + b"]")
    with pytest.raises(FormatError, match=r"big\.json: the file is 4\.9 KB, above the 1\.0 KB limit \(pass a larger max_bytes="):
        load(path, max_bytes=1024)
    assert "above the 100 bytes limit" in error_for(b"[" + b" " * 200 + b"]", max_bytes=100)


def test_default_limit_is_200_mb():
    from core.formats import DEFAULT_MAX_BYTES

    assert DEFAULT_MAX_BYTES == 200 * 1024 * 1024


def test_missing_path_and_directory(tmp_path):
    with pytest.raises(FormatError, match=r"nope\.json: no such file"):
        load(tmp_path / "nope.json")
    with pytest.raises(FormatError, match="is a directory"):
        load(tmp_path)


def test_unsupported_input_type():
    with pytest.raises(FormatError, match="cannot read a int; expected a file path, bytes or a binary file object"):
        load(42)


def test_sqlite_file_of_another_app(tmp_path):
    path = tmp_path / "places.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
    conn.execute("CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, fk INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(FormatError) as excinfo:
        load(path)
    message = str(excinfo.value)
    assert message.startswith(f"{path}: a SQLite database, but not a Hermes state.db")
    assert "moz_bookmarks, moz_places" in message and "expected a 'sessions' table" in message


def test_damaged_sqlite_file():
    data = b"SQLite format 3\x00" + b"\xff" * 3000
    assert "cannot be read as a SQLite database" in error_for(data, filename="state.db")


def test_sqlite_with_a_non_hermes_format_override():
    data = (SAMPLES / "hermes_state.db").read_bytes()
    assert "can only be read as the hermes format" in error_for(data, filename="state.db", format="openai-chat")


def test_corrupt_jsonl_lines_are_skipped_and_listed():
    lines = [
        json.dumps({"role": "user", "content": "one"}),
        '{"role": "assistant", "content": "tw',
        "",
        json.dumps({"role": "assistant", "content": "three"}),
        b"\xff\xfe not utf-8".decode("latin-1"),
        json.dumps({"role": "user", "content": "four"}),
    ]
    data = "\n".join(lines).encode("utf-8")
    data = data.replace("ÿþ".encode(), b"\xff\xfe")
    conv = load(data, filename="log.jsonl")
    assert [m["content"] for m in conv.messages] == ["one", "three", "four"]
    assert conv.sources == ["line 1", "line 4", "line 6"]
    joined = "\n".join(conv.warnings)
    assert "line 2, column" in joined and "Unterminated string" in joined
    assert "line 5: byte 0xff at column 1 is not valid UTF-8; line skipped" in joined


def test_corrupt_lines_in_agent_logs_are_skipped(tmp_path):
    text = (SAMPLES / "claude_code_session.jsonl").read_text(encoding="utf-8").splitlines()
    text.insert(6, '{"type": "user", "uuid": "broken')
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    conv = load(path)
    assert any(w.startswith("line 7, column") for w in conv.warnings)
    assert len(conv.messages) == len(load(SAMPLES / "claude_code_session.jsonl").messages)


def test_jsonl_where_every_line_is_broken():
    message = error_for(b'{"role": "user", "content": \n{"role": \n', filename="broken.jsonl")
    assert "line 1, column 29: the JSON ends before it is complete" in message


def test_jsonl_in_a_wrong_encoding_is_refused_as_a_whole():
    lines = [json.dumps({"role": "user", "content": f"Grüße {i}"}, ensure_ascii=False) for i in range(10)]
    message = error_for("\n".join(lines).encode("latin-1"), filename="latin1.jsonl")
    assert "line 1, column 32: byte 0xfc is not valid UTF-8" in message


def test_wrong_session_id_lists_the_available_ones():
    message = error_for((SAMPLES / "hermes_state.db").read_bytes(), filename="state.db", session="nope")
    assert "session 'nope' not found; the file holds: '20260314_083011_7a1c44e2'" in message


def test_session_on_a_single_conversation():
    message = error_for((SAMPLES / "anthropic_messages_session.json").read_bytes(), filename="a.json", session="x")
    assert "holds a single conversation" in message


def test_claude_code_parent_cycle_does_not_hang():
    records = [
        {"type": "user", "uuid": "a", "parentUuid": "c", "sessionId": "s", "message": {"role": "user", "content": "1"}},
        {"type": "assistant", "uuid": "b", "parentUuid": "a", "sessionId": "s",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "2"}]}},
        {"type": "user", "uuid": "c", "parentUuid": "b", "sessionId": "s", "message": {"role": "user", "content": "3"}},
    ]
    conv = load("".join(json.dumps(r) + "\n" for r in records).encode(), filename="cycle.jsonl")
    assert sorted(m["content"] if isinstance(m["content"], str) else "2" for m in conv.messages) == ["1", "2", "3"]


def test_sharegpt_unclosed_tags_are_handled():
    value = "Let me look.\n<tool_call>\n" + '{"name": "ls", "argu' + "<tool_call>" * 20_000
    data = json.dumps({"conversations": [{"from": "human", "value": "x"}, {"from": "gpt", "value": value}]}).encode()
    conv = load(data, filename="s.json")
    assert any("s.json" not in w and "conversations[1]: a tool call body is not JSON" in w for w in conv.warnings)
    assert conv.messages[1]["role"] == "assistant" and "tool_calls" not in conv.messages[1]


def test_input_bytes_object_is_not_changed():
    data = bytearray((SAMPLES / "anthropic_messages_session.json").read_bytes())
    before = bytes(data)
    load(data, filename="a.json")
    assert bytes(data) == before


def test_large_jsonl_is_read_without_several_copies(tmp_path):
    path = tmp_path / "big.jsonl"
    row = json.dumps({"role": "tool", "tool_call_id": "c", "content": "x" * 2000})
    call = json.dumps({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    with path.open("w", encoding="utf-8") as handle:
        for _ in range(1500):
            handle.write(call + "\n" + row + "\n")
    size = path.stat().st_size
    tracemalloc.start()
    conv = load(path)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(conv.messages) == 3000
    # The messages themselves take about the file size; reading must not add whole extra copies.
    assert peak < 2.5 * size, (peak, size)


def test_corrupt_line_in_a_hermes_export_is_reported_once():
    lines = (SAMPLES / "hermes_sessions_export.jsonl").read_text(encoding="utf-8").splitlines()
    lines.insert(1, '{"id": "broken", "messages": [')
    conv = load("\n".join(lines).encode(), filename="export.jsonl")
    assert sum(w.startswith("line 2, column") for w in conv.warnings) == 1
    assert len(conv.sessions) == 3
