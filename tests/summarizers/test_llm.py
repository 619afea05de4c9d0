# Over 600 lines: the LLM summarizer against one local server, one test per fault and option.
"""LiteLLMSummarizer: the request it sends, the exceptions it lets through, and how the
compressor reacts to them (summary, fallback with cooldowns, abort, one-time switch to main).

Calls go through litellm for real: with litellm's own ``mock_response=`` (text, a response
object or an exception instance) or to a small OpenAI-compatible HTTP server on 127.0.0.1
that records what arrives on the wire.
"""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from core import CompressorConfig, ContextCompressor
from core.summarizers.llm import NO_PROVIDER_MESSAGE, LiteLLMSummarizer, import_litellm

# Asserts on wall time: run alone (`make test` runs these after the others), not beside other tests.
pytestmark = pytest.mark.serial

litellm = import_litellm()

# -- the spec's failure classification (hermes-compressor.md 6.3), restated for the assertions --

_CONNECTION_TEXTS = (
    "connection refused",
    "name or service not known",
    "no route to host",
    "network is unreachable",
    "timed out",
    "connection reset",
    "incomplete chunked read",
    "peer closed connection",
    "response ended prematurely",
    "unexpected eof",
    "remoteprotocolerror",
    "localprotocolerror",
)


def failure_bucket(exc: BaseException) -> str:
    if isinstance(exc, RuntimeError):
        return "no_provider"  # 600 s
    if isinstance(exc, json.JSONDecodeError) or "expecting value" in str(exc).lower():
        return "json_decode"  # 30 s
    if any(marker in type(exc).__name__ for marker in ("Connection", "Timeout", "DNS", "SSL")):
        return "stream_closed"  # 30 s
    if any(marker in str(exc).lower() for marker in _CONNECTION_TEXTS):
        return "stream_closed"
    return "generic"  # 60 s


COOLDOWN_FOR_BUCKET = {"no_provider": 600, "json_decode": 30, "stream_closed": 30, "generic": 60}


# -- a recording OpenAI-compatible server on 127.0.0.1 --------------------------------------


class RecordingServer:
    """Answers /v1/chat/completions according to the requested model name."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server hook name
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                recorder.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                model = body.get("model", "")
                if model.startswith("missing"):
                    error = {"message": f"The model `{model}` does not exist", "code": "model_not_found"}
                    self._reply(404, json.dumps({"error": error}).encode())
                elif model == "slow":
                    time.sleep(2.0)
                    self._reply(200, b"{}")
                elif model == "hangup":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif model == "empty-body":
                    self._reply(200, b"")
                else:
                    reply = {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 1,
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": f"## Active Task\nsummary by {model}"},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    }
                    self._reply(200, json.dumps(reply).encode())

            def _reply(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, prefix: str = "") -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{prefix}/v1"

    def models_called(self) -> list[str]:
        return [request["body"].get("model") for request in self.requests]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    recording = RecordingServer()
    yield recording
    recording.close()


@pytest.fixture
def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens here any more


# -- success and the request itself ---------------------------------------------------------


def test_plain_text_success_and_call_record():
    summarizer = LiteLLMSummarizer("gpt-4o-mini", api_key="sk-never-shown-1234", mock_response="## Active Task\nfix it")
    assert summarizer("the prompt", 250) == "## Active Task\nfix it"
    call = summarizer.last_call
    assert call["model"] == "gpt-4o-mini"
    assert call["max_tokens"] == 250
    assert call["prompt_chars"] == len("the prompt")
    assert call["error"] is None
    assert call["latency_s"] >= 0
    assert set(call["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert call["response_cost"] is not None  # litellm prices gpt-4o-mini from its table
    assert "sk-never-shown-1234" not in repr(call)
    assert "sk-never-shown-1234" not in repr(summarizer)


def test_request_kwargs_are_exact():
    summarizer = LiteLLMSummarizer(
        "openai/main", api_base="http://127.0.0.1:1/v1", api_key="k", timeout=33, extra_body={"top_k": 2}
    )
    assert summarizer.request_kwargs("P", 1300) == {
        "model": "openai/main",
        "messages": [{"role": "user", "content": "P"}],
        "max_tokens": 1300,
        "timeout": 33.0,
        "api_base": "http://127.0.0.1:1/v1",
        "api_key": "k",
        "extra_body": {"top_k": 2},
        "max_retries": 0,  # the summarizer makes the retries, within its deadline
    }
    bare = LiteLLMSummarizer("gpt-4o").request_kwargs("P", 10)
    assert bare == {"model": "gpt-4o", "messages": [{"role": "user", "content": "P"}], "max_tokens": 10,
                    "timeout": 120.0, "max_retries": 0}


def _recording_completion(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every keyword set ``litellm.completion`` receives (the real function still answers)."""
    seen: list[dict[str, Any]] = []
    real = litellm.completion

    def completion(**kwargs: Any) -> Any:
        seen.append(dict(kwargs))
        return real(**kwargs)

    monkeypatch.setattr(litellm, "completion", completion)
    return seen


