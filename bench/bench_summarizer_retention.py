"""Key-fact retention of the offline summary against Hermes v0.16.0's deterministic fallback.

The corpus is :mod:`bench.retention_corpus` (24 sessions of different shapes written for this
benchmark); the bundled samples follow in a second table. Each session is measured two ways, with
the default configuration (context 128,000, profile v0.16.0):

* **compaction**: a forced compression, summarised by the extractive summarizer (its
  ``SummaryRequest`` is captured) and again with no summarizer, which writes the fallback. Both see
  the same turns: pruned by Phase 1 and redacted.
* **full span**: the same span of messages as they were (no Phase 1), redacted, with the budget the
  compressor would give it: what a summary must hold to stand for the original turns.

The score is the share of *key facts* kept verbatim (``core.facts``: paths, commands, error lines,
URLs, numbers with units, issue numbers and the latest request; names of functions and classes are
reported apart) among those that only the summarised turns held: a fact also found in the messages
the compression keeps (head and tail) is not counted, nor is any value a redaction would mask.
Noise lines (passing-test listings, progress bars, directory listings, repeated log lines) are not
facts. The extractive summary is also written within the fallback's own token count, so the two are
compared at equal size.

Run: ``python -m bench.bench_summarizer_retention`` (writes ``bench/results/summarizer_retention.json``).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time
from typing import Any

from bench.common import ROOT, print_table, save
from core import CompressorConfig, ContextCompressor
from core import profiles as P
from core.facts import KEY_FACT_KINDS, fact_rows, searchable_text
from core.phases import fallback, summary
from core.phases.summary import strip_summary_prefix
from core.summarizers.base import SummaryRequest
from core.summarizers.extractive import ExtractiveSummarizer, count_tokens
from core.tokens import estimate_messages_tokens_rough

SAMPLES = ROOT / "sample_conversations"
# Profile v0.16.0: the fallback compared against is that release's deterministic fallback.
CONFIG = CompressorConfig(context_length=128_000, profile="v0.16.0")


class _Capturing(ExtractiveSummarizer):
    """The extractive summarizer, remembering the request the compressor made."""

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def summarize_request(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        return super().summarize_request(request)


def key_facts(turns: list[dict[str, Any]], kept: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(key fact values, name values) of ``turns`` that the ``kept`` messages do not already hold."""
    kept_text = searchable_text([m for m in kept if isinstance(m, dict)])
    key: list[str] = []
    names: list[str] = []
    for kind, value, _index in fact_rows([m for m in turns if isinstance(m, dict)]):
        if value in kept_text:
            continue
        (key if kind in KEY_FACT_KINDS else names).append(value)
    return key, names


def share(values: list[str], body: str) -> float:
    return sum(1 for value in values if value in body) / len(values) if values else 1.0


def _scores(request: SummaryRequest, kept: list[dict[str, Any]], fallback_body: str) -> dict[str, Any]:
    key, names = key_facts(request.turns, kept)
    started = time.perf_counter()
    extractive = ExtractiveSummarizer().summarize_request(request)
    seconds = time.perf_counter() - started
    fallback_tokens = count_tokens(fallback_body)
    try:
        same_size = ExtractiveSummarizer().summarize_request(
            dataclasses.replace(request, summary_budget=fallback_tokens, max_tokens=fallback_tokens)
        )
    except ValueError:  # a fallback smaller than the 13 headings
        same_size = ""
    return {
        "turns": len(request.turns),
        "budget": request.summary_budget,
        "key facts": len(key),
        "ext": share(key, extractive),
        "ext tok": count_tokens(extractive),
        "same size": share(key, same_size),
        "fallback": share(key, fallback_body),
        "fb tok": fallback_tokens,
        "ext names": share(names, extractive),
        "within budget": count_tokens(extractive) <= min(request.max_tokens, request.summary_budget or request.max_tokens),
        "seconds": round(seconds, 3),
    }


