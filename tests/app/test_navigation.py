"""Every view in pages/ is reachable from app.py and opens on the default sample without errors."""

from __future__ import annotations

import pytest

from tests.app.conftest import ROOT, go, metrics, number

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
