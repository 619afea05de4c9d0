"""The dashboard's server process collects cycles less often than Python's default (its
transcripts are acyclic and large): the first script run sets the thresholds."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from dashboard.process import COLLECTOR_THRESHOLDS
from tests.app.conftest import APP, ROOT

PROBE = textwrap.dedent(
    """
    import gc, json
    from streamlit.testing.v1 import AppTest

    before = gc.get_threshold()
    at = AppTest.from_file({app!r}, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    print(json.dumps([before, gc.get_threshold()]))
    """
)


def test_the_first_run_sets_the_collector_thresholds():
    completed = subprocess.run(
        [sys.executable, "-c", PROBE.format(app=str(APP))],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    before, after = json.loads(completed.stdout.strip().splitlines()[-1])
    assert tuple(before) != COLLECTOR_THRESHOLDS  # Python's default, which the dashboard changes
    assert tuple(after) == COLLECTOR_THRESHOLDS
