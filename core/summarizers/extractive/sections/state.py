"""Section 4, ``## Active State``: working directory, branch, the last test run, modified files,
background processes."""

from __future__ import annotations

from core.summarizers.extractive.draft import Draft
from core.summarizers.extractive.model import NO_RESULT
from core.summarizers.extractive.sections.common import TIER_STATE, group_line

STATE_GROUPS = {"Modified files": TIER_STATE - 1, "Started in background": TIER_STATE - 1}


def build(draft: Draft) -> None:
    reading = draft.reading
    new_labels: set[str] = set()
    if reading.workdir is not None:
        new_labels.add("Working directory")
        draft.add("state", f"- Working directory: {reading.workdir[1]}", TIER_STATE, reading.workdir[0])
    if reading.branch is not None:
        new_labels.add("Git branch")
        draft.add("state", f"- Git branch: {reading.branch[1]}", TIER_STATE, reading.branch[0])
    test_runs = [action for action in reading.actions if action.is_test and action.outcome != NO_RESULT]
    if test_runs:
        run = test_runs[-1]
        new_labels.add("Last test run")
        draft.add("state", f"- Last test run: {run.target} — {run.outcome}", TIER_STATE + 0.5, run.index,
                  sources=run.sources)
    for path, entry in reading.files.items():
        if {"written", "patched"} & set(entry["notes"]):
            new_labels.add("Modified files")
            draft.add("state", path, TIER_STATE, entry["last"], group="Modified files", sources=entry.get("indices"))
    for index, command in reading.background:
        new_labels.add("Started in background")
        draft.add("state", f"`{command}`", TIER_STATE, index, group="Started in background")
    for line in draft.carried("state"):
        grouped = group_line(line, STATE_GROUPS)
        if grouped is not None:
            for value in grouped[1]:
                draft.add("state", value, TIER_STATE - 1, 0, group=grouped[0], carried=True)
        elif line.lstrip("- ").split(":", 1)[0] not in new_labels:
            draft.add("state", line, TIER_STATE - 1, 0, carried=True)
