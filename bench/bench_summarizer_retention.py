"""Key-fact retention of the offline summary against Hermes v0.16.0's deterministic fallback.

The corpus is :mod:`bench.retention_corpus` in two splits fixed before the summarizer was last
changed: **tuning** (24 synthetic sessions and 10 sessions of real logs, what the summarizer was
developed against) and **held-out** (14 sessions of other real logs and 5 look-alikes, only ever
measured); the bundled samples follow. ``--extra FILE...`` measures any other transcripts too (logs
that may not be copied into the project), as a third set. Each session is measured two ways, with
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

A second score does not use ``core.facts`` (by which the summarizer ranks its own lines): the values
:mod:`bench.retention_corpus.found_values` reads out of the turns the summarizer was given (errors,
commands, paths, URLs, names, numbers: what the turns found), kept verbatim. Its targets, median
>= 85 % and worst >= 50 %, hold for the sessions whose values fit the budget (listed all together,
they take no more tokens than the summary may); ``use`` is the summary's size against its budget.

Run: ``python -m bench.bench_summarizer_retention`` (writes ``bench/results/summarizer_retention.json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import ROOT, print_table, save
from bench.retention_corpus.found_values import found_values
from core import CompressorConfig, ContextCompressor
from core import profiles as P
from core.facts import KEY_FACT_KINDS, fact_rows, searchable_text
from core.phases import fallback, summary
from core.phases.summary import strip_summary_prefix
from core.summarizers.base import SummaryRequest
from core.summarizers.extractive import SECTION_HEADINGS, ExtractiveSummarizer, count_tokens
from core.summarizers.extractive.fit import skeleton_tokens
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


def found_score(turns: list[dict[str, Any]], body: str, limit: int) -> dict[str, Any]:
    """The share of the turns' found values (:mod:`bench.retention_corpus.found_values`) ``body``
    keeps, whether they all fit in ``limit`` tokens, and what was lost by kind."""
    values = found_values(turns)
    lost: dict[str, int] = {}
    for kind, value in values:
        if value not in body:
            lost[kind] = lost.get(kind, 0) + 1
    listed = count_tokens(", ".join(value for _kind, value in values)) if values else 0
    return {
        "found": len(values),
        "found kept": 1 - sum(lost.values()) / len(values) if values else 1.0,
        "fits": listed + skeleton_tokens(SECTION_HEADINGS) <= limit,
        "found lost": lost,
    }


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
    limit = min(request.max_tokens, request.summary_budget or request.max_tokens)
    tokens = count_tokens(extractive)
    return {
        "turns": len(request.turns),
        "budget": limit,
        "key facts": len(key),
        "ext": share(key, extractive),
        "ext tok": tokens,
        "use": tokens / limit,
        "same size": share(key, same_size),
        "fallback": share(key, fallback_body),
        "fb tok": fallback_tokens,
        "ext names": share(names, extractive),
        **found_score(request.turns, extractive, limit),
        "within budget": tokens <= limit,
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
    kept = messages[: result.plan.compress_start] + messages[result.plan.compress_end :]
    no_summarizer = ContextCompressor(CONFIG, summarizer=None)
    fell_back = no_summarizer.compress(messages, force=True)
    profile = no_summarizer.profile
    compaction = _scores(request, kept, strip_summary_prefix(fell_back.assembly.summary_text or "", profile))

    span = messages[result.plan.turns_start : result.plan.compress_end]
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


def _loaded(paths: list[Path]) -> list[tuple[str, list[dict[str, Any]]]]:
    from core.formats import load

    found = []
    for path in paths:
        try:
            messages = load(str(path)).messages
        except Exception as exc:  # one unreadable file must not stop the benchmark
            print(f"skipping {path.name}: {exc}", file=sys.stderr)
            continue
        found.append((path.name, [dict(m) for m in messages if isinstance(m, dict)]))
    return found


def _samples() -> list[tuple[str, list[dict[str, Any]]]]:
    paths = sorted(SAMPLES.iterdir()) if SAMPLES.is_dir() else []
    return _loaded([p for p in paths if p.suffix in (".json", ".jsonl", ".db", ".traj") and p.is_file()])


def _table(rows: list[dict[str, Any]], mode: str) -> list[dict[str, Any]]:
    return [
        {
            "session": row["session"][:42],
            "turns": row[mode]["turns"],
            "budget": row[mode]["budget"],
            "tokens": row[mode]["ext tok"],
            "key facts": row[mode]["key facts"],
            "offline": f"{row[mode]['ext']:.0%}",
            "found": row[mode]["found"],
            "found kept": f"{row[mode]['found kept']:.0%}",
            "fits": "yes" if row[mode]["fits"] else "no",
            "at fb size": f"{row[mode]['same size']:.0%}",
            "fallback": f"{row[mode]['fallback']:.0%}",
            "names": f"{row[mode]['ext names']:.0%}",
        }
        for row in rows
    ]


def aggregate(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    def values(key: str, only_fitting: bool = False) -> list[float]:
        return [row[mode][key] for row in rows if row[mode]["fits"] or not only_fitting]

    fitting = values("found kept", only_fitting=True)
    # A summary well under its budget while values were lost had room it did not use.
    underused = [row["session"] for row in rows if row[mode]["found kept"] < 1 and row[mode]["use"] < 0.8]
    return {
        "sessions": len(rows),
        "offline median": statistics.median(values("ext")),
        "offline worst": min(values("ext")),
        "found median": statistics.median(values("found kept")),
        "found worst": min(values("found kept")),
        "fitting sessions": len(fitting),
        "found median (fitting)": statistics.median(fitting) if fitting else 1.0,
        "found worst (fitting)": min(fitting) if fitting else 1.0,
        "budget use median": statistics.median(values("use")),
        "under 80 % of budget while losing values": len(underused),
        "at fallback size median": statistics.median(values("same size")),
        "at fallback size worst": min(values("same size")),
        "fallback median": statistics.median(values("fallback")),
        "fallback worst": min(values("fallback")),
        "all within budget": all(values("within budget")),
    }


# The targets of the found-values score, for the sessions whose values fit the budget.
TARGET_MEDIAN = 0.85
TARGET_WORST = 0.50


def _targets(name: str, summary: dict[str, Any]) -> dict[str, Any]:
    median, worst = summary["found median (fitting)"], summary["found worst (fitting)"]
    return {
        "set": name,
        "sessions": summary["sessions"],
        "fitting": summary["fitting sessions"],
        "found median": f"{median:.1%}",
        "target": f">= {TARGET_MEDIAN:.0%}",
        "worst": f"{worst:.1%}",
        "target ": f">= {TARGET_WORST:.0%}",
        "met": "yes" if median >= TARGET_MEDIAN and worst >= TARGET_WORST else "NO",
        "all found": f"{summary['found median']:.1%} / {summary['found worst']:.1%}",
        "key facts": f"{summary['offline median']:.1%} / {summary['offline worst']:.1%}",
        "use": f"{summary['budget use median']:.0%}",
        "underused": summary["under 80 % of budget while losing values"],
    }


def main(argv: list[str] | None = None) -> int:
    from bench.retention_corpus import SPLITS, split_sessions

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--extra", nargs="*", default=[], help="more transcripts to measure (not kept anywhere)")
    parser.add_argument("--no-samples", action="store_true", help="skip the bundled samples")
    args = parser.parse_args(argv)
    sets: dict[str, list[dict[str, Any]]] = {}
    for split in SPLITS:
        sets[split] = [row for name, _harness, messages in split_sessions(split) if (row := measure(name, messages))]
    if not args.no_samples:
        sets["samples"] = [row for name, messages in _samples() if (row := measure(name, messages))]
    if args.extra:
        sets["extra"] = [row for name, messages in _loaded([Path(p) for p in args.extra]) if (row := measure(name, messages))]
    report: dict[str, Any] = {"sets": sets, "summary": {}}
    for name, rows in sets.items():
        for mode in ("compaction", "full span"):
            print_table(f"{name}, {mode}: kept verbatim", _table(rows, mode))
            report["summary"][f"{name} {mode}"] = aggregate(rows, mode)
    print_table("Found values kept, sessions whose values fit the budget, against the targets",
                [_targets(key, value) for key, value in report["summary"].items()])
    print("\nfound = values the turns given to the summarizer found (errors, commands, paths, URLs, names, numbers),"
          " read\nwithout core.facts; key facts = core.facts key facts only the summarised turns held (median / worst);"
          "\nuse = the summary's tokens against its budget (median); underused = sessions losing values under 80 % of it;"
          "\noffline = the extractive summary at the request's budget; at fb size = the same within the fallback's own "
          "token count;\nnames = function and class names kept (not key facts).")
    path = save("summarizer_retention", report)
    print(f"\nwrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
