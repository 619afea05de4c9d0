"""The evaluation corpus of the offline summary: 24 agent sessions of different shapes.

Written for the benchmark, not taken from anywhere: long test logs, CI failures, refactors across
many files, compiler errors, web research, multi-day work resumed from a handoff, changes of
direction, German, French/Spanish, Japanese, Chinese and Spanish turns, leaked secrets, performance
numbers, a data pipeline, work cut mid-step, one session of several hundred messages and one generated
90-round session, in the tool
shapes of five agent harnesses (see :mod:`bench.retention_corpus.builder`).

``sessions()`` returns ``(name, harness, messages)`` for each, deterministically.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.retention_corpus import sessions_code as code
from bench.retention_corpus import sessions_other as other
from bench.retention_corpus.builder import Session
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
