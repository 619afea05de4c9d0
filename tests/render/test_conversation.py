"""The thread's HTML: transcript text escaped, Markdown without raw HTML, unsafe links or images."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from core.render.conversation import (
    FOLD_CHARS,
    SHOWN_CHARS,
    message_search_text,
    page_count,
    safe_markdown_html,
    search_matches,
    thread_html,
    thread_message,
)


class _Tags(HTMLParser):
    """Every start tag with its attributes, as a browser would parse the fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(fragment: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(fragment)
    return parser.tags


HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD4=)",
    "<javascript:alert(1)>",
    "[ref][1]\n\n[1]: javascript:alert(1)",
    "![pixel](https://tracker.example/p.png)",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=https://evil.example></iframe>",
    "[x](vbscript:msgbox)",
    "[x](file:///etc/passwd)",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_never_yields_markup_that_runs_or_fetches(text):
    for tag, attrs in tags(safe_markdown_html(text)):
        assert tag not in ("script", "img", "iframe", "object", "embed", "style"), (text, tag)
        assert not any(name.startswith("on") for name in attrs), (text, attrs)
        href = (attrs.get("href") or "").strip().lower()
        assert not href or href.startswith(("http://", "https://", "mailto:")), (text, href)


def test_markdown_keeps_what_it_should():
    rendered = safe_markdown_html("**bold** `code` [docs](https://example.org)\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    found = {tag for tag, _ in tags(rendered)}
    assert {"strong", "code", "a", "table"} <= found
    link = next(attrs for tag, attrs in tags(rendered) if tag == "a")
    assert link["href"] == "https://example.org" and "noopener" in (link.get("rel") or "")
    assert "[image: pixel]" in safe_markdown_html("![pixel](https://tracker.example/p.png)")


def test_a_tool_pair_is_collapsible_with_its_name_arguments_and_size():
    call = {"role": "assistant", "content": "Reading it.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"path": "a.py"})}}]}
    result = {"role": "tool", "tool_call_id": "c1", "content": "print('<b>hi</b>')\n" * 3}
    fragment = thread_html([thread_message(call, 7), thread_message(result, 8, tool="read_file")], "t")
    details = [attrs for tag, attrs in tags(fragment) if tag == "details"]
    assert len(details) == 2 and not any("open" in attrs for attrs in details)
    assert "Calls <span class=\"cl-tool-name\">read_file</span>" in fragment
    assert f"arguments {len(json.dumps({'path': 'a.py'})):,} characters" in fragment
    assert f"Result of <span class=\"cl-tool-name\">read_file</span> <span class=\"cl-muted\">· " \
           f"{len(result['content']):,} characters" in fragment
    assert "&lt;b&gt;hi&lt;/b&gt;" in fragment and "<b>" not in fragment
    assert 'id="cl-t-7"' in fragment and ">#7<" in fragment and ">#8<" in fragment


def test_images_are_placeholders_and_long_text_folds():
    message = {"role": "user", "content": [
        {"type": "text", "text": "line\n" * (FOLD_CHARS // 2)},
        {"type": "image_url", "image_url": {"url": "https://example.org/x.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]}
    fragment = thread_html([thread_message(message, 0)], "t")
    assert "[2 images not shown]" in fragment
    assert "example.org" not in fragment and "base64" not in fragment
    assert '<details class="cl-fold">' in fragment
    huge = thread_message({"role": "tool", "content": "x" * (SHOWN_CHARS + 10)}, 1)
    assert "10 more characters" in thread_html([huge], "t")


def test_badges_tokens_and_labels_reach_the_card_escaped():
    item = thread_message({"role": "user", "content": "hi"}, 12, badges=["SUMMARY", "<merged>"], tokens=1234,
                          label="output #")
    fragment = thread_html([item], "p")
    assert ">output #12<" in fragment and ">SUMMARY<" in fragment and "&lt;merged&gt;" in fragment
    assert "1,234 tokens" in fragment


def test_odd_messages_never_raise():
    for message in (None, "plain", 3, {"content": {"weird": True}}, {"role": None, "tool_calls": "x"},
                    {"role": "assistant", "content": [None, 5, {"type": "input_audio"}]}):
        fragment = thread_html([thread_message(message, 0)], "t")
        assert fragment.startswith('<div class="cl-thread">')


def test_search_needs_every_word_and_paging_counts_pages():
    items = [thread_message({"role": "user", "content": text}, i)
             for i, text in enumerate(["Fix the build", "run pytest", "pytest failed in build"])]
    texts = [message_search_text(item) for item in items]
    assert search_matches(texts, "pytest build") == [2]
    assert search_matches(texts, "  ") == [0, 1, 2]
    assert search_matches(texts, "USER") == [0, 1, 2]
    assert [page_count(n, 50) for n in (0, 1, 50, 51, 10_000)] == [1, 1, 1, 2, 200]


def test_an_opened_card_unfolds_its_blocks():
    message = {"role": "system", "content": "You are <b>careful</b>."}
    closed = [attrs for tag, attrs in tags(thread_html([thread_message(message, 0)], "t")) if tag == "details"]
    opened = [attrs for tag, attrs in tags(thread_html([thread_message(message, 0)], "t", opened=True))
              if tag == "details"]
    assert len(closed) == len(opened) == 1
    assert "open" not in closed[0] and "open" in opened[0]


def test_a_fold_never_splits_a_word():
    words = ("alpha beta gamma delta " * (FOLD_CHARS // 10)).strip()
    fragment = thread_html([thread_message({"role": "user", "content": words}, 0)], "t")
    shown = fragment.split('<details class="cl-fold">')[0]
    last = re.sub(r"<[^>]+>", "", shown).split()[-1]
    assert last in ("alpha", "beta", "gamma", "delta")


def test_a_lone_surrogate_reaches_the_page_as_a_replacement_character() -> None:
    """Damaged input (a lone surrogate) cannot be encoded as UTF-8 for the browser: it shows as U+FFFD."""
    item = thread_message({"role": "tool", "content": "before \ud800 after"}, 3)
    page = thread_html([item], "t")
    page.encode("utf-8")  # would raise on a lone surrogate
    assert "before \ufffd after" in page
