"""Context Lens dashboard: see, tune and run Hermes-style context compression on a transcript.

Run with ``streamlit run app.py``. This file only sets up the pages (each draws the shared sidebar
with ``pages._shared.page_setup``); each view lives in ``pages/`` and the computation in ``core/analysis``.
"""

from __future__ import annotations

import streamlit as st

from pages._shared import init_state

st.set_page_config(page_title="Context Lens", page_icon=":material/lens_blur:", layout="wide")

init_state()

navigation = st.navigation(
    [
        st.Page("pages/overview.py", title="Upload & overview", icon=":material/upload_file:", default=True),
        st.Page("pages/zones.py", title="Zones", icon=":material/view_timeline:"),
        st.Page("pages/savings.py", title="Phase savings", icon=":material/waterfall_chart:"),
        st.Page("pages/compress.py", title="Compress & preview", icon=":material/compress:"),
    ]
)
navigation.run()
