"""One message in full, as the compressor treated it: the dashboard's drill-down.

:class:`Drilldown` is built from one compression (``CompressionResult``: its plan, its assembly
and its output) and answers, for any message of the input or the output: its role and zone, its
exact and estimated tokens before and after, what each phase did to it, the other half of its
tool pair, its text and raw JSON, its neighbours, and where the summary is. Every decision it
reports is read from the plan (zones, Phase 1 actions, the prune boundary, the turns) or the
assembly (origins, badges, repairs): nothing here re-derives a boundary or a repair.

Two numbering spaces exist: input indices (the uploaded conversation, as the zone map, the
waterfall and the diff count) and output positions (the compressed conversation, as the preview
counts). A detail is opened in one of them and its next/previous stay in that space.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core import rules as phase1
from core.inspections.overview import message_text
from core.message_view import call_views, role_of
from core.tokens import TokenCounter
from core.wording import article

__all__ = ["INPUT", "OUTPUT", "Drilldown", "MessageDetail", "PairLink", "PhaseStep"]

INPUT, OUTPUT = "input", "output"

PHASE1_MEANING: dict[str, str] = {
    phase1.DEDUPLICATED: "an identical tool output appears later, so this copy became a short back-reference",
    phase1.ONE_LINER: "the old tool output became a one-line description of the call",
    phase1.ARGS_SHRUNK: "long tool-call arguments were shortened (still valid JSON)",
    phase1.IMAGE_STRIPPED: "the tool result's images were replaced by a placeholder",
}
PHASE4_MEANING: dict[str, str] = {
    "system note": "the compression note was appended to the system prompt",
    "merged": "the summary was merged into this message (no room for a message of its own)",
    "tool calls stripped": "tool calls whose results were summarised away were stripped from it",
    "image stripped": "its images were replaced by a placeholder (only the latest images are kept)",
    "fallback": "the summary failed, so this is the release's fallback summary",
}


@dataclass(frozen=True)
class PhaseStep:
    phase: str  # "Phase 1 · prune", "Phase 2 · zones", "Phase 3 · summary", "Phase 4 · assemble"
    what: str  # one sentence

    def __post_init__(self) -> None:
        what = self.what.strip()
        if what:
            what = what[0].upper() + what[1:]
            if what[-1] not in ".!?":
                what += "."
        object.__setattr__(self, "what", what)


@dataclass(frozen=True)
class PairLink:
    """The other half of a tool pair, in the detail's own numbering space (None: not in it)."""

    number: int | None
    relation: str  # "result" (answers a call of this message) or "call" (the call this answers)
    tool: str
    call_id: str
    zone: str


@dataclass
class MessageDetail:
    space: str  # INPUT or OUTPUT: how ``number``, ``previous``, ``next`` and the pair links count
    number: int
    input_index: int | None  # None for a message the compressor added (summary, stub)
    output_position: int | None  # None when the message is not in the output (summarised, removed)
    role: str
    zone: str  # HEAD, MIDDLE, TAIL, SUMMARY, STUB or KEPT (nothing was compacted)
    badges: list[str]
    exact_before: int | None
    exact_after: int | None
    estimated_before: int | None
    estimated_after: int | None
    phases: list[PhaseStep]
    pairs: list[PairLink]
    text_before: str | None
    text_after: str | None
    raw_before: str | None
    raw_after: str | None
    previous: int | None
    next: int | None
    summary_position: int | None  # output position of the summary (or of the message it was merged into)
    replaces: tuple[int, int] | None = None  # for the summary: the input range it stands for (end exclusive)

    @property
    def title(self) -> str:
        if self.space == OUTPUT:
            where = f"output #{self.number}"
            if self.input_index is not None and self.input_index != self.number:
                where += f" (input #{self.input_index})"
        else:
            where = f"message #{self.number}"
            if self.output_position is not None and self.output_position != self.number:
                where += f" (output #{self.output_position})"
        return f"{where} · {self.role} · {self.zone}"


