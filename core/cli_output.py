"""What the command line prints: the readable analysis, JSON, and one-line messages.

Everything it prints may hold transcript text (a model name, a session id, a warning, a file name):
terminal controls are escaped on the way out (``core.safe_text.neutralise``), and JSON carries the
controls ``json.dumps`` leaves raw as ``\\uXXXX`` escapes (the same JSON value), so a transcript can
never retitle, clear or reorder the terminal it is analysed in.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from core.config import CompressorConfig
from core.formats import Conversation
from core.safe_text import neutralise

PROG = "context-lens"


def say(text: str, *, err: bool = False, lines: bool = False) -> None:
    """Print text that may hold transcript text (a model name, a session id, a warning): every
    terminal control is escaped, so a transcript cannot retitle or clear the terminal."""
    print(neutralise(text, keep_lines=lines), file=sys.stderr if err else sys.stdout)


def warn(text: str) -> None:
    say(f"{PROG}: warning: {text}", err=True)



def json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def encodable(text: str) -> str:
    """``text`` without lone surrogates (a damaged input may carry them): each becomes its JSON
    escape (``\\ud800``), which inside a JSON string reads back as the same character."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


# Characters JSON may carry raw that a terminal acts on: DEL, the C1 controls (0x9B is CSI), and the
# text-direction overrides. json.dumps escapes the C0 controls itself.
_JSON_RAW_CONTROLS_RE = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_json(text: str) -> str:
    """JSON text with the controls json.dumps leaves raw written as ``\\uXXXX`` (the same JSON value)."""
    return _JSON_RAW_CONTROLS_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(data: Any) -> None:
    print(terminal_json(encodable(json.dumps(data, indent=2, ensure_ascii=False, default=json_default))))


def fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "-"}[value]
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)



def analysis_report(
    conversation: Conversation, analysis: dict[str, Any], file: str, config: CompressorConfig | None = None
) -> dict[str, Any]:
    """The ``analyze --json`` document; ``request`` is the whole request (``core.inspections.request``)
    counted with ``config``'s model (the defaults when None)."""
    from core.inspections.request import request_report
    from core.views.repair_losses import repair_losses

    report = {key: value for key, value in analysis.items() if key != "result"}
    result = analysis.get("result")
    losses = repair_losses(result) if result is not None else None
    report.update(
        {
            "file": file,
            "format": conversation.format,
            "session": conversation.session_id,
            "sessions": [info.id for info in conversation.sessions],
            "model": conversation.model,
            "warnings": list(conversation.warnings),
            "load_report": conversation.report.to_dict(),
            "request": request_report(conversation, config or CompressorConfig()),
            "context": conversation.context_report(),
            "repair_losses": losses.to_dict() if losses is not None else None,
        }
    )
    report["repair_losses_sentence"] = losses.sentence() if losses is not None else ""
    # Hermes' host decides on the whole request (the last recorded prompt when there is one).
    report["would_compress"] = report["request"]["trigger"]["would_compress"]
    return report


def context_note(context: dict[str, Any]) -> str:
    """A clause saying which part of a log the agent compacted was read ("" for a log without one)."""
    at = context["compaction_at"]
    if at is None:
        return ""
    if context["shown"] == "after_last_compaction":
        return (f"; read the context after the agent's compaction at message {at:,} ({context['compaction_kind']}), "
                f"not the {context['messages_before_compaction']:,} messages before it (--full-history for every message)")
    return (f"; read the full history, including the {context['messages_before_compaction']:,} messages before the "
            f"agent's compaction at message {at:,}")


def _zone_text(start: int, end: int, name: str) -> str:
    return f"{name} {start}-{end - 1} ({end - start})" if end > start else f"{name} - (0)"


def _validity_text(report: dict[str, Any]) -> str:
    def ok(flag: bool) -> str:
        return "valid" if flag else "INVALID"

    text = (f"result: OpenAI {ok(report['valid'])}, Anthropic {ok(report['valid_anthropic'])} · "
            f"input: OpenAI {ok(report['input_valid'])}, Anthropic {ok(report['input_valid_anthropic'])}")
    if report["problems"]:
        text += f" · {len(report['problems'])} error(s), first: {report['problems'][0]}"
    return text


def _request_text(request: dict[str, Any]) -> str:
    def part(name: str) -> str:
        text = f"{fmt(request[name])} {name.replace('_', ' ')}"
        # The reasoning a Responses model is sent back is part of the messages it reads, not of the
        # messages the "tokens" line counts: said, so the two figures are not read as one.
        if name == "messages" and request.get("messages_reasoning"):
            text += f" (of which {fmt(request['messages_reasoning'])} reasoning sent back)"
        return text

    parts = " + ".join(part(name) for name in ("system", "tools", "injected", "messages", "unrecorded_overhead")
                       if request[name])
    text = f"{fmt(request['total'])} whole request ({request['unit']}" + (f": {parts})" if parts else ")")
    recorded = request["recorded_last_prompt"]
    return text + (f" · last recorded prompt {fmt(recorded)}" if recorded is not None else " · no recorded prompt sizes")


