"""The summarizer, strict redaction, and the compressions the pages share.

Results that depend only on the transcript and the settings (the offline compression, the replay)
are memoised on the transcript, under keys that hold every input (the settings carry the strict
switch); results of one session's run are kept with that run (:func:`run_view`), under an id no other
run has.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import streamlit as st

from dashboard.memo import Settings, Transcript
from dashboard.state import _KEPT_PREFIX, kept

T = TypeVar("T")

# The Compress & preview page's summarizer options (kept under "summarizer_choice").
OFFLINE_SUMMARIZER = "Offline extractive summary (default)"
REMOTE_SUMMARIZER = "A model through litellm"
LOCAL_SUMMARIZER = "Local model (SmolLM2, offline)"
NO_SUMMARIZER = "No summarizer (the profile's fallback)"
FAILING_SUMMARIZER = "A failing provider (simulation)"
SUMMARIZER_OPTIONS = [OFFLINE_SUMMARIZER, REMOTE_SUMMARIZER, LOCAL_SUMMARIZER, NO_SUMMARIZER, FAILING_SUMMARIZER]
# The Strategies page's choices of summarizer and of the truncation's budget (kept under "strategies_*").
STRATEGY_SUMMARIZERS = [OFFLINE_SUMMARIZER, NO_SUMMARIZER]
HERMES_BUDGET = "What Hermes kept (default)"
OWN_BUDGET = "A token budget of my own"
STRATEGY_BUDGET_MODES = [HERMES_BUDGET, OWN_BUDGET]
OWN_BUDGET_DEFAULT = 20_000
_STRICT_CHOICES = "strict_redaction_choices"


def summarizer_choice() -> str:
    choice = kept("summarizer_choice", OFFLINE_SUMMARIZER)
    return choice if choice in SUMMARIZER_OPTIONS else OFFLINE_SUMMARIZER


def strict_redaction_default(choice: str) -> bool:
    """Strict redaction is on by default for every summarizer: a remote provider receives the turns,
    and every summary (the offline one, the local model's, the fallback) quotes them, into the
    compressed conversation and the report a user attaches to an issue."""
    return choice in SUMMARIZER_OPTIONS


def strict_redaction_for(choice: str | None = None) -> bool:
    """The strict-redaction setting for a summarizer: the user's own choice for it, else the default."""
    choice = choice or summarizer_choice()
    choices = kept(_STRICT_CHOICES) or {}
    return bool(choices.get(choice, strict_redaction_default(choice)))


def strict_redaction_switch(choice: str | None = None, *, key: str = "strict_redaction",
                            label: str = "Strict redaction") -> bool:
    """The strict-redaction toggle for ``choice`` (the kept summarizer by default).

    It shows the user's own choice for that summarizer once they flipped it, else the default (on).
    Every page that draws it shares the same choices.
    """
    choice = choice or summarizer_choice()
    state = st.session_state
    state[key] = strict_redaction_for(choice)

    def remember() -> None:
        choices = dict(kept(_STRICT_CHOICES) or {})
        choices[choice] = bool(state[key])
        state[_KEPT_PREFIX + _STRICT_CHOICES] = choices

    return st.toggle(
        label,
        key=key,
        on_change=remember,
        help=(
            "A second redaction layer (detect-secrets' detectors plus rules for what they lack) over "
            "everything the summarizer reads, after the profile's own redaction: a remote provider never "
            "receives a credential, and no summary quotes one. On by default for every summarizer."
        ),
    )


# --- compression runs --------------------------------------------------------------------------


def offline_compression(transcript: Transcript, settings: Settings) -> Any:
    """A compression with the offline extractive summarizer, memoised per parameters."""
    def run() -> Any:
        from core import ContextCompressor

        try:
            from core.summarizers.factory import make_summarizer

            summarizer: Any = make_summarizer("extractive")
        except ImportError:
            summarizer = None
        config = settings.config()
        return ContextCompressor(config, summarizer=summarizer).compress(
            transcript.messages, on_crash="report", prune_plan=transcript.prune_plan(config))

    return transcript.memo(("offline-compression", settings), run)


def fact_index(transcript: Transcript) -> Any:
    """The facts of every message (``core.views.retention.FactIndex``), memoised on the transcript."""
    from core.views.retention import FactIndex

    return transcript.memo(("fact-index",), lambda: FactIndex(transcript.messages))


@dataclass(frozen=True)
class StrategyOptions:
    """The Strategies page's choices (a part of the comparison's memo key)."""

    summarizer: str | None  # "extractive", or None: no summarizer
    budget: int | None  # the truncation's budget; None: what Hermes kept
    keep_last: int  # tool outputs the masking keeps
    user_tokens: int  # the Codex-style reset's user-message tokens
    every_release: bool  # Hermes with every release, not only the sidebar's


def strategy_options() -> StrategyOptions:
    """The Strategies page's choices as this session keeps them (the defaults before it was opened):
    what the page compares, and what the work ahead compares for a new upload."""
    from core.strategies import CODEX_USER_TOKENS, DEFAULT_KEEP_LAST

    own_budget = kept("strategies_budget_mode", HERMES_BUDGET) == OWN_BUDGET
    return StrategyOptions(
        summarizer="extractive" if kept("strategies_summarizer", OFFLINE_SUMMARIZER) == OFFLINE_SUMMARIZER else None,
        budget=int(kept("strategies_budget", OWN_BUDGET_DEFAULT)) if own_budget else None,
        keep_last=int(kept("strategies_keep_last", DEFAULT_KEEP_LAST)),
        user_tokens=int(kept("strategies_user_tokens", CODEX_USER_TOKENS)),
        every_release=bool(kept("strategies_every_release", False)),
    )


def strategy_masking(transcript: Transcript, settings: Settings, options: StrategyOptions) -> Any:
    """The Codex-style reset's texts (every text of the log) masked in a worker process, started once
    per comparison (``core.redaction.RedactionAhead``; None without a summarizer: nothing to mask)."""
    from core.redaction import RedactionAhead
    from core.strategies.codex import summary_redactions

    def start() -> Any:  # in the transcript's scope (memo): the texts it has masked already are not sent
        return RedactionAhead(*summary_redactions(transcript.messages, settings.config()))

    if options.summarizer is None:
        return None
    return transcript.memo(("strategies", settings, options, "masking"), start)


def strategy_comparisons(transcript: Transcript, settings: Settings, options: StrategyOptions) -> Iterator[Any]:
    """Every strategy on the transcript (``core.views.strategies.compare_strategies``) with ``options``,
    memoised per parameters: the whole comparison last, and before it, when it is not remembered yet,
    the comparison without the strategies that summarise the whole log (a page shows it while they
    run). The offline summary's run of the sidebar's release is the one the other pages show: shared.

    The Codex-style reset summarises the whole log, so it masks every text of it first: those texts
    are masked in a worker process (:func:`strategy_masking`) while the page shows the other
    strategies. On the page the worker starts once they are made: started before, it slowed them
    (the two cores are shared with the browser) and did not bring the whole comparison sooner
    (``make bench``, Strategies in the browser)."""
    from core.views.strategies import compare_strategies

    key = ("strategies", settings, options)
    summarizer = options.summarizer

    def known() -> dict[str, Any]:
        return {settings.profile: offline_compression(transcript, settings)} if summarizer == "extractive" else {}

    def compare(**step: Any) -> Any:
        from core.summarizers.factory import make_summarizer

        return compare_strategies(transcript.messages, settings.config(),
                                  make_summarizer(summarizer) if summarizer else None, budget_tokens=options.budget,
                                  keep_last=options.keep_last, user_tokens=options.user_tokens,
                                  facts=fact_index(transcript), hermes_profiles=None if options.every_release else (),
                                  hermes_results=known(), **step)

    def first() -> Any:
        return transcript.memo((*key, "first"), lambda: compare(without_whole_log_summaries=True))

    if not transcript.remembers(key):
        # Each made (and limited) on its own, as the other pages make them; Hermes' run first: the work
        # ahead is making it right after an upload (waited for here, not made a second time beside it),
        # and its summary reads the facts and masks of the middle's texts, which the index then finds made.
        known()
        fact_index(transcript)
        shown = first()
        strategy_masking(transcript, settings, options)
        if shown.left_out:
            yield shown

    def whole() -> Any:
        masking = strategy_masking(transcript, settings, options)
        if masking is not None:
            masking.keep()
        return compare(earlier=first())

    yield transcript.memo(key, whole)


# The Release comparison page's summarizer choices (kept under "releases_*").
NO_RELEASE_SUMMARIZER = "No summarizer (each release's fallback)"
RELEASE_SUMMARIZERS = [OFFLINE_SUMMARIZER, NO_RELEASE_SUMMARIZER, FAILING_SUMMARIZER]


@dataclass(frozen=True)
class ReleaseOptions:
    """The Release comparison page's choices (a part of the comparison's memo key)."""

    summarizer: str  # one of RELEASE_SUMMARIZERS
    failure: str  # how the failing provider fails ("" unless it is chosen)
    force: bool  # compress even below the threshold


DEFAULT_RELEASE_OPTIONS = ReleaseOptions(summarizer=OFFLINE_SUMMARIZER, failure="", force=True)
DEFAULT_RELEASE_FAILURE = "timeout"  # the failure mode offered first when the failing provider is chosen


def release_options() -> ReleaseOptions:
    """The Release comparison page's choices as this session keeps them (the defaults before it was
    opened): what the page compares, and what the work ahead compares for a new upload."""
    summarizer = kept("releases_summarizer", DEFAULT_RELEASE_OPTIONS.summarizer)
    failure = kept("releases_failure", DEFAULT_RELEASE_FAILURE) if summarizer == FAILING_SUMMARIZER else ""
    return ReleaseOptions(summarizer=summarizer, failure=failure,
                          force=bool(kept("releases_force", DEFAULT_RELEASE_OPTIONS.force)))


def release_comparison(transcript: Transcript, settings: Settings, options: ReleaseOptions,
                       *, keep_going: Callable[[], bool] | None = None) -> Any:
    """Every release's compression of the transcript (``core.views.releases.compare_releases``),
    memoised per parameters. With the offline summary the sidebar release's row is
    :func:`offline_compression`, the run the other pages show, and each other release's compression
    is memoised on its own (:func:`release_run`), so work that stops between releases (the work
    ahead, once ``keep_going`` says no: None is returned) is not lost."""
    from functools import partial

    from core.profiles import PROFILES
    from core.summarizers.factory import make_summarizer
    from core.views.releases import compare_releases

    key = ("release-comparison", settings, options)
    offline = options.summarizer == OFFLINE_SUMMARIZER
    if offline and keep_going is not None and not transcript.remembers(key):
        for release in PROFILES:  # one at a time, asking between two (a page makes them all in compare)
            if not keep_going():
                return None
            release_run(transcript, settings, options, release)

    def compare() -> Any:
        if options.summarizer == FAILING_SUMMARIZER:
            factory = partial(make_summarizer, "failing", failure=options.failure)
        else:
            factory = partial(make_summarizer, "none" if options.summarizer == NO_RELEASE_SUMMARIZER else "extractive")
        known = ({release: release_run(transcript, settings, options, release) for release in PROFILES}
                 if offline else None)
        return compare_releases(transcript.messages, settings.config(), factory, force=options.force,
                                prune_plan=transcript.prune_plan, known=known)

    return transcript.memo(key, compare)


def release_run(transcript: Transcript, settings: Settings, options: ReleaseOptions, release: str) -> Any:
    """One release's compression with the offline summary, as the comparison makes it (the sidebar
    release's is :func:`offline_compression`), memoised on its own."""
    from dataclasses import replace

    from core.summarizers.factory import make_summarizer
    from core.views.releases import release_compression

    if release == settings.profile:
        return offline_compression(transcript, settings)
    config = replace(settings.config(), profile=release)

    def compress() -> Any:
        return release_compression(transcript.messages, config, lambda: make_summarizer("extractive"),
                                   force=options.force, prune_plan=transcript.prune_plan(config))[0]

    return transcript.memo(("release-run", settings, options.force, release), compress)


def whole_request(transcript: Transcript, settings: Settings) -> Any:
    """The log's whole request (``core.inspections.request``) in the unit the compressor decides in."""
    from core.inspections.request import request_breakdown, weigher_for

    weigher = weigher_for(settings.config())
    return transcript.memo(("request", weigher.unit), lambda: request_breakdown(transcript.conversation, weigher))


def replay_run(transcript: Transcript, settings: Settings, summarizer: str, make_summarizer: Callable[[], Any],
               seconds: int = 30, use_recorded: bool = True) -> Any:
    """The timeline replay with the whole request as the trigger's size, memoised per parameters
    (the Timeline replay and Fact retention pages share it)."""
    from core.views.replay import replay

    return transcript.memo(
        ("replay", settings, summarizer, int(seconds), use_recorded),
        lambda: replay(transcript.messages, settings.config(), make_summarizer(), seconds_per_turn=float(seconds),
                       request=whole_request(transcript, settings), use_recorded=use_recorded),
    )


def new_run_id() -> str:
    """An id no other run has, in this session or any other (a per-session counter is not: two sessions
    on one transcript would share the results one of them computed)."""
    import uuid

    return uuid.uuid4().hex


def run_view(run: dict[str, Any], name: Hashable, compute: Callable[[], T]) -> T:
    """What a run's views compute, kept with the run in its session (never in the transcript, which
    every session opening the same file shares): gone with the run, or with the session."""
    views = run.setdefault("views", {})
    if name not in views:
        views[name] = compute()
    return views[name]


def last_run_for(transcript: Transcript, settings: Settings) -> dict[str, Any] | None:
    """The user's last compression on the Compress page, when it matches this conversation and these parameters."""
    run = st.session_state.get("compression")
    if run and run.get("transcript_key") == transcript.key and run.get("settings") == settings:
        return run
    return None


def run_with_progress(work: Callable[[], T], show: Callable[[float], None], *,
                      on_abandon: Callable[[], None] | None = None, every: float = 0.5) -> T:
    """``work()`` in a worker thread while ``show(seconds elapsed)`` runs here, first at once and then
    every ``every`` seconds.

    Streamlit stops a script (the user's Stop, a rerun) by raising from its next call, which is
    ``show``'s; ``on_abandon`` then runs before the exception goes on, for what the abandoned work
    still holds (a local model still generating). ``work``'s own exception is raised here.
    """
    import threading
    import time

    outcome: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the caller's thread as it is
            outcome["error"] = exc
        finally:
            done.set()

    started = time.perf_counter()
    show(0.0)  # at once, so that a short run shows its progress too (a stop here has started nothing)
    threading.Thread(target=target, name="context-lens-run", daemon=True).start()
    try:
        while not done.wait(every):
            show(time.perf_counter() - started)
    finally:
        if not done.is_set() and on_abandon is not None:
            on_abandon()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
