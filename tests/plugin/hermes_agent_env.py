"""A full Hermes Agent venv per release, with this project installed as its context-engine plugin.

Unlike the differential venvs (``tests/differential/hermes_env.py``: the compressor's import chain
only), these hold everything ``pip install hermes-agent==X`` brings, so the real agent runs. They
share that module's cache (``$CONTEXT_LENS_HERMES_CACHE``, default ``~/.cache/context-lens/hermes``),
its wheel downloads and its locking: ``agent-venv-<release>`` is built once under a lock file and
finished by a stamp, which also records this project's dependency list, so a change there rebuilds.

This project is installed the way the README tells a Hermes user to: with Hermes' own ``==`` pins
as constraints, so nothing Hermes pinned is moved; ``pip check`` must pass afterwards. Each test
session then reinstalls only this project's code (``--no-deps``), which takes seconds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.differential.hermes_env import (
    HermesEnvError,
    _clean_env,
    _locked,
    _normalise,
    _pip,
    _tail,
    cache_root,
    wheel_path,
    wheel_pins,
)

PROJECT = Path(__file__).resolve().parents[2]
STAMP_NAME = ".context-lens-agent-ready"
STAMP_VERSION = 1
SMOKE = "import run_agent, hermes_cli.plugins, agent.context_engine, core.hermes_plugin.engine"


def agent_venv(release: str) -> Path:
    return cache_root() / f"agent-venv-{release}"


def agent_python(release: str) -> Path:
    return agent_venv(release) / "bin" / "python"


def _dependencies_digest() -> str:
    """What this project asks pip for: a change means the venv's third-party packages may be stale."""
    import tomllib

    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    return hashlib.sha256(json.dumps(project.get("dependencies", []), sort_keys=True).encode()).hexdigest()[:16]


def _ready(release: str) -> bool:
    try:
        stamp = json.loads((agent_venv(release) / STAMP_NAME).read_text())
    except (OSError, ValueError):
        return False
    return (stamp.get("version") == STAMP_VERSION and stamp.get("release") == release
            and stamp.get("dependencies") == _dependencies_digest() and agent_python(release).exists())


def hermes_agent_env(release: str) -> Path:
    """The python of ``release``'s full agent venv, built first when missing (safe across processes)."""
    if not _ready(release):
        root = cache_root()
        root.mkdir(parents=True, exist_ok=True)
        with _locked(root / f"agent-venv-{release}.lock"):
            if not _ready(release):
                _build(release)
    return agent_python(release)


def pins_file(python: Path, release: str, folder: Path) -> Path:
    """Hermes' own ``==`` pins as a pip constraints file, written by the script the README gives users."""
    done = subprocess.run([str(python), str(PROJECT / "scripts" / "hermes_pins.py")],
                          capture_output=True, text=True, check=False, env=_clean_env())
    if done.returncode != 0 or "==" not in done.stdout:
        raise HermesEnvError(f"scripts/hermes_pins.py found no pins in hermes-agent {release}: {_tail(done.stderr)}")
    expected = {f"{name}=={version}" for name, version in wheel_pins(wheel_path(release)).items()}
    written = {_normalise(line.split("==")[0]) + "==" + line.split("==")[1].strip()
               for line in done.stdout.splitlines() if "==" in line}
    if not expected <= written:
        raise HermesEnvError(f"scripts/hermes_pins.py missed pins of hermes-agent {release}: {sorted(expected - written)}")
    target = folder / f"hermes-{release}-pins.txt"
    target.write_text(done.stdout)
    return target


def _run_pip(python: Path, *args: str, what: str) -> str:
    done = _pip(*args, python=python)
    if done.returncode != 0:
        raise HermesEnvError(f"{what} failed (is the package registry reachable?):\n{_tail(done.stderr or done.stdout, 25)}")
    return done.stdout


def _build(release: str) -> None:
    wheel = wheel_path(release)
    target = agent_venv(release)
    shutil.rmtree(target, ignore_errors=True)  # whatever a crashed build left
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)],
                          capture_output=True, text=True, check=False)
    python = agent_python(release)
    if made.returncode != 0 or not python.exists():
        raise HermesEnvError(f"could not create a venv for Hermes {release}: {_tail(made.stderr)}")
    with tempfile.TemporaryDirectory() as scratch:
        _run_pip(python, "install", "--no-compile", str(wheel), what=f"installing hermes-agent {release}")
        pins = pins_file(python, release, Path(scratch))
        _run_pip(python, "install", "--no-compile", "-c", str(pins), str(PROJECT),
                 what=f"installing Context Lens beside hermes-agent {release} (its pins as constraints)")
        _run_pip(python, "check", what=f"pip check after installing Context Lens into hermes-agent {release}")
        smoke = subprocess.run([str(python), "-c", SMOKE], capture_output=True, text=True, check=False,
                               cwd=scratch, env={**_clean_env(), "HERMES_HOME": scratch})
    if smoke.returncode != 0:
        raise HermesEnvError(f"Hermes {release} with the plugin does not import:\n{_tail(smoke.stderr)}")
    stamp = {"version": STAMP_VERSION, "release": release, "wheel": wheel.name, "dependencies": _dependencies_digest()}
    (target / STAMP_NAME).write_text(json.dumps(stamp, indent=1))


def install_project_code(release: str) -> Path:
    """Put this checkout's code into the release's venv (its dependencies are already there) and
    return its python; under the build lock, so two test runs never reinstall at once."""
    python = hermes_agent_env(release)
    with _locked(cache_root() / f"agent-venv-{release}.lock"):
        _run_pip(python, "install", "--no-compile", "--no-deps", "--force-reinstall", str(PROJECT),
                 what="reinstalling Context Lens' code")
    return python


def main(argv: list[str]) -> int:
    """``python -m tests.plugin.hermes_agent_env [RELEASE ...]``: build (or check) the agent venvs."""
    import time

    for release in argv or ("0.19.0",):
        started = time.monotonic()
        python = hermes_agent_env(release)
        print(f"Hermes agent {release}: {python} ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
