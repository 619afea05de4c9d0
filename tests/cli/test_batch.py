"""``context-lens batch``: one row per transcript or session; bad files are rows, never crashes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from core.batch import AnalysisSettings, process_file, run_batch, validity
from core.batch_files import find_transcripts
from core.batch_report import REPORT_COLUMNS
from tests.cli.conftest import assert_one_line_error, stable
from tests.cli.corpus import agent_messages, write_openai


def test_mixed_corpus_to_parquet(cli, corpus, tmp_path, inline_report):
    out = tmp_path / "report.parquet"
    run = cli("batch", corpus.root, "-o", out, "--workers", "1")
    assert run.code == 0, run.err
    frame = pd.read_parquet(out)
    assert list(frame.columns) == list(REPORT_COLUMNS)
    # README.txt is skipped by extension; the multi-session file gives one row per session.
    assert sorted(frame["file"].map(lambda f: Path(f).name)) == sorted(
        ["big.json", "mid.json", "tiny.json", "multi.jsonl", "multi.jsonl", "multi.jsonl",
         "truncated.json", "image.json", "empty.jsonl"]
    )
    errors = frame[frame["error"].notna()]
    assert sorted(Path(f).name for f in errors["file"]) == ["empty.jsonl", "image.json", "truncated.json"]
    for _, row in errors.iterrows():
        assert Path(row["file"]).name in row["error"]
        assert "Traceback" not in row["error"] and "\n" not in row["error"]
        assert pd.isna(row["messages"]) and pd.isna(row["saved_total"])
    good = frame[frame["error"].isna()]
    assert good["messages"].notna().all() and good["valid"].all()
    multi = good[good["file"] == str(corpus.multi)]
    assert list(multi["session"]) == ["conv-0", "conv-1", "conv-2"]
    assert (multi["format"] == "sharegpt").all()
    assert "3 failed" in run.out
    assert "could not be analysed" in run.err
    pd.testing.assert_frame_equal(stable(frame), stable(inline_report))


def test_rows_match_analyze(cli, corpus, inline_report):
    for path in (corpus.big, corpus.mid):
        row = inline_report[inline_report["file"] == str(path)].iloc[0]
        report = cli("analyze", path, "--json").json()
        for column in ("messages", "exact_tokens", "hermes_tokens", "threshold_tokens", "head", "middle", "tail",
                       "saved_phase1", "saved_total", "tokens_after", "hermes_tokens_after", "facts", "facts_kept",
                       "middle_facts", "middle_facts_kept"):
            assert row[column] == report[column], column
        for step, saved in report["saved"].items():
            assert row[f"saved_{step}"] == saved, step
        assert row["outcome"] == report["outcome"]
        assert bool(row["would_compress"]) is report["would_compress"]
        assert row["savings_pct"] == pytest.approx(report["savings_pct"])
        assert row["fact_retention"] == pytest.approx(report["fact_retention"])
    big = inline_report[inline_report["file"] == str(corpus.big)].iloc[0]
    assert bool(big["would_compress"]) and big["saved_total"] > 0


def test_csv_output_holds_the_same_report(cli, corpus, tmp_path, inline_report):
    out = tmp_path / "report.csv"
    assert cli("batch", corpus.root, "-o", out, "--workers", "1").code == 0
    frame = pd.read_csv(out)
    assert list(frame.columns) == list(REPORT_COLUMNS)
    expected = inline_report
    assert list(frame["file"]) == list(expected["file"])
    assert list(frame["exact_tokens"].fillna(-1).astype(int)) == list(expected["exact_tokens"].fillna(-1).astype(int))
    assert list(frame["error"].isna()) == list(expected["error"].isna())


def test_process_pool_matches_inline(corpus, inline_report):
    pooled = run_batch(find_transcripts([str(corpus.root)]), AnalysisSettings(), engine="local", workers=2)
    pd.testing.assert_frame_equal(stable(pooled), stable(inline_report))


def test_settings_reach_the_workers(corpus):
    paths = [str(corpus.big)]
    wide = run_batch(paths, AnalysisSettings(context_length=1_000_000), workers=1).iloc[0]
    assert wide["threshold_tokens"] == 500_000 and not wide["would_compress"]
    bare = run_batch(paths, AnalysisSettings(summarizer="none"), workers=1).iloc[0]
    assert bare["outcome"] == "fallback" and bool(bare["fallback_used"])


def test_globs_and_several_sources(cli, corpus, tmp_path):
    out = tmp_path / "r.parquet"
    assert cli("batch", f"{corpus.root}/*.json", "-o", out, "--workers", "1").code == 0
    names = sorted(Path(f).name for f in pd.read_parquet(out)["file"])
    assert names == ["big.json", "image.json", "mid.json", "tiny.json", "truncated.json"]
    assert cli("batch", corpus.mid, str(corpus.root / "t*.json"), corpus.mid, "-o", out, "--workers", "1").code == 0
    assert [Path(f).name for f in pd.read_parquet(out)["file"]] == ["mid.json", "tiny.json", "truncated.json"]


def test_main_session_only(cli, corpus, tmp_path):
    out = tmp_path / "r.parquet"
    assert cli("batch", corpus.multi, "-o", out, "--main-session-only").code == 0
    frame = pd.read_parquet(out)
    assert list(frame["session"]) == ["conv-2"]


def test_json_totals(cli, corpus, tmp_path, inline_report):
    run = cli("batch", corpus.root, "-o", tmp_path / "r.parquet", "--workers", "1", "--json")
    totals = run.json()
    ok = inline_report[inline_report["error"].isna()]
    assert totals["files"] == 7 and totals["rows"] == 9 and totals["failed_files"] == 3
    assert totals["would_compress"] == 1
    assert totals["exact_tokens"] == int(ok["exact_tokens"].sum())
    assert totals["saved_total"] == int(ok["saved_total"].sum())


def test_bytes_shipped_to_a_worker_give_the_same_rows(corpus):
    settings = AnalysisSettings().as_dict()
    for path in (corpus.big, corpus.multi, corpus.truncated):
        by_path = process_file(str(path), settings)
        by_bytes = process_file(str(path), settings, data=path.read_bytes())
        for row in by_path + by_bytes:
            row.pop("seconds")
        assert by_bytes == by_path


def test_progress_bar_on_stderr(corpus, capsys):
    run_batch([str(corpus.tiny), str(corpus.truncated)], AnalysisSettings(), workers=1, progress=True)
    err = capsys.readouterr().err
    assert "2/2" in err and "file" in err


def test_validity_columns(tmp_path):
    """A transcript whose tool result lost its call is invalid as input; compression repairs it."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = agent_messages(4, 12)
    messages[6:6] = [{"role": "tool", "tool_call_id": "ghost", "content": "orphan result"}]
    messages += [{"role": "user", "content": "go on"}, {"role": "assistant", "content": None, "tool_calls": [call]}]
    path = write_openai(tmp_path / "orphans.json", messages)
    row = process_file(str(path), AnalysisSettings().as_dict())[0]
    assert row["error"] is None
    assert row["input_valid"] is False and row["input_valid_anthropic"] is False
    assert row["outcome"] == "summarized"
    assert row["valid"] is True and row["valid_anthropic"] is True and row["problems"] == 0
    checked = validity(messages)
    assert not checked["valid"]
    assert any("openai/orphan_tool_result, message 6" in p for p in checked["problems"])
    assert any("openai/unanswered_tool_call" in p for p in checked["problems"])
    # Without the problem lines (what analyze asks of its input) the verdicts are the same.
    verdicts = validity(messages, problems=False)
    assert verdicts == {**checked, "problems": []}


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["{root}/nothing-here", "-o", "{tmp}/r.parquet"], "no such file or directory"),
        (["{tmp}/empty-dir", "-o", "{tmp}/r.parquet"], "holds no transcript files"),
        (["{root}/*.nothing", "-o", "{tmp}/r.parquet"], "holds no transcript files"),
        (["{root}", "-o", "{tmp}/r.xlsx"], ".parquet or .csv"),
        (["{root}", "-o", "{tmp}/r.csv", "--address", "auto"], "--engine ray"),
        (["{root}", "-o", "{tmp}/r.csv", "--workers", "0"], "positive integer"),
        (["{root}", "-o", "{tmp}/r.csv", "--engine", "spark"], "--engine"),
        (["{root}"], "-o/--output"),
    ],
)
def test_batch_usage_errors(cli, corpus, tmp_path, argv, fragment):
    (tmp_path / "empty-dir").mkdir()
    filled = [a.format(root=corpus.root, tmp=tmp_path) for a in argv]
    assert_one_line_error(cli("batch", *filled), fragment)
    assert not (tmp_path / "r.parquet").exists()


