"""Corpus throughput of ``context-lens batch``: files per second and peak memory, per engine.

A corpus of generated coding-agent transcripts (200 by default, 10 to 800 messages, log-uniform,
written as OpenAI chat, Anthropic, Responses and ShareGPT files, plus a few broken files that
must come out as error rows) is analysed with the default settings (extractive summarizer) by:

* ``inline``: one process, no pool (the baseline);
* ``local``: the local process pool with all cores;
* ``ray``: Ray tasks on a local Ray instance with all cores. Ray's start-up is timed apart: the
  instance is started first, then the batch runs on it (``files_per_s`` excludes the start-up,
  ``wall_with_startup_s`` includes it).

Peak memory is the largest resident set of this process plus every process it started (pool
workers, Ray's raylet and workers), sampled from ``/proc`` every 0.1 s; ``driver_maxrss_mb`` is
this process alone (``getrusage``). Each engine's report must equal the inline one (timing
columns aside); the run fails otherwise.

Run: ``.venv/bin/python -m bench.bench_batch [--files N] [--engines inline,local,ray]``
(writes ``bench/results/batch.json``).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import print_table, save  # noqa: E402
from bench.corpus import generate_transcript  # noqa: E402
from core.batch import AnalysisSettings, run_batch  # noqa: E402
from core.batch_files import find_transcripts  # noqa: E402
from core.batch_report import TIMING_COLUMNS  # noqa: E402
from core.formats import dump  # noqa: E402

FORMATS = ("openai-chat", "openai-chat", "anthropic", "openai-responses", "sharegpt")
BROKEN = {
    "broken_truncated.json": b'{"messages": [{"role": "user", "content": "unfinished',
    "broken_binary.json": b"\x89PNG\r\n\x1a\n" + bytes(range(256)),
    "broken_empty.jsonl": b"",
    "broken_shape.json": b'{"rows": [1, 2, 3]}',
}


def make_corpus(directory: Path, files: int, seed: int = 7) -> dict[str, Any]:
    """Write ``files`` transcripts (the last few broken) and describe what was written."""
    rng = random.Random(seed)
    good = max(0, files - len(BROKEN))
    sizes = []
    total_bytes = 0
    for i in range(good):
        n_messages = int(math.exp(rng.uniform(math.log(10), math.log(800))))
        messages = generate_transcript(n_messages, seed=seed * 1000 + i)
        fmt = FORMATS[i % len(FORMATS)]
        text = dump(messages, fmt)
        path = directory / f"t{i:04d}.{fmt}.json"
        path.write_text(text, encoding="utf-8")
        sizes.append(len(messages))
        total_bytes += len(text.encode("utf-8"))
    for name, data in list(BROKEN.items())[: files - good]:
        (directory / name).write_bytes(data)
        total_bytes += len(data)
    return {
        "files": files,
        "broken": files - good,
        "messages_total": sum(sizes),
        "messages_min": min(sizes) if sizes else 0,
        "messages_max": max(sizes) if sizes else 0,
        "megabytes": round(total_bytes / 1e6, 2),
    }


# --- memory --------------------------------------------------------------------------------------


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                stat = fh.read()
        except OSError:
            continue
        # The command name may hold spaces: the fields after it start at the last ')'.
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants."""
    children = _children_map()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _rss_bytes(pid)
        stack.extend(children.get(pid, ()))
    return total


class PeakSampler:
    """Samples the process tree's resident memory in a thread; ``peak`` is the largest seen."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(os.getpid()))
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakSampler:
        if os.path.isdir("/proc"):
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


def _maxrss_mb() -> float:
    value = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return value / 1024 if sys.platform != "darwin" else value / 1024 / 1024


# --- engines -------------------------------------------------------------------------------------


def _stable(frame: Any) -> Any:
    return frame.drop(columns=list(TIMING_COLUMNS)).sort_values(["file", "session"]).reset_index(drop=True)


def run_engine(engine: str, paths: list[str], workers: int) -> tuple[dict[str, Any], Any]:
    settings = AnalysisSettings()
    startup = 0.0
    with PeakSampler() as sampler:
        if engine == "ray":
            import logging

            import ray

            began = time.perf_counter()
            ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
            startup = time.perf_counter() - began
            try:
                began = time.perf_counter()
                frame = run_batch(paths, settings, engine="ray", workers=workers)
                seconds = time.perf_counter() - began
            finally:
                ray.shutdown()
        else:
            began = time.perf_counter()
            frame = run_batch(paths, settings, engine="local", workers=1 if engine == "inline" else workers)
            seconds = time.perf_counter() - began
    rows_ok = int(frame["error"].isna().sum())
    row = {
        "engine": engine,
        "workers": 1 if engine == "inline" else workers,
        "files": len(paths),
        "rows": len(frame),
        "error_rows": len(frame) - rows_ok,
        "seconds": round(seconds, 2),
        "files_per_s": round(len(paths) / seconds, 2),
        "startup_s": round(startup, 2),
        "wall_with_startup_s": round(seconds + startup, 2),
        "peak_tree_rss_mb": round(sampler.peak / 1e6, 1),
        "driver_maxrss_mb": round(_maxrss_mb(), 1),
    }
    return row, frame


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--engines", default="inline,local,ray")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]

    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory(prefix="context-lens-batch-") as tmp:
        corpus = make_corpus(Path(tmp), args.files)
        paths = find_transcripts([tmp])
        print(f"corpus: {corpus['files']} files ({corpus['broken']} broken), {corpus['messages_total']:,} messages "
              f"({corpus['messages_min']}-{corpus['messages_max']} per file), {corpus['megabytes']} MB")
        results = []
        reference = None
        identical: dict[str, bool] = {}
        for engine in engines:
            row, frame = run_engine(engine, paths, args.workers)
            results.append(row)
            stable = _stable(frame)
            if reference is None:
                reference = stable
            identical[engine] = bool(stable.equals(reference))
            row["same_report"] = identical[engine]
            print(f"  {engine}: {row['files_per_s']} files/s", flush=True)
    print_table(f"Batch throughput ({args.workers} workers where parallel)", results)
    payload = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            # The machine may be shared: its load before and after the run puts the numbers in context.
            "load_average_before": load_before,
            "load_average_after": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
        "corpus": corpus,
        "settings": AnalysisSettings().as_dict(),
        "results": results,
        "notes": "files_per_s excludes Ray's start-up (startup_s); peak_tree_rss_mb counts this process and "
                 "every process it started (pool workers, raylet, Ray workers).",
    }
    path = save("batch", payload)
    print(f"\nwritten: {path.relative_to(ROOT)}")
    if not all(identical.values()):
        print("FAILED: the engines' reports differ: " + ", ".join(e for e, same in identical.items() if not same))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
