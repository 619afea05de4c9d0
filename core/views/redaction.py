"""The text a compression sends to its summarizer, with every masked value located and named.

:func:`redaction_view` computes the serialised-turns block of the summary prompt exactly as
``compress()`` builds it (the compression plan's turns, ``core.plan``, then
``core.rules.serialize_for_summary`` with the plan's ``redact`` / ``redact_many``),
and finds where each mask sits in it:

* ``reference`` spans are the profile's own masks (the Hermes passes: vendor keys, ``NAME=value``
  assignments, JSON fields, bearer headers, private keys, database URLs, JWTs, ...). Each pass is
  re-run with its matches tracked, so every mask is named after the pass that wrote it; a value
  masked by two passes (a vendor key inside an ``API_KEY=`` line) counts once, under the first.
* ``strict`` spans are the strict layer's (``core.redaction.strict``), with its own kinds. A
  reference mask that the strict layer masks again is counted as strict.

Spans are positions in the serialised text, after the serializer's truncation of long contents
and tool arguments (a mask in a truncated-away part is not sent, so it is not listed).
Nothing here imports Streamlit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core import profiles as P
from core.config import CompressorConfig
from core.message_view import iterate_calls
from core.plan import CompressionPlan, plan
from core.redaction.hermes import passes_for  # the reference passes, in their order
from core.redaction.strict import SecretSpan, find_secrets
from core.rules import redaction_texts, serialize_for_summary, truncate_content

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "REFERENCE",
    "STRICT",
    "MaskedSpan",
    "RedactionView",
    "reference_spans",
    "redaction_view",
    "strict_spans",
]

REFERENCE = "reference"
STRICT = "strict"

# Characters that end a value: a mask is widened over the value it replaced, up to these.
_SEPARATORS = frozenset(" \t\r\n\"'`=:,;&()[]{}<>@|\\")
# ... and are trimmed from a mask's ends (brackets are not: "[REDACTED PRIVATE KEY]" is one mask).
_TRIMMED = frozenset(" \t\r\n\"'`=:,;&|")


@dataclass(frozen=True)
class MaskedSpan:
    """One mask in the serialised text: ``text[start:end] == masked``."""

    start: int
    end: int
    layer: str  # REFERENCE or STRICT
    kind: str
    masked: str
    turn: int  # index into the summarised turns
    continued: bool = False  # the tail part of a mask the serializer's truncation cut in two


@dataclass
class RedactionView:
    """The serialised turns as the summarizer receives them, and the masks inside."""

    plan: CompressionPlan
    strict: bool
    text: str
    spans: list[MaskedSpan] = field(default_factory=list)
    blocks: list[tuple[int, int]] = field(default_factory=list)  # text range of each turn's block
    located: bool = True  # False only if the masks could not be placed (they are then not listed)
    crash: str | None = None  # the release raises while serialising these turns (nothing is sent)

    @property
    def calls_summarizer(self) -> bool:
        return self.plan.calls_summarizer

    def counts(self) -> dict[tuple[str, str], int]:
        """Masks per (layer, kind), reference first, most frequent first within a layer."""
        counted = Counter((span.layer, span.kind) for span in self.spans if not span.continued)
        return dict(sorted(counted.items(), key=lambda item: (item[0][0] != REFERENCE, -item[1], item[0][1])))

    def count_frame(self) -> pd.DataFrame:
        import pandas as pd

        rows = [{"layer": layer, "kind": kind, "masked": n} for (layer, kind), n in self.counts().items()]
        return pd.DataFrame(rows, columns=["layer", "kind", "masked"]).astype({"masked": "int64"})

    def span_frame(self) -> pd.DataFrame:
        """One row per mask: the turn it is in, its layer and kind, the mask text and its position."""
        import pandas as pd

        rows = [
            {"turn": self.turn_index(span.turn), "layer": span.layer, "kind": span.kind, "mask": span.masked,
             "start": span.start, "end": span.end}
            for span in self.spans
            if not span.continued
        ]
        return pd.DataFrame(rows, columns=["turn", "layer", "kind", "mask", "start", "end"])

    def turn_index(self, turn: int) -> int:
        """The message index (in the conversation) of summarised turn ``turn``."""
        return (self.plan.turns_start or 0) + turn

    def segments(self, start: int = 0, end: int | None = None) -> list[tuple[str, MaskedSpan | None]]:
        """``text[start:end]`` cut into plain pieces and masks, in order (for highlighting)."""
        end = len(self.text) if end is None else end
        out: list[tuple[str, MaskedSpan | None]] = []
        cursor = start
        for span in self.spans:
            if span.end <= start or span.start >= end:
                continue
            lo, hi = max(span.start, start), min(span.end, end)
            if lo > cursor:
                out.append((self.text[cursor:lo], None))
            out.append((self.text[lo:hi], span))
            cursor = hi
        if cursor < end:
            out.append((self.text[cursor:end], None))
        return out


# --- the reference passes, with their matches tracked ---------------------------------------


def _common_ends(old: str, new: str) -> tuple[int, int]:
    """How many leading and (not overlapping those) trailing characters ``old`` and ``new`` share."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return prefix, suffix


