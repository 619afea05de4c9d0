"""The dashboard's navigation: its sections and pages, in reading order.

Plain data (no Streamlit): ``app.py`` builds the navigation from it, and the browser tests and
benchmarks find each page's menu in it.
"""

from __future__ import annotations

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
    "Live": [
        ("live", "Live", ":material/sensors:"),
        ("sessions", "Sessions", ":material/folder_open:"),
    ],
}

# Pages that read their own input (the session files in the user's folders), not the conversation
# the other pages analyse: an upload that could not be read is not theirs to repeat.
OWN_INPUT_PAGES = frozenset({"live", "sessions"})


# Pages that draw Plotly charts (``dashboard.ui.chart``) as they open (Live: once it follows a
# session): they need Streamlit's chart script, so the browser loads it as soon as it is idle rather
# than once the dashboard is quiet (``dashboard.ui.page_style``). Compress & preview draws its charts
# only after a run the user starts: the script is loaded while they choose.
CHART_PAGES = frozenset({"zones", "savings", "timeline_replay", "fact_retention", "parameter_sweep", "live"})


def page_named(title: str) -> str | None:
    """The file name (in pages/) of the page titled ``title``; None when no page has that title."""
    return next((name for pages in SECTIONS.values() for name, t, _icon in pages if t == title), None)


def section_of(title: str) -> str:
    """The navigation section holding the page titled ``title``."""
    return next(section for section, pages in SECTIONS.items() if any(t == title for _name, t, _icon in pages))
