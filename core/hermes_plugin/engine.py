"""``ContextLensEngine``: Hermes' context-engine interface on top of Context Lens' ``ContextCompressor``.

Hermes (every release from v0.15.1) lets a plugin replace its built-in compressor with any object
implementing ``agent.context_engine.ContextEngine``. This engine is that object: the host's calls
are forwarded to a ``ContextCompressor`` configured from the plugin's settings file, so the agent
compacts exactly as the chosen release would with the parameters tuned in the dashboard, and every
compaction is appended to the plugin's log.

How the host's calls map (see ``docs`` in the README, "Use it in Hermes"):

* ``update_model(model, context_length, base_url, api_key, provider, api_mode[, max_tokens])`` →
  ``ContextCompressor.update_model`` (the window and threshold follow the agent's model) and the
  route of the summary call (model, endpoint and key of the agent, held in memory only);
* ``update_from_response``, ``should_compress``, ``should_defer_preflight_to_real_usage``,
  ``record_completed_compaction``, ``on_session_reset`` / ``on_session_end`` → the same methods;
* ``on_session_start`` → re-reads the settings file at a new session (not at a compaction
  boundary, which continues the same conversation), then the compressor's hook;
* ``compress(messages, current_tokens, focus_topic, force, memory_context)`` →
  ``ContextCompressor.compress(..., on_crash="report")``; the list it returns goes back to Hermes,
  one record goes to the log. Nothing raised inside reaches the agent: on an error the input comes
  back unchanged with ``_last_compress_aborted`` set, which Hermes reports and survives;
* the attributes the host reads or sets (``last_prompt_tokens``, ``threshold_tokens``,
  ``compression_count``, ``_last_compress_aborted``, ``_last_summary_error``, ...) are properties
  over the compressor's own state, so both always agree.

Hermes deep-copies a plugin engine for each agent it creates; ``__deepcopy__`` copies the
compressor's state and gives the copy its own lock (locks cannot be copied) and a summarizer built
afresh from the same route.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

from core.compressor import ContextCompressor
from core.config import DEFAULTS, CompressorConfig
from core.hermes_plugin.events import EventLog, build_record
from core.hermes_plugin.settings import PluginSettings, hermes_home, log_path, read_settings
from core.plan import SUMMARIZE
from core.tokens import estimate_messages_tokens_rough

logger = logging.getLogger("context_lens.hermes_plugin")

ENGINE_NAME = "context-lens"


def _hermes_base() -> type:
    """Hermes' ``ContextEngine`` when it can be imported (inside Hermes), else ``object``."""
    try:
        from agent.context_engine import ContextEngine
    except Exception:  # outside Hermes (the dashboard, tests): the same engine without the base class
        return object
    return ContextEngine


def _hermes_release() -> str | None:
    try:
        from importlib.metadata import version

        return version("hermes-agent")
    except Exception:
        return None


@dataclasses.dataclass(frozen=True)
class Runtime:
    """The agent's main model as the host reports it (the key stays in memory, out of every repr)."""

    model: str = ""
    base_url: str = ""
    provider: str = ""
    api_mode: str = ""
    api_key: str = dataclasses.field(default="", repr=False)


def _delegate(name: str, *, writable: bool = True) -> property:
    """An attribute of the engine that is the compressor's attribute of the same name."""

    def read(self: ContextLensEngine) -> Any:
        return getattr(self._compressor, name)

    def write(self: ContextLensEngine, value: Any) -> None:
        setattr(self._compressor, name, value)

    return property(read, write if writable else None, doc=f"The compressor's ``{name}``.")


def _derived(name: str) -> property:
    """A value the compressor derives from its config; a host that sets it is ignored (and told why)."""

    def read(self: ContextLensEngine) -> Any:
        return getattr(self._compressor, name)

    def write(self: ContextLensEngine, value: Any) -> None:
        logger.debug("context-lens: %s is derived from the settings; ignoring %r", name, value)

    return property(read, write)


