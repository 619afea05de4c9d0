"""Small tables as plain HTML: a handful of rows read at a glance, drawn with the page.

The overview's tables (where the request's tokens come from, the breakdown by role, tool or
category) have a few rows each. A data grid would make the browser load and compile about 1.2 MB
of JavaScript for them on the first page, and cuts long cells on a narrow screen; an HTML table
wraps them instead. Every cell is escaped (text, never markup); numbers get thousands separators;
a share column is a percentage with a small bar; a :class:`Change` is one figure becoming another
("85,061 → 21,042"), one column where a before and an after column would take two. Each table
carries ``data-table="<name>"`` and each heading ``data-column="<column>"``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.render.formatting import integer

__all__ = ["Change", "before_after", "table_html"]

_FONT = "font-family: inherit; font-size: 0.875rem; line-height: 1.4;"
_BORDER = "1px solid rgba(128, 128, 128, 0.25)"
_TRACK = "rgba(128, 128, 128, 0.18)"
_BAR = "#4c78a8"
# A text cell longer than this many characters is never narrower than LONG_TEXT_MIN_WIDTH.
LONG_TEXT_CHARS = 24
LONG_TEXT_MIN_WIDTH = "6rem"
MISSING = "—"  # a missing value's cell


@dataclass(frozen=True)
class Change:
    """A cell's figure before and after something (a compaction's tokens): shown as "before → after",
    right-aligned and never split, like a number."""

    before: float | int
    after: float | int

    def __str__(self) -> str:
        return f"{_figure(self.before)} → {_figure(self.after)}"


def before_after(frame: Any, stems: Iterable[str]) -> Any:
    """``frame`` (a pandas frame) with each ``<stem>_before`` and ``<stem>_after`` column pair made one
    column ``<stem>`` of :class:`Change`, where the before column stood."""
    frame = frame.copy()
    for stem in stems:
        before, after = f"{stem}_before", f"{stem}_after"
        changes = [Change(b, a) for b, a in zip(frame[before], frame[after], strict=True)]
        position = list(frame.columns).index(before)
        frame = frame.drop(columns=[before, after])
        frame.insert(position, stem, changes)
    return frame


def _figure(value: float | int) -> str:
    """A number as a cell shows it: ``5,881``, ``2.50``."""
    value = _plain(value)
    return integer(value) if isinstance(value, int) and not isinstance(value, bool) else f"{value:,.2f}"


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _missing(value: Any) -> bool:
    """None, NaN, or pandas' missing value of a nullable column (which is neither, and has no truth value)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA: "NA != NA" is NA again
        return True


def _plain(value: Any) -> Any:
    """A NumPy scalar (from a frame) as the Python value it holds."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (str, bytes)) else value


def _percent(value: Any) -> str | None:
    """A share's figure ("12.34 %"), or None for what is not a share."""
    value = _plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or _missing(value):
        return None
    return f"{float(value) * 100:.2f} %"


def _cell(value: Any, *, share: bool, figure_width: int = 0) -> tuple[str, bool]:
    """A cell's HTML and whether it is a number (numbers are right-aligned)."""
    value = _plain(value)
    if _missing(value):
        return MISSING, False
    if isinstance(value, bool):
        return ("yes" if value else "no"), False
    if isinstance(value, Change):
        return _e(value), True
    figure = _percent(value) if share else None
    if figure is not None:
        width = max(0.0, min(100.0, float(value) * 100))
        # The bar and the figure may go on two lines in a narrow column; the figure never splits, and
        # it is as wide as the column's widest, so the rows all wrap alike or none does.
        bar = (f'<span style="display:inline-block; width:3.5rem; height:0.45rem; border-radius:3px; '
               f'background:{_TRACK}; vertical-align:middle; margin-right:0.4rem;">'
               f'<span style="display:block; height:100%; width:{width:.2f}%; border-radius:3px; '
               f'background:{_BAR};"></span></span>')
        return (f'{bar}<span style="white-space:nowrap; display:inline-block; min-width:{figure_width}ch; '
                f'text-align:right; font-variant-numeric:tabular-nums;">{figure}</span>'), True
    if isinstance(value, (int, float)):
        return _figure(value), True
    return _e(value), False


def table_html(rows: Iterable[Mapping[str, Any]], columns: Sequence[str], *, name: str,
               headers: Mapping[str, str] | None = None, share_columns: Sequence[str] = ("share",),
               cell_styles: Mapping[tuple[int, str], str] | None = None) -> str:
    """``rows`` (mappings of column to value) as an HTML table of ``columns``, in that order.

    ``headers`` gives a column's heading (the column's name otherwise); a column in
    ``share_columns`` holds a fraction of 1, shown as a percentage with a bar; ``cell_styles`` adds
    CSS declarations to a cell, by its row's position and its column (a cell to point out).
    """
    headers = headers or {}
    cell_styles = cell_styles or {}
    rows = list(rows)
    figure_widths = {column: max((len(f) for row in rows if (f := _percent(row.get(column)))), default=0)
                     for column in columns if column in share_columns}
    drawn = [[_cell(row.get(column), share=column in share_columns, figure_width=figure_widths.get(column, 0))
              for column in columns] for row in rows]
    numeric_columns = {column for cells in drawn for column, (_text, numeric) in zip(columns, cells, strict=True)
                       if numeric}
    body = []
    for position, row_cells in enumerate(drawn):
        cells = []
        for column, (text, numeric) in zip(columns, row_cells, strict=True):
            share = column in share_columns
            # A missing value's dash sits where its column's figures do.
            align = "right" if numeric or (text == MISSING and column in numeric_columns) else "left"
            # Numbers stay whole; words wrap between them, and a word breaks only when it is longer
            # than the column is wide (a path, a hash).
            nowrap = " white-space:nowrap;" if numeric and not share else " overflow-wrap:break-word;"
            if not numeric and len(text) > LONG_TEXT_CHARS:
                # A sentence keeps a readable width on a narrow page (the table scrolls sideways
                # instead): squeezed, it went down the page one word per line.
                nowrap += f" min-width:{LONG_TEXT_MIN_WIDTH};"
            marker = " data-share" if share and numeric else ""
            extra = cell_styles.get((position, column))
            extra = f" {_e(extra.rstrip(';'))};" if extra else ""
            cells.append(f'<td{marker} style="text-align:{align}; padding:0.35rem 0.6rem; border-bottom:{_BORDER};'
                         f'{nowrap}{extra}">{text}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    # A heading sits over its figures: right-aligned over a column of numbers.
    head = "".join(
        f'<th data-column="{_e(column)}" style="text-align:{"right" if column in numeric_columns else "left"}; '
        f'font-weight:600; padding:0.35rem 0.6rem; border-bottom:{_BORDER};">{_e(headers.get(column, column))}</th>'
        for column in columns
    )
    return (f'<div data-table="{_e(name)}" style="{_FONT} overflow-x:auto;">'
            f'<table style="border-collapse:collapse; width:100%;"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")
