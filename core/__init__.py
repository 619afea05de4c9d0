"""Context Lens: a faithful re-implementation of Hermes Agent's context compression, and the
analyses around it. Importing ``core`` is cheap: litellm is only imported when a call needs it."""

from core.compressor import (
    CompressionResult,
    CompressorConfig,
    ContextCompressor,
    MessageOrigin,
    SummarizerCall,
)
from core.profiles import PROFILES
from core.summarizers.base import SummaryRequest

__all__ = [
    "CompressionResult",
    "CompressorConfig",
    "ContextCompressor",
    "MessageOrigin",
    "PROFILES",
    "SummarizerCall",
    "SummaryRequest",
]