def test_max_tokens_cap_bounds_the_request_and_is_recorded(monkeypatch):
    seen = _recording_completion(monkeypatch)
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response="## Active Task\nshort", max_tokens_cap=512)
    assert summarizer("the prompt", 2_613) == "## Active Task\nshort"
    assert seen[-1]["max_tokens"] == 512
    assert summarizer.last_call["max_tokens"] == 2_613
    assert summarizer.last_call["max_tokens_cap"] == 512
    assert summarizer.last_call["max_tokens_sent"] == 512
    # Below the cap the compressor's own figure goes out unchanged.
    summarizer("the prompt", 300)
    assert seen[-1]["max_tokens"] == 300
    assert (summarizer.last_call["max_tokens"], summarizer.last_call["max_tokens_sent"]) == (300, 300)


def test_no_cap_by_default_keeps_max_tokens_untouched(monkeypatch):
    seen = _recording_completion(monkeypatch)
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response="ok")
    summarizer("the prompt", 2_613)
    assert seen[-1]["max_tokens"] == 2_613
    assert summarizer.last_call["max_tokens_cap"] is None
    assert summarizer.last_call["max_tokens_sent"] == 2_613


@pytest.mark.parametrize("profile", ["v0.18.1", "v0.19.0"])
def test_capped_call_inside_a_compression(monkeypatch, profile):
    seen = _recording_completion(monkeypatch)
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response="## Active Task\nFinish parser.py", max_tokens_cap=64)
    result = _compressor(summarizer, profile=profile).compress(_transcript())
    assert result.outcome == "summarized"
    call = result.summarizer_call
    if profile == "v0.19.0":
        assert call.max_tokens is None  # the release sends no output cap: only ours goes out
    else:
        assert call.max_tokens > 64  # the compressor's budget is at least 2,000 tokens x 1.3
    assert call.max_tokens == summarizer.last_call["max_tokens"]
    assert seen[-1]["max_tokens"] == 64 == summarizer.last_call["max_tokens_sent"]


def test_no_cap_and_no_output_cap_sends_none(monkeypatch):
    seen = _recording_completion(monkeypatch)
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response="ok")
    summarizer("the prompt", None)
    assert "max_tokens" not in seen[-1] and summarizer.last_call["max_tokens_sent"] is None


@pytest.mark.parametrize("cap", [0, -1, 2.5, True, "512"])
def test_bad_cap_is_rejected(cap):
    with pytest.raises(ValueError, match="max_tokens_cap"):
        LiteLLMSummarizer("gpt-4o-mini", max_tokens_cap=cap)