def raw_json(message: Any) -> str:
    """The message as JSON text (what was loaded or produced, nothing rendered)."""
    try:
        return json.dumps(message, ensure_ascii=False, indent=1, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(message)


def _role(message: Any) -> str:
    role = role_of(message)
    return role if isinstance(role, str) and role else "unknown"


class _Pairs:
    """Tool-call ids of one message list: who calls, who answers."""

    def __init__(self, messages: Sequence[Any]) -> None:
        self.callers: dict[str, int] = {}
        self.results: dict[str, list[int]] = {}
        self.names: dict[str, str] = {}
        for index, message in enumerate(messages):
            role = _role(message)
            if role == "assistant":
                for view in call_views(message):
                    if view.id:
                        self.callers[view.id] = index
                        self.names[view.id] = view.name
            elif role in ("tool", "function") and isinstance(message, dict):
                identifier = message.get("tool_call_id")
                if isinstance(identifier, str) and identifier:
                    self.results.setdefault(identifier, []).append(index)

    def links(self, messages: Sequence[Any], index: int) -> list[tuple[int | None, str, str, str]]:
        """``(other index, relation, tool, call id)`` for message ``index``."""
        message = messages[index]
        role = _role(message)
        out: list[tuple[int | None, str, str, str]] = []
        if role == "assistant":
            for view in call_views(message):
                answered = self.results.get(view.id, [])
                if not answered:
                    out.append((None, "result", view.name, view.id))
                for other in answered:
                    out.append((other, "result", view.name, view.id))
        elif role in ("tool", "function") and isinstance(message, dict):
            identifier = message.get("tool_call_id")
            if isinstance(identifier, str) and identifier:
                out.append((self.callers.get(identifier), "call", self.names.get(identifier, "unknown"), identifier))
        return out


class Drilldown:
    """Details of every message of one compression (see the module docstring)."""

    def __init__(self, result: Any, counter: TokenCounter) -> None:
        plan = result.plan
        self.result = result
        self.plan = plan
        self.counter = counter
        self.inputs: list[Any] = list(result.input_messages)
        self.outputs: list[Any] = list(result.messages)
        self.assembly = result.assembly
        self.estimator = plan.estimator
        self.compressed = self.assembly is not None
        self.input_to_output: dict[int, int] = {}
        self.output_to_input: dict[int, int | None] = {}
        if self.compressed:
            for position, origin in enumerate(self.assembly.origins):
                self.output_to_input[position] = origin.source_index
                if origin.source_index is not None:
                    self.input_to_output[origin.source_index] = position
        elif len(self.outputs) == len(self.inputs):
            # An early return (too small, nothing to compress, aborted): the output is the input
            # (after Phase 1 when it ran), message for message.
            self.input_to_output = {i: i for i in range(len(self.inputs))}
            self.output_to_input = {i: i for i in range(len(self.outputs))}
        self.summary_position = self._summary_position()
        self._input_pairs = _Pairs(self.inputs)
        self._output_pairs = _Pairs(self.outputs)

    # -- lookups -------------------------------------------------------------------------------

    def _summary_position(self) -> int | None:
        if not self.compressed:
            return None
        for position, origin in enumerate(self.assembly.origins):
            if origin.kind == "summary" or "merged" in origin.badges:
                return position
        return None

    def zone_of_input(self, index: int) -> str:
        plan = self.plan
        start, end = plan.compress_start, plan.compress_end
        if start is None or end is None or not self.compressed:
            return "KEPT"
        if index < start:
            return "HEAD"
        if index < end:
            return "MIDDLE"
        return "TAIL"

    def zone_of_output(self, position: int) -> str:
        if not self.compressed:
            return "KEPT"
        origin = self.assembly.origins[position]
        if origin.kind == "summary":
            return "SUMMARY"
        if origin.kind == "stub":
            return "STUB"
        return origin.kind.upper()

    def _badges_of_output(self, position: int) -> list[str]:
        if self.compressed:
            return list(self.assembly.origins[position].badges)
        return ["KEPT", *self.plan.phase1_actions.get(position, [])]

    # -- the phases ------------------------------------------------------------------------------

    def _phase1(self, index: int) -> PhaseStep:
        plan = self.plan
        name = "Phase 1 · prune"
        if plan.prune is None:
            return PhaseStep(name, "did not run: the conversation is too small to compress")
        actions = plan.phase1_actions.get(index, [])
        if actions:
            return PhaseStep(name, "; ".join(PHASE1_MEANING.get(a, a) for a in actions) + ".")
        boundary = plan.prune_boundary
        if boundary is not None and index >= boundary:
            return PhaseStep(name, f"left alone: it is in the protected recent part (from message #{boundary}).")
        return PhaseStep(name, "nothing to shorten.")

    def _phase2(self, index: int) -> PhaseStep:
        plan = self.plan
        name = "Phase 2 · zones"
        start, end = plan.compress_start, plan.compress_end
        if start is None or end is None:
            return PhaseStep(name, "no zones: the compressor returned before placing them.")
        if start >= end:
            return PhaseStep(name, "the middle is empty with these parameters, so nothing is summarised.")
        if index < start:
            if index == 0 and _role(self.inputs[0]) == "system":
                return PhaseStep(name, "the system prompt, always kept")
            return PhaseStep(name, f"HEAD (messages 0–{start - 1}): protected, kept verbatim")
        if index < end:
            return PhaseStep(name, f"MIDDLE (messages {start}–{end - 1}): handed to the summary.")
        return PhaseStep(name, f"TAIL (from message {end}): the recent part, kept verbatim.")

    def _phase3(self, index: int) -> PhaseStep:
        plan = self.plan
        name = "Phase 3 · summary"
        start, end = plan.compress_start, plan.compress_end
        if not self.compressed or start is None or end is None or not start <= index < end:
            return PhaseStep(name, "not summarised.")
        where = f" (output #{self.summary_position})" if self.summary_position is not None else ""
        if plan.existing_summary_index == index:
            return PhaseStep(name, "an earlier handoff summary: its text carries into the new summary"
                                   f"{where}.")
        if plan.turns_start is not None and index < plan.turns_start:
            return PhaseStep(name, "dropped: an earlier handoff summary in the window already covers it.")
        outcome = "the fallback summary" if self.assembly.fallback_used else "the summary"
        return PhaseStep(name, f"summarised: its content is now part of {outcome}{where}.")

    def _phase4_output(self, position: int) -> PhaseStep:
        name = "Phase 4 · assemble"
        if not self.compressed:
            outcome = str(self.result.outcome).replace("_", " ")
            return PhaseStep(name, f"nothing assembled ({outcome}): the message is returned as it is.")
        badges = self.assembly.origins[position].badges
        notes = [PHASE4_MEANING[b] for b in badges if b in PHASE4_MEANING]
        origin = self.assembly.origins[position]
        if origin.kind == "stub":
            notes.insert(0, "a stub result added for a tool call whose result was summarised away")
        elif origin.kind == "summary":
            placement = self.assembly.placement
            role = placement.role or "user"
            where = f"inserted as {article(role)} {role} message between the head and the tail"
            if placement.pinned:
                where += " (pinned to user: the head ends with a system message)"
            notes.insert(0, where)
        if not notes:
            notes.append("kept as it is")
        return PhaseStep(name, "; ".join(notes) + ".")

    # -- details ---------------------------------------------------------------------------------

    def _pair_links(self, space: str, number: int) -> list[PairLink]:
        messages = self.inputs if space == INPUT else self.outputs
        pairs = self._input_pairs if space == INPUT else self._output_pairs
        zone = self.zone_of_input if space == INPUT else self.zone_of_output
        return [
            PairLink(other, relation, tool, identifier, zone(other) if other is not None else "—")
            for other, relation, tool, identifier in pairs.links(messages, number)
        ]

    def _exact(self, message: Any) -> int:
        return self.counter.count_message(message)

    def _estimate(self, message: Any) -> int:
        return int(self.estimator.message_tokens(message))

    def _views(self, before: Any, after: Any) -> dict[str, Any]:
        """Tokens, text and raw JSON of a message before and after compression (None for a side it lacks)."""

        def each(view: Any, message: Any) -> Any:
            return view(message) if message is not None else None

        return {
            "exact_before": each(self._exact, before), "exact_after": each(self._exact, after),
            "estimated_before": each(self._estimate, before), "estimated_after": each(self._estimate, after),
            "text_before": each(message_text, before), "text_after": each(message_text, after),
            "raw_before": each(raw_json, before), "raw_after": each(raw_json, after),
        }

    def input_detail(self, index: int) -> MessageDetail:
        """Message ``index`` of the uploaded conversation."""
        if not 0 <= index < len(self.inputs):
            raise IndexError(f"message #{index} is not in the conversation (0–{len(self.inputs) - 1})")
        before = self.inputs[index]
        position = self.input_to_output.get(index)
        after = self.outputs[position] if position is not None else None
        zone = self.zone_of_input(index)
        phases = [self._phase1(index), self._phase2(index), self._phase3(index)]
        if position is not None:
            phases.append(self._phase4_output(position))
            badges = self._badges_of_output(position)
        elif zone == "MIDDLE":
            phases.append(PhaseStep("Phase 4 · assemble", "not in the output: the summary stands in for it."))
            badges = ["summarised", *self.plan.phase1_actions.get(index, [])]
        else:
            phases.append(PhaseStep("Phase 4 · assemble", "removed by the tool-pair repair: the call it answered "
                                                          "was summarised away (an orphan result)."))
            badges = ["removed", *self.plan.phase1_actions.get(index, [])]
        return MessageDetail(
            space=INPUT,
            number=index,
            input_index=index,
            output_position=position,
            role=_role(before),
            zone=zone,
            badges=badges,
            phases=phases,
            pairs=self._pair_links(INPUT, index),
            **self._views(before, after),
            previous=index - 1 if index > 0 else None,
            next=index + 1 if index + 1 < len(self.inputs) else None,
            summary_position=self.summary_position,
        )

    def output_detail(self, position: int) -> MessageDetail:
        """Message ``position`` of the compressed conversation."""
        if not 0 <= position < len(self.outputs):
            raise IndexError(f"output #{position} is not in the result (0–{len(self.outputs) - 1})")
        after = self.outputs[position]
        index = self.output_to_input.get(position)
        before = self.inputs[index] if index is not None and index < len(self.inputs) else None
        zone = self.zone_of_output(position)
        replaces = None
        if index is not None:
            phases = [self._phase1(index), self._phase2(index), self._phase3(index), self._phase4_output(position)]
        else:
            phases = [self._phase4_output(position)]
            if zone == "SUMMARY" and self.plan.compress_start is not None and self.plan.compress_end is not None:
                replaces = (self.plan.compress_start, self.plan.compress_end)
                phases.insert(0, PhaseStep(
                    "Phase 3 · summary",
                    f"written from messages {replaces[0]}–{replaces[1] - 1} of the conversation"
                    f" ({self.plan.dropped_count:,} messages, {self.plan.content_tokens:,} estimated tokens).",
                ))
        if "merged" in self._badges_of_output(position) and self.plan.compress_start is not None:
            replaces = (self.plan.compress_start, self.plan.compress_end or self.plan.compress_start)
        return MessageDetail(
            space=OUTPUT,
            number=position,
            input_index=index,
            output_position=position,
            role=_role(after),
            zone=zone,
            badges=self._badges_of_output(position),
            phases=phases,
            pairs=self._pair_links(OUTPUT, position),
            **self._views(before, after),
            previous=position - 1 if position > 0 else None,
            next=position + 1 if position + 1 < len(self.outputs) else None,
            summary_position=self.summary_position,
            replaces=replaces,
        )

    def detail(self, space: str, number: int) -> MessageDetail:
        return self.input_detail(number) if space == INPUT else self.output_detail(number)

    def size(self, space: str) -> int:
        return len(self.inputs) if space == INPUT else len(self.outputs)
