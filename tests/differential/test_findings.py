"""The cases the differential check once found differing, kept as regressions on every release.

Each file in ``findings/`` is one case (described in ``FINDINGS.md``); both sides must now agree on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.differential.cases import RELEASES
from tests.differential.compare import difference, report
from tests.differential.harness import HermesBatch
from tests.differential.our_driver import run_ours

FINDINGS = sorted((Path(__file__).parent / "findings").glob("*.json"))


@pytest.mark.parametrize("release", RELEASES)
def test_every_former_finding_now_matches(release: str) -> None:
    assert FINDINGS, "the findings cases are committed beside this test"
    cases = [json.loads(path.read_text(encoding="utf-8")) for path in FINDINGS]
    batch = HermesBatch(release, cases)
    ours = run_ours(release, cases)
    problems = [report(release, case, found) for case, a, b in zip(cases, ours, batch.results(), strict=True)
                if (found := difference(a, b))]
    assert not problems, "\n\n".join(problems)
