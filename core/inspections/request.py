# Over 600 lines: the parts of a request, the per-turn estimates and their errors share one set of counts.
"""The whole request: what the model read at each turn, not only the messages.

A request is the system prompt + the tool schemas + the context the agent injected on its own
(memory files, environment blocks, hook output, reminders) + the messages. Each part is counted
from what the log holds:

* ``system``: the leading system/developer messages (and the log's system prompt when it is not
  one of the messages);
* ``tools``: the tool schemas the log records (request bodies, Responses ``tools``, an OpenHands
  system action, Hermes' ``session_meta``), counted as their JSON text;
* ``injected``: ``Conversation.injected`` (Codex's AGENTS.md and environment messages, Claude
  Code's attachment rows); text a block repeats from the system prompt is counted once;
* ``messages``: every other message of the agent's current context, as the agent sent it
  (``Conversation.sent_messages``: Codex 0.56-0.58 sent a shortened copy of a long tool output,
  ``core.formats.codex_outputs``): after a compaction of the
  agent's own (Claude Code's ``compact_boundary``, Codex's ``compacted``) the messages before it
  are no longer sent. Codex also sends the (encrypted) reasoning of earlier responses back, as
  the Responses API bills it: the reasoning of the responses since the last user message is input
  again (the ``reasoning_output_tokens`` its usage records for them are part of this), that of
  earlier user turns is dropped and billed once, as output;
* ``unrecorded_overhead``: where the log records the prompt size the model was billed for
  (Claude Code's per-turn usage with its cache reads and writes, Codex's ``token_count``, a
  Responses object's ``usage``, LangChain's ``usage_metadata``, litellm's usage in a mini-swe-agent
  trajectory), what that size holds beyond the counted parts, taken at the last turn with a
  recorded size: Claude Code's own system prompt and tool schemas, Codex's base instructions and
  the like, which no log writes down. It is an estimate: it also absorbs the difference between
  the model's tokenizer and the one counting here.

Each recorded turn is also estimated from the recorded turns before it only, never from itself
(:attr:`RequestBreakdown.turn_estimates`): its counted request times the log's factor, plus the
overhead measured at the previous recorded turn. The factor is 1 where the counting unit is the
model's own tokenizer (OpenAI's families, counted exactly); for Claude, Gemini and other models
without a public one, and for the rough estimate, it is fitted on the log's own earlier turns (recorded growth over counted growth), since the counting encoding is only
an approximation there. The mean absolute error of those estimates is ``estimate_error_pct``; the
first recorded turn is what the overhead is measured on, so it has no estimate of its own.

Every part is counted in one unit, a :class:`Weigher`'s: exact tokens of a tiktoken encoding (the
overview, ``analyze --json``) or the Hermes rough estimate the compressor decides with (the
replay's trigger, as Hermes' host adds ``(len(system_prompt) + 3) // 4`` and
``(len(str(tools)) + 3) // 4`` to its message estimate).
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from core.config import CompressorConfig
from core.message_view import content_text, role_of
from core.tokens import (
    encoding_name_for_model,
    get_counter,
    has_public_tokenizer,
    message_rough_chars,
    rough_tokens,
)

if TYPE_CHECKING:  # pandas only for the tables: the dashboard's first chart is drawn before it loads
    import pandas as pd

__all__ = [
    "PARTS",
    "ExactWeigher",
    "RecordedPrompt",
    "RequestBreakdown",
    "RequestTurn",
    "RoughWeigher",
    "recorded_prompt",
    "recorded_prompts",
    "request_breakdown",
    "request_report",
    "weigher_for",
]

PARTS: tuple[str, ...] = ("system", "tools", "injected", "messages", "unrecorded_overhead")
PART_LABELS: dict[str, str] = {
    "system": "system prompt",
    "tools": "tool schemas",
    "injected": "injected context",
    "messages": "messages",
    "unrecorded_overhead": "unrecorded overhead",
}

SYSTEM_ROLES = ("system", "developer")
# Compactions after which the agent sends none of the earlier messages again.
HISTORY_REPLACING_EVENTS = frozenset({"compact_boundary", "compact_summary", "compacted"}) | frozenset(
    {"gemini-checkpoint", "opencode-compaction", "cline-summarize", "cline-truncation", "roo-condense",
     "copilot-compaction", "copilot-context-cleared"}
)
# pi / OpenClaw and Goose compactions, aider's /clear and /reset (a pi compaction keeps sending the
# messages from its details["first_kept_position"] on).
HISTORY_REPLACING_EVENTS |= {"compaction", "context-cleared"}
# Formats whose agent sends earlier responses' reasoning back as input (Codex: encrypted reasoning
# items), with the key its usage records that reasoning's size under.
RESENT_REASONING_KEYS: dict[str, str] = {"codex": "reasoning_output_tokens"}
# The log's tokenizer factor stays within these bounds (a short log's first deltas can be noise).
FACTOR_RANGE = (0.5, 2.0)
# Counted growth the factor needs before it is fitted at all (below it the factor is 1).
FACTOR_MIN_GROWTH = 200


# --- units ---------------------------------------------------------------------------------------


class ExactWeigher:
    """Exact tiktoken counts with one encoding (messages as ``TokenCounter.count_message`` counts them)."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.unit = encoding
        self.counter = get_counter(encoding)

    def text(self, text: str) -> int:
        return self.counter.count_text(text)

    def tools(self, tools: Sequence[Any]) -> int:
        return self.counter.count_text(json.dumps(list(tools), ensure_ascii=False)) if tools else 0

    def running(self, messages: Sequence[Any]) -> _RangeSum:
        return _RangeSum(map(self.counter.count_message, messages))


