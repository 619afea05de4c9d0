"""Shared by the live tests: writing a log in chunks and comparing a follower with a fresh load."""

from __future__ import annotations

import random
from pathlib import Path

from core.config import CompressorConfig
from core.formats import load
from core.live.follower import SessionFollower
from core.live.status import measure

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_conversations"


def chunks(data: bytes, count: int, seed: int = 0) -> list[bytes]:
    """``data`` cut into ``count`` pieces at random places (most of them inside a line)."""
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(data)), count - 1))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def mid_line_chunks(data: bytes, count: int) -> list[bytes]:
    """``count`` pieces of about the same size, the first cut in the middle of a line."""
    size = max(1, len(data) // count)
    cuts = [size * i for i in range(1, count)]
    first_newline = data.index(b"\n", cuts[0])
    cuts[0] = first_newline - 5  # so the first append ends mid-line
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def append(path: Path, piece: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(piece)


def assert_matches_fresh_load(follower: SessionFollower, path: Path, config: CompressorConfig | None = None) -> None:
    """The follower's conversation and figures are those of a fresh load of the file as it is now."""
    config = config or follower.config
    fresh = load(path, format=follower.format, session=follower.session)
    conversation = follower.conversation
    assert conversation is not None
    assert conversation.messages == fresh.messages
    assert conversation.usage == fresh.usage
    assert [(e.position, e.kind) for e in conversation.compaction_events] == \
        [(e.position, e.kind) for e in fresh.compaction_events]
    expected = measure(fresh, config)
    got = follower.measurement
    assert got is not None
    assert (got.messages, got.request_tokens, got.trigger_tokens, got.would_compress, got.zones) == \
        (expected.messages, expected.request_tokens, expected.trigger_tokens, expected.would_compress, expected.zones)
