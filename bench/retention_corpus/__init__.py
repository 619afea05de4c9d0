"""The evaluation corpus of the offline summary: synthetic sessions, real logs and held-out look-alikes.

Two splits, fixed before the summarizer was last changed: the **tuning** set (the 24 synthetic
sessions below and half of the real logs) is what the summarizer was developed against; the
**held-out** set (the other real logs and the look-alikes of :mod:`.lookalikes`) is only measured.
A summarizer that holds on the tuning set but not on the held-out one has learned the corpus, not
agent sessions.

The 24 synthetic sessions:

Written for the benchmark, not taken from anywhere: long test logs, CI failures, refactors across
many files, compiler errors, web research, multi-day work resumed from a handoff, changes of
direction, German, French/Spanish, Japanese, Chinese and Spanish turns, leaked secrets, performance
numbers, a data pipeline, work cut mid-step, one session of several hundred messages and one generated
90-round session, in the tool
shapes of five agent harnesses (see :mod:`bench.retention_corpus.builder`).

``sessions()`` returns ``(name, harness, messages)`` for each, deterministically;
``split_sessions()`` returns them by split. The real logs are :mod:`.real_logs` (sources and
licences in ``real/SOURCES.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.retention_corpus import sessions_code as code
from bench.retention_corpus import sessions_other as other
from bench.retention_corpus.builder import Session
from bench.retention_corpus.lookalikes import LOOKALIKES
from bench.retention_corpus.real_logs import real_sessions
from bench.retention_corpus.sessions_generated import generate_session

BUILDERS: tuple[Callable[[], Session], ...] = (
    code.flaky_ci_env_override,
    code.long_pytest_logs,
    code.refactor_many_files,
    code.rust_borrow_checker,
    code.go_service_race,
    code.typescript_build,
    code.docker_deploy,
    code.log_investigation,
    code.terraform_infra,
    code.directory_exploration,
    other.web_research,
    other.multi_day_migration,
    other.change_of_direction,
    other.german_turns,
    other.french_spanish_mixed,
    other.japanese_frontend,
    other.chinese_docs,
    other.spanish_sql,
    other.secrets_rotation,
    other.perf_tuning,
    other.data_pipeline,
    other.interrupted_mid_work,
    other.big_refactor_long,
)


def sessions() -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(name, harness, messages) of every session of the corpus."""
    built = []
    for builder in BUILDERS:
        session = builder()
        built.append((builder.__name__, session.harness, session.messages))
    built.append(("generated_rate_limiting", "hermes", generate_session()))
    return built


SPLITS = ("tuning", "held-out")


def split_sessions(split: str) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(name, harness, messages) of one split: ``tuning`` or ``held-out``."""
    if split == "tuning":
        return sessions() + real_sessions("tuning")
    if split == "held-out":
        looks = [(f"lookalike:{builder.__name__}", (session := builder()).harness, session.messages)
                 for builder in LOOKALIKES]
        return real_sessions("held-out") + looks
    raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