class RoughWeigher:
    """Hermes' rough estimate: ``(characters + 3) // 4`` of ``str()`` forms, 1,500 tokens an image."""

    unit = "hermes"

    def text(self, text: str) -> int:
        return rough_tokens(len(text)) if text else 0

    def tools(self, tools: Sequence[Any]) -> int:
        return rough_tokens(len(str(list(tools)))) if tools else 0

    def running(self, messages: Sequence[Any]) -> _RangeSum:
        chars, images = array("q"), array("q")
        for message in messages:
            message_chars, message_images = message_rough_chars(message)
            chars.append(message_chars)
            images.append(message_images)
        return _RangeSum(chars, images)


Weigher = ExactWeigher | RoughWeigher


def weigher_for(config: CompressorConfig) -> Weigher:
    """The unit ``config``'s token estimator decides in."""
    if config.token_estimator == "hermes":
        return RoughWeigher()
    return ExactWeigher(encoding_name_for_model(config.model))


class _RangeSum:
    """Sums of per-message weights over index ranges (rough weights round once, over the range).

    The running sums are machine integers (``array``): a long log's list of Python ints would cost
    four times the memory.
    """

    def __init__(self, weights: Iterable[int], images: Iterable[int] | None = None) -> None:
        self.rough = images is not None
        self.prefix = array("q", accumulate(weights, initial=0))
        self.image_prefix = array("q", accumulate(images or (), initial=0))

    def between(self, start: int, end: int) -> int:
        if end <= start:
            return 0
        total = self.prefix[end] - self.prefix[start]
        if not self.rough:
            return total
        return rough_tokens(total, self.image_prefix[end] - self.image_prefix[start])


# --- what the log recorded -----------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedPrompt:
    """The prompt size the log recorded for the request that produced one assistant message."""

    message_index: int
    prompt_tokens: int
    cache_read: int | None = None  # prompt tokens read from the provider's cache
    cache_write: int | None = None  # prompt tokens written to it

    @property
    def uncached(self) -> int:
        return self.prompt_tokens - (self.cache_read or 0) - (self.cache_write or 0)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _nested(usage: Mapping[str, Any], outer: str, inner: str) -> int | None:
    details = usage.get(outer)
    return _int(details.get(inner)) if isinstance(details, Mapping) else None


