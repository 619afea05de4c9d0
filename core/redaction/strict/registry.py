"""The detector families of the strict layer, in the order they run.

A family is one module of this package with one ``scan(view)`` function yielding candidates:
``(start, end, kind)`` of a value to mask, positions in ``view.text``. Each module registers its
scan with :func:`detector` when it is imported; ``core.redaction.strict`` imports them all, in
:data:`FAMILY_MODULES` order, and the registry keeps that order (it decides nothing but the order
the candidates are listed in: overlapping ones are merged, named by :data:`KIND_PRIORITY`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["Candidate", "Detector", "KIND_PRIORITY", "TextView", "detector", "detectors"]

Candidate = tuple[int, int, str]


@dataclass(frozen=True)
class TextView:
    """One text as the detectors read it.

    ``low`` is the text with ASCII letters lowered (same length and positions) for case-blind
    searches; ``protected`` are the sorted, disjoint regions that are never masked (data URLs,
    content hashes), which a detector may skip early.
    """

    text: str
    low: str
    protected: tuple[tuple[int, int], ...]


Scan = Callable[[TextView], Iterator[Candidate]]


@dataclass(frozen=True)
class Detector:
    """One family: its name (the module's), what it catches, and its scan."""

    name: str
    catches: str
    scan: Scan


_DETECTORS: list[Detector] = []

#: The family modules, in the order their candidates are listed.
FAMILY_MODULES: tuple[str, ...] = (
    "private_keys",
    "vendor",
    "plugins",
    "connection",
    "urls",
    "command_line",
    "headers",
    "shapes",
    "credential_files",
    "prose",
    "labels",
)

# When overlapping candidates merge, the kind of the first in this order names the result.
KIND_PRIORITY: tuple[str, ...] = (
    "private-key", "aws-secret-key", "azure-storage-key", "connection-string-key", "basic-auth", "authorization",
    "cookie", "slack-webhook", "discord-webhook",
)
# Kinds named only after the label in front of a value; any specific kind names a merged span first.
GENERIC_KINDS: frozenset[str] = frozenset(
    {"password", "secret", "token", "api-key", "credential", "high-entropy", "session-id"}
)


def detector(name: str, catches: str) -> Callable[[Scan], Scan]:
    """Register ``scan`` as the family ``name`` (a decorator; each module registers once)."""

    def register(scan: Scan) -> Scan:
        if any(existing.name == name for existing in _DETECTORS):
            raise ValueError(f"the strict-redaction family {name!r} is registered twice")
        _DETECTORS.append(Detector(name, catches, scan))
        return scan

    return register


def detectors() -> tuple[Detector, ...]:
    """The registered families, in :data:`FAMILY_MODULES` order."""
    order = {name: index for index, name in enumerate(FAMILY_MODULES)}
    return tuple(sorted(_DETECTORS, key=lambda d: order.get(d.name, len(order))))
