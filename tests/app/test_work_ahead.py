"""Work ahead: a transcript's shared analyses made once, by whichever thread asks first, and made
ahead for a new upload once its first page is drawn (``dashboard.ahead``); the chart script loaded
ahead from a session's second run on (``dashboard.ui.page_style``)."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.budget import Budget, BudgetExceeded
from core.redaction import RedactionAhead
from core.strategies import CODEX_USER_TOKENS, DEFAULT_KEEP_LAST
from dashboard import ahead
from dashboard.memo import Settings, content_digest, load_transcript
from dashboard.runs import (
    DEFAULT_RELEASE_OPTIONS,
    StrategyOptions,
    fact_index,
    offline_compression,
    release_comparison,
    strategy_comparisons,
)
from dashboard.ui import chart_script_name
from tests.app.conftest import APP, SAMPLES, TIMEOUT, run
from tests.helpers import count_compressions

JOIN_S = 30


def _transcript(name: str = "long_coding_session.json"):
    return load_transcript((SAMPLES / name).read_bytes(), name)


def _in_thread(target) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def body() -> None:
        try:
            outcome["value"] = target()
        except BaseException as exc:  # noqa: BLE001 - the test reads what the thread raised
            outcome["error"] = exc

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, outcome


def test_a_key_being_computed_is_waited_for_and_computed_once():
    transcript = _transcript()
    gate, started, calls = threading.Event(), threading.Event(), []

    def slow() -> object:
        calls.append("first")
        started.set()
        gate.wait(JOIN_S)
        return object()

    first, first_out = _in_thread(lambda: transcript.memo(("k",), slow))
    assert started.wait(JOIN_S)
    second, second_out = _in_thread(lambda: transcript.memo(("k",), lambda: calls.append("second") or object()))
    time.sleep(0.3)
    assert second.is_alive(), "the second thread did not wait for the first one's result"
    gate.set()
    first.join(JOIN_S)
    second.join(JOIN_S)
    assert calls == ["first"]
    assert second_out["value"] is first_out["value"]


def test_a_failed_computation_is_made_again_by_the_thread_that_waited():
    transcript = _transcript()
    gate, started = threading.Event(), threading.Event()

    def failing() -> object:
        started.set()
        gate.wait(JOIN_S)
        raise ValueError("the first attempt failed")

    first, first_out = _in_thread(lambda: transcript.memo(("k",), failing))
    assert started.wait(JOIN_S)
    second, second_out = _in_thread(lambda: transcript.memo(("k",), lambda: "made by the second"))
    time.sleep(0.2)
    gate.set()
    first.join(JOIN_S)
    second.join(JOIN_S)
    assert isinstance(first_out["error"], ValueError)
    assert second_out["value"] == "made by the second"
    assert transcript.memo(("k",), lambda: "not asked") == "made by the second"


def test_a_computation_that_asks_for_its_own_key_does_not_wait_for_itself():
    transcript = _transcript()
    depth = []

    def nested() -> int:
        depth.append(1)
        return 1 if len(depth) > 1 else 1 + transcript.memo(("k",), nested)

    thread, outcome = _in_thread(lambda: transcript.memo(("k",), nested))
    thread.join(JOIN_S)
    assert not thread.is_alive(), "the computation waited for itself"
    assert outcome["value"] == 2


def test_a_page_waiting_past_its_budget_is_stopped_with_the_page_message():
    transcript = _transcript()
    gate, started, told = threading.Event(), threading.Event(), []

    def slow() -> str:
        started.set()
        gate.wait(JOIN_S)
        return "late"

    transcript.budget = None  # the thread computing it has no budget; the waiting page has one
    first, _ = _in_thread(lambda: transcript.memo(("k",), slow))
    assert started.wait(JOIN_S)
    transcript.budget = Budget(seconds=0.3, memory_mb=None, scope="a test's limit")
    transcript.on_budget = told.append
    waiter, outcome = _in_thread(lambda: transcript.memo(("k",), lambda: "never"))
    waiter.join(JOIN_S)
    gate.set()
    first.join(JOIN_S)
    assert isinstance(outcome["error"], BudgetExceeded)
    assert len(told) == 1 and "0.3 s" in str(told[0])


# Not the page's defaults (a session's own choices are the ones made ahead).
OPTIONS = StrategyOptions(summarizer="extractive", budget=None, keep_last=2, user_tokens=3_000, every_release=False)


def _whole(transcript, settings, options=OPTIONS):
    *_, whole = strategy_comparisons(transcript, settings, options)
    return whole


def test_the_work_ahead_makes_what_the_pages_would_make_and_tells_no_page_of_its_failures():
    transcript, settings = _transcript(), Settings(context_length=16_000)
    transcript.on_budget = lambda exc: pytest.fail(f"a page was told of the work ahead's budget: {exc}")
    ahead._work_on(weakref.ref(transcript), settings, OPTIONS)
    assert transcript.remembers(("offline-compression", settings)) and transcript.remembers(("fact-index",))
    assert transcript.remembers(("strategies", settings, OPTIONS))
    made = list(strategy_comparisons(transcript, settings, OPTIONS))
    assert len(made) == 1, "the page made the first rows again instead of reading the whole comparison"
    alone = _transcript()
    assert offline_compression(transcript, settings).messages == offline_compression(alone, settings).messages
    assert fact_index(transcript).facts.equals(fact_index(alone).facts)
    here = _whole(alone, settings)
    assert made[0].table.equals(here.table)
    assert [(r.name, r.messages, r.summary_text) for r in made[0].runs] == \
        [(r.name, r.messages, r.summary_text) for r in here.runs]

    tight = _transcript()
    tight.budget = Budget(seconds=0.001, memory_mb=None, scope="a test's limit")
    tight.on_budget = lambda exc: pytest.fail(f"a page was told of the work ahead's budget: {exc}")
    ahead._work_on(weakref.ref(tight), settings, OPTIONS)  # stopped by its budget, quietly
    assert not tight.remembers(("offline-compression", settings))


def test_the_work_ahead_takes_no_step_while_a_page_runs():
    transcript, settings = _transcript(), Settings(context_length=16_000)
    with ahead.page_running():  # the page that handed the upload over is still running
        handed_over = ahead._PAGES.started
        worker, outcome = _in_thread(lambda: ahead._work_on(weakref.ref(transcript), settings, OPTIONS,
                                                            handed_over))
        time.sleep(0.5)
        assert worker.is_alive(), "the work ahead went on while a page ran"
        assert not transcript.remembers(("offline-compression", settings))
        # Only the masking, which runs in a worker process, was started meanwhile.
        assert transcript.remembers(("strategies", settings, OPTIONS, "masking"))
    worker.join(JOIN_S)
    assert "error" not in outcome
    assert transcript.remembers(("offline-compression", settings))
    assert transcript.remembers(("strategies", settings, OPTIONS))


def test_strategies_is_made_ahead_only_while_no_page_was_opened_since_the_upload():
    transcript, settings = _transcript(), Settings(context_length=16_000)
    handed_over = ahead._PAGES.started
    with ahead.page_running():  # another page opened after the hand-over (Timeline, say)
        pass
    ahead._work_on(weakref.ref(transcript), settings, OPTIONS, handed_over)
    assert transcript.remembers(("offline-compression", settings)) and transcript.remembers(("fact-index",))
    assert transcript.remembers(("strategies", settings, OPTIONS, "masking"))  # in a worker, whatever opens
    assert not transcript.remembers(("strategies", settings, OPTIONS, "first"))
    assert not transcript.remembers(("strategies", settings, OPTIONS))


def test_the_work_ahead_holds_no_transcript_between_steps_and_skips_one_let_go(monkeypatch):
    entered, gate, made = threading.Event(), threading.Event(), []

    def first_step(transcript) -> None:
        entered.set()
        gate.wait(JOIN_S)

    monkeypatch.setattr(ahead, "_steps", lambda *_, **__: [(ahead.BETWEEN_PAGES, first_step),
                                                     (ahead.BETWEEN_PAGES, lambda transcript: made.append(transcript))])
    let_go = _transcript()
    reference = weakref.ref(let_go)
    worker, outcome = _in_thread(lambda: ahead._work_on(reference, Settings(), OPTIONS))
    assert entered.wait(JOIN_S)
    with ahead.page_running():  # a page starts during the first step: the second waits for it
        gate.set()
        time.sleep(0.2)
        del let_go  # no session holds it any more
        gc.collect()
        assert reference() is None, "the work ahead held the transcript while it waited"
    worker.join(JOIN_S)
    assert not worker.is_alive() and "error" not in outcome and made == []


def test_a_page_arriving_while_the_comparison_is_made_ahead_shows_the_first_rows_then_waits_for_it(monkeypatch):
    """Strategies opened while the work ahead makes the whole comparison: its first rows at once, then
    the comparison the work ahead made (not made a second time, its texts not masked twice)."""
    import core.views.strategies as views

    transcript, settings = _transcript(), Settings(context_length=16_000)
    inside, gate, made = threading.Event(), threading.Event(), []
    original = views.compare_strategies

    def watched(*args, **kwargs):
        made.append(threading.get_ident())
        if kwargs.get("earlier") is not None:  # the whole comparison: held until the page arrived
            inside.set()
            gate.wait(JOIN_S)
        return original(*args, **kwargs)

    monkeypatch.setattr(views, "compare_strategies", watched)
    masked: list[int] = []
    start_masking = RedactionAhead.__init__
    monkeypatch.setattr(RedactionAhead, "__init__",
                        lambda self, *args: masked.append(1) or start_masking(self, *args))
    worker, _ = _in_thread(lambda: ahead._work_on(weakref.ref(transcript), settings, OPTIONS))
    assert inside.wait(JOIN_S)
    steps = strategy_comparisons(transcript, settings, OPTIONS)
    first = next(steps)
    assert first.left_out == ["Codex-style"]
    page, outcome = _in_thread(lambda: next(steps))
    time.sleep(0.2)
    assert page.is_alive(), "the page did not wait for the comparison being made"
    gate.set()
    page.join(JOIN_S)
    worker.join(JOIN_S)
    assert outcome["value"].left_out == [] and outcome["value"] is _whole(transcript, settings)
    assert len(made) == 2 and set(made) == {worker.ident}, "the page made a comparison of its own"
    assert masked == [1], "the reset's texts were sent to be masked twice"


def test_release_comparison_made_ahead_stops_between_releases_once_a_page_starts(monkeypatch):
    """The longest step: begun while the user read, it gives way within one release's compression
    when a page starts, and what it made is kept: the page makes only the releases left, and the
    comparison is the one made without the work ahead."""
    import core.views.releases as releases
    from core.profiles import PROFILES

    transcript, settings = _transcript(), Settings(context_length=16_000)
    made_ahead: list[str] = []
    original = releases.release_compression

    def then_a_page_starts(messages, config, *args, **kwargs):
        made_ahead.append(config.profile)
        result = original(messages, config, *args, **kwargs)
        with ahead.page_running():  # a page opened while this release was compressed
            pass
        return result

    monkeypatch.setattr(releases, "release_compression", then_a_page_starts)
    ahead._work_on(weakref.ref(transcript), settings, OPTIONS)
    monkeypatch.setattr(releases, "release_compression", original)
    others = [release for release in PROFILES if release != settings.profile]
    assert transcript.remembers(("strategies", settings, OPTIONS)), "the steps before it were not made"
    assert made_ahead == others[:1], "the step went on after a page started"
    assert not transcript.remembers(("release-comparison", settings, DEFAULT_RELEASE_OPTIONS))
    with pytest.MonkeyPatch.context() as patch:
        made_here = count_compressions(patch)
        comparison = release_comparison(transcript, settings, DEFAULT_RELEASE_OPTIONS)
    assert made_here == others[1:], "the page compressed again what the work ahead had made"
    alone = release_comparison(_transcript(), settings, DEFAULT_RELEASE_OPTIONS)
    assert comparison.table.equals(alone.table)
    assert [run.result.messages for run in comparison.runs] == [run.result.messages for run in alone.runs]


def _app_opening(upload: Path | None) -> AppTest:
    """The app's first run on ``upload`` as this session's upload (None: the default sample)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if upload is not None:
        data = upload.read_bytes()
        at.session_state["uploaded_files"] = [{"name": upload.name, "data": data, "digest": content_digest(data)}]
        at.session_state["_kept_conversation_choice"] = "Uploaded: " + upload.name
    return run(at)


