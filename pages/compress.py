"""Compress & preview: run the compressor, read the result, download it."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import streamlit as st

from core.render.formatting import integer
from core.summarizers.llm import CLIENT_DEFAULT_RETRIES, DEFAULT_TIMEOUT_S
from core.views.run import run_figures
from core.wording import article
from dashboard.compress_tabs import (
    drilldown_of,
    outcome_panel,
    reset_panels,
    run_chart,
    run_memo,
    show_cost,
    show_diff,
    show_downloads,
    show_preview,
)
from dashboard.memo import Settings, Transcript
from dashboard.repair_losses import losses_of_run, repair_losses_notice
from dashboard.runs import run_with_progress
from dashboard.sidebar import (
    FAILING_SUMMARIZER,
    LOCAL_SUMMARIZER,
    NO_SUMMARIZER,
    OFFLINE_SUMMARIZER,
    REMOTE_SUMMARIZER,
    SUMMARIZER_OPTIONS,
    current_settings,
    escape_markdown,
    keep,
    kept,
    message_table,
    new_run_id,
    page_setup,
    require_transcript,
    source_caption,
    strict_redaction_for,
    strict_redaction_switch,
)
from dashboard.ui import metric_row, plain_text

OFFLINE, LITELLM, LOCAL, NONE = OFFLINE_SUMMARIZER, REMOTE_SUMMARIZER, LOCAL_SUMMARIZER, NO_SUMMARIZER
FAILING = FAILING_SUMMARIZER
SUMMARIZERS = SUMMARIZER_OPTIONS



@st.cache_resource(show_spinner="Starting the local model…")
def _started_local_server() -> Any:
    from core.summarizers.llm import import_litellm
    from core.summarizers.local import LocalModelServer

    server = LocalModelServer().start()
    import_litellm()  # several seconds, once: not inside the first run's time
    return server


def _local_server() -> Any:
    server = _started_local_server()
    if not server.running:  # a restart after a stopped run failed: try once more now
        server.start()
    return server


def _progress_label(seconds: float, choice: str) -> str:
    """The running status: the time so far and, for the local model, its tokens so far."""
    label = f"Compressing… {seconds:.0f} s"
    if choice != LOCAL:
        return label
    progress = _started_local_server().progress()
    if progress is None or progress.prompt_tokens is None:
        return label
    if progress.generated_tokens:
        return label + (f" · the local model read a {progress.prompt_tokens:,}-token prompt and has written "
                        f"{progress.generated_tokens:,} tokens")
    return label + f" · the local model is reading a {progress.prompt_tokens:,}-token prompt"


def _local_available() -> bool:
    try:
        from core.summarizers.local import LocalModelServer

        return LocalModelServer.is_available()
    except Exception:
        return False


def _build_summarizer(choice: str, settings: Settings) -> tuple[Any, str]:
    """The summarizer for the chosen option and a label for it (never containing a key)."""
    from core.summarizers.factory import make_summarizer

    if choice == OFFLINE:
        return make_summarizer("extractive"), "offline extractive summary"
    if choice == LITELLM:
        model = (kept("llm_model") or "").strip()
        summarizer = make_summarizer(
            "litellm",
            model=model or None,
            summary_model=(kept("llm_summary_model") or "").strip() or None,
            api_base=(kept("llm_api_base") or "").strip() or None,
            # The key lives only in this widget's state: never kept, stored or logged.
            api_key=st.session_state.get("llm_api_key") or None,
            timeout=float(kept("llm_timeout", DEFAULT_TIMEOUT_S)),
            max_retries=int(kept("llm_retries", CLIENT_DEFAULT_RETRIES)),
        )
        return summarizer, f"litellm: {model or 'no model'}"
    if choice == LOCAL:
        from core.summarizers.local import local_summarizer

        summarizer = local_summarizer(_local_server(), timeout=float(kept("local_timeout", DEFAULT_TIMEOUT_S)),
                                      max_retries=int(kept("local_retries", 0)))
        return summarizer, "local model"
    if choice == FAILING:
        from core.summarizers.failing import FAILURE_MODES

        mode = kept("failure_mode", "timeout")
        return make_summarizer("failing", failure=mode), f"simulated failure: {FAILURE_MODES[mode].label}"
    return make_summarizer("none"), "no summarizer"


def _deadline_inputs(prefix: str, default_retries: int) -> None:
    """The deadline and retries of one summary call (``<prefix>_timeout``, ``<prefix>_retries``)."""
    d1, d2, _ = st.columns([1, 1, 2])
    d1.number_input("Deadline (s)", min_value=1.0, max_value=3600.0, step=10.0,
                    **keep(f"{prefix}_timeout", DEFAULT_TIMEOUT_S),
                    help="The whole summary call (connecting, reading and every retry) must end within this; "
                         "past it the call counts as a timeout and the fallback summary is used.")
    d2.number_input("Retries", min_value=0, max_value=10, step=1, **keep(f"{prefix}_retries", default_retries),
                    help="Retries of a failed request (connection error, timeout, 429, 5xx), within the deadline.")


def _run(transcript: Transcript, settings: Settings, choice: str, strict: bool) -> None:
    from core import ContextCompressor

    focus = (kept("focus_topic") or "").strip() or None
    force = bool(kept("force", False))
    memory = str(kept("memory_context", "") or "")
    with st.status("Compressing…", expanded=True) as status:
        try:
            status.write("Building the summarizer…")
            summarizer, label = _build_summarizer(choice, settings)
            status.write(
                f"Pruning, zoning and summarising {len(transcript.messages):,} messages with the {label}…"
            )
            started = time.perf_counter()
            config = dataclasses.replace(settings.config(), strict_redaction=strict)
            compressor = ContextCompressor(config, summarizer=summarizer)
            result = run_with_progress(
                lambda: compressor.compress(transcript.messages, focus_topic=focus, force=force,
                                            memory_context=memory, on_crash="report"),
                lambda seconds: status.update(label=_progress_label(seconds, choice)),
                # A stopped run must not leave the local model generating an answer nobody reads.
                on_abandon=_local_server().restart if choice == LOCAL else None,
            )
            elapsed = time.perf_counter() - started
        except Exception as exc:  # a summarizer that cannot even be built ends here, readably
            status.update(label="The compressor could not run", state="error")
            st.session_state["compression_error"] = f"{type(exc).__name__}: {exc}"
            return
        state = "error" if result.outcome in ("aborted", "crashed") else "complete"
        status.update(label=f"Done in {elapsed:.2f} s — {result.outcome.replace('_', ' ')}", state=state,
                      expanded=False)
    st.session_state.pop("compression_error", None)
    st.session_state["compression"] = {
        # Unique across sessions: every view of this run is kept with it, under this id.
        "run_id": new_run_id(),
        "transcript_key": transcript.key,
        "settings": settings,
        "summarizer_label": label,
        "choice": choice,
        "strict_redaction": strict,
        # The model that wrote the summary, when a provider did (it prices the summary call).
        "summary_call_model": (getattr(summarizer, "last_call", None) or {}).get("model"),
        "focus_topic": focus,
        "force": force,
        "elapsed": elapsed,
        "result": result,
    }


st.title("Compress & preview")  # here, not in a module the page imports: that runs once per server
settings = page_setup()
transcript = require_transcript()
source_caption(transcript)
counter = transcript.counter(settings.encoding)

with st.container(border=True):
    choice = st.radio("Summarizer", SUMMARIZERS, horizontal=True, **keep("summarizer_choice", OFFLINE))
    runnable = True
    if choice == LITELLM:
        m1, m2 = st.columns(2)
        m1.text_input("Model (litellm name)", **keep("llm_model", settings.model or "gpt-4o-mini"), help="e.g. gpt-4o-mini, anthropic/claude-sonnet-4-5, "
                      "openai/<name> for an OpenAI-compatible server at the base URL")
        m2.text_input("Summary model (optional)", **keep("llm_summary_model", ""),
                      help="Writes the summaries; on failure the main model takes over, as in Hermes.")
        k1, k2 = st.columns(2)
        k1.text_input("API key", type="password", key="llm_api_key",
                      help="Held in memory for this browser session only: never written to disk, logged or exported.")
        k2.text_input("Base URL (optional)", **keep("llm_api_base", ""), placeholder="http://127.0.0.1:8080/v1")
        _deadline_inputs("llm", CLIENT_DEFAULT_RETRIES)
    elif choice == LOCAL and _local_available():
        from core.summarizers.factory import LOCAL_MAX_TOKENS_CAP
        from core.summarizers.local_summary import PROMPT_CHARS, TURN_CHARS

        st.caption(
            f"SmolLM2-135M runs on this machine's CPU, so it gets a short prompt of its own: a few lines of "
            f"instructions and the turns, each cut to {TURN_CHARS:,} characters, the first and the latest ones "
            f"up to {PROMPT_CHARS:,} characters (the **Summarizer call** tab still shows the compressor's prompt). Its "
            f"summaries are capped at {LOCAL_MAX_TOKENS_CAP} tokens: the compressor asks for 1.3 × the summary "
            "budget (2,600 tokens or more), which would take the small model minutes to write."
        )
        _deadline_inputs("local", 0)
    elif choice == LOCAL:
        runnable = False
        st.info("The local model is not installed. Install it with `make local-model` "
                "(or `bash scripts/install_local_model.sh`), then reload this page.")
    elif choice == NONE:
        st.caption("Without a summarizer the compressor takes the profile's fallback path "
                   "(v0.16.0: a deterministic summary of the turns; v0.15.1: a fixed note).")
    elif choice == FAILING:
        from core.summarizers.failing import FAILURE_MODES

        st.selectbox("How every summary call fails", list(FAILURE_MODES), format_func=lambda k: FAILURE_MODES[k].label,
                     **keep("failure_mode", "timeout"),
                     help="What the release then does: its cooldown (v0.19.0 backs timeouts off 60, 300, 900 s), "
                          "a fallback summary, or an abort that keeps the conversation as it was.")
    f1, f2, f3 = st.columns([3, 1, 1.6], vertical_alignment="bottom")
    f1.text_input("Focus topic (optional)", **keep("focus_topic", ""),
                  help="Ask the summary to prioritise this topic, like /compress <topic>.")
    f2.checkbox("Force", **keep("force", False), help="Clear a summary-failure cooldown first, like a manual /compress.")
    f3.checkbox("Abort on summary failure", **keep("abort_on_summary_failure", False),
                help="Keep the conversation unchanged instead of inserting a fallback summary.")
    st.text_area("Memory provider context (optional)", **keep("memory_context", ""), height=68,
                 help="What a memory provider returns just before compaction. From v0.19.0 it is redacted (URL "
                      "credentials too) and added to the summary prompt after the turns; earlier releases ignore it.")
    strict = strict_redaction_switch(choice)
    st.caption(
        "Strict redaction is " + ("**on**" if strict else "**off**") + " for this summarizer "
        "(on by default: a provider never receives a credential and no summary quotes one). **Redaction "
        "preview** shows exactly what the summarizer receives."
    )
    if st.button("Run the compressor", type="primary", disabled=not runnable, key="run_compressor"):
        _run(transcript, current_settings(), choice, strict)

if st.session_state.get("compression_error"):
    st.error("The compressor could not run: " + escape_markdown(st.session_state["compression_error"]))

run = st.session_state.get("compression")
if run is None or run["transcript_key"] != transcript.key:
    st.info("Choose a summarizer and press **Run the compressor** to see the result here.")
    st.stop()
if run["settings"] != current_settings() or run.get("strict_redaction") != strict_redaction_for(run.get("choice")):
    st.warning("The parameters changed since this run; press **Run the compressor** again to update it.")

result = run["result"]
run_counter = transcript.counter(run["settings"].encoding)
run_frame = message_table(transcript, run["settings"])
figures = run_memo(run, "figures", lambda: run_figures(result, run_frame, run_counter))
outcome_panel(result, run, run_counter, figures)
repair_losses_notice(losses_of_run(run), "compress")
run_chart(transcript, result, run, run_counter)
reset_panels(run, drilldown_of(run, result, run_counter))

preview_tab, diff_tab, summary_tab, call_tab, cost_tab, download_tab = st.tabs(
    ["Preview", "Before / after", "Summary", "Summarizer call", "Cost", "Download"]
)
with preview_tab:
    show_preview(run, result, run_counter, transcript.messages)
with diff_tab:
    show_diff(run, result, run_counter, transcript.messages)
with summary_tab:
    assembly = result.assembly
    if assembly is not None and assembly.summary_text:
        if assembly.summary_merged:
            where = "merged into the first tail message"
        else:
            role = str(assembly.summary_role or "user")
            where = f"{article(role)} {role} message"
        st.caption(f"Inserted as {escape_markdown(where)}.")
        plain_text(assembly.summary_text, "compress_summary")
    else:
        st.info("No summary was written in this run.")
with call_tab:
    call = result.summarizer_call
    if call is None:
        st.info("No summarizer call was made" + (" (cooldown)." if result.cooldown_skipped else "."))
    else:
        metric_row("call", [
            ("max_tokens", integer(call.max_tokens) if call.max_tokens is not None else "none sent"),
            ("Summary budget", integer(call.summary_budget)),
            ("Turn tokens", integer(call.content_tokens)),
        ])
        if call.error:
            st.error("The call failed: " + escape_markdown(call.error))
        with st.expander("The prompt sent to the summarizer"):
            st.code(call.prompt, language=None, wrap_lines=True)
with cost_tab:
    show_cost(transcript, result, run)
with download_tab:
    show_downloads(transcript, result, run["settings"], run.get("choice", choice), run, run_counter)
