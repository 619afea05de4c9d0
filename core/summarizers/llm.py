"""A summarizer that asks a real model through litellm.

One user message, ``max_tokens`` as the compressor computed it, no ``temperature`` (spec 4.4-4.5).
Failures are litellm's own exception classes, left unwrapped: their class names and texts
(``Timeout``, ``APIConnectionError``, "connection refused", ...) are what the compressor's
failure classification reads (spec 6.3). Only "nothing configured at all" is a
``RuntimeError``, which the compressor treats as "no provider" (600 s cooldown).

Every call has one deadline, ``timeout`` seconds for the whole call: connecting, reading and the
retries together. The HTTP client's own timeout only bounds each wait for the next bytes, so a
server that trickles an answer (or a chain of retries) could otherwise run unbounded. The retries
follow the provider clients' policy (which failures, how long between) but are made here, so
that none starts after the deadline.

Text reaches the provider as UTF-8: a lone surrogate in the prompt (a raw dict given to the
library may carry one) becomes U+FFFD in the request, while the compressor's own prompt, the one
it records, stays the reference's.

litellm is imported lazily, on the first call: importing it costs several seconds.
"""

from __future__ import annotations

import os
import random
import threading
import time
from typing import Any

from core import profiles as P
from core.unicode_text import replace_lone_surrogates

NO_PROVIDER_MESSAGE = "no LLM provider configured"
#: The deadline of one summary call in seconds (Hermes' per-request timeout).
DEFAULT_TIMEOUT_S = float(P.DEFAULT_SUMMARY_TIMEOUT_S)  # Hermes' auxiliary.compression.timeout
#: The retries the OpenAI and Anthropic clients make by default (litellm keeps them) after a
#: connection error, a timeout, a 408, 409, 429 or 5xx answer.
CLIENT_DEFAULT_RETRIES = 2


