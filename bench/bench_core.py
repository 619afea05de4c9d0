"""Compressor, counting and analysis speed; memory on a 100 MB transcript.

Writes the generated inputs to ``bench/results/inputs/`` (OpenAI chat JSON) so any other
implementation can be timed on exactly the same messages, and the figures to
``bench/results/core.json``. Run: ``make bench`` or ``.venv/bin/python -m bench.bench_core``.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import RESULTS, ROOT, best_of, print_table, save
from bench.corpus import generate_transcript, write_corpus_file
from core import CompressorConfig, ContextCompressor, repr_length
from core import tokens as tok
from core.phases.assemble import sanitize_tool_pairs, strip_historical_media
from core.plan import prepare
from core.profiles import PROFILES
from core.views.zones import analyze_zones

SIZES = (1_000, 4_000, 10_000)
LONG_SAMPLE = ROOT / "sample_conversations" / "long_coding_session.json"


def instant_summarizer(prompt: str, max_tokens: int) -> str:
    return "## Active Task\nNone."


def _inputs() -> dict[str, list[dict]]:
    inputs: dict[str, list[dict]] = {}
    for size in SIZES:
        inputs[f"generated-{size}"] = generate_transcript(size, seed=size)
    if LONG_SAMPLE.exists():
        from core.formats import load

        inputs["long_coding_session"] = load(LONG_SAMPLE).messages
    return inputs


def _clear_caches() -> None:
    repr_length.clear_cache()


def bench_compress(inputs: dict[str, list[dict]]) -> list[dict]:
    rows = []
    for name, messages in inputs.items():
        path = write_corpus_file(messages, RESULTS / "inputs" / f"{name}.json")
        config = CompressorConfig(context_length=128_000)

        def run(current: int | None = None, config=config, messages=messages) -> None:
            ContextCompressor(config, summarizer=instant_summarizer).compress(messages, current_tokens=current)

        cold, cold_median = best_of(run, repeat=5, setup=_clear_caches)
        warm, _ = best_of(run, repeat=5)
        host, _ = best_of(lambda: run(200_000), repeat=5, setup=_clear_caches)
        rows.append(
            {
                "input": name,
                "messages": len(messages),
                "MB": round(path.stat().st_size / 1e6, 2),
                "compress cold ms": cold * 1000,
                "cold median ms": cold_median * 1000,
                "with current_tokens ms": host * 1000,
                "re-run ms": warm * 1000,
            }
        )
    return rows


# ``compress()`` on the 4,000-message input (generate_transcript(4000, seed=4000)) against each
# published Hermes release's own, run in that release's venv (tests/differential/hermes_env) and timed
# alternately with this project's, run after run. The target: at most this share of Hermes' time.
TARGET_SHARE_OF_HERMES = 0.4


def _anchor_input() -> list[dict]:
    """The anchors' input read back from its JSON file, as a host hands over messages it parsed."""
    path = write_corpus_file(generate_transcript(4_000, seed=4_000), RESULTS / "inputs" / "generated-4000.json")
    return json.loads(path.read_text(encoding="utf-8"))["messages"]


