"""Layout pieces every page uses: metric rows that wrap, charts, tables with human headers.

The page style (one ``<style>`` block) makes metrics wrap instead of truncating; metric rows are
grids that put as many metrics on a line as fit (so "64,000" never shrinks to "6…"); tables get
words for column names and thousands separators; charts get the dashboard's Plotly settings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from core.render.formatting import human_column

# Metric rows are containers keyed "metrics-<name>": the style turns them into wrapping grids.
METRIC_ROW_PREFIX = "metrics-"
# The smallest width a metric gets before the row wraps: room for "160,457" at Streamlit's size.
METRIC_MIN_WIDTH = "8.5rem"
NARROW_SCREEN_PX = 1000

_STYLE = f"""
<style>
[class*="st-key-{METRIC_ROW_PREFIX}"] {{
  display: grid !important;
  grid-template-columns: repeat(auto-fill, minmax({METRIC_MIN_WIDTH}, 1fr));
  gap: 0.6rem 1rem;
}}
[class*="st-key-{METRIC_ROW_PREFIX}"] > div {{ width: auto !important; min-width: 0; }}
/* A metric never cuts its value or its label: long ones wrap. */
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * {{
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  overflow-wrap: anywhere;
}}
[data-testid="stMetricValue"] {{ font-size: clamp(1.35rem, 2.1vw, 2rem); line-height: 1.2; }}
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * {{
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}}
/* The navigation is across the top: the title needs less room above it. */
[data-testid="stMainBlockContainer"] {{ padding-top: 3.5rem; }}
/* The sidebar holds only the parameters: tighter, so every slider is above the fold at 900 px. */
[data-testid="stSidebarUserContent"] {{ padding-top: 0.5rem; }}
[data-testid="stSidebarUserContent"] [data-testid="stVerticalBlock"] {{ gap: 0.45rem; }}
[data-testid="stSidebarHeader"] {{ height: 2.6rem; margin-bottom: 0; }}
/* On a narrow screen a plain table's cells are closer together: its columns fit where they scrolled. */
@media (max-width: {NARROW_SCREEN_PX}px) {{
  [data-table] th, [data-table] td {{ padding-left: 0.35rem !important; padding-right: 0.35rem !important; }}
}}
/* Every uploaded file stays in sight: Streamlit's list stops at two rows and hides the rest. */
[data-testid="stFileChips"] {{ max-height: none !important; overflow: visible !important; }}
</style>
"""

# Runs once per browser tab: on a narrow screen the sidebar starts collapsed (Streamlit only does
# that below 768 px), so the page gets the width; the user's own choice afterwards is kept.
_COLLAPSE_SCRIPT = f"""
<script>
(function () {{
  if (window.innerWidth >= {NARROW_SCREEN_PX} || sessionStorage.getItem("context-lens-sidebar-auto")) return;
  const collapse = (tries) => {{
    const bar = document.querySelector('[data-testid="stSidebar"]');
    const button = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (bar && button && bar.dataset.collapsed === "false") {{
      button.click();
      sessionStorage.setItem("context-lens-sidebar-auto", "1");
      return;
    }}
    if (tries > 0) setTimeout(() => collapse(tries - 1), 100);
  }};
  collapse(60);
}})();
</script>
"""


# From a session's second run on (an upload, a page switch, any change), the browser loads Streamlit's
# chart script (Plotly's, about 4.6 MB) before a chart page asks for it, so that page does not wait
# for it. It is loaded in the browser's next idle moment once the dashboard is quiet (no script has
# run and nothing was drawn for ``CHARTS_AHEAD_QUIET_MS``: the user reads a page), or at once when the
# page running draws Plotly charts as it opens (``dashboard.sections.CHART_PAGES``: needed anyway).
# Loaded in any idle moment, it ran beside a page with no chart opened right after an upload: about
# 0.12 s of the browser's processor while Strategies was being drawn, in a trace of that round. The
# session's first page is drawn without it: it has no Plotly chart, and its first paint must not
# share the browser with it. The script's name comes from the installed Streamlit; the URL is
# resolved beside Streamlit's own entry script, as Streamlit does.
_CHART_SCRIPT_PATTERN = "PlotlyChart.*.js"
CHARTS_AHEAD_QUIET_MS = 1000
_CHARTS_AHEAD_SCRIPT = """
<script>
(function () {{
  if ({charts_page}) window.contextLensChartsNow = true;
  if (window.contextLensChartsAhead) return;
  const entry = document.querySelector('script[type="module"][src*="static/js/index."]');
  if (!entry) return;
  window.contextLensChartsAhead = true;
  const load = () => import(new URL("{name}", entry.src).href)
    .then(() => {{ window.contextLensChartsAhead = "loaded"; }}, () => {{ window.contextLensChartsAhead = false; }});
  const idle = window.requestIdleCallback || ((then) => setTimeout(then, 200));
  // Quiet: no script running and nothing drawn on the page since (a short run may end unseen).
  let quietSince = null;
  const drawn = new MutationObserver(() => {{ quietSince = null; }});
  drawn.observe(document.querySelector('[data-testid="stMain"]') || document.body, {{ subtree: true, childList: true }});
  const watch = () => {{
    const running = document.querySelector('[data-testid="stStatusWidget"]') !== null;
    const now = performance.now();
    quietSince = running ? null : (quietSince === null ? now : quietSince);
    if (window.contextLensChartsNow || (quietSince !== null && now - quietSince >= {quiet_ms})) {{
      drawn.disconnect();
      idle(load, {{ timeout: 3000 }});
    }} else {{
      setTimeout(watch, 200);
    }}
  }};
  watch();
}})();
</script>
"""
_DRAWN_BEFORE = "_page_drawn_before"


@functools.cache
def chart_script_name() -> str | None:
    """The file name of Streamlit's chart script in the installed package (None if it is not one file)."""
    folder = Path(st.__file__).resolve().parent / "static" / "static" / "js"
    found = sorted(path.name for path in folder.glob(_CHART_SCRIPT_PATTERN))
    return found[0] if len(found) == 1 else None


