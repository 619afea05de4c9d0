"""``make bench``: run every benchmark, print the tables, keep the JSON in ``bench/results/``."""

from __future__ import annotations

import subprocess
import sys
import time

from bench.common import ROOT

# The core benchmark first, then each feature's own benchmark script.
SCRIPTS = (
    "bench_core",
    "bench_scale",
    "bench_browser",
    "bench_formats",
    "bench_summarizer_retention",
    "bench_summarizer_speed",
    "bench_local_model",
    "bench_strict_redaction",
    "bench_dashboard",
    "bench_first_visit",
    "bench_strategies_browser",
    "bench_at_once_browser",
    "bench_every_page_browser",
    "bench_startup",
    "bench_serving",
    "bench_sweep",
    "bench_batch",
    "bench_live",
    "bench_safety",
    "bench_thread",
)


def main() -> int:
    failures = []
    for name in SCRIPTS:
        if not (ROOT / "bench" / f"{name}.py").exists():
            continue
        print(f"\n=== {name} ===", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", f"bench.{name}"], cwd=ROOT)
        print(f"({name}: {time.perf_counter() - start:.0f} s)")
        if result.returncode != 0:
            failures.append(name)
    if failures:
        print("failed:", ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
