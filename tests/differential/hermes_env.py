"""One small venv per published Hermes release, built once and reused, for the differential tests.

Hermes' wheel pins dozens of packages that clash with ours, so it never goes into the project's
environment. Each release gets its own venv under a cache outside the repository
(``$CONTEXT_LENS_HERMES_CACHE``, default ``~/.cache/context-lens/hermes``) holding the wheel
(installed without its dependencies) and only the third-party packages the compressor's import
chain loads, at the versions the wheel itself pins. Building is guarded by a lock file (two test
processes may race) and finished by a stamp file (a build that died half-way is redone).
The only network access is the package registry, through pip.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

RELEASES: tuple[str, ...] = ("0.15.1", "0.16.0", "0.17.0", "0.18.0", "0.18.1", "0.19.0")

# What `import agent.context_compressor` (and the modules v0.19.0 loads lazily: the error
# classifier, turn_context, agent_runtime_helpers, conversation_compression) needs beyond the
# standard library, found by importing them in a venv that holds only the wheel. openai is not
# needed: the compressor imports it only inside a try/except ImportError, for isinstance tests
# that the class-name rules already cover for the exceptions these tests raise.
IMPORT_CHAIN: tuple[str, ...] = ("pyyaml", "httpx", "requests")
# Loaded by the smoke test after a build: a venv that cannot import these is not stamped.
SMOKE_IMPORT = "import hermes_time, agent.context_compressor"

STAMP_NAME = ".context-lens-ready"
STAMP_VERSION = 1
PIP_TIMEOUT_S = 600


class HermesEnvError(RuntimeError):
    """A Hermes venv could not be built (registry unreachable, install or import failure)."""


def cache_root() -> Path:
    configured = os.environ.get("CONTEXT_LENS_HERMES_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "context-lens" / "hermes"


def venv_dir(release: str) -> Path:
    return cache_root() / f"venv-{release}"


def venv_python(release: str) -> Path:
    return venv_dir(release) / "bin" / "python"


def hermes_env(release: str) -> Path:
    """The python of ``release``'s venv, built first when it is missing (safe across processes)."""
    if release not in RELEASES:
        raise HermesEnvError(f"no Hermes release {release!r} is known here; expected one of {RELEASES}")
    if _ready(release):  # the common case: no lock needed to read a finished stamp
        return venv_python(release)
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root / f"venv-{release}.lock"):
        if not _ready(release):
            _build(release)
    return venv_python(release)


def _ready(release: str) -> bool:
    stamp = venv_dir(release) / STAMP_NAME
    try:
        data = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return False
    return data.get("version") == STAMP_VERSION and data.get("release") == release and venv_python(release).exists()


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # waits while another process builds the same venv
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pip(*args: str, python: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    if python is not None:
        command += ["--python", str(python)]
    try:
        return subprocess.run(
            [*command, *args], capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise HermesEnvError(f"pip {' '.join(args[:3])} took over {PIP_TIMEOUT_S} s (is the package registry reachable?)") from exc


def _tail(text: str, lines: int = 12) -> str:
    kept = [line for line in text.strip().splitlines() if "is ignored" not in line]  # local-index noise
    return "\n".join(kept[-lines:])


def wheel_path(release: str) -> Path:
    """The release's wheel in the cache, downloaded from the package registry the first time."""
    wheels = cache_root() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    found = sorted(wheels.glob(f"hermes_agent-{release}-*.whl"))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory(dir=wheels) as scratch:
        done = _pip("download", "--no-deps", "--only-binary=:all:", "-d", scratch, f"hermes-agent=={release}")
        downloaded = sorted(Path(scratch).glob(f"hermes_agent-{release}-*.whl"))
        if done.returncode != 0 or not downloaded:
            raise HermesEnvError(
                f"could not download hermes-agent=={release} from the package registry "
                f"(pip exited {done.returncode}); the differential tests need the registry once per release.\n"
                f"{_tail(done.stderr or done.stdout)}"
            )
        target = wheels / downloaded[0].name
        os.replace(downloaded[0], target)  # atomic: a reader never sees half a wheel
    return target


_PIN_RE = re.compile(r"^Requires-Dist:\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*==\s*([^\s;,]+)\s*(;.*)?$")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_pins(wheel: Path) -> dict[str, str]:
    """``name -> version`` of every unconditional ``==`` pin in the wheel's METADATA."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode("utf-8")
    pins: dict[str, str] = {}
    for line in text.splitlines():
        match = _PIN_RE.match(line.strip())
        if match and not (match.group(3) and "extra" in match.group(3)):
            if match.group(3) and "win32" in match.group(3):
                continue
            pins[_normalise(match.group(1))] = match.group(2)
    return pins


def _build(release: str) -> None:
    wheel = wheel_path(release)
    pins = wheel_pins(wheel)
    missing = [name for name in IMPORT_CHAIN if _normalise(name) not in pins]
    if missing:
        raise HermesEnvError(f"hermes-agent {release} pins none of {missing} in its METADATA")
    target = venv_dir(release)
    shutil.rmtree(target, ignore_errors=True)  # a half-built venv from a crashed build
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)],
                          capture_output=True, text=True, check=False)
    python = target / "bin" / "python"
    if made.returncode != 0 or not python.exists():
        raise HermesEnvError(f"could not create a venv for Hermes {release}: {_tail(made.stderr)}")
    with tempfile.TemporaryDirectory() as scratch:
        # Every other pin of the wheel constrains the transitive dependencies (certifi, idna, ...).
        constraints = Path(scratch) / "constraints.txt"
        constraints.write_text("".join(f"{name}=={version}\n" for name, version in sorted(pins.items())))
        steps = (
            ("install", "--no-compile", "--no-deps", str(wheel)),
            ("install", "--no-compile", "-c", str(constraints),
             *(f"{name}=={pins[_normalise(name)]}" for name in IMPORT_CHAIN)),
        )
        for step in steps:
            done = _pip(*step, python=python)
            if done.returncode != 0:
                raise HermesEnvError(
                    f"pip {' '.join(step[:3])} failed for Hermes {release} (is the package registry reachable?):\n"
                    f"{_tail(done.stderr or done.stdout)}"
                )
        smoke = subprocess.run(
            [str(python), "-E", "-s", "-c", SMOKE_IMPORT],
            capture_output=True, text=True, check=False, cwd=scratch,
            env={**_clean_env(), "HERMES_HOME": scratch},
        )
    if smoke.returncode != 0:
        raise HermesEnvError(f"Hermes {release} does not import in its venv:\n{_tail(smoke.stderr)}")
    stamp = {"version": STAMP_VERSION, "release": release, "wheel": wheel.name,
             "packages": {name: pins[_normalise(name)] for name in IMPORT_CHAIN}}
    (target / STAMP_NAME).write_text(json.dumps(stamp, indent=1))


def _clean_env() -> dict[str, str]:
    """The environment without anything that would change how Hermes runs or what it imports."""
    return {
        key: value for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "HERMES_", "VIRTUAL_ENV"))
    }


def runner_env(hermes_home: str) -> dict[str, str]:
    """The environment the runner runs in: clean, with ``HERMES_HOME`` in a temporary directory."""
    return {**_clean_env(), "HERMES_HOME": hermes_home, "PYTHONIOENCODING": "utf-8"}


def main(argv: list[str]) -> int:
    """``python -m tests.differential.hermes_env [RELEASE ...]``: build (or check) the venvs."""
    import time

    for release in argv or RELEASES:
        started = time.monotonic()
        python = hermes_env(release)
        print(f"Hermes {release}: {python} ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
