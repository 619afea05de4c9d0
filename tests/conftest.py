"""Fixtures every test shares."""

from __future__ import annotations

import os

# Tests that import litellm themselves use its bundled price table too (the app sets the same).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def live_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Live and Sessions pages list a temporary folder (never the user's own agents' folders),
    and keep their index cache beside it."""
    base = tmp_path_factory.mktemp("live")
    (base / "sessions").mkdir()
    monkeypatch.setenv("CONTEXT_LENS_LIVE_ROOTS", str(base / "sessions"))
    monkeypatch.setenv("CONTEXT_LENS_CACHE", str(base / "cache"))
    return base / "sessions"
