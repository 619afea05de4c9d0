"""A plain-text block: every character as written, markup escaped, a height past which it scrolls."""

from __future__ import annotations

from core.render.text_blocks import text_block_html
from tests.helpers import TextBlocks


def _read(fragment: str) -> tuple[list[tuple[str, dict[str, str | None]]], str]:
    """The fragment's tags and its one block's text (as a browser shows it: the browser test checks)."""
    read = TextBlocks(fragment)
    (text,) = read.texts.values()
    return read.tags, text


def test_the_text_comes_back_character_for_character_and_its_markup_is_never_markup() -> None:
    text = ("## Goal\n  <script>alert('x')</script> & <img src=x onerror=y>\n\n"
            "\tindented `code` * not a list\r\nlast line é 😀")
    tags, shown = _read(text_block_html(text, name="a summary"))
    assert [tag for tag, _ in tags] == ["pre"]  # the script and the image are text, not tags
    assert shown == text
    assert tags[0][1]["data-text"] == "a summary"
    assert "white-space: pre-wrap" in str(tags[0][1]["style"])


def test_leading_and_trailing_line_feeds_are_the_texts_own() -> None:
    for text in ("\nafter one line feed", "\n\n  two and spaces", "ends with two\n\n", ""):
        assert _read(text_block_html(text, name="s"))[1] == text


def test_a_name_with_quotes_cannot_leave_its_attribute() -> None:
    tags, _ = _read(text_block_html("x", name='s" onmouseover="alert(1)'))
    ((tag, attrs),) = tags
    assert tag == "pre" and "onmouseover" not in attrs
    assert attrs["data-text"] == 's" onmouseover="alert(1)'


def test_a_lone_surrogate_becomes_the_replacement_character_and_the_rest_is_kept() -> None:
    fragment = text_block_html("before \ud800 after", name="s")
    fragment.encode("utf-8")  # a lone surrogate could not be sent to the browser
    assert _read(fragment)[1] == "before \ufffd after"


def test_a_height_makes_the_block_scroll_past_it_and_none_lets_it_grow() -> None:
    ((_, tall),), _ = _read(text_block_html("x", name="s", max_height=480))
    ((_, free),), _ = _read(text_block_html("x", name="s"))
    tall, free = tall["style"] or "", free["style"] or ""
    assert "max-height: 480px" in tall and "overflow-y: auto" in tall
    assert "max-height" not in free
