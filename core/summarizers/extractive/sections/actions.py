"""Section 3, ``## Completed Actions``: a numbered line per distinct action, with its outcomes.

Repeated runs of one command read as one history (``exit 1 → exit 0``), placed at their latest
run; reads and edits of one file show how often and the latest result; the agent's closing reply to
each finished request is a ``REPLIED`` line. Numbering continues an earlier summary's.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.model import NO_RESULT, Action, Reading
from core.summarizers.extractive.sections.common import TIER_ACTION, first_sentence

_MAX_OUTCOME_HISTORY = 4
_UNINFORMATIVE_OUTCOMES = frozenset({"same output as a later call", "output cleared", "result in an earlier summary"})
_LATEST_OUTCOME_ONLY = frozenset({"READ", "WRITE", "PATCH"})


def consolidated(actions: Sequence[Action], skip_pending: bool) -> list[tuple[int, str, tuple[int, ...]]]:
    """(index, line, sources) per distinct action (same verb and thing), at its latest occurrence."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for action in actions:
        if action.outcome == NO_RESULT:
            if skip_pending:
                continue
            action = dataclasses.replace(action, outcome="no result recorded")
        group = groups.pop((action.verb, action.key), None) or {"outcomes": [], "sources": []}
        group.update(index=action.index, target=action.target, tool=action.tool)
        group["sources"].extend(action.sources)
        outcomes: list[list[Any]] = group["outcomes"]
        if outcomes and outcomes[-1][0] == action.outcome:
            outcomes[-1][1] += 1
        else:
            outcomes.append([action.outcome, 1])
        groups[(action.verb, action.key)] = group  # re-inserted: dict order follows the latest use
    lines: list[tuple[int, str, tuple[int, ...]]] = []
    for (verb, _key), group in groups.items():
        outcomes = [pair for pair in group["outcomes"] if pair[0] not in _UNINFORMATIVE_OUTCOMES]
        target = group["target"]
        if verb in _LATEST_OUTCOME_ONLY:
            # For reads and edits only how often and the latest result matter.
            total = sum(count for _outcome, count in group["outcomes"])
            target += f" ×{total}" if total > 1 else ""
            shown = [outcomes[-1][0]] if outcomes and outcomes[-1][0] else []
        else:
            shown = [f"{outcome} ×{count}" if count > 1 else outcome for outcome, count in outcomes if outcome]
        if len(shown) > _MAX_OUTCOME_HISTORY:
            # The first outcome says where it started, the latest ones where it stands.
            shown = [shown[0], "…", *shown[-(_MAX_OUTCOME_HISTORY - 1):]]
        outcome_text = f" — {' → '.join(shown)}" if shown else ""
        lines.append((group["index"], f"{verb} {target}{outcome_text} [tool: {group['tool']}]",
                      tuple(dict.fromkeys(group["sources"]))))
    return lines


def final_replies(reading: Reading) -> list[tuple[int, str]]:
    """The agent's last text before each later user message (how it closed that request), as a
    first sentence. Requests that asked a question are left to Resolved Questions."""
    replies: list[tuple[int, str]] = []
    for ask_index, text in reading.user_asks:
        texts, has_next = reading.replies.get(ask_index, ([], False))
        if texts and has_next and "?" not in text:
            index, reply = texts[-1]
            sentence = first_sentence(reply)
            if sentence:
                replies.append((index, sentence))
    return replies


def build(draft: Draft) -> None:
    number = 0
    for line in draft.carried("actions"):
        match = re.match(r"\A(\d+)\.\s", line)
        if match:
            number = max(number, int(match.group(1)))
        draft.add("actions", line, TIER_ACTION, 0, carried=True)
    reading = draft.reading
    events = [(index, 1, f"REPLIED to user — {reply}", (index,)) for index, reply in final_replies(reading)]
    # Calls still waiting for their result at the end belong to In Progress; any other call
    # whose result is missing from these turns is still listed as done.
    events.extend((index, 0, text, sources) for index, text, sources in consolidated(reading.actions, reading.ends_mid_work))
    for index, _kind, text, sources in sorted(events, key=lambda event: event[:2]):
        number += 1
        draft.add("actions", f"{number}. {text}", TIER_ACTION, index, sources=sources)
