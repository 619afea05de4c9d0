"""How fast the dashboard reacts: analysis functions for a slider move vs cold, and real page reruns.

    python -m bench.bench_dashboard

1. The analysis behind each page on the long sample: cold (fresh process state: parsing, exact
   counting, zones, Phase-1 replay, offline summary, figures), then a slider move to parameters never
   seen before (token counts come from the per-upload cache; nothing is re-tokenized), then a move
   back to seen parameters (memoised).
2. AppTest reruns after a slider move on each page (the whole script: widgets, analysis, figures,
   serialization), median over several values.
3. Headless Chromium: seconds from ``streamlit run`` to the first rendered page, and to the
   headline figures of the default sample (skipped when Chromium is missing).

Results go to ``bench/results/dashboard.json``.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, print_table, save

LONG_SAMPLE = ROOT / "sample_conversations" / "long_coding_session.json"
APP = ROOT / "app.py"


def _timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def bench_analysis() -> list[dict[str, Any]]:
    import core.render.charts as charts
    from core import ContextCompressor
    from core.summarizers.extractive import ExtractiveSummarizer
    from core.views.savings import phase_savings
    from core.views.zones import analyze_zones
    from dashboard.memo import Settings, load_transcript

    data = LONG_SAMPLE.read_bytes()
    rows = []

    def analyse(transcript: Any, settings: Settings) -> dict[str, float]:
        """Everything the zones and savings pages compute for one parameter set, timed per part."""
        timings: dict[str, float] = {}
        timings["message table"], frame = _timed(lambda: transcript.message_table(settings.encoding))
        counter = transcript.counter(settings.encoding)
        config = settings.config()
        timings["zones"], zones = _timed(
            lambda: analyze_zones(transcript.messages, config, frame["tokens"].tolist(),
                                  counter.count_message, plan=transcript.prune_plan(config))
        )
        timings["zone map figure"], _ = _timed(lambda: charts.zone_map_figure(zones))
        timings["offline compression"], result = _timed(
            lambda: ContextCompressor(settings.config(), summarizer=ExtractiveSummarizer()).compress(transcript.messages)
        )
        timings["phase savings"], savings = _timed(
            lambda: phase_savings(transcript.messages, config, counter, result, plan=transcript.prune_plan(config))
        )
        timings["waterfall figure"], _ = _timed(lambda: charts.waterfall_figure(savings))
        return timings

    parse_s, transcript = _timed(lambda: load_transcript(data, LONG_SAMPLE.name))
    cold = analyse(transcript, Settings(model="gpt-4o"))
    rows.append({"case": "cold (first analysis in the process)", "parse": parse_s, **cold,
                 "total": parse_s + sum(cold.values())})

    moves = [Settings(model="gpt-4o", protect_first_n=n) for n in (4, 5, 6, 7, 8)]
    moves += [Settings(model="gpt-4o", threshold_percent=p) for p in (0.6, 0.7, 0.8)]
    moves += [Settings(model="gpt-4o", summary_target_ratio=r) for r in (0.3, 0.4)]
    warm = [analyse(transcript, settings) for settings in moves]
    median = {key: statistics.median(t[key] for t in warm) for key in warm[0]}
    rows.append({"case": f"slider move, new values (median of {len(moves)})", "parse": 0.0, **median,
                 "total": sum(median.values())})

    seen = Settings(model="gpt-4o", protect_first_n=4)
    hit_s, _ = _timed(lambda: transcript.memo(("zones", seen), lambda: None))
    rows.append({"case": "slider back to a seen value (memo hit)", "parse": 0.0, "total": hit_s})
    return rows


def bench_reruns(repeat: int = 4) -> list[dict[str, Any]]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    first_s, _ = _timed(at.run)
    rows = [{"page": "overview", "what": "first run (fresh session, default sample)", "seconds": first_s}]
    plans = {
        "overview": ("protect_first_n", [4, 5, 6, 7, 8, 9][:repeat]),
        "zones": ("protect_last_n", [25, 30, 35, 40, 45, 50][:repeat]),
        "savings": ("summary_target_ratio", [0.25, 0.3, 0.35, 0.4, 0.45][:repeat]),
        "compress": ("threshold_percent", [0.55, 0.6, 0.65, 0.7, 0.75][:repeat]),
    }
    for page, (key, values) in plans.items():
        at.switch_page(f"pages/{page}.py")
        open_s, _ = _timed(at.run)
        times = []
        for value in values:
            at.slider(key=key).set_value(value)
            seconds, _ = _timed(at.run)
            assert not at.exception, [e.value for e in at.exception]
            times.append(seconds)
        rows.append({"page": page, "what": "open the page", "seconds": open_s})
        rows.append({"page": page, "what": f"rerun after moving {key} (median of {len(times)})",
                     "seconds": statistics.median(times)})
    return rows


def bench_browser() -> dict[str, Any]:
    if not Path("/usr/bin/chromium").exists():
        return {"skipped": "no /usr/bin/chromium"}
    from bench.dashboard_start import time_to_first_render

    sidebar = min(time_to_first_render(APP, "Compressor parameters") for _ in range(2))
    figures = min(time_to_first_render(APP, "Headline figures") for _ in range(2))
    return {"first render (sidebar and upload) s": round(sidebar, 2), "headline figures s": round(figures, 2)}


def main() -> dict[str, Any]:
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "load_average_before": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    results["analysis"] = bench_analysis()
    print_table("analysis of the long sample (seconds)", results["analysis"])
    results["reruns"] = bench_reruns()
    print_table("AppTest reruns (seconds)", results["reruns"])
    results["browser"] = bench_browser()
    print("browser:", results["browser"])
    results["load_average_after"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    path = save("dashboard", results)
    print(f"saved {path.relative_to(ROOT)}")
    return results


if __name__ == "__main__":
    main()
