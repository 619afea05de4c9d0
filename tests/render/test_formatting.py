"""Formatting helpers shared by the pages' tables."""

from __future__ import annotations

from core.render.formatting import whole_when_whole


def test_a_whole_number_of_seconds_reads_without_its_decimal_point() -> None:
    shown = whole_when_whole([60.0, 7.5, 0, 0.0, 3])
    assert shown == [60, 7.5, 0, 0, 3]
    assert [type(value) for value in shown] == [int, float, int, int, int]
