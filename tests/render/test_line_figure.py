"""A line of counted steps (compactions, turns) has its ticks on whole numbers."""

from __future__ import annotations

import pandas as pd

from core.render.charts import line_figure


def _ticks(frame: pd.DataFrame) -> tuple[float | None, float | None, str | None]:
    axis = line_figure(frame, "compaction", ["chars"], x_title="compaction", y_title="characters").layout.xaxis
    return axis.tick0, axis.dtick, axis.tickmode


def test_two_compactions_get_a_tick_each_and_none_between() -> None:
    assert _ticks(pd.DataFrame({"compaction": [1, 2], "chars": [7_400, 7_336]})) == (1, 1, "linear")


def test_many_steps_get_whole_steps_of_ticks() -> None:
    tick0, dtick, mode = _ticks(pd.DataFrame({"compaction": range(1, 41), "chars": range(40)}))
    assert (tick0, dtick, mode) == (1, 5, "linear")  # 39 steps: at most 8 ticks, each a whole number apart


def test_a_measured_axis_keeps_plotlys_own_ticks() -> None:
    assert _ticks(pd.DataFrame({"compaction": [0.5, 1.5], "chars": [1, 2]})) == (None, None, None)
