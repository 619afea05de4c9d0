"""End to end: the published Hermes Agent runs a real session with the ``context-lens`` engine.

For each release checked (the newest and the oldest the plugin supports), a full Hermes venv with
this project installed (``hermes_agent_env``) runs ``hermes chat -q`` against a scripted chat
server on 127.0.0.1 (``fake_llm``): the agent reads files until its context passes the threshold,
Hermes asks the plugin to compact, the plugin calls the summary model (the same local server)
through litellm, and the agent finishes. Then:

* Hermes' own plugin discovery returns our engine, which is a ``ContextEngine`` and survives
  ``copy.deepcopy``;
* the compaction log has the session's compactions, with the settings the file carried;
* every request Hermes sent after a compaction is a valid conversation (each tool call answered)
  that carries the summary;
* our library's ``compress()``, replaying the logged inputs in this process, gives the same
  outputs as the plugin did inside Hermes, from the same summary prompts the server received.

Nothing is mocked on Hermes' side and nothing leaves the machine but the package registry (first
build only). A missing piece fails the test: there is no skip.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from core.compressor import ContextCompressor
from core.config import CompressorConfig
from core.formats import tool_pair_problems
from tests.differential.hermes_env import runner_env
from tests.plugin.fake_llm import FINAL_TEXT, SUMMARY_TEXT, FakeLLM, Script
from tests.plugin.hermes_agent_env import install_project_code

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

# The newest release and the oldest the plugin supports (every release since v0.15.1 has the interface);
# CONTEXT_LENS_PLUGIN_RELEASES=0.16.0,0.17.0,... checks others (each with its own profile).
PROFILE_OF = {"0.15.1": "v0.15.1", "0.16.0": "v0.16.0", "0.17.0": "v0.17.0", "0.18.0": "v0.18.0",
              "0.18.1": "v0.18.1", "0.19.0": "v0.19.0"}
RELEASES = {release: PROFILE_OF[release]
            for release in os.environ.get("CONTEXT_LENS_PLUGIN_RELEASES", "0.19.0,0.15.1").split(",")}
SESSION_TIMEOUT_S = 240
CONTEXT_LENGTH = 80_000
FILES = 7
PROMPT = "Read every notes file in this folder, one by one, then report what they say."

@pytest.fixture(scope="module", params=sorted(RELEASES))
def hermes(request: pytest.FixtureRequest) -> tuple[str, Path]:
    """The release and its venv's python: built once into the cache (a failure to build fails the
    test), then this checkout's code installed into it, not the code the venv was built with."""
    release = request.param
    return release, install_project_code(release)


def _write_notes(folder: Path) -> list[str]:
    paths = []
    for number in range(1, FILES + 1):
        lines = [f"notes{number} line {n}: service app{number}/mod{n}.py returns value_{number}_{n * 7} "
                 f"after {n % 13} retries; config in /srv/app{number}/mod{n}.yaml" for n in range(400)]
        path = folder / f"notes{number}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def _configure(home: Path, base_url: str, profile: str) -> dict[str, Any]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        "model:\n"
        "  default: fake-model\n"
        "  provider: custom\n"
        f"  base_url: {base_url}\n"
        "  api_key: sk-local-test\n"
        f"  context_length: {CONTEXT_LENGTH}\n"
        "plugins:\n"
        "  enabled: [context-lens]\n"
        "context:\n"
        "  engine: context-lens\n"
    )
    settings = {"version": 1, "profile": profile, "threshold_percent": 0.8, "protect_last_n": 6,
                "summarizer": "hermes-model", "summary_timeout": 60, "record_message_text": True}
    (home / "context-lens").mkdir(exist_ok=True)
    (home / "context-lens" / "settings.json").write_text(json.dumps(settings))
    return settings