def recorded_prompt(usage: Any, message_index: int = 0) -> RecordedPrompt | None:
    """The prompt size in one usage entry, or None when it holds none.

    ``prompt_tokens`` (OpenAI chat, litellm; cached tokens under ``prompt_tokens_details``) is the
    whole prompt. ``input_tokens`` is the whole prompt for Codex (``cached_input_tokens`` is part of
    it), Responses (``input_tokens_details.cached_tokens``) and LangChain
    (``input_token_details.cache_read`` / ``cache_creation``); Anthropic and Claude Code count the
    cache apart, so their ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` are added.
    """
    if not isinstance(usage, Mapping):
        return None
    prompt = _int(usage.get("prompt_tokens"))
    if prompt is not None:
        return RecordedPrompt(message_index, prompt, _nested(usage, "prompt_tokens_details", "cached_tokens"))
    fresh = _int(usage.get("input_tokens"))
    if fresh is None:
        return None
    read = _int(usage.get("cache_read_input_tokens"))
    write = _int(usage.get("cache_creation_input_tokens"))
    if read is not None or write is not None:
        return RecordedPrompt(message_index, fresh + (read or 0) + (write or 0), read, write)
    read = (_int(usage.get("cached_input_tokens")) if "cached_input_tokens" in usage
            else _nested(usage, "input_tokens_details", "cached_tokens"))
    if read is None:
        read = _nested(usage, "input_token_details", "cache_read")
        write = _nested(usage, "input_token_details", "cache_creation")
    return RecordedPrompt(message_index, fresh, read, write)


def recorded_prompts(conversation: Any) -> list[RecordedPrompt]:
    """Every prompt size the log recorded, in message order (none when its usage totals whole turns)."""
    metadata = getattr(conversation, "metadata", None) or {}
    if metadata.get("usage_scope") == "turn":
        return []
    found = []
    for index, usage in enumerate(getattr(conversation, "usage", None) or []):
        prompt = recorded_prompt(usage, index)
        if prompt is not None and prompt.prompt_tokens > 0:
            found.append(prompt)
    return found


# --- the breakdown -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)  # one per assistant turn of a long log: no __dict__ each
class RequestTurn:
    """The counted request that produced the assistant message at ``message_index``."""

    message_index: int
    context_start: int  # the agent's context began here (after its own last compaction)
    system_messages: int  # the leading system/developer messages
    system_extra: int  # the log's system prompt when it is not one of the messages
    tools: int
    injected: int
    messages: int  # the other messages of the context, before message_index
    recorded: RecordedPrompt | None = None
    reasoning: int = 0  # recorded reasoning of earlier responses the agent sends back (Codex)

    @property
    def message_list(self) -> int:
        """The message list alone (system messages included): what a messages-only estimate counts."""
        return self.system_messages + self.messages

    @property
    def in_messages(self) -> int:
        """What goes with the messages of the context: the list, and the reasoning resent with its
        assistant messages (a compaction that drops a message drops its reasoning too)."""
        return self.message_list + self.reasoning

    @property
    def outside_messages(self) -> int:
        """What the request holds besides its messages (unrecorded overhead not included)."""
        return self.system_extra + self.tools + self.injected

    @property
    def counted(self) -> int:
        return self.in_messages + self.outside_messages


#: How each source of :attr:`RequestBreakdown.trigger_size` is named on the pages.
TRIGGER_SOURCE_WORDS = {"recorded": "the last prompt size the log recorded", "estimate": "the whole-request estimate"}


