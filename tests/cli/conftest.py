"""Fixtures for the command-line tests: a small corpus of good and bad transcripts."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from core.batch import AnalysisSettings, run_batch
from core.batch_files import find_transcripts
from core.batch_report import TIMING_COLUMNS
from core.cli import main
from tests.cli.corpus import agent_messages, write_openai, write_sharegpt_sessions


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ray: runs batch analysis on a local Ray instance")


@dataclass
class Corpus:
    root: Path
    big: Path  # above the 64K threshold: Hermes would compress it
    mid: Path  # below the threshold
    tiny: Path  # too few messages for the compressor to do anything
    multi: Path  # three ShareGPT conversations in one JSONL file
    truncated: Path
    binary: Path
    empty: Path

    @property
    def good(self) -> list[Path]:
        return [self.big, self.mid, self.tiny, self.multi]

    @property
    def bad(self) -> list[Path]:
        return [self.truncated, self.binary, self.empty]


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("corpus")
    big = write_openai(root / "big.json", agent_messages(3, 330, 1500))  # over the 96,000 threshold at 128K
    mid = write_openai(root / "mid.json", agent_messages(2, 30))
    tiny = write_openai(
        root / "tiny.json",
        [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "Hi! How can I help?"}],
    )
    multi = write_sharegpt_sessions(root / "multi.jsonl", 3)
    truncated = root / "truncated.json"
    full = json.dumps({"messages": agent_messages(5, 3)})
    truncated.write_text(full[: len(full) // 2], encoding="utf-8")
    binary = root / "image.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    empty = root / "empty.jsonl"
    empty.write_bytes(b"")
    (root / "README.txt").write_text("not a transcript; batch skips it by extension\n", encoding="utf-8")
    return Corpus(root, big, mid, tiny, multi, truncated, binary, empty)


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """Run ``main(argv)`` in this process and capture its exit code, stdout and stderr."""

    def run(*argv: str | Path) -> Run:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def assert_one_line_error(run: Run, *fragments: str) -> None:
    """A bad-input failure: non-zero exit, one line on stderr naming the problem, no traceback."""
    assert run.code != 0
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert "Traceback" not in run.err
    assert lines[0].startswith("context-lens")
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def stable(frame: pd.DataFrame) -> pd.DataFrame:
    """A report without its timing columns, in a fixed row order (for comparing engines)."""
    return frame.drop(columns=list(TIMING_COLUMNS)).sort_values(["file", "session"]).reset_index(drop=True)


@pytest.fixture(scope="session")
def inline_report(corpus: Corpus) -> pd.DataFrame:
    """The corpus analysed in this process (one worker): the reference every engine must match."""
    return run_batch(find_transcripts([str(corpus.root)]), AnalysisSettings(), workers=1)
