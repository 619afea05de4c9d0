"""The local model (SmolLM2-135M through llama.cpp) writing a compression's summary on this machine.

    python -m bench.bench_local_model [runs]

Timed as the dashboard's Compress & preview page runs it: the server started once (with litellm
imported, as the page does while "Starting the local model…"), then whole compressions
(``ContextCompressor.compress`` with the local summarizer, ``force=True``) of a small middle (a
coding session of 14 messages) and of a long one (400 messages: the short prompt's limit is what
keeps it quick), ``runs`` times each (3 by default). The target: a run on the small middle within
30 s. Last, a restart while the model is generating (what a stopped run or a timeout does), timed
until the server is idle again.

Results go to ``bench/results/local_model.json``.
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from typing import Any

from bench.common import ROOT, print_table, save

TARGET_S = 30.0
SMALL, LONG = 14, 400


def _compress(server: Any, n_messages: int) -> dict[str, Any]:
    from bench.bench_summarizer_speed import short_message_session
    from core import CompressorConfig, ContextCompressor
    from core.summarizers.local import local_summarizer

    messages = short_message_session(n_messages, tiny=False)
    summarizer = local_summarizer(server, timeout=300)
    started = time.perf_counter()
    result = ContextCompressor(CompressorConfig(), summarizer=summarizer).compress(messages, force=True)
    seconds = time.perf_counter() - started
    usage = (summarizer.last_call or {}).get("usage") or {}
    return {"seconds": seconds, "outcome": result.outcome, "middle": len(result.plan.turns),
            "prompt tokens": usage.get("prompt_tokens"), "written tokens": usage.get("completion_tokens")}


def _restart_while_generating(server: Any) -> float:
    """Seconds from asking for a restart, with the model busy writing, to an idle server."""
    from core.summarizers.local import local_summarizer

    busy = local_summarizer(server, timeout=120, max_tokens_cap=900)
    threading.Thread(target=lambda: _ignore_errors(busy, "Count from 1 to 5000, one number per line."),
                     daemon=True).start()
    deadline = time.monotonic() + 30
    while server.progress() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.perf_counter()
    server.restart()
    seconds = time.perf_counter() - started
    if server.progress() is not None:
        raise RuntimeError("the restarted server is still generating")
    return seconds


def _ignore_errors(summarizer: Any, prompt: str) -> None:
    try:
        summarizer(prompt, 900)
    except Exception:  # the restart cuts this call off: that is the point
        pass


def main(runs: int = 3) -> dict[str, Any]:
    from core.summarizers.llm import import_litellm
    from core.summarizers.local import LocalModelServer, missing_parts

    if missing_parts():
        print(f"local model: not measured (missing {', '.join(missing_parts())})")
        return {"skipped": f"missing {', '.join(missing_parts())}"}
    results: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M"), "runs": runs,
                               "load_average_before": os.getloadavg()[0]}
    started = time.perf_counter()
    server = LocalModelServer().start()
    import_litellm()
    results["start_s"] = round(time.perf_counter() - started, 2)
    rows = []
    try:
        for n_messages in (SMALL, LONG):
            measured = [_compress(server, n_messages) for _ in range(runs)]
            times = [m["seconds"] for m in measured]
            last = measured[-1]
            rows.append({"conversation": f"{n_messages} messages", "middle": last["middle"],
                         "median s": statistics.median(times), "worst s": max(times),
                         "prompt tokens": last["prompt tokens"], "written tokens": last["written tokens"],
                         "outcomes": ", ".join(sorted({m["outcome"] for m in measured})),
                         "target s": TARGET_S if n_messages == SMALL else "-"})
        results["restart_while_generating_s"] = round(_restart_while_generating(server), 2)
    finally:
        server.stop()
    results["rows"] = rows
    results["target_s"] = TARGET_S
    results["met"] = rows[0]["worst s"] <= TARGET_S and rows[0]["outcomes"] == "summarized"
    results["load_average_after"] = os.getloadavg()[0]
    print_table(f"local model: whole compressions ({runs} runs each; server started once in "
                f"{results['start_s']:.1f} s, {server.threads} thread)", rows)
    print(f"small middle within {TARGET_S:g} s: {'met' if results['met'] else 'NOT met'}; a restart while "
          f"generating took {results['restart_while_generating_s']:.1f} s; load average "
          f"{results['load_average_before']:.1f} → {results['load_average_after']:.1f} on {os.cpu_count()} cores")
    print(f"saved {save('local_model', results).relative_to(ROOT)}")
    return results


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))
