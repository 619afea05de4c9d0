"""One analysis as a self-contained HTML page, to attach to an issue or a pull request.

:func:`html_report` writes the zones (with the reasons the boundaries fell where they did), what
each step saved, the run's before and after, the compressed conversation and the summary. The
page needs nothing else: no script, no external stylesheet, font or image; it follows the
reader's light or dark preference. Every piece of transcript text (and the file name, the roles,
the tool names) is HTML-escaped, so markup in a transcript is shown, never rendered or run.

The report is meant to be attached to an issue, so by default every credential in the transcript
text it shows is masked first (the profile's own redaction, then the strict layer), and the report
says what was masked and where; with ``mask_secrets=False`` it says that nothing was.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.profiles import get_profile
from core.render.formatting import integer, percent, signed
from core.render.palette import ZONE_COLORS as PALETTE_ZONES
from core.wording import article

__all__ = ["ReportInput", "html_report"]

MESSAGE_CHARS = 6_000  # per message in the preview; the summary is always whole
_MASK_MARGIN = 2_000  # masked past the cut: longer than any credential the layers find

# The dashboard's zone colours, and the report's own kinds of output message.
ZONE_COLORS = {**{zone: PALETTE_ZONES[zone] for zone in ("HEAD", "MIDDLE", "TAIL")},
               "SUMMARY": "#b0489e", "STUB": "#8c96a0", "KEPT": "#8c96a0"}

_STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23; }
  body { background: #0d1117; }
}
body { font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg); margin: 0;
       padding: 2rem; max-width: 1100px; }
h1 { font-size: 1.6rem; margin: 0 0 0.3rem; } h2 { font-size: 1.25rem; margin: 2rem 0 0.6rem; }
.muted { color: var(--muted); } .small { font-size: 0.85rem; }
table { border-collapse: collapse; margin: 0.4rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid var(--line); padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.figures { display: flex; flex-wrap: wrap; gap: 0.6rem 2rem; margin: 0.6rem 0 1rem; }
.figure .label { color: var(--muted); font-size: 0.85rem; } .figure .value { font-size: 1.5rem; }
.strip { display: flex; height: 1.4rem; border-radius: 4px; overflow: hidden; margin: 0.3rem 0; }
.strip span { display: block; height: 100%; }
.bar { height: 0.8rem; border-radius: 3px; background: #5b82c0; }
.legend span.key { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin: 0 0.3rem 0 0.8rem;
                   vertical-align: middle; }
.message { border: 1px solid var(--line); border-radius: 6px; margin: 0.6rem 0; }
.message header { padding: 0.3rem 0.7rem; background: var(--panel); border-bottom: 1px solid var(--line);
                  font-size: 0.85rem; }
.badge { display: inline-block; padding: 0 0.4rem; border-radius: 0.6rem; font-size: 0.75rem; color: #fff;
         margin-left: 0.3rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; padding: 0.6rem 0.7rem;
      font: 0.82rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


@dataclass
class ReportInput:
    """What one report is made of (everything already computed by the analyses)."""

    filename: str
    generated: datetime
    parameters: Sequence[tuple[str, str]]  # (name, value) rows
    zones: Any  # core.views.zones.ZoneAnalysis
    result: Any  # core.compressor.CompressionResult
    summarizer: str
    savings: Any | None = None  # core.views.savings.SavingsAnalysis
    figures: Any | None = None  # core.views.run.RunFigures
    composition: Any | None = None  # run_composition(..., by="role")
    preview: Any | None = None  # core.views.preview.preview_table
    message_chars: int = MESSAGE_CHARS
    mask_secrets: bool = True  # mask credentials in every transcript text the report shows
    release: str | None = None  # whose reference redaction runs first (the run's profile)


@dataclass
class _Masker:
    """Masks credentials in the texts a report shows, and remembers what it masked where."""

    enabled: bool
    release: str | None
    kinds: Counter[tuple[str, str]] = field(default_factory=Counter)
    places: list[str] = field(default_factory=list)

    def __call__(self, text: str, place: str) -> str:
        if not self.enabled or not text:
            return text
        from core.redaction.strict import redact_with_spans
        from core.views.redaction import reference_spans

        # The profile's redaction rules (a release can share its predecessor's: v0.19.0 runs v0.18.1's).
        rules_name = get_profile(self.release).redaction if self.release else None
        redacted, reference = reference_spans(text, release=rules_name)
        redacted, strict = redact_with_spans(redacted)
        for _start, _end, kind in reference:
            self.kinds[("reference", kind)] += 1
        for span in strict:
            self.kinds[("strict", span.kind)] += 1
        if (reference or strict) and place not in self.places:
            self.places.append(place)
        return redacted


def _figures(items: Sequence[tuple[str, str]]) -> str:
    cells = "".join(f'<div class="figure"><div class="label">{_e(label)}</div><div class="value">{_e(value)}</div>'
                    "</div>" for label, value in items)
    return f'<div class="figures">{cells}</div>'


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Sequence[bool]) -> str:
    head = "".join(f'<th class="{"n" if n else ""}">{_e(h)}</th>' for h, n in zip(headers, numeric, strict=True))
    body = "".join(
        "<tr>" + "".join(f'<td class="{"n" if n else ""}">{_e(v)}</td>' for v, n in zip(row, numeric, strict=True))
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _zone_strip(zones: Any) -> str:
    table = zones.table
    parts = []
    total = int(table["tokens"].sum()) or 1
    for zone in ("HEAD", "MIDDLE", "TAIL", "UNCHANGED"):
        tokens = int(table.loc[table["zone"] == zone, "tokens"].sum())
        if tokens:
            color = ZONE_COLORS.get(zone, "#8c96a0")
            parts.append(f'<span style="width:{tokens / total * 100:.3f}%; background:{color}" '
                         f'title="{_e(zone)}: {integer(tokens)} tokens"></span>')
    legend = "".join(f'<span class="key" style="background:{ZONE_COLORS[z]}"></span>{z}'
                     for z in ("HEAD", "MIDDLE", "TAIL"))
    return (f'<div class="strip">{"".join(parts)}</div>'
            f'<div class="legend small muted">exact tokens by zone:{legend}</div>')


def _zones_section(zones: Any) -> str:
    if zones.small_conversation:
        counts = [("Head", "—"), ("Middle", "—"), ("Tail", "—")]
    else:
        counts = [("Head", f"{integer(zones.head_count)} msgs"), ("Middle", f"{integer(zones.middle_count)} msgs"),
                  ("Tail", f"{integer(zones.tail_count)} msgs")]
    trigger = ("Compression triggers: the prompt estimate reaches the threshold." if zones.would_compress
               else "Compression would not trigger on its own: the prompt estimate is below the threshold.")
    reasons = "".join(f"<li>{_e(line)}</li>" for line in zones.explanations)
    return (
        "<h2>Zones</h2>"
        + _figures([("Threshold", integer(zones.threshold_tokens)), ("Tail budget", integer(zones.tail_token_budget)),
                    ("Prompt estimate", integer(zones.prompt_tokens)), *counts,
                    ("Prune boundary", integer(zones.prune_boundary))])
        + f"<p>{_e(trigger)}</p>" + _zone_strip(zones)
        + f"<h3>Why the boundaries fell here</h3><ul>{reasons}</ul>"
    )


def _savings_section(savings: Any) -> str:
    if savings is None:
        return ""
    top = max((step.exact_tokens for step in savings.steps), default=1) or 1
    rows = []
    for step in savings.steps:
        width = step.exact_tokens / top * 100
        rows.append(
            f"<tr><td>{_e(step.label)}</td><td class=\"n\">{_e(integer(step.exact_tokens))}</td>"
            f"<td class=\"n\">{_e(signed(step.exact_delta))}</td><td class=\"n\">{_e(integer(step.hermes_tokens))}</td>"
            f"<td class=\"n\">{_e(integer(len(step.messages)))}</td>"
            f'<td style="width:30%"><div class="bar" style="width:{width:.2f}%"></div></td></tr>'
        )
    head = ("<tr><th>step</th><th class=\"n\">tokens (tiktoken)</th><th class=\"n\">change</th>"
            "<th class=\"n\">Hermes estimate</th><th class=\"n\">messages</th><th></th></tr>")
    return f"<h2>What each step saves</h2><table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def _run_section(report: ReportInput) -> str:
    result = report.result
    parts = [f"<h2>The run</h2><p>Outcome: <b>{_e(str(result.outcome).replace('_', ' '))}</b>, "
             f"with the {_e(report.summarizer)}.</p>"]
    figures = report.figures
    if figures is not None:
        parts.append(_figures([
            ("Messages", f"{integer(figures.messages_before)} → {integer(figures.messages_after)}"),
            ("Tokens (tiktoken)", f"{integer(figures.exact_before)} → {integer(figures.exact_after)}"),
            ("Saved", percent(figures.saved_share)),
            ("Hermes estimate", f"{integer(figures.estimate_before)} → {integer(figures.estimate_after)}"),
            ("Summary", f"{integer(figures.summary_tokens)} tokens" if figures.summary_tokens else "none"),
        ]))
    composition = report.composition
    if composition is not None and len(composition):
        key = composition.columns[0]
        rows = [(row[key], integer(row["before"]), integer(row["after"]), signed(row["change"]))
                for row in composition.to_dict("records")]
        parts.append("<h3>Before and after, by " + _e(key) + "</h3>"
                     + _table([key, "before", "after", "change"], rows, [False, True, True, True]))
    return "".join(parts)


def _preview_section(report: ReportInput, mask: _Masker) -> str:
    table = report.preview
    if table is None:
        return ""
    blocks = []
    for row in table.to_dict("records"):
        zone = str(row["zone"])
        color = ZONE_COLORS.get(zone, "#8c96a0")
        # Masked, then cut: a credential across the cut is not shown in part. Only what can be shown
        # (and a margin longer than any credential) is masked: the rest of a long output never is shown.
        full = str(row["text"] or "")
        window = full[: report.message_chars + _MASK_MARGIN]
        text = mask(window, f"#{row['#']}")
        cut = ""
        more = len(text) - report.message_chars + len(full) - len(window)
        if more > 0:
            cut = f"\n… ({more:,} more characters)"
            text = text[: report.message_chars]
        tokens = row.get("tokens")
        badges = [b for b in str(row["badges"]).split(", ") if b and b != zone]
        blocks.append(
            f'<div class="message"><header>#{_e(row["#"])} · {_e(row["role"])}'
            f'<span class="badge" style="background:{color}">{_e(zone)}</span>'
            + "".join(f'<span class="badge" style="background:#8c96a0">{_e(b)}</span>' for b in badges)
            + (f' <span class="muted">· {_e(integer(tokens))} tokens</span>' if tokens is not None else "")
            + f"</header><pre>{_e(text)}{_e(cut)}</pre></div>"
        )
    return f"<h2>The compressed conversation ({integer(len(table))} messages)</h2>" + "".join(blocks)


def _summary_section(result: Any, mask: _Masker) -> str:
    assembly = result.assembly
    if assembly is None or not assembly.summary_text:
        return "<h2>The summary</h2><p class=\"muted\">This run wrote no summary.</p>"
    role = str(assembly.summary_role or "user")
    where = "merged into the first tail message" if assembly.summary_merged else f"inserted as {article(role)} {role} message"
    return (f"<h2>The summary</h2><p class=\"muted\">{_e(where)}.</p>"
            f'<div class="message"><pre>{_e(mask(assembly.summary_text, "the summary"))}</pre></div>')


def _masking_section(mask: _Masker) -> str:
    if not mask.enabled:
        return ("<h2>Credentials</h2><p><b>Nothing was masked in this report</b>: it shows the transcript's text as "
                "it is. Check it for keys and passwords before attaching it anywhere.</p>")
    total = sum(mask.kinds.values())
    if not total:
        return ("<h2>Credentials</h2><p class=\"muted\">No credential was found in the text this report shows "
                "(the profile's redaction and the strict layer both ran over it).</p>")
    rows = [(layer, kind, integer(count)) for (layer, kind), count in
            sorted(mask.kinds.items(), key=lambda item: (item[0][0] != "reference", -item[1], item[0][1]))]
    shown = ", ".join(mask.places[:40]) + (f" and {len(mask.places) - 40} more" if len(mask.places) > 40 else "")
    return (f"<h2>Credentials</h2><p>{integer(total)} value{'s' if total != 1 else ''} masked in this report "
            f"(the profile's own redaction, then the strict layer), in {_e(shown)}.</p>"
            + _table(["layer", "kind", "masked"], rows, [False, False, True]))


def html_report(report: ReportInput) -> str:
    """The whole page (UTF-8 text); nothing in it is fetched or run."""
    when = report.generated.strftime("%Y-%m-%d %H:%M")
    parameters = _table(["parameter", "value"], [(name, value) for name, value in report.parameters], [False, False])
    mask = _Masker(report.mask_secrets, report.release)
    # The transcript's texts are masked first, so the section saying what was masked can come early.
    summary = _summary_section(report.result, mask)
    preview = _preview_section(report, mask)
    filename = mask(report.filename, "the file name")
    body = (
        f"<h1>Context Lens: {_e(filename)}</h1>"
        f'<p class="muted small">Generated {_e(when)} · {integer(len(report.result.input_messages))} messages.</p>'
        f"<h2>Parameters</h2>{parameters}"
        + _zones_section(report.zones)
        + _savings_section(report.savings)
        + _run_section(report)
        + _masking_section(mask)
        + summary
        + preview
    )
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>Context Lens: {_e(filename)}</title><style>{_STYLE}</style></head>"
            f"<body>{body}</body></html>\n")