def measure(name: str, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Both modes for one conversation (None when a forced compression summarises nothing)."""
    capturing = _Capturing()
    result = ContextCompressor(CONFIG, summarizer=capturing).compress(messages, force=True)
    if not capturing.requests or result.outcome != "summarized":
        print(f"{name}: nothing to summarise (outcome {result.outcome})", file=sys.stderr)
        return None
    request = capturing.requests[-1]
    kept = messages[: result.compress_start] + messages[result.compress_end :]
    no_summarizer = ContextCompressor(CONFIG, summarizer=None)
    fell_back = no_summarizer.compress(messages, force=True)
    profile = no_summarizer.profile
    compaction = _scores(request, kept, strip_summary_prefix(fell_back.summary_text or "", profile))

    span = messages[result.turns_start : result.compress_end]
    budget = summary.summary_budget(estimate_messages_tokens_rough(span), no_summarizer.max_summary_tokens)
    span_request = SummaryRequest(
        prompt="",
        max_tokens=summary.max_tokens_for_budget(budget),
        turns=summary.redacted_turns(span, no_summarizer.redact),
        serialized_turns="",
        previous_summary=request.previous_summary,
        summary_budget=budget,
    )
    span_fallback = fallback.deterministic_fallback_summary(
        span, P.NO_PROVIDER_ERROR, request.previous_summary, profile, no_summarizer.redact
    )
    full_span = _scores(span_request, kept, strip_summary_prefix(span_fallback, profile))
    return {"session": name, "messages": len(messages), "compaction": compaction, "full span": full_span}


def _samples() -> list[tuple[str, list[dict[str, Any]]]]:
    from core.formats import load

    found = []
    for path in sorted(SAMPLES.iterdir()) if SAMPLES.is_dir() else []:
        if path.suffix not in (".json", ".jsonl", ".db", ".traj") or not path.is_file():
            continue
        try:
            messages = load(str(path)).messages
        except Exception as exc:  # one unreadable sample must not stop the benchmark
            print(f"skipping {path.name}: {exc}", file=sys.stderr)
            continue
        found.append((path.name, [dict(m) for m in messages if isinstance(m, dict)]))
    return found


def _table(rows: list[dict[str, Any]], mode: str) -> list[dict[str, Any]]:
    return [
        {
            "session": row["session"][:30],
            "turns": row[mode]["turns"],
            "budget": row[mode]["budget"],
            "key facts": row[mode]["key facts"],
            "offline": f"{row[mode]['ext']:.0%}",
            "tokens": row[mode]["ext tok"],
            "at fb size": f"{row[mode]['same size']:.0%}",
            "fallback": f"{row[mode]['fallback']:.0%}",
            "fb tokens": row[mode]["fb tok"],
            "names": f"{row[mode]['ext names']:.0%}",
        }
        for row in rows
    ]


def aggregate(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    def values(key: str) -> list[float]:
        return [row[mode][key] for row in rows]

    return {
        "sessions": len(rows),
        "offline median": statistics.median(values("ext")),
        "offline worst": min(values("ext")),
        "at fallback size median": statistics.median(values("same size")),
        "at fallback size worst": min(values("same size")),
        "fallback median": statistics.median(values("fallback")),
        "fallback worst": min(values("fallback")),
        "all within budget": all(values("within budget")),
    }


def main() -> int:
    from bench.retention_corpus import sessions

    corpus = [row for name, _harness, messages in sessions() if (row := measure(name, messages))]
    samples = [row for name, messages in _samples() if (row := measure(name, messages))]
    report: dict[str, Any] = {"corpus": corpus, "samples": samples, "summary": {}}
    for mode in ("compaction", "full span"):
        print_table(f"Corpus, {mode}: key facts kept verbatim", _table(corpus, mode))
        report["summary"][f"corpus {mode}"] = aggregate(corpus, mode)
    for mode in ("compaction", "full span"):
        print_table(f"Bundled samples, {mode}", _table(samples, mode))
        report["summary"][f"samples {mode}"] = aggregate(samples, mode)
    print_table("Medians and worst", [{"set": key, **{k: (f"{v:.1%}" if isinstance(v, float) else v) for k, v in value.items()}}
                                      for key, value in report["summary"].items()])
    print("\noffline = the extractive summary at the request's budget; at fb size = the same within the fallback's own "
          "token count;\nnames = function and class names kept (not key facts); key facts only the summarised turns held.")
    path = save("summarizer_retention", report)
    print(f"\nwrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