def _held(at: AppTest):
    (transcript,) = at.session_state["_transcripts_held"].values()
    return transcript


def test_an_upload_gets_the_shared_analyses_made_ahead_once_its_page_is_drawn(tmp_path):
    path = tmp_path / "ahead_upload.json"
    path.write_bytes((SAMPLES / "long_coding_session.json").read_bytes() + b"\n")  # bytes no other test opened
    at = _app_opening(path)
    assert ahead.wait_idle(120)
    transcript, settings = _held(at), at.session_state["_work_ahead_settings"]
    assert transcript.filename == path.name
    assert transcript.remembers(("offline-compression", settings))
    assert transcript.remembers(("fact-index",))
    # Strategies' comparison with this session's choices there (the page's defaults before it is opened).
    options = StrategyOptions(summarizer="extractive", budget=None, keep_last=DEFAULT_KEEP_LAST,
                              user_tokens=CODEX_USER_TOKENS, every_release=False)
    assert transcript.remembers(("strategies", settings, options))
    # Then Release comparison's, with the page's defaults: the page opened now makes no compression.
    assert transcript.remembers(("release-comparison", settings, DEFAULT_RELEASE_OPTIONS))
    with pytest.MonkeyPatch.context() as patch:
        made_here = count_compressions(patch)
        at.switch_page("pages/release_comparison.py")
        run(at)
    assert not at.exception and made_here == []
    made_ahead = release_comparison(transcript, settings, DEFAULT_RELEASE_OPTIONS)
    alone = release_comparison(_transcript(), settings, DEFAULT_RELEASE_OPTIONS)
    assert made_ahead.table.equals(alone.table)
    assert [run.result.messages for run in made_ahead.runs] == [run.result.messages for run in alone.runs]


