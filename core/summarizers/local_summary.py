"""The local model's summarizer: a short prompt, a capped answer, and a server freed after a timeout.

SmolLM2-135M reads about 200 prompt tokens a second on one CPU core and writes about 100; the
compressor's own prompt (the 13-section template, Hermes' 6,000-character turns) takes it longer
to read than a run may last, and the small model follows none of the template anyway. So the local
model gets a prompt of its own, built from the same redacted, serialized turns: a few lines of
instructions, every turn cut to ``TURN_CHARS``, and, past ``PROMPT_CHARS``, the first turn (the
task) with the latest ones. The compressor still records its own prompt, which is what a remote
model would have read.

A call that runs out of time says so in the local model's words, and the server is restarted:
llama.cpp would otherwise go on generating the abandoned answer and keep the next run waiting.
"""

from __future__ import annotations

import re
from typing import Any

from core.summarizers.base import SummaryRequest
from core.summarizers.llm import LiteLLMSummarizer, import_litellm

__all__ = ["PROMPT_CHARS", "TURN_CHARS", "LocalModelSummarizer", "short_prompt"]

#: The whole prompt, in characters: about 1,100 tokens of a coding session (4,000 measured 1,517),
#: some 5 s of reading on one idle core.
PROMPT_CHARS = 3_000
#: One turn's text at most: its start and its end are kept.
TURN_CHARS = 500
_TURN_TAIL = 150
# Where one serialized turn starts ("[USER]: ", "[TOOL RESULT call_1]: ", ...; see serialize_for_summary).
_TURN_START = re.compile(r"\n\n(?=\[[A-Z][A-Z ]*(?: [^\]\n]*)?\]: )")
_INSTRUCTIONS = (
    "Summarize the conversation below for the assistant who will continue it. Write short bullet "
    "points: the user's task, what was done (files, commands, results), errors found, and what "
    "remains to do."
)
_LOCAL_KEY = "local-no-key"  # llama.cpp checks no key; litellm's OpenAI client wants one


def _shorten(text: str, limit: int, tail: int) -> str:
    if len(text) <= limit:
        return text
    left_out = len(text) - limit
    return f"{text[:limit - tail]} […{left_out:,} characters…] {text[-tail:]}"


def short_prompt(request: SummaryRequest, limit: int = PROMPT_CHARS) -> str:
    """The local model's prompt for ``request`` (at most about ``limit`` characters)."""
    head = [_INSTRUCTIONS]
    if request.focus_topic:
        head.append(f"Focus on: {_shorten(request.focus_topic, 200, 50)}")
    if request.previous_summary:
        head.append("Summary of the earlier part:\n" + _shorten(request.previous_summary, 800, 200))
    turns = [_shorten(block, TURN_CHARS, _TURN_TAIL) for block in _TURN_START.split(request.serialized_turns)]
    room = limit - sum(len(part) + 2 for part in head) - 40
    kept = turns
    if sum(len(turn) + 2 for turn in turns) > room and len(turns) > 1:
        # The first turn states the task; the latest ones say where the work stands.
        first, latest, used = turns[0], [], len(turns[0]) + 2
        for turn in reversed(turns[1:]):
            if used + len(turn) + 2 > room:
                break
            latest.append(turn)
            used += len(turn) + 2
        latest.reverse()
        left_out = len(turns) - 1 - len(latest)
        kept = [first, *([f"[… {left_out:,} turns left out …]"] if left_out else []), *latest]
    conversation = _shorten("\n\n".join(kept), max(room, 200), _TURN_TAIL)
    return "\n\n".join([*head, "CONVERSATION:\n" + conversation, "SUMMARY:"])


class LocalModelSummarizer(LiteLLMSummarizer):
    """Writes summaries with a running ``LocalModelServer`` (see the module docstring)."""

    def __init__(self, server: Any, *, timeout: float, max_retries: int | None, max_tokens_cap: int | None) -> None:
        super().__init__(f"openai/{server.alias}", api_base=server.base_url, api_key=_LOCAL_KEY, timeout=timeout,
                         max_retries=max_retries or 0, max_tokens_cap=max_tokens_cap)
        self.server = server

    def __repr__(self) -> str:
        return f"LocalModelSummarizer(model={self.model!r}, timeout={self.timeout!r})"

    def summarize_request(self, request: SummaryRequest) -> str:
        return self(short_prompt(request), request.max_tokens)

    def __call__(self, prompt: str, max_tokens: int | None) -> str:
        try:
            return super().__call__(prompt, max_tokens)
        except Exception as exc:
            if isinstance(exc, import_litellm().Timeout):
                self.free_model()
            raise

    def deadline_message(self) -> str:
        return f"the local model did not answer within {self.timeout:g} s"

    def free_model(self) -> None:
        """Restart the server so it stops generating an answer nobody waits for."""
        try:
            self.server.restart()
        except RuntimeError:  # LocalModelStartError, LocalModelUnavailable
            return  # the next run starts it again, or says why it cannot
        self.api_base = self.server.base_url
