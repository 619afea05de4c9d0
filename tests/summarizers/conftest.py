"""Fixtures the summarizer tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def fault_server() -> Iterator[Any]:
    """An OpenAI-compatible server on 127.0.0.1 that fails as its model name says (``tests.robustness.llm_faults``)."""
    from tests.robustness.llm_faults import FaultServer

    faults = FaultServer()
    yield faults
    faults.close()
