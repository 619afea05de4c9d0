"""The readable conversation: a paged thread with search and jump, used wherever messages are read.

The overview, the drill-down panel, the compressed preview and the diff all show messages through
:func:`conversation_view` (a page of a conversation) or :func:`message_card` (one message). The
HTML is built by :mod:`core.render.conversation` (transcript text escaped, Markdown without raw
HTML, unsafe links or fetched images); this module holds the controls and their state. Only the
shown page is built, so a 10,000-message log costs one page of HTML per run; the search reads a
lower-cased text per message, kept per conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from core.render.conversation import (
    THREAD_STYLE,
    ThreadMessage,
    anchor,
    message_search_text,
    page_count,
    search_matches,
    thread_html,
    thread_message,
)

PAGE_SIZE = 50
_SEARCH_CACHE = "_thread_search"
_TOOLS_CACHE = "_thread_tools"


def thread_style() -> None:
    """The thread's style (once per run is enough; a second copy changes nothing)."""
    st.html(THREAD_STYLE)


def scroll_to(element_id: str | None = None, *, css: str | None = None, nonce: int = 0) -> None:
    """Scroll the page so the element (by id, or the first match of a CSS selector) is at the top.

    ``nonce`` makes the script differ from the last one drawn, so it runs again on the next jump.
    """
    selector = f"#{element_id}" if element_id else (css or "")
    st.html(
        f"""<script>/* {nonce} */
(function () {{
  const go = (tries) => {{
    const target = document.querySelector({selector!r});
    if (target) {{
      target.style.scrollMarginTop = "4.5rem";  // below the navigation bar, which stays on top
      target.scrollIntoView({{behavior: "smooth", block: "start"}});
      // Thread cards never shown yet count as 7rem high (content-visibility) and take their real
      // height as the scroll passes them, which moves the target: once the scroll has stopped,
      // scroll to it again until it stays where it is.
      let last = null;
      const settle = (left) => {{
        const top = Math.round(target.getBoundingClientRect().top);
        if (top === last || left === 0) return;
        if (last !== null) target.scrollIntoView({{block: "start"}});
        last = top;
        setTimeout(() => settle(left - 1), 250);
      }};
      setTimeout(() => settle(12), 400);
      return;
    }}
    if (tries > 0) setTimeout(() => go(tries - 1), 100);
  }};
  go(40);
}})();
</script>""",
        unsafe_allow_javascript=True,
    )


def _tool_names(prefix: str, source_key: Any, messages: Sequence[Any]) -> list[str]:
    """The tool each message calls or answers, worked out once per conversation (``source_key``)."""
    from core.inspections.overview import message_tool, tool_names_by_call_id

    cache = st.session_state.setdefault(_TOOLS_CACHE, {})
    kept = cache.get(prefix)
    if kept is not None and kept[0] == source_key and len(kept[1]) == len(messages):
        return kept[1]
    names = tool_names_by_call_id(messages)
    tools = [message_tool(message, names) for message in messages]
    cache[prefix] = (source_key, tools)
    return tools


def _search_texts(prefix: str, source_key: Any, messages: Sequence[Any], tools: Sequence[str]) -> list[str]:
    """Each message's search text, built once per conversation (``source_key`` names it)."""
    cache = st.session_state.setdefault(_SEARCH_CACHE, {})
    kept = cache.get(prefix)
    if kept is not None and kept[0] == source_key and len(kept[1]) == len(messages):
        return kept[1]
    texts = [message_search_text(thread_message(m, i, tool=tools[i])) for i, m in enumerate(messages)]
    cache[prefix] = (source_key, texts)
    return texts


def _jump(prefix: str, positions_key: str) -> None:
    """The jump box's callback: show the page holding the message, and scroll to it."""
    state = st.session_state
    wanted = state.get(f"{prefix}_thread_jump")
    if wanted is None:
        return
    positions: list[int] = state.get(positions_key) or []
    if int(wanted) not in positions:  # hidden by the search: clear it, so the message is shown
        state[f"{prefix}_thread_query"] = ""
        # What the caller's own filters let through (None: every message).
        positions = state.get(f"{prefix}_thread_filtered") or list(range(int(wanted) + 1))
    if int(wanted) in positions:  # else the caller's filters hide it: the thread says so
        state[f"{prefix}_thread_page"] = positions.index(int(wanted)) // PAGE_SIZE + 1
    state[f"{prefix}_thread_scroll"] = (int(wanted), state.get(f"{prefix}_thread_scroll", (0, 0))[1] + 1)


