"""What a hostile file can make the command line do: nothing but print a clear line.

* terminal escapes in a transcript's model name, session id, warnings or text never reach the
  terminal raw, from any command or output form;
* a named pipe, a device or a socket is refused at once (it would wait for a writer, or never end);
* an error quotes at most a short, redacted start of the file;
* a file over its time or memory budget ends with one line saying which limit it hit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.cli.corpus import agent_messages, write_openai

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

ROOT = Path(__file__).resolve().parents[2]
# ESC-based sequences (set the title, clear the screen, move the cursor), an 8-bit CSI, BEL, a
# carriage return, and a right-to-left override.
ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[H\x9b31m\r\u202e"
RAW = ("\x1b", "\x9b", "\x07", "\r", "\u202e")


def _run(*argv: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core", *map(str, argv)], cwd=ROOT, capture_output=True,
                          text=True, encoding="utf-8", errors="replace", timeout=timeout)


def _assert_no_raw_controls(*texts: str) -> None:
    for text in texts:
        found = [repr(char) for char in RAW if char in text]
        assert not found, f"raw terminal controls {found} in: {text[:300]!r}"


@pytest.fixture(scope="module")
def escaping_transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Hermes export: its model name and session id carry escapes, and so do its messages."""
    messages = agent_messages(2, 30)
    messages[1]["content"] = f"please look {ESCAPES} at this"
    # a tool result with no call: its id is quoted in a warning
    messages.append({"role": "tool", "tool_call_id": f"call{ESCAPES}", "content": "orphan"})
    record = {"session_id": f"s-{ESCAPES}", "session_start": 1, "model": f"gpt-4o{ESCAPES}", "messages": messages}
    path = tmp_path_factory.mktemp("escapes") / "escapes.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def test_escapes_in_a_transcript_never_reach_the_terminal_raw(escaping_transcript: Path, tmp_path: Path) -> None:
    readable = _run("analyze", escaping_transcript)
    assert readable.returncode in (0, 2), readable.stderr
    _assert_no_raw_controls(readable.stdout, readable.stderr)
    as_json = _run("analyze", escaping_transcript, "--json")
    _assert_no_raw_controls(as_json.stdout, as_json.stderr)
    if as_json.returncode == 0:
        # The same JSON values: the controls are written as \\u escapes, not dropped.
        assert json.loads(as_json.stdout)["model"].endswith("\u202e")
    compressed = _run("compress", escaping_transcript, "--force")
    _assert_no_raw_controls(compressed.stdout, compressed.stderr)
    batch = _run("batch", escaping_transcript, "-o", tmp_path / "report.csv")
    _assert_no_raw_controls(batch.stdout, batch.stderr)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_at_once_by_analyze_and_batch(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    good = write_openai(tmp_path / "good.json", agent_messages(2, 10))
    started = time.monotonic()
    refused = _run("analyze", pipe, timeout=60)
    assert refused.returncode == 2
    assert refused.stderr.strip() == f"context-lens: error: {pipe}: is a named pipe (FIFO), not a regular file; " \
                                     "expected a transcript file"
    out = tmp_path / "report.csv"
    batch = _run("batch", tmp_path, str(pipe), "-o", out, "--workers", "1", timeout=60)
    assert time.monotonic() - started < 30
    assert batch.returncode == 0, batch.stderr
    frame = pd.read_csv(out)
    pipe_rows = frame[frame["file"] == str(pipe)]
    assert not pipe_rows.empty and pipe_rows["error"].str.contains("is a named pipe").all()
    assert frame.loc[frame["file"] == str(good), "error"].isna().all()


def test_a_device_is_refused_at_once() -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    refused = _run("analyze", "/dev/zero", timeout=60)
    assert refused.returncode == 2
    assert "is a character device, not a regular file" in refused.stderr


KEY = "sk-proj-Q7vX2mN9pL4kR8tY1wE6uI3oA5sD0fG2hJ7kL9zX4cV"


def _leaks(secret: str, text: str) -> bool:
    return any(secret[i:i + 12] in text for i in range(len(secret) - 11))


def test_an_error_quotes_only_a_short_redacted_start_of_the_file(tmp_path: Path) -> None:
    env = tmp_path / "settings.json"
    env.write_text(f"OPENAI_API_KEY={KEY}\nDATABASE_URL=postgres://app:hunter2@db/app\n", encoding="utf-8")
    refused = _run("analyze", env)
    assert refused.returncode == 2
    assert not _leaks(KEY, refused.stderr), refused.stderr
    assert "line 1: starts with 'OPENAI_API_KEY=" in refused.stderr
    out = tmp_path / "report.csv"
    _run("batch", env, "-o", out)
    error = str(pd.read_csv(out)["error"].iloc[0])
    assert not _leaks(KEY, error) and "starts with" in error

    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
    link = tmp_path / "linked.json"
    link.symlink_to(passwd)
    linked = _run("analyze", link)
    assert linked.returncode == 2
    quoted = linked.stderr.split("starts with ", 1)[1].split(", which", 1)[0]
    assert len(quoted.strip("'…")) <= 16 and "/bin/bash" not in linked.stderr


@pytest.fixture(scope="module")
def slow_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_openai(tmp_path_factory.mktemp("slow_budget") / "slow.json", agent_messages(7, 2200, 1500))


def test_a_file_over_its_time_budget_ends_with_one_line(slow_file: Path) -> None:
    started = time.monotonic()
    over = _run("analyze", slow_file, "--time-limit", "0.5")
    assert time.monotonic() - started < 60
    assert over.returncode == 2
    assert over.stderr.strip().splitlines() == [
        f"context-lens: error: {slow_file}: timed out after 0.5 s (the per-file limit); --time-limit and "
        "--memory-limit change the limits (0 for none)"
    ]


def test_a_file_over_its_memory_budget_ends_with_one_line(slow_file: Path) -> None:
    over = _run("analyze", slow_file, "--memory-limit", "20")
    assert over.returncode == 2
    lines = over.stderr.strip().splitlines()
    assert len(lines) == 1 and "needed more than 20 MB of memory (the per-file limit)" in lines[0], over.stderr


def test_the_limits_are_checked_as_options() -> None:
    for flag, bad in (("--time-limit", "-1"), ("--memory-limit", "lots")):
        run = _run("analyze", "x.json", flag, bad)
        assert run.returncode == 2 and flag in run.stderr and "Traceback" not in run.stderr


def test_the_offline_summary_quotes_no_credential_by_default(tmp_path: Path) -> None:
    messages = agent_messages(3, 220, 1500)
    password = "Xy9#Secret"
    call = {"id": "call_db", "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": f"mysql -u root -p'{password}' shop"})}}
    messages[40:40] = [
        {"role": "user", "content": "Load the dump into the shop database."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_db", "content": "ERROR 1045 (28000): Access denied for user 'root'"},
    ]
    source = write_openai(tmp_path / "db.json", messages)
    out = tmp_path / "out.json"
    default = _run("compress", source, "-o", out, "--force", "--json")
    assert default.returncode == 0, default.stderr
    assert json.loads(default.stdout)["outcome"] == "summarized"
    summaries = [m["content"] for m in json.loads(out.read_text())["messages"] if "CONTEXT" in str(m.get("content"))]
    assert summaries and password not in "".join(map(str, summaries))
    turned_off = _run("compress", source, "-o", out, "--force", "--no-strict-redaction")
    assert turned_off.returncode == 0
    assert password in out.read_text()  # off, the offline summary quotes the command as it was
