"""Per-upload analysis state: the loaded transcript, its token tables and memoised analyses.

A :class:`Transcript` is built once per upload (keyed by a hash of the file's bytes, the chosen
format and session) and then reused on every rerun: exact token counts are computed once per
encoding, and each parameter-dependent analysis is memoised under its parameters, so moving a
slider back to a previous value costs nothing and moving it to a new value never re-tokenizes.

A :class:`TranscriptCache` shares one transcript between the sessions that open the same bytes, and
lets it go (its analyses and its exact counts with it) once no session holds it any more. Results
that depend on one session's run are not kept here but with the run (the dashboard's session).

Nothing here imports Streamlit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from core.budget import Budget, BudgetExceeded, within
from core.config import CompressorConfig, CompressorParameters
from core.plan import prepare, prune_plan_key
from core.remembered import TextMemo, remembering
from core.rules import PrunePlan
from core.tokens import TokenCounter, counted_texts, encoding_name_for_model, get_counter

if TYPE_CHECKING:  # pandas loads in about a second: only the tables need it, not the first paint
    import pandas as pd

T = TypeVar("T")

# Parameter-dependent analyses kept per transcript (slider positions visited recently).
MEMO_ENTRIES = 64
# How often a thread waiting for another's computation of the same analysis looks again.
_WAIT_STEP_S = 0.05
# Set in work no page waits on (``unattended``): a budget that runs out there is not told to a page.
_UNATTENDED: ContextVar[bool] = ContextVar("context_lens_unattended", default=False)

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_conversations"
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
    # The strict layer over what the offline summary reads (its summaries quote the turns): a part of
    # every memo key that holds a summary.
    strict_redaction: bool = False

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
    # Each computation on the transcript runs within this budget of time (core.budget; None: none);
    # past it, ``on_budget`` (when set) is told before the exception goes on (the dashboard stops the
    # page there with a message).
    budget: Budget | None = field(default=None, repr=False)
    # Every analysis masks and reads the same turns (each release, sweep cell and strategy): once per text here.
    _answers: TextMemo = field(default_factory=TextMemo, repr=False)
    on_budget: Callable[[BudgetExceeded], None] | None = field(default=None, repr=False)
    # The keys being computed right now, each with its thread and the event set when it is done.
    _computing: dict[Hashable, tuple[int, threading.Event]] = field(default_factory=dict, repr=False)

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
        with self.budgeted():
            get_counter(encoding).warm(counted_texts(self.messages), on_progress)

    def message_table(
        self, encoding: str, on_progress: Callable[[int, int], None] | None = None
    ) -> pd.DataFrame:
        """Per-message roles, tools, exact token counts by category and previews (once per encoding).

        ``on_progress(done, total)`` follows the exact count, in characters, when it has to be made.
        """
        from core.inspections.overview import message_frame

        with self._lock:
            table = self._tables.get(encoding)
            if table is None:
                counter = get_counter(encoding)
                self.count_exactly(encoding, on_progress)
                sources = getattr(self.conversation, "sources", None)
                with self.budgeted():
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
                with self.budgeted():
                    plan = prepare(self.messages, config)
                self._plans[key] = plan
            return plan

    @contextlib.contextmanager
    def budgeted(self) -> Iterator[None]:
        """A computation on this transcript, within its budget (``on_budget`` is told when it runs out)."""
        try:
            with within(self.budget), remembering(self._answers):
                yield
        except BudgetExceeded as exc:
            if self.on_budget is not None and not _UNATTENDED.get():
                self.on_budget(exc)
            raise

    def remembers(self, key: Hashable) -> bool:
        """Whether :meth:`memo` holds a result under ``key``."""
        with self._lock:
            return key in self._memo

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` once per key; the most recent ``MEMO_ENTRIES`` results are kept.

        While another thread computes the same key (another session on the same file, or the work
        ahead of ``dashboard.ahead``) this one waits for its result instead of computing it again;
        if that computation fails, this one computes it itself."""
        me = threading.get_ident()
        mine: tuple[int, threading.Event] | None = None
        try:
            while True:
                with self._lock:
                    if key in self._memo:
                        self._memo.move_to_end(key)
                        return self._memo[key]
                    running = self._computing.get(key)
                    if running is None:
                        mine = (me, threading.Event())
                        self._computing[key] = mine
                        break
                    if running[0] == me:  # asked again within its own computation: computed here
                        break
                # Waited within this thread's budget, in short steps: the watchdog stops it between them.
                with self.budgeted():
                    while not running[1].wait(_WAIT_STEP_S):
                        pass
            with self.budgeted():
                value = compute()
            with self._lock:
                self._memo[key] = value
                while len(self._memo) > MEMO_ENTRIES:
                    self._memo.popitem(last=False)
            return value
        finally:
            if mine is not None:
                with self._lock:
                    if self._computing.get(key) is mine:
                        del self._computing[key]
                mine[1].set()

    def clear_memo(self) -> None:
        with self._lock:
            self._memo.clear()


@contextlib.contextmanager
def unattended() -> Iterator[None]:
    """Work on transcripts that no page is waiting on (a thread of its own): a budget that runs out
    in it raises ``BudgetExceeded`` as usual, but ``Transcript.on_budget`` (which ends a page) is not called."""
    token = _UNATTENDED.set(True)
    try:
        yield
    finally:
        _UNATTENDED.reset(token)


