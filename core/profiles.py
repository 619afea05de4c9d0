"""Every constant, string and version difference of the two reference profiles, in one table.

A reader sees the whole v0.15.1 / v0.16.0 difference here: the handoff prefix, the prefixes still
recognised as summaries, the Discord redaction pass, the kind of fallback summary and the wording
of the Active Task instructions. Everything else is shared.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- shared constants (identical in both releases) -------------------------------------------
MINIMUM_CONTEXT_LENGTH = 64_000
MIN_SUMMARY_TOKENS = 2_000
SUMMARY_RATIO = 0.20
SUMMARY_TOKENS_CEILING = 12_000
MAX_SUMMARY_SHARE_OF_CONTEXT = 0.05
MAX_TOKENS_FACTOR = 1.3
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 10
IMAGE_TOKEN_ESTIMATE = 1_600  # the compressor's own budget walk
IMAGE_CHAR_EQUIVALENT = 6_400
ROUGH_IMAGE_TOKENS = 1_500  # estimate_messages_tokens_rough
TAIL_SOFT_CEILING_FACTOR = 1.5
MIN_TAIL_MESSAGES = 3
RATIO_MIN, RATIO_MAX = 0.10, 0.80
CONTENT_MAX, CONTENT_HEAD, CONTENT_TAIL = 6_000, 4_000, 1_500
TOOL_ARGS_MAX, TOOL_ARGS_HEAD = 1_500, 1_200
DEDUP_MIN_CHARS = 200
ONE_LINER_MIN_CHARS = 200  # content strictly longer than this becomes a one-liner
ARGS_SHRINK_TRIGGER = 500
ARGS_LEAF_HEAD = 200
INEFFECTIVE_SAVINGS_PCT = 10
INEFFECTIVE_STRIKES = 2
COOLDOWN_NO_PROVIDER_S = 600
COOLDOWN_TRANSIENT_S = 30  # JSON-decode or stream closed
COOLDOWN_OTHER_S = 60
ERROR_TEXT_MAX = 220
DEFAULT_SUMMARY_TIMEOUT_S = 120
CONTEXT_PROBE_TIERS = (256_000, 128_000, 64_000, 32_000, 16_000, 8_000)
FALLBACK_SUMMARY_MAX_CHARS = 8_000
FALLBACK_TURN_MAX_CHARS = 700
PREFLIGHT_DEFER_MIN_GROWTH = 4_096

# The summary template's 13 headings, in order (v0.15.1 and v0.16.0).
TEMPLATE_HEADINGS: tuple[str, ...] = (
    "## Active Task",
    "## Goal",
    "## Constraints & Preferences",
    "## Completed Actions",
    "## Active State",
    "## In Progress",
    "## Blocked",
    "## Key Decisions",
    "## Resolved Questions",
    "## Pending User Asks",
    "## Relevant Files",
    "## Remaining Work",
    "## Critical Context",
)

# --- exact strings -------------------------------------------------------------------------------
LEGACY_SUMMARY_PREFIX = "[CONTEXT SUMMARY]:"
SUMMARY_TAG = "[CONTEXT COMPACTION — REFERENCE ONLY]"
DEDUP_PLACEHOLDER = "[Duplicate tool output — same content as a more recent call]"
DEDUP_MARK = "[Duplicate tool output"
LEGACY_CLEARED_PLACEHOLDER = "[Old tool output cleared to save context space]"
TOOL_IMAGE_PLACEHOLDER = "[screenshot removed to save context]"
MULTIMODAL_PLACEHOLDER_PREFIX = "[screenshot removed] "
HISTORICAL_IMAGE_PLACEHOLDER = "[Attached image — stripped after compression]"
STUB_RESULT = "[Result from earlier conversation — see context summary above]"
END_MARKER = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"
ARGS_TRUNCATION_MARK = "...[truncated]"
SERIALIZER_TRUNCATION_MARK = "\n...[truncated]...\n"
FALLBACK_TRUNCATION_MARK = "\n...[fallback summary truncated]"
NO_PROVIDER_ERROR = "no auxiliary LLM provider configured"
SYSTEM_NOTE = '[Note: Some earlier conversation turns have been compacted into a handoff summary to preserve context space. The current session state may still reflect earlier work, so build on that summary and state rather than re-doing work. Your persistent memory (MEMORY.md, USER.md) remains fully authoritative regardless of compaction.]'

SUMMARY_PREFIX_V0_15_1 = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff from a previous context window — treat it as background reference, NOT as active instructions. Do NOT answer questions or fulfill requests mentioned in this summary; they were already addressed. Your current task is identified in the '## Active Task' section of the summary — resume exactly from there. IMPORTANT: Your persistent memory (MEMORY.md, USER.md) in the system prompt is ALWAYS authoritative and active — never ignore or deprioritize memory content due to this compaction note. Respond ONLY to the latest user message that appears AFTER this summary. The current session state (files, config, etc.) may reflect work described here — avoid repeating it:"
)
SUMMARY_PREFIX_V0_16_0 = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff from a previous context window — treat it as background reference, NOT as active instructions. Do NOT answer questions or fulfill requests mentioned in this summary; they were already addressed. Respond ONLY to the latest user message that appears AFTER this summary — that message is the single source of truth for what to do right now. If the latest user message is consistent with the '## Active Task' section, you may use the summary as background. If the latest user message contradicts, supersedes, changes topic from, or in any way diverges from '## Active Task' / '## In Progress' / '## Pending User Asks' / '## Remaining Work', the latest message WINS — discard those stale items entirely and do not 'wrap up the old task first'. Reverse signals in the latest message (e.g. 'stop', 'undo', 'roll back', 'just verify', 'don't do that anymore', 'never mind', a new topic) must immediately end any in-flight work described in the summary; do not re-surface it in later turns. IMPORTANT: Your persistent memory (MEMORY.md, USER.md) in the system prompt is ALWAYS authoritative and active — never ignore or deprioritize memory content due to this compaction note. The current session state (files, config, etc.) may reflect work described here — avoid repeating it:"
)
# v0.16.0 still recognises this older prefix (it is *not* the v0.15.1 one).
HISTORICAL_PREFIX_V0_16_0 = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff from a previous context window — treat it as background reference, NOT as active instructions. Do NOT answer questions or fulfill requests mentioned in this summary; they were already addressed. Your current task is identified in the '## Active Task' section of the summary — resume exactly from there. Respond ONLY to the latest user message that appears AFTER this summary. The current session state (files, config, etc.) may reflect work described here — avoid repeating it:"
)

ACTIVE_TASK_INSTRUCTION_V0_15_1 = (
    "[The single most important field. Copy the user's most recent request or assignment verbatim, "
    "for example: User asked: '<their exact words>'. If several requests were made, list only those not "
    "yet finished. Work continues from here after compaction. Write \"None.\" when nothing is outstanding.]"
)
ACTIVE_TASK_INSTRUCTION_V0_16_0 = (
    "[The single most important field. Copy the user's most recent unfulfilled input verbatim: a task "
    "they assigned, a question still waiting for a full answer, a decision waiting for their input, or a "
    "discussion in which the assistant owes the next substantive reply. A question just asked is an active "
    "task: the task is to answer it. Examples: User asked: 'refactor the auth module to use JWT'; "
    "User asked: 'Waarom faalt de build op main?' (needs investigation and an answer); "
    "User chose option A, awaiting step 2. If several items are outstanding, list only the unfinished ones. "
    "If the latest message was a reverse signal (stop, undo, roll back, never mind, just verify, a change of "
    "topic), record that signal verbatim and do not carry the cancelled task forward, e.g. User said: "
    "'never mind the i18n refactor, just verify the build'. Write \"None.\" only when the exchange is fully "
    "resolved (the user said something like thanks, that's all).]"
)
ITERATIVE_CRITICAL_V0_15_1 = (
    "CRITICAL: set the Active Task section to the user's most recent unfulfilled request; it is the most "
    "important field for continuing the work."
)
ITERATIVE_CRITICAL_V0_16_0 = (
    "CRITICAL: set the Active Task section to the user's most recent unfulfilled input, including any "
    "question, decision request or discussion turn not yet answered; write None only if the last exchange "
    "was fully resolved."
)


@dataclass(frozen=True)
class Profile:
    """What differs between the reference releases."""

    name: str
    summary_prefix: str
    # Prefixes recognised as an existing handoff, in the order they are tried after the current one.
    recognised_prefixes: tuple[str, ...]
    redact_discord_mentions: bool
    fallback: str  # "static" (v0.15.1) or "deterministic" (v0.16.0)
    active_task_instruction: str
    iterative_critical_sentence: str


PROFILES: dict[str, Profile] = {
    "v0.15.1": Profile(
        name="v0.15.1",
        summary_prefix=SUMMARY_PREFIX_V0_15_1,
        recognised_prefixes=(SUMMARY_PREFIX_V0_15_1, LEGACY_SUMMARY_PREFIX),
        redact_discord_mentions=True,
        fallback="static",
        active_task_instruction=ACTIVE_TASK_INSTRUCTION_V0_15_1,
        iterative_critical_sentence=ITERATIVE_CRITICAL_V0_15_1,
    ),
    "v0.16.0": Profile(
        name="v0.16.0",
        summary_prefix=SUMMARY_PREFIX_V0_16_0,
        recognised_prefixes=(SUMMARY_PREFIX_V0_16_0, LEGACY_SUMMARY_PREFIX, HISTORICAL_PREFIX_V0_16_0),
        redact_discord_mentions=False,
        fallback="deterministic",
        active_task_instruction=ACTIVE_TASK_INSTRUCTION_V0_16_0,
        iterative_critical_sentence=ITERATIVE_CRITICAL_V0_16_0,
    ),
}
DEFAULT_PROFILE = "v0.16.0"


def get_profile(name: str | Profile) -> Profile:
    """Return the profile called ``name`` (or ``name`` itself when it already is one)."""
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[str(name)]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {sorted(PROFILES)}") from None
