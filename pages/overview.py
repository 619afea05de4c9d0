"""Upload & overview: choose a conversation, then see where its tokens go."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import streamlit as st

from core.profiles import DEFAULT_PROFILE
from dashboard.conversation import conversation_view
from dashboard.memo import Transcript, content_digest
from dashboard.sidebar import (
    AUTO_FORMAT,
    UPLOAD_PREFIX,
    conversation_options,
    count_with_progress,
    current_settings,
    current_transcript,
    default_choice,
    empty_state,
    escape_markdown,
    keep,
    kept,
    page_setup,
    rejected_uploads,
    selected_source,
    set_kept,
    source_caption,
)
from dashboard.ui import grid_height, metric_row, plain_text, small_table, table


def _store_uploads() -> None:
    """Keep the uploaded files' bytes in the session (the upload itself is never modified)."""
    files = st.session_state.get("uploader") or []
    # Sessions opened from the Live pages stay: they were never uploads of this widget.
    stored = [item for item in st.session_state.get("uploaded_files", []) if item.get("live_path")]
    seen: set[str] = {item["name"] for item in stored}
    for file in files:
        data = file.getvalue()
        name = file.name
        while name in seen:  # two uploads with the same name stay distinguishable
            name = f"{name} (2)"
        seen.add(name)
        stored.append({"name": name, "data": data, "digest": content_digest(data)})
    st.session_state["uploaded_files"] = stored
    rejected = rejected_uploads()
    for digest in [d for d in rejected if d not in {item["digest"] for item in stored}]:
        del rejected[digest]  # removed from the uploader: its notice goes too
    if stored:
        set_kept("conversation_choice", UPLOAD_PREFIX + stored[-1]["name"])
    elif str(kept("conversation_choice", "")).startswith(UPLOAD_PREFIX):
        set_kept("conversation_choice", default_choice())
    _reset_reading_options()


def _reset_reading_options() -> None:
    set_kept("format_choice", AUTO_FORMAT)
    set_kept("session_choice", None)
    set_kept("session_label", None)


def session_label(info: Any) -> str:
    """A picker label: the id first (what the harness and the user look for), then what it is."""
    label = f"{info.id} · {info.message_count:,} messages"
    kind = getattr(info, "kind", "session")
    if kind == "branch":
        label += " · abandoned branch"
    elif kind == "sidechain" or getattr(info, "is_sidechain", False):
        label += " · subagent"
    title = str(info.title or "")
    return label + (f" · {title[:80]}…" if len(title) > 80 else f" · {title}" if title else "")


def _what_it_holds(sessions: list[Any]) -> str:
    kinds = Counter(getattr(info, "kind", "session") for info in sessions)
    names = {"session": ("session", "sessions"), "sidechain": ("subagent run", "subagent runs"),
             "branch": ("abandoned branch", "abandoned branches")}
    return ", ".join(f"{n} {names.get(k, (k, k))[n != 1]}" for k, n in kinds.items())


_SHOWN_WARNINGS = 5


def show_load_report(transcript: Transcript) -> None:
    """Where every row of the file went; what was placed nowhere, as warnings in plain view."""
    report = getattr(transcript.conversation, "report", None)
    if report is not None:
        st.caption(escape_markdown(report.summary()))
    warnings = transcript.warnings
    if warnings:
        shown = "\n".join(f"- {escape_markdown(w)}" for w in warnings[:_SHOWN_WARNINGS])
        more = len(warnings) - _SHOWN_WARNINGS
        st.warning(f"**{len(warnings)} import warning(s)**\n\n{shown}"
                   + (f"\n\n… and {more} more in the load report at the foot of the page." if more > 0 else ""),
                   icon=":material/warning:")


def show_load_table(transcript: Transcript) -> None:
    """The load report's table and every warning, at the foot of the page (after the figures)."""
    report = getattr(transcript.conversation, "report", None)
    warnings = transcript.warnings
    if report is not None or warnings:
        with st.expander("Load report: every row of the file and where it went"):
            if report is not None:
                small_table(report.rows(), "load-report")
            if warnings:
                plain_text("\n".join(warnings), "load_warnings", height=400)


