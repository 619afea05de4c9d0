"""An OpenAI-compatible server on 127.0.0.1 that misbehaves on request, for the LLM fault tests.

The requested model name picks the behaviour (``openai/<fault>`` through litellm): a normal
answer, an HTTP error status, a hang, an answer trickled a byte at a time, an empty or garbage
body, a hang-up. Slow behaviours are bounded in time and stop as soon as the server is closed,
so no test leaves a request running behind it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SUMMARY = "## Active Task\nFinish the parser refactor."
# The longest any slow behaviour lasts, in seconds (far beyond every deadline the tests set).
SLOW_FOR_S = 20.0
TRICKLE_EVERY_S = 0.1

#: Fault name -> (HTTP status, body) for the faults that are a single immediate answer.
STATUS_FAULTS: dict[str, tuple[int, bytes]] = {
    "rate-limited": (429, b'{"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}'),
    "server-error": (500, b'{"error": {"message": "internal error", "type": "server_error"}}'),
    "bad-gateway": (502, b"<html><body>502 Bad Gateway</body></html>"),
    "unavailable": (503, b'{"error": {"message": "overloaded", "type": "server_error"}}'),
    "empty-body": (200, b""),
    "garbage-body": (200, b"\x00\xff\xfe{{ not json at all ]]"),
    "html-body": (200, b"<!doctype html><title>captive portal</title>"),
    "no-choices": (200, b'{"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}'),
}
SLOW_FAULTS = ("hang", "trickle")
#: Model name -> a completion the server answers normally, but that is no usable summary.
SUSPECT_ANSWERS: dict[str, str] = {
    "empty-completion": "",
    "blank-completion": " \n\t ",
    "runaway-completion": "## Active Task\n" + "and then the model kept on writing " * 12_000,
}
FAULTS: tuple[str, ...] = (*STATUS_FAULTS, *SLOW_FAULTS, "hangup")


def completion_body(model: str, content: str = SUMMARY) -> bytes:
    return json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }).encode()


class FaultServer:
    """``/v1/chat/completions`` answering according to the model name; counts and keeps the requests."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.bodies: list[bytes] = []
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the http.server hook name
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                server.bodies.append(raw)
                model = str(json.loads(raw or b"{}").get("model", ""))
                server.calls[model] += 1
                if model in STATUS_FAULTS:
                    status, body = STATUS_FAULTS[model]
                    self._answer(status, body)
                elif model == "hang":
                    server.stopped.wait(SLOW_FOR_S)
                    self.close_connection = True
                elif model == "trickle":
                    self._trickle(completion_body(model))
                elif model in SUSPECT_ANSWERS:
                    self._answer(200, completion_body(model, SUSPECT_ANSWERS[model]))
                elif model == "hangup":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                else:
                    self._answer(200, completion_body(model))

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                # No waiting between the client's own retries of a 429.
                self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(body)

            def _trickle(self, body: bytes) -> None:
                """A valid answer, one byte every TRICKLE_EVERY_S: never silent long enough for a read timeout."""
                padded = body + b" " * 400  # long enough to outlast every deadline under test
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(padded)))
                self.end_headers()
                ends = time.monotonic() + SLOW_FOR_S
                try:
                    for byte in padded:
                        if server.stopped.is_set() or time.monotonic() > ends:
                            self.close_connection = True
                            return
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(TRICKLE_EVERY_S)
                except OSError:  # the client gave up and closed the connection
                    self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()
