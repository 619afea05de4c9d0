"""The small interface every summarizer implements.

A summarizer is any callable ``fn(prompt: str, max_tokens: int) -> str``. Raising any
exception means the summary failed (the compressor then applies the profile's cooldown and
fallback rules); raising ``RuntimeError`` means "no provider configured" (600 s cooldown).

A summarizer that can work from the turns themselves (the offline extractive one) may also
define ``summarize_request(request: SummaryRequest) -> str``; the compressor then calls that
instead of the plain callable, with exactly the same prompt and ``max_tokens`` inside the
request, so the two paths never disagree about what would have been sent. One whose
``summarize_request`` never reads ``request.prompt`` nor ``request.serialized_turns`` may say so
with ``reads_prompt = False``: its requests then carry ``""`` for both, and the compressor builds
them only if someone reads ``SummarizerCall.prompt`` (a long session's prompt is large, and
serialising the turns is a pass over all of them).

A summarizer with a separate summary model may define the fallback hooks used by spec 4.8:
``can_fall_back_to_main() -> bool``, ``fall_back_to_main() -> None`` and the attribute
``summary_model`` (the model that just failed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from core.profiles import TEMPLATE_HEADINGS


@dataclass(frozen=True)
class SummaryRoom:
    """How much a summary may weigh for the compression not to grow what it replaces.

    ``replaced`` is what the messages the summary replaces weigh (the Phase-1 middle, an earlier
    summary in it included), and ``weigh(body)`` what the summary written from ``body`` weighs once the
    compressor has placed it (the release's prefix, END marker and flag, or its merge into the first
    tail message), both in the compressor's own estimate. The release asks a model for at least 2,000
    tokens whatever the middle holds; a summarizer that writes to the turns, such as the offline one,
    keeps to this room as well, so a summary of a small middle is never larger than the middle.
    """

    replaced: int
    weigh: Callable[[str], int] = field(compare=False, repr=False)  # the plan's own measure (two equal plans, equal rooms)

    @property
    def overhead(self) -> int:
        """What an empty body weighs (the prefix and the message around it)."""
        return self.weigh("")

    def fits(self, body: str) -> bool:
        return self.weigh(body) <= self.replaced


@dataclass(frozen=True)
class SummaryRequest:
    """Everything one summary call is about.

    ``turns`` are the messages being compacted *after* the profile's redaction (and strict
    redaction when enabled) of their text and tool-call arguments, so nothing in them may
    leave the machine that the prompt would not carry. ``serialized_turns`` is the block the
    prompt embeds; ``prompt`` is the full text an LLM would receive (both are empty in the requests
    of a summarizer that says it reads neither, ``reads_prompt = False``). ``section_headings`` are the
    13 headings of the profile's template in template order; v0.17.0 renamed four of them, so by
    position: 0 the task, 5 the in-progress state, 9 the pending asks, 11 the remaining work.
    """

    prompt: str
    max_tokens: int | None  # None: the release sends no output cap (v0.19.0); write about summary_budget tokens
    turns: list[dict[str, Any]]
    serialized_turns: str
    previous_summary: str | None = None
    focus_topic: str | None = None
    summary_budget: int = 0
    section_headings: tuple[str, ...] = TEMPLATE_HEADINGS
    metadata: dict[str, Any] = field(default_factory=dict)
    memory_context: str | None = None  # v0.19.0: a memory provider's context, to keep in the summary
    room: SummaryRoom | None = None  # what the summary may weigh (None: no limit beyond the budget)


@runtime_checkable
class Summarizer(Protocol):
    def __call__(self, prompt: str, max_tokens: int) -> str: ...