def show_release(transcript: Transcript) -> None:
    """Which Hermes release wrote the handoff summaries here, and the offer to preview with that release."""
    from core.inspections.release_detect import detect_release

    guess = transcript.memo(("release-detect",), lambda: detect_release(transcript.messages))
    if guess is None:
        return
    current = kept("profile", DEFAULT_PROFILE)
    text = f"**{escape_markdown(guess.sentence)}** " + escape_markdown(" ".join(guess.evidence))
    if guess.profile and guess.profile != current:
        text += f"\n\nThe sidebar previews Hermes {escape_markdown(current)}."
    st.info(text, icon=":material/history:")
    if guess.profile and guess.profile != current:
        st.button(f"Use profile {guess.profile}", key="use_detected_profile",
                  on_click=set_kept, args=("profile", guess.profile),
                  help="Preview this transcript with the release that wrote its summaries.")


def show_message_detail(transcript: Transcript) -> None:
    """One message in full: its display text, and the message as loaded (raw, escape codes kept)."""
    if not transcript.messages:
        return
    from core.inspections.overview import message_text

    with st.expander("Message detail", expanded=st.session_state.get("detail_index") is not None):
        last = len(transcript.messages) - 1
        st.session_state.setdefault("detail_index", None)
        picked = st.number_input("Message #", min_value=0, max_value=last, step=1, key="detail_index",
                                 placeholder="number", help="Type a number, or click a row of the table above.")
        if picked is None:
            st.caption("Pick a message (or click a row of the table) to read it in full.")
            return
        index = int(picked)
        message = transcript.messages[index]
        sources = getattr(transcript.conversation, "sources", None) or []
        where = sources[index] if index < len(sources) else ""
        st.caption(f"{escape_markdown(str(message.get('role')))} · {escape_markdown(where)}")
        if st.toggle("Raw (the message as loaded, escape codes kept)", key="detail_raw"):
            st.code(json.dumps(message, ensure_ascii=False, indent=1), language="json", wrap_lines=True)
        else:
            st.code(message_text(message) or "(no text)", language=None, wrap_lines=True)


def show_request(request: Any, context_length: int, threshold_tokens: int) -> None:
    """The whole request part by part (a stacked bar and a table), and recorded against estimated sizes."""
    st.subheader("Whole request")
    st.caption(
        "What the model read, like Claude Code's /context: the system prompt, the tool schemas, the context the "
        "agent injected itself, the messages, and what the log's recorded prompt size holds beyond them "
        "(unrecorded overhead: e.g. an agent's own system prompt and tool schemas, which no log writes down)."
    )
    from core.render.html_charts import request_html

    # Plain HTML bars: drawn at once, no plotting library to load before the first page is usable.
    st.html(request_html(request, context_length, threshold_tokens))
    small_table(request.table(), "request-parts", headers={"source": "where it comes from"})
    last = request.last_recorded
    if last is None:
        st.caption("The log records no prompt sizes, so nothing the log leaves out (an agent's own system prompt, "
                   "its tool schemas) can be estimated: the total is what the log holds.")
        return
    cache = []
    if last.cache_read is not None:
        cache.append(f"{last.cache_read:,} read from the cache")
    if last.cache_write is not None:
        cache.append(f"{last.cache_write:,} written to it")
    cache.append(f"{last.uncached:,} uncached")
    difference = (request.total - last.prompt_tokens) / last.prompt_tokens * 100
    after = request.n_messages - last.message_index
    st.caption(
        f"Last recorded prompt: **{last.prompt_tokens:,}** tokens, for message {last.message_index} "
        f"({', '.join(cache)}). The whole request counted now is {request.total:,} ({difference:+.1f} %, "
        f"{request.total - last.prompt_tokens:+,} tokens): it also holds the {after:,} message"
        f"{'s' if after != 1 else ''} from message {last.message_index} on, which that request did not."
    )
    errors = request.estimate_errors()
    with st.expander(f"Recorded and estimated prompt sizes, turn by turn ({errors['turns']} compared)"):
        if errors["turns"]:
            scaled = (f"; counted tokens scaled by {errors['factor']:.2f}, the log's own ratio of recorded to "
                      "counted growth (no public tokenizer for this model)" if errors["fitted"] else "")
            st.caption(f"Each recorded turn is estimated from the recorded turns before it only: its counted request "
                       f"plus the overhead measured at the previous recorded turn{scaled}. Mean absolute error: the "
                       f"messages alone {errors['messages_only']:.1f} %, the whole-request estimate "
                       f"{errors['estimate']:.1f} % (worst turn {errors['estimate_max']:.1f} %). The first recorded "
                       "turn is where the overhead is first measured, so it has no estimate of its own.")
        else:
            st.caption("Only one turn records its prompt size: it is where the overhead is measured, so no turn "
                       "can be estimated from an earlier one.")
        table(request.turn_table(), key="request_turns")


