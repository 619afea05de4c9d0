"""A scripted OpenAI-compatible chat server on 127.0.0.1 for the end-to-end Hermes session.

The agent's requests (those that offer tools) are answered from a script: one ``read_file`` call per
file, then a final answer. A request without tools whose prompt asks for a handoff summary gets a
fixed, deterministic summary; any other request without tools (a session title, ...) gets a short
text. Usage is reported honestly: ``prompt_tokens`` is the request's messages in characters / 4,
so the host's own accounting sees the context grow. Every request is recorded for the test to read.
Both plain and streamed (server-sent events) answers are served. Nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SUMMARY_TEXT = (
    "## Active Task\nUser asked: 'read the project notes and report'\n"
    "## Completed Actions\n1. READ notes files — contents recorded [tool: read_file]\n"
    "## Remaining Work\nRead the remaining notes, then answer."
)
FINAL_TEXT = "All notes were read. Done."


@dataclass
class Script:
    """The agent's turns: read each file in order, then answer."""

    files: list[str]
    tool_name: str = "read_file"
    step: int = 0

    def next_reply(self) -> dict[str, Any]:
        if self.step < len(self.files):
            path = self.files[self.step]
            self.step += 1
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [{
                    "id": f"call_read_{self.step}", "type": "function",
                    "function": {"name": self.tool_name, "arguments": json.dumps({"path": path})},
                }],
            }
        self.step += 1
        return {"role": "assistant", "content": FINAL_TEXT}


@dataclass
class Recorded:
    kind: str  # "agent", "summary" or "other"
    body: dict[str, Any]
    reply: dict[str, Any]


@dataclass
class FakeLLM:
    script: Script
    requests: list[Recorded] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep the test output quiet
                pass

            def do_GET(self) -> None:  # model listings and probes: one model, no details
                fake.paths.append("GET " + self.path)
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                fake.paths.append("POST " + self.path)
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._json(400, {"error": {"message": "bad json"}})
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                message, kind = fake.answer(body)
                usage = _usage(body, message)
                if body.get("stream"):
                    self._stream(body, message, usage)
                else:
                    self._json(200, {
                        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                        "model": body.get("model", "fake-model"),
                        "choices": [{"index": 0, "message": message,
                                     "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                        "usage": usage,
                    })

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], message: dict[str, Any], usage: dict[str, int]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                        "model": body.get("model", "fake-model")}
                delta: dict[str, Any] = {"role": "assistant"}
                if message.get("content"):
                    delta["content"] = message["content"]
                if message.get("tool_calls"):
                    delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
                chunks = [
                    {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    {**base, "choices": [{"index": 0, "delta": {},
                                          "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}]},
                    {**base, "choices": [], "usage": usage},
                ]
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        with self._lock:
            if body.get("tools"):
                reply, kind = self.script.next_reply(), "agent"
            elif is_summary_request(body):
                reply, kind = {"role": "assistant", "content": SUMMARY_TEXT}, "summary"
            else:
                reply, kind = {"role": "assistant", "content": "Reading project notes"}, "other"
            self.requests.append(Recorded(kind, body, reply))
            return reply, kind

    def of_kind(self, kind: str) -> list[Recorded]:
        return [request for request in self.requests if request.kind == kind]


def is_summary_request(body: dict[str, Any]) -> bool:
    """A compaction's summary request: every release's prompt names the turns to summarise or a handoff."""
    messages = body.get("messages") or []
    text = " ".join(str(m.get("content")) for m in messages if isinstance(m, dict))
    return "TURNS TO SUMMARIZE" in text or "CONTEXT CHECKPOINT" in text.upper() or "handoff" in text.lower()


def _usage(body: dict[str, Any], message: dict[str, Any]) -> dict[str, int]:
    sent = json.dumps(body.get("messages") or [], ensure_ascii=False) + json.dumps(body.get("tools") or [])
    prompt = len(sent) // 4
    completion = max(1, len(json.dumps(message, ensure_ascii=False)) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
