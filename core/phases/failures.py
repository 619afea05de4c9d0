"""Phase 3's failures: how each release classifies a failed summary call.

``FAILURE_RULES`` maps a profile's ``failure_rule`` to a :class:`FailureRule`: whether an empty
response is a failure, how an exception is classified (the "no provider" branch and its 600 s
cooldown, the 30 s transient cooldown, the sticky authentication and network flags of v0.18.0,
v0.19.0's access-or-quota class) and the cooldown it starts (v0.19.0's 60/300/900 s timeout ladder).
Classification reads only what a plain exception carries: its class, its own class name,
``str(exc)`` and the optional ``status_code`` / ``response.status_code``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core import profiles as P
from core.phases.error_classes import is_access_failure


def short_error(exc: BaseException) -> str:
    """``str(exc).strip()`` (the class name when empty), cut to 217 characters + ``...`` past 220."""
    text = str(exc).strip() or type(exc).__name__
    if len(text) > P.ERROR_TEXT_MAX:
        text = text[:217].rstrip() + "..."
    return text


def is_json_decode_error(exc: BaseException) -> bool:
    return isinstance(exc, json.JSONDecodeError) or "expecting value" in str(exc).lower()


def _is_openai_connection_error(exc: BaseException) -> bool:
    # openai's APIConnectionError / APITimeoutError, only when openai is already loaded (it comes
    # with litellm): importing it here would cost seconds for a check its class names cover anyway.
    import sys

    openai = sys.modules.get("openai")
    classes = tuple(c for c in (getattr(openai, "APIConnectionError", None), getattr(openai, "APITimeoutError", None)) if c)
    return bool(classes) and isinstance(exc, classes)


def is_connection_error(exc: BaseException) -> bool:
    """The reference's "stream closed / connection" test (drives the 30 s cooldown; v0.18.0 aborts on it)."""
    name = type(exc).__name__
    if any(marker in name for marker in P.CONNECTION_ERROR_NAMES):
        return True
    if _is_openai_connection_error(exc):
        return True
    text = str(exc).lower()
    return any(marker in text for marker in P.CONNECTION_ERROR_TEXTS)


def status_of(exc: BaseException) -> Any:
    return getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)


def is_auth_error(exc: BaseException) -> bool:
    """v0.18.0: status 401/403, or the message names an invalid key, an authorisation or authentication failure."""
    status = status_of(exc)
    try:
        if status in P.AUTH_STATUSES:
            return True
    except TypeError:  # an unhashable status matches nothing
        pass
    text = str(exc).lower()
    if any(marker in text for marker in P.AUTH_TEXTS):
        return True
    return "api key" in text and ("invalid" in text or "blocked" in text)


# The reference also names model-not-found and timeout classes, but every failure that is not "no
# provider" gets the one retry on the main model, so they decide nothing a re-implementation sees.


@dataclass(frozen=True)
class FailureClass:
    """What one failed attempt means."""

    no_provider: bool  # the 600 s branch: no retry on the main model, fixed reason
    cooldown_s: int  # when the attempt ends the chain (a timeout on a ladder takes its step instead)
    network: bool  # v0.18.0: a terminal network failure raises the sticky network flag
    auth: bool  # v0.18.0: raises the sticky authentication flag (v0.19.0: access or quota), on any attempt
    timeout: bool = False  # a timeout (v0.19.0: its cooldown climbs the ladder)
    kind: str = "other"  # in words, for the dashboard: no provider, access, network, timeout, invalid JSON, other


@dataclass(frozen=True)
class FailureRule:
    empty_is_failure: bool  # v0.18.0: an empty or blank response is a failure, not an empty summary
    classify: Callable[[BaseException], FailureClass]
    timeout_ladder: tuple[int, ...] = ()  # v0.19.0: consecutive timeouts wait 60, 300, then 900 s
    access_words: str = "an authentication failure"  # what the sticky abort class is, in words

    def cooldown(self, failure: FailureClass, timeouts_before: int) -> tuple[int, int]:
        """``(cooldown seconds, consecutive timeouts after this one)`` for a failure that ends the chain."""
        if failure.timeout and self.timeout_ladder:
            count = timeouts_before + 1
            return self.timeout_ladder[min(count, len(self.timeout_ladder)) - 1], count
        return failure.cooldown_s, timeouts_before