def page_style(*, charts_page: bool = False) -> None:
    """The dashboard's style and the narrow-screen sidebar rule, and from the session's second run on
    the chart script loaded ahead (call once per run, from the sidebar; ``charts_page``: the page
    running draws Plotly charts)."""
    st.html(_STYLE)
    scripts = _COLLAPSE_SCRIPT
    name = chart_script_name()
    if st.session_state.get(_DRAWN_BEFORE) and name:
        scripts += _CHARTS_AHEAD_SCRIPT.format(name=name, quiet_ms=CHARTS_AHEAD_QUIET_MS,
                                               charts_page="true" if charts_page else "false")
    st.session_state[_DRAWN_BEFORE] = True
    st.html(scripts, unsafe_allow_javascript=True)


def metric_row(key: str, metrics: Sequence[tuple[str, str] | tuple[str, str, Mapping[str, Any]]]) -> None:
    """Metrics side by side, wrapping onto more lines when the page is narrow.

    Each item is ``(label, value)`` or ``(label, value, {st.metric keyword arguments})``.
    """
    with st.container(key=METRIC_ROW_PREFIX + key):
        for item in metrics:
            label, value = item[0], item[1]
            options = dict(item[2]) if len(item) > 2 else {}  # type: ignore[misc]
            st.metric(label, value, **options)


def delta_or_none(change: int | float, text: str) -> str | None:
    """A metric delta only when something changed: no red "+0" on a run that changed nothing."""
    return text if change else None


def chart(figure: Any, key: str, *, on_select: Callable[[], None] | None = None) -> Any:
    """A Plotly figure at full width with the dashboard's settings; ``on_select`` makes its points clickable."""
    from core.render.charts import PLOTLY_CONFIG

    if on_select is None:
        return st.plotly_chart(figure, width="stretch", key=key, config=PLOTLY_CONFIG)
    return st.plotly_chart(figure, width="stretch", key=key, config=PLOTLY_CONFIG, on_select=on_select,
                           selection_mode="points")


# A grid of messages shows about 20 rows before it scrolls (10 hid most of a 338-message conversation).
GRID_ROWS = 20
ROW_PX = 35


# Streamlit wraps a cell's text only in rows taller than 4rem: tables of a few rows with long text
# get such rows, so "cannot be estimated" is not cut to "cannot be estimate" on a narrow page.
WRAP_ROW_HEIGHT = 68
LONG_CELL_CHARS = 60
WRAP_MAX_ROWS = 60
# Streamlit sizes a grid for about ten rows of its default height: one of taller rows is given the
# height of this many of them (six releases showed five and a half, the newest cut).
WRAP_VISIBLE_ROWS = 10


def _has_long_text(frame: Any, shown: Iterable[Any] | None = None) -> bool:
    """Whether a shown column holds a text longer than one line of it (:data:`LONG_CELL_CHARS`)."""
    import pandas as pd

    for name in frame.columns if shown is None else [name for name in shown if name in frame.columns]:
        column = frame[name]
        if pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype):
            if column.map(lambda value: len(value) if isinstance(value, str) else 0).max() > LONG_CELL_CHARS:
                return True
    return False