class _HermesTimer:
    """One release's ``compress()`` timed in its own venv (bench/hermes_timer.py), one run per request."""

    def __init__(self, release: str, input_path: Path) -> None:
        import subprocess
        import tempfile

        from tests.differential.hermes_env import hermes_env

        self.home = tempfile.TemporaryDirectory(prefix="hermes-home-")
        env = {**os.environ, "HERMES_HOME": self.home.name}
        self.process = subprocess.Popen(
            [str(hermes_env(release)), str(Path(__file__).with_name("hermes_timer.py")), str(input_path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=self.home.name,
        )
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"Hermes {release} could not start its timer")

    def run(self) -> float:
        self.process.stdin.write("run\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.home.cleanup()


def bench_against_hermes(runs: int = 31) -> list[dict]:
    """``compress()`` on the anchors' input, per release, cold (no remembered repr lengths), medians,
    beside the same release's own ``compress()`` timed in its venv on the same input.

    The input is read back from its JSON file, as a host hands over messages it parsed; the
    releases and the two sides alternate, run after run, so a busy spell of the machine hits all.
    """
    from tests.differential.hermes_env import HermesEnvError

    messages = _anchor_input()
    input_path = RESULTS / "inputs" / "generated-4000.json"
    ours: dict[str, list[float]] = {profile: [] for profile in PROFILES}
    theirs: dict[str, list[float]] = {profile: [] for profile in PROFILES}
    timers: dict[str, _HermesTimer] = {}
    try:
        for profile in PROFILES:
            try:
                timers[profile] = _HermesTimer(profile.lstrip("v"), input_path)
            except (HermesEnvError, RuntimeError, OSError) as exc:
                print(f"Hermes {profile} cannot run here ({exc}): no side-by-side figure", file=sys.stderr)
        for _ in range(runs):
            for profile in PROFILES:
                config = CompressorConfig(context_length=128_000, profile=profile)
                _clear_caches()
                start = time.perf_counter()
                ContextCompressor(config, summarizer=instant_summarizer).compress(messages, current_tokens=200_000)
                ours[profile].append((time.perf_counter() - start) * 1000)
                if profile in timers:
                    theirs[profile].append(timers[profile].run())
    finally:
        for timer in timers.values():
            timer.close()
    rows = []
    for profile, measured in ours.items():
        median = statistics.median(measured)
        row = {"release": profile, "median ms": median, "min ms": min(measured), "max ms": max(measured)}
        if theirs[profile]:
            hermes = statistics.median(theirs[profile])
            row.update({
                "Hermes median ms": hermes,
                "share of Hermes": round(median / hermes, 2),
                "target ms": round(TARGET_SHARE_OF_HERMES * hermes, 1),
                "met": median <= TARGET_SHARE_OF_HERMES * hermes,
            })
        rows.append(row)
    return rows


def compress_breakdown(repeat: int = 21) -> list[dict]:
    """Where the time of one such ``compress()`` goes, stage by stage (medians, v0.15.1 and v0.18.0)."""
    from core.assembly import assemble
    from core.phases import summary
    from core.plan import plan

    messages = _anchor_input()
    names = (
        "Phase 1 prepared (call map, MD5 of each distinct tool output)",
        "Phase 1 applied (one-liners, shrunk argument JSON)",
        "the rest of the plan (boundaries, tail walk, summary search, budget)",
        "turns serialised and redacted",
        "prompt",
        "assembly (repairs, media)",
        "estimate of the output",
    )
    rows = []
    for profile in ("v0.15.1", "v0.18.0"):
        config = CompressorConfig(context_length=128_000, profile=profile)
        stages: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(repeat):
            _clear_caches()
            marks = [time.perf_counter()]
            prune_plan = prepare(messages, config)
            marks.append(time.perf_counter())
            prune_plan.apply(config.protect_last_n, config.tail_token_budget)
            marks.append(time.perf_counter())
            decided = plan(messages, config, prune_plan=prune_plan, current_tokens=200_000)
            marks.append(time.perf_counter())
            decided.serialized_turns  # noqa: B018  (a cached property: this builds it)
            marks.append(time.perf_counter())
            decided.prompt()
            marks.append(time.perf_counter())
            built = assemble(decided, summary.with_summary_prefix("## Active Task\nNone.", decided.profile))
            marks.append(time.perf_counter())
            built.tokens_after  # noqa: B018
            marks.append(time.perf_counter())
            for name, begin, finish in zip(names, marks[:-1], marks[1:], strict=True):
                stages[name].append((finish - begin) * 1000)
        for name, values in stages.items():
            rows.append({"release": profile, "stage": name, "median ms": statistics.median(values)})
    return rows


def bench_counting(inputs: dict[str, list[dict]]) -> list[dict]:
    tok.ensure_tiktoken_cache()  # the encoding files inside litellm: no download
    import tiktoken

    rows = []
    for name, messages in inputs.items():
        texts = [m["content"] for m in messages if isinstance(m.get("content"), str)]
        texts += [c["function"]["arguments"] for m in messages for c in (m.get("tool_calls") or [])]
        encoding = tiktoken.get_encoding("cl100k_base")
        raw, _ = best_of(lambda texts=texts, encoding=encoding: encoding.encode_ordinary_batch(texts, num_threads=os.cpu_count() or 1), repeat=3)

        def ours(texts=texts) -> None:
            counter = tok.TokenCounter("cl100k_base")
            counter.count_texts(texts)

        cold, _ = best_of(ours, repeat=3)
        counter = tok.TokenCounter("cl100k_base")
        counter.count_texts(texts)
        cached, _ = best_of(lambda texts=texts, counter=counter: counter.count_texts(texts), repeat=5)
        rows.append(
            {
                "input": name,
                "texts": len(texts),
                "tiktoken batch ms": raw * 1000,
                "ours cold ms": cold * 1000,
                "ratio": cold / raw,
                "ours cached ms": cached * 1000,
            }
        )
    return rows


def analysis(messages: list[dict], config: CompressorConfig, kept: dict | None = None) -> object:
    """The non-LLM pipeline: Phase 1, zones, assembly without a summary, repairs, estimates, and
    the Zones page's per-message table (``analyze_zones``) that the dashboard draws.

    ``kept`` holds what the dashboard keeps per transcript whatever the parameters (its Phase-1
    plan and the exact token counts); pass the same dict again to re-analyse after a parameter
    change, as the dashboard does. Without it everything is computed afresh.
    """
    kept = {} if kept is None else kept
    plan = kept.get("plan")
    if plan is None:
        plan = kept["plan"] = prepare(messages, config)
    counter = tok.get_counter("cl100k_base")
    exact = kept.get("exact tokens")
    if exact is None:
        exact = kept["exact tokens"] = [counter.count_message(m) for m in messages]
    # The zones (and the table) once; the plan hands out the pruned list it already made.
    zones = analyze_zones(messages, config, exact, counter.count_message, plan=plan)
    pruned = plan.apply(config.protect_last_n, config.tail_token_budget).messages
    assembled = pruned[: zones.compress_start] + [{"role": "user", "content": "summary"}]
    assembled += pruned[zones.compress_end :]
    repaired, _ = sanitize_tool_pairs(assembled)
    final, _ = strip_historical_media(repaired)
    return zones, tok.estimate_messages_tokens_rough(final), sum(exact)


def bench_pipeline(inputs: dict[str, list[dict]]) -> tuple[list[dict], dict]:
    rows = []
    config = CompressorConfig(context_length=128_000)
    for name, messages in inputs.items():
        tok.get_counter.cache_clear()
        tok._COUNTERS.clear()

        def cold(messages=messages) -> None:
            _clear_caches()
            tok.get_counter.cache_clear()
            tok._COUNTERS.clear()
            analysis(messages, config)

        cold_time, _ = best_of(cold, repeat=3)
        changed = CompressorConfig(context_length=128_000, threshold_percent=0.6, summary_target_ratio=0.3)
        kept: dict = {}

        def analysed_once(messages=messages, kept=kept) -> None:
            # What the dashboard holds after one analysis of this transcript with the first parameters.
            kept.clear()
            analysis(messages, config, kept)

        warm_time, _ = best_of(
            lambda messages=messages, changed=changed, kept=kept: analysis(messages, changed, kept),
            repeat=5,
            setup=analysed_once,
        )
        rows.append(
            {
                "input": name,
                "messages": len(messages),
                "cold analysis ms": cold_time * 1000,
                "after a parameter change ms": warm_time * 1000,
                "fraction of cold": warm_time / cold_time,
                "µs per message (cold)": cold_time * 1e6 / len(messages),
            }
        )
    generated = [r for r in rows if r["input"].startswith("generated")]
    growth = {}
    if len(generated) >= 2:
        small, large = generated[0], generated[-1]
        growth = {
            "messages ratio": large["messages"] / small["messages"],
            "time ratio": large["cold analysis ms"] / small["cold analysis ms"],
        }
    return rows, growth


def bench_memory_100mb() -> dict:
    """Peak RSS of a child process that loads and analyses a ~100 MB transcript."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.json"
        messages = generate_transcript(50_000, seed=7)
        write_corpus_file(messages, path)
        del messages
        gc.collect()
        size = path.stat().st_size
        code = (
            "import resource, sys\n"
            f"sys.path.insert(0, {str(ROOT)!r})\n"
            "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "from core.formats import load\n"
            "from core import CompressorConfig\n"
            "from bench.bench_core import analysis\n"
            "import core.tokens\n"
            "before = int(next(l for l in open('/proc/self/status') if l.startswith('VmRSS')).split()[1])\n"
            f"conv = load({str(path)!r})\n"
            "analysis(conv.messages, CompressorConfig(context_length=128_000))\n"
            # The child's own high-water mark: ru_maxrss would also count the parent's
            # resident size at the fork (Linux keeps it across exec), which is larger here.
            "peak = int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1])\n"
            "print(before, peak)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
        before_kb, peak_kb = map(int, out.stdout.split())
    growth = (peak_kb - before_kb) * 1024
    return {
        "file MB": round(size / 1e6, 1),
        "peak RSS MB": round(peak_kb / 1024, 1),
        "RSS growth MB": round(growth / 1e6, 1),
        "growth / file size": round(growth / size, 2),
    }


def bench_cold_start() -> dict:
    """Seconds from process start to the first rendered page: the dashboard vs a one-line page."""
    from bench.dashboard_start import time_to_first_render

    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare.py"
        bare.write_text('import streamlit as st\nst.title("Hello")\n', encoding="utf-8")
        bare_s = min(time_to_first_render(bare, "Hello") for _ in range(2))
    app_s = min(time_to_first_render(ROOT / "app.py", "Context Lens") for _ in range(2))
    return {"bare page s": round(bare_s, 2), "dashboard s": round(app_s, 2), "ratio": round(app_s / bare_s, 2)}


SECTIONS = ("hermes", "compress", "counting", "pipeline", "memory", "cold_start")


def main(sections: tuple[str, ...] = SECTIONS) -> dict:
    inputs = _inputs()
    previous = RESULTS / "core.json"
    results: dict = json.loads(previous.read_text()) if previous.exists() and sections != SECTIONS else {}
    results["machine"] = {
        "python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
        "load average at start": os.getloadavg()[0],
    }
    results["when"] = time.strftime("%Y-%m-%d %H:%M")
    if "hermes" in sections:
        results["against_hermes"] = bench_against_hermes()
        print_table("compress() on the 4,000-message input against each Hermes release's own, in its venv (cold, current_tokens "
                    "given, medians of 31 alternating runs)", results["against_hermes"])
        results["compress_breakdown"] = compress_breakdown()
        print_table("where the time of that compress() goes (medians, ms)", results["compress_breakdown"])
    if "compress" in sections:
        results["compress"] = bench_compress(inputs)
        print_table("compress() with the hermes estimator and an instant summarizer", results["compress"])
    if "counting" in sections:
        results["counting"] = bench_counting(inputs)
        print_table("exact token counting (cl100k_base)", results["counting"])
    if "pipeline" in sections:
        results["pipeline"], results["pipeline_growth"] = bench_pipeline(inputs)
        print_table("non-LLM pipeline (Phase 1, zones, assembly, repairs, exact counts)", results["pipeline"])
        print("growth:", results["pipeline_growth"])
    if "memory" in sections:
        results["memory"] = bench_memory_100mb()
        print_table("peak memory, loading and analysing a large transcript", [results["memory"]])
    if "cold_start" in sections:
        try:
            results["cold_start"] = bench_cold_start()
            print_table("dashboard cold start", [results["cold_start"]])
        except Exception as exc:  # the browser may be missing on a bare machine; report, don't fail
            results["cold_start"] = {"error": str(exc)}
            print("cold start: not measured:", exc)
    print("\nmax RSS of this run (MB):", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    save("core", results)
    return results


if __name__ == "__main__":
    chosen = tuple(a for a in sys.argv[1:] if a in SECTIONS) or SECTIONS
    main(chosen)
