"""A run in progress: the page is told the time so far, and a stopped run frees what it held."""

from __future__ import annotations

import threading

import pytest

from dashboard.runs import run_with_progress


def test_the_elapsed_time_is_shown_while_the_work_runs_and_its_value_returned():
    release = threading.Event()
    shown: list[float] = []

    def show(seconds: float) -> None:
        shown.append(seconds)
        if len(shown) == 3:
            release.set()

    value = run_with_progress(lambda: release.wait(10) and "done", show, every=0.02)
    assert value == "done"
    assert len(shown) >= 3 and shown == sorted(shown) and shown[0] > 0


def test_the_works_own_error_reaches_the_caller():
    def fail() -> None:
        raise ValueError("the summarizer could not be built")

    with pytest.raises(ValueError, match="could not be built"):
        run_with_progress(fail, lambda seconds: None, every=0.01)


def test_a_stopped_run_calls_on_abandon_and_a_finished_one_does_not():
    class Stopped(Exception):
        """What Streamlit raises from its next call when the user stops the script."""

    never = threading.Event()
    abandoned: list[bool] = []

    def show(seconds: float) -> None:
        raise Stopped

    with pytest.raises(Stopped):
        run_with_progress(lambda: never.wait(5), show, on_abandon=lambda: abandoned.append(True), every=0.01)
    assert abandoned == [True]
    never.set()
    assert run_with_progress(lambda: 42, show, on_abandon=lambda: abandoned.append(True), every=1) == 42
    assert abandoned == [True]