def test_what_arrives_on_the_wire(server):
    summarizer = LiteLLMSummarizer(
        "openai/main-model", api_base=server.url(), api_key="sk-wire-key", extra_body={"top_k": 3, "min_p": 0.1}
    )
    text = summarizer("Summarize these turns.", 777)
    assert text == "## Active Task\nsummary by main-model"
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"] == {
        "model": "main-model",
        "messages": [{"role": "user", "content": "Summarize these turns."}],
        "max_tokens": 777,
        "top_k": 3,
        "min_p": 0.1,
    }
    assert "temperature" not in request["body"]
    headers = {key.lower(): value for key, value in request["headers"].items()}
    assert headers["authorization"] == "Bearer sk-wire-key"
    assert summarizer.last_call["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def test_summary_model_then_permanent_fallback_to_main(server):
    summarizer = LiteLLMSummarizer(
        "openai/main-model",
        summary_model="openai/aux-model",
        api_base=server.url("/main"),
        api_key="main-key",
        summary_api_base=server.url("/aux"),
        summary_api_key="aux-key",
    )
    assert summarizer.summary_model == "openai/aux-model"
    assert summarizer.can_fall_back_to_main()
    assert summarizer("p", 100) == "## Active Task\nsummary by aux-model"
    assert summarizer.last_call["model"] == "openai/aux-model"
    assert summarizer.last_call["used_summary_model"] is True

    summarizer.fall_back_to_main()
    assert summarizer.summary_model == ""
    assert not summarizer.can_fall_back_to_main()
    assert summarizer("p", 100) == "## Active Task\nsummary by main-model"
    assert summarizer("p", 100) == "## Active Task\nsummary by main-model"  # stays on main
    paths = [r["path"] for r in server.requests]
    auth = [{k.lower(): v for k, v in r["headers"].items()}["authorization"] for r in server.requests]
    assert server.models_called() == ["aux-model", "main-model", "main-model"]
    assert paths == ["/aux/v1/chat/completions", "/main/v1/chat/completions", "/main/v1/chat/completions"]
    assert auth == ["Bearer aux-key", "Bearer main-key", "Bearer main-key"]


def test_summary_model_inherits_the_main_endpoint_unless_told_otherwise(server):
    inherit = LiteLLMSummarizer("openai/m", summary_model="openai/s", api_base=server.url(), api_key="k")
    assert inherit.request_kwargs("p", 5)["api_base"] == server.url()
    separate = LiteLLMSummarizer(
        "openai/m", summary_model="gpt-4o-mini", api_base=server.url(), api_key="k", summary_api_base="", summary_api_key=""
    )
    kwargs = separate.request_kwargs("p", 5)
    assert "api_base" not in kwargs and "api_key" not in kwargs


@pytest.mark.parametrize(
    ("model", "summary_model", "expected"),
    [("gpt-4o", None, False), ("gpt-4o", "", False), ("gpt-4o", "gpt-4o", False), ("gpt-4o", "gpt-4o-mini", True)],
)
def test_can_fall_back_only_with_a_different_summary_model(model, summary_model, expected):
    assert LiteLLMSummarizer(model, summary_model=summary_model).can_fall_back_to_main() is expected


@pytest.mark.parametrize("model", ["", None, "   "])
def test_no_model_is_no_provider(model):
    summarizer = LiteLLMSummarizer(model)
    with pytest.raises(RuntimeError, match=NO_PROVIDER_MESSAGE):
        summarizer("p", 10)
    assert failure_bucket(RuntimeError(NO_PROVIDER_MESSAGE)) == "no_provider"


def test_summary_model_alone_works_until_the_fallback_leaves_no_model():
    summarizer = LiteLLMSummarizer("", summary_model="gpt-4o-mini", mock_response="ok")
    assert summarizer("p", 10) == "ok"
    assert not summarizer.can_fall_back_to_main()  # there is no main model to fall back to
    summarizer.fall_back_to_main()
    with pytest.raises(RuntimeError, match=NO_PROVIDER_MESSAGE):
        summarizer("p", 10)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"model": 5}, TypeError),
        ({"model": "m", "timeout": 0}, ValueError),
        ({"model": "m", "timeout": "fast"}, ValueError),
        ({"model": "m", "extra_body": [1]}, TypeError),
        ({"model": "m", "summary_model": 3}, TypeError),
        ({"model": "m", "max_retries": -1}, ValueError),
    ],
)
def test_bad_construction_is_rejected_clearly(kwargs, error):
    with pytest.raises(error):
        LiteLLMSummarizer(**kwargs)