@dataclass
class RequestBreakdown:
    """The whole request after the last message, part by part, in one unit (see the module docstring)."""

    unit: str
    system: int
    tools: int
    injected: int
    messages: int
    unrecorded_overhead: int
    recorded_last_prompt: int | None
    recorded_at: int | None  # the message the last recorded prompt produced
    counted_at_recorded: int | None  # what was counted of that same request
    context_start: int
    n_messages: int
    system_message_count: int
    tool_count: int
    injected_kinds: list[str]
    reasoning: int = 0  # the part of ``messages`` that is resent reasoning (recorded, not counted)
    shortened: int = 0  # messages of the context the agent sent as a shortened copy (Codex 0.56-0.58)
    shortened_tokens: int = 0  # what those copies left out of the log's text
    reasoning_by_message: list[int] = field(default_factory=list)  # per message: its reasoning, resent later
    turns: list[RequestTurn] = field(default_factory=list)
    last_recorded: RecordedPrompt | None = None
    # Per turn of ``turns``: the whole request estimated from earlier recorded turns only (None
    # before the first recorded turn and at it); ``factor``: the log's tokenizer factor at the end.
    turn_estimates: list[int | None] = field(default_factory=list)
    factor: float = 1.0
    factor_fitted: bool = False  # fitted on the log's usage (no public tokenizer for its model)
    _by_index: dict[int, RequestTurn] = field(default_factory=dict, repr=False, compare=False)

    @property
    def total(self) -> int:
        return self.system + self.tools + self.injected + self.messages + self.unrecorded_overhead

    @property
    def parts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in PARTS}

    @property
    def trigger_size(self) -> tuple[int, str]:
        """The prompt size Hermes' host hands the trigger test, and where it comes from: the last
        recorded prompt when the log has one (the agent loop passes ``last_prompt_tokens``), else
        this whole-request estimate."""
        if self.recorded_last_prompt is not None:
            return self.recorded_last_prompt, "recorded"
        return self.total, "estimate"

    @property
    def has_recorded_sizes(self) -> bool:
        return self.recorded_last_prompt is not None

    @property
    def gap(self) -> int | None:
        """The last recorded prompt minus what was counted of it (negative: counted more than recorded)."""
        if self.recorded_last_prompt is None or self.counted_at_recorded is None:
            return None
        return self.recorded_last_prompt - self.counted_at_recorded

    @property
    def compacted_messages(self) -> int:
        """Messages before the agent's own last compaction, which its requests no longer carry."""
        return max(0, self.context_start - self.system_message_count)

    def turn(self, message_index: int) -> RequestTurn | None:
        """The request that produced the assistant message at ``message_index`` (None for other messages)."""
        if len(self._by_index) != len(self.turns):
            self._by_index = {turn.message_index: turn for turn in self.turns}
        return self._by_index.get(message_index)

    def sources(self) -> dict[str, str]:
        """Where each part's figure comes from, in words."""
        n = self.system_message_count
        system = f"{n} system message{'s' if n != 1 else ''} of the log" if n else "no system message in the log"
        if self.system and self.system > 0 and not n:
            system = "the log's system prompt"
        tools = (f"{self.tool_count} tool schema{'s' if self.tool_count != 1 else ''} the log records, as JSON"
                 if self.tool_count else "the log records no tool schemas")
        kinds = sorted(set(self.injected_kinds))
        injected = (f"{len(self.injected_kinds)} block(s) the agent added itself ({', '.join(kinds)})"
                    if kinds else "the log records no injected context")
        shown = self.n_messages - max(self.context_start, self.system_message_count)
        messages = f"{shown:,} message{'s' if shown != 1 else ''}"
        if self.compacted_messages:
            messages += (f"; the {self.compacted_messages:,} before the agent's own compaction at message "
                         f"{self.context_start} are no longer sent")
        if self.reasoning:
            messages += f", and {self.reasoning:,} tokens of earlier reasoning the agent sends back (as recorded)"
        if self.shortened:
            messages += (f"; {self.shortened:,} tool output{'s' if self.shortened != 1 else ''} counted as the "
                         f"shortened copy the agent sent ({self.shortened_tokens:,} fewer than the log's text)")
        if self.recorded_last_prompt is None:
            overhead = "the log records no prompt sizes, so what it does not hold cannot be estimated"
        else:
            overhead = (f"the prompt recorded for message {self.recorded_at} ({self.recorded_last_prompt:,}) "
                        f"minus what was counted of it ({self.counted_at_recorded:,})")
            if self.gap is not None and self.gap < 0:
                overhead += f": {-self.gap:,} fewer than counted, so none"
        return {"system": system, "tools": tools, "injected": injected, "messages": messages,
                "unrecorded_overhead": overhead}

    def table(self) -> pd.DataFrame:
        """``part, tokens, share, source``: one row per part, in ``PARTS`` order."""
        import pandas as pd

        total = self.total
        sources = self.sources()
        rows = [{"part": PART_LABELS[name], "tokens": tokens, "share": tokens / total if total else 0.0,
                 "source": sources[name]} for name, tokens in self.parts.items()]
        return pd.DataFrame(rows, columns=["part", "tokens", "share", "source"])

    def turn_table(self) -> pd.DataFrame:
        """One row per assistant turn: ``message_index``, ``recorded`` (or NA), ``messages_only`` (the
        message list alone), ``estimate`` (the whole request estimated from the recorded turns before
        it; up to the first recorded turn, with the overhead measured there) and both errors against
        the recorded size, in percent (the estimate's only where it was made from earlier turns)."""
        import pandas as pd

        rows = []
        estimates = self.turn_estimates or [None] * len(self.turns)
        # Up to the first recorded turn nothing earlier measured the overhead: that turn's own is shown.
        first = next((turn for turn in self.turns if turn.recorded is not None), None)
        early_overhead = (first.recorded.prompt_tokens - first.counted if first is not None and first.recorded
                          else self.unrecorded_overhead)
        for turn, calibrated in zip(self.turns, estimates, strict=True):
            recorded = turn.recorded.prompt_tokens if turn.recorded else None
            estimate = calibrated if calibrated is not None else turn.counted + early_overhead
            rows.append({
                "message_index": turn.message_index,
                "recorded": recorded,
                "messages_only": turn.message_list,
                "estimate": estimate,
                "messages_only_error_pct": _error(turn.message_list, recorded),
                "estimate_error_pct": _error(estimate, recorded) if calibrated is not None else None,
            })
        columns = ["message_index", "recorded", "messages_only", "estimate", "messages_only_error_pct",
                   "estimate_error_pct"]
        return pd.DataFrame(rows, columns=columns).astype(
            {"message_index": "int64", "recorded": "Int64", "messages_only": "int64", "estimate": "int64",
             "messages_only_error_pct": "Float64", "estimate_error_pct": "Float64"})

    def estimate_errors(self) -> dict[str, Any]:
        """How far the estimates are from the recorded sizes, in percent: the mean absolute error of the
        message list alone and of the whole-request estimate (each turn estimated from the recorded
        turns before it), and the estimate's worst turn, over ``turns`` recorded turns with an estimate
        (every recorded turn but the first, on which the overhead is measured)."""
        table = self.turn_table().dropna(subset=["recorded", "estimate_error_pct"])
        calibration = {"factor": round(self.factor, 4), "fitted": self.factor_fitted}
        if not len(table):
            return {"turns": 0, "messages_only": None, "estimate": None, "estimate_max": None, **calibration}
        return {"turns": len(table),
                "messages_only": round(float(table["messages_only_error_pct"].abs().mean()), 2),
                "estimate": round(float(table["estimate_error_pct"].abs().mean()), 2),
                "estimate_max": round(float(table["estimate_error_pct"].abs().max()), 2),
                **calibration}

    def to_dict(self) -> dict[str, Any]:
        """The ``request`` object of ``analyze --json``."""
        last = self.last_recorded
        return {
            "total": self.total,
            **self.parts,
            "recorded_last_prompt": self.recorded_last_prompt,
            "recorded_at_message": self.recorded_at,
            "counted_at_recorded": self.counted_at_recorded,
            "cache": None if last is None else {"read": last.cache_read, "write": last.cache_write,
                                                "uncached": last.uncached},
            "unit": self.unit,
            "messages_compacted_by_agent": self.compacted_messages,
            "messages_reasoning": self.reasoning,
            "messages_shortened": {"messages": self.shortened, "tokens_cut": self.shortened_tokens},
            "estimate_error_pct": self.estimate_errors(),
        }


