"""The conversation a session analyses: which one, read once, shared, and let go.

Every session that opens the same bytes (with the same format and session choice) shares one
:class:`~dashboard.memo.Transcript`, from a process-wide
:class:`~dashboard.memo.TranscriptCache`. A session holds the transcripts of its uploads and
of what it is looking at in its own state; once no session holds a transcript (the sessions closed,
or moved on) it is let go, with its analyses and its exact counts. The bundled samples are kept.

An upload is read in a child process within a budget of time and memory (``core.budget``): a file
that takes minutes or gigabytes to read is stopped there with a clear message, and the server (every
other session) never pays for it. The samples are read here (trusted, and the first page is one).
Every analysis of a transcript then runs within a budget of time (``Transcript.budget``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from core.budget import Budget, BudgetExceeded
from dashboard import ahead
from dashboard.memo import (
    Settings,
    Transcript,
    TranscriptCache,
    content_digest,
    default_sample,
    learn_sample_counts,
    list_samples,
    load_conversation,
    transcript_key,
    transcript_of,
)
from dashboard.state import escape_markdown, kept, set_kept

AUTO_FORMAT = "auto-detect"
SAMPLE_PREFIX = "Sample: "
UPLOAD_PREFIX = "Uploaded: "

#: Reading one upload (in a child process): time and memory.
READ_BUDGET = Budget(seconds=120.0, memory_mb=4096, scope="the limit of one upload")
#: The largest upload read (the library's default, as large as Streamlit's own upload limit).
UPLOAD_MAX_BYTES: int | None = None
#: Each analysis of a transcript (in the session's own thread: time only, the memory is shared).
ANALYSIS_BUDGET = Budget(seconds=300.0, memory_mb=None, scope="the limit of one analysis")
_HELD = "_transcripts_held"
#: The kept switch between the context the model last saw (the default) and the log's full history.
FULL_HISTORY_KEY = "full_history"


@st.cache_resource(show_spinner=False)
def transcript_cache() -> TranscriptCache:
    """The process's one cache of transcripts (shared by every session)."""
    return TranscriptCache()


def _read_upload(data: bytes, filename: str, fmt: str | None, session: str | None, digest: str,
                 full_history: bool) -> Transcript:
    from core.formats import FormatError
    from core.safe_text import safe_message

    try:
        conversation = _isolated_load(data, filename, fmt, session)
    except FormatError:
        raise
    except BudgetExceeded as exc:
        raise FormatError(f"{filename}: reading it {exc or 'went past its budget'} and was stopped; the file is "
                          "too large or too costly to read here") from None
    except MemoryError:
        raise FormatError(f"{filename}: the file is too large to analyse in memory") from None
    except Exception as exc:  # any importer bug still ends as a readable message, not a traceback
        raise FormatError(f"{filename}: could not be read ({type(exc).__name__}: {safe_message(str(exc))})") from None
    return _ready(transcript_of(conversation, filename, digest, fmt, session, full_history))


def _isolated_load(data: bytes, filename: str, fmt: str | None, session: str | None) -> Any:
    from core.budget import run_isolated

    # The limit is passed on: the child does not see this process's settings.
    return run_isolated(load_conversation, data, filename, fmt, session, UPLOAD_MAX_BYTES, budget=READ_BUDGET)


def _read_sample(data: bytes, filename: str, fmt: str | None, session: str | None, digest: str,
                 full_history: bool) -> Transcript:
    from core.formats import FormatError

    learn_sample_counts(filename, digest)
    try:
        conversation = load_conversation(data, filename, fmt, session)
    except FormatError:
        raise
    except Exception as exc:  # any importer bug still ends as a readable message, not a traceback
        raise FormatError(f"{filename}: could not be read ({type(exc).__name__}: {exc})") from None
    return _ready(transcript_of(conversation, filename, digest, fmt, session, full_history))


def _ready(transcript: Transcript) -> Transcript:
    transcript.budget = ANALYSIS_BUDGET
    transcript.on_budget = _stop_the_page
    return transcript


def _stop_the_page(exc: BudgetExceeded) -> None:
    """An analysis went past its budget (it was stopped where it stood): this page says so and ends.
    Other sessions never waited for it (core.budget)."""
    st.error(
        "This view was stopped: computing it " + escape_markdown(str(exc) or "went past its time budget")
        + ". The transcript is probably too large or too unusual for it; the other pages may still work."
    )
    st.stop()


def _opened(filename: str, data: bytes, digest: str, fmt: str | None, session: str | None,
            is_sample: bool) -> tuple[Transcript | None, str | None]:
    full = full_history_chosen()
    key = transcript_key(digest, fmt, session, full, filename=filename)
    read = _read_sample if is_sample else _read_upload
    cache = transcript_cache()
    if key in cache:
        transcript, error = cache.get(key, lambda: read(data, filename, fmt, session, digest, full), keep=is_sample)
    else:
        with st.spinner("Reading the transcript…"):
            transcript, error = cache.get(key, lambda: read(data, filename, fmt, session, digest, full), keep=is_sample)
        if transcript is not None and not is_sample:
            ahead.plan(transcript)
    if transcript is not None:
        _hold(transcript)
    return transcript, error


def _hold(transcript: Transcript) -> None:
    """This session holds the transcript it looks at, and those of its uploads (so switching between
    them does not read them again); the others it held are let go."""
    uploads = {item["digest"] for item in st.session_state.get("uploaded_files", [])}
    held = {key: value for key, value in st.session_state.get(_HELD, {}).items()
            if key.split(":", 1)[0] in uploads}
    held[transcript.key] = transcript
    st.session_state[_HELD] = held


def samples() -> list[Path]:
    return list_samples()


REJECTED_KEY = "rejected_uploads"


