"""The dashboard's colours, in one place (no plotting library needed to read them).

Zones, pipeline steps, roles and categories each have a fixed colour used by every chart (Plotly
figures, the HTML bars and the report), so a colour means the same thing wherever it appears.
Mid-tones throughout: each reads on a light and on a dark background.
"""

from __future__ import annotations

ZONE_COLORS: dict[str, str] = {
    "HEAD": "#3b6fb6",
    "MIDDLE": "#e8833a",
    "TAIL": "#3a9d5d",
    "UNCHANGED": "#9aa0a6",
}
STEP_COLORS: dict[str, str] = {
    "original": "#5b6770",
    "dedup": "#8e6cc4",
    "one_liners": "#d1495b",
    "args": "#d9a126",
    "tool_images": "#00798c",
    "summary": ZONE_COLORS["MIDDLE"],
    "repair": "#7d8590",
    "historical_images": "#4fb3bf",
    "final": "#4a6b8a",
}
ROLE_COLORS: dict[str, str] = {
    "system": "#6c757d",
    "developer": "#868e96",
    "user": "#3b6fb6",
    "assistant": "#3a9d5d",
    "tool": "#c9733c",
    "function": "#c9733c",
}
CATEGORY_COLORS: dict[str, str] = {
    "system": "#6c757d",
    "user text": "#3b6fb6",
    "assistant text": "#3a9d5d",
    "tool calls": "#d9a126",
    "tool results": "#c9733c",
    "images": "#00798c",
}
# The summary segment of a before/after bar: a colour no role, category or zone uses.
SUMMARY_COLOR = "#b0489e"
BEFORE_COLOR = "#b5bcc4"
# Mid-tone: readable on a light and on a dark background.
AFTER_COLOR = "#5b82c0"
THRESHOLD_COLOR = "#c0392b"
BUDGET_COLOR = "#3a9d5d"
PROTECTED_FILL = "rgba(120, 130, 140, 0.13)"
FALLBACK_COLOR = "#8c96a0"

# Semi-transparent greys read on a light and on a dark background alike.
GRID_COLOR = "rgba(128, 128, 128, 0.22)"
MUTED_COLOR = "rgba(128, 128, 128, 0.95)"
# Colours for keys without a fixed one (tools), in a stable order.
PALETTE = ("#3b6fb6", "#e8833a", "#3a9d5d", "#8e6cc4", "#d1495b", "#00798c", "#d9a126", "#5b6770", "#4fb3bf",
           "#a05195", "#7a9e3a", "#c9733c")
# The comparison strategies (hermes, plain truncation, observation masking, Codex-style handoff).
STRATEGY_COLORS: dict[str, str] = {
    "hermes": "#e8833a",
    "truncation": "#5b6770",
    "masking": "#8e6cc4",
    "codex": "#3b6fb6",
}
# The parts of a request (system prompt, tool schemas, injected context, messages).
PART_COLORS: dict[str, str] = {
    "system": "#6c757d",
    "tools": "#d9a126",
    "injected": "#8e6cc4",
    "messages": "#3b6fb6",
    "unrecorded_overhead": "#c8ccd1",
}
RECORDED_COLOR = "#00798c"