def conversation_view(
    prefix: str,
    messages: Sequence[Any],
    *,
    source_key: Any,
    badges: Callable[[int], Sequence[str]] | None = None,
    tokens: Callable[[int], int | None] | None = None,
    label: str = "#",
    numbers: Sequence[int] | None = None,
) -> None:
    """``messages`` as a paged thread, with a search box and a jump-to-number box.

    ``numbers`` restricts the thread to those positions (a caller's filter); ``badges`` and ``tokens``
    give a message's zone/phase badges and size by position; ``source_key`` identifies the
    conversation (the search texts are kept under it).
    """
    state = st.session_state
    total = len(messages)
    if total == 0:
        st.caption("There is no message to show.")
        return
    tools = _tool_names(prefix, source_key, messages)
    query_key, page_key, jump_key = f"{prefix}_thread_query", f"{prefix}_thread_page", f"{prefix}_thread_jump"
    positions_key = f"{prefix}_thread_positions"
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small", key=f"thread-controls-{prefix}"):
        query = st.text_input("Search the thread", key=query_key, placeholder="words, a tool name, a role",
                              width=320)
        state.setdefault(jump_key, None)
        st.number_input("Jump to message #", min_value=0, max_value=total - 1, step=1, key=jump_key,
                        placeholder="number", width=170, on_change=_jump, args=(prefix, positions_key),
                        help="Opens the page that holds this message and scrolls to it.")
    allowed = list(numbers) if numbers is not None else list(range(total))
    state[f"{prefix}_thread_filtered"] = allowed if numbers is not None else None
    target = state.get(f"{prefix}_thread_scroll")
    if target and target[0] is not None and target[0] not in allowed:
        # A jump to a message the caller's filters hide would otherwise do nothing visible.
        name = label.removesuffix("#").strip().capitalize() or "Message"
        st.info(f"{name} #{target[0]:,} is hidden by the filters above: clear them to read it.")
        state[f"{prefix}_thread_scroll"] = (None, target[1])
    if query.strip():
        texts = _search_texts(prefix, source_key, messages, tools)
        found = set(search_matches(texts, query))
        allowed = [n for n in allowed if n in found]
    state[positions_key] = allowed
    pages = page_count(len(allowed), PAGE_SIZE)
    if int(state.get(page_key) or 1) > pages or page_key not in state:
        state[page_key] = min(int(state.get(page_key) or 1), pages)
    if pages > 1:
        page = int(st.number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, step=1, key=page_key,
                                   width=170))
    else:
        page = 1
    shown = allowed[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    matched = f" matching “{query.strip()}”" if query.strip() else ""
    if not shown:
        st.caption(f"No message{matched}." if matched else "No message to show.")
        return
    st.caption(f"Messages {shown[0]:,}–{shown[-1]:,}: {len(shown):,} shown of {len(allowed):,}{matched} "
               f"({total:,} in all). Tool calls, results and system prompts open with a click.")
    items = [
        thread_message(messages[n], n, tool=tools[n], badges=badges(n) if badges else (),
                       tokens=tokens(n) if tokens else None, label=label)
        for n in shown
    ]
    thread_style()
    with st.container(key=f"thread-{prefix}"):
        st.html(thread_html(items, prefix))
    target = state.get(f"{prefix}_thread_scroll")
    if target and target[0] in shown:
        scroll_to(anchor(prefix, target[0]), nonce=target[1])
        state[f"{prefix}_thread_scroll"] = (None, target[1])


def message_card(prefix: str, message: Any, number: int, *, badges: Sequence[str] = (), tokens: int | None = None,
                 label: str = "#", tool: str = "", style: bool = True) -> ThreadMessage:
    """One message as a thread card, its tool calls, results and system prompt unfolded (the
    drill-down's reading view); ``style=False`` when the caller drew :func:`thread_style` once."""
    item = thread_message(message, number, tool=tool, badges=badges, tokens=tokens, label=label)
    if style:
        thread_style()
    st.html(thread_html([item], prefix, opened=True))
    return item
