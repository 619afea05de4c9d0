"""Differential check: the project's compressor against the published Hermes releases.

For each release, a few hundred seeded random cases (``CONTEXT_LENS_FUZZ_EXAMPLES`` raises the
count, as ``make fuzz`` does) run on the real wheel in its own venv and on ``core`` with the
matching profile; every compared field must be equal (README "Equivalence is a hard requirement").
A release that has no profile in ``core`` yet fails here: the profile is missing, and that is not
something to skip past.
"""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest

from tests.differential.cases import RELEASES, generate
from tests.differential.compare import difference, report
from tests.differential.harness import HermesBatch, default_case_count
from tests.differential.our_driver import profile_name, run_ours

QUICK_CASES = 300  # per release under make test (make fuzz: 10,000)
BATCH = 250  # cases per runner process: big enough to amortise start-up, small enough to stream
SHOWN = 5  # mismatches printed in full; the rest are counted


def _seed_base() -> int:
    # A different base walks different cases without touching the code (reported with each mismatch).
    return int(os.environ.get("CONTEXT_LENS_DIFF_SEED", "0"))


@pytest.mark.parametrize("release", RELEASES)
def test_matches_hermes_release(release: str) -> None:
    from core.profiles import PROFILES

    if profile_name(release) not in PROFILES:
        pytest.fail(
            f"core.profiles.PROFILES has no {profile_name(release)!r} profile: Hermes {release} is published "
            f"and must be reproduced (profiles present: {sorted(PROFILES)})",
            pytrace=False,
        )
    count = default_case_count(QUICK_CASES)
    base = _seed_base()
    mismatches: list[str] = []
    compared = 0
    for start in range(base, base + count, BATCH):
        cases = [generate(release, seed) for seed in range(start, min(start + BATCH, base + count))]
        batch = HermesBatch(release, cases)  # runs while our side runs below
        try:
            ours = run_ours(release, cases)
        except BaseException:
            batch.close()
            raise
        theirs = batch.results()
        for case, a, b in zip(cases, ours, theirs, strict=True):
            found = difference(a, b)
            if found:
                mismatches.append(report(release, case, found))
        compared += len(cases)
    assert compared == count
    if mismatches:
        shown = "\n\n".join(mismatches[:SHOWN])
        # Which field differs first, over all mismatches (indices dropped), so a reader sees the kinds at once.
        kinds = Counter(re.sub(r"\d+", "N", m.split(": ", 2)[-1].split(" differs")[0].split(":")[0]) for m in mismatches)
        tally = ", ".join(f"{kind} ({n})" for kind, n in kinds.most_common(6))
        pytest.fail(
            f"{len(mismatches)} of {count} cases differ from Hermes {release}; first differing field: {tally} "
            f"(replay one: python -m tests.differential.replay {release} SEED):\n\n{shown}",
            pytrace=False,
        )
