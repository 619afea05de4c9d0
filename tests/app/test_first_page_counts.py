"""The first page on the bundled default sample answers its exact counts from the table made for
it (``sample_conversations/first_page_counts.py``): it reads no encoding, shows what counting
would show, and the table is current for the sample as bundled."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.app.conftest import APP, ROOT

PROBE = textwrap.dedent(
    """
    import json, sys
    from streamlit.testing.v1 import AppTest
    import dashboard.loading
    from core.tokens import encodings_loaded

    if sys.argv[1] == "without":
        dashboard.loading.learn_sample_counts = lambda *args, **kwargs: []
    at = AppTest.from_file({app!r}, default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [[m.label, m.value] for m in at.metric] + [t.value.to_json() for t in at.table] + [
        d.value.to_json() for d in at.dataframe]
    print(json.dumps({{"loaded": encodings_loaded(), "shown": shown}}))
    """
)


def _first_page(mode: str) -> dict:
    completed = subprocess.run([sys.executable, "-c", PROBE.format(app=str(APP)), mode],
                               cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_the_first_page_reads_no_encoding_and_shows_the_counted_figures():
    with_table, counted = _first_page("with"), _first_page("without")
    assert with_table["loaded"] == []
    assert counted["loaded"] == ["o200k_base"]
    assert any("token" in str(item).lower() for item in counted["shown"])  # the figures are counts
    assert with_table["shown"] == counted["shown"]


def test_the_table_is_current_for_the_bundled_sample():
    completed = subprocess.run([sys.executable, "sample_conversations/first_page_counts.py", "--check"],
                               cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr[-2000:]
