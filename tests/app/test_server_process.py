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


def _bare_expressions(path) -> list[int]:
    """Lines of ``path`` where a statement is a bare expression Streamlit's magic would have shown
    (not a call, not a docstring)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0]) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body}
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and id(node) not in docstrings
            and not isinstance(node.value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom))]


def test_magic_is_off_and_no_page_relies_on_it():
    """Magic rewrote every script before its first run; it is off, so a bare expression in a page
    would silently show nothing: there is none."""
    from streamlit import config

    assert config.get_option("runner.magicEnabled") is False
    scripts = [APP, *sorted((ROOT / "pages").glob("*.py"))]
    assert len(scripts) > 10
    assert {script.name: _bare_expressions(script) for script in scripts if _bare_expressions(script)} == {}
    # The check finds one where there is one.
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "page.py"
        probe.write_text('"""Doc."""\nimport streamlit as st\nst.title("x")\n"shown by magic"\nvalue = 1\nvalue\n')
        assert _bare_expressions(probe) == [4, 6]
