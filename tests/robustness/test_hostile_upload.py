"""The hostile corpus uploaded through the dashboard's upload page (Streamlit AppTest).

A file the library refuses shows its ``FormatError`` text as a readable error, a file the library
reads shows its figures, and no file ever produces an exception element or traceback text
(:func:`upload_problems`; ``test_hostile_everywhere`` uploads the whole corpus with it). A
representative subset is opened here on every page of the dashboard, the Live and Sessions pages
included.
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from core.formats import Conversation, FormatError, load
from dashboard.sections import OWN_INPUT_PAGES, SECTIONS
from tests.app.conftest import APP, go, metrics, new_app, number
from tests.robustness.corpus import HOSTILE, corpus_files

TEXT_ELEMENTS = ("markdown", "caption", "error", "warning", "info", "success", "code", "text", "title", "header",
                 "subheader", "exception", "latex")
TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "/', "site-packages/")
# The dashboard's fallback for an exception that is not a FormatError: it must never be needed.
GENERIC_FAILURE = "could not be read ("


def pages() -> list[str]:
    """Every page of the dashboard: the files in pages/ that the navigation table lists."""
    listed = {name for entries in SECTIONS.values() for name, _title, _icon in entries}
    return [path.stem for path in sorted((APP.parent / "pages").glob("*.py")) if path.stem in listed]


def unescape(text: str) -> str:
    """Undo the Markdown escaping the dashboard applies to messages (``plain\\_text\\.json``)."""
    return re.sub(r"\\(.)", r"\1", text)


def page_texts(at: AppTest) -> list[str]:
    texts: list[str] = []
    for kind in TEXT_ELEMENTS:
        for element in getattr(at, kind, []):
            value = getattr(element, "value", None)
            if isinstance(value, str):
                texts.append(value)
    return texts


def library_outcome(name: str, data: bytes) -> Conversation | str:
    try:
        return load(data, filename=name)
    except FormatError as exc:
        return str(exc)


def shows_the_reason(expected: str, errors: list[str], name: str) -> bool:
    """The overview names the rejected file and gives the library's reason (after the file's name)."""
    reason = expected.removeprefix(f"{name}: ")
    return any(name in error and reason in error for error in errors)


def says_it_was_not_loaded(at: AppTest, name: str) -> bool:
    """Another page says the file was not loaded and analyses the conversation before it."""
    return any(name in unescape(w.value) and "was not loaded" in unescape(w.value) for w in at.warning)


def upload_problems(at: AppTest, name: str) -> list[str]:
    """Upload ``name`` from the corpus on the current page; what went wrong, if anything."""
    data = (HOSTILE / name).read_bytes()
    expected = library_outcome(name, data)
    at.file_uploader(key="uploader").set_value((name, data, "application/octet-stream"))
    at.run()
    problems = []
    if at.exception:
        problems.append(f"exception: {[e.value for e in at.exception]}")
    texts = page_texts(at)
    if any(marker in text for text in texts for marker in TRACEBACK_MARKERS):
        problems.append("traceback text on the page")
    errors = [unescape(e.value) for e in at.error]
    if any(GENERIC_FAILURE in error for error in errors):
        problems.append(f"not a FormatError: {errors}")
    if isinstance(expected, str):
        if not shows_the_reason(expected, errors, name):
            problems.append(f"expected the error {expected!r}, the page shows {errors}")
    else:
        if errors:
            problems.append(f"the library reads it, the page shows errors {errors}")
        shown = metrics(at).get("Messages")
        live = expected.live_context()  # the overview shows the context after the agent's last compaction
        if shown is None or number(shown) != len(live.messages):
            problems.append(f"Messages metric {shown!r}, the library read {len(live.messages)} messages")
    return problems


REPRESENTATIVE = [
    # refused
    "binary_junk.json",
    "png_image.json",
    "zip_bomb.json",
    "latin1.json",
    "utf16le_no_bom.json",
    "truncated_document.json",
    "nesting_2000.json",
    "sqlite_browser_history.db",
    "sqlite_hermes_corrupt_pages.db",
    # read, with odd content
    "surrogates_escaped.json",
    "control_characters.json",
    "duplicate_tool_call_ids.json",
    "claude_code_parent_cycle.jsonl",
    "sqlite_hermes_parent_cycle.db",
    "hermes_gateway_meta_only.jsonl",
    "content_of_every_type.jsonl",
    "long_single_message.json",
]


def test_representative_files_exist() -> None:
    assert set(REPRESENTATIVE) <= set(corpus_files())
    assert len(pages()) >= 4


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", REPRESENTATIVE)
def test_representative_file_on_every_page(name: str) -> None:
    at = new_app()
    go(at, "overview")
    assert upload_problems(at, name) == []
    expected = library_outcome(name, (HOSTILE / name).read_bytes())
    for page in pages():
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
        texts = page_texts(at)
        assert not any(marker in text for text in texts for marker in TRACEBACK_MARKERS), page
        errors = [unescape(e.value) for e in at.error]
        assert not any(GENERIC_FAILURE in error for error in errors), (page, errors)
        if isinstance(expected, str) and page != "overview" and page not in OWN_INPUT_PAGES:
            # Every analysis page says the file was not loaded (the reason is on the overview) and
            # analyses the conversation before it; none shows an error of its own.
            assert says_it_was_not_loaded(at, name), (page, [w.value for w in at.warning])
            assert errors == [], (page, errors)