def _error(value: int, recorded: int | None) -> float | None:
    return round((value - recorded) / recorded * 100, 2) if recorded else None


def _leading_system_count(messages: Sequence[Any]) -> int:
    count = 0
    for message in messages:
        if role_of(message) not in SYSTEM_ROLES:
            break
        count += 1
    return count


def _context_starts(conversation: Any, n: int) -> list[tuple[int, int]]:
    """``(position, start)`` of each compaction after which the agent sent none of the messages
    before ``start`` again, sorted by position."""
    starts = {(int(event.position), _context_start(event))
              for event in getattr(conversation, "compaction_events", None) or []
              if getattr(event, "kind", "") in HISTORY_REPLACING_EVENTS and 0 < int(event.position) <= n}
    return sorted(starts)


def _context_start(event: Any) -> int:
    """Where the agent's context begins after ``event``: its position, or the first message it kept."""
    details = getattr(event, "details", None) or {}
    kept = details.get("first_kept_position") if isinstance(details, Mapping) else None
    if isinstance(kept, int) and not isinstance(kept, bool) and 0 <= kept < int(event.position):
        return kept
    return int(event.position)


def request_breakdown(conversation: Any, weigher: Weigher | None = None, *, every_turn: bool = True) -> RequestBreakdown:
    """The whole request of ``conversation`` (a ``core.formats.Conversation``) in ``weigher``'s unit
    (exact ``cl100k_base`` counts by default), with the request of every assistant turn.

    ``every_turn=False`` keeps in ``turns`` only the assistant turns with a recorded prompt size
    (all that :meth:`RequestBreakdown.estimate_errors` reads), so a long log without usage holds
    no record per turn; every total is the same.
    """
    weigher = weigher or ExactWeigher()
    logged = list(getattr(conversation, "messages", None) or [])
    sent = getattr(conversation, "sent_messages", None)
    messages = list(sent()) if callable(sent) else logged
    n = len(messages)
    n_sys = _leading_system_count(messages)
    running = weigher.running(messages)
    system_messages = running.between(0, n_sys)

    system_text = str(getattr(conversation, "system_prompt", None) or "").strip()
    leading_texts = {content_text(m.get("content")).strip() for m in messages[:n_sys] if isinstance(m, Mapping)}
    system_extra = weigher.text(system_text) if system_text and system_text not in leading_texts else 0
    tools = list(getattr(conversation, "tools", None) or [])
    tool_tokens = weigher.tools(tools)

    injected = []
    for item in getattr(conversation, "injected", None) or []:
        text = item.text
        if system_text and system_text in text:  # Codex sends its AGENTS.md text once, in this block
            text = text.replace(system_text, "", 1)
        injected.append((int(item.position), item.kind, weigher.text(text)))

    starts = _context_starts(conversation, n)
    reasoning_key = RESENT_REASONING_KEYS.get(str(getattr(conversation, "format", "") or ""))
    usage = list(getattr(conversation, "usage", None) or [])
    reasoning_at = [0] * n
    if reasoning_key:
        for index, entry in enumerate(usage[:n]):
            if isinstance(entry, Mapping) and role_of(messages[index]) == "assistant":
                reasoning_at[index] = _int(entry.get(reasoning_key)) or 0
    reasoning = _RangeSum(reasoning_at)
    # The Responses API drops the reasoning of earlier user turns: only what follows the last user
    # message goes back as input.
    turn_began = [0] * (n + 1)
    for index in range(n):
        turn_began[index + 1] = index if role_of(messages[index]) == "user" else turn_began[index]

    # Every assistant turn asks for its context start and the blocks sent with it: bisections over
    # sorted positions and running sums, so a log with a reminder at every turn stays linear.
    by_position = sorted((position, tokens) for position, _kind, tokens in injected)
    positions = [position for position, _tokens in by_position]
    injected_sums = [0]
    for _position, tokens in by_position:
        injected_sums.append(injected_sums[-1] + tokens)

    def injected_upto(last: int) -> int:
        """Tokens of the blocks at positions ``<= last``."""
        return injected_sums[bisect_right(positions, last)]

    compacted_at = [position for position, _start in starts]

    def context_start(index: int) -> int:
        at = bisect_right(compacted_at, index)
        return starts[at - 1][1] if at else 0

    def request_at(index: int, recorded: RecordedPrompt | None = None) -> RequestTurn:
        start = context_start(index)
        # Blocks before the first message are the session's standing context; later ones go with
        # the messages they came with: those at positions <= index that are <= n_sys or >= start.
        extra = injected_upto(min(index, n_sys))
        after = max(start - 1, n_sys)  # later blocks count from position after + 1 on
        if index > after:
            extra += injected_upto(index) - injected_upto(after)
        return RequestTurn(index, start, system_messages, system_extra, tool_tokens, extra,
                           running.between(max(start, n_sys), index), recorded,
                           reasoning.between(max(start, turn_began[index]), index))

    recorded = {prompt.message_index: prompt for prompt in recorded_prompts(conversation)}
    turns = [request_at(index, recorded.get(index)) for index, message in enumerate(messages)
             if (every_turn or index in recorded) and role_of(message) == "assistant"]
    last = max(recorded.values(), key=lambda prompt: prompt.message_index) if recorded else None
    counted_at_recorded = request_at(last.message_index).counted if last is not None else None
    overhead = max(0, last.prompt_tokens - counted_at_recorded) if last is not None and counted_at_recorded is not None else 0
    now = request_at(n)
    model = getattr(conversation, "model", None)
    # Fitted unless the counting unit is the model's own tokenizer.
    exact = has_public_tokenizer(model) and weigher.unit == encoding_name_for_model(model)
    estimates, factor = _calibrated_estimates(turns, fit=not exact)
    kinds = [kind for position, kind, _tokens in injected
             if position <= n_sys or position >= now.context_start]
    shortened = [index for index in range(max(now.context_start, n_sys), n) if messages[index] is not logged[index]]
    cut = sum(weigher.running([logged[index]]).between(0, 1) - running.between(index, index + 1) for index in shortened)
    return RequestBreakdown(
        unit=weigher.unit,
        system=system_messages + system_extra,
        tools=tool_tokens,
        injected=now.injected,
        messages=now.messages + now.reasoning,
        reasoning=now.reasoning,
        reasoning_by_message=reasoning_at,
        shortened=len(shortened),
        shortened_tokens=cut,
        unrecorded_overhead=overhead,
        recorded_last_prompt=last.prompt_tokens if last is not None else None,
        recorded_at=last.message_index if last is not None else None,
        counted_at_recorded=counted_at_recorded,
        context_start=now.context_start,
        n_messages=n,
        system_message_count=n_sys,
        tool_count=len(tools),
        injected_kinds=kinds,
        turns=turns,
        last_recorded=last,
        turn_estimates=estimates,
        factor=factor,
        factor_fitted=factor != 1.0,
    )


