"""A conversation as a readable thread: one HTML fragment per page of messages.

Each message is a card headed by its number (sticky, so it stays in view while a long message
scrolls), its role, its zone and phase badges and its size. Assistant and user text is Markdown
rendered by markdown-it with raw HTML off (a ``<script>`` in a transcript is shown as text), links
only when they are ``http``, ``https`` or ``mailto`` (never ``javascript:`` or ``data:``) and no
image ever fetched (a Markdown image becomes a placeholder). Tool calls and tool results are
``<details>`` blocks, closed, naming the tool and the size; images are placeholders; long text is
folded after :data:`FOLD_CHARS` characters. Everything else from the transcript goes through
``html.escape``. Pure functions: nothing here imports Streamlit.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from core.message_view import CallView, call_views, is_image_part, role_of, strip_ansi
from core.render.palette import ROLE_COLORS, ZONE_COLORS
from core.unicode_text import replace_lone_surrogates

__all__ = [
    "FOLD_CHARS", "SHOWN_CHARS", "THREAD_STYLE", "ThreadMessage", "message_search_text", "page_count",
    "safe_markdown_html", "search_matches", "thread_html", "thread_message",
]

#: Text longer than this shows its beginning and folds the rest.
FOLD_CHARS = 1_500
#: The most characters of one block put in the page (the drill-down's raw JSON has every character).
SHOWN_CHARS = 40_000
#: Zones and badges the thread colours (others are grey).
BADGE_COLORS: dict[str, str] = {**ZONE_COLORS, "SUMMARY": "#b0489e", "STUB": "#7d8590", "KEPT": "#7d8590"}
_ROLE_FALLBACK = "#7d8590"

# Styles keyed on the thread's own classes; colours are mid-tones and translucent greys, so the
# same rules read in the light and the dark theme. A card out of view is not laid out or painted
# (``content-visibility``; its height is taken as 7rem until it was once shown): a page of 50 cards
# below the figures made the first page usable 0.1 s later (alternating cold starts).
THREAD_STYLE = """
<style>
.cl-thread { display: flex; flex-direction: column; gap: 0.55rem; }
.cl-msg { border: 1px solid rgba(128,128,128,0.35); border-left: 4px solid var(--cl-role); border-radius: 0.5rem;
  padding: 0 0.8rem 0.5rem 0.8rem; overflow-wrap: anywhere; scroll-margin-top: 4.5rem;
  content-visibility: auto; contain-intrinsic-size: auto 7rem; }
.cl-head { position: sticky; top: 3.75rem; z-index: 2; display: flex; flex-wrap: wrap; gap: 0.4rem;
  align-items: center; padding: 0.3rem 0.8rem; margin: 0 -0.8rem; font-size: 0.85rem;
  background: rgba(128,128,128,0.16); backdrop-filter: blur(10px); border-radius: 0.45rem 0.45rem 0 0; }
