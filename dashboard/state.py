"""Widget values that survive page switches, and Markdown escaping (what every page module shares).

Widgets whose values must survive page switches are bound with ``keep(key)``: the value is kept
in a plain session key and handed back to the widget on every run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import streamlit as st

# Widget values live in plain session keys ("kept" values) as well as in the widgets: Streamlit
# forgets a widget's value when its page is not shown, and a widget drawn by another page is
# another widget, so every persistent widget is bound to its kept value on each run.
_KEPT_PREFIX = "_kept_"


def kept(key: str, default: Any = None) -> Any:
    """The kept value of a persistent widget (or ``default`` before it was first set)."""
    return st.session_state.get(_KEPT_PREFIX + key, default)


def set_kept(key: str, value: Any) -> None:
    """Change a persistent widget's value from code (e.g. in a callback)."""
    st.session_state[_KEPT_PREFIX + key] = value
    st.session_state[key] = value


def keep(key: str, default: Any = None, then: Callable[[], None] | None = None) -> dict[str, Any]:
    """Keyword arguments binding a widget to its kept value: ``st.slider(..., **keep("x", 3))``.

    Call it right before creating the widget; ``then`` runs after the value changed.
    """
    state = st.session_state
    store = _KEPT_PREFIX + key
    if store not in state:
        state[store] = default
    state[key] = state[store]

    def remember() -> None:
        state[store] = state[key]
        if then is not None:
            then()

    return {"key": key, "on_change": remember}


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&\"'])")


def escape_markdown(text: str) -> str:
    """Text safe to put inside st.error / st.warning / st.info (which render Markdown)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text)).replace("\n", "  \n")
