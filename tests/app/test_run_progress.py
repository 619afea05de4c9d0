"""A run in progress: the page is told the time so far, and a stopped run frees what it held."""

from __future__ import annotations

import threading
from collections.abc import Callable

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
    assert len(shown) >= 3 and shown == sorted(shown)
    assert shown[0] == 0 and shown[1] > 0, "shown at once, then as time goes by"


def test_a_run_shorter_than_one_interval_is_still_shown():
    shown: list[float] = []
    assert run_with_progress(lambda: "quick", shown.append, every=5) == "quick"
    assert shown == [0.0]


def test_the_works_own_error_reaches_the_caller():
    def fail() -> None:
        raise ValueError("the summarizer could not be built")

    with pytest.raises(ValueError, match="could not be built"):
        run_with_progress(fail, lambda seconds: None, every=0.01)


def test_a_stopped_run_calls_on_abandon_and_a_finished_one_does_not():
    class Stopped(Exception):
        """What Streamlit raises from its next call when the user stops the script."""

    def stop_on_call(number: int) -> Callable[[float], None]:
        calls: list[float] = []

        def show(seconds: float) -> None:
            calls.append(seconds)
            if len(calls) == number:
                raise Stopped

        return show

    never = threading.Event()
    abandoned: list[bool] = []
    with pytest.raises(Stopped):  # stopped while the work runs: what it holds is freed
        run_with_progress(lambda: never.wait(5), stop_on_call(2), on_abandon=lambda: abandoned.append(True),
                          every=0.01)
    assert abandoned == [True]
    never.set()
    # Finished before the next call: nothing to free.
    assert run_with_progress(lambda: 42, stop_on_call(2), on_abandon=lambda: abandoned.append(True), every=1) == 42
    assert abandoned == [True]
    started: list[bool] = []
    with pytest.raises(Stopped):  # stopped before it began: nothing ran, nothing to free
        run_with_progress(lambda: started.append(True), stop_on_call(1), on_abandon=lambda: abandoned.append(True))
    assert not started and abandoned == [True]
