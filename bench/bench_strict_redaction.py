"""Throughput of strict redaction on ordinary agent text (no secrets) and on awkward shapes, and of the
reference redaction of every release on the ordinary text cut into tool-output-sized pieces.

Run: ``.venv/bin/python bench/bench_strict_redaction.py [--mb 1.0] [--repeat 3]``

The ordinary text mixes what a coding agent's summary prompt carries: real Python source (read from
installed packages, as a ``read_file`` tool would), pytest and git output, JSON tool calls, prose,
lock-file hashes and an inline screenshot. The awkward shapes are one huge base64 blob, one line of
1 MB without a newline, and text dense with secret-sounding words.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.redaction.hermes import REDACTIONS, redact_sensitive_text  # noqa: E402
from core.redaction.strict import find_secrets, strict_redact  # noqa: E402

# The ordinary text is cut into pieces of this many characters for the reference redaction: the
# fact index and the summaries redact a log text by text, and a pass's gate reads one text.
PIECE_CHARS = 2_000


def _python_sources(limit_bytes: int) -> str:
    """Real source code from installed packages (what a read_file tool returns)."""
    import json as json_module

    root = Path(json_module.__file__).resolve().parent.parent
    chunks: list[str] = []
    size = 0
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        chunks.append(text)
        size += len(text)
        if size >= limit_bytes:
            break
    return "\n".join(chunks)[:limit_bytes]


def _agent_turns(rng: random.Random, target: int) -> str:
    hexdigits = "0123456789abcdef"
    words = ("the test fails because the tokenizer returns a different token count for the cached prompt; "
             "I will update the session handling, rerun the suite and check the auth middleware").split()
    parts: list[str] = []
    size = 0
    while size < target:
        choice = rng.randrange(6)
        if choice == 0:
            sha = "".join(rng.choice(hexdigits) for _ in range(40))
            part = f"commit {sha}\nAuthor: Dev <dev@example.com>\n\n    fix token refresh in session cache\n"
        elif choice == 1:
            part = "\n".join(
                f"tests/test_mod_{i}.py::test_case_{rng.randint(1, 99)} {'PASSED' if rng.random() < 0.9 else 'FAILED'}"
                for i in range(20)
            )
        elif choice == 2:
            part = "  terminal(" + json.dumps({"command": f"pytest -q tests/test_mod_{rng.randint(1, 60)}.py -k token"}) + ")"
        elif choice == 3:
            part = " ".join(rng.choice(words) for _ in range(80))
        elif choice == 4:
            part = json.dumps({"name": f"pkg{rng.randint(1, 999)}", "version": "1.2.3",
                               "integrity": "sha512-" + "".join(rng.choice(string.ascii_letters) for _ in range(86)) + "=="})
        else:
            part = f"[TOOL RESULT call_{rng.randint(1, 9999)}]: " + json.dumps(
                {"output": "collected 42 items\n" + "." * 42 + "\n42 passed in 1.3s", "exit_code": 0})
        parts.append(part)
        size += len(part) + 1
    return "\n".join(parts)


def ordinary_text(megabytes: float, seed: int = 7) -> str:
    rng = random.Random(seed)
    total = int(megabytes * 1_000_000)
    image = "data:image/png;base64," + base64.b64encode(bytes(rng.getrandbits(8) for _ in range(30_000))).decode()
    code = _python_sources(total // 2)
    turns = _agent_turns(rng, total - len(code) - len(image))
    return "\n".join([code, turns, image])[:total]


def dense_keywords(megabytes: float) -> str:
    line = "token=abc password: required secret key auth session_id=42 api_key tokenizer passes\n"
    return line * int(megabytes * 1_000_000 / len(line))


def timed(fn: Callable[[Any], object], text: Any, repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (CPU time is steadier on a shared machine)."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn(text)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=1.0, help="size of each input in MB")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    strict_redact("warm up: password=Warm3r!")  # loads the detect-secrets plugins once
    rng = random.Random(1)
    cases = {
        "ordinary agent text": ordinary_text(args.mb),
        "one base64 blob": base64.b64encode(bytes(rng.getrandbits(8) for _ in range(int(args.mb * 750_000)))).decode(),
        "one line, no newline": ordinary_text(args.mb).replace("\n", " "),
        "dense secret-sounding words": dense_keywords(args.mb),
    }
    print(f"{'input':<30} {'MB':>6} {'wall s':>7} {'MB/s':>6} {'cpu s':>6} {'cpu MB/s':>8} {'masked':>6}")
    for name, text in cases.items():
        wall, cpu = timed(strict_redact, text, args.repeat)
        masked = len(find_secrets(text))
        mb = len(text) / 1_000_000
        print(f"{name:<30} {mb:>6.2f} {wall:>7.3f} {mb / wall:>6.2f} {cpu:>6.3f} {mb / cpu:>8.2f} {masked:>6}")

    text = cases["ordinary agent text"]
    pieces = [text[start:start + PIECE_CHARS] for start in range(0, len(text), PIECE_CHARS)]

    def every_release(items: list[str]) -> None:
        for piece in items:
            for release in REDACTIONS:
                redact_sensitive_text(piece, release=release)

    wall, cpu = timed(every_release, pieces, args.repeat)
    mb = len(text) / 1_000_000
    print(f"\nreference redaction, each of {len(REDACTIONS)} releases in turn, {len(pieces):,} pieces of "
          f"{PIECE_CHARS:,} characters: {mb:.2f} MB in {wall:.3f} s wall ({mb / wall:.2f} MB/s), {cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
