"""The commands at scale: time and peak memory of ``analyze``, ``compress`` and ``batch``, and how they grow.

    python -m bench.bench_scale [--skip-large]

Each run is a fresh ``python -m core ...`` process (as a user would start it) that reports its own
wall time and memory: the peak resident size of the process (``VmHWM``, its own high-water
mark, not inherited from this one) and its growth above the size it had with the command's
modules and the tiktoken encoding loaded, before reading the file. Inputs are generated into a
temporary directory (deterministic seeds) and removed afterwards.

1. Targets: ``analyze`` of 200,000 short messages and of a 150 MB JSONL (410,000 messages) under
   60 s with memory at most 3x the file; one 50 MB message under 20 s.
2. Growth: every command on 1x, 10x and 100x the same kind of transcript (2,000 to 200,000
   messages; the 1x and 10x times are the best of three runs): a ratio of times at most the ratio
   of sizes is at most linear.

The default summarizer is the offline extractive one (``analyze`` and ``compress`` run it); the
same runs with ``--summarizer none`` (the release's own fallback) show what the rest costs.
Results go to ``bench/results/scale.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, print_table, save
from bench.corpus import _words, generate_tiny_transcript, write_corpus_file, write_jsonl_file

ANALYZE_TARGET_S = 60.0
ONE_MESSAGE_TARGET_S = 20.0
MEMORY_TARGET_RATIO = 3.0

# Runs one command in this process and reports its time and memory on stderr's last line.
_RUNNER = r"""
import json, sys, time
def status(key):
    with open('/proc/self/status') as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
import core.cli, core.batch, core.views.zones, core.facts, core.summarizers.extractive, pandas
from core.tokens import get_counter
get_counter('cl100k_base'); get_counter('o200k_base')
before = status('VmRSS')
start = time.perf_counter()
code = core.cli.main(sys.argv[1:])
seconds = time.perf_counter() - start
print(json.dumps({'code': code, 'seconds': seconds, 'before': before, 'peak': status('VmHWM')}), file=sys.stderr)
"""


def run_command(args: list[str], timeout: float = 900) -> dict[str, Any]:
    """``python -m core <args>`` in a fresh process: exit code, seconds, peak and growth in bytes."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    try:
        done = subprocess.run([sys.executable, "-c", _RUNNER, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"code": "timed out", "seconds": float(timeout), "before": 0, "peak": 0, "growth": 0}
    lines = [line for line in done.stderr.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"{' '.join(args)} reported nothing: {done.stderr[-800:]}")
    report = json.loads(lines[-1])
    report["growth"] = report["peak"] - report["before"]
    return report


def _one_big_message(path: Path, megabytes: int = 50) -> Path:
    rng = random.Random(50)
    text = _words(rng, megabytes * 160_000)[: megabytes * 1_000_000]
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "build.log"}'}}
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Read the build log and tell me what failed."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": text},
        {"role": "assistant", "content": "The build log is read."},
        {"role": "user", "content": "Thanks."},
    ]
    return write_corpus_file(messages, path)


def _row(case: str, path: Path, report: dict[str, Any], target_s: float | None, memory_target: bool) -> dict[str, Any]:
    size = path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.iterdir())
    ratio = report["growth"] / size
    row: dict[str, Any] = {
        "case": case,
        "file MB": round(size / 1e6, 1),
        "seconds": round(report["seconds"], 2),
        "target s": target_s,
        "peak RSS MB": round(report["peak"] / 1e6),
        "growth MB": round(report["growth"] / 1e6),
        "growth / file": round(ratio, 2),
        "exit": report["code"],
    }
    met = target_s is None or report["seconds"] <= target_s
    if memory_target:
        met = met and ratio <= MEMORY_TARGET_RATIO
    row["met"] = met if (target_s is not None or memory_target) else None
    return row


def targets(folder: Path) -> list[dict[str, Any]]:
    rows = []
    tiny = write_corpus_file(generate_tiny_transcript(200_000, seed=200_000), folder / "tiny-200k.json")
    jsonl = write_jsonl_file(generate_tiny_transcript(410_000, seed=1, output_words=(20, 260)), folder / "chat-410k.jsonl")
    big = _one_big_message(folder / "one-50mb-message.json")
    for label, path, target, memory in (
        ("analyze, 200,000 short messages", tiny, ANALYZE_TARGET_S, True),
        ("analyze, 150 MB JSONL (410,000 messages)", jsonl, ANALYZE_TARGET_S, True),
        ("analyze, one 50 MB message", big, ONE_MESSAGE_TARGET_S, False),
    ):
        for summarizer in ("extractive", "none"):
            report = run_command(["analyze", str(path), "--json", "--summarizer", summarizer])
            rows.append(_row(f"{label} [{summarizer}]", path, report, target, memory))
            print(rows[-1], flush=True)
    return rows


def growth(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each command at 1x, 10x and 100x; the ratio of times to the 1x time beside the ratio of sizes."""
    sizes = (2_000, 20_000, 200_000)
    files = {n: write_corpus_file(generate_tiny_transcript(n, seed=n), folder / f"grow-{n}.json") for n in sizes}
    batch_dirs = {}
    for n, path in files.items():
        directory = folder / f"batch-{n}"
        directory.mkdir()
        (directory / path.name).write_bytes(path.read_bytes())
        batch_dirs[n] = directory
    commands = {
        "analyze": lambda n: ["analyze", str(files[n]), "--json"],
        "compress": lambda n: ["compress", str(files[n]), "--force", "-o", str(folder / f"out-{n}.json")],
        "batch": lambda n: ["batch", str(batch_dirs[n]), "-o", str(folder / f"report-{n}.csv")],
        "analyze --summarizer none": lambda n: ["analyze", str(files[n]), "--json", "--summarizer", "none"],
    }
    rows, summary = [], []
    for name, argv in commands.items():
        base: float | None = None
        worst = 0.0
        for n in sizes:
            # The small runs are the baseline of every ratio: the best of three, so one slow start-up
            # does not make the large run look linear (or not).
            runs = 1 if n == sizes[-1] else 3
            report = min((run_command(argv(n)) for _ in range(runs)), key=lambda r: r["seconds"])
            base = base or report["seconds"]
            time_ratio = report["seconds"] / base
            worst = max(worst, time_ratio / (n / sizes[0]))
            rows.append({"command": name, "messages": n, "size": f"{n // sizes[0]}x",
                         "seconds": round(report["seconds"], 2), "time / 1x": round(time_ratio, 1),
                         "growth MB": round(report["growth"] / 1e6), "exit": report["code"]})
            print(rows[-1], flush=True)
        summary.append({"command": name, "worst time ratio / size ratio": round(worst, 2), "at most linear": worst <= 1.0})
    return rows, summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-large", action="store_true", help="only the growth table")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "load average at start": os.getloadavg()[0],
    }
    with tempfile.TemporaryDirectory(prefix="context-lens-scale-") as tmp:
        folder = Path(tmp)
        if not args.skip_large:
            results["targets"] = targets(folder)
            print_table("analyze at scale (time, peak memory, growth above the ready process)", results["targets"])
        results["growth"], results["growth_summary"] = growth(folder)
        print_table("growth: each command at 1x, 10x, 100x (2,000 to 200,000 messages)", results["growth"])
        print_table("growth summary (1.0 = linear)", results["growth_summary"])
    results["load average at end"] = os.getloadavg()[0]
    path = save("scale", results)
    print(f"saved {path.relative_to(ROOT)}")
    return results


if __name__ == "__main__":
    main()