@pytest.mark.parametrize(("prompt", "max_tokens"), [("p", 0), ("p", -5), ("p", 2.5), ("p", True), (None, 10)])
def test_bad_call_arguments_are_rejected_clearly(prompt, max_tokens):
    with pytest.raises((TypeError, ValueError)):
        LiteLLMSummarizer("gpt-4o-mini", mock_response="x")(prompt, max_tokens)


# -- failures: litellm's own exception instances through mock_response ------------------------


def _mock_failures() -> list[tuple[str, Any, str, str]]:
    model = "gpt-4o-mini"
    return [
        ("rate limit", litellm.RateLimitError(message="Rate limit reached", llm_provider="openai", model=model),
         "RateLimitError", "generic"),
        ("timeout", litellm.Timeout(message="Request timed out", model=model, llm_provider="openai"),
         "Timeout", "stream_closed"),
        ("connection", litellm.APIConnectionError(message="Connection refused", llm_provider="openai", model=model),
         "APIConnectionError", "stream_closed"),
        ("not found 404", litellm.NotFoundError(message="model_not_found", model=model, llm_provider="openai"),
         "NotFoundError", "generic"),
        ("server 500", litellm.InternalServerError(message="boom", llm_provider="openai", model=model),
         "InternalServerError", "generic"),
        ("server 503", litellm.ServiceUnavailableError(message="overloaded", llm_provider="openai", model=model),
         "ServiceUnavailableError", "generic"),
        ("bad gateway 502", litellm.BadGatewayError(message="bad gateway", llm_provider="openai", model=model),
         "BadGatewayError", "generic"),
    ]


@pytest.mark.parametrize(
    ("label", "instance", "class_name", "bucket"), _mock_failures(), ids=[f[0] for f in _mock_failures()]
)
def test_litellm_exceptions_reach_the_caller_unwrapped(label, instance, class_name, bucket):
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response=instance)
    with pytest.raises(Exception) as info:
        summarizer("p", 10)
    raised = info.value
    assert type(raised).__name__ == class_name
    assert not isinstance(raised, RuntimeError)  # would be mistaken for "no provider"
    assert failure_bucket(raised) == bucket
    assert summarizer.last_call["error"].startswith(class_name)


def test_status_codes_survive(server):
    with pytest.raises(litellm.NotFoundError) as info:
        LiteLLMSummarizer("openai/missing-model", api_base=server.url(), api_key="k")("p", 10)
    assert info.value.status_code == 404
    assert "does not exist" in str(info.value)
    assert failure_bucket(info.value) == "generic"


# -- failures on a real socket --------------------------------------------------------------


def test_refused_connection_is_a_connection_error(closed_port_url):
    summarizer = LiteLLMSummarizer("openai/m", api_base=closed_port_url, api_key="k", max_retries=0)
    with pytest.raises(litellm.APIConnectionError) as info:
        summarizer("p", 10)
    assert "connection refused" in str(info.value).lower()
    assert failure_bucket(info.value) == "stream_closed"


def test_server_hanging_up_is_a_connection_error(server):
    with pytest.raises(litellm.APIConnectionError) as info:
        LiteLLMSummarizer("openai/hangup", api_base=server.url(), api_key="k", max_retries=0)("p", 10)
    assert failure_bucket(info.value) == "stream_closed"


