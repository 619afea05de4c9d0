"""Every file the command line writes is written atomically, and never over its own input.

A write that fails half-way is made real with a file-size limit (``RLIMIT_FSIZE``) on the child
process: the write fails with "File too large" once the file passes the limit, as on a full
disk. The old file must come out of it untouched and no partial file may stay behind.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from core.atomic_files import refuse_overwriting_inputs, same_file, write_text_atomically
from tests.cli.conftest import assert_one_line_error
from tests.cli.corpus import agent_messages, write_openai

ROOT = Path(__file__).resolve().parents[2]
OLD = '{"previous": "result, still needed"}\n'
LIMIT_BYTES = 16 * 1024


def _limited_run(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    """``python -m core ARGV`` whose files may not grow beyond LIMIT_BYTES."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failing write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES))

    return subprocess.run([sys.executable, "-m", "core", *map(str, argv)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, preexec_fn=limit)


@pytest.fixture
def big_input(tmp_path: Path) -> Path:
    path = write_openai(tmp_path / "session.json", agent_messages(4, 40))
    assert path.stat().st_size > 2 * LIMIT_BYTES
    return path


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


@pytest.mark.timeout(300)
def test_compress_failing_half_way_leaves_the_old_output(big_input: Path, tmp_path: Path) -> None:
    out = tmp_path / "compressed.json"
    out.write_text(OLD, encoding="utf-8")
    done = _limited_run("compress", big_input, "-o", out)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot write the result (nothing was changed)" in lines[0], done.stderr
    assert out.read_text(encoding="utf-8") == OLD
    assert _leftovers(tmp_path) == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_batch_report_failing_half_way_leaves_the_old_report(suffix: str, tmp_path: Path) -> None:
    sources = tmp_path / "runs"
    sources.mkdir()
    for seed in range(3):
        write_openai(sources / f"s{seed}.json", agent_messages(seed, 6))
    report = tmp_path / f"report{suffix}"
    # A first report, written without a limit; the second one has 80 rows and outgrows the limit.
    done = subprocess.run([sys.executable, "-m", "core", "batch", sources, "-o", report, "--workers", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    before = report.read_bytes()
    for seed in range(3, 80):
        write_openai(sources / f"s{seed}.json", agent_messages(seed, 2))
    done = _limited_run("batch", sources, "-o", report, "--workers", "1")
    assert done.returncode == 2, done.stderr
    assert "cannot write the report (nothing was changed)" in done.stderr.strip().splitlines()[-1]
    assert report.read_bytes() == before
    assert _leftovers(tmp_path) == []


def test_compress_output_replaces_the_old_file_whole(cli, big_input: Path, tmp_path: Path) -> None:
    out = tmp_path / "compressed.json"
    out.write_text(OLD * 1000, encoding="utf-8")
    os.chmod(out, 0o640)
    assert cli("compress", big_input, "-o", out).code == 0
    assert isinstance(json.loads(out.read_text(encoding="utf-8")), list | dict)
    assert (out.stat().st_mode & 0o777) == 0o640  # the old file's permissions carry over
    assert _leftovers(tmp_path) == []


# -- an output path that is the input ----------------------------------------------------------


def _ways_to_name(path: Path, tmp_path: Path) -> list[str]:
    link = tmp_path / "link.json"
    link.symlink_to(path)
    hard = tmp_path / "hard.json"
    os.link(path, hard)
    return [str(path), os.path.relpath(path), str(path.parent / "." / path.name),
            str(path.parent / ".." / path.parent.name / path.name), str(link), str(hard)]


def test_compress_refuses_to_overwrite_its_input(cli, big_input: Path, tmp_path: Path) -> None:
    original = big_input.read_bytes()
    for name in _ways_to_name(big_input, tmp_path):
        run = cli("compress", big_input, "-o", name)
        assert run.code == 2, name
        assert_one_line_error(run, "would overwrite the input file", "choose another output path")
        assert big_input.read_bytes() == original, name


def test_batch_refuses_a_report_that_is_one_of_its_inputs(cli, tmp_path: Path) -> None:
    sources = tmp_path / "runs"
    sources.mkdir()
    target = sources / "session.csv"
    write_openai(sources / "a.json", agent_messages(1, 3))
    target.write_text("role,content\nuser,hello\n", encoding="utf-8")
    original = target.read_bytes()
    run = cli("batch", f"{sources}/*", "-o", target)
    assert run.code == 2
    assert_one_line_error(run, "would overwrite the input file")
    assert target.read_bytes() == original
    # A report next to the inputs that is not one of them is fine.
    assert cli("batch", f"{sources}/*.json", "-o", sources / "report.csv", "--workers", "1").code == 0
    assert len(pd.read_csv(sources / "report.csv")) == 1


def test_same_file_and_the_refusal(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_text("{}", encoding="utf-8")
    assert same_file(a, tmp_path / "." / "a.json")
    assert not same_file(a, tmp_path / "b.json")
    assert same_file(tmp_path / "new.json", tmp_path / "sub" / ".." / "new.json")  # neither exists
    refuse_overwriting_inputs(tmp_path / "b.json", [a])
    with pytest.raises(ValueError, match="would overwrite the input file"):
        refuse_overwriting_inputs(a, [tmp_path / "x.json", a])


def test_a_failing_writer_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.json"
    target.write_text(OLD, encoding="utf-8")
    write_text_atomically(target, "new")
    assert target.read_text(encoding="utf-8") == "new"

    def broken(path: str, data: bytes) -> None:
        Path(path).write_bytes(data[:2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("core.atomic_files._write_synced", broken)
    with pytest.raises(OSError, match="No space left"):
        write_text_atomically(target, "newer")
    assert target.read_text(encoding="utf-8") == "new"
    assert _leftovers(tmp_path) == []
