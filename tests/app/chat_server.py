"""An OpenAI-compatible chat endpoint on 127.0.0.1 for dashboard tests that use a remote summarizer."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

SUMMARY = "## Active Task\nRotate the DB password."


class ChatServer:
    """An OpenAI-compatible endpoint that records each request and answers with a short summary."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server hook name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                bodies.append(body)
                reply = json.dumps({
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body.get("model"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": SUMMARY}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def run_remote(at: Any, server: ChatServer, model: str = "openai/gpt-4o-mini") -> Any:
    """Compress on the Compress page with ``model`` served by ``server``."""
    from tests.app.conftest import go, run

    go(at, "compress")
    at.radio(key="summarizer_choice").set_value("A model through litellm")
    run(at)
    at.text_input(key="llm_model").set_value(model)
    at.text_input(key="llm_api_base").set_value(server.url)
    at.text_input(key="llm_api_key").set_value("sk-local-unused")
    run(at)
    at.button(key="run_compressor").click()
    at.run(timeout=120)  # the first litellm import takes several seconds
    assert not at.exception, [e.value for e in at.exception]
    return at
