"""Compress & preview: run the compressor, read the result, download it."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core.inspections.overview import message_frame
from core.inspections.summary_check import EMPTY, summary_problem
from core.render.formatting import integer, percent, signed, usd
from core.summarizers.llm import CLIENT_DEFAULT_RETRIES, DEFAULT_TIMEOUT_S
from core.views.drilldown import INPUT, OUTPUT
from core.views.run import RunFigures, run_figures
from core.wording import article
from dashboard.drilldown import drilldown_panel, on_row_click, open_message
from dashboard.memo import Settings, Transcript
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
    run_view,
    source_caption,
    strict_redaction_for,
    strict_redaction_switch,
)
from dashboard.ui import chart, delta_or_none, metric_row
from dashboard.ui import table as ui_table

OFFLINE, LITELLM, LOCAL, NONE = OFFLINE_SUMMARIZER, REMOTE_SUMMARIZER, LOCAL_SUMMARIZER, NO_SUMMARIZER
FAILING = FAILING_SUMMARIZER
SUMMARIZERS = SUMMARIZER_OPTIONS
SHOWN_CHARS = 4_000
# Longer messages scroll inside a fixed-height box so one tool output cannot fill the page.
LONG_LINES, LONG_CHARS, LONG_HEIGHT = 12, 1_200, 280



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
            result = ContextCompressor(config, summarizer=summarizer).compress(
                transcript.messages, focus_topic=focus, force=force, memory_context=memory, on_crash="report"
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


def _profile_of(run: dict[str, Any]) -> str:
    return str(getattr(run["settings"], "profile", "")) or "this release"


def _run_view(run: dict[str, Any], name: str, compute: Any) -> Any:
    """What this run's views compute once (kept with the run in the session, never on the transcript)."""
    return run_view(run, name, compute)