def _trigger_text(report: dict[str, Any]) -> str:
    trigger = report["request"]["trigger"]
    sized = ("the last recorded prompt" if trigger["source"] == "recorded" else f"the whole-request {trigger['source']}") \
        + f" is {fmt(trigger['tokens'])}"
    if report["would_compress"]:
        return f"yes: Hermes would compress now ({sized})"
    return f"no: {sized}, below the threshold (savings below are what compressing anyway would do)"


_SHOWN_WARNINGS = 5


def print_analysis(report: dict[str, Any]) -> None:
    """The readable form of ``analyze``."""
    import pandas as pd

    session = f" · session {report['session']} ({len(report['sessions'])} in file)" if report["session"] else ""
    floored = " (the 64K floor)" if report["threshold_floored"] else ""
    load = report["load_report"]
    lines = [
        ("file", report["file"]),
        ("format", f"{report['format']}{session}" + (f" · model {report['model']}" if report["model"] else "")),
        ("read", f"{fmt(load['read'])} {load['unit']}(s): {fmt(load['placed'])} placed, "
                 f"{fmt(load['other_sessions'] + load['other_branches'])} in other sessions or branches, "
                 f"{fmt(sum(load['metadata'].values()))} metadata, {fmt(sum(e['count'] for e in load['skipped']))} skipped"),
        ("context", report["context"]["description"]
         + (" (--full-history for every message)" if report["context"]["shown"] == "after_last_compaction" else "")),
        ("messages", fmt(report["messages"])),
        ("tokens", f"{fmt(report['exact_tokens'])} exact ({report['encoding']}) · "
                   f"{fmt(report['hermes_tokens'])} Hermes estimate"),
        ("request", _request_text(report["request"])),
        ("threshold", f"{fmt(report['threshold_tokens'])} of a {fmt(report['context_length'])} window{floored}"),
        ("compress?", _trigger_text(report)),
    ]
    if report["small_conversation"]:
        lines.append(("zones", "too few messages: the compressor leaves the conversation unchanged"))
    elif report["compress_start"] is not None:
        start, end, n = report["compress_start"], report["compress_end"], report["messages"]
        lines.append(("zones", " · ".join((_zone_text(0, start, "HEAD"), _zone_text(start, end, "MIDDLE"),
                                           _zone_text(end, n, "TAIL")))))
    outcome = report["outcome"] + (f" ({report['failure_reason']})" if report["failure_reason"] else "")
    lines += [
        ("outcome", outcome),
        ("saved", f"{fmt(report['saved_total'])} tokens ({report['savings_pct']:.1f} %) exact · "
                  f"{report['hermes_savings_pct']:.1f} % by the Hermes estimate · "
                  f"{report['messages']} → {report['messages_after']} messages"),
        ("facts kept", f"{report['fact_retention'] * 100:.0f} % ({report['facts_kept']}/{report['facts']}); "
                       f"from the summarised middle {report['middle_fact_retention'] * 100:.0f} % "
                       f"({report['middle_facts_kept']}/{report['middle_facts']})"),
        ("validity", _validity_text(report)),
    ]
    if report["repair_losses_sentence"]:
        losses = report["repair_losses"]
        lost = ", ".join(f"{fact['value']} ({fact['kind']}, message {fact['message_index']})"
                         for fact in losses["lost_facts"][:_SHOWN_WARNINGS])
        more = f" … and {len(losses['lost_facts']) - _SHOWN_WARNINGS} more (in --json)" \
            if len(losses["lost_facts"]) > _SHOWN_WARNINGS else ""
        lines.append(("repair", report["repair_losses_sentence"]))
        if lost:
            lines.append(("lost by repair", lost + more))
    for warning in report["warnings"][:_SHOWN_WARNINGS]:
        lines.append(("warning", warning))
    if len(report["warnings"]) > _SHOWN_WARNINGS:
        lines.append(("warning", f"… and {len(report['warnings']) - _SHOWN_WARNINGS} more (all of them in --json)"))
    width = max(len(label) for label, _ in lines)
    for label, text in lines:
        say(f"{label:<{width}}  {text}")
    table = pd.DataFrame(report["steps"])[
        ["label", "exact_tokens", "exact_change", "hermes_tokens", "hermes_change", "messages_touched"]
    ]
    table.columns = ["step", "tokens", "change", "hermes", "change (hermes)", "messages"]
    print()
    say(table.to_string(index=False), lines=True)
