"""Context Lens: a faithful re-implementation of Hermes Agent's context compression, and the
analyses around it. Importing ``core`` is cheap: litellm is only imported when a call needs it."""

from core.assembly import Assembly, MessageOrigin, SummaryFailure, assemble
from core.compressor import CompressionResult, ContextCompressor, SummarizerCall
from core.config import CompressorConfig
from core.plan import CompressionPlan, CompressorState, plan, prepare
from core.profiles import PROFILES
from core.summarizers.base import SummaryRequest

__all__ = [
    "Assembly",
    "CompressionPlan",
    "CompressionResult",
    "CompressorConfig",
    "CompressorState",
    "ContextCompressor",
    "MessageOrigin",
    "PROFILES",
    "SummarizerCall",
    "SummaryFailure",
    "SummaryRequest",
    "assemble",
    "plan",
    "prepare",
]