def test_a_bundled_sample_gets_no_work_ahead(monkeypatch, tmp_path):
    handed: list = []
    monkeypatch.setattr(ahead._WORKER, "add", lambda transcript, *_: handed.append(transcript.filename))
    at = _app_opening(None)
    assert _held(at).filename.endswith(".json")  # the default sample was opened and drawn
    assert handed == []
    # The same check hands over an upload (bytes and a name no other test opened: a transcript the
    # process already holds is not read again, and only a read gets the work ahead).
    path = tmp_path / "ahead_sample_check.jsonl"
    path.write_bytes((SAMPLES / "claude_code_session.jsonl").read_bytes() + b"\n")
    upload = _app_opening(path)
    assert handed == [path.name] and _held(upload).filename == handed[0]


def _scripts(at: AppTest) -> str:
    return " ".join(str(getattr(element, "proto", "")) for element in at.get("html"))


def test_the_chart_script_is_loaded_ahead_from_the_sessions_second_run_on():
    name = chart_script_name()
    assert name is not None and (Path(st.__file__).parent / "static" / "static" / "js" / name).is_file()
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    run(at)
    assert "contextLensChartsAhead" not in _scripts(at)
    run(at)
    assert "contextLensChartsAhead" in _scripts(at) and name in _scripts(at)