def import_litellm() -> Any:
    """Import litellm offline: its bundled cost map, no network look-ups, no HF tokenizer downloads."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    import litellm

    # Keeps litellm from printing its "Give Feedback / Get Help" banner on every failure.
    litellm.suppress_debug_info = True
    return litellm


class LiteLLMSummarizer:
    """``fn(prompt, max_tokens) -> str`` backed by ``litellm.completion``.

    ``model`` is the main model as litellm names it (``gpt-4o``, ``anthropic/claude-sonnet-4-5``,
    ``openai/<name>`` for an OpenAI-compatible server at ``api_base``). ``summary_model``, when
    given, writes the summaries until :meth:`fall_back_to_main` switches this instance to the
    main model for good (spec 4.8). ``summary_api_base`` / ``summary_api_key`` address the
    summary model; left as None they are the main ones, an empty string means "none" (the
    summary model then uses litellm's own provider defaults and environment variables).
    ``timeout`` is the deadline of one call in seconds, everything included: connecting, reading
    (however slowly the server sends) and the retries; when it passes the call raises litellm's
    ``Timeout``. ``max_retries`` is the number of retries after a connection error, a timeout or a
    408/409/429/5xx answer (None: the HTTP clients' default, ``CLIENT_DEFAULT_RETRIES``, as the
    reference has it); they all happen within the deadline.

    ``max_tokens_cap``, when given, bounds the completion length actually requested: the call
    asks for ``min(max_tokens, max_tokens_cap)``. It is meant for small local models, for which
    the compressor's budget (2,600 tokens and more) means minutes of CPU time; leave it None for
    remote providers so the request carries the reference's ``max_tokens`` unchanged.

    ``last_call`` describes the most recent call: model, max_tokens (as the compressor asked),
    max_tokens_cap and max_tokens_sent (what the request carried), prompt size, usage, latency,
    cost when litellm knows it, and the error if it failed. It never holds a key.
    """

    def __init__(
        self,
        model: str | None,
        *,
        summary_model: str | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        extra_body: dict[str, Any] | None = None,
        summary_api_base: str | None = None,
        summary_api_key: str | None = None,
        max_retries: int | None = None,
        mock_response: Any = None,
        max_tokens_cap: int | None = None,
    ) -> None:
        if model is not None and not isinstance(model, str):
            raise TypeError(f"model must be a string such as 'gpt-4o', got {type(model).__name__}")
        if summary_model is not None and not isinstance(summary_model, str):
            raise TypeError(f"summary_model must be a string or None, got {type(summary_model).__name__}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if max_retries is not None and (isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0):
            raise ValueError(f"max_retries must be a non-negative integer or None, got {max_retries!r}")
        if max_tokens_cap is not None and (
            isinstance(max_tokens_cap, bool) or not isinstance(max_tokens_cap, int) or max_tokens_cap <= 0
        ):
            raise ValueError(f"max_tokens_cap must be a positive integer or None, got {max_tokens_cap!r}")
        if extra_body is not None and not isinstance(extra_body, dict):
            raise TypeError(f"extra_body must be a dict, got {type(extra_body).__name__}")
        self.model: str = (model or "").strip()
        self._summary_model: str = (summary_model or "").strip()
        self.api_base = api_base or None
        self._api_key = api_key or None
        self.timeout = float(timeout)
        self.extra_body: dict[str, Any] = dict(extra_body or {})
        self._summary_api_base = summary_api_base
        self._summary_api_key = summary_api_key
        self.max_retries = max_retries
        self.mock_response = mock_response
        self.max_tokens_cap = max_tokens_cap
        self.fallen_back = False
        self.last_call: dict[str, Any] | None = None

    def __repr__(self) -> str:
        # Written out by hand so a key can never appear in logs or tracebacks.
        return (
            f"LiteLLMSummarizer(model={self.model!r}, summary_model={self.summary_model!r}, "
            f"api_base={self.api_base!r}, timeout={self.timeout!r}, max_retries={self.max_retries!r})"
        )

    # -- the fallback hooks the compressor uses (spec 4.8) ------------------------------------

    @property
    def summary_model(self) -> str:
        """The separate summary model still in use; "" when there is none or after the fallback."""
        return "" if self.fallen_back else self._summary_model

    def can_fall_back_to_main(self) -> bool:
        # Without a main model a retry could only fail as "no provider" and hide the real error.
        return (
            bool(self._summary_model)
            and bool(self.model)
            and self._summary_model != self.model
            and not self.fallen_back
        )

    def fall_back_to_main(self) -> None:
        """Write every later summary with the main model (permanent for this instance)."""
        self.fallen_back = True

    # -- the call ---------------------------------------------------------------------------

    def current_model(self) -> str:
        """The model the next call goes to."""
        return self.summary_model or self.model

    def capped(self, max_tokens: int | None) -> int | None:
        """The completion length a call asking for ``max_tokens`` requests (``max_tokens_cap`` applied;
        None: no cap is sent, as Hermes v0.19.0 sends none)."""
        if max_tokens is None:
            return self.max_tokens_cap
        return max_tokens if self.max_tokens_cap is None else min(max_tokens, self.max_tokens_cap)

    def request_kwargs(self, prompt: str, max_tokens: int | None) -> dict[str, Any]:
        """The exact keyword arguments the next call passes to ``litellm.completion``."""
        if not self.current_model():
            raise RuntimeError(NO_PROVIDER_MESSAGE)
        using_summary_model = bool(self.summary_model)
        api_base, api_key = self.api_base, self._api_key
        if using_summary_model:
            if self._summary_api_base is not None:
                api_base = self._summary_api_base or None
            if self._summary_api_key is not None:
                api_key = self._summary_api_key or None
        kwargs: dict[str, Any] = {
            "model": self.current_model(),
            "messages": [{"role": "user", "content": replace_lone_surrogates(prompt)}],
            "timeout": self.timeout,
        }
        sent = self.capped(max_tokens)
        if sent is not None:
            kwargs["max_tokens"] = sent
        if api_base:
            kwargs["api_base"] = api_base
        if api_key:
            kwargs["api_key"] = api_key
        # The retries are made by this class, within the deadline (see _attempts): none by the client.
        kwargs["max_retries"] = 0
        if self.extra_body:
            kwargs["extra_body"] = dict(self.extra_body)
        if self.mock_response is not None:
            kwargs["mock_response"] = self.mock_response
        return kwargs

    def __call__(self, prompt: str, max_tokens: int | None) -> str:
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {type(prompt).__name__}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens <= 0):
            raise ValueError(f"max_tokens must be a positive integer or None, got {max_tokens!r}")
        kwargs = self.request_kwargs(prompt, max_tokens)
        record: dict[str, Any] = {
            "model": kwargs["model"],
            "used_summary_model": bool(self.summary_model),
            "api_base": kwargs.get("api_base"),
            "max_tokens": max_tokens,
            "max_tokens_cap": self.max_tokens_cap,
            "max_tokens_sent": kwargs.get("max_tokens"),
            "prompt_chars": len(prompt),
            "usage": None,
            "latency_s": None,
            "response_cost": None,
            "error": None,
        }
        self.last_call = record
        litellm = import_litellm()
        started = time.monotonic()
        try:
            response = self._attempts(litellm, kwargs, record, deadline=started + self.timeout)
        except Exception as exc:
            record["latency_s"] = time.monotonic() - started
            connection_error = _as_connection_error(litellm, exc, kwargs["model"])
            failure = connection_error or exc
            _scrub_secret(failure, kwargs.get("api_key"))
            record["error"] = f"{type(failure).__name__}: {failure}"
            if connection_error is not None:
                raise connection_error from exc
            raise
        record["latency_s"] = time.monotonic() - started
        record["usage"] = _usage_dict(response)
        record["response_cost"] = _response_cost(response)
        try:
            return _message_text(response)
        except ValueError as exc:  # an answer without choices is a failed call too
            record["error"] = f"{type(exc).__name__}: {exc}"
            raise

    def _attempts(self, litellm: Any, kwargs: dict[str, Any], record: dict[str, Any], deadline: float) -> Any:
        """The first attempt and the retries, each started only while the deadline allows.

        The HTTP client's retry policy (which failures, how long to wait between) is applied here
        rather than by the client, so that no retry starts after the deadline: the client would
        go on retrying in the abandoned thread. A mock response involves no HTTP: no retries.
        """
        retries = self.max_retries if self.max_retries is not None else CLIENT_DEFAULT_RETRIES
        if self.mock_response is not None:
            retries = 0
        attempt = 0
        while True:
            attempt += 1
            record["attempts"] = attempt
            remaining = deadline - time.monotonic()
            # Each attempt's own timeout (connect, each read) never reaches past the deadline either.
            try:
                return _call_within(remaining, self.deadline_message(), litellm, {**kwargs, "timeout": remaining})
            except Exception as exc:
                if attempt > retries or not _worth_retrying(litellm, exc):
                    raise
                wait = _retry_wait(exc, attempt)
                if time.monotonic() + wait >= deadline:
                    raise
            time.sleep(wait)

    def deadline_message(self) -> str:
        """What a call that ran out of time says (a subclass for one endpoint names it)."""
        return (f"no complete answer within the {self.timeout:g} s deadline of the call "
                "(connecting, reading and retries together)")


def _call_within(seconds: float, message: str, litellm: Any, kwargs: dict[str, Any]) -> Any:
    """``litellm.completion(**kwargs)``, or litellm's ``Timeout`` once ``seconds`` have passed.

    The call runs in a daemon thread: an HTTP read cannot be cut off from outside, so after the
    deadline the request is left to end by itself (its reads time out within ``seconds`` of
    silence, and it makes no retries) and whatever it returns is dropped. ``message`` is the
    ``Timeout``'s text.
    """
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def call() -> None:
        try:
            outcome["response"] = litellm.completion(**kwargs)
        except BaseException as exc:  # handed to the caller's thread as it is
            outcome["error"] = exc
        finally:
            finished.set()

    if seconds > 0:
        threading.Thread(target=call, name="context-lens-summary-call", daemon=True).start()
    if seconds <= 0 or not finished.wait(seconds):
        raise litellm.Timeout(
            message=message,
            model=kwargs["model"],
            llm_provider=_provider_of(kwargs["model"]),
        )
    if "error" in outcome:
        raise outcome["error"]
    return outcome["response"]


# The statuses the OpenAI and Anthropic clients retry (besides connection errors and timeouts).
_RETRIED_STATUSES = frozenset({408, 409, 429})
RETRY_FIRST_WAIT_S, RETRY_MAX_WAIT_S, RETRY_AFTER_MAX_S = 0.5, 8.0, 60.0


def _failure_chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and all(link is not seen for seen in chain):
        chain.append(link)
        link = link.__cause__ or link.__context__
    return chain


def _worth_retrying(litellm: Any, exc: BaseException) -> bool:
    """Would the provider's HTTP client retry this failure? (connection, timeout, 408/409/429/5xx)"""
    import httpx
    import openai

    for link in _failure_chain(exc):
        if type(link).__module__.startswith("litellm"):
            continue  # litellm's wrappers subclass openai's classes with a status of their own choosing
        if isinstance(link, openai.APIConnectionError | httpx.TransportError):
            return True  # openai's APITimeoutError is one too
        if isinstance(link, openai.APIStatusError):
            return link.status_code in _RETRIED_STATUSES or link.status_code >= 500
        if isinstance(link, httpx.HTTPStatusError):
            status = link.response.status_code
            return status in _RETRIED_STATUSES or status >= 500
        if isinstance(link, ValueError):  # a body that is not JSON: the server answered, wrongly
            return False
    retried = (litellm.Timeout, litellm.APIConnectionError, litellm.RateLimitError, litellm.ServiceUnavailableError,
               litellm.BadGatewayError)
    return isinstance(exc, retried)


def _retry_wait(exc: BaseException, attempt: int) -> float:
    """Seconds before retry ``attempt``: the server's Retry-After when sensible, else the client's backoff."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    try:
        after = float(headers.get("retry-after")) if headers is not None and headers.get("retry-after") else None
    except (TypeError, ValueError):
        after = None
    if after is not None and 0 <= after <= RETRY_AFTER_MAX_S:
        return after
    backoff = min(RETRY_FIRST_WAIT_S * 2 ** (attempt - 1), RETRY_MAX_WAIT_S)
    return backoff * (1 - 0.25 * random.random())


def _provider_of(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else "openai"


def _scrub_secret(exc: BaseException, secret: str | None) -> None:
    """Blank a key a provider echoed into its error text, before anything displays or logs it."""
    if not secret or len(secret) < 8 or secret not in str(exc):
        return
    mask = "[REDACTED]"
    message = getattr(exc, "message", None)
    if isinstance(message, str):
        try:
            exc.message = message.replace(secret, mask)  # type: ignore[attr-defined]
        except AttributeError:
            pass
    exc.args = tuple(arg.replace(secret, mask) if isinstance(arg, str) else arg for arg in exc.args)


def _as_connection_error(litellm: Any, exc: BaseException, model: str) -> Exception | None:
    """Restore a connection failure that litellm reported as a plain server error.

    litellm turns the OpenAI client's ``APIConnectionError`` (refused connection, server hung
    up mid-response, ...) into ``InternalServerError("Connection error.")``. The reference
    compressor sees the client's connection error itself and gives it the short 30 s cooldown,
    so the failure is raised again as litellm's ``APIConnectionError``, carrying the root
    cause's class and text ("ConnectionRefusedError: [Errno 111] Connection refused").
    """
    name = type(exc).__name__
    if any(marker in name for marker in ("Connection", "Timeout", "DNS", "SSL")):
        return None
    import openai

    link: BaseException | None = exc
    seen: set[int] = set()
    found_connection_error = False
    root: BaseException | None = None
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, openai.APIConnectionError):
            found_connection_error = True
        root = link
        link = link.__cause__ or link.__context__
    if not found_connection_error:
        return None
    detail = f"{type(root).__name__}: {root}" if root is not None else ""
    message = f"Connection error while calling {model}: {detail}".rstrip(": ")
    return litellm.APIConnectionError(
        message=message,
        llm_provider=getattr(exc, "llm_provider", None) or "openai",
        model=model,
    )


def _message_text(response: Any) -> str:
    choices = getattr(response, "choices", None)
    if not choices:
        raise ValueError("the model returned a response without choices")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    # Spec 4.6: a non-string becomes its str() when truthy, otherwise the empty string.
    return str(content) if content else ""


def _usage_dict(response: Any) -> dict[str, int] | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    fields = ("prompt_tokens", "completion_tokens", "total_tokens")
    values = {name: getattr(usage, name, None) for name in fields}
    return {name: int(value) for name, value in values.items() if isinstance(value, int | float)}


def _response_cost(response: Any) -> float | None:
    hidden = getattr(response, "_hidden_params", None)
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    return float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None