def transcript_key(digest: str, format_override: str | None, session: str | None, full_history: bool = False,
                   *, filename: str) -> str:
    """The cache key of a transcript: its bytes, how they are read, and the name they were given.

    The name is part of it: the formats read it (an extension picks a reader), the pages show it, and
    two sessions uploading the same bytes under different names must each see their own name."""
    name = hashlib.sha256(filename.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{digest}:{format_override or 'auto'}:{session or ''}" + (":full" if full_history else "") + f":{name}"


def load_conversation(
    data: bytes, filename: str, format_override: str | None = None, session: str | None = None,
    max_bytes: int | None = None,
) -> Any:
    """``core.formats.load`` of an upload's bytes (a top-level function: it runs in a child process too).

    ``max_bytes`` None: the library's default limit."""
    from core.formats import load

    kwargs: dict[str, Any] = {"filename": filename}
    if max_bytes is not None:
        kwargs["max_bytes"] = max_bytes
    if format_override:
        kwargs["format"] = format_override
    if session:
        kwargs["session"] = session
    return load(bytes(data), **kwargs)


def load_transcript(
    data: bytes,
    filename: str,
    *,
    format_override: str | None = None,
    session: str | None = None,
    digest: str | None = None,
    full_history: bool = False,
) -> Transcript:
    """Parse an upload with ``core.formats.load`` (raises ``FormatError`` with a readable message).

    The upload's bytes are only read, never changed.
    """
    conversation = load_conversation(data, filename, format_override, session)
    return transcript_of(conversation, filename, digest or content_digest(data), format_override, session, full_history)


def transcript_of(
    conversation: Any, filename: str, digest: str, format_override: str | None = None, session: str | None = None,
    full_history: bool = False,
) -> Transcript:
    """A :class:`Transcript` of a loaded conversation: the context the model last saw (after the agent's
    last compaction of its log, ``Conversation.live_context``), or with ``full_history`` every message."""
    shown = conversation if full_history else conversation.live_context()
    return Transcript(
        key=transcript_key(digest, format_override, session, full_history, filename=filename),
        filename=filename,
        conversation=shown,
        messages=list(shown.messages),
    )


def _release_memory(text_ids: frozenset[int]) -> None:
    """What a transcript let go: its texts' exact counts, and the freed memory back to the system."""
    from core.tokens import forget_counted

    forget_counted(text_ids)
    with contextlib.suppress(Exception):  # glibc only: freed pages otherwise stay with the process
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)


class TranscriptCache:
    """Transcripts shared by every session that opens the same bytes (and format and session), kept
    while a session holds one (``hold``) and let go, with everything derived from them, once none
    does. ``keep`` names the transcripts worth keeping anyway (the bundled samples: cheap, and every
    new session opens one). Load errors are kept (small) so a bad file is not read again at once."""

    def __init__(self, errors: int = 64) -> None:
        self._live: weakref.WeakValueDictionary[str, Transcript] = weakref.WeakValueDictionary()
        self._kept: dict[str, Transcript] = {}
        self._errors: OrderedDict[str, str] = OrderedDict()
        self._error_slots = errors
        self._loading: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def __contains__(self, key: str) -> bool:
        return key in self._live

    def __len__(self) -> int:
        return len(self._live)

    def get(
        self, key: str, load: Callable[[], Transcript], *, keep: bool = False
    ) -> tuple[Transcript | None, str | None]:
        """The transcript under ``key``, loading it once (``load`` raises ``ValueError`` with the
        message to show for a file that cannot be read): ``(transcript, None)`` or ``(None, error)``."""
        with self._lock:
            found = self._live.get(key)
            if found is not None:
                return found, None
            if key in self._errors:
                return None, self._errors[key]
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:  # two sessions opening the same file read it once
            with self._lock:
                found = self._live.get(key)
            if found is not None:
                return found, None
            try:
                transcript = load()
            except ValueError as exc:
                with self._lock:
                    self._errors[key] = str(exc)
                    while len(self._errors) > self._error_slots:
                        self._errors.popitem(last=False)
                    self._loading.pop(key, None)
                return None, str(exc)
            texts = frozenset(id(text) for text in counted_texts(transcript.messages))
            weakref.finalize(transcript, _release_memory, texts)
            with self._lock:
                self._live[key] = transcript
                if keep:
                    self._kept[key] = transcript
                self._loading.pop(key, None)
            return transcript, None


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


# Exact counts the first page makes on a bundled sample, made ahead of time by
# ``sample_conversations/first_page_counts.py`` (one file per sample, named after it).
COUNTS_DIR = SAMPLE_DIR / "token_counts"


def counts_file(sample_name: str, directory: Path | None = None) -> Path:
    return (directory or COUNTS_DIR) / f"{sample_name}.counts.json"


def learn_sample_counts(sample_name: str, digest: str, directory: Path | None = None) -> list[str]:
    """Hand the counters a bundled sample's known counts, when its table was made from the bytes of
    ``digest`` (``content_digest``); the encodings it covers (none when there is no table, or it is
    of another version)."""
    import json

    from core.tokens import add_known_counts

    path = counts_file(sample_name, directory)
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # no table (or an unreadable one): the counts are made as for any upload
    if not isinstance(table, dict) or table.get("sample_digest") != digest:
        return []
    learned = []
    for encoding, counts in (table.get("counts") or {}).items():
        if isinstance(counts, dict):
            add_known_counts(encoding, {str(k): int(v) for k, v in counts.items()})
            learned.append(encoding)
    return learned


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
