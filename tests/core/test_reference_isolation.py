"""The reference's redaction of a long text runs in a child process: the same text comes back, and a
text that makes one of the reference's own patterns backtrack for minutes neither holds this
process's interpreter nor outlives the budget."""

from __future__ import annotations

import threading
import time

import pytest

from core import redaction
from core.budget import Budget, BudgetExceeded, within
from core.facts.credentials import redact_all
from core.redaction.hermes import REDACTIONS, redact_many, redact_sensitive_text
from core.redaction.strict import strict_redact

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

TEXTS = [
    "short one, nothing to mask",
    "export OPENAI_API_KEY=sk-proj-Q7vX2mN9pL4kR8tY1wE6uI3oA5sD0fG2hJ7kL9zX4cV\n" + "log line\n" * 400,
    "",
    "db.password=hunter2Secret and a config.api.token=abcd1234efgh5678 " * 60,
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig" + " padding" * 500,
]


@pytest.mark.parametrize("release", list(REDACTIONS))
def test_long_texts_come_back_exactly_as_the_reference_redacts_them(release: str) -> None:
    expected = redact_many(list(TEXTS), release=release)
    assert redaction._reference_many(list(TEXTS), release) == expected
    assert [redaction.reference_redact(text, release) for text in TEXTS] == [
        redact_sensitive_text(text, release=release) for text in TEXTS]


def test_every_release_in_turn_and_the_strict_layer_as_in_this_process() -> None:
    for text in TEXTS:
        expected = text
        for release in REDACTIONS:
            expected = redact_sensitive_text(expected, release=release)
        assert redact_all(text) == (strict_redact(expected) if expected else expected)


def test_a_hostile_long_text_is_stopped_at_the_budget_without_holding_the_interpreter() -> None:
    hostile = "auth" * 25_000 + "="  # one of the reference's own patterns backtracks over it for minutes
    ticks = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.monotonic()
    try:
        with pytest.raises(BudgetExceeded), within(Budget(seconds=1.5, memory_mb=None)):
            redaction.profile_redaction(redaction_profile()).redact(hostile)
    finally:
        done.set()
        ticker.join()
    assert time.monotonic() - started < 10
    gaps = [later - earlier for earlier, later in zip(ticks, ticks[1:], strict=False)]
    assert max(gaps) < 0.5  # the other thread ran all along


def redaction_profile():  # noqa: ANN201
    from core.profiles import get_profile

    return get_profile("v0.18.0")
