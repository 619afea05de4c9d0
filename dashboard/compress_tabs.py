"""The Compress & preview page's parts: the outcome, the run chart and drill-down, and the preview,
diff, cost and download tabs of one run (``pages/compress.py`` lays them out)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core.inspections.overview import message_frame
from core.inspections.summary_check import EMPTY, summary_problem
from core.render.charts import line_figure
from core.render.formatting import integer, percent, signed, usd
from core.views.drilldown import INPUT, OUTPUT
from core.views.run import RunFigures, run_figures
from dashboard.conversation import conversation_view, message_card, thread_style
from dashboard.drilldown import drilldown_panel, on_row_click, open_message
from dashboard.memo import Settings, Transcript
from dashboard.sidebar import (
    REMOTE_SUMMARIZER,
    escape_markdown,
    keep,
    kept,
    run_view,
)
from dashboard.ui import chart, delta_or_none, grid_height, metric_row
from dashboard.ui import table as ui_table

LITELLM = REMOTE_SUMMARIZER


def profile_of(run: dict[str, Any]) -> str:
    return str(getattr(run["settings"], "profile", "")) or "this release"


def run_memo(run: dict[str, Any], name: str, compute: Any) -> Any:
    """What this run's views compute once (kept with the run in the session, never on the transcript)."""
    return run_view(run, name, compute)


def outcome_panel(result: Any, run: dict[str, Any], counter: Any, figures: RunFigures) -> None:
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
            f"were summarised, but {escape_markdown(problem.message)}. Hermes {escape_markdown(profile_of(run))} "
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
        release = escape_markdown(profile_of(run))
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
    # The unit in the help: "1,359 tokens" wrapped onto two lines in a metric's width.
    summary_value = integer(figures.summary_tokens) if figures.summary_tokens else "none"
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
         {"help": f"exact tokens (tiktoken), written from {figures.summarised_messages:,} messages"
          if figures.summary_tokens else "this run wrote no summary"}),
        ("Repairs", integer(figures.repairs), {"help": "orphan results removed, stubs added and unanswered "
                                                        "calls stripped by the tool-pair repair"}),
        ("Time", f"{run['elapsed']:.2f} s", {"help": escape_markdown(run["summarizer_label"])}),
    ])


def run_chart(transcript: Transcript, result: Any, run: dict[str, Any], counter: Any) -> None:
    """The run itself, before against after: by role and by category, the summary as its own segment."""
    import core.render.charts as charts
    from core.views.run import run_composition

    encoding = run["settings"].encoding
    frame = transcript.message_table(encoding)
    after_frame = run_memo(run, "after-frame", lambda: message_frame(result.messages, counter))
    st.subheader("Before and after this run")
    role_tab, category_tab = st.tabs(["By role", "By category"])
    for tab, by, colors in ((role_tab, "role", charts.ROLE_COLORS), (category_tab, "category", charts.CATEGORY_COLORS)):
        with tab:
            table = run_memo(run, f"composition-{by}",
                              lambda by=by: run_composition(frame, result, counter, by, after_frame=after_frame))
            left, right = st.columns([3, 2])
            with left:
                figure = run_memo(run, f"composition-figure-{by}",
                                   lambda by=by, table=table, colors=colors: charts.before_after_figure(
                                       table, by, colors=colors))
                chart(figure, key=f"run_chart_{by}")
            with right:
                ui_table(table, key=f"run_table_{by}")


def drilldown_of(run: dict[str, Any], result: Any, counter: Any) -> Any:
    from core.views.drilldown import Drilldown

    return run_memo(run, "drilldown", lambda: Drilldown(result, counter))


def reset_panels(run: dict[str, Any], drill: Any) -> None:
    """A new run opens its preview on the summary and clears the diff's panel."""
    state = st.session_state
    if state.get("panels_run") == run["run_id"]:
        return
    state["panels_run"] = run["run_id"]
    open_message("preview", OUTPUT, drill.summary_position if drill.summary_position is not None else 0)
    open_message("diff", INPUT, None)