def show_figures(transcript: Transcript) -> None:
    """Headline figures, breakdowns and the message table.

    The analysis modules (pandas, plotly, tiktoken) are imported here, after the upload widgets
    are on screen, so the first page is usable while they load.
    """
    import core.render.html_charts as html_charts
    from core.inspections.request import ExactWeigher, request_breakdown
    from core.inspections.usage import context_usage
    from core.render.palette import CATEGORY_COLORS, ROLE_COLORS
    from core.tokens import estimate_messages_tokens_rough

    settings = current_settings()
    count_with_progress(transcript, settings)  # the totals below then read the counts
    counter = transcript.counter(settings.encoding)
    config = settings.config()
    # The headline figures and the request bar need no table: they are drawn before pandas loads.
    total = transcript.memo(("total-tokens", settings.encoding), lambda: counter.count_messages(transcript.messages))
    rough = transcript.memo("rough-total", lambda: estimate_messages_tokens_rough(transcript.messages))
    request = transcript.memo(("request", settings.encoding),
                              lambda: request_breakdown(transcript.conversation, ExactWeigher(settings.encoding)))
    usage = context_usage(request.total, config.context_length, config.threshold_tokens)

    source_caption(transcript)

    st.subheader("Headline figures")
    metric_row("overview", [
        ("Messages", f"{len(transcript.messages):,}"),
        (f"Tokens ({settings.encoding})", f"{total:,}", {"help": "Exact tiktoken count of every message."}),
        ("Hermes estimate", f"{rough:,}", {"help": "The reference's rough estimate (characters / 4, images 1,500)."}),
        ("Whole request", f"{request.total:,}", {
            "help": "What the model read with the next request: system prompt, tool schemas, injected context, the "
                    "messages of the agent's current context and the overhead the log's recorded usage implies "
                    "(see below)."}),
        ("Context used", f"{usage['usage_share']:.0%}",
         {"help": f"The whole request, of a {config.context_length:,}-token window."}),
        ("Compression threshold", f"{config.threshold_tokens:,}", {
            "delta": ("reached" if usage["over_threshold"]
                      else f"{request.total / max(config.threshold_tokens, 1):.0%} of it"),
            "delta_color": "orange" if usage["over_threshold"] else "gray",
            "delta_arrow": "off",
            "help": "The whole request (exact tokens) against the threshold, as Hermes' host sizes a request; the "
                    "Zones page decides on the messages with the configured estimator.",
        }),
    ])
    show_request(request, config.context_length, config.threshold_tokens)

    from core.inspections.overview import filter_messages, tokens_by_category, tokens_by_role, tokens_by_tool

    frame = transcript.message_table(settings.encoding)
    by_category = tokens_by_category(frame)

    # One breakdown at a time: hidden tabs would draw three more charts and tables on the first page.
    by = st.segmented_control("Break down by", ["By role", "By tool", "By category"],
                              **keep("overview_breakdown", "By role"), label_visibility="collapsed")
    left, right = st.columns([3, 2])
    if by == "By tool":
        by_tool = transcript.memo(("by-tool", settings.encoding), lambda: tokens_by_tool(transcript.messages, counter))
        if by_tool.empty:
            st.info("This conversation has no tool calls.")
        else:
            with left:
                st.html(html_charts.tool_breakdown_html(by_tool))
            with right:
                small_table(by_tool, "by-tool")
    elif by == "By category":
        with left:
            st.html(html_charts.breakdown_html(by_category, "category", colors=CATEGORY_COLORS))
        with right:
            small_table(by_category, "by-category")
    else:
        by_role = tokens_by_role(frame)
        with left:
            st.html(html_charts.breakdown_html(by_role, "role", colors=ROLE_COLORS))
        with right:
            small_table(by_role, "by-role")

    # Every compaction of the log, at its place in the full history (the live context holds only the last).
    history = getattr(transcript.conversation, "full_history", None) or transcript.conversation
    events = list(getattr(history, "compaction_events", None) or [])
    if events:
        with st.expander(f"{len(events)} compaction(s) recorded in the log"):
            import pandas as pd

            table(pd.DataFrame(
                [{"before message": e.position, "kind": e.kind, "tokens before": e.pre_tokens,
                  "summary": (e.summary or "")[:200]} for e in events],
            ))

    st.subheader("Messages")
    view = st.segmented_control("Read as", ["Thread", "Table"], **keep("overview_messages_view", "Thread"),
                                label_visibility="collapsed")
    if view != "Table":
        from core.inspections.release_detect import detect_release

        tokens = frame["tokens"].tolist()
        guess = transcript.memo(("release-detect",), lambda: detect_release(transcript.messages))
        handoffs = set(guess.indices) if guess is not None else set()
        conversation_view("overview", transcript.messages, source_key=transcript.key,
                          tokens=lambda n: int(tokens[n]), badges=lambda n: ("SUMMARY",) if n in handoffs else ())
        return
    search_col, role_col = st.columns([3, 2])
    query = search_col.text_input("Search messages", placeholder="text, tool name or role", **keep("message_query", ""))
    roles = role_col.multiselect("Roles", sorted(frame["role"].unique()), key="message_roles")
    shown = filter_messages(frame, query, roles)
    st.caption(f"{len(shown):,} of {len(frame):,} messages. Click a row to read the message in full below.")
    numbers = [int(i) for i in shown["index"]]

    def open_row() -> None:
        rows = (st.session_state.get("message_table") or {}).get("selection", {}).get("rows", [])
        if rows:
            st.session_state["detail_index"] = numbers[int(rows[0])]

    table(
        shown[["index", "role", "tool", "tokens", "preview", "source"]],
        height=grid_height(len(shown)),
        column_config={
            "index": st.column_config.NumberColumn("#", width="small", format="localized"),
            "preview": st.column_config.TextColumn("preview", width="large"),
        },
        key="message_table",
        on_select=open_row,
        selection_mode="single-row",
    )
    show_message_detail(transcript)


