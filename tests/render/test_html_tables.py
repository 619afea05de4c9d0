"""Small HTML tables: every cell text, numbers formatted, shares as a percentage with a bar."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from core.render.html_tables import Change, before_after, table_html
from tests.helpers import HtmlTable


def test_cells_are_text_never_markup():
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    markup = table_html([{"what": hostile, "rows": 3}], ["what", "rows"], name="t",
                        headers={"what": "<b>what</b>"})
    parsed = HtmlTable(markup)
    assert parsed.cells[0] == hostile  # shown as it is written
    assert parsed.headings[0] == ("what", "<b>what</b>")
    assert set(parsed.tags) <= {"div", "table", "thead", "tbody", "tr", "th", "td", "span"}


def test_numbers_missing_values_and_shares():
    rows = [{"part": "messages", "tokens": 160106, "share": 0.9978, "mean": 2.5},
            {"part": "overhead", "tokens": None, "share": 1.7, "mean": math.nan}]
    parsed = HtmlTable(table_html(rows, ["part", "tokens", "share", "mean"], name="parts"))
    assert parsed.cells == ["messages", "160,106", "99.78 %", "2.50", "overhead", "—", "170.00 %", "—"]
    markup = table_html(rows, ["share"], name="parts")
    assert "width:99.78%" in markup and "width:100.00%" in markup  # a bar never runs past its track
    assert 'data-table="parts"' in markup
    headed = table_html(rows, ["part", "tokens"], name="parts")
    assert 'data-column="tokens" style="text-align:right' in headed  # over its figures
    assert 'data-column="part" style="text-align:left' in headed


def test_a_frames_records_read_the_same_as_plain_values():
    frame = pd.DataFrame({"role": ["tool", "user"], "messages": np.array([210, 44], dtype=np.int64),
                          "share": np.array([0.88, 0.0067])})
    from_frame = table_html(frame.to_dict("records"), list(frame.columns), name="r")
    numpy_cells = table_html([{"role": "tool", "messages": np.int64(210), "share": np.float64(0.88)},
                              {"role": "user", "messages": np.int64(44), "share": np.float64(0.0067)}],
                             ["role", "messages", "share"], name="r")
    assert from_frame == numpy_cells
    assert HtmlTable(from_frame).cells == ["tool", "210", "88.00 %", "user", "44", "0.67 %"]


def test_columns_come_in_the_order_given_with_their_headings():
    parsed = HtmlTable(table_html([{"a": 1, "b": "x"}], ["b", "a"], name="t", headers={"a": "first"}))
    assert parsed.headings == [("b", "b"), ("a", "first")]
    assert parsed.cells == ["x", "1"]


def test_the_figures_of_a_share_column_are_as_wide_as_its_widest():
    import re

    html = table_html([{"share": 0.9978}, {"share": 0.0022}, {"share": None}], ["share"], name="t")
    widths = re.findall(r"min-width:(\d+)ch", html)
    assert widths == ["7", "7"], "each figure as wide as '99.78 %', the missing one drawn as a dash"
    assert table_html([{"share": 1.0}], ["share"], name="t").count("min-width:8ch") == 1


def test_a_cell_can_be_pointed_out_and_its_style_stays_an_attribute():
    rows = [{"release": "v1", "layout": "a"}, {"release": "v2", "layout": "b"}]
    markup = table_html(rows, ["release", "layout"], name="t",
                        cell_styles={(1, "layout"): "background-color: #fde", (0, "release"): 'x" onclick="y'})
    styles = HtmlTable(markup).styles
    assert "background-color: #fde" in styles[1][1] and "background-color" not in styles[0][1] + styles[1][0]
    assert 'x" onclick="y' in styles[0][0]  # escaped: still the style attribute's text, no attribute of its own
    assert "onclick=" not in markup.replace('x&quot; onclick=&quot;y', "")


def test_a_change_is_one_figure_becoming_another_right_aligned_and_escaped():
    rows = [{"tokens": Change(np.int64(85061), np.int64(21042)), "share": Change(0.5, 0.25)}]
    markup = table_html(rows, ["tokens", "share"], name="c", share_columns=())
    assert HtmlTable(markup).cells == ["85,061 → 21,042", "0.50 → 0.25"]
    assert 'data-column="tokens" style="text-align:right' in markup  # a figure, over its column's right edge
    assert "white-space:nowrap" in markup.split("<td", 1)[1].split(">", 1)[0]  # never split across lines


def test_before_after_makes_each_pair_one_column_where_the_before_stood():
    frame = pd.DataFrame({"n": [1, 2], "tokens_before": [900, 800], "tokens_after": [300, 200], "outcome": ["a", "b"],
                          "messages_before": [40, 50], "messages_after": [10, 20]})
    merged = before_after(frame, ("tokens", "messages"))
    assert list(merged.columns) == ["n", "tokens", "outcome", "messages"]
    assert merged["tokens"].tolist() == [Change(900, 300), Change(800, 200)]
    assert [str(change) for change in merged["messages"]] == ["40 → 10", "50 → 20"]
    assert list(frame.columns)[1] == "tokens_before"  # the frame given is left as it was


def test_a_missing_value_is_a_dash_where_its_column_aligns():
    frame = pd.DataFrame({"name": ["a", None], "tail": pd.array([None, 67572], dtype="Int64")})
    markup = table_html(frame.to_dict("records"), ["name", "tail"], name="m")
    assert HtmlTable(markup).cells == ["a", "—", "—", "67,572"]  # pandas' NA too; whole numbers stay whole
    cells = [cell.split(">", 1)[0] for cell in markup.split("<td")[1:]]
    assert "text-align:right" in cells[1] and "text-align:left" in cells[2]  # under a figure, under a word