class ContextLensEngine(_hermes_base()):  # type: ignore[misc]
    """A Hermes context engine that runs Context Lens' compressor and logs every compaction.

    Args:
        settings: What to run; None reads ``$HERMES_HOME/context-lens/settings.json``.
        hermes_home: Hermes' home (None: ``$HERMES_HOME`` or ``~/.hermes``): the settings, Hermes'
            ``config.yaml`` and the log are found there.
        summarizer: A summarizer to use instead of the one the settings choose (tests, embedding).
        clock, wall_clock: As ``ContextCompressor``'s.
    """

    # The state Hermes reads and writes on an engine, kept in one place: the compressor.
    last_prompt_tokens = _delegate("last_prompt_tokens")
    last_completion_tokens = _delegate("last_completion_tokens")
    last_total_tokens = _delegate("last_total_tokens")
    compression_count = _delegate("compression_count")
    awaiting_real_usage_after_compression = _delegate("awaiting_real_usage_after_compression")
    _last_compress_aborted = _delegate("_last_compress_aborted")
    _last_summary_error = _delegate("_last_summary_error")
    _last_summary_fallback_used = _delegate("_last_summary_fallback_used")
    _last_summary_dropped_count = _delegate("_last_summary_dropped_count")
    _last_compression_made_progress = _delegate("_last_compression_made_progress")
    _verify_compaction_cleared_threshold = _delegate("_verify_compaction_cleared_threshold")
    _ineffective_compression_count = _delegate("_ineffective_compression_count")
    _fallback_compression_streak = _delegate("_fallback_compression_streak")
    threshold_tokens = _derived("threshold_tokens")
    threshold_percent = _derived("threshold_percent")
    protect_first_n = _derived("protect_first_n")
    protect_last_n = _derived("protect_last_n")
    summary_target_ratio = _delegate("summary_target_ratio", writable=False)
    tail_token_budget = _delegate("tail_token_budget", writable=False)
    max_summary_tokens = _delegate("max_summary_tokens", writable=False)
    model = _delegate("model", writable=False)

    def __init__(
        self,
        settings: PluginSettings | None = None,
        *,
        hermes_home: str | Path | None = None,
        summarizer: Any = None,
        clock: Any = None,
        wall_clock: Any = None,
    ) -> None:
        self._home = _resolve_home(hermes_home)
        self._pinned_settings = settings is not None
        self._settings = settings if settings is not None else self._read_settings()
        self._hermes_config = _load_hermes_config(self._home)
        self._runtime = Runtime()
        self._summarizer_override = summarizer
        self._summarizer: Any = None
        self._summarizer_key: tuple[Any, ...] | None = None
        self._compressor = ContextCompressor(self._config(), None, clock=clock, wall_clock=wall_clock)
        self._lock = threading.RLock()
        self._log = EventLog(log_path(self._home) if self._settings.log else None)
        self._hermes_release = _hermes_release()
        self.session_id: str | None = None

    # --- identity and configuration ---------------------------------------------------------

    @property
    def name(self) -> str:
        return ENGINE_NAME

    @property
    def compressor(self) -> ContextCompressor:
        return self._compressor

    @property
    def settings(self) -> PluginSettings:
        return self._settings

    @property
    def log_file(self) -> Path | None:
        return self._log.path

    @property
    def context_length(self) -> int:
        return self._compressor.context_length

    @context_length.setter
    def context_length(self, value: int) -> None:
        self._compressor.update_model(context_length=int(value), provider=self._runtime.provider,
                                      base_url=self._runtime.base_url, api_mode=self._runtime.api_mode)

    def _read_settings(self) -> PluginSettings:
        settings, warning = read_settings(self._home)
        if warning:
            logger.warning("context-lens: %s", warning)
        return settings

    def _config(self, *, model: str = "", context_length: int | None = None) -> CompressorConfig:
        """The compressor's parameters: the settings file, else Hermes' ``compression.*``, else the defaults."""
        chosen, hermes = self._settings, self._hermes_config

        def pick(name: str, hermes_name: str | None = None) -> Any:
            value = getattr(chosen, name)
            if value is None and hermes is not None:
                value = getattr(hermes, hermes_name or name, None)
            return getattr(DEFAULTS, name) if value is None else value

        window = chosen.context_length or context_length or (hermes.context_length if hermes else None)
        return CompressorConfig(
            context_length=window or DEFAULTS.context_length,
            threshold_percent=pick("threshold_percent"),
            protect_first_n=pick("protect_first_n"),
            protect_last_n=pick("protect_last_n"),
            summary_target_ratio=pick("summary_target_ratio"),
            abort_on_summary_failure=pick("abort_on_summary_failure"),
            max_tokens=pick("max_tokens"),
            profile=chosen.profile,
            token_estimator=chosen.token_estimator,
            strict_redaction=chosen.strict_redaction,
            model=model,
        )

    def settings_in_effect(self) -> dict[str, Any]:
        """What the log records of the configuration (no key, ever)."""
        config = self._compressor.config
        return {
            "context_length": config.context_length, "threshold_percent": config.threshold_percent,
            "effective_threshold_percent": config.effective_threshold_percent,
            "threshold_tokens": config.threshold_tokens, "protect_first_n": config.protect_first_n,
            "protect_last_n": config.protect_last_n, "summary_target_ratio": config.summary_target_ratio,
            "abort_on_summary_failure": config.abort_on_summary_failure, "max_tokens": config.output_reserve,
            "token_estimator": config.token_estimator, "strict_redaction": config.strict_redaction,
            "model": config.model, "summarizer": self._settings.summarizer,
            "summary_route": self._summary_route(), "record_message_text": self._settings.record_message_text,
        }

    # --- the summary model ----------------------------------------------------------------------

    def _summary_kind(self) -> str:
        kind = self._settings.summarizer
        if kind == "auto":
            has_model = bool(self._runtime.model or (self._hermes_config and self._hermes_config.model))
            return "hermes-model" if has_model else "extractive"
        return kind

    def _summary_route(self) -> dict[str, Any]:
        kind = self._summary_kind()
        if self._summarizer_override is not None:
            return {"kind": "given"}
        if kind != "hermes-model":
            return {"kind": kind}
        kwargs = self._litellm_kwargs()
        return {"kind": kind, "model": kwargs.get("model"), "summary_model": kwargs.get("summary_model"),
                "api_base": kwargs.get("api_base"), "timeout": kwargs.get("timeout")}

    def _litellm_kwargs(self) -> dict[str, Any]:
        """``LiteLLMSummarizer`` arguments: Hermes' config.yaml route, with the agent's live runtime on top."""
        from core.hermes_config import HermesSettings, hermes_model_to_litellm
        from core.summarizers.llm import DEFAULT_TIMEOUT_S

        hermes = self._hermes_config or HermesSettings()
        kwargs = hermes.summarizer_kwargs()
        runtime = self._runtime
        if runtime.model:
            kwargs["model"] = hermes_model_to_litellm(runtime.provider or hermes.provider, runtime.model,
                                                      runtime.base_url or None)
            kwargs["api_base"] = runtime.base_url or None
            kwargs["api_key"] = runtime.api_key or kwargs.get("api_key")
        kwargs["timeout"] = float(self._settings.summary_timeout or hermes.timeout or DEFAULT_TIMEOUT_S)
        return kwargs

    def _current_summarizer(self) -> Any:
        if self._summarizer_override is not None:
            return self._summarizer_override
        kind = self._summary_kind()
        key: tuple[Any, ...] = (kind, self._runtime, self._settings.summary_timeout)
        if key != self._summarizer_key:
            self._summarizer = self._build_summarizer(kind)
            self._summarizer_key = key
        return self._summarizer

    def _build_summarizer(self, kind: str) -> Any:
        from core.summarizers.factory import make_summarizer

        if kind in ("none", "extractive"):
            return make_summarizer(kind)
        kwargs = self._litellm_kwargs()
        if not kwargs.get("model"):
            return None  # no model anywhere: "no provider", the release's own fallback
        from core.summarizers.llm import LiteLLMSummarizer

        # litellm logs every call at INFO, which Hermes' console would show in the middle of a chat.
        logging.getLogger("LiteLLM").setLevel(logging.WARNING)
        return LiteLLMSummarizer(kwargs.pop("model"), **kwargs)

    # --- host hooks -------------------------------------------------------------------------------

    def update_model(self, model: str, context_length: int, base_url: str = "", api_key: str = "",
                     provider: str = "", api_mode: str = "", max_tokens: Any = None, **_: Any) -> None:
        """The agent switched model (or started): window, threshold and the summary route follow."""
        with self._lock:
            self._runtime = Runtime(model=model or "", base_url=base_url or "", provider=provider or "",
                                    api_mode=api_mode or "", api_key=api_key or "")
            window = self._settings.context_length or context_length
            reserve = self._settings.max_tokens if self._settings.max_tokens is not None else max_tokens
            self._compressor.update_model(model or "", int(window) if window else None, base_url or "",
                                          api_key or "", provider or "", api_mode or "", reserve)

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self._compressor.update_from_response(usage if isinstance(usage, dict) else {})

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        return self._compressor.should_compress(prompt_tokens)

    def should_compress_preflight(self, messages: list[dict[str, Any]]) -> bool:
        """The rough estimate of the messages against the threshold (what Hermes' own preflight compares)."""
        try:
            return self._compressor.should_compress(estimate_messages_tokens_rough(messages))
        except Exception:
            return False

    def should_defer_preflight_to_real_usage(self, rough_tokens: int) -> bool:
        return self._compressor.should_defer_preflight_to_real_usage(rough_tokens)

    def _automatic_compression_blocked(self) -> bool:
        """Hermes v0.19.0 asks this before an automatic compaction: a cooldown or a breaker blocks it."""
        return self._compressor.blocked_reason() is not None

    def has_content_to_compress(self, messages: list[dict[str, Any]]) -> bool:
        try:
            return self._compressor.plan(list(messages)).outcome == SUMMARIZE
        except Exception:
            return True  # let compress() decide (and log) rather than hide a problem here

    def record_completed_compaction(self, *, used_fallback: bool = False) -> None:
        self._compressor.record_completed_compaction(used_fallback=used_fallback)

    def on_session_start(self, session_id: str, **kwargs: Any) -> None:
        with self._lock:
            self.session_id = session_id
            home = kwargs.get("hermes_home")
            if home and _resolve_home(home) != self._home:
                self._home = _resolve_home(home)
                self._hermes_config = _load_hermes_config(self._home)
                if self._log.path is not None:
                    self._log = EventLog(log_path(self._home))
            if kwargs.get("boundary_reason") != "compression" and not self._pinned_settings:
                self._reload_settings()
            self._compressor.on_session_start(session_id, **kwargs)

    def _reload_settings(self) -> None:
        """A new session takes the settings file as it is now; the compressor keeps its state."""
        fresh = self._read_settings()
        if fresh == self._settings:
            return
        self._settings = fresh
        old = self._compressor.config
        self._compressor.config = dataclasses.replace(
            self._config(model=old.model, context_length=old.context_length), model=old.model)
        self._log = EventLog(log_path(self._home) if fresh.log else None)

    def on_session_end(self, session_id: str, messages: list[dict[str, Any]]) -> None:
        self._compressor.on_session_end(session_id, messages)

    def on_session_reset(self) -> None:
        self._compressor.on_session_reset()

    def get_status(self) -> dict[str, Any]:
        prompt = max(self.last_prompt_tokens or 0, 0)  # -1 means "awaiting real usage" after a compaction
        threshold = self.threshold_tokens
        return {
            "last_prompt_tokens": prompt, "threshold_tokens": threshold, "context_length": self.context_length,
            "usage_percent": min(100, prompt / self.context_length * 100) if self.context_length else 0,
            "compression_count": self.compression_count, "engine": ENGINE_NAME,
            "profile": self._compressor.config.profile, "blocked": self._compressor.blocked_reason(),
            "log": str(self._log.path) if self._log.path else None,
        }

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return []

    def handle_tool_call(self, name: str, args: dict[str, Any], **kwargs: Any) -> str:
        return json.dumps({"error": f"context-lens provides no tool {name!r}"})

    # --- compaction -----------------------------------------------------------------------------

    def compress(self, messages: list[dict[str, Any]], current_tokens: int | None = None,
                 focus_topic: str | None = None, force: bool = False, memory_context: str = "",
                 **_: Any) -> list[dict[str, Any]]:
        """Compact ``messages`` as the configured release would; the agent continues with the result."""
        with self._lock:
            started = time.monotonic()
            compressor = self._compressor
            call = {"current_tokens": current_tokens, "focus_topic": focus_topic, "force": bool(force),
                    "memory_context_chars": len(memory_context) if isinstance(memory_context, str) else 0,
                    "compression_count_before": compressor.compression_count}
            result, error = None, None
            summary_s: float | None = None
            try:
                compressor.summarizer = self._current_summarizer()
                result = compressor.compress(list(messages), current_tokens, focus_topic, bool(force),
                                             memory_context if isinstance(memory_context, str) else "",
                                             on_crash="report")
                summary_s = _summary_seconds(compressor.summarizer, result)
                output = result.messages
                if result.outcome == "crashed":  # where the release itself raises: the agent keeps its context
                    compressor._last_compress_aborted = True
                    compressor._last_summary_error = f"context-lens: {result.failure_reason}"
            except Exception as exc:  # never the agent's problem: it continues with what it had
                error = f"{type(exc).__name__}: {exc}"
                logger.warning("context-lens: compaction failed (%s); the conversation is kept unchanged", error)
                compressor._last_compress_aborted = True
                compressor._last_summary_error = f"context-lens: {error}"
                compressor._last_compression_made_progress = False
                output = messages
            timing = {"total_s": time.monotonic() - started}
            if summary_s is not None:
                timing["summary_s"] = summary_s
            self._write_event(result, call, timing, error, messages)
            return output

    def _write_event(self, result: Any, call: dict[str, Any], timing: dict[str, float], error: str | None,
                     messages: list[Any]) -> None:
        if self._log.path is None:
            return
        try:
            record = build_record(
                result, self._compressor, session_id=self.session_id, settings=self.settings_in_effect(),
                call=call, timing=timing, hermes_release=self._hermes_release,
                record_text=self._settings.record_message_text, error=error, input_messages=messages,
            )
        except Exception as exc:  # a record that cannot be built still leaves a trace
            logger.warning("context-lens: could not describe the compaction (%s: %s)", type(exc).__name__, exc)
            record = {"record": "compaction", "version": 1, "session_id": self.session_id,
                      "outcome": getattr(result, "outcome", "error"), "error": error or f"record: {exc}"}
        self._log.append(record)

    # --- copies -----------------------------------------------------------------------------------

    def __deepcopy__(self, memo: dict[int, Any]) -> ContextLensEngine:
        """Hermes copies a plugin engine per agent: same settings and state, its own lock and summarizer."""
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        for key, value in self.__dict__.items():
            if key == "_lock":
                clone.__dict__[key] = threading.RLock()
            elif key in ("_summarizer", "_summarizer_key"):
                clone.__dict__[key] = None  # rebuilt on first use: clients hold sockets and locks
            elif key == "_compressor":
                clone.__dict__[key] = _copy_compressor(value, memo)
            elif key == "_summarizer_override":
                clone.__dict__[key] = value  # shared: whoever passed it owns it
            else:
                clone.__dict__[key] = copy.deepcopy(value, memo)
        return clone


