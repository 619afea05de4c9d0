"""Replays one differential case: ``python -m tests.differential.replay RELEASE SEED [--case FILE] [--dump DIR]``.

Prints where the project and Hermes first differ (or that they agree). ``--dump DIR`` writes the
case and both results as JSON files there, for a bug report; ``--case FILE`` replays a case file
(for example a hand-reduced one) instead of a generated seed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests.differential.cases import generate
from tests.differential.compare import difference, report
from tests.differential.harness import run_hermes
from tests.differential.our_driver import run_ours


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("release")
    parser.add_argument("seed", type=int, nargs="?", default=0)
    parser.add_argument("--case", type=Path, help="a case JSON file to replay instead of a generated seed")
    parser.add_argument("--dump", type=Path, help="write case.json, ours.json and hermes.json into this directory")
    args = parser.parse_args(argv)
    case = json.loads(args.case.read_text()) if args.case else generate(args.release, args.seed)
    theirs = run_hermes(args.release, [case])[0]
    ours = run_ours(args.release, [case])[0]
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
        for name, value in (("case", case), ("ours", ours), ("hermes", theirs)):
            (args.dump / f"{name}.json").write_text(json.dumps(value, indent=1, ensure_ascii=False))
    found = difference(ours, theirs)
    print(report(args.release, case, found) if found else f"v{args.release} seed {case.get('seed')}: identical")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