def grid_height(rows: int) -> int:
    """The height of a table of ``rows`` rows: all of them up to :data:`GRID_ROWS`, then it scrolls."""
    return ROW_PX * (min(rows, GRID_ROWS) + 1) + 3


def wrapped_grid_height(rows: int) -> int:
    """The height of a table of ``rows`` rows of wrapped text: all of them up to
    :data:`WRAP_VISIBLE_ROWS`, then it scrolls."""
    return WRAP_ROW_HEIGHT * min(rows, WRAP_VISIBLE_ROWS) + ROW_PX + 3


def column_config_for(frame: Any, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Human headers for every column, thousands separators for integers, unless ``overrides`` says otherwise."""
    import pandas as pd

    config: dict[str, Any] = {}
    frame = getattr(frame, "data", frame)  # a Styler's frame
    for name in frame.columns:
        label = human_column(str(name))
        dtype = frame[name].dtype
        if pd.api.types.is_bool_dtype(dtype):
            config[name] = st.column_config.CheckboxColumn(label)
        elif pd.api.types.is_integer_dtype(dtype):
            config[name] = st.column_config.NumberColumn(label, format="localized")
        elif pd.api.types.is_float_dtype(dtype):
            config[name] = st.column_config.NumberColumn(label, format="localized")
        elif label != name:
            config[name] = st.column_config.Column(label)
    for name, override in (overrides or {}).items():
        config[name] = _localized(override)
    return config


def _localized(column: Any) -> Any:
    """A number column without a format of its own gets thousands separators (one format everywhere)."""
    if isinstance(column, dict):
        type_config = column.get("type_config") or {}
        if type_config.get("type") == "number" and not type_config.get("format"):
            return {**column, "type_config": {**type_config, "format": "localized"}}
    return column


def table(frame: Any, key: str | None = None, *, column_config: Mapping[str, Any] | None = None,
          **options: Any) -> Any:
    """``st.dataframe`` with human headers and one number format; the index hidden.

    A few rows with a text longer than a line get rows tall enough to wrap it (Streamlit cuts it
    otherwise): a line is :data:`LONG_CELL_CHARS`. Only the columns shown (``column_order``) count."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame) and not hasattr(frame, "data"):  # a list of rows (a Styler has .data)
        frame = pd.DataFrame(frame)
    options.setdefault("hide_index", True)
    options.setdefault("width", "stretch")
    plain = getattr(frame, "data", frame)
    if "height" not in options and "row_height" not in options and 0 < len(plain) <= WRAP_MAX_ROWS \
            and _has_long_text(plain, options.get("column_order")):
        options["row_height"] = WRAP_ROW_HEIGHT
        options["height"] = wrapped_grid_height(len(plain))
    return st.dataframe(frame, key=key, column_config=column_config_for(frame, column_config), **options)


def columns_first(frame: Any, first: Sequence[str]) -> list[str]:
    """A ``column_order`` showing ``first`` (those the frame has) before the frame's other columns,
    none hidden: what decides a row comes first, and a narrow page scrolls only the rest out of
    sight. ``frame`` may be a Styler."""
    columns = [str(column) for column in getattr(frame, "data", frame).columns]
    return [*(column for column in first if column in columns), *(column for column in columns if column not in first)]


def plain_text(text: str, name: str, *, height: int | None = None) -> None:
    """A summary or another long plain text, every character as written, in a monospace block that
    scrolls past ``height`` pixels (``core.render.text_blocks``): no code block's script to load."""
    from core.render.text_blocks import text_block_html

    st.html(text_block_html(text, name=name, max_height=height))


def small_table(rows: Any, name: str, *, headers: Mapping[str, str] | None = None,
                cell_styles: Mapping[tuple[int, str], str] | None = None,
                share_columns: Sequence[str] = ("share",)) -> None:
    """A table of a few rows as plain HTML (``core.render.html_tables``): human headers, thousands
    separators, a share as a percentage with a bar, long text wrapped; no data grid to load.

    ``rows`` is a frame, or a list of mappings (its columns those of the first row, in order);
    ``cell_styles``: CSS added to a cell, by its row's position and its column; ``share_columns``:
    the columns holding a fraction of 1, shown as a percentage with a bar."""
    from core.render.html_tables import table_html

    if hasattr(rows, "to_dict"):
        columns = [str(column) for column in rows.columns]
        rows = rows.to_dict("records")
    else:
        columns = [str(column) for column in rows[0]] if rows else []
    labels = {column: human_column(column) for column in columns} | dict(headers or {})
    st.html(table_html(rows, columns, name=name, headers=labels, cell_styles=cell_styles, share_columns=share_columns))