.cl-num { font-weight: 700; font-variant-numeric: tabular-nums; }
.cl-role { font-weight: 600; color: var(--cl-role); }
.cl-badge { border-radius: 0.6rem; padding: 0 0.45rem; font-size: 0.75rem; color: #fff; background: #7d8590; }
.cl-size { opacity: 0.75; margin-left: auto; font-variant-numeric: tabular-nums; }
.cl-body { font-size: 0.92rem; }
.cl-body p { margin: 0.25rem 0; }
.cl-body h1, .cl-body h2, .cl-body h3, .cl-body h4, .cl-body h5, .cl-body h6 { font-size: 1rem; font-weight: 700;
  margin: 0.5rem 0 0.2rem 0; padding: 0; line-height: 1.4; }
.cl-body pre, .cl-pre { white-space: pre-wrap; overflow-wrap: anywhere; background: rgba(128,128,128,0.12);
  border-radius: 0.35rem; padding: 0.45rem 0.6rem; margin: 0.3rem 0; font-size: 0.82rem; max-height: 28rem;
  overflow-y: auto; }
.cl-body code { background: rgba(128,128,128,0.15); border-radius: 0.25rem; padding: 0 0.2rem; }
.cl-tool { border: 1px solid rgba(128,128,128,0.3); border-radius: 0.4rem; margin: 0.35rem 0; padding: 0 0.5rem; }
.cl-tool > summary { cursor: pointer; padding: 0.25rem 0; font-size: 0.85rem; }
.cl-tool-name { font-family: monospace; font-weight: 600; }
.cl-muted { opacity: 0.7; font-size: 0.8rem; }
.cl-image { display: inline-block; border: 1px dashed rgba(128,128,128,0.6); border-radius: 0.3rem;
  padding: 0.1rem 0.5rem; font-size: 0.8rem; opacity: 0.85; }
.cl-fold > summary { cursor: pointer; font-size: 0.8rem; opacity: 0.8; }
.cl-body table { border-collapse: collapse; } .cl-body td, .cl-body th { border: 1px solid rgba(128,128,128,0.35);
  padding: 0.1rem 0.4rem; }
</style>
"""

_SAFE_SCHEMES = ("http://", "https://", "mailto:")


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = lambda url: url.strip().lower().startswith(_SAFE_SCHEMES)

    def image(renderer: Any, tokens: Any, index: int, options: Any, env: Any) -> str:  # never fetched
        alt = "".join(child.content for child in (tokens[index].children or []))
        return f'<span class="cl-image">[image{": " + html.escape(alt) if alt else ""}]</span>'

    def link_open(renderer: Any, tokens: Any, index: int, options: Any, env: Any) -> str:
        href = str(tokens[index].attrGet("href") or "")
        return f'<a href="{html.escape(href, quote=True)}" rel="noopener noreferrer nofollow" target="_blank">'

    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    return md


def safe_markdown_html(text: str) -> str:
    """``text`` as Markdown rendered to HTML with raw HTML shown as text, only web and mail links, no image."""
    return str(_markdown().render(text))


@dataclass(frozen=True)
class ThreadMessage:
    """One message as the thread shows it."""

    number: int  # in the numbering the caller uses (input index or output position)
    role: str
    text: str  # the message's own text (tool output for a tool message), escape codes left out
    calls: list[CallView] = field(default_factory=list)
    tool: str = ""  # the tool a tool result answers
    images: int = 0
    badges: tuple[str, ...] = ()  # zone first, then the phases' badges
    tokens: int | None = None
    label: str = "#"  # the number's prefix ("#", "output #")


def _text_and_images(content: Any) -> tuple[str, int]:
    if content is None:
        return "", 0
    if isinstance(content, str):
        return content, 0
    if isinstance(content, list):
        pieces: list[str] = []
        images = 0
        for part in content:
            if is_image_part(part):
                images += 1
            elif isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, Mapping):
                text = part.get("text")
                if isinstance(text, str):
                    pieces.append(text)
                elif part.get("type") not in (None, "text"):
                    pieces.append(f"[{part.get('type')} part]")
        return "\n".join(p for p in pieces if p), images
    if isinstance(content, Mapping):
        return json.dumps(content, ensure_ascii=False, indent=1, default=str), 0
    return str(content), 0


def thread_message(message: Any, number: int, *, tool: str = "", badges: Sequence[str] = (),
                   tokens: int | None = None, label: str = "#") -> ThreadMessage:
    """The thread's view of one message (any shape: a non-dict message is shown as its text)."""
    if not isinstance(message, Mapping):
        return ThreadMessage(number=number, role="unknown", text=str(message), badges=tuple(badges),
                             tokens=tokens, label=label)
    role = role_of(message)
    text, images = _text_and_images(message.get("content"))
    return ThreadMessage(number=number, role=role if isinstance(role, str) and role else "unknown",
                         text=strip_ansi(text), calls=call_views(message), tool=tool, images=images,
                         badges=tuple(b for b in badges if b), tokens=tokens, label=label)


def message_search_text(item: ThreadMessage) -> str:
    """What a search looks in: the role, the tool, the text and every call's name and arguments, lower-cased."""
    calls = " ".join(f"{c.name} {c.arguments}" for c in item.calls)
    return f"{item.role} {item.tool} {item.text} {calls}".lower()


def search_matches(texts: Sequence[str], query: str) -> list[int]:
    """Positions of ``texts`` (already lower-cased) holding every word of ``query``."""
    words = query.lower().split()
    if not words:
        return list(range(len(texts)))
    return [i for i, text in enumerate(texts) if all(word in text for word in words)]


def page_count(total: int, page_size: int) -> int:
    return max(1, -(-total // max(page_size, 1)))


def _size(text: str) -> str:
    return f"{len(text):,} characters"


def _cut(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return text[:SHOWN_CHARS] + f"\n… ({len(text) - SHOWN_CHARS:,} more characters: open the message for all of them)"


def _pre(text: str) -> str:
    return f'<pre class="cl-pre">{html.escape(_cut(text))}</pre>'


def _prose(text: str) -> str:
    """Markdown, the part after :data:`FOLD_CHARS` folded (cut at a line break, else a space)."""
    if len(text) <= FOLD_CHARS:
        return safe_markdown_html(text)
    cut = text.rfind("\n", 0, FOLD_CHARS)
    if cut <= FOLD_CHARS // 2:  # no line break late enough: a space, so no word is split
        cut = text.rfind(" ", 0, FOLD_CHARS)
    cut = cut if cut > FOLD_CHARS // 2 else FOLD_CHARS
    head, rest = text[:cut], _cut(text[cut:])
    return (safe_markdown_html(head) + f'<details class="cl-fold"><summary>{len(rest):,} more characters</summary>'
            + safe_markdown_html(rest) + "</details>")


def _arguments(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False, indent=2)
    except (ValueError, RecursionError):
        return arguments


def _body(item: ThreadMessage, opened: bool = False) -> str:
    parts: list[str] = []
    details = '<details class="cl-tool" open>' if opened else '<details class="cl-tool">'
    if item.role in ("tool", "function"):
        name = html.escape(item.tool or "tool")
        parts.append(f'{details}<summary>Result of <span class="cl-tool-name">{name}</span> '
                     f'<span class="cl-muted">· {_size(item.text)}</span></summary>{_pre(item.text)}</details>')
    elif item.role in ("system", "developer"):
        if item.text:
            parts.append(f'{details}<summary>{html.escape(item.role.capitalize())} prompt '
                         f'<span class="cl-muted">· {_size(item.text)}</span></summary>{_pre(item.text)}</details>')
    elif item.text:
        parts.append(_prose(item.text))
    if item.images:
        parts.append(f'<span class="cl-image">[{item.images} image{"s" if item.images > 1 else ""} not shown]</span>')
    for call in item.calls:
        arguments = _arguments(call.arguments)
        parts.append(f'{details}<summary>Calls <span class="cl-tool-name">{html.escape(call.name)}'
                     f'</span> <span class="cl-muted">· arguments {_size(call.arguments)}</span></summary>'
                     f"{_pre(arguments)}</details>")
    if not parts:
        parts.append('<span class="cl-muted">(no text)</span>')
    return "".join(parts)


def anchor(prefix: str, number: int) -> str:
    """The HTML id of message ``number`` in the thread ``prefix`` (what a jump scrolls to)."""
    return f"cl-{''.join(ch if ch.isalnum() else '-' for ch in prefix)}-{number}"


def thread_html(items: Sequence[ThreadMessage], prefix: str,
                badge_color: Callable[[str], str] | None = None, *, opened: bool = False) -> str:
    """The messages as one HTML fragment (use :data:`THREAD_STYLE` once on the page); ``opened``
    shows tool calls, results and system prompts unfolded (one message opened to be read)."""
    color_of = badge_color or (lambda badge: BADGE_COLORS.get(badge, "#7d8590"))
    cards = []
    for item in items:
        role_color = ROLE_COLORS.get(item.role, _ROLE_FALLBACK)
        badges = "".join(f'<span class="cl-badge" style="background:{color_of(b)}">{html.escape(b)}</span>'
                         for b in item.badges)
        size = f'<span class="cl-size">{item.tokens:,} tokens</span>' if item.tokens is not None else ""
        cards.append(
            f'<div class="cl-msg" id="{anchor(prefix, item.number)}" style="--cl-role:{role_color}">'
            f'<div class="cl-head"><span class="cl-num">{html.escape(item.label)}{item.number:,}</span>'
            f'<span class="cl-role">{html.escape(item.role)}</span>{badges}{size}</div>'
            f'<div class="cl-body">{_body(item, opened)}</div></div>'
        )
    # A lone surrogate (damaged input) cannot be sent to the browser as UTF-8: shown as U+FFFD.
    return replace_lone_surrogates(f'<div class="cl-thread">{"".join(cards)}</div>')
