"""Context Lens dashboard: see, tune and run Hermes-style context compression on a transcript.

Run with ``streamlit run app.py``. This file only sets up the pages and draws the sidebar they share
(``dashboard.sidebar.shared_sidebar``); each view lives in ``pages/``, the dashboard's own state and
parts in ``dashboard/`` and the computation in ``core``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard.process import tune_server_process, wait_for_preload

# Under `make run` the server may still be loading the modules below (dashboard.serve): this run
# waits for it rather than import them from a second thread at the same time.
wait_for_preload()

from dashboard import ahead  # noqa: E402
from dashboard.sections import CHART_PAGES, SECTIONS, page_named  # noqa: E402
from dashboard.sidebar import init_state, shared_sidebar  # noqa: E402

HERE = Path(__file__).resolve().parent
# A file the server itself serves: a ":material/...:" page icon makes the browser fetch an SVG
# from a font CDN on every page, which an offline dashboard must never do.
PAGE_ICON = HERE / "assets" / "icon.png"

tune_server_process()
st.set_page_config(page_title="Context Lens", page_icon=str(PAGE_ICON), layout="wide")
init_state()

# Navigation across the top: the sidebar holds only the parameters, so its sliders are above the
# fold on a 900-pixel-high screen.
navigation = st.navigation(
    {
        section: [
            st.Page(f"pages/{name}.py", title=title, icon=icon, default=(name == "overview"))
            for name, title, icon in pages
            if (HERE / "pages" / f"{name}.py").is_file()
        ]
        for section, pages in SECTIONS.items()
    },
    position="top",
)
# The work ahead waits meanwhile; the sidebar is drawn once, for whichever page runs.
with ahead.page_running(), shared_sidebar(charts_page=page_named(navigation.title) in CHART_PAGES):
    navigation.run()
# The page is drawn: an upload it read gets the analyses most pages share made ahead (dashboard.ahead).
ahead.start()
