"""The one ordered list of transcript formats.

Order is detection order (first match wins): formats with a line layout of their own (Claude
Code, Codex rollouts, the ``codex exec`` stream), agents' own session logs and folders (Gemini CLI,
Copilot CLI, OpenCode, Cline), then the agent trajectories (OpenHands, SWE-agent, mini-swe-agent),
Hermes sessions, ShareGPT, Responses items, Anthropic messages, OpenAI chat and LangChain. Richer
formats come first because the later rules are looser (almost everything has ``role`` and
``content``). SQLite stores are recognised by their file header and go to the store whose tables
they have (``detect_sqlite``); folders to the format that writes that layout.
"""

from __future__ import annotations

from core.formats import (
    aider,
    anthropic,
    claude_code,
    cline,
    codex,
    codex_exec,
    context_lens_log,
    continue_sessions,
    copilot_cli,
    gemini_cli,
    goose,
    hermes,
    langchain,
    mini_swe_agent,
    openai_chat,
    openai_responses,
    openclaw,
    opencode,
    openhands,
    pi,
    sharegpt,
    swe_agent,
)
from core.formats.spec import FormatSpec

FORMATS: tuple[FormatSpec, ...] = (
    claude_code.FORMAT,
    codex.FORMAT,
    codex_exec.FORMAT,
    # Context Lens' own Hermes plugin log: its records carry a "record": "compaction" marker.
    context_lens_log.FORMAT,
    # Agents' own session logs and folders: their rules need keys (or file names) those agents write.
    gemini_cli.FORMAT,
    copilot_cli.FORMAT,
    opencode.FORMAT,
    cline.FORMAT,
    # pi and OpenClaw sessions, Goose and Continue (fmt2): OpenClaw's extra entries before pi's.
    openclaw.FORMAT,
    pi.FORMAT,
    goose.FORMAT,
    continue_sessions.FORMAT,
    openhands.FORMAT,
    swe_agent.FORMAT,
    mini_swe_agent.FORMAT,
    hermes.FORMAT,
    sharegpt.FORMAT,
    openai_responses.FORMAT,
    anthropic.FORMAT,
    openai_chat.FORMAT,
    langchain.FORMAT,
    # aider's histories are plain text: no JSON rule above can claim them (fmt2).
    aider.FORMAT,
)

BY_NAME: dict[str, FormatSpec] = {spec.name: spec for spec in FORMATS}
ALIASES: dict[str, str] = {alias: spec.name for spec in FORMATS for alias in spec.aliases}

#: Every format name ``load`` accepts, in detection order.
FORMAT_NAMES: tuple[str, ...] = tuple(BY_NAME)

#: The formats ``dump`` writes; openai-chat (the default) first, then the others in registry order.
DUMP_FORMATS: tuple[str, ...] = (openai_chat.NAME,) + tuple(
    spec.name for spec in FORMATS if spec.write is not None and spec.name != openai_chat.NAME
)

#: The formats that read SQLite stores, each recognising its own tables (``detect_sqlite``).
SQLITE_FORMATS: tuple[FormatSpec, ...] = tuple(spec for spec in FORMATS if spec.parse_sqlite is not None)
#: The SQLite reader for a store no format claims (its error lists the tables found).
SQLITE_FORMAT: FormatSpec = BY_NAME["hermes"]


def resolve(name: str) -> FormatSpec | None:
    """The format called ``name`` (or one of its aliases), None when there is none."""
    return BY_NAME.get(ALIASES.get(name, name))
