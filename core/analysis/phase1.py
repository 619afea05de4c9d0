"""One Phase-1 plan per conversation and token estimator, shared by the analyses.

Most of Phase 1 does not depend on the parameters (``core.phases.prune.PrunePlan``): an analysis
given the conversation's plan only finds the new prune boundary when a slider moves. Every
analysis that runs Phase 1 takes an optional ``plan``; without one it builds a fresh plan, so the
results are the same either way.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from core.compressor import CompressorConfig
from core.phases.prune import PrunePlan
from core.tokens import encoding_name_for_model, make_estimator

__all__ = ["derived", "estimator_key", "plan_for", "usable_plan"]

T = TypeVar("T")

# Values an analysis derives from a plan's messages and estimator alone (whole-conversation
# estimates, running totals, roles), kept as long as the plan lives.
_DERIVED: weakref.WeakKeyDictionary[PrunePlan, dict[Hashable, Any]] = weakref.WeakKeyDictionary()
_DERIVED_LOCK = threading.Lock()


def estimator_key(token_estimator: str, model: str = "") -> Hashable:
    """What the per-message weights of ``token_estimator`` depend on (the model only for tiktoken)."""
    if token_estimator == "tiktoken":
        return ("tiktoken", encoding_name_for_model(model))
    return (token_estimator,)


def plan_for(messages: Sequence[Any], config: CompressorConfig) -> PrunePlan:
    """A Phase-1 plan of ``messages`` weighed with ``config``'s estimator."""
    estimator = make_estimator(config.token_estimator, config.model)
    return PrunePlan(messages, estimator.message_tokens, key=estimator_key(config.token_estimator, config.model))


def usable_plan(plan: PrunePlan | None, messages: Sequence[Any], config: CompressorConfig) -> PrunePlan:
    """``plan`` after checking it fits ``messages`` and ``config``'s estimator; a new plan when None."""
    if plan is None:
        return plan_for(messages, config)
    if plan.key != estimator_key(config.token_estimator, config.model):
        raise ValueError(f"the Phase-1 plan weighs messages with {plan.key!r}, not {config.token_estimator!r}")
    if not plan.built_from(messages):
        raise ValueError("the Phase-1 plan was built from other messages")
    return plan


def derived(plan: PrunePlan | None, name: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` once per plan and ``name``; every time when there is no plan.

    Only for values that depend on nothing but the plan's messages and estimator: a parameter
    change must not change them.
    """
    if plan is None:
        return compute()
    with _DERIVED_LOCK:
        values = _DERIVED.setdefault(plan, {})
        if name in values:
            return values[name]
    value = compute()
    with _DERIVED_LOCK:
        return values.setdefault(name, value)
