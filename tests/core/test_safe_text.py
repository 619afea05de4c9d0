"""Transcript text in messages: controls escaped, secrets masked, a short excerpt only."""

from __future__ import annotations

from core.safe_text import neutralise, quoted, safe_message


def test_terminal_controls_are_written_as_visible_escapes() -> None:
    text = "a\x1b]0;title\x07b\x1b[2Jc\x9b31md\re\u202ef\x00g"
    shown = neutralise(text)
    assert shown == "a\\x1b]0;title\\x07b\\x1b[2Jc\\x9b31md\\x0de\\u202ef\\x00g"
    assert all(char not in shown for char in "\x1b\x07\x9b\r\u202e\x00")
    assert neutralise("tab\there\nline") == "tab\\x09here\\x0aline"
    assert neutralise("tab\there\nline", keep_lines=True) == "tab\there\nline"
    assert neutralise("emoji 🙂, 日本語, é") == "emoji 🙂, 日本語, é"


def test_a_quote_is_a_short_redacted_start() -> None:
    assert quoted("user") == "'user'"
    assert quoted("x" * 100) == "'" + "x" * 16 + "…'"
    key = "sk-proj-Q7vX2mN9pL4kR8tY1wE6uI3oA5sD0fG2hJ7kL9zX4cV"
    assert "Q7vX2mN9" not in quoted(f"OPENAI_API_KEY={key}", 80)
    assert quoted("first line\nsecond line", 80) == "'first line…'"
    assert quoted("\x1b[2Jboom") == "'\\x1b[2Jboom'"


def test_a_message_of_unknown_origin_is_masked_escaped_and_bounded() -> None:
    message = safe_message("failed on password=Hunter2!Go at \x1b[31mline 3" + "x" * 10_000)
    assert "Hunter2!Go" not in message and "\x1b" not in message
    assert len(message) < 2_200 and message.endswith("more characters)")