def _filters(prefix: str, table: Any, *, zones: list[str], roles: list[str], search: bool = True) -> dict[str, Any]:
    """Search, role, zone, tool and "changed only" for a preview or diff table; ``search=False``
    leaves the search out (the thread below has its own: two search boxes, one above the other,
    left a reader guessing which one to use)."""
    from core.views.preview import tool_names

    if search:
        search_col, role_col, zone_col, tool_col, changed_col = st.columns([3, 2, 2, 2, 2],
                                                                           vertical_alignment="bottom")
        query = search_col.text_input("Search", key=f"{prefix}_query", placeholder="text, tool or role")
    else:
        role_col, zone_col, tool_col, changed_col = st.columns(4, vertical_alignment="bottom")
        query = ""
    # "all", not Streamlit's "Choose options": a fifth of an 800-pixel page cut that.
    picked_roles = role_col.multiselect("Role", roles, key=f"{prefix}_roles", placeholder="all")
    picked_zones = zone_col.multiselect("Zone", zones, key=f"{prefix}_zones", placeholder="all")
    picked_tools = tool_col.multiselect("Tool", tool_names(table), key=f"{prefix}_tools", placeholder="all")
    changed = changed_col.toggle("Changed only", key=f"{prefix}_changed")
    return {"query": query, "roles": picked_roles, "zones": picked_zones, "tools": picked_tools,
            "changed_only": changed}