def _narrow(old: str, new: str) -> tuple[int, int] | None:
    """The part of ``new`` that is the mask: what differs from ``old``, widened to whole values
    (``sk-abc...wxyz``, not ``...``) and without the quotes or spaces a pass rewrote around it."""
    prefix, suffix = _common_ends(old, new)
    start, end = prefix, len(new) - suffix
    while start > 0 and new[start - 1] not in _SEPARATORS:
        start -= 1
    while end < len(new) and new[end] not in _SEPARATORS:
        end += 1
    while start < end and new[start] in _TRIMMED:
        start += 1
    while end > start and new[end - 1] in _TRIMMED:
        end -= 1
    return (start, end) if end > start else None


# An edit: old[a:b] became new[c:d].
Edit = tuple[int, int, int, int]


def _edits_by_matches(redaction_pass: Any, old: str, new: str) -> list[Edit] | None:
    """The pass's replacements, one per match; None when replaying them does not give ``new``."""
    edits: list[Edit] = []
    pieces: list[str] = []
    cursor = out = 0
    for match in redaction_pass.pattern.finditer(old):
        a, b = match.span()
        replaced = redaction_pass.apply(match.group(0))
        pieces.append(old[cursor:a])
        out += a - cursor
        pieces.append(replaced)
        if replaced != match.group(0):
            edits.append((a, b, out, out + len(replaced)))
        out += len(replaced)
        cursor = b
    pieces.append(old[cursor:])
    return edits if "".join(pieces) == new else None


def _replays(old: str, edits: list[Edit], new: str) -> bool:
    """Do ``edits`` (sorted, non-overlapping) turn ``old`` into ``new``?"""
    pieces: list[str] = []
    cursor = 0
    for a, b, c, d in edits:
        if a < cursor:
            return False
        pieces.append(old[cursor:a])
        pieces.append(new[c:d])
        cursor = b
    pieces.append(old[cursor:])
    return "".join(pieces) == new


def _form_edits(old: str, new: str) -> list[Edit] | None:
    """The form-body pass: the text is stripped, then each sensitive ``key=value`` pair rewritten."""
    lead = len(old) - len(old.lstrip())
    stripped = old.strip()
    old_pairs, new_pairs = stripped.split("&"), new.split("&")
    if len(old_pairs) != len(new_pairs):
        return None
    edits: list[Edit] = [(0, lead, 0, 0)] if lead else []
    a = lead
    c = 0
    for old_pair, new_pair in zip(old_pairs, new_pairs, strict=True):
        if old_pair != new_pair:
            edits.append((a, a + len(old_pair), c, c + len(new_pair)))
        a += len(old_pair) + 1
        c += len(new_pair) + 1
    end = lead + len(stripped)
    if end < len(old):
        edits.append((end, len(old), len(new), len(new)))
    return edits if _replays(old, edits, new) else None


def _one_edit(old: str, new: str) -> list[Edit]:
    prefix, suffix = _common_ends(old, new)
    return [(prefix, len(old) - suffix, prefix, len(new) - suffix)]


def _apply_edits(
    spans: list[tuple[int, int, str]], edits: list[Edit], old: str, new: str, kind: str | None
) -> list[tuple[int, int, str]]:
    """Spans (in ``old``) moved into ``new``; each edit adds a span of ``kind`` (None: edits add none,
    but a span they overwrite keeps its kind over the edit's mask)."""
    out: list[tuple[int, int, str]] = []
    spans = sorted(spans)
    index = 0
    shift = 0
    for a, b, c, d in edits:
        absorbed: list[str] = []
        while index < len(spans) and spans[index][0] < b:
            start, end, span_kind = spans[index]
            if end <= a:  # before the edit: shifted
                out.append((start + shift, end + shift, span_kind))
            else:  # overlaps the edit: the edit's mask replaces it
                absorbed.append(span_kind)
            index += 1
        region = _narrow(old[a:b], new[c:d])
        if region is not None and (absorbed or kind is not None):
            out.append((c + region[0], c + region[1], absorbed[0] if absorbed else kind))  # type: ignore[arg-type]
        shift = d - b
    out.extend((start + shift, end + shift, span_kind) for start, end, span_kind in spans[index:])
    return out