def rejected_uploads() -> dict[str, tuple[str, str]]:
    """Uploads no format could read: digest -> (file name, why). They leave the conversation picker."""
    return st.session_state.setdefault(REJECTED_KEY, {})


def _usable_uploads() -> list[dict[str, Any]]:
    rejected = rejected_uploads()
    return [item for item in st.session_state.get("uploaded_files", []) if item["digest"] not in rejected]


def conversation_options() -> list[str]:
    uploads = [UPLOAD_PREFIX + item["name"] for item in _usable_uploads()]
    return uploads + [SAMPLE_PREFIX + path.name for path in samples()]


def default_choice() -> str | None:
    choice = default_sample(samples())
    return SAMPLE_PREFIX + choice.name if choice else None


def selected_source() -> tuple[str, bytes, str] | None:
    """``(filename, bytes, digest)`` of the conversation being analysed, or None."""
    choice = kept("conversation_choice")
    if choice is None or choice not in conversation_options():
        choice = default_choice()
        uploads = _usable_uploads()
        if uploads:
            choice = UPLOAD_PREFIX + uploads[0]["name"]
        if choice is None:
            return None
        set_kept("conversation_choice", choice)
    if choice.startswith(UPLOAD_PREFIX):
        name = choice[len(UPLOAD_PREFIX):]
        for item in _usable_uploads():
            if item["name"] == name:
                return item["name"], item["data"], item["digest"]
        return None
    name = choice[len(SAMPLE_PREFIX):]
    for path in samples():
        if path.name == name:
            data = _sample_bytes(str(path))
            return path.name, data, content_digest(data)
    return None


@st.cache_resource(max_entries=32, show_spinner=False)
def _sample_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


def format_override() -> str | None:
    value = kept("format_choice", AUTO_FORMAT)
    return None if value in (None, AUTO_FORMAT) else str(value)


def full_history_chosen() -> bool:
    """Whether the pages show the log's full history rather than the context after the agent's last compaction."""
    return bool(kept(FULL_HISTORY_KEY, False))


def session_override() -> str | None:
    value = kept("session_choice")
    return str(value) if value else None


def current_transcript() -> tuple[Transcript | None, str | None]:
    """The conversation being analysed, or ``(None, error message)``; ``(None, None)`` when none is chosen."""
    source = selected_source()
    if source is None:
        return None, None
    filename, data, digest = source
    fmt, session = format_override(), session_override()
    is_sample = str(kept("conversation_choice") or "").startswith(SAMPLE_PREFIX)
    transcript, error = _opened(filename, data, digest, fmt, session, is_sample)
    if error and session:
        # A session id from another file: fall back to that file's default session.
        set_kept("session_choice", None)
        transcript, error = _opened(filename, data, digest, fmt, None, is_sample)
    if error and not is_sample and fmt is None:
        # No format reads it: it leaves the picker (its reason stays on the overview) and the
        # conversation analysed before it, or the default, is analysed again.
        rejected_uploads()[digest] = (filename, error)
        set_kept("conversation_choice", _choice_after_rejection())
        return current_transcript()
    return transcript, error


def _choice_after_rejection() -> str | None:
    """The choice to return to after a rejected upload: the last usable upload, else the default sample."""
    uploads = _usable_uploads()
    return UPLOAD_PREFIX + uploads[-1]["name"] if uploads else default_choice()


def require_transcript() -> Transcript:
    """The loaded conversation; otherwise a clear prompt (and the sample picker) and the page stops."""
    transcript, error = current_transcript()
    for name, _why in rejected_uploads().values():
        st.warning(f"{escape_markdown(name)} was not loaded (why is on **Upload & overview**); this page analyses "
                   "the conversation named below.", icon=":material/block:")
    if transcript is not None:
        if not transcript.messages:
            st.warning("This conversation has no messages to analyse. Pick another file on **Upload & overview**.")
            st.stop()
        return transcript
    if error:
        st.error(escape_markdown(error))
        st.info("Pick a sample or upload another file on the **Upload & overview** page.")
    else:
        empty_state()
    st.stop()
    raise AssertionError("unreachable")  # st.stop() ends the run


def empty_state() -> None:
    st.info("No conversation loaded yet. Upload a transcript on the **Upload & overview** page, or pick a sample:")
    options = [SAMPLE_PREFIX + path.name for path in samples()]
    if options:
        choice = st.selectbox("Sample conversation", options, key="empty_state_sample")
        if st.button("Analyse this sample"):
            set_kept("conversation_choice", choice)
            st.rerun()
    else:
        st.caption("No bundled samples were found in sample_conversations/.")


# Exact counting encodes roughly 10-30 MB of text a second here: a count of more text than this
# shows a progress bar while it runs.
COUNT_PROGRESS_CHARS = 8_000_000


def count_with_progress(transcript: Transcript, settings: Settings) -> None:
    """Make the transcript's exact counts, with a progress bar when they take long (a second or more)."""
    encoding = settings.encoding
    if transcript.has_message_table(encoding) or transcript.uncounted_chars(encoding) < COUNT_PROGRESS_CHARS:
        return
    label = f"Counting tokens exactly ({encoding})"
    bar = st.progress(0.0, text=f"{label}…")

    def report(done: int, total: int) -> None:
        bar.progress(min(1.0, done / max(total, 1)), text=f"{label}: {done / 1e6:,.0f} of {total / 1e6:,.0f} MB of text")

    transcript.count_exactly(encoding, report)
    bar.empty()


def message_table(transcript: Transcript, settings: Settings) -> Any:
    """The per-message table (exact tokens), with a progress bar while a long exact count runs."""
    count_with_progress(transcript, settings)
    return transcript.message_table(settings.encoding)
