"""Section 6, ``## Blocked``: error lines that no later success resolved, quoted exactly.

A later success of the same command or file resolves an error; a later passing test run resolves
earlier test failures. One backward pass finds what was resolved, one forward pass keeps each
remaining error line at its latest place. An earlier summary's blockers stay blocked unless a
command succeeded since, when they become "may be resolved" context.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.model import Action
from core.summarizers.extractive.sections.common import TIER_BLOCKED, TIER_ERROR_CONTEXT


def unresolved_errors(actions: Sequence[Action]) -> list[tuple[Action, str]]:
    """(action, error line) of failed actions that no later success resolved."""
    resolved = [False] * len(actions)
    succeeded_keys: set[str] = set()
    later_test_success = False
    for position in range(len(actions) - 1, -1, -1):
        action = actions[position]
        if action.errors:
            resolved[position] = action.key in succeeded_keys or (action.is_test and later_test_success)
        if action.succeeded:
            succeeded_keys.add(action.key)
            later_test_success = later_test_success or action.is_test
    unresolved: dict[str, tuple[Action, str]] = {}
    for position, action in enumerate(actions):
        if not action.errors or resolved[position]:
            continue
        lines = action.errors
        if len(lines) > 1:
            lines = [line for line in lines if not line.startswith("Traceback (most recent call last)")]
        for line in lines:
            unresolved.pop(line, None)
            unresolved[line] = (action, line)
    return list(unresolved.values())


def build(draft: Draft) -> list[tuple[Action, str]]:
    """Add the blockers; returns them (Remaining Work points at them)."""
    blockers = unresolved_errors(draft.reading.actions)
    for action, line in blockers:
        draft.add("blocked", f"- {line} (from {action.verb} {action.target})", TIER_BLOCKED, action.index,
                  sources=action.sources)
    any_new_success = any(action.succeeded for action in draft.reading.actions if action.verb in ("RUN", "EXECUTE"))
    for line in draft.carried("blocked"):
        if any_new_success:
            draft.add("context", f"- Earlier error (may be resolved): {line.lstrip('- ')}", TIER_ERROR_CONTEXT, 0,
                      carried=True)
        else:
            draft.add("blocked", line, TIER_BLOCKED, 0, carried=True)
    return blockers
