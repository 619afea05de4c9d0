"""Per-upload analysis state: the loaded transcript, its token tables and memoised analyses.

A :class:`Transcript` is built once per upload (keyed by a hash of the file's bytes, the chosen
format and session) and then reused on every rerun: exact token counts are computed once per
encoding, and each parameter-dependent analysis is memoised under its parameters, so moving a
slider back to a previous value costs nothing and moving it to a new value never re-tokenizes.

Nothing here imports Streamlit; the dashboard wraps :func:`load_transcript` in its own cache.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from core.config import CompressorConfig, CompressorParameters
from core.phases.prune import PrunePlan
from core.plan import prepare, prune_plan_key
from core.tokens import TokenCounter, counted_texts, encoding_name_for_model, get_counter

if TYPE_CHECKING:  # pandas loads in about a second: only the tables need it, not the first paint
    import pandas as pd

T = TypeVar("T")

# Parameter-dependent analyses kept per transcript (slider positions visited recently).
MEMO_ENTRIES = 64

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_conversations"
SAMPLE_SUFFIXES = (".json", ".jsonl", ".db", ".sqlite", ".traj")
# aider's histories are Markdown and plain text: only those files (.aider.chat.history.md ...), not READMEs.
SAMPLE_TEXT_NAMES = (".chat.history.md", ".llm.history")


def content_digest(data: bytes) -> str:
    """A short, stable identity for an upload's bytes (the cache key of everything derived from it)."""
    return hashlib.sha256(data).hexdigest()[:24]


@dataclass(frozen=True)
class Settings(CompressorParameters):
    """The tunable compressor parameters shared by every page (hashable, so it can key caches).

    ``window_scale`` and ``what_if_no_floor`` are the what-if controls for short sessions: the
    analyses run with the window ``context_length * window_scale`` (:attr:`window`) and, when asked,
    without the 64K floor (``CompressorConfig.what_if_no_floor``, not what Hermes does).
    """

    window_scale: float = 1.0

    def config(self) -> CompressorConfig:
        config = CompressorConfig.from_settings(self)
        return config if self.window == self.context_length else dataclasses.replace(config, context_length=self.window)

    @property
    def window(self) -> int:
        """The window the analyses use: the context length, scaled by the what-if."""
        return max(1, round(self.context_length * self.window_scale))

    @property
    def what_if(self) -> bool:
        return self.window_scale != 1.0 or self.what_if_no_floor

    @property
    def encoding(self) -> str:
        """The tiktoken encoding used for exact counts (the model's, cl100k_base otherwise)."""
        return encoding_name_for_model(self.model)


@dataclass
class Transcript:
    """One loaded conversation and everything derived from it that does not depend on the sliders."""

    key: str
    filename: str
    conversation: Any  # core.formats.Conversation
    messages: list[dict[str, Any]]
    _tables: dict[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    _memo: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict, repr=False)
    _plans: dict[Hashable, PrunePlan] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def format(self) -> str:
        return str(getattr(self.conversation, "format", "") or "")

    @property
    def warnings(self) -> list[str]:
        return list(getattr(self.conversation, "warnings", None) or [])

    @property
    def sessions(self) -> list[Any]:
        return list(getattr(self.conversation, "sessions", None) or [])

    def counter(self, encoding: str) -> TokenCounter:
        return get_counter(encoding)

    def has_message_table(self, encoding: str) -> bool:
        return encoding in self._tables

    def uncounted_chars(self, encoding: str) -> int:
        """Characters of text still to encode before :meth:`message_table` for ``encoding`` is ready."""
        if encoding in self._tables:
            return 0
        return get_counter(encoding).uncounted_chars(counted_texts(self.messages))

    def count_exactly(self, encoding: str, on_progress: Callable[[int, int], None] | None = None) -> None:
        """Make the exact counts of every text (kept by the shared counter), following
        ``on_progress(done, total)`` in characters; the table and the totals then only read them."""
        get_counter(encoding).warm(counted_texts(self.messages), on_progress)

    def message_table(
        self, encoding: str, on_progress: Callable[[int, int], None] | None = None
    ) -> pd.DataFrame:
        """Per-message roles, tools, exact token counts by category and previews (once per encoding).

        ``on_progress(done, total)`` follows the exact count, in characters, when it has to be made.
        """
        from core.analysis.overview import message_frame

        with self._lock:
            table = self._tables.get(encoding)
            if table is None:
                counter = get_counter(encoding)
                self.count_exactly(encoding, on_progress)
                sources = getattr(self.conversation, "sources", None)
                table = message_frame(self.messages, counter, sources=sources)
                self._tables[encoding] = table
            return table

    def prune_plan(self, config: CompressorConfig) -> PrunePlan:
        """The Phase-1 plan of the messages with ``config``'s token estimator (once per estimator).

        Pass it to the analyses (``plan=``): after a parameter change they only look for the new
        prune boundary instead of re-running Phase 1.
        """
        key = prune_plan_key(config)
        with self._lock:
            plan = self._plans.get(key)
            if plan is None:
                plan = prepare(self.messages, config)
                self._plans[key] = plan
            return plan

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` once per key; the most recent ``MEMO_ENTRIES`` results are kept."""
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return self._memo[key]
        value = compute()
        with self._lock:
            self._memo[key] = value
            while len(self._memo) > MEMO_ENTRIES:
                self._memo.popitem(last=False)
        return value

    def clear_memo(self) -> None:
        with self._lock:
            self._memo.clear()


def transcript_key(digest: str, format_override: str | None, session: str | None) -> str:
    return f"{digest}:{format_override or 'auto'}:{session or ''}"


def load_transcript(
    data: bytes,
    filename: str,
    *,
    format_override: str | None = None,
    session: str | None = None,
    digest: str | None = None,
) -> Transcript:
    """Parse an upload with ``core.formats.load`` (raises ``FormatError`` with a readable message).

    The upload's bytes are only read, never changed.
    """
    from core.formats import load

    kwargs: dict[str, Any] = {"filename": filename}
    if format_override:
        kwargs["format"] = format_override
    if session:
        kwargs["session"] = session
    conversation = load(bytes(data), **kwargs)
    digest = digest or content_digest(data)
    return Transcript(
        key=transcript_key(digest, format_override, session),
        filename=filename,
        conversation=conversation,
        messages=list(conversation.messages),
    )


def list_samples(directory: Path | None = None) -> list[Path]:
    """The bundled sample transcripts, sorted by name (README files and the like left out)."""
    folder = directory or SAMPLE_DIR
    if not folder.is_dir():
        return []
    return sorted(
        path
        for path in folder.iterdir()
        if path.is_file() and (path.suffix.lower() in SAMPLE_SUFFIXES or path.name.lower().endswith(SAMPLE_TEXT_NAMES))
    )


def default_sample(samples: list[Path]) -> Path | None:
    """The long coding session when it is bundled (so the dashboard opens on something), else the first."""
    for path in samples:
        name = path.name.lower()
        if "long" in name and "coding" in name:
            return path
    for path in samples:
        if "coding" in path.name.lower():
            return path
    return samples[0] if samples else None