def _copy_compressor(compressor: ContextCompressor, memo: dict[int, Any]) -> ContextCompressor:
    clone = object.__new__(type(compressor))
    memo[id(compressor)] = clone
    for key, value in compressor.__dict__.items():
        if key == "_lock":
            clone.__dict__[key] = threading.RLock()
        elif key in ("summarizer", "clock", "wall_clock"):
            clone.__dict__[key] = None if key == "summarizer" else value  # the engine sets the summarizer per call
        else:
            clone.__dict__[key] = copy.deepcopy(value, memo)
    return clone


def _summary_seconds(summarizer: Any, result: Any) -> float | None:
    last = getattr(summarizer, "last_call", None)
    if result.summarizer_calls and isinstance(last, dict) and isinstance(last.get("latency_s"), int | float):
        return float(last["latency_s"])
    return None


def _resolve_home(explicit: str | Path | None) -> Path:
    return hermes_home(explicit)


def _load_hermes_config(home: Path) -> Any:
    """Hermes' ``config.yaml`` (compression parameters, summary route), or None when absent or unreadable."""
    path = home / "config.yaml"
    if not path.is_file():
        return None
    try:
        from core.hermes_config import load_hermes_config

        return load_hermes_config(path)
    except Exception as exc:  # Hermes itself decides whether its config is usable; we fall back to defaults
        logger.warning("context-lens: %s could not be read (%s); using the defaults", path, exc)
        return None
