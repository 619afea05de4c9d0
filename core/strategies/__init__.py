"""Context-reduction strategies to set beside Hermes: one file per strategy, a registry.

``STRATEGIES`` lists them by family in the order they run: Hermes (one run per release profile; the
size of the chosen profile's run is the others' budget), truncation, observation masking and a
Codex-style reset. A strategy reads the messages and returns ``StrategyRun`` values; see
``core.strategies.base`` for the interface.
"""

from __future__ import annotations

from core.strategies.base import STRATEGIES, OutputOrigin, Strategy, StrategyRun, StrategySettings, register
from core.strategies.codex import CODEX_SUMMARY_PREFIX, CODEX_USER_TOKENS, CodexStrategy
from core.strategies.hermes import HermesStrategy
from core.strategies.masking import DEFAULT_KEEP_LAST, MASK_PLACEHOLDER, MaskingStrategy
from core.strategies.truncation import TruncationStrategy

__all__ = [
    "CODEX_SUMMARY_PREFIX",
    "CODEX_USER_TOKENS",
    "DEFAULT_KEEP_LAST",
    "MASK_PLACEHOLDER",
    "STRATEGIES",
    "OutputOrigin",
    "Strategy",
    "StrategyRun",
    "StrategySettings",
    "register",
]

# The comparison's order: Hermes first, since its run sets the others' budget.
for _strategy in (HermesStrategy(), TruncationStrategy(), MaskingStrategy(), CodexStrategy()):
    register(_strategy)
