"""Small helpers shared by the benchmarks: timing, tables and the results folder."""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def best_of(fn: Callable[[], Any], repeat: int = 5, setup: Callable[[], Any] | None = None) -> tuple[float, float]:
    """(best, median) wall time in seconds over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def timing_row(figure: str, times: list[float], target: float) -> dict[str, Any]:
    """A table row of one figure's timings: median, best and worst against ``target`` (met: the median)."""
    median = statistics.median(times)
    return {"figure": figure, "median s": round(median, 3), "best s": round(min(times), 3),
            "worst s": round(max(times), 3), "target s": target, "met": median <= target}


def print_table(title: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns}
    print(f"\n{title}")
    print("  ".join(c.ljust(widths[c]) for c in columns))
    print("  ".join("-" * widths[c] for c in columns))
    for row in rows:
        print("  ".join(_fmt(row.get(c)).ljust(widths[c]) for c in columns))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


def save(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
    return path