def test_unwritable_report(cli, corpus, tmp_path):
    blocked = tmp_path / "missing-dir" / "r.csv"
    assert_one_line_error(cli("batch", corpus.tiny, "-o", blocked), str(blocked), "cannot write")


def test_report_json_is_plain(cli, corpus, tmp_path):
    """Numbers in --json output are plain JSON numbers (no numpy types leaking as strings)."""
    run = cli("batch", corpus.tiny, "-o", tmp_path / "r.csv", "--json")
    data = json.loads(run.out)
    assert isinstance(data["exact_tokens"], int) and isinstance(data["files"], int)


REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "data" / "hostile"
SAMPLES = REPO / "sample_conversations"


def test_hostile_inputs_never_stop_the_batch(cli, tmp_path):
    """Every damaged, odd or binary file of the robustness corpus becomes rows; the batch finishes."""
    files = find_transcripts([str(HOSTILE)])
    assert len(files) > 50
    out = tmp_path / "hostile.parquet"
    run = cli("batch", HOSTILE, "-o", out, "--workers", "2")
    assert run.code == 0, run.err
    frame = pd.read_parquet(out)
    assert sorted(frame["file"].unique()) == sorted(files)
    errors = frame["error"].dropna()
    assert len(errors) > 0
    for text in errors:
        assert "\n" not in text and "Traceback" not in text
    ok = frame[frame["error"].isna()]
    assert ok["messages"].notna().all() and ok["exact_tokens"].notna().all()


