"""A long plain text (a summary) as an HTML block: every character as written, drawn with the page.

Streamlit's code block runs a syntax highlighter of about 1.5 MB of JavaScript the first time a page
shows one, even for text in no language: on a 2.6 MB log that was 0.3 s of the browser's main thread
before Timeline replay or Strategies could draw (``make bench``, a Chromium trace). A summary is
plain text, so it is shown as a ``<pre>`` instead: the same monospace block, lines wrapped, long
ones scrolling within it. The text is escaped (never markup); the block carries ``data-text="<name>"``.
"""

from __future__ import annotations

import html

from core.unicode_text import replace_lone_surrogates

__all__ = ["text_block_html"]

# Translucent greys read in the light and the dark theme alike, as the thread's blocks do.
_STYLE = ("white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; padding: 0.75rem 1rem; "
          "border-radius: 0.5rem; background: rgba(128, 128, 128, 0.12); "
          "font-family: 'Source Code Pro', monospace; font-size: 0.85rem; line-height: 1.5; overflow-y: auto;")


def text_block_html(text: str, *, name: str, max_height: int | None = None) -> str:
    """``text`` escaped in a monospace block; taller than ``max_height`` pixels, it scrolls."""
    height = f" max-height: {int(max_height)}px;" if max_height else ""
    body = html.escape(replace_lone_surrogates(text), quote=False)
    # HTML drops one line feed right after <pre>: this one, so a text's own first line feed stays.
    return f'<pre data-text="{html.escape(name, quote=True)}" style="{_STYLE}{height}">\n{body}</pre>'
