"""The strategies compared, drawn: tokens after each strategy beside the facts it kept, as HTML bars.

Two bar charts of a few rows need no plotting library: drawn as HTML (``core.render.html_charts``)
they show with the page, in either theme, and the page loads and draws no chart script for them.
"""

from __future__ import annotations

import html

from core.render.formatting import integer
from core.render.html_charts import Bar, Marker, Segment, bar_rows
from core.render.palette import BUDGET_COLOR, FALLBACK_COLOR, MUTED_COLOR, STRATEGY_COLORS
from core.views.strategies import StrategyComparison

__all__ = ["ORIGINAL_ON_SCALE", "RETENTION_SCALE", "strategy_html"]

#: Facts kept are drawn in tenths of a percent (the bars take whole numbers): 1,000 is every fact.
RETENTION_SCALE = 1_000
#: The original size is a line on the tokens chart while it is at most this many times the largest
#: bar or the budget; larger, it is named above the chart instead.
ORIGINAL_ON_SCALE = 2.0

_PANEL = "display:grid; grid-template-columns:repeat(auto-fit, minmax(24rem, 1fr)); column-gap:2rem;"
_HEADING = "font-size:0.9rem; font-weight:600; margin:0.2rem 0 0.1rem;"


def strategy_html(comparison: StrategyComparison) -> str:
    """Tokens after each strategy (against the budget and the original size) beside the share of all
    facts it kept verbatim, one row per strategy in the table's order; side by side on a wide page,
    one above the other on a narrow one. Each bar's title gives the exact figure."""
    table = comparison.table
    colors = [STRATEGY_COLORS.get(run.family, FALLBACK_COLOR) for run in comparison.runs]
    names = [str(name) for name in table["strategy"]]
    tokens = [
        Bar(name, (Segment("tokens after", int(value), color),), note=integer(int(value)))
        for name, value, color in zip(names, table["tokens_after"], colors, strict=True)
    ]
    markers = [Marker(f"budget {integer(comparison.budget_tokens)}", comparison.budget_tokens, BUDGET_COLOR,
                      dashed=True)]
    largest = max([comparison.budget_tokens, *(int(value) for value in table["tokens_after"])])
    heading = "Tokens after (tiktoken)"
    if comparison.tokens_before <= ORIGINAL_ON_SCALE * largest:
        markers.append(Marker(f"original {integer(comparison.tokens_before)}", comparison.tokens_before, MUTED_COLOR))
    else:
        # Drawn to the original's size, a log cut to a tenth leaves every bar a sliver: the bars keep
        # the room to differ, and the original is named instead.
        heading += f" · original {integer(comparison.tokens_before)}, off this scale"
    facts = [
        Bar(name, (Segment("facts kept", round(share * RETENTION_SCALE), color,
                           detail=f"{share:.1%} of all facts kept verbatim"),), note=f"{share:.0%}")
        for name, share, color in zip(names, table["retention_all"], colors, strict=True)
    ]
    return (
        f'<div style="{_PANEL}">'
        f'<div><div style="{_HEADING}">{html.escape(heading)}</div>'
        f'{bar_rows("strategy_tokens", tokens, markers=markers)}</div>'
        f'<div><div style="{_HEADING}">Facts kept verbatim (% of all)</div>'
        f'{bar_rows("strategy_facts", facts, unit="", span=RETENTION_SCALE)}</div>'
        "</div>"
    )