DISCOVER = """
import copy, json
from hermes_cli.plugins import discover_plugins, get_plugin_context_engine, get_plugin_manager
from agent.context_engine import ContextEngine
discover_plugins()
engine = get_plugin_context_engine()
clone = copy.deepcopy(engine)
clone.update_model("fake-model", 200000, base_url="http://127.0.0.1:9/v1", api_key="k", provider="custom")
plugins = get_plugin_manager().list_plugins()
print(json.dumps({
    "type": f"{type(engine).__module__}.{type(engine).__qualname__}" if engine is not None else None,
    "name": getattr(engine, "name", None),
    "is_engine": isinstance(engine, ContextEngine), "clone_is_engine": isinstance(clone, ContextEngine),
    "clone_distinct": clone is not engine and clone._lock is not engine._lock
                      and clone.compressor is not engine.compressor,
    "clone_threshold": clone.threshold_tokens, "original_window": engine.context_length,
    "status": clone.get_status(),
    "plugins": [{k: p.get(k) for k in ("name", "enabled", "source")} for p in plugins
                if "context" in str(p.get("name"))],
}))
"""


def test_hermes_discovers_the_engine_and_it_survives_deepcopy(hermes: tuple[str, Path], tmp_path: Path) -> None:
    release, python = hermes
    _configure(tmp_path / "home", "http://127.0.0.1:9/v1", RELEASES[release])
    done = subprocess.run([str(python), "-c", DISCOVER], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env=runner_env(str(tmp_path / "home")), check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["type"] == "core.hermes_plugin.engine.ContextLensEngine", found
    assert found["name"] == "context-lens"
    assert found["is_engine"] and found["clone_is_engine"] and found["clone_distinct"], found
    assert found["clone_threshold"] == 160_000  # 0.8 of the copy's new 200K window: the copy is a working engine
    assert found["original_window"] == CONTEXT_LENGTH  # the original keeps config.yaml's window
    assert found["status"]["engine"] == "context-lens" and found["status"]["profile"] == RELEASES[release]


def _run_session(python: Path, home: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    hermes = python.parent / "hermes"
    assert hermes.exists(), f"{hermes} is missing: the hermes-agent wheel installs this console script"
    return subprocess.run(
        [str(hermes), "chat", "-q", PROMPT, "-Q", "--yolo"], cwd=workdir, env=runner_env(str(home)),
        capture_output=True, text=True, timeout=SESSION_TIMEOUT_S, stdin=subprocess.DEVNULL, check=False,
    )


def _lineage(store: Path, session_id: str) -> list[str]:
    """The session and its ancestors in Hermes' session store (compaction splits chain parent to child)."""
    import sqlite3

    chain = [session_id]
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        while len(chain) < 50:
            row = db.execute("SELECT parent_session_id FROM sessions WHERE id = ?", (chain[-1],)).fetchone()
            if not row or not row[0]:
                break
            chain.append(row[0])
    return chain


def _replay(records: list[dict[str, Any]]) -> tuple[list[list[Any]], list[str]]:
    """Our library, in this process, on the inputs the plugin logged: outputs and summary prompts."""
    first = records[0]
    settings = first["settings"]
    prompts: list[str] = []

    def summarizer(prompt: str, max_tokens: int | None) -> str:
        prompts.append(prompt)
        return SUMMARY_TEXT

    config = CompressorConfig(
        context_length=settings["context_length"], threshold_percent=settings["threshold_percent"],
        protect_first_n=settings["protect_first_n"], protect_last_n=settings["protect_last_n"],
        summary_target_ratio=settings["summary_target_ratio"],
        abort_on_summary_failure=settings["abort_on_summary_failure"], max_tokens=settings["max_tokens"],
        token_estimator=settings["token_estimator"], strict_redaction=settings["strict_redaction"],
        model=settings["model"], profile=first["profile"],
    )
    compressor = ContextCompressor(config, summarizer)
    outputs = []
    for record in records:
        call = record["call"]
        assert call["compression_count_before"] == compressor.compression_count
        result = compressor.compress(record["raw"]["input"], call["current_tokens"], call["focus_topic"], call["force"])
        outputs.append(json.loads(json.dumps(result.messages)))
    return outputs, prompts


def test_a_real_hermes_session_compacts_through_the_plugin(hermes: tuple[str, Path], tmp_path: Path) -> None:
    release, python = hermes
    profile = RELEASES[release]
    workdir = tmp_path / "work"
    workdir.mkdir()
    files = _write_notes(workdir)
    fake = FakeLLM(Script(files=files)).start()
    try:
        home = tmp_path / "home"
        settings = _configure(home, fake.base_url, profile)
        started = time.monotonic()
        done = _run_session(python, home, workdir)
        elapsed = time.monotonic() - started
    finally:
        fake.stop()
    assert done.returncode == 0, f"hermes exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert FINAL_TEXT in done.stdout, done.stdout[-2000:]
    assert elapsed < SESSION_TIMEOUT_S
    session = re.search(r"session_id:\s*(\S+)", done.stdout + done.stderr)
    assert session, done.stdout[-2000:]

    # The log: the session's compactions, made with the settings the file carried.
    log = home / "context-lens" / "compactions.jsonl"
    assert log.is_file(), f"no compaction log; requests: {[r.kind for r in fake.requests]}\n{done.stderr[-3000:]}"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    lineage = _lineage(home / "state.db", session.group(1))
    # v0.19.0 compacts in place (one id); earlier releases rotate to a child session at each compaction.
    assert records and all(r["session_id"] in lineage for r in records), ([r["session_id"] for r in records], lineage)
    assert all(r["outcome"] == "summarized" and not r["aborted"] for r in records), [r["outcome"] for r in records]
    first = records[0]
    assert first["profile"] == profile and first["hermes_release"] == release
    assert first["settings"]["threshold_percent"] == settings["threshold_percent"]
    assert first["settings"]["protect_last_n"] == settings["protect_last_n"]
    assert first["settings"]["context_length"] == CONTEXT_LENGTH  # the window Hermes reported
    assert first["settings"]["summary_route"]["api_base"] == fake.base_url
    assert "sk-local-test" not in log.read_text()  # the key never reaches the log
    assert first["tokens"]["after"] < first["tokens"]["before"]
    fates = {entry["fate"] for entry in first["messages"]}
    assert "summarised" in fates and "kept" in fates
    assert first["facts"]["total"] > 0 and first["facts"]["lost"] > 0  # notes only one summarised file held
    assert first["summary"]["text"] and SUMMARY_TEXT.splitlines()[0] in first["summary"]["text"]

    # Hermes asked the summary model once per compaction, and continued with what the plugin returned.
    summaries = fake.of_kind("summary")
    assert len(summaries) == len(records)
    agent_after = [r for r in fake.requests[fake.requests.index(summaries[0]) + 1:] if r.kind == "agent"]
    assert agent_after, "the agent made no request after the compaction"
    for request in fake.of_kind("agent"):
        assert tool_pair_problems(request.body["messages"]) == [], tool_pair_problems(request.body["messages"])
    continued = agent_after[0].body["messages"]
    assert any(SUMMARY_TEXT.splitlines()[0] in str(m.get("content")) for m in continued)
    conversation = [m for m in continued if m.get("role") != "system"]
    plugin_output = records[0]["raw"]["output"]
    assert [m.get("role") for m in conversation[:len(plugin_output)]] == [m.get("role") for m in plugin_output]

    # Our library on the same inputs: the same outputs, from the same summary prompts.
    outputs, prompts = _replay(records)
    for index, (ours, record) in enumerate(zip(outputs, records, strict=True)):
        assert ours == record["raw"]["output"], f"compaction {index}: library and plugin outputs differ"
    sent = [request.body["messages"][-1]["content"] for request in summaries]
    assert prompts == sent


def test_the_plugin_imports_without_streamlit_or_pandas() -> None:
    """Inside Hermes only the compressor's own dependencies load (checked in this interpreter)."""
    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('streamlit', 'pandas', 'plotly', 'pyarrow'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import core.hermes_plugin, core.hermes_plugin.engine, core.hermes_plugin.events, core.hermes_plugin.settings\n"
        "from core.hermes_plugin.engine import ContextLensEngine\n"
        "from core.hermes_plugin.settings import PluginSettings\n"
        "import tempfile\n"
        "engine = ContextLensEngine(PluginSettings(summarizer='extractive'), hermes_home=tempfile.mkdtemp())\n"
        "engine.update_model('m', 64000)\n"
        "messages = [{'role': 'user', 'content': f'step {i} ' + 'x' * 4000} for i in range(40)]\n"
        "out = engine.compress(messages, force=True)\n"
        "assert len(out) < len(messages), len(out)\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'pandas')]\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, cwd=root, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
