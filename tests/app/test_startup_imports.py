"""Opening the dashboard never imports litellm (about 6 s): only an LLM call may."""

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

    at = AppTest.from_file({app!r}, default_timeout=60)
    at.run()
    seen = {{}}
    for page in ("overview", "zones", "savings", "compress", "redaction_preview"):
        at.switch_page(f"pages/{{page}}.py")
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        if page == "compress":
            at.button(key="run_compressor").click()
            at.run()
            assert at.success, "the offline compression should succeed"
        seen[page] = "litellm" in sys.modules
    print(json.dumps(seen))
    """
)


def test_pages_and_the_offline_run_do_not_import_litellm():
    completed = subprocess.run(
        [sys.executable, "-c", PROBE.format(app=str(APP))],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    seen = json.loads(completed.stdout.strip().splitlines()[-1])
    assert seen == {"overview": False, "zones": False, "savings": False, "compress": False, "redaction_preview": False}
