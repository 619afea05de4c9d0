"""Start the dashboard: ``python -m dashboard.serve [streamlit options]`` is ``streamlit run app.py``
with the first page's modules loaded while the browser loads Streamlit's page.

A first visit waits twice: for the browser to load and start Streamlit's page (most of a second,
in which the server only sends files), then for the first script run, which spent two thirds of
its time importing pandas and the analysis modules and reading the model table. Here a thread
does that in the first wait, once the server is listening (so it never delays the server's own
start), and the first run finds it done. Nothing else changes: a run that starts before the
thread is done waits for it (two threads importing the same modules at once could fail). ``make
run`` starts the dashboard this way.
"""

from __future__ import annotations

import importlib
import logging
import socket
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from dashboard.process import loading_ahead, send_responses_at_once, tune_server_process

APP = Path(__file__).resolve().parents[1] / "app.py"

# What the first page imports beyond Streamlit (tests/app/test_serve.py checks the list is whole).
FIRST_PAGE_MODULES = (
    "pandas",
    "pandas.core.methods.to_dict",
    "pyarrow.pandas_compat",
    "pyarrow.vendored.version",
    "dashboard.sections",
    "dashboard.sidebar",
    "dashboard.conversation",
    "dashboard.share",
    "dashboard.ui",
    "core.formats",
    "core.inspections.overview",
    "core.inspections.release_detect",
    "core.inspections.request",
    "core.inspections.usage",
    "core.render.html_charts",
    "core.render.html_tables",
    "core.render.palette",
    "core.models",
    "PIL.Image",
    "markdown_it",
)
_SERVER_WAIT_S = 60.0
_POLL_S = 0.02


def server_listening() -> bool:
    """Whether Streamlit's runtime has started (its server accepts connections)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.runtime import RuntimeState

    return Runtime.exists() and Runtime.instance().state in (RuntimeState.NO_SESSIONS_CONNECTED,
                                                             RuntimeState.ONE_OR_MORE_SESSIONS_CONNECTED)


def load_first_page_modules(modules: Sequence[str] = FIRST_PAGE_MODULES) -> list[str]:
    """Import ``modules`` and read what the first page reads once per process; returns the
    modules that failed to import (the page imports them again and shows the error)."""
    failed = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:
            failed.append(name)
    try:
        from PIL import Image

        Image.preinit()  # the image formats the page icon is opened with
        from core.models import load_model_table

        load_model_table()  # the sidebar lists its models
    except Exception:  # the page reads them again and reports what is wrong
        pass
    return failed


def _decide_use_warning() -> None:
    # Streamlit decides once per process, on the first element a script draws, whether to warn
    # that it runs outside ``streamlit run``; deciding walks the whole stack with a source lookup
    # for each frame (``inspect.stack``), slower the more modules are loaded (0.05-0.1 s on the
    # first page). Here the stack is short and the answer the same (the runtime exists: no
    # warning). Without that function (another Streamlit) the first run decides as before.
    from streamlit import delta_generator

    decide = getattr(delta_generator, "_maybe_print_use_warning", None)
    if callable(decide):
        decide()


def _prepare() -> None:
    deadline = time.monotonic() + _SERVER_WAIT_S
    while not server_listening():
        if time.monotonic() > deadline:
            return
        time.sleep(_POLL_S)
    # From here a script run waits for this thread (app.py); not before: if the server never seemed
    # to listen, no run would wait on a thread that is only polling. A run that started already
    # imports the modules itself.
    with loading_ahead() as wanted:
        if not wanted:
            return
        _decide_use_warning()
        failed = load_first_page_modules()
    if failed:
        logging.getLogger(__name__).warning("could not load %s ahead of the first page", ", ".join(failed))


def compile_bytecode() -> None:
    """Write the project's bytecode where it is missing or stale (7 ms when it is current), so no
    start compiles the modules again: where ``PYTHONDONTWRITEBYTECODE`` is set, importing them
    otherwise compiled them on every start (0.19 s instead of 0.065 s). A tree that cannot be
    written is left as it is."""
    import compileall

    root = APP.parent
    compileall.compile_file(str(APP), quiet=2)
    for package in ("core", "dashboard"):
        compileall.compile_dir(str(root / package), quiet=2)


# What Streamlit logs before it exits when the port it was given is taken: a port probed free can be
# taken before the server binds it (an outgoing connection gets a port from the same range), so
# those who start servers on probed ports start again on another when they read this.
PORT_TAKEN = "is not available"


def free_port() -> int:
    """A port of 127.0.0.1 that is free now (the system's pick; see ``PORT_TAKEN``)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def local_options(port: int) -> list[str]:
    """``streamlit run`` options for a server only this machine reaches: 127.0.0.1:``port``, no
    browser opened, no usage statistics sent (the browser tests and the benches start it so)."""
    return ["--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
            "--browser.gatherUsageStats", "false"]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the dashboard with Streamlit's own command line; ``argv`` are ``streamlit run`` options."""
    options = list(sys.argv[1:] if argv is None else argv)
    compile_bytecode()
    tune_server_process()  # from the start: the page's files are sent while the modules load
    # Streamlit is imported here, before the thread starts: imported by two threads at once (the
    # thread's first look at the runtime, the command line here) its package can deadlock on a
    # module lock or build its singletons twice, and the server exits.
    import streamlit.runtime.runtime  # noqa: F401
    from streamlit.web import cli

    send_responses_at_once()
    threading.Thread(target=_prepare, name="prepare-first-page", daemon=True).start()

    sys.argv = ["streamlit", "run", str(APP), *options]
    cli.main()


if __name__ == "__main__":
    main()
