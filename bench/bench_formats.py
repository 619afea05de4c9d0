"""Transcript import speed: the long sample (load + exact token count), every sample, and a big JSONL.

    python -m bench.bench_formats
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench.common import ROOT, best_of, print_table, save

# tiktoken fetches its encoding files at run time; the copies shipped inside litellm work offline.
if not os.environ.get("TIKTOKEN_CACHE_DIR"):
    _litellm = importlib.util.find_spec("litellm").submodule_search_locations[0]
    os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(_litellm) / "litellm_core_utils" / "tokenizers")

import tiktoken  # noqa: E402  (after the cache directory is set)

from core.formats import dump, load  # noqa: E402

SAMPLES = ROOT / "sample_conversations"


def _texts(messages: list[dict]) -> list[str]:
    texts = [m["content"] for m in messages if isinstance(m.get("content"), str)]
    texts += [p["text"] for m in messages if isinstance(m.get("content"), list) for p in m["content"] if p.get("type") == "text"]
    texts += [c["function"]["arguments"] for m in messages for c in m.get("tool_calls") or []]
    return texts


def bench_long_sample() -> dict:
    path = SAMPLES / "long_coding_session.json"
    encoding = tiktoken.get_encoding("cl100k_base")
    conv = load(path)
    load_best, load_median = best_of(lambda: load(path), repeat=5)
    texts = _texts(conv.messages)
    count_best, count_median = best_of(lambda: sum(len(t) for t in encoding.encode_batch(texts)), repeat=3)
    tokens = sum(len(t) for t in encoding.encode_batch(texts))
    dump_best, _ = best_of(lambda: dump(conv), repeat=3)
    row = {
        "file": path.name,
        "size_kb": path.stat().st_size / 1024,
        "messages": len(conv.messages),
        "cl100k_tokens": tokens,
        "load_s": load_best,
        "load_median_s": load_median,
        "count_tokens_s": count_best,
        "count_median_s": count_median,
        "dump_s": dump_best,
    }
    print_table("long sample: load and exact token count (best of runs)", [row])
    return row


def bench_every_sample() -> list[dict]:
    rows = []
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix in (".py", ".md") or path.is_dir():
            continue
        best, _median = best_of(lambda p=path: load(p), repeat=3)
        conv = load(path)
        rows.append({"file": path.name, "format": conv.format, "messages": len(conv.messages), "load_ms": best * 1000})
    print_table("every sample: load time", rows)
    return rows


def bench_big_jsonl(megabytes: int = 40) -> dict:
    """A Claude Code style log of about ``megabytes`` MB, read line by line from disk."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        parent = None
        lines = 0
        with path.open("w", encoding="utf-8") as handle:
            while handle.tell() < megabytes * 1024 * 1024:
                uuid = f"u{lines}"
                if lines % 2 == 0:
                    record = {"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
                              "message": {"id": f"m{lines}", "role": "assistant", "content": [
                                  {"type": "tool_use", "id": f"t{lines}", "name": "Read", "input": {"file_path": f"/r/{lines}.py"}}],
                                  "usage": {"input_tokens": 10, "output_tokens": 20}}}
                else:
                    record = {"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
                              "message": {"role": "user", "content": [
                                  {"type": "tool_result", "tool_use_id": f"t{lines - 1}", "content": "x = 1\n" * 300}]}}
                handle.write(json.dumps(record) + "\n")
                parent = uuid
                lines += 1
        size = path.stat().st_size
        start = time.perf_counter()
        conv = load(path)
        seconds = time.perf_counter() - start
        del conv
        # Memory separately: tracemalloc slows allocation several times over.
        tracemalloc.start()
        conv = load(path)
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    row = {"lines": lines, "size_mb": size / 2**20, "messages": len(conv.messages), "load_s": seconds,
           "mb_per_s": size / 2**20 / seconds, "peak_mb": peak / 2**20, "peak / file size": peak / size}
    print_table("big Claude Code JSONL read from disk", [row])
    return row


def _claude_tree_rows(rows_wanted: int, every: int) -> list[dict]:
    """A Claude Code 2.x log: prompts, responses of three parallel calls (one row per block, each
    result under its own call), hook attachments, and an abandoned prompt every ``every`` turns."""
    rows: list[dict] = []
    last = None
    turn = 0
    while len(rows) < rows_wanted:
        turn += 1
        stamp = f"2026-04-01T{10 + turn // 3600 % 10:02d}:{turn // 60 % 60:02d}:{turn % 60:02d}.000Z"
        prompt = f"p{turn}"
        rows.append({"type": "user", "uuid": prompt, "parentUuid": last, "sessionId": "s", "timestamp": stamp,
                     "message": {"role": "user", "content": "do the next step " * 10}})
        last = prompt
        for step in range(5):
            calls = []
            for k in range(3):
                uuid = f"a{turn}.{step}.{k}"
                rows.append({"type": "assistant", "uuid": uuid, "parentUuid": last, "sessionId": "s", "timestamp": stamp,
                             "message": {"id": f"m{turn}.{step}", "role": "assistant", "usage": {"input_tokens": 5},
                                         "content": [{"type": "tool_use", "id": f"t{uuid}", "name": "Bash", "input": {"command": "ls"}}]}})
                calls.append(uuid)
                last = uuid
            for uuid in reversed(calls):
                rows.append({"type": "user", "uuid": f"r{uuid}", "parentUuid": uuid, "sessionId": "s", "timestamp": stamp,
                             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{uuid}",
                                                                      "content": "out " * 100}]}})
            rows.append({"type": "attachment", "uuid": f"h{turn}.{step}", "parentUuid": f"r{calls[0]}", "sessionId": "s",
                         "timestamp": stamp, "attachment": {"type": "hook_success"}})
            last = f"h{turn}.{step}"
        if turn % every == 0:
            rows.append({"type": "user", "uuid": f"x{turn}", "parentUuid": last, "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
                         "message": {"role": "user", "content": "an edited prompt"}})
    return rows


def bench_claude_code_tree(rows: int = 30_000, every: int = 40) -> dict:
    """The Claude Code tree walk: sibling results brought back, every abandoned branch listed and counted."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tree.jsonl"
        records = _claude_tree_rows(rows, every)
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        size = path.stat().st_size
        best, median = best_of(lambda: load(path), repeat=3)
        conv = load(path)
    row = {"rows": len(records), "size_mb": size / 2**20, "messages": len(conv.messages),
           "branches": conv.report.branches, "load_s": best, "load_median_s": median}
    print_table("Claude Code 2.x log with parallel results and abandoned branches", [row])
    return row


def main() -> None:
    results = {"long_sample": bench_long_sample(), "samples": bench_every_sample(), "big_jsonl": bench_big_jsonl(),
               "claude_code_tree": bench_claude_code_tree()}
    print(f"\nsaved {save('formats', results)}")


if __name__ == "__main__":
    main()