def _outcome(result: Any, run: dict[str, Any], counter: Any, figures: RunFigures) -> None:
    n_before, n_after = figures.messages_before, figures.messages_after
    if result.cooldown_skipped:
        reason = "no call was made: the summarizer is cooling down after an earlier failure"
    else:
        reason = escape_markdown(result.failure_reason or "no summarizer configured")
    problem = summary_problem(result, counter)
    if problem is not None:
        title = "Empty summary" if problem.kind == EMPTY else "Oversized summary"
        st.warning(
            f"**{title}, counted as a success.** Messages {result.plan.compress_start}–{result.plan.compress_end - 1} "
            f"were summarised, but {escape_markdown(problem.message)}. Hermes {escape_markdown(_profile_of(run))} "
            "keeps such a summary as it is; check the summarizer before relying on this result."
        )
    elif result.outcome == "summarized":
        st.success(
            f"**Summarised.** Messages {result.plan.compress_start}–{result.plan.compress_end - 1} became one summary "
            f"({n_before:,} → {n_after:,} messages)."
        )
    elif result.outcome == "fallback":
        st.warning(
            f"**Fallback summary.** The summarizer failed ({reason}), so the profile's fallback summary replaced "
            f"messages {result.plan.compress_start}–{result.plan.compress_end - 1}."
        )
    elif result.outcome == "crashed":
        st.error(f"**{escape_markdown(result.crash.describe())}.** Nothing was compressed: the host would see "
                 "the exception instead of a result. The message is shown in the preview below.")
    elif result.outcome == "aborted":
        release = escape_markdown(_profile_of(run))
        access = escape_markdown(result.plan.failure_rule.access_words)
        why = {
            "authentication": f"Hermes {release} always aborts on {access}, and keeps aborting "
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
    message_change = n_after - n_before
    token_change = figures.exact_after - figures.exact_before
    estimate_change = figures.estimate_after - figures.estimate_before
    summary_value = f"{integer(figures.summary_tokens)} tokens" if figures.summary_tokens else "none"
    metric_row("run", [
        ("Messages", integer(n_after), {"delta": delta_or_none(message_change, signed(message_change)),
                                        "delta_color": "inverse", "help": f"before: {n_before:,}"}),
        ("Tokens (tiktoken)", integer(figures.exact_after),
         {"delta": delta_or_none(token_change, signed(token_change)), "delta_color": "inverse",
          "help": f"before: {figures.exact_before:,} (exact counts)"}),
        ("Saved", percent(figures.saved_share), {"help": "of the exact tokens"}),
        ("Hermes estimate", integer(figures.estimate_after),
         {"delta": delta_or_none(estimate_change, signed(estimate_change)), "delta_color": "inverse",
          "help": f"before: {figures.estimate_before:,} (the compressor's own estimate)"}),
        ("Summary", summary_value,
         {"help": f"written from {figures.summarised_messages:,} messages" if figures.summary_tokens
          else "this run wrote no summary"}),
        ("Repairs", integer(figures.repairs), {"help": "orphan results removed, stubs added and unanswered "
                                                        "calls stripped by the tool-pair repair"}),
        ("Time", f"{run['elapsed']:.2f} s", {"help": escape_markdown(run["summarizer_label"])}),
    ])


def _run_chart(transcript: Transcript, result: Any, run: dict[str, Any], counter: Any) -> None:
    """The run itself, before against after: by role and by category, the summary as its own segment."""
    import core.render.charts as charts
    from core.views.run import run_composition

    encoding = run["settings"].encoding
    frame = transcript.message_table(encoding)
    after_frame = _run_view(run, "after-frame", lambda: message_frame(result.messages, counter))
    st.subheader("Before and after this run")
    role_tab, category_tab = st.tabs(["By role", "By category"])
    for tab, by, colors in ((role_tab, "role", charts.ROLE_COLORS), (category_tab, "category", charts.CATEGORY_COLORS)):
        with tab:
            table = _run_view(run, f"composition-{by}",
                              lambda by=by: run_composition(frame, result, counter, by, after_frame=after_frame))
            left, right = st.columns([3, 2])
            with left:
                figure = _run_view(run, f"composition-figure-{by}",
                                   lambda by=by, table=table, colors=colors: charts.before_after_figure(
                                       table, by, colors=colors))
                chart(figure, key=f"run_chart_{by}")
            with right:
                ui_table(table, key=f"run_table_{by}")


def _drilldown(run: dict[str, Any], result: Any, counter: Any) -> Any:
    from core.views.drilldown import Drilldown

    return _run_view(run, "drilldown", lambda: Drilldown(result, counter))


def _reset_panels(run: dict[str, Any], drill: Any) -> None:
    """A new run opens its preview on the summary and clears the diff's panel."""
    state = st.session_state
    if state.get("panels_run") == run["run_id"]:
        return
    state["panels_run"] = run["run_id"]
    open_message("preview", OUTPUT, drill.summary_position if drill.summary_position is not None else 0)
    open_message("diff", INPUT, None)


def _filters(prefix: str, table: Any, *, zones: list[str], roles: list[str]) -> dict[str, Any]:
    """Search, role, zone, tool and "changed only" for a preview or diff table."""
    from core.views.preview import tool_names

    search_col, role_col, zone_col, tool_col, changed_col = st.columns([3, 2, 2, 2, 2], vertical_alignment="bottom")
    query = search_col.text_input("Search", key=f"{prefix}_query", placeholder="text, tool or role")
    # "all", not Streamlit's "Choose options": a fifth of an 800-pixel page cut that.
    picked_roles = role_col.multiselect("Role", roles, key=f"{prefix}_roles", placeholder="all")
    picked_zones = zone_col.multiselect("Zone", zones, key=f"{prefix}_zones", placeholder="all")
    picked_tools = tool_col.multiselect("Tool", tool_names(table), key=f"{prefix}_tools", placeholder="all")
    changed = changed_col.toggle("Changed only", key=f"{prefix}_changed")
    return {"query": query, "roles": picked_roles, "zones": picked_zones, "tools": picked_tools,
            "changed_only": changed}


def _preview_tab(run: dict[str, Any], result: Any, counter: Any, original: list[Any]) -> None:
    from core.views.preview import filter_rows, preview_table

    table = _run_view(run, "preview-table", lambda: preview_table(result, counter, original))
    drill = _drilldown(run, result, counter)
    filters = _filters("preview", table, zones=sorted(table["zone"].unique()), roles=sorted(table["role"].unique()))
    shown = filter_rows(table, **filters)
    st.caption(f"{len(shown):,} of {len(table):,} messages. Click a row to read the message in full below.")
    numbers = [int(n) for n in shown["#"]]
    st.dataframe(
        shown[["#", "role", "zone", "badges", "tool", "tokens", "text"]],
        hide_index=True,
        width="stretch",
        height=min(360, 35 * (len(shown) + 1) + 3),
        key="preview_table",
        on_select=on_row_click("preview", "preview_table", lambda row: (OUTPUT, numbers[row])),
        selection_mode="single-row",
        column_config={
            "#": st.column_config.NumberColumn("#", width="small", format="localized"),
            "tokens": st.column_config.NumberColumn("tokens", format="localized", width="small"),
            "text": st.column_config.TextColumn("text", width="large"),
            "badges": st.column_config.TextColumn("badges", width="medium"),
        },
    )
    drilldown_panel("preview", lambda: drill, input_size=len(original),
                    hint="Click a row of the table (or type a number) to open a message.")


DIFF_PAGE_ROWS = 20


def _diff_tab(run: dict[str, Any], result: Any, counter: Any, original: list[Any]) -> None:
    from core.views.preview import filter_rows, side_by_side

    table = _run_view(run, "diff-table", lambda: side_by_side(original, result, counter=counter))
    drill = _drilldown(run, result, counter)
    changes = table["change"].value_counts()
    st.caption(" · ".join(f"{count:,} {change}" for change, count in changes.items()))
    mode = st.segmented_control("View", ["Table", "Side by side"], default="Table", key="diff_mode")
    roles = sorted({r for r in [*table["before role"], *table["after role"]] if r})
    filters = _filters("diff", table, zones=[z for z in ("HEAD", "MIDDLE", "TAIL", "SUMMARY", "STUB", "KEPT")
                                             if z in set(table["zone"])], roles=roles)
    shown = filter_rows(table, **filters, text_columns=("before", "after"), role_columns=("before role", "after role"))
    st.caption(f"{len(shown):,} of {len(table):,} rows.")

    def row_message(row: int) -> tuple[str, int | None]:
        picked = shown.iloc[row]
        if pd.notna(picked["before #"]):
            return INPUT, int(picked["before #"])
        return OUTPUT, int(picked["after #"]) if pd.notna(picked["after #"]) else None

    if mode == "Side by side":
        _side_by_side(shown)
    else:
        st.dataframe(
            shown[["before #", "before role", "before tokens", "before", "change", "after #", "after role",
                   "after tokens", "after"]],
            hide_index=True,
            width="stretch",
            height=min(420, 35 * (len(shown) + 1) + 3),
            key="side_by_side",
            on_select=on_row_click("diff", "side_by_side", row_message),
            selection_mode="single-row",
            column_config={
                "before #": st.column_config.NumberColumn("#", width="small", format="localized"),
                "before role": st.column_config.TextColumn("role", width="small"),
                "before tokens": st.column_config.NumberColumn("tokens", width="small", format="localized"),
                "before": st.column_config.TextColumn("before", width="large"),
                "change": st.column_config.TextColumn("change", width="medium"),
                "after #": st.column_config.NumberColumn("#", width="small", format="localized"),
                "after role": st.column_config.TextColumn("role", width="small"),
                "after tokens": st.column_config.NumberColumn("tokens", width="small", format="localized"),
                "after": st.column_config.TextColumn("after", width="large"),
            },
        )
    drilldown_panel("diff", lambda: drill, input_size=len(original),
                    hint="Click a row (or type a message number) to open it in full, with what changed inside it.")


def _side_by_side(shown: Any) -> None:
    """The diff as pairs of full texts, one row per message, a page at a time."""
    pages = max(1, (len(shown) + DIFF_PAGE_ROWS - 1) // DIFF_PAGE_ROWS)
    page = 1
    if pages > 1:
        page = int(st.number_input(f"Page (of {pages})", min_value=1, max_value=pages, value=1,
                                   key="diff_page", width=160))
    for values in shown.iloc[(page - 1) * DIFF_PAGE_ROWS: page * DIFF_PAGE_ROWS].to_dict("records"):
        with st.container(border=True):
            st.caption(escape_markdown(str(values["change"])))
            left, right = st.columns(2)
            for column, side in ((left, "before"), (right, "after")):
                number = values[f"{side} #"]
                with column:
                    if number is None or pd.isna(number):
                        st.caption(f"{side}: —")
                        continue
                    tokens = values.get(f"{side} tokens")
                    role = values.get(f"{side} role", "")
                    st.caption(f"{side} #{int(number)} · {escape_markdown(str(role))} · "
                               f"{integer(tokens) if tokens is not None and not pd.isna(tokens) else '—'} tokens")
                    text = str(values.get(side) or "") or "(no text)"
                    height = LONG_HEIGHT if text.count("\n") >= LONG_LINES or len(text) > LONG_CHARS else "content"
                    st.code(_shown(text), language=None, wrap_lines=True, height=height)


def _shown(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return text[:SHOWN_CHARS] + f"\n… ({len(text) - SHOWN_CHARS:,} more characters: open the message for all of it)"


def _cost_tab(transcript: Transcript, result: Any, run: dict[str, Any]) -> None:
    from core.inspections.cost import cost_report_frame, cumulative_cost_frame
    from core.views.run_cost import run_cost

    format_usd = usd

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
    cost_metrics: list[Any] = [
        ("Request before", format_usd(report["cost_per_request_before"]),
         {"help": f"{report['tokens_before']:,} input tokens"}),
        ("Request after", format_usd(report["cost_per_request_after"]),
         {"help": f"{report['tokens_after']:,} input tokens"}),
    ]
    if not remote:
        summary_help = "Written on this machine: no provider was paid."
    elif result.assembly.fallback_used:
        summary_help = "The summary call failed, so no summary was bought (the fallback replaced it)."
    else:
        summary_help = f"{costs.summary_prompt_tokens:,} prompt + {costs.summary_output_tokens:,} output tokens"
    cost_metrics.append(("Summary call", format_usd(report["summary_call_cost"]), {"help": summary_help}))
    if report["summary_call_cost"] is None:
        cost_metrics.append(("Pays for itself after", "unknown",
                             {"help": "The summary model has no price in litellm's table."}))
    elif break_even is None:
        cost_metrics.append(("Pays for itself after", "never"))
    else:
        cost_metrics.append(("Pays for itself after", f"{break_even:,} turn" + ("" if break_even == 1 else "s"),
                             {"help": "Further requests until the saving per request has repaid the summary call."}))
    metric_row("cost", cost_metrics)
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
    costs_table = cost_report_frame(report)
    ui_table(costs_table.assign(shown_cost=costs_table["cost_usd"].map(format_usd)), key="cost_table",
             column_order=["item", "model", "input_tokens", "output_tokens", "shown_cost"],
             column_config={"shown_cost": st.column_config.TextColumn("cost (USD)")})
    horizon = max(10, min(200, 2 * (break_even or 10)))
    cumulative = cumulative_cost_frame(report, horizon)
    if cumulative.empty:
        return
    st.markdown(f"**Input cost over the next {horizon} requests**")
    labels = {"without_compression": "without compression", "with_compression": "with compression"}
    st.line_chart(cumulative.rename(columns=labels), x="turn", y=list(labels.values()), height=260,
                  x_label="further requests", y_label="USD")


def _report(transcript: Transcript, run: dict[str, Any], result: Any, counter: Any, mask: bool = True) -> str:
    """This run as one self-contained HTML page (the transcript's text escaped, and its credentials
    masked unless ``mask`` is off)."""
    from datetime import datetime

    from core.render.report import ReportInput, html_report
    from core.views.preview import preview_table
    from core.views.run import run_composition
    from core.views.savings import phase_savings
    from core.views.zones import analyze_zones

    run_settings: Settings = run["settings"]
    config = run_settings.config()
    frame = transcript.message_table(run_settings.encoding)
    zones = transcript.memo(
        ("zones", run_settings),
        lambda: analyze_zones(transcript.messages, config, frame["tokens"].tolist(), counter.count_message,
                              plan=transcript.prune_plan(config)),
    )
    savings = _run_view(run, "savings", lambda: phase_savings(transcript.messages, config, counter, result,
                                                              plan=transcript.prune_plan(config)))
    parameters = [
        ("Hermes release", run_settings.profile),
        ("model", run_settings.model or "(custom window)"),
        ("context length", f"{run_settings.context_length:,}"),
        ("output reserve (max_tokens)", f"{run_settings.max_tokens or 0:,}"),
        ("threshold", f"{run_settings.threshold_percent:g} → {config.threshold_tokens:,} tokens"),
        ("protect first N", str(run_settings.protect_first_n)),
        ("protect last N", str(run_settings.protect_last_n)),
        ("summary target ratio", f"{run_settings.summary_target_ratio:g}"),
        ("token estimator", run_settings.token_estimator),
    ]
    return html_report(ReportInput(
        filename=transcript.filename,
        generated=datetime.now().astimezone(),
        parameters=parameters,
        zones=zones,
        result=result,
        summarizer=run["summarizer_label"],
        savings=savings,
        figures=_run_view(run, "figures", lambda: run_figures(result, frame, counter)),
        composition=_run_view(run, "composition-role", lambda: run_composition(frame, result, counter, "role")),
        preview=_run_view(run, "preview-table", lambda: preview_table(result, counter, transcript.messages)),
        mask_secrets=mask,
        release=run_settings.profile,
    ))


def _downloads(transcript: Transcript, result: Any, settings: Settings, choice: str, run: dict[str, Any],
               counter: Any) -> None:
    from core.formats import DUMP_FORMATS, dump

    stem = Path(transcript.filename).stem or "conversation"
    mask = st.toggle("Mask credentials in the report", **keep("report_mask", True),
                     help="The report is made to be attached to an issue: keys, passwords and tokens in the text it "
                          "shows are masked (the profile's redaction, then the strict layer), and it lists what was "
                          "masked. Off, the report says that nothing was.")
    st.download_button(
        "Download the HTML report",
        lambda: _report(transcript, run, result, counter, mask),
        file_name=f"{stem}.context-lens-report.html",
        mime="text/html",
        key="download_report",
        icon=":material/description:",
        # No rerun on the click: a rerun registers the report under a new id, and under load it could
        # revoke the one the browser is about to fetch.
        on_click="ignore",
        help="Zones, savings, the run, the compressed conversation and the summary in one self-contained page "
             "(no script, nothing fetched): attach it to an issue or a pull request.",
    )
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
figures = _run_view(run, "figures", lambda: run_figures(result, run_frame, run_counter))
_outcome(result, run, run_counter, figures)
_run_chart(transcript, result, run, run_counter)
_reset_panels(run, _drilldown(run, result, run_counter))

preview_tab, diff_tab, summary_tab, call_tab, cost_tab, download_tab = st.tabs(
    ["Preview", "Before / after", "Summary", "Summarizer call", "Cost", "Download"]
)
with preview_tab:
    _preview_tab(run, result, run_counter, transcript.messages)
with diff_tab:
    _diff_tab(run, result, run_counter, transcript.messages)
with summary_tab:
    assembly = result.assembly
    if assembly is not None and assembly.summary_text:
        if assembly.summary_merged:
            where = "merged into the first tail message"
        else:
            role = str(assembly.summary_role or "user")
            where = f"{article(role)} {role} message"
        st.caption(f"Inserted as {escape_markdown(where)}.")
        st.code(assembly.summary_text, language=None, wrap_lines=True)
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
    _cost_tab(transcript, result, run)
with download_tab:
    _downloads(transcript, result, run["settings"], run.get("choice", choice), run, run_counter)
