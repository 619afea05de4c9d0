"""The drill-down panel: one message in full, opened from a chart, a table or its number.

Each panel has a prefix (``zones``, ``preview``, ``diff``...) and keeps which message it shows in
two session keys: ``<prefix>_space`` (input or output numbering) and ``<prefix>_number`` (the
number input the panel draws, so a message can also be opened by typing its number). Charts and
tables open a message through :func:`open_message` callbacks; everything the panel shows comes
from :class:`core.views.drilldown.Drilldown`. Transcript text is shown as text only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from core.render.formatting import integer, signed
from core.views.drilldown import INPUT, OUTPUT, Drilldown, MessageDetail
from dashboard.conversation import message_card, scroll_to
from dashboard.sidebar import escape_markdown
from dashboard.ui import metric_row

ZONE_BADGE = {"HEAD": "blue", "MIDDLE": "orange", "TAIL": "green", "SUMMARY": "orange", "STUB": "gray",
              "KEPT": "gray"}
TEXT_HEIGHT = 360


def _space_key(prefix: str) -> str:
    return f"{prefix}_space"


def _number_key(prefix: str) -> str:
    return f"{prefix}_number"


def open_message(prefix: str, space: str, number: int | None) -> None:
    """Show message ``number`` of ``space`` in the panel ``prefix`` (a callback: sets state only)."""
    st.session_state[_space_key(prefix)] = space
    st.session_state[_number_key(prefix)] = number


def opened(prefix: str) -> tuple[str, int | None]:
    """``(space, number)`` the panel shows (number None: nothing opened yet)."""
    state = st.session_state
    number = state.get(_number_key(prefix))
    return str(state.get(_space_key(prefix), INPUT)), (int(number) if number is not None else None)


def selection_of(key: str) -> dict[str, Any]:
    """The selection a chart or a table with ``on_select`` holds (empty when none)."""
    event = st.session_state.get(key)
    if event is None:
        return {}
    try:
        selection = event["selection"]
    except (KeyError, TypeError):
        selection = getattr(event, "selection", None)
    return dict(selection) if selection else {}


def _scroll_key(prefix: str) -> str:
    return f"{prefix}_scroll"


def _ask_scroll(prefix: str) -> None:
    """A click on a chart or a table opened a message: bring the panel into view on this run."""
    st.session_state[_scroll_key(prefix)] = int(st.session_state.get(_scroll_key(prefix)) or 0) + 1


def on_chart_click(prefix: str, chart_key: str, space: str = INPUT) -> Callable[[], None]:
    """A Plotly ``on_select`` callback opening the message under the clicked point: the first number
    of its customdata (a bar of the binned zone map opens its first message), else its x."""

    def opener() -> None:
        for point in selection_of(chart_key).get("points", []):
            if not isinstance(point, dict):
                continue
            custom = point.get("customdata")
            first = custom[0] if isinstance(custom, list | tuple) and custom else None
            x = first if isinstance(first, int | float) and not isinstance(first, bool) else point.get("x")
            if isinstance(x, int | float) and x == x:
                open_message(prefix, space, int(round(x)))
                _ask_scroll(prefix)
                return

    return opener


def on_row_click(prefix: str, table_key: str, space_of_row: Callable[[int], tuple[str, int | None]]) -> Callable[[], None]:
    """A dataframe ``on_select`` callback: ``space_of_row(row position)`` says which message a row is."""

    def opener() -> None:
        rows = list(selection_of(table_key).get("rows", []))
        if rows:
            space, number = space_of_row(int(rows[0]))
            if number is not None:
                open_message(prefix, space, number)
                _ask_scroll(prefix)

    return opener


def _badges(detail: MessageDetail) -> str:
    zone = f":{ZONE_BADGE.get(detail.zone, 'gray')}-badge[{detail.zone}]"
    others = [b for b in detail.badges if b not in (detail.zone, "KEPT")]
    return " ".join([zone, *(f":gray-badge[{escape_markdown(b)}]" for b in others)])


def _show_text(text: str | None, key: str, empty: str = "(no text)") -> None:
    body = text if text else empty
    lines = body.count("\n")
    st.code(body, language=None, wrap_lines=True, height=TEXT_HEIGHT if lines > 14 or len(body) > 1_500 else "content")
    del key  # the code block needs no key; kept in the signature for call-site clarity


def _open_summary(prefix: str, drill: Callable[[], Drilldown]) -> None:
    position = drill().summary_position
    if position is not None:
        open_message(prefix, OUTPUT, position)


def drilldown_panel(prefix: str, drill: Callable[[], Drilldown], *, input_size: int, hint: str,
                    label: str | None = None) -> MessageDetail | None:
    """The panel: a number box, previous/next, "jump to the summary", and the opened message in full.

    ``drill`` builds (or returns) the run's :class:`Drilldown`; it is only called once a message is
    open, so a page whose details need a compression pays for it on the first click.
    """
    state = st.session_state
    space, number = opened(prefix)
    built = drill() if number is not None or space == OUTPUT else None
    size = built.size(space) if built is not None else input_size
    if size == 0:
        st.caption("There is no message to open.")
        return None
    if number is not None:
        number = max(0, min(number, size - 1))
    state[_number_key(prefix)] = number
    with st.container(border=True, key=f"drilldown-{prefix}"):
        with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
            st.number_input(
                label or ("Output message #" if space == OUTPUT else "Message #"),
                min_value=0,
                max_value=size - 1,
                step=1,
                key=_number_key(prefix),
                placeholder="number",
                width=170,
                help="Type a number, or click a message in the chart or the table.",
            )
            previous = None if number is None else (number - 1 if number > 0 else None)
            following = 0 if number is None else (number + 1 if number + 1 < size else None)
            st.button("Previous", key=f"{prefix}_previous", disabled=previous is None, icon=":material/arrow_back:",
                      on_click=open_message, args=(prefix, space, previous))
            st.button("Next", key=f"{prefix}_next", disabled=following is None, icon=":material/arrow_forward:",
                      on_click=open_message, args=(prefix, space, following))
            no_summary = built is not None and built.summary_position is None
            st.button("Jump to the summary", key=f"{prefix}_summary", disabled=no_summary,
                      icon=":material/summarize:", on_click=_open_summary, args=(prefix, drill),
                      help="This run wrote no summary." if no_summary else None)
        if number is None or built is None:
            st.caption(hint)
            return None
        detail = built.detail(space, number)
        _detail_body(prefix, detail)
    _scroll_if_asked(prefix)
    return detail


def _scroll_if_asked(prefix: str) -> None:
    """Scroll the page to the panel once after a chart or table click (the panel may be far below it)."""
    state = st.session_state
    asked = state.get(_scroll_key(prefix))
    if asked and state.get(f"{prefix}_scrolled") != asked:
        state[f"{prefix}_scrolled"] = asked
        scroll_to(css=f".st-key-drilldown-{prefix}", nonce=int(asked))


def _detail_body(prefix: str, detail: MessageDetail) -> None:
    st.markdown(f"**{escape_markdown(detail.title)}** {_badges(detail)}")
    if detail.replaces is not None:
        start, end = detail.replaces
        st.caption(f"Stands for messages {start}–{end - 1} of the conversation ({integer(end - start)} messages).")
    figures: list[Any] = []
    if detail.exact_before is not None:
        figures.append(("Tokens before", integer(detail.exact_before), {"help": "exact (tiktoken)"}))
    if detail.exact_after is not None:
        change = (detail.exact_after - detail.exact_before) if detail.exact_before is not None else 0
        figures.append(("Tokens after", integer(detail.exact_after),
                        {"help": "exact (tiktoken)", "delta": signed(change) if change else None,
                         "delta_color": "inverse"}))
    elif detail.exact_before is not None:
        figures.append(("Tokens after", "—", {"help": "not in the output"}))
    estimate_before = integer(detail.estimated_before) if detail.estimated_before is not None else "—"
    estimate_after = integer(detail.estimated_after) if detail.estimated_after is not None else "—"
    figures.append(("Estimated tokens", f"{estimate_before} → {estimate_after}",
                    {"help": "before → after, the per-message estimate the compressor's tail walk uses"}))
    metric_row(f"drill-{prefix}", figures)
    st.markdown("**What each phase did**")
    st.markdown("\n".join(f"- **{escape_markdown(step.phase)}**: {escape_markdown(step.what)}" for step in detail.phases))
    _pair_links(prefix, detail)
    _jump_links(prefix, detail)
    tabs: list[str] = ["Message", "Text", "Raw JSON"]
    both = detail.text_before is not None and detail.text_after is not None
    differs = both and detail.raw_before != detail.raw_after
    if differs:
        tabs = ["After", "Before", "Diff", "Raw JSON"]
    shown = st.tabs(tabs)
    badges = [detail.zone, *(b for b in detail.badges if b not in (detail.zone, "KEPT"))]
    if differs:
        from core.views.preview import message_diff

        before = _loaded(detail.raw_before)
        after = _loaded(detail.raw_after)
        with shown[0]:
            _card(prefix, after, detail, badges, OUTPUT)
        with shown[1]:
            _card(prefix, before, detail, badges, INPUT)
        with shown[2]:
            st.code(message_diff(before, after) or "(the readable text is the same; the raw JSON differs)",
                    language="diff", wrap_lines=True)
        with shown[3]:
            left, right = st.columns(2)
            left.caption("Before")
            left.code(detail.raw_before or "", language="json", wrap_lines=True, height=TEXT_HEIGHT)
            right.caption("After")
            right.code(detail.raw_after or "", language="json", wrap_lines=True, height=TEXT_HEIGHT)
        return
    text = detail.text_after if detail.space == OUTPUT else detail.text_before
    raw = detail.raw_after if detail.space == OUTPUT else detail.raw_before
    with shown[0]:
        _card(prefix, _loaded(raw), detail, badges, detail.space)
    with shown[1]:
        _show_text(text, f"{prefix}_text")
    with shown[2]:
        st.code(raw or "", language="json", wrap_lines=True, height=TEXT_HEIGHT)


def _card(prefix: str, message: Any, detail: MessageDetail, badges: list[str], space: str) -> None:
    """The message as the thread shows it, numbered in the space it is read in."""
    if space == OUTPUT and detail.output_position is not None:
        number, label, tokens = detail.output_position, "output #", detail.exact_after
    else:
        number, label, tokens = (detail.input_index if detail.input_index is not None else detail.number), "#", \
            detail.exact_before
    tool = next((link.tool for link in detail.pairs if link.relation == "call"), "")
    message_card(f"drill-{prefix}-{space}", message, number, badges=badges, tokens=tokens, label=label, tool=tool)


def _loaded(raw: str | None) -> Any:
    import json

    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return {"content": raw}


def _pair_links(prefix: str, detail: MessageDetail) -> None:
    if not detail.pairs:
        return
    st.markdown("**Its tool pair**")
    for position, link in enumerate(detail.pairs):
        tool = escape_markdown(link.tool)
        if link.number is None:
            what = ("no result answers this call here" if link.relation == "result"
                    else "the call it answers is not here")
            st.caption(f"{tool}: {what} (call id {escape_markdown(link.call_id)}).")
            continue
        other = "the result" if link.relation == "result" else "the call"
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        with row:
            st.caption(f"{tool}: {other} is message #{link.number} ({escape_markdown(link.zone)}).")
            st.button(f"Open #{link.number}", key=f"{prefix}_pair_{position}", on_click=open_message,
                      args=(prefix, detail.space, link.number))


def _jump_links(prefix: str, detail: MessageDetail) -> None:
    """Switch between the input and the output numbering of the same message."""
    targets: Sequence[tuple[str, str, int]] = []
    if detail.space == INPUT and detail.output_position is not None:
        targets = [(f"Open it in the compressed conversation (#{detail.output_position})", OUTPUT,
                    detail.output_position)]
    elif detail.space == OUTPUT and detail.input_index is not None:
        targets = [(f"Open it in the original conversation (#{detail.input_index})", INPUT, detail.input_index)]
    for label, space, number in targets:
        st.button(label, key=f"{prefix}_switch", on_click=open_message, args=(prefix, space, number),
                  type="tertiary")
