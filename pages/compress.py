"""Compress & preview: run the compressor, read the result, download it."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import streamlit as st

from core.analysis.preview import changed_pairs, message_diff, preview_messages, side_by_side
from core.analysis.session import Settings, Transcript
from core.analysis.summary_check import EMPTY, summary_problem
from core.summarizers.llm import CLIENT_DEFAULT_RETRIES, DEFAULT_TIMEOUT_S
from pages._shared import (
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
    page_setup,
    require_transcript,
    source_caption,
    strict_redaction_for,
    strict_redaction_switch,
)

OFFLINE, LITELLM, LOCAL, NONE = OFFLINE_SUMMARIZER, REMOTE_SUMMARIZER, LOCAL_SUMMARIZER, NO_SUMMARIZER
SUMMARIZERS = SUMMARIZER_OPTIONS
PAGE_SIZE = 25
SHOWN_CHARS = 4_000
# Longer messages scroll inside a fixed-height box so one tool output cannot fill the page.
LONG_LINES, LONG_CHARS, LONG_HEIGHT = 12, 1_200, 280

BADGE_COLORS = {
    "HEAD": "blue",
    "SUMMARY": "orange",
    "TAIL": "green",
    "KEPT": "gray",
    "stub": "gray",
    "merged": "orange",
    "fallback": "red",
    "system note": "gray",
    "deduplicated": "violet",
    "one-liner": "red",
    "arguments shrunk": "orange",
    "image stripped": "blue",
}


@st.cache_resource(show_spinner="Starting the local model…")
def _local_server() -> Any:
    from core.summarizers.local import LocalModelServer

    return LocalModelServer().start()


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
    with st.status("Compressing…", expanded=True) as status:
        try:
            status.write("Building the summarizer…")
            summarizer, label = _build_summarizer(choice, settings)
            status.write(
                f"Pruning, zoning and summarising {len(transcript.messages):,} messages with the {label}…"
            )
            started = time.perf_counter()
            config = dataclasses.replace(settings.config(), strict_redaction=strict)
            result = ContextCompressor(config, summarizer=summarizer).compress(
                transcript.messages, focus_topic=focus, force=force
            )
            elapsed = time.perf_counter() - started
        except Exception as exc:  # a summarizer that cannot even be built ends here, readably
            status.update(label="The compressor could not run", state="error")
            st.session_state["compression_error"] = f"{type(exc).__name__}: {exc}"
            return
        state = "error" if result.outcome == "aborted" else "complete"
        status.update(label=f"Done in {elapsed:.2f} s — {result.outcome.replace('_', ' ')}", state=state,
                      expanded=False)
    st.session_state.pop("compression_error", None)
    run_id = st.session_state.get("compression_runs", 0) + 1
    st.session_state["compression_runs"] = run_id
    st.session_state["compression"] = {
        "run_id": run_id,
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


def _badges(badges: list[str]) -> str:
    return " ".join(f":{BADGE_COLORS.get(b, 'gray')}-badge[{b}]" for b in badges if b in BADGE_COLORS)


def _shown(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return text[:SHOWN_CHARS] + f"\n… ({len(text) - SHOWN_CHARS:,} more characters)"


def _profile_of(run: dict[str, Any]) -> str:
    return str(getattr(run["settings"], "profile", "")) or "this release"


def _outcome(result: Any, run: dict[str, Any], counter: Any, original_tokens: int) -> None:
    after_tokens = counter.count_messages(result.messages)
    n_before, n_after = len(result.input_messages), len(result.messages)
    if result.cooldown_skipped:
        reason = "no call was made: the summarizer is cooling down after an earlier failure"
    else:
        reason = escape_markdown(result.failure_reason or "no summarizer configured")
    problem = summary_problem(result, counter)
    if problem is not None:
        title = "Empty summary" if problem.kind == EMPTY else "Oversized summary"
        st.warning(
            f"**{title}, counted as a success.** Messages {result.compress_start}–{result.compress_end - 1} "
            f"were summarised, but {escape_markdown(problem.message)}. Hermes {escape_markdown(_profile_of(run))} "
            "keeps such a summary as it is; check the summarizer before relying on this result."
        )
    elif result.outcome == "summarized":
        st.success(
            f"**Summarised.** Messages {result.compress_start}–{result.compress_end - 1} became one summary "
            f"({n_before:,} → {n_after:,} messages)."
        )
    elif result.outcome == "fallback":
        st.warning(
            f"**Fallback summary.** The summarizer failed ({reason}), so the profile's fallback summary replaced "
            f"messages {result.compress_start}–{result.compress_end - 1}."
        )
    elif result.outcome == "aborted":
        release = escape_markdown(_profile_of(run))
        why = {
            "authentication": f"Hermes {release} always aborts on an authentication failure, and keeps aborting "
                              "until a summary succeeds",
            "network": f"Hermes {release} always aborts on a network or connection failure, and keeps aborting "
                       "until a summary succeeds",
        }.get(result.abort_reason or "", "abort on failure is on")
        st.error(
            f"**Aborted.** The summarizer failed ({reason}) and {why}: the conversation stays as it was "
            "(only Phase 1's pruning is in the result)."
        )
    elif result.outcome == "too_small":
        st.info("**Too small to compress.** The conversation has too few messages; it is returned unchanged.")
    else:
        st.info("**Nothing to compress.** The middle is empty; only Phase 1's pruning applies.")
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Messages", f"{n_after:,}", delta=f"{n_after - n_before:+,}", delta_color="inverse")
    c2.metric("Tokens (tiktoken)", f"{after_tokens:,}", delta=f"{after_tokens - original_tokens:+,}",
              delta_color="inverse")
    c3.metric("Hermes estimate", f"{result.tokens_after or result.display_tokens:,}",
              help=f"before: {result.display_tokens:,}")
    c4.metric("Time", f"{run['elapsed']:.2f} s", help=escape_markdown(run["summarizer_label"]))


def _preview_tab(result: Any, run_id: int) -> None:
    items = preview_messages(result)
    pages = max(1, (len(items) + PAGE_SIZE - 1) // PAGE_SIZE)
    summary_page = next((i.position // PAGE_SIZE + 1 for i in items if i.kind == "summary"), 1)
    page_col, note_col = st.columns([1, 3], vertical_alignment="bottom")
    page = page_col.number_input(f"Page (of {pages})", min_value=1, max_value=pages,
                                 value=min(summary_page, pages), key=f"preview_page_{run_id}")
    note_col.caption(f"{len(items):,} messages, {PAGE_SIZE} per page; the page with the summary opens first.")
    for item in items[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]:
        with st.container(border=True):
            st.markdown(f"**#{item.position}** · {escape_markdown(item.role)} " + _badges(item.badges))
            text = _shown(item.text) or "(empty)"
            if text.count("\n") >= LONG_LINES or len(text) > LONG_CHARS:
                st.code(text, language=None, wrap_lines=True, height=LONG_HEIGHT)
            else:
                st.text(text)


def _diff_tab(original: list[Any], result: Any) -> None:
    table = side_by_side(original, result, width=70)
    changes = table["change"].value_counts()
    st.caption(" · ".join(f"{count:,} {change}" for change, count in changes.items()))
    shown = table.astype({"before #": "string", "after #": "string"}).fillna("")
    st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        height=min(420, 35 * (len(shown) + 1) + 3),
        key="side_by_side",
        column_config={
            "before #": st.column_config.TextColumn("#", width="small"),
            "before role": st.column_config.TextColumn("role", width="small"),
            "before": st.column_config.TextColumn("before", width="medium"),
            "change": st.column_config.TextColumn("change", width="small"),
            "after #": st.column_config.TextColumn("#", width="small"),
            "after role": st.column_config.TextColumn("role", width="small"),
            "after": st.column_config.TextColumn("after", width="medium"),
        },
    )
    pairs = changed_pairs(original, result)
    if pairs:
        labels = {f"#{src} → #{pos}": (src, pos) for src, pos in pairs}
        choice = st.selectbox("Show what changed inside a kept message", list(labels), key="diff_choice")
        src, pos = labels[choice]
        st.code(message_diff(original[src], result.messages[pos]) or "(same text)", language="diff",
                wrap_lines=True)


def _cost_tab(transcript: Transcript, result: Any, run: dict[str, Any]) -> None:
    from core.analysis.cost import cost_report_frame, cumulative_cost_frame
    from core.analysis.run_cost import format_usd, run_cost

    if not result.compressed:
        st.info("Nothing was compacted in this run, so there is no saving to price.")
        return
    model = run["settings"].model
    remote = run.get("choice") == LITELLM
    summary_model = run.get("summary_call_model") if remote else None
    cache = run.setdefault("costs", {})  # per run: counting the prompt and both conversations is not free
    key = (model, remote, summary_model)
    if key not in cache:
        cache[key] = run_cost(transcript.messages, result, model=model, remote_summary=remote,
                              summary_model=summary_model)
    costs = cache[key]
    report = costs.report
    if not costs.priced:
        st.info(
            f"No price known for {escape_markdown(costs.model_label)} in litellm's model table, so no cost is shown. "
            "Pick a model with a price in the sidebar to see what a request costs before and after compression."
        )
        st.caption(
            f"Tokens per request: {report['tokens_before']:,} before, {report['tokens_after']:,} after "
            f"({report['tokens_saved']:,} saved, exact tiktoken counts)."
        )
        return
    st.caption(
        f"Prices from litellm's model table for {escape_markdown(costs.model_label)}, input tokens only for the "
        "requests (list prices, no prompt-cache discounts); exact tiktoken counts."
    )
    break_even = report["break_even_turns"]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Request before", format_usd(report["cost_per_request_before"]),
              help=f"{report['tokens_before']:,} input tokens")
    c2.metric("Request after", format_usd(report["cost_per_request_after"]),
              help=f"{report['tokens_after']:,} input tokens")
    if not remote:
        summary_help = "Written on this machine: no provider was paid."
    elif result.fallback_used:
        summary_help = "The summary call failed, so no summary was bought (the fallback replaced it)."
    else:
        summary_help = f"{costs.summary_prompt_tokens:,} prompt + {costs.summary_output_tokens:,} output tokens"
    c3.metric("Summary call", format_usd(report["summary_call_cost"]), help=summary_help)
    if report["summary_call_cost"] is None:
        c4.metric("Pays for itself after", "unknown", help="The summary model has no price in litellm's table.")
    elif break_even is None:
        c4.metric("Pays for itself after", "never")
    else:
        c4.metric("Pays for itself after", f"{break_even:,} turn" + ("" if break_even == 1 else "s"),
                  help="Further requests until the saving per request has repaid the summary call.")
    if report["note"]:
        st.caption(escape_markdown(report["note"].capitalize()) + ".")
    if costs.if_remote is not None and costs.if_remote["summary_call_cost"] is not None:
        other = costs.if_remote
        paid_back = other["break_even_turns"]
        st.caption(
            f"Had {escape_markdown(costs.model_label)} written this summary through its provider, the call "
            f"({costs.summary_prompt_tokens:,} prompt + {costs.summary_output_tokens:,} output tokens) would cost "
            f"{escape_markdown(format_usd(other['summary_call_cost']))}"
            + (f" and pay for itself after {paid_back:,} turns." if paid_back is not None else ".")
        )
    st.dataframe(cost_report_frame(report), hide_index=True, width="stretch", key="cost_table",
                 column_config={"cost_usd": st.column_config.NumberColumn("cost (USD)", format="$%.6f")})
    horizon = max(10, min(200, 2 * (break_even or 10)))
    cumulative = cumulative_cost_frame(report, horizon)
    if cumulative.empty:
        return
    st.markdown(f"**Input cost over the next {horizon} requests**")
    st.line_chart(cumulative, x="turn", y=["without_compression", "with_compression"], height=260,
                  x_label="further requests", y_label="USD")


def _downloads(transcript: Transcript, result: Any, settings: Settings, choice: str) -> None:
    from core.formats import DUMP_FORMATS, dump

    stem = Path(transcript.filename).stem or "conversation"
    left, right = st.columns(2)
    with left:
        st.download_button(
            "Download as OpenAI chat JSON",
            dump(result.messages, "openai-chat"),
            file_name=f"{stem}.compressed.openai-chat.json",
            mime="application/json",
            key="download_openai",
            width="stretch",
        )
    with right:
        if transcript.format in DUMP_FORMATS and transcript.format != "openai-chat":
            st.download_button(
                f"Download as {transcript.format} (the original format)",
                dump(result.messages, transcript.format),
                file_name=f"{stem}.compressed.{transcript.format}.json",
                mime="application/json",
                key="download_original",
                width="stretch",
            )
        elif transcript.format != "openai-chat":
            st.caption(f"{escape_markdown(transcript.format)} cannot be written back; use the OpenAI chat JSON.")
    st.markdown("**These parameters as a Hermes `config.yaml` snippet**")
    try:
        from core.hermes_config import HermesSettings, settings_to_yaml
    except ImportError:
        st.caption("The Hermes config export is not available in this installation.")
        return
    hermes = HermesSettings(
        context_length=settings.context_length,
        max_tokens=settings.max_tokens,
        threshold_percent=settings.threshold_percent,
        protect_first_n=settings.protect_first_n,
        protect_last_n=settings.protect_last_n,
        summary_target_ratio=settings.summary_target_ratio,
        abort_on_summary_failure=settings.abort_on_summary_failure,
        model=((kept("llm_model") or "").strip() or settings.model or None) if choice == LITELLM
        else (settings.model or None),
        summary_model=((kept("llm_summary_model") or "").strip() or None) if choice == LITELLM else None,
        api_base=((kept("llm_api_base") or "").strip() or None) if choice == LITELLM else None,
    )
    snippet = settings_to_yaml(hermes)
    st.code(snippet, language="yaml")
    st.download_button("Download config.yaml snippet", snippet, file_name="config.yaml", mime="text/yaml",
                       key="download_yaml")


st.title("Compress & preview")
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
        from core.summarizers.local import LOCAL_MAX_TOKENS_CAP

        st.caption(
            f"SmolLM2-135M runs on this machine's CPU. Its summaries are capped at {LOCAL_MAX_TOKENS_CAP} tokens: "
            "the compressor asks for 1.3 × the summary budget (2,600 tokens or more), which would take the small "
            "model minutes to write. Reading a long prompt still takes a while on a CPU, and a long middle may "
            "not fit its context (the failure then shows as a fallback with its reason)."
        )
        _deadline_inputs("local", 0)
    elif choice == LOCAL:
        runnable = False
        st.info("The local model is not installed. Install it with `make local-model` "
                "(or `bash scripts/install_local_model.sh`), then reload this page.")
    elif choice == NONE:
        st.caption("Without a summarizer the compressor takes the profile's fallback path "
                   "(v0.16.0: a deterministic summary of the turns; v0.15.1: a fixed note).")
    f1, f2, f3 = st.columns([3, 1, 1.6], vertical_alignment="bottom")
    f1.text_input("Focus topic (optional)", **keep("focus_topic", ""),
                  help="Ask the summary to prioritise this topic, like /compress <topic>.")
    f2.checkbox("Force", **keep("force", False), help="Clear a summary-failure cooldown first, like a manual /compress.")
    f3.checkbox("Abort on summary failure", **keep("abort_on_summary_failure", False),
                help="Keep the conversation unchanged instead of inserting a fallback summary.")
    strict = strict_redaction_switch(choice)
    st.caption(
        "Strict redaction is " + ("**on**" if strict else "**off**") + " for this summarizer "
        "(on by default whenever the text goes to a remote provider). **Redaction preview** shows exactly "
        "what the summarizer receives."
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
frame = message_table(transcript, settings)
_outcome(result, run, counter, int(frame["tokens"].sum()))

preview_tab, diff_tab, summary_tab, call_tab, cost_tab, download_tab = st.tabs(
    ["Preview", "Before / after", "Summary", "Summarizer call", "Cost", "Download"]
)
with preview_tab:
    _preview_tab(result, run["run_id"])
with diff_tab:
    _diff_tab(transcript.messages, result)
with summary_tab:
    if result.summary_text:
        where = "merged into the first tail message" if result.summary_merged else f"a {result.summary_role} message"
        st.caption(f"Inserted as {where}.")
        st.code(result.summary_text, language=None, wrap_lines=True)
    else:
        st.info("No summary was written in this run.")
with call_tab:
    call = result.summarizer_call
    if call is None:
        st.info("No summarizer call was made" + (" (cooldown)." if result.cooldown_skipped else "."))
    else:
        a, b, c = st.columns(3)
        a.metric("max_tokens", f"{call.max_tokens:,}")
        b.metric("Summary budget", f"{call.summary_budget:,}")
        c.metric("Turn tokens", f"{call.content_tokens:,}")
        if call.error:
            st.error("The call failed: " + escape_markdown(call.error))
        with st.expander("The prompt sent to the summarizer"):
            st.code(call.prompt, language=None, wrap_lines=True)
with cost_tab:
    _cost_tab(transcript, result, run)
with download_tab:
    _downloads(transcript, result, run["settings"], run.get("choice", choice))