def show_preview(run: dict[str, Any], result: Any, counter: Any, original: list[Any]) -> None:
    from core.views.preview import filter_rows, preview_table

    table = run_memo(run, "preview-table", lambda: preview_table(result, counter, original))
    drill = drilldown_of(run, result, counter)
    view = st.segmented_control("Read as", ["Thread", "Table"], **keep("preview_view", "Thread"))
    filters = _filters("preview", table, zones=sorted(table["zone"].unique()), roles=sorted(table["role"].unique()),
                       search=view == "Table")
    shown = filter_rows(table, **filters)
    numbers = [int(n) for n in shown["#"]]
    if view != "Table":
        rows = table.set_index("#")
        conversation_view(
            "preview", result.messages, source_key=run["run_id"], numbers=numbers, label="output #",
            badges=lambda n: [rows.at[n, "zone"], *(b for b in str(rows.at[n, "badges"]).split(", ")
                                                    if b and b not in (rows.at[n, "zone"], "KEPT"))],
            tokens=lambda n: int(rows.at[n, "tokens"]),
        )
        drilldown_panel("preview", lambda: drill, input_size=len(original),
                        hint="Type a number to open a message with what each phase did to it.")
        return
    st.caption(f"{len(shown):,} of {len(table):,} messages. Click a row to read the message in full below.")
    st.dataframe(
        shown[["#", "role", "zone", "badges", "tool", "tokens", "text"]],
        hide_index=True,
        width="stretch",
        height=grid_height(len(shown)),
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


def show_diff(run: dict[str, Any], result: Any, counter: Any, original: list[Any]) -> None:
    from core.views.preview import filter_rows, side_by_side

    table = run_memo(run, "diff-table", lambda: side_by_side(original, result, counter=counter))
    drill = drilldown_of(run, result, counter)
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
        _side_by_side(shown, original, result.messages)
    else:
        st.dataframe(
            shown[["before #", "before role", "before tokens", "before", "change", "after #", "after role",
                   "after tokens", "after"]],
            hide_index=True,
            width="stretch",
            height=grid_height(len(shown)),
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


def _side_by_side(shown: Any, original: list[Any], outputs: list[Any]) -> None:
    """The diff as pairs of full texts, one row per message, a page at a time."""
    pages = max(1, (len(shown) + DIFF_PAGE_ROWS - 1) // DIFF_PAGE_ROWS)
    page = 1
    if pages > 1:
        page = int(st.number_input(f"Page (of {pages})", min_value=1, max_value=pages, value=1,
                                   key="diff_page", width=160))
    thread_style()
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
                    message = (original if side == "before" else outputs)[int(number)]
                    message_card(f"diff-{side}", message, int(number), label="#" if side == "before" else "output #",
                                 badges=[str(values["zone"])] if side == "after" and values.get("zone") else (),
                                 tokens=int(tokens) if tokens is not None and not pd.isna(tokens) else None,
                                 style=False)


def recorded_cost_section(transcript: Transcript, fallback_model: str) -> None:
    """What the log's own requests cost, turn by turn, cache reads and writes apart (as ccusage prices them)."""
    from core.inspections.cost import token_prices
    from core.inspections.recorded_cost import recorded_cost

    # A bill is a fact of the whole log: the requests before the agent's own compaction were paid too.
    logged = getattr(transcript.conversation, "full_history", None) or transcript.conversation
    log_model = str(getattr(logged, "model", "") or "")
    model = log_model if log_model and token_prices(log_model) is not None else fallback_model
    costs = transcript.memo(("recorded-cost", model), lambda: recorded_cost(logged.usage, model))
    if not costs.turns:
        return
    st.markdown("**What the logged requests cost**")
    tokens, sums = costs.tokens(), costs.costs()
    if sums is None:
        st.info(f"No price known for {escape_markdown(model or 'the log’s model')} in litellm's model table, so the "
                f"{len(costs.turns):,} requests the log recorded are shown in tokens only.")
    else:
        metric_row("recorded-cost", [
            ("Total", usd(sums["total"]), {"help": f"{len(costs.turns):,} requests the log recorded"}),
            ("Input", usd(sums["input"]), {"help": f"{tokens['input']:,} tokens neither read from nor written "
                                                   "to the cache"}),
            ("Cache reads", usd(sums["cache_read"]), {"help": f"{tokens['cache_read']:,} tokens"}),
            ("Cache writes", usd(sums["cache_write"]), {"help": f"{tokens['cache_write']:,} tokens"}),
            ("Output", usd(sums["output"]), {"help": f"{tokens['output']:,} tokens (reasoning included)"}),
        ])
        prices = costs.prices
        per_million = f"{usd(prices.input * 1e6)} input, {usd(prices.output * 1e6)} output, " + (
            f"{usd(prices.cache_read * 1e6)} a cache read" if prices.cache_read_listed else "no cache-read price "
            "(input price)") + ", " + (f"{usd(prices.cache_write * 1e6)} a cache write" if prices.cache_write_listed
                                      else "no cache-write price (input price)")
        if model == log_model:
            priced_for = escape_markdown(model)
        elif log_model:
            priced_for = f"{escape_markdown(model)} (the log's model {escape_markdown(log_model)} has no price there)"
        else:
            priced_for = f"{escape_markdown(model)} (the sidebar's model: the log names none)"
        st.caption(
            f"The usage the log recorded for each request, priced for {priced_for} from "
            f"litellm's model table, per million tokens: {per_million}. Base prices: long-context tiers are not "
            "applied. Subagents' requests are in their own sessions."
            + (" Every request the log recorded is counted, those before the agent's compaction too (message "
               "numbers are the full history's)." if logged is not transcript.conversation else "")
        )
    frame = costs.frame()
    ui_table(frame.assign(cost=frame["cost_usd"].map(usd), running_total=frame["total_usd"].map(usd)),
             key="recorded_cost_table", height=260,
             column_order=["message", "input", "cache_read", "cache_write", "output", "cost", "running_total"],
             column_config={"cache_read": st.column_config.NumberColumn("cache read"),
                            "cache_write": st.column_config.NumberColumn("cache write"),
                            "running_total": st.column_config.TextColumn("running total")})


def show_cost(transcript: Transcript, result: Any, run: dict[str, Any]) -> None:
    from core.inspections.cost import cost_report_frame, cumulative_cost_frame
    from core.views.run_cost import run_cost

    format_usd = usd
    recorded_cost_section(transcript, run["settings"].model)

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
    cached = _cached_compaction(costs)
    horizon = max(10, min(200, 2 * max(break_even or 10, cached["break_even_turns"] or 0)))
    cumulative = cumulative_cost_frame(report, horizon)
    if cumulative.empty:
        return
    from core.inspections.cost import cached_cumulative_frame

    cached_lines = cached_cumulative_frame(cached, horizon)
    st.markdown(f"**Input cost over the next {horizon} requests**")
    labels = {"without_compression": "without compression", "with_compression": "with compression"}
    lines = cumulative.rename(columns=labels)
    if not cached_lines.empty:
        # Short names: the chart's legend cuts long ones.
        cached_labels = {"without_compression": "cached, without", "with_compression": "cached, with"}
        lines = lines.assign(**{label: cached_lines[column] for column, label in cached_labels.items()})
    chart(line_figure(lines, "turn", [column for column in lines.columns if column != "turn"],
                      x_title="further requests", y_title="USD"), key="compress_cost_lines")
    if not cached_lines.empty:
        st.caption("The two **cached** lines are the same requests with prompt caching: the compacted conversation "
                   "starts with a cache write, the uncompressed one keeps reading its cache.")


def _cached_compaction(costs: Any) -> dict[str, Any]:
    """The run's compaction as an agent with prompt caching pays for it: the metrics, and the report."""
    from core.inspections.cost import cached_compaction_report

    report = costs.report
    cached = cached_compaction_report(costs.model, report["tokens_before"], report["tokens_after"],
                                      report["summary_call_cost"])
    prices = cached["prices"]
    if prices is None:
        return cached
    st.markdown("**With prompt caching**")
    turns = cached["break_even_turns"]
    write_help = (f"{report['tokens_after']:,} tokens written to the cache at "
                  f"{usd(prices.cache_write * 1e6)} per million" if prices.cache_write_listed
                  else f"{report['tokens_after']:,} tokens at the input price: a cache miss")
    metric_row("cached-cost", [
        ("Cached request before", usd(cached["request_before"]),
         {"help": f"{report['tokens_before']:,} tokens read from the cache"}),
        ("Next request after", usd(cached["first_request_after"]),
         {"help": "The compaction changed the prefix, so the cache no longer matches: " + write_help}),
        ("Later requests after", usd(cached["later_request_after"]),
         {"help": f"{report['tokens_after']:,} tokens read from the cache"}),
        ("With caching, pays for itself after",
         ("unknown" if cached["summary_call_cost"] is None else "never") if turns is None
         else f"{turns:,} turn" + ("" if turns == 1 else "s"),
         {"help": "Further requests until the cache reads saved have repaid the summary call and the cache "
                  "re-write"}),
    ])
    st.caption(
        f"Prices from litellm's model table: cache reads {'listed' if prices.cache_read_listed else 'not listed'}"
        f", cache writes {'listed' if prices.cache_write_listed else 'not listed (a miss costs the input price)'}. "
        f"Re-writing the cache costs {usd(cached['cache_rewrite_cost'])} more than reading it; each later request "
        f"saves {usd(cached['savings_per_request'])}."
    )
    return cached


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
    savings = run_memo(run, "savings", lambda: phase_savings(transcript.messages, config, counter, result,
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
        figures=run_memo(run, "figures", lambda: run_figures(result, frame, counter)),
        composition=run_memo(run, "composition-role", lambda: run_composition(frame, result, counter, "role")),
        preview=run_memo(run, "preview-table", lambda: preview_table(result, counter, transcript.messages)),
        mask_secrets=mask,
        release=run_settings.profile,
    ))


def show_downloads(transcript: Transcript, result: Any, settings: Settings, choice: str, run: dict[str, Any],
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
        from core.hermes_config import HermesSettings, exported_model, settings_to_yaml
    except ImportError:
        st.caption("The Hermes config export is not available in this installation.")
        return
    model_default, model_source = exported_model(
        str(getattr(transcript.conversation, "model", None) or ""),
        (kept("llm_model") or "") if choice == LITELLM else None, settings.model)
    hermes = HermesSettings(
        context_length=settings.context_length,
        max_tokens=settings.max_tokens,
        threshold_percent=settings.threshold_percent,
        protect_first_n=settings.protect_first_n,
        protect_last_n=settings.protect_last_n,
        summary_target_ratio=settings.summary_target_ratio,
        abort_on_summary_failure=settings.abort_on_summary_failure,
        model=model_default,
        summary_model=((kept("llm_summary_model") or "").strip() or None) if choice == LITELLM else None,
        api_base=((kept("llm_api_base") or "").strip() or None) if choice == LITELLM else None,
    )
    snippet = settings_to_yaml(hermes)
    st.caption(f"model.default: {escape_markdown(model_source)}.")
    st.code(snippet, language="yaml")
    st.download_button("Download config.yaml snippet", snippet, file_name="config.yaml", mime="text/yaml",
                       key="download_yaml")