def _calibrated_estimates(turns: Sequence[RequestTurn], *, fit: bool) -> tuple[list[int | None], float]:
    """Per turn, the whole request estimated from the recorded turns before it (see the module
    docstring), and the factor in force after the last turn."""
    estimates: list[int | None] = []
    previous: RequestTurn | None = None  # the latest recorded turn
    grew_recorded = grew_counted = 0  # growth between consecutive recorded turns of one context
    factor = 1.0
    for turn in turns:
        if previous is None or previous.recorded is None:
            estimates.append(None)
        else:
            estimates.append(round(previous.recorded.prompt_tokens + factor * (turn.counted - previous.counted)))
        if turn.recorded is None:
            continue
        if previous is not None and previous.recorded is not None and previous.context_start == turn.context_start:
            grew_recorded += turn.recorded.prompt_tokens - previous.recorded.prompt_tokens
            grew_counted += turn.counted - previous.counted
            if fit and grew_counted >= FACTOR_MIN_GROWTH:
                factor = min(max(grew_recorded / grew_counted, FACTOR_RANGE[0]), FACTOR_RANGE[1])
        previous = turn
    return estimates, factor


def request_report(conversation: Any, config: CompressorConfig) -> dict[str, Any]:
    """The ``request`` object of ``analyze --json`` and the batch report: the breakdown in exact tokens
    of ``config.model``'s encoding (the log's model's when no model is configured), and the trigger decided on the whole request as Hermes' host
    decides it (the last recorded prompt size when the log has one, else the request estimate in
    the configured estimator's unit)."""
    model = config.model or getattr(conversation, "model", None)  # the log's own model unless one is asked for
    exact = request_breakdown(conversation, ExactWeigher(encoding_name_for_model(model)), every_turn=False)
    report = exact.to_dict()
    tokens, source = exact.trigger_size
    if source != "recorded":
        weigher = weigher_for(config)
        estimated = exact if weigher.unit == exact.unit else request_breakdown(conversation, weigher, every_turn=False)
        tokens, source = estimated.total, f"estimate ({config.token_estimator})"
    report["trigger"] = {"tokens": tokens, "source": source, "threshold_tokens": config.threshold_tokens,
                         "would_compress": tokens >= config.threshold_tokens}
    return report
