"""Facts lost by the tool-pair repair: what Hermes' Phase 4 removed without it ever reaching the summary.

After the head, the summary and the tail are put together, Hermes repairs the tool pairs
(``result.assembly.repair``): a tool result whose call was summarised away is removed (an orphan), and
from v0.18.0 a call whose result is gone has its ``tool_calls`` stripped (earlier releases add a stub
result instead, which loses nothing). The summarizer only read the middle, so a result that sat in the
tail, or a call kept in the head or the tail, is gone from the output without having been summarised:
its facts are lost by the repair, not by the summary. This view lists those messages, the facts they
held that appear nowhere in the output, and why the repair removed them. It reads the assembly's own
report; it does not repair anything itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from core.facts import extract_facts, retention
from core.message_view import call_id, role_of, tool_calls_of

__all__ = ["RepairLoss", "RepairLosses", "repair_losses"]

RESULT_REMOVED = "result removed"
CALLS_STRIPPED = "calls stripped"
LOSS_COLUMNS = ["kind", "value", "message_index", "action"]


@dataclass(frozen=True)
class RepairLoss:
    """One message of the input the repair removed (a tool result) or cut (its tool calls)."""

    message_index: int  # in the compressed input
    action: str  # RESULT_REMOVED or CALLS_STRIPPED
    zone: str  # where the message sat: "head" or "tail"
    call_index: int | None  # the message holding the call a removed result answered (None: not found)
    call_ids: tuple[str, ...]
    facts: int  # facts the removed part held
    lost: int  # of them, how many appear nowhere in the output
    result_indices: tuple[int, ...] = ()  # stripped calls: where their results were in the input (none: never recorded)

    @property
    def reason(self) -> str:
        """Why the repair removed it, in Hermes' terms."""
        where = f"message {self.message_index:,}"
        if self.action == RESULT_REMOVED:
            call = f"the call at message {self.call_index:,}" if self.call_index is not None else "its call"
            return (f"{call} was summarised with the middle while its result ({where}) sat in the {self.zone}: "
                    "Hermes drops a tool result whose call is gone, so the summarizer never read it")
        if self.result_indices:
            results = ", ".join(f"{index:,}" for index in self.result_indices)
            gone = f"their results (message {results}) were summarised with the middle"
        else:
            gone = "no result of theirs was ever recorded (the log ends before it)"
        return (f"the call(s) at {where}, kept in the {self.zone}, have no result in the output: {gone}; Hermes strips a "
                "call whose result is gone, so its arguments reach no summary")


@dataclass(frozen=True)
class RepairLosses:
    """What one compression's tool-pair repair removed, and the facts that went with it."""

    losses: list[RepairLoss]
    facts: pd.DataFrame  # kind, value, message_index, action, kept (still somewhere in the output)

    @property
    def messages(self) -> int:
        return len(self.losses)

    @property
    def lost_facts(self) -> pd.DataFrame:
        """The facts of the removed parts that appear nowhere in the output."""
        return self.facts[~self.facts["kept"].astype(bool)][LOSS_COLUMNS].reset_index(drop=True)

    def sentence(self) -> str:
        """One line for the pages and the command line (empty when the repair removed nothing)."""
        if not self.losses:
            return ""
        removed = sum(1 for loss in self.losses if loss.action == RESULT_REMOVED)
        stripped = self.messages - removed
        parts = ([f"removed {removed:,} tool result(s)"] if removed else []) + (
            [f"stripped the calls of {stripped:,} message(s)"] if stripped else [])
        lost = len(self.lost_facts)
        return (f"Hermes' tool-pair repair {' and '.join(parts)} that never reached the summary: "
                f"{lost:,} of their {len(self.facts):,} facts appear nowhere in the output (Hermes' own "
                f"behaviour, reproduced: {self.losses[0].reason}).")

    def to_dict(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "facts": int(len(self.facts)),
            "facts_lost": int(len(self.lost_facts)),
            "removed": [
                {"message_index": loss.message_index, "action": loss.action, "zone": loss.zone,
                 "call_index": loss.call_index, "call_ids": list(loss.call_ids), "facts": loss.facts,
                 "facts_lost": loss.lost, "result_indices": list(loss.result_indices), "reason": loss.reason}
                for loss in self.losses
            ],
            "lost_facts": [
                {"kind": kind, "value": value, "message_index": int(index), "action": action}
                for kind, value, index, action in self.lost_facts.itertuples(index=False, name=None)
            ],
        }


