"""The Ray engine gives exactly the local engine's report, started locally or joined by address."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.cli.conftest import stable

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'ray[default]>=2.40')")

pytestmark = [pytest.mark.ray, pytest.mark.timeout(600)]
REPO = Path(__file__).resolve().parents[2]


def test_ray_engine_started_locally(cli, corpus, tmp_path, inline_report):
    assert not ray.is_initialized()
    out = tmp_path / "ray.parquet"
    run = cli("batch", corpus.root, "-o", out, "--engine", "ray", "--workers", "2")
    assert run.code == 0, run.err
    assert not ray.is_initialized()  # the command shuts down the instance it started
    frame = pd.read_parquet(out)
    assert frame["error"].notna().sum() == 3
    pd.testing.assert_frame_equal(stable(frame), stable(inline_report))


@pytest.fixture
def ray_cluster() -> Iterator[str]:
    """A small Ray instance owned by this test; its address is what --address joins."""
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def test_ray_engine_joins_an_existing_cluster(corpus, tmp_path, inline_report, ray_cluster):
    out = tmp_path / "cluster.parquet"
    # A separate driver, as a user would run it against a cluster; the files travel as bytes.
    done = subprocess.run(
        [sys.executable, "-m", "core", "batch", str(corpus.root), "-o", str(out), "--engine", "ray",
         "--address", ray_cluster],
        cwd=REPO, capture_output=True, text=True, timeout=540,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    pd.testing.assert_frame_equal(stable(pd.read_parquet(out)), stable(inline_report))
    # The per-file limit travels with the settings and holds inside Ray's workers too.
    limited = subprocess.run(
        [sys.executable, "-m", "core", "batch", str(corpus.big), "-o", str(tmp_path / "limited.csv"),
         "--engine", "ray", "--address", ray_cluster, "--file-timeout", "0.05"],
        cwd=REPO, capture_output=True, text=True, timeout=540,
    )
    assert limited.returncode == 0, limited.stderr[-2000:]
    error = pd.read_csv(tmp_path / "limited.csv")["error"].iloc[0]
    assert error == f"{corpus.big}: timed out after 0.05 s (the per-file limit)"


def test_unreachable_cluster_is_a_clear_error(corpus, tmp_path):
    # Ray's client waits 5 + 10 + 15 s before giving up; these variables shorten its waits.
    env = {**os.environ, "RAY_CLIENT_INITIAL_CONNECTION_TIMEOUT_S": "1", "RAY_CLIENT_MAX_CONNECTION_TIMEOUT_S": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "core", "batch", str(corpus.tiny), "-o", str(tmp_path / "r.csv"), "--engine", "ray",
         "--address", "ray://127.0.0.1:9"],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=env,
    )
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("context-lens: error: cannot connect to the Ray cluster at ray://127.0.0.1:9")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r.csv").exists()