def _transient_cooldown(exc: BaseException, network: bool) -> int:
    return P.COOLDOWN_TRANSIENT_S if is_json_decode_error(exc) or network else P.COOLDOWN_OTHER_S


_NO_PROVIDER = FailureClass(True, P.COOLDOWN_NO_PROVIDER_S, False, False, kind="no provider")


def _kind(*, auth: bool, network: bool, timeout: bool, json_error: bool) -> str:
    if auth:
        return "access"
    if network:
        return "network"
    if timeout:
        return "timeout"
    return "invalid JSON" if json_error else "other"


def _status_in(status: Any, statuses: frozenset[int]) -> bool:
    try:
        return status in statuses
    except TypeError:  # an unhashable status matches nothing
        return False


def is_timeout(exc: BaseException, *, timed_out: bool = False) -> bool:
    """A timeout: status 408/429/502/504 or "timeout" in the text (v0.19.0 also "timed out")."""
    text = str(exc).lower()
    return _status_in(status_of(exc), TIMEOUT_STATUSES) or "timeout" in text or (timed_out and "timed out" in text)


TIMEOUT_STATUSES = frozenset({408, 429, 502, 504})


def classify_runtime_is_no_provider(exc: BaseException) -> FailureClass:
    """v0.15.1-v0.17.0: any ``RuntimeError`` (subclasses included) means no provider is configured."""
    if isinstance(exc, RuntimeError):
        return _NO_PROVIDER
    network = is_connection_error(exc)
    return FailureClass(False, _transient_cooldown(exc, network), False, False, is_timeout(exc),
                        _kind(auth=False, network=network, timeout=is_timeout(exc), json_error=is_json_decode_error(exc)))


def classify_v0_18(exc: BaseException) -> FailureClass:
    """v0.18.0: only a RuntimeError naming "no LLM provider configured" is the no-provider case."""
    if isinstance(exc, RuntimeError) and P.NO_PROVIDER_MARKER in str(exc).lower():
        return _NO_PROVIDER
    network = is_connection_error(exc)
    auth = is_auth_error(exc)
    timeout = is_timeout(exc)
    return FailureClass(False, _transient_cooldown(exc, network), network, auth, timeout,
                        _kind(auth=auth, network=network, timeout=timeout, json_error=is_json_decode_error(exc)))


def classify_v0_19(exc: BaseException) -> FailureClass:
    """v0.19.0: access or quota failures (the release's error classifier) abort; "timed out" is a timeout."""
    if isinstance(exc, RuntimeError) and P.NO_PROVIDER_MARKER in str(exc).lower():
        return _NO_PROVIDER
    network = is_connection_error(exc)
    access = is_access_failure(exc, status_of(exc))
    timeout = is_timeout(exc, timed_out=True)
    return FailureClass(False, _transient_cooldown(exc, network), network, access, timeout,
                        _kind(auth=access, network=network, timeout=timeout, json_error=is_json_decode_error(exc)))


FAILURE_RULES: dict[str, FailureRule] = {
    "runtime-is-no-provider": FailureRule(empty_is_failure=False, classify=classify_runtime_is_no_provider),
    "classified": FailureRule(empty_is_failure=True, classify=classify_v0_18),
    "access-or-quota": FailureRule(
        empty_is_failure=True, classify=classify_v0_19, timeout_ladder=P.TIMEOUT_COOLDOWN_LADDER_S,
        access_words="an access or quota failure (a rejected key, payment required, an exhausted quota)",
    ),
}


def empty_summary_error(model: str, provider: str = "") -> RuntimeError:
    """The v0.18.0 failure for an empty response (``model``: the summary model, else the main one)."""
    return RuntimeError(P.EMPTY_SUMMARY_ERROR.format(provider=provider or P.DEFAULT_PROVIDER_NAME, model=model))
