"""Transcript import and export.

``load`` reads a transcript in any supported format into a canonical :class:`Conversation`
(OpenAI chat messages plus what the log knows about them); ``detect`` names the format;
``dump`` writes a conversation back as OpenAI chat JSON or one of the other message formats.
"""

from core.formats.dump import dump
from core.formats.loader import detect, load
from core.formats.messages import tool_pair_problems
from core.formats.model import CompactionEvent, Conversation, FormatError, InjectedContext, SessionInfo
from core.formats.registry import DUMP_FORMATS, FORMAT_NAMES, FORMATS
from core.formats.report import LoadReport
from core.formats.source import DEFAULT_MAX_BYTES

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DUMP_FORMATS",
    "FORMATS",
    "FORMAT_NAMES",
    "CompactionEvent",
    "Conversation",
    "FormatError",
    "InjectedContext",
    "LoadReport",
    "SessionInfo",
    "detect",
    "dump",
    "load",
    "tool_pair_problems",
]