def test_timeout_is_passed_to_the_call(server):
    summarizer = LiteLLMSummarizer("openai/slow", api_base=server.url(), api_key="k", timeout=0.3, max_retries=0)
    started = time.monotonic()
    with pytest.raises(litellm.Timeout) as info:
        summarizer("p", 10)
    assert time.monotonic() - started < 1.9  # gave up before the 2 s reply
    assert failure_bucket(info.value) == "stream_closed"


def test_empty_response_body_is_a_json_decode_failure(server):
    with pytest.raises(Exception) as info:
        LiteLLMSummarizer("openai/empty-body", api_base=server.url(), api_key="k", max_retries=0)("p", 10)
    assert failure_bucket(info.value) == "json_decode"


# -- empty and garbage outputs ------------------------------------------------------------------


def _response_with_content(content: Any) -> Any:
    response = litellm.ModelResponse()
    response.choices[0].message.content = content
    return response


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", ""),
        ("   \n\t ", "   \n\t "),  # returned as given: stripping is the compressor's job
        ("\x00\ufffd{{ not json ]]", "\x00\ufffd{{ not json ]]"),
        ("[CONTEXT SUMMARY]: echoed prefix", "[CONTEXT SUMMARY]: echoed prefix"),
    ],
)
def test_text_outputs_are_returned_unchanged(content, expected):
    assert LiteLLMSummarizer("gpt-4o-mini", mock_response=content)("p", 10) == expected


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic notices the non-string content
@pytest.mark.parametrize(
    ("content", "expected"),
    [(None, ""), (0, ""), ([], ""), ([{"type": "text", "text": "hi"}], "[{'type': 'text', 'text': 'hi'}]"), (42, "42")],
)
def test_non_string_content_is_coerced_like_the_reference(content, expected):
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response=_response_with_content(content))
    assert summarizer("p", 10) == expected


