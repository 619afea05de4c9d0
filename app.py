"""Context Lens dashboard: see, tune and run Hermes-style context compression on a transcript.

Run with ``streamlit run app.py``. This file only sets up the pages (each draws the shared sidebar
with ``pages._shared.page_setup``); each view lives in ``pages/`` and the computation in ``core/analysis``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages._shared import init_state

HERE = Path(__file__).resolve().parent
# A file the server itself serves: a ":material/...:" page icon makes the browser fetch an SVG
# from a font CDN on every page, which an offline dashboard must never do.
PAGE_ICON = HERE / "assets" / "icon.png"

# (file in pages/, title, icon) per navigation section, in reading order.
SECTIONS: dict[str, list[tuple[str, str, str]]] = {
    "Compression": [
        ("overview", "Upload & overview", ":material/upload_file:"),
        ("zones", "Zones", ":material/view_timeline:"),
        ("savings", "Phase savings", ":material/waterfall_chart:"),
        ("compress", "Compress & preview", ":material/compress:"),
        ("redaction_preview", "Redaction preview", ":material/visibility_off:"),
    ],
    "Analyses": [
        ("timeline_replay", "Timeline replay", ":material/timeline:"),
        ("strategies", "Strategies", ":material/compare_arrows:"),
        ("fact_retention", "Fact retention", ":material/fact_check:"),
        ("parameter_sweep", "Parameter sweep", ":material/grid_on:"),
        ("api_validity", "API validity", ":material/rule:"),
        ("release_comparison", "Release comparison", ":material/difference:"),
    ],
}

st.set_page_config(page_title="Context Lens", page_icon=str(PAGE_ICON), layout="wide")
init_state()

navigation = st.navigation(
    {
        section: [
            st.Page(f"pages/{name}.py", title=title, icon=icon, default=(name == "overview"))
            for name, title, icon in pages
            if (HERE / "pages" / f"{name}.py").is_file()
        ]
        for section, pages in SECTIONS.items()
    }
)
navigation.run()