st.title("Upload & overview")
page_setup()

# Read before the picker is drawn: an upload no format reads leaves the picker's options.
transcript, error = current_transcript()
upload_col, pick_col = st.columns([3, 2], gap="large")
with upload_col:
    st.file_uploader(
        "Drop one or more transcripts",
        accept_multiple_files=True,
        key="uploader",
        on_change=_store_uploads,
        help="OpenAI chat, Responses, Anthropic, ShareGPT, LangChain, Claude Code, Codex, OpenHands, "
        "SWE-agent or Hermes (JSON, JSONL or state.db). The file is only read, never changed.",
    )
with pick_col:
    options = conversation_options()
    if options and selected_source() is not None:
        st.selectbox(
            "Conversation to analyse",
            options,
            **keep("conversation_choice", then=_reset_reading_options),
            help="Uploaded files first, then the bundled samples.",
        )

for rejected_name, why in rejected_uploads().values():
    reason = why.removeprefix(f"{rejected_name}: ")  # the reason names the file already
    st.error(f"**{escape_markdown(rejected_name)}** was not loaded, so it is not in the conversation picker: "
             + escape_markdown(reason), icon=":material/block:")
if error:
    st.error(escape_markdown(error))
    st.caption("Nothing was changed. Check that the file is a complete transcript, or force a format below.")
if transcript is None and not error:
    empty_state()
    st.stop()

try:
    from core.formats import FORMAT_NAMES
except ImportError:  # the importer package is part of core; this only guards a broken install
    FORMAT_NAMES = ()

fmt_col, session_col = st.columns(2)
with fmt_col:
    format_options = [AUTO_FORMAT, *FORMAT_NAMES]
    if kept("format_choice") not in format_options:
        set_kept("format_choice", AUTO_FORMAT)
    st.selectbox(
        "Format",
        format_options,
        **keep("format_choice", AUTO_FORMAT),
        help="Auto-detection reads the file's structure; pick a format to override it.",
    )
    if transcript is not None:
        how = "detected" if kept("format_choice") == AUTO_FORMAT else "forced"
        st.caption(f"Read as **{escape_markdown(transcript.format)}** ({how}).")
if transcript is not None and len(transcript.sessions) > 1:
    with session_col:
        # Labels are the options themselves (a format_func would hide the ids from the test harness).
        labels: dict[str, str] = {session_label(info): str(info.id) for info in transcript.sessions}
        label_of = {sid: label for label, sid in labels.items()}
        current = str(kept("session_choice") or transcript.conversation.session_id or "")
        if kept("session_label") not in labels:
            set_kept("session_label", label_of.get(current, next(iter(labels))))

        def _pick_session() -> None:
            set_kept("session_choice", labels.get(st.session_state.get("session_label"), None))

        st.selectbox(
            "Session or branch",
            list(labels),
            **keep("session_label", then=_pick_session),
            help=f"This file holds {_what_it_holds(transcript.sessions)}. An abandoned branch is the conversation "
            "as it stood before an edited prompt, a rewind or a retry took another way.",
        )

if transcript is None:
    st.stop()

show_load_report(transcript)
show_release(transcript)
show_figures(transcript)
show_load_table(transcript)
