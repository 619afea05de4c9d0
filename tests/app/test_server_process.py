"""The dashboard's server process is tuned for many sessions holding large transcripts: the
first script run sets the collector's thresholds and the interpreter's switch interval."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from dashboard.process import COLLECTOR_THRESHOLDS, SWITCH_INTERVAL_S
from tests.app.conftest import APP, ROOT

PROBE = textwrap.dedent(
    """
    import gc, json, sys
    from streamlit.testing.v1 import AppTest

    before = [gc.get_threshold(), sys.getswitchinterval()]
    at = AppTest.from_file({app!r}, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    print(json.dumps([before, [gc.get_threshold(), sys.getswitchinterval()]]))
    """
)


def test_the_first_run_tunes_the_server_process():
    completed = subprocess.run(
        [sys.executable, "-c", PROBE.format(app=str(APP))],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    (thresholds_before, switch_before), (thresholds_after, switch_after) = json.loads(
        completed.stdout.strip().splitlines()[-1])
    # Python's defaults, which the dashboard changes.
    assert tuple(thresholds_before) != COLLECTOR_THRESHOLDS
    assert switch_before != SWITCH_INTERVAL_S
    assert tuple(thresholds_after) == COLLECTOR_THRESHOLDS
    assert switch_after == SWITCH_INTERVAL_S
