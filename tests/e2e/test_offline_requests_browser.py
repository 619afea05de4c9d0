"""Every request the dashboard makes in a real browser goes to 127.0.0.1.

The browser records each request of every page of the app (documents, scripts, fonts, the page
icon, websockets); anything addressed elsewhere is refused before it leaves the machine and
fails the test.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import pytest

from tests.e2e.conftest import UI_TIMEOUT_MS, nav_link, page_sections, wait_until_idle

pytestmark = pytest.mark.browser


def page_titles() -> list[str]:
    """The title of every navigation entry, from the dashboard's navigation table (``dashboard.sections``)."""
    return [title for entries in page_sections().values() for _name, title in entries]


def _is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return True
    return parsed.hostname == "127.0.0.1"


def test_every_request_of_every_page_stays_on_127_0_0_1(chromium: Any, server_url: str) -> None:
    context = chromium.new_context(viewport={"width": 1440, "height": 1000})
    context.set_default_timeout(UI_TIMEOUT_MS)
    requested: list[str] = []
    outside: list[str] = []

    def record(route: Any) -> None:
        url = route.request.url
        requested.append(url)
        if _is_local(url):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    context.route("**/*", record)
    sockets: list[str] = []
    try:
        tab = context.new_page()
        tab.on("websocket", lambda socket: sockets.append(socket.url))
        tab.goto(server_url)
        tab.get_by_text("Headline figures").wait_for()
        wait_until_idle(tab)
        for title in page_titles():
            nav_link(tab, title).click()
            tab.get_by_role("heading", name=title).first.wait_for()
            wait_until_idle(tab)
        # The favicon is set after the first script run: give the browser time to ask for it.
        tab.wait_for_timeout(1000)
        icons = tab.evaluate("() => Array.from(document.querySelectorAll(\"link[rel~='icon']\")).map(l => l.href)")
    finally:
        context.close()
    assert requested, "the browser recorded no request at all"
    assert sockets and all(_is_local(url.replace("ws://", "http://", 1)) for url in sockets), sockets
    assert outside == [], f"requests left 127.0.0.1: {sorted(set(outside))}"
    assert icons and all(_is_local(icon) for icon in icons), icons