def reference_spans(text: str, *, release: str | None = None) -> tuple[str, list[tuple[int, int, str]]]:
    """``redact_sensitive_text(text, release=...)`` and its masks as ``(start, end, kind)`` in the redacted text."""
    spans: list[tuple[int, int, str]] = []
    if not text:
        return text, spans
    for redaction_pass in passes_for(release):
        kind = redaction_pass.kind
        if not redaction_pass.gate(text):
            continue
        new = redaction_pass.apply(text)
        if new == text:
            continue
        if redaction_pass.pattern is not None:
            edits = _edits_by_matches(redaction_pass, text, new)
        else:
            edits = _form_edits(text, new)
        if edits is None:  # not expected: the masks of this pass become one span covering the change
            edits = _one_edit(text, new)
        spans = _apply_edits(spans, edits, text, new, kind)
        text = new
    return text, sorted(spans)


def strict_spans(
    text: str, spans: list[tuple[int, int, str]]
) -> tuple[str, list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """The strict layer over ``text``: its output, the earlier ``spans`` moved into it (dropped where
    strict masks them again), and the strict spans ``(start, end, kind)``."""
    found: list[SecretSpan] = find_secrets(text) if text else []
    if not found:
        return text, spans, []
    pieces: list[str] = []
    edits: list[Edit] = []
    strict: list[tuple[int, int, str]] = []
    cursor = out = 0
    for secret in found:
        pieces.append(text[cursor:secret.start])
        out += secret.start - cursor
        pieces.append(secret.masked)
        edits.append((secret.start, secret.end, out, out + len(secret.masked)))
        strict.append((out, out + len(secret.masked), secret.kind))
        out += len(secret.masked)
        cursor = secret.end
    pieces.append(text[cursor:])
    new = "".join(pieces)
    moved = [span for span in _apply_edits(spans, edits, text, new, None)
             if not any(s < span[1] and span[0] < e for s, e, _k in strict)]
    return new, moved, strict


# --- the serialised text and where each redacted piece sits in it ---------------------------


# A piece of the serialised text: (text, piece index or None for the serializer's own text, offset
# of that text inside the piece).
Segment = tuple[str, int | None, int]


def _content_segments(piece: str, index: int) -> list[Segment]:
    if truncate_content(piece) == piece:
        return [(piece, index, 0)]
    tail_start = len(piece) - P.CONTENT_TAIL
    return [
        (piece[: P.CONTENT_HEAD], index, 0),
        (P.SERIALIZER_TRUNCATION_MARK, None, 0),
        (piece[tail_start:], index, tail_start),
    ]


def _layout(turns: Sequence[Any], pieces: list[str]) -> tuple[list[Segment], list[int]]:
    """The serialised text as segments (``serialize_for_summary``'s layout) and the segment each
    turn's block starts at."""
    segments: list[Segment] = []
    starts: list[int] = []
    index = 0
    for turn, message in enumerate(turns):
        if turn:
            segments.append(("\n\n", None, 0))
        starts.append(len(segments))
        if not isinstance(message, dict):
            segments.append(("[UNKNOWN]: ", None, 0))
            segments.extend(_content_segments(pieces[index], index))
            index += 1
            continue
        role = message.get("role", "unknown")
        content_index = index
        index += 1
        if role == "tool":
            segments.append((f"[TOOL RESULT {message.get('tool_call_id', '')}]: ", None, 0))
            segments.extend(_content_segments(pieces[content_index], content_index))
        elif role == "assistant":
            segments.append(("[ASSISTANT]: ", None, 0))
            segments.extend(_content_segments(pieces[content_index], content_index))
            calls = message.get("tool_calls")
            if calls:
                segments.append(("\n[Tool calls:\n", None, 0))
                for position, call in enumerate(iterate_calls(calls)):
                    if position:
                        segments.append(("\n", None, 0))
                    if isinstance(call, dict):
                        function = call.get("function", {})
                        if not isinstance(function, dict):
                            function = {}
                        segments.append((f"  {function.get('name', '?')}(", None, 0))
                        args = pieces[index]
                        if len(args) > P.TOOL_ARGS_MAX:
                            segments.append((args[: P.TOOL_ARGS_HEAD], index, 0))
                            segments.append(("...", None, 0))
                        else:
                            segments.append((args, index, 0))
                        index += 1
                        segments.append((")", None, 0))
                    else:
                        function = getattr(call, "function", None)
                        name = getattr(function, "name", "?") if function else "?"
                        segments.append((f"  {name}(...)", None, 0))
                segments.append(("\n]", None, 0))
        else:
            segments.append((f"[{str(role).upper()}]: ", None, 0))
            segments.extend(_content_segments(pieces[content_index], content_index))
    return segments, starts


def redaction_view(
    messages: Sequence[Any], config: CompressorConfig, *, decided: CompressionPlan | None = None
) -> RedactionView:
    """The serialised turns a compression with ``config`` sends to its summarizer, and their masks.

    ``config.strict_redaction`` selects the strict layer. ``decided`` (the compression plan of the
    same messages and config, :func:`core.plan.plan`) saves recomputing Phases 1-2.
    """
    decided = decided if decided is not None else plan(messages, config)
    strict = bool(config.strict_redaction)
    if not decided.calls_summarizer:
        return RedactionView(decided, strict, "")
    turns = decided.turns
    redaction = decided.redaction

    sent: list[str] = []

    def recording_redact_many(texts: list[str]) -> list[str]:
        redacted = redaction.redact_many(texts)
        sent[:] = redacted
        return redacted

    if decided.reference_crash is not None:
        view = RedactionView(decided, strict, "", located=False)
        view.crash = decided.reference_crash.describe()
        return view
    text = serialize_for_summary(
        turns, redaction.redact, recording_redact_many, media_directives=decided.profile.media_directives,
        rule=decided.turns_rule,
    )

    raw = redaction_texts(turns, decided.turns_rule)
    piece_spans: list[list[tuple[int, int, str, str]]] = []
    located = len(raw) == len(sent)
    for position, (_turn, piece) in enumerate(raw):
        redacted, spans = reference_spans(piece, release=redaction.release)
        marked = [(s, e, REFERENCE, k) for s, e, k in spans]
        if strict and redacted:
            redacted, moved, added = strict_spans(redacted, spans)
            marked = sorted([(s, e, REFERENCE, k) for s, e, k in moved] + [(s, e, STRICT, k) for s, e, k in added])
        if not located or redacted != sent[position]:
            located = False  # the tracked passes disagree with the compressor's own redaction
            break
        piece_spans.append(marked)

    view = RedactionView(decided, strict, text, located=located)
    if not located:
        return view
    segments, starts = _layout(turns, sent)
    if "".join(segment for segment, _i, _o in segments) != text:
        view.located = False  # the layout no longer matches serialize_for_summary's
        return view

    positions: list[int] = []
    offset = 0
    for segment, _index, _offset in segments:
        positions.append(offset)
        offset += len(segment)
    blocks: list[tuple[int, int]] = []
    for number, first in enumerate(starts):
        block_end = positions[starts[number + 1] - 1] if number + 1 < len(starts) else len(text)
        blocks.append((positions[first], block_end))
    view.blocks = blocks

    turn_of = [turn for turn, _piece in raw]
    spans_out: list[MaskedSpan] = []
    shown: set[tuple[int, int]] = set()  # (piece, span) already listed once
    for (segment, index, piece_offset), position in zip(segments, positions, strict=True):
        if index is None:
            continue
        for number, (start, end, layer, kind) in enumerate(piece_spans[index]):
            lo, hi = max(start, piece_offset), min(end, piece_offset + len(segment))
            if lo >= hi:
                continue
            a, b = position + lo - piece_offset, position + hi - piece_offset
            spans_out.append(MaskedSpan(a, b, layer, kind, text[a:b], turn_of[index],
                                        continued=(index, number) in shown))
            shown.add((index, number))
    view.spans = spans_out
    return view


def mask_counter(spans: Sequence[MaskedSpan], layer: str) -> dict[str, int]:
    """Masks of one layer by kind, most frequent first (the shape of ``strict.count_by_kind``)."""
    return dict(Counter(span.kind for span in spans if span.layer == layer and not span.continued).most_common())