def test_importing_the_summarizer_modules_does_not_import_litellm():
    code = (
        "import sys; import core.summarizers.llm, core.summarizers.local, core.models, "
        "core.hermes_config, core.inspections.cost; print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- with the compressor ------------------------------------------------------------------------

def _transcript(turns: int = 60) -> list[dict[str, Any]]:
    """A plain chat long enough that a 64K-context compressor has a middle to summarise."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append({"role": role, "content": f"turn {i}: " + " ".join(f"word{i}_{j}" for j in range(300))})
    messages.append({"role": "user", "content": "Please continue with the refactor."})
    return messages


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _compressor(summarizer: Any, clock: Clock | None = None, **config: Any) -> Any:
    cfg = CompressorConfig(context_length=64_000, **config)
    return ContextCompressor(cfg, summarizer=summarizer, clock=clock or Clock())


def test_compressor_summary_path():
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response="## Active Task\nFinish the refactor of parser.py")
    compressor = _compressor(summarizer)
    messages = _transcript()
    result = compressor.compress(messages)
    assert result.outcome == "summarized"
    assert len(result.messages) < len(messages)
    assert any("Finish the refactor of parser.py" in str(m.get("content")) for m in result.messages)
    call = result.summarizer_call
    assert summarizer.last_call["max_tokens"] == call.max_tokens
    assert summarizer.last_call["prompt_chars"] == len(call.prompt)
    # v0.19.0 keeps the answer under a task line grounded in the last real user turn of the window.
    assert compressor.previous_summary.endswith("\n\n## Active Task\nFinish the refactor of parser.py")
    assert compressor.previous_summary.startswith("## Historical Task Snapshot\nUser asked (deterministic")
    assert compressor.compression_count == 1


@pytest.mark.parametrize(
    ("summarizer_factory", "bucket"),
    [
        (lambda: LiteLLMSummarizer(""), "no_provider"),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.APIConnectionError(
            message="Connection refused", llm_provider="openai", model="gpt-4o-mini")), "stream_closed"),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.Timeout(
            message="Request timed out", model="gpt-4o-mini", llm_provider="openai")), "stream_closed"),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.RateLimitError(
            message="slow down", llm_provider="openai", model="gpt-4o-mini")), "generic"),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.ServiceUnavailableError(
            message="overloaded", llm_provider="openai", model="gpt-4o-mini")), "generic"),
    ],
    ids=["no provider", "connection", "timeout", "rate limit", "503"],
)
def test_compressor_fallback_path_and_cooldown(summarizer_factory, bucket):
    clock = Clock(1000.0)
    summarizer = summarizer_factory()
    compressor = _compressor(summarizer, clock, profile="v0.16.0")  # v0.18.0 aborts on network errors
    messages = _transcript()
    cooldown = COOLDOWN_FOR_BUCKET[bucket]

    first = compressor.compress(messages)
    assert first.outcome == "fallback"
    assert len(first.summarizer_calls) == 1
    if bucket == "no_provider":
        assert first.failure_reason == "no auxiliary LLM provider configured"
    else:
        assert first.failure_reason and first.failure_reason in summarizer.last_call["error"]

    clock.now = 1000.0 + cooldown - 0.5  # still cooling down: no call at all
    during = compressor.compress(messages)
    assert during.summarizer_calls == []
    assert during.cooldown_skipped
    assert during.outcome == "fallback"

    clock.now = 1000.0 + cooldown + 0.5  # cooldown over: the summarizer is asked again
    after = compressor.compress(messages)
    assert len(after.summarizer_calls) == 1


def test_compressor_force_clears_the_cooldown():
    clock = Clock()
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.RateLimitError(
        message="slow down", llm_provider="openai", model="gpt-4o-mini"))
    compressor = _compressor(summarizer, clock)
    compressor.compress(_transcript())
    assert compressor.compress(_transcript()).summarizer_calls == []
    assert len(compressor.compress(_transcript(), force=True).summarizer_calls) == 1


def test_compressor_abort_mode_preserves_every_message():
    summarizer = LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.InternalServerError(
        message="boom", llm_provider="openai", model="gpt-4o-mini"))
    compressor = _compressor(summarizer, abort_on_summary_failure=True)
    messages = _transcript()
    original = copy.deepcopy(messages)
    result = compressor.compress(messages)
    assert result.outcome == "aborted"
    assert result.messages == original
    assert messages == original
    assert compressor.compression_count == 0
    assert "boom" in result.failure_reason


def test_compressor_falls_back_to_the_main_model_once(server):
    summarizer = LiteLLMSummarizer(
        "openai/main-model", summary_model="openai/missing-aux", api_base=server.url(), api_key="k"
    )
    compressor = _compressor(summarizer)
    messages = _transcript()

    first = compressor.compress(messages)
    assert first.outcome == "summarized"
    assert server.models_called() == ["missing-aux", "main-model"]
    assert [call.model for call in first.summarizer_calls] == ["openai/missing-aux", None]
    assert first.aux_model_failure_model == "openai/missing-aux"
    assert "does not exist" in first.aux_model_failure
    assert any("summary by main-model" in str(m.get("content")) for m in first.messages)

    second = compressor.compress(messages)
    assert second.outcome == "summarized"
    assert server.models_called() == ["missing-aux", "main-model", "main-model"]
    assert second.aux_model_failure is None


def test_compressor_fallback_when_the_main_model_fails_too():
    clock = Clock()
    failure = litellm.NotFoundError(message="model_not_found", model="gpt-4o-mini", llm_provider="openai")
    summarizer = LiteLLMSummarizer("gpt-4o", summary_model="gpt-4o-mini", mock_response=failure)
    compressor = _compressor(summarizer, clock)
    result = compressor.compress(_transcript())
    assert result.outcome == "fallback"
    assert [call.model for call in result.summarizer_calls] == ["gpt-4o-mini", None]
    assert summarizer.last_call["model"] == "gpt-4o"
    # No second switch: the main model's failure starts the ordinary 60 s cooldown.
    clock.now += 59
    assert compressor.compress(_transcript()).summarizer_calls == []
    clock.now += 2
    assert [call.model for call in compressor.compress(_transcript()).summarizer_calls] == [None]


def test_a_key_echoed_in_an_error_is_blanked():
    key = "sk-live-0123456789abcdef"
    failure = litellm.AuthenticationError(
        message=f"Incorrect API key provided: {key}", llm_provider="openai", model="gpt-4o-mini"
    )
    summarizer = LiteLLMSummarizer("gpt-4o-mini", api_key=key, mock_response=failure)
    with pytest.raises(litellm.AuthenticationError) as info:
        summarizer("p", 10)
    assert key not in str(info.value) and key not in repr(info.value)
    assert "Incorrect API key provided: [REDACTED]" in str(info.value)
    assert key not in summarizer.last_call["error"]


def test_the_local_model_is_capped_and_remote_providers_are_not():
    from types import SimpleNamespace

    from core.batch import AnalysisSettings, summarizer_for
    from core.summarizers.factory import LOCAL_MAX_TOKENS_CAP
    from core.summarizers.local import local_summarizer

    assert LOCAL_MAX_TOKENS_CAP == 256
    # The command line's --summarizer local runs as a "server" summarizer once the model is up.
    served = summarizer_for(AnalysisSettings(summarizer="server", server_model="openai/smollm2",
                                              api_base="http://127.0.0.1:1/v1"))
    assert served.request_kwargs("P", 2_600)["max_tokens"] == 256
    # The dashboard's local option.
    server = SimpleNamespace(running=True, alias="smollm2", base_url="http://127.0.0.1:1/v1")
    assert local_summarizer(server).request_kwargs("P", 2_600)["max_tokens"] == 256
    assert local_summarizer(server).request_kwargs("P", 200)["max_tokens"] == 200
    # A remote provider gets the compressor's max_tokens unchanged.
    remote = summarizer_for(AnalysisSettings(summarizer="litellm", model="gpt-4o-mini"))
    assert remote.max_tokens_cap is None
    assert remote.request_kwargs("P", 2_600)["max_tokens"] == 2_600


@pytest.mark.parametrize(
    ("summarizer_factory", "outcome", "cooldown", "abort_reason"),
    [
        (lambda: LiteLLMSummarizer(""), "fallback", 600, None),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.APIConnectionError(
            message="Connection refused", llm_provider="openai", model="gpt-4o-mini")), "aborted", 30, "network"),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.Timeout(
            message="Request timed out", model="gpt-4o-mini", llm_provider="openai")), "aborted", 30, "network"),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.AuthenticationError(
            message="Incorrect API key provided", llm_provider="openai", model="gpt-4o-mini")),
         "aborted", 60, "authentication"),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=litellm.RateLimitError(
            message="slow down", llm_provider="openai", model="gpt-4o-mini")), "fallback", 60, None),
        (lambda: LiteLLMSummarizer("gpt-4o-mini", mock_response=""), "fallback", 60, None),
    ],
    ids=["no provider", "connection", "timeout", "authentication", "rate limit", "empty"],
)
def test_v0_18_0_classifies_litellm_failures(summarizer_factory, outcome, cooldown, abort_reason):
    clock = Clock(1000.0)
    compressor = _compressor(summarizer_factory(), clock, profile="v0.18.0")
    result = compressor.compress(_transcript())
    assert result.outcome == outcome
    assert result.abort_reason == abort_reason
    assert compressor._summary_failure_cooldown_until == 1000.0 + cooldown
    assert not compressor.should_compress(10**9)  # v0.18.0: no trigger during a cooldown
    if abort_reason is not None:
        # The flag is sticky: inside the cooldown there is no call, and it aborts again.
        clock.now += 1
        again = compressor.compress(_transcript())
        assert again.outcome == "aborted" and again.summarizer_calls == []


# -- one deadline per call (connect, read and retries together) ------------------------------


def test_the_deadline_cuts_off_a_server_that_trickles_bytes(fault_server):
    from tests.robustness.llm_faults import SLOW_FOR_S

    # Each read gets a byte within 0.1 s, so a per-read timeout never fires: only the deadline can.
    summarizer = LiteLLMSummarizer("openai/trickle", api_base=fault_server.url, api_key="k", timeout=2, max_retries=0)
    started = time.monotonic()
    with pytest.raises(litellm.Timeout) as info:
        summarizer("p", 10)
    took = time.monotonic() - started
    assert took < SLOW_FOR_S / 2, f"gave up after {took:.1f} s; the trickle lasts {SLOW_FOR_S:g} s"
    assert "2 s deadline" in str(info.value)
    assert failure_bucket(info.value) == "stream_closed"  # the reference's 30 s cooldown
    assert summarizer.last_call["error"].startswith("Timeout")


def test_the_deadline_covers_the_retries_too(fault_server):
    # Four attempts of 2 s each would take 8 s and more; the whole call has 2 s.
    summarizer = LiteLLMSummarizer("openai/hang", api_base=fault_server.url, api_key="k", timeout=2, max_retries=3)
    started = time.monotonic()
    with pytest.raises(litellm.Timeout):
        summarizer("p", 10)
    assert time.monotonic() - started < 6
    assert fault_server.calls["hang"] == 1  # the deadline passed during the first attempt


def test_retries_within_the_deadline_are_made(fault_server):
    summarizer = LiteLLMSummarizer("openai/unavailable", api_base=fault_server.url, api_key="k", timeout=30,
                                   max_retries=2)
    with pytest.raises(litellm.ServiceUnavailableError):
        summarizer("p", 10)
    assert fault_server.calls["unavailable"] == 3  # the first attempt and two retries
    assert repr(summarizer).endswith("timeout=30.0, max_retries=2)")


def test_a_trickling_server_inside_a_compression_is_a_timely_fallback(fault_server):
    clock = Clock()
    summarizer = LiteLLMSummarizer("openai/trickle", api_base=fault_server.url, api_key="k", timeout=1.5,
                                   max_retries=1)
    started = time.monotonic()
    result = _compressor(summarizer, clock, profile="v0.16.0").compress(_transcript())
    assert time.monotonic() - started < 10
    assert result.outcome == "fallback"
    assert "deadline" in result.failure_reason
    clock.now += 29  # a timeout is a connection-class failure: 30 s of cooldown
    assert _compressor(summarizer, clock, profile="v0.16.0").compress(_transcript()).summarizer_calls
    # v0.18.0 aborts on the same failure: it is a network failure.
    assert _compressor(summarizer, Clock(), profile="v0.18.0").compress(_transcript()).abort_reason == "network"
    compressor = _compressor(summarizer, clock, profile="v0.16.0")
    compressor.compress(_transcript())
    clock.now += 29
    assert compressor.compress(_transcript()).summarizer_calls == []


# -- lone surrogates in raw messages ------------------------------------------------------------


def test_lone_surrogates_in_raw_messages_reach_the_model_as_replacement_characters(fault_server):
    messages = _transcript()
    messages[5] = {"role": "assistant", "content": "half an emoji \ud83d and a stray \udfff in the middle"}
    summarizer = LiteLLMSummarizer("openai/ok", api_base=fault_server.url, api_key="k", max_retries=0)
    result = _compressor(summarizer).compress(messages)
    assert result.outcome == "summarized", result.failure_reason
    assert summarizer.last_call["error"] is None
    # The compressor's prompt is the reference's, surrogates and all; the request carries U+FFFD.
    assert "\ud83d" in result.summarizer_call.prompt
    sent = json.loads(fault_server.bodies[-1])["messages"][0]["content"]
    assert "half an emoji \ufffd and a stray \ufffd in the middle" in sent
    assert len(sent) == len(result.summarizer_call.prompt)