def test_undecodable_names_and_lone_surrogates(cli, tmp_path):
    corpus = tmp_path / "odd"
    corpus.mkdir()
    # A file name that is not UTF-8, holding a transcript with an escaped lone surrogate.
    name = os.fsdecode(b"caf\xe9-run.json")
    (corpus / name).write_text('{"messages": [{"role": "user", "content": "bad \\ud800 text"}, '
                               '{"role": "assistant", "content": "ok"}]}', encoding="utf-8")
    out = tmp_path / "odd.parquet"
    run = cli("batch", corpus, "-o", out, "--workers", "1")
    assert run.code == 0, run.err
    frame = pd.read_parquet(out)
    assert len(frame) == 1
    assert frame["file"].iloc[0].endswith("caf\ufffd-run.json")


def test_sample_stores_give_one_row_per_session():
    from core.formats import load

    store = SAMPLES / "hermes_state.db"
    if not store.exists():
        pytest.fail(f"{store} is missing: the bundled samples are part of the repository")
    frame = run_batch([str(store)], AnalysisSettings(), workers=1)
    sessions = [info.id for info in load(store).sessions]
    assert len(sessions) > 1
    assert sorted(frame["session"]) == sorted(sessions)
    assert (frame["format"] == "hermes").all() and frame["error"].isna().all()


# --- per-file time limit -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def slow_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A transcript whose analysis takes several seconds (about ten times the corpus's big one)."""
    return write_openai(tmp_path_factory.mktemp("slow") / "slow.json", agent_messages(7, 2200, 1500))


def test_a_file_over_the_time_limit_is_an_error_row_and_the_batch_goes_on(corpus, slow_file):
    import signal

    process_file(str(corpus.tiny), AnalysisSettings().as_dict())  # imports and encodings loaded once
    before = signal.getsignal(signal.SIGALRM)
    frame = run_batch([str(slow_file), str(corpus.tiny)], AnalysisSettings(timeout_s=1.0), workers=1)
    slow, tiny = frame.iloc[0], frame.iloc[1]
    assert slow["error"] == f"{slow_file}: timed out after 1 s (the per-file limit)"
    assert pd.isna(slow["messages"]) and 1.0 <= slow["seconds"] < 10
    assert pd.isna(tiny["error"]) and tiny["messages"] == 2
    # The timer is disarmed and the previous handler back once each file is done.
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def test_the_limit_holds_in_pool_workers_and_a_generous_one_changes_nothing(corpus, slow_file, inline_report):
    limited = run_batch([str(slow_file), str(corpus.tiny)], AnalysisSettings(timeout_s=1.0), workers=2)
    slow = limited.iloc[0]
    assert slow["error"] == f"{slow_file}: timed out after 1 s (the per-file limit)", slow[["error", "seconds"]].to_dict()
    good = [str(path) for path in corpus.good]
    generous = run_batch(good, AnalysisSettings(timeout_s=600), workers=2)
    expected = inline_report[inline_report["file"].isin(good)]
    pd.testing.assert_frame_equal(stable(generous), stable(expected.reset_index(drop=True)))


def test_file_timeout_option(cli, corpus, tmp_path):
    out = tmp_path / "report.csv"
    # The corpus's big transcript takes far longer than 50 ms to analyse.
    run = cli("batch", corpus.big, corpus.tiny, "-o", out, "--workers", "1", "--file-timeout", "0.05")
    assert run.code == 0, run.err
    frame = pd.read_csv(out)
    assert frame["error"].iloc[0] == f"{corpus.big}: timed out after 0.05 s (the per-file limit)"
    assert "timed out after 0.05 s" in run.err  # the warning quotes the first error row
    for bad in ("0", "-3", "soon", "inf"):
        assert_one_line_error(cli("batch", corpus.tiny, "-o", out, "--file-timeout", bad), "--file-timeout")
