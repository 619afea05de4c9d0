"""The compressor's four phases as plain functions over OpenAI-chat message dicts.

``prune`` (Phase 1), ``boundaries`` (Phase 2), ``summary`` and ``fallback`` (Phase 3) and
``assemble`` (Phase 4). None of them keeps state; ``core.compressor`` orchestrates them.
"""
