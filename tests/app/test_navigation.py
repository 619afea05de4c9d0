"""Every view in pages/ is reachable from app.py and opens on the default sample without errors."""

from __future__ import annotations

import pytest

from tests.app.conftest import ROOT, TIMEOUT, go, metrics, number

VIEWS = sorted(path.stem for path in (ROOT / "pages").glob("*.py") if not path.stem.startswith("_"))


def test_the_four_compression_views_exist():
    assert {"overview", "zones", "savings", "compress"} <= set(VIEWS)


@pytest.mark.parametrize("view", VIEWS)
def test_view_opens_from_the_app_with_the_shared_sidebar(app, view):
    go(app, view)
    assert not app.error, [e.value for e in app.error]
    # The shared sidebar (and its state) is on every page.
    assert app.slider(key="protect_first_n").value == 3
    assert app.number_input(key="context_length").value == 128_000


def test_parameters_set_on_one_view_hold_on_every_other(app):
    go(app, "zones")
    app.slider(key="summary_target_ratio").set_value(0.45)
    app.selectbox(key="profile").set_value("v0.15.1")
    app.run()
    for view in VIEWS:
        go(app, view)
        assert app.slider(key="summary_target_ratio").value == 0.45, view
        assert app.selectbox(key="profile").value == "v0.15.1", view
    go(app, "overview")
    assert number(metrics(app)["Messages"]) > 0


def _page_run_alone() -> None:
    import streamlit as st

    from dashboard.sidebar import init_state, page_setup

    init_state()
    st.write(f"window {page_setup().context_length}")


def _page_run_by_the_app() -> None:
    import streamlit as st

    from dashboard.sidebar import init_state, page_setup, shared_sidebar

    init_state()
    with shared_sidebar() as drawn:
        st.write(f"same settings: {page_setup() is drawn}")


def test_a_page_run_alone_draws_the_sidebar_itself():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_run_alone, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.sidebar.slider(key="protect_first_n").value == 3
    assert at.markdown[0].value == "window 128000"


def test_a_page_run_by_the_app_finds_the_sidebar_drawn_once():
    from streamlit.testing.v1 import AppTest

    alone = AppTest.from_function(_page_run_alone, default_timeout=TIMEOUT).run()
    at = AppTest.from_function(_page_run_by_the_app, default_timeout=TIMEOUT).run()
    # Drawn twice, every widget key would repeat: Streamlit refuses that with an exception.
    assert not at.exception, [e.value for e in at.exception]
    assert at.markdown[0].value == "same settings: True"
    assert len(at.sidebar.slider) == len(alone.sidebar.slider) > 0
    assert len(at.sidebar.number_input) == len(alone.sidebar.number_input) > 0


@pytest.mark.parametrize("view", [name for name in VIEWS if name not in ("live", "sessions")])
def test_the_pages_listed_as_chart_pages_are_those_that_draw_plotly_charts(app, view):
    from dashboard.sections import CHART_PAGES

    go(app, view)
    # A chart page has the browser load the chart script at once: listed wrongly, a page without a
    # chart would share the browser with it, or a chart page would wait for it.
    assert bool(app.get("plotly_chart")) == (view in CHART_PAGES), view
