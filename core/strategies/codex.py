"""Codex-style reset: the leading system messages, the user's own messages and a summary of everything.

The user's messages are kept newest first up to ``user_tokens`` tokens (the one that overflows is
cut to what is left) in their original order, earlier handoff summaries skipped; then a summary of
the whole history follows as a user message. No assistant or tool message remains.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core import rules
from core.config import CompressorConfig
from core.plan import plan_for_turns
from core.profiles import PROFILES
from core.strategies.base import BudgetFollower, OutputOrigin, StrategyRun, StrategySettings, role_of
from core.summarizers.factory import DEFAULT_SUMMARIZER, resolve_summarizer
from core.summary_call import request_summary
from core.tokens import TokenCounter, get_counter

__all__ = ["CODEX_SUMMARY_PREFIX", "CODEX_TRUNCATION_MARK", "CODEX_USER_TOKENS", "CodexStrategy", "codex_style",
           "summary_redactions"]

CODEX_SUMMARY_PREFIX = "Summary of the earlier conversation, written when the context was compacted:\n"
CODEX_TRUNCATION_MARK = " …[truncated]"
CODEX_USER_TOKENS = 20_000


def _user_text(message: Mapping[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, Mapping) and isinstance(part.get("text"), str)]
        return "\n".join(texts) if texts else None
    return None


def _is_handoff(text: str) -> bool:
    """An earlier compaction's summary (Codex-style or any Hermes prefix), not the user's own words."""
    if text.startswith(CODEX_SUMMARY_PREFIX):
        return True
    return any(rules.is_summary_text(text, profile) for profile in PROFILES.values())


def _cut_to_tokens(text: str, tokens: int, counter: TokenCounter) -> str:
    """The beginning of ``text`` within ``tokens`` tokens (mark included)."""
    mark = counter.count_text(CODEX_TRUNCATION_MARK)
    if tokens <= mark:
        return ""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if counter.count_text(text[:middle]) + mark <= tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low] + CODEX_TRUNCATION_MARK if low else ""


def _summarize(turns: list[Any], config: CompressorConfig, summarizer: Any) -> tuple[str | None, str | None]:
    """(summary body, error) for ``turns``, requested the way the compressor requests a first summary."""
    if summarizer is None:
        return None, "no summarizer configured"
    decided = plan_for_turns(turns, config)
    if decided.reference_crash is not None:
        return None, decided.reference_crash.describe()
    outcome = request_summary(decided, summarizer, may_fall_back=False)
    if not outcome.succeeded:
        return None, outcome.error or "no summary"
    return (outcome.stored or None), (None if outcome.stored else "empty summary")


def _lead(messages: Sequence[Any]) -> int:
    """How many system (or developer) messages open the conversation: they are kept as they are."""
    lead = 0
    while lead < len(messages) and role_of(messages[lead]) in ("system", "developer"):
        lead += 1
    return lead


def summary_redactions(messages: Sequence[Any], config: CompressorConfig) -> tuple[Any, list[str]]:
    """(the redaction, the texts it masks) of the reset's summary request: the whole log after the
    leading system messages, so a caller can have them masked ahead (elsewhere, meanwhile)."""
    decided = plan_for_turns(list(messages[_lead(messages):]), config)
    return decided.redaction, decided.texts_to_redact


def codex_style(messages: Sequence[Any], config: CompressorConfig, summarizer: Any = DEFAULT_SUMMARIZER,
                user_tokens: int = CODEX_USER_TOKENS, counter: TokenCounter | None = None) -> StrategyRun:
    """Initial system messages + the user's messages (newest first, within ``user_tokens``) + a summary."""
    counter = counter or get_counter("cl100k_base")
    summarizer = resolve_summarizer(summarizer)
    n = len(messages)
    lead = _lead(messages)
    chosen: list[tuple[int, Any, bool]] = []  # (index, message, altered)
    remaining = user_tokens
    for index in range(n - 1, lead - 1, -1):
        message = messages[index]
        if role_of(message) != "user":
            continue
        text = _user_text(message)
        if text is None or not text.strip() or _is_handoff(text.lstrip()):
            continue
        tokens = counter.count_text(text)
        if tokens <= remaining:
            chosen.append((index, message, False))
            remaining -= tokens
            continue
        cut = _cut_to_tokens(text, remaining, counter)
        if cut:
            chosen.append((index, {"role": "user", "content": cut}, True))
        break
    chosen.reverse()
    body, error = _summarize(list(messages[lead:]), config, summarizer)
    out = list(messages[:lead]) + [message for _i, message, _a in chosen]
    origins = [OutputOrigin(i) for i in range(lead)]
    origins += [OutputOrigin(i, ("SHORTENED",) if altered else ()) for i, _m, altered in chosen]
    notes = [f"{len(chosen)} user message(s) kept within {user_tokens:,} tokens"]
    summary_text = None
    if body:
        summary_text = CODEX_SUMMARY_PREFIX + body
        out.append({"role": "user", "content": summary_text})
        origins.append(OutputOrigin(None, ("SUMMARY",)))
    else:
        notes.append(f"summary failed ({error}); none inserted")
    return StrategyRun(
        name="Codex-style", family=CodexStrategy.family, messages=out,
        kept=list(range(lead)) + [i for i, _m, altered in chosen if not altered],
        altered=[i for i, _m, altered in chosen if altered], promises_pairs=True,
        summary_text=summary_text, notes=notes, origins=origins,
    )


@dataclass(frozen=True)
class CodexStrategy(BudgetFollower):
    family: str = "codex"
    label: str = "Codex-style"
    description: str = "a Codex-style reset (the user's own messages plus a summary)"
    keeps: str = ("the system prompt, the user's own messages (newest first, up to the user-message budget) and one "
                  "summary of everything; an extractive summary copies identifiers, so most facts survive")
    gives_up: str = ("every assistant and tool message: the exact tool outputs, file contents and the agent's own "
                     "steps exist only as the summary says them; several user messages in a row break Anthropic's API")
    summarises_whole_log: bool = True

    def run(self, messages: Sequence[Any], settings: StrategySettings) -> list[StrategyRun]:
        return [codex_style(messages, settings.config, settings.summarizer, settings.user_tokens, settings.counter)]

