"""Every file of the hostile corpus through every command-line command and every dashboard page.

``analyze`` and ``compress`` refuse a file the library refuses with exit 2 and one line that
names the file and says what was wrong (the library's own ``FormatError`` text), and handle a
file the library reads with exit 0; nothing ends in exit 1 or a traceback. ``batch`` over the
whole corpus reports each refused file as an error row with that same text and carries on
(exit 0), as documented. On the dashboard the files are uploaded one after another in one
session (five sessions, each a fifth of the corpus): the overview shows a refused file's reason or
a read file's figures, then the pages are opened (a read file on every page, a refused one on the
pages in turn): no exception, no traceback, and after a refused file the page says it was not
loaded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from core.cli import main
from core.formats import Conversation
from dashboard.sections import OWN_INPUT_PAGES
from tests.app.conftest import new_app
from tests.robustness.corpus import HOSTILE, corpus_files, load_outcome, manifest
from tests.robustness.test_hostile_upload import (
    GENERIC_FAILURE,
    TRACEBACK_MARKERS,
    library_outcome,
    page_texts,
    pages,
    says_it_was_not_loaded,
    unescape,
    upload_problems,
)

FILES = corpus_files()
MANIFEST = manifest()


def _one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if ": warning: " not in line]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", FILES)
def test_analyze_and_compress(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = HOSTILE / name
    before = path.read_bytes()
    expected = load_outcome(str(path), str(path))
    for argv in (["analyze", str(path), "--json"], ["compress", str(path), "-o", str(tmp_path / "out.json")]):
        code = main(argv)
        captured = capsys.readouterr()
        if isinstance(expected, str):
            assert code == 2, (argv[0], captured.err)
            line = _one_line(captured.err)
            assert line == f"context-lens: error: {' '.join(expected.split())}", line
        else:
            assert code == 0, (argv[0], captured.err)
            assert "error:" not in captured.err, captured.err
            if argv[0] == "analyze":
                assert json.loads(captured.out)["messages"] == len(expected.live_context().messages)  # analyze reads the context after the last compaction
            else:
                assert isinstance(json.loads((tmp_path / "out.json").read_text(encoding="utf-8")), list | dict)
    assert path.read_bytes() == before, "the input file changed"


@pytest.mark.timeout(900)
def test_batch_over_the_whole_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.csv"
    assert main(["batch", f"{HOSTILE}/*", "-o", str(report), "--workers", "2", "--main-session-only"]) == 0
    capsys.readouterr()
    frame = pd.read_csv(report, dtype={"error": "string"})
    rows = {Path(str(file)).name: row for file, row in zip(frame["file"], frame.to_dict("records"), strict=True)}
    assert set(FILES) <= set(rows)
    for name in FILES:
        expected = load_outcome(str(HOSTILE / name), str(HOSTILE / name))
        error = rows[name]["error"]
        if isinstance(expected, str):
            assert error == " ".join(expected.split()), (name, error)
        else:
            assert pd.isna(error), (name, error)
            # The batch reads the context the model last saw, as analyze does (--full-history: all of it).
            assert rows[name]["messages"] == len(expected.live_context().messages), name


def _analysis_pages() -> list[str]:
    # Live and Sessions read their own files, never the upload; the overview is where it is uploaded.
    return [page for page in pages() if page not in OWN_INPUT_PAGES and page != "overview"]


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("chunk", range(5))
def test_every_file_on_the_pages(chunk: int) -> None:
    """A read file is opened on every page. A refused one leaves each page on the conversation before
    it, saying the file was not loaded: that does not depend on the refused bytes, so each refused
    file is opened on one page, in turn: every page gets some in every chunk."""
    at = new_app()
    failures: dict[str, list[str]] = {}
    analysis_pages = _analysis_pages()
    refused_on: dict[str, int] = dict.fromkeys(analysis_pages, 0)
    refused = 0
    for name in FILES[chunk::5]:
        expected = library_outcome(name, (HOSTILE / name).read_bytes())
        at.switch_page("pages/overview.py")
        at.run()
        # The upload's own run is the overview's: its error or its figures are checked there.
        if problems := upload_problems(at, name):
            failures.setdefault(name, []).append(f"upload: {problems}")
        shown = analysis_pages
        if isinstance(expected, str):
            shown = [analysis_pages[(refused + chunk) % len(analysis_pages)]]
            refused += 1
        for page in shown:
            at.switch_page(f"pages/{page}.py")
            at.run(timeout=120)
            problems = []
            if at.exception:
                problems.append(f"exception: {[e.value for e in at.exception][:1]}")
            if any(marker in text for text in page_texts(at) for marker in TRACEBACK_MARKERS):
                problems.append("traceback text")
            errors = [unescape(e.value) for e in at.error]
            if any(GENERIC_FAILURE in error for error in errors):
                problems.append(f"not a FormatError: {errors}")
            if isinstance(expected, str):
                refused_on[page] += 1
                if not says_it_was_not_loaded(at, name):
                    problems.append("the page does not say the file was not loaded")
            if isinstance(expected, Conversation) and errors:
                problems.append(f"errors on a readable file: {errors}")
            if problems:
                failures.setdefault(name, []).append(f"{page}: {problems}")
    assert not failures, failures
    assert min(refused_on.values()) >= 1, refused_on  # in every chunk, every page was left on a refused upload