def _empty() -> RepairLosses:
    return RepairLosses([], pd.DataFrame(columns=[*LOSS_COLUMNS, "kept"]))


def _pair_positions(messages: Sequence[Any]) -> tuple[dict[Any, int], dict[Any, int]]:
    """Where each tool call id was made, and where its result is (the first message of each)."""
    calls: dict[Any, int] = {}
    results: dict[Any, int] = {}
    for index, message in enumerate(messages):
        role = role_of(message)
        if role == "assistant":
            for call in tool_calls_of(message):
                cid = call_id(call)
                if isinstance(cid, (str, int)):
                    calls.setdefault(cid, index)
        elif role == "tool" and isinstance(message, dict) and isinstance(message.get("tool_call_id"), (str, int)):
            results.setdefault(message["tool_call_id"], index)
    return calls, results


def _part_facts(part: dict[str, Any]) -> pd.DataFrame:
    facts = extract_facts([part])
    return facts[facts["kind"] != "user_request"]


def repair_losses(result: Any) -> RepairLosses:
    """The messages ``result``'s tool-pair repair removed or cut, with their facts (a ``CompressionResult``)."""
    assembly = getattr(result, "assembly", None)
    if assembly is None:
        return _empty()
    messages = result.input_messages
    report = assembly.repair
    calls, results = _pair_positions(messages)
    rows: list[tuple[RepairLoss, dict[str, Any]]] = []
    for index in report.orphans_removed:
        origin = assembly.assembled_origins[index]
        if origin.source_index is None:
            continue
        message = messages[origin.source_index]
        cid = message.get("tool_call_id") if isinstance(message, dict) else None
        call_at = calls.get(cid) if isinstance(cid, (str, int)) else None
        part = {"role": "tool", "content": message.get("content")} if isinstance(message, dict) else {}
        rows.append((RepairLoss(origin.source_index, RESULT_REMOVED, origin.kind, call_at,
                                (str(cid),) if cid is not None else (), 0, 0), part))
    for index, ids in report.calls_stripped:
        origin = assembly.origins[index]
        if origin.source_index is None:
            continue
        stripped = set(ids)
        message = messages[origin.source_index]
        cut = [call for call in tool_calls_of(message) if call_id(call) in stripped]
        part = {"role": "assistant", "content": None, "tool_calls": cut}
        answered = tuple(sorted({results[i] for i in ids if isinstance(i, (str, int)) and i in results}))
        rows.append((RepairLoss(origin.source_index, CALLS_STRIPPED, origin.kind, origin.source_index,
                                tuple(str(i) for i in ids), 0, 0, answered), part))
    if not rows:
        return _empty()
    losses: list[RepairLoss] = []
    frames: list[pd.DataFrame] = []
    for loss, part in rows:
        facts = _part_facts(part) if part else _empty().facts
        scored = retention(facts.assign(message_index=loss.message_index, action=loss.action), assembly.messages)
        frames.append(scored)
        losses.append(RepairLoss(loss.message_index, loss.action, loss.zone, loss.call_index, loss.call_ids,
                                 len(scored), int((~scored["kept"].astype(bool)).sum()), loss.result_indices))
    facts = pd.concat(frames, ignore_index=True) if frames else _empty().facts
    facts = facts.drop_duplicates(subset=["kind", "value"]).reset_index(drop=True)
    return RepairLosses(sorted(losses, key=lambda loss: loss.message_index), facts[[*LOSS_COLUMNS, "kept"]])
