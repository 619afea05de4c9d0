"""Read and write the compression part of a Hermes Agent ``config.yaml``.

Keys read (everything else in the file is ignored):

* ``model.default`` (or ``model`` given as a plain string), ``model.provider``, ``model.base_url``,
  ``model.context_length``, ``model.max_tokens`` (the output reserve v0.18.0 takes off the window; a
  bool or a non-positive value is ignored with a warning, as Hermes does)
* ``compression.enabled``, ``.threshold``, ``.protect_first_n``, ``.protect_last_n``, ``.target_ratio``,
  ``.abort_on_summary_failure`` (string-coerced like Hermes: true when it lower-cases to "true", "1" or "yes"),
  ``.codex_gpt55_autoraise`` (v0.17.0+: gpt-5.5 on provider ``openai-codex`` compresses at 0.85),
  ``.codex_gpt55_autoraise_notice`` and ``.codex_app_server_auto`` (v0.18.1+ host keys: kept as they are, so
  an export writes them back; Codex app-server sessions compact natively unless it says ``hermes``)
* ``timezone`` (v0.17.0+: the zone of the date the summary prompt is anchored to)
* ``auxiliary.transient_retries`` (v0.18.1+: retries of a transient transport error, default 2: the
  summary call's retries)
* ``auxiliary.compression.provider``, ``.model``, ``.base_url``, ``.api_key``, ``.timeout``, ``.extra_body``,
  ``.context_length``, ``.reasoning_effort`` (v0.19.0: sent with the summary call)

From v0.19.0 Hermes raises a ``compression.threshold`` below 0.75 to 0.75 when the window is under
512,000 tokens; the value is read as written and the profile applies the floor.

Hermes names a model by provider plus model name; litellm wants one string. The conversion:
``openrouter`` + ``anthropic/claude-sonnet-4`` -> ``openrouter/anthropic/claude-sonnet-4``;
``anthropic`` + ``claude-sonnet-4-5`` -> ``anthropic/claude-sonnet-4-5``; a custom or local endpoint
(provider ``custom``, or any other provider with a ``base_url``) -> ``openai/<name>`` with that
``api_base``; provider ``auto`` without a ``base_url`` -> the name unchanged.

API keys are held in memory only: they are left out of ``repr`` and never exported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from core.config import DEFAULTS

# Hermes' fallback when nothing reports a context window (spec 1.3, DEFAULT_FALLBACK_CONTEXT).
DEFAULT_FALLBACK_CONTEXT = 256_000
DEFAULT_AUX_TIMEOUT = 120.0
DEFAULT_TRANSIENT_RETRIES = 2  # auxiliary.transient_retries (v0.18.1+)
CODEX_APP_SERVER_MODES = ("native", "hermes", "off")  # compression.codex_app_server_auto (v0.18.1+)
# v0.17.0+ host rule: this model on this provider compresses at 0.85 unless the config turns it off.
CODEX_GPT55_PROVIDER = "openai-codex"
CODEX_GPT55_THRESHOLD = 0.85

# Hermes provider names that litellm knows under its own prefix.
_LITELLM_PREFIX = {
    "openrouter": "openrouter",
    "anthropic": "anthropic",
    "openai": "openai",
    "gemini": "gemini",
    "google": "gemini",
    "deepseek": "deepseek",
    "xai": "xai",
    "mistral": "mistral",
    "groq": "groq",
    "together": "together_ai",
    "together_ai": "together_ai",
    "fireworks": "fireworks_ai",
    "fireworks_ai": "fireworks_ai",
    "ollama": "ollama",
}
# Hosted providers whose litellm handler is used even when a base_url is configured.
_HOSTED = frozenset({"openrouter", "anthropic", "openai", "gemini", "google", "deepseek", "xai", "mistral", "groq"})
_AUTO = frozenset({"", "auto"})
_OPENAI_COMPATIBLE_PREFIX = "openai"


class HermesConfigError(ValueError):
    """The config.yaml could not be parsed, or a value has the wrong type."""


@dataclass
class HermesSettings:
    """Compressor parameters (named as in ``CompressorConfig``) and summarizer settings."""

    # compressor
    context_length: int | None = None  # model.context_length; None = derive it from the model
    max_tokens: int | None = None  # model.max_tokens: the output reserve (v0.18.0)
    threshold_percent: float = DEFAULTS.threshold_percent
    protect_first_n: int = DEFAULTS.protect_first_n
    protect_last_n: int = DEFAULTS.protect_last_n
    summary_target_ratio: float = DEFAULTS.summary_target_ratio
    abort_on_summary_failure: bool = DEFAULTS.abort_on_summary_failure
    compression_enabled: bool = True
    codex_gpt55_autoraise: bool = True
    codex_gpt55_autoraise_notice: bool = True  # v0.18.1+ host key, kept for the export
    codex_app_server_auto: str = "native"  # v0.18.1+ host key: how Codex app-server sessions compact
    timezone: str | None = None  # top-level ``timezone``: the anchoring date's zone (v0.17.0+)
    # summarizer (litellm model strings)
    model: str | None = None
    summary_model: str | None = None  # None: the main model writes the summary (Hermes' default)
    api_base: str | None = None
    summary_api_base: str | None = None
    timeout: float = DEFAULT_AUX_TIMEOUT
    transient_retries: int = DEFAULT_TRANSIENT_RETRIES  # auxiliary.transient_retries (v0.18.1+)
    reasoning_effort: str | None = None  # auxiliary.compression.reasoning_effort (v0.19.0)
    extra_body: dict[str, Any] = field(default_factory=dict)
    summary_context_length: int | None = None
    # Hermes' own provider names, kept so an export writes the same routing back
    provider: str = "auto"
    summary_provider: str = "auto"
    api_key: str | None = field(default=None, repr=False, compare=False)
    summary_api_key: str | None = field(default=None, repr=False, compare=False)
    warnings: list[str] = field(default_factory=list, compare=False)

    def effective_context_length(self) -> int:
        """``context_length`` if configured, else litellm's table for ``model``, else Hermes' 256,000."""
        if self.context_length is not None:
            return self.context_length
        if self.model:
            from core.models import context_window

            known = context_window(self.model)
            if known is not None:
                return known
        return DEFAULT_FALLBACK_CONTEXT

    def effective_threshold_percent(self) -> float:
        """``compression.threshold``, or 0.85 for gpt-5.5 on ``openai-codex`` while the autoraise is on."""
        name = (self.model or "").rsplit("/", 1)[-1]
        codex = self.provider == CODEX_GPT55_PROVIDER and (
            name == "gpt-5.5" or name.startswith(("gpt-5.5-", "gpt-5.5."))
        )
        return CODEX_GPT55_THRESHOLD if codex and self.codex_gpt55_autoraise else self.threshold_percent

    def wall_clock(self) -> Callable[[], datetime] | None:
        """The clock of the prompt's anchoring date in the configured ``timezone`` (None: local time)."""
        if not self.timezone:
            return None
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            zone = ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            return None  # Hermes warns and falls back to local time
        return lambda: datetime.now(zone)

    def compressor_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``CompressorConfig``."""
        return {
            "context_length": self.effective_context_length(),
            "max_tokens": self.max_tokens,
            "threshold_percent": self.effective_threshold_percent(),
            "protect_first_n": self.protect_first_n,
            "protect_last_n": self.protect_last_n,
            "summary_target_ratio": self.summary_target_ratio,
            "abort_on_summary_failure": self.abort_on_summary_failure,
        }

    def _request_body(self) -> dict[str, Any]:
        body = dict(self.extra_body)
        if self.reasoning_effort:
            body.setdefault("reasoning_effort", self.reasoning_effort)
        return body

    def summarizer_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``LiteLLMSummarizer`` (keys included, for in-memory use only)."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "summary_model": self.summary_model,
            "api_base": self.api_base,
            "api_key": self.api_key,
            "timeout": self.timeout,
            "max_retries": self.transient_retries,
            "extra_body": self._request_body() or None,
        }
        if self.summary_model:
            separate_provider = self.summary_provider not in _AUTO and self.summary_provider != self.provider
            # "" tells the summarizer not to inherit the main endpoint for another provider's model.
            kwargs["summary_api_base"] = self.summary_api_base or ("" if separate_provider else None)
            kwargs["summary_api_key"] = self.summary_api_key or ("" if separate_provider else None)
        return kwargs


# -- provider <-> litellm model strings -----------------------------------------------------


def _uses_openai_compatible(provider: str, base_url: str | None) -> bool:
    if provider == "custom":
        return True
    return bool(base_url) and provider not in _HOSTED


def hermes_model_to_litellm(provider: str, name: str, base_url: str | None) -> str:
    """The litellm model string for a Hermes provider + model name (see the module docstring)."""
    provider = (provider or "").strip().lower()
    if _uses_openai_compatible(provider, base_url):
        return f"{_OPENAI_COMPATIBLE_PREFIX}/{name}"
    prefix = _LITELLM_PREFIX.get(provider)
    if prefix is None:
        return name
    # OpenRouter names are themselves "vendor/model"; every other provider's are bare.
    if prefix != "openrouter" and name.startswith(prefix + "/"):
        return name
    return f"{prefix}/{name}"


def litellm_model_to_hermes(provider: str, model: str, base_url: str | None) -> str:
    """The inverse of :func:`hermes_model_to_litellm`: the name Hermes expects for ``provider``."""
    provider = (provider or "").strip().lower()
    if _uses_openai_compatible(provider, base_url):
        prefix: str | None = _OPENAI_COMPATIBLE_PREFIX
    else:
        prefix = _LITELLM_PREFIX.get(provider)
    if prefix is not None and model.startswith(prefix + "/"):
        return model[len(prefix) + 1 :]
    return model


# -- loading -----------------------------------------------------------------------------------


def load_hermes_config(path: str | Path) -> HermesSettings:
    """Read a Hermes ``config.yaml`` from disk."""
    config_path = Path(path)
    try:
        text = config_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise HermesConfigError(f"config file not found: {config_path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HermesConfigError(f"cannot read {config_path}: {exc}") from None
    return parse_hermes_config(text)


def parse_hermes_config(text: str | bytes) -> HermesSettings:
    """Parse the text of a Hermes ``config.yaml`` (for example an upload)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise HermesConfigError(f"config.yaml is not UTF-8 text (byte {exc.start})") from None
    if not isinstance(text, str):
        raise HermesConfigError(f"expected the YAML text as str or bytes, got {type(text).__name__}")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise HermesConfigError(_describe_yaml_error(exc)) from None
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise HermesConfigError(f"config.yaml must be a mapping of sections, got {_kind(document)}")
    return _settings_from_document(document)


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is not None:
        return f"config.yaml is not valid YAML: line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return f"config.yaml is not valid YAML: {problem}"


def _kind(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})" if not isinstance(value, dict | list) else type(value).__name__


def _section(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = parent.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise HermesConfigError(f"{where} must be a mapping, got {_kind(value)}")
    return value


def _number(section: dict[str, Any], key: str, where: str, default: float) -> float:
    value = section.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        raise HermesConfigError(f"{where}.{key} must be a number, got {_kind(value)}")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise HermesConfigError(f"{where}.{key} must be a number, got {_kind(value)}")


def _integer(section: dict[str, Any], key: str, where: str, default: int) -> int:
    value = section.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        raise HermesConfigError(f"{where}.{key} must be an integer, got {_kind(value)}")
    # Hermes converts with int(), which also truncates a float such as 3.0.
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise HermesConfigError(f"{where}.{key} must be an integer, got {_kind(value)}")


def _context_length(section: dict[str, Any], key: str, where: str) -> int | None:
    value = section.get(key)
    if value is None or value == "":
        return None
    number = _integer(section, key, where, 0)
    if number <= 0:
        raise HermesConfigError(f"{where}.{key} must be a positive number of tokens, got {value!r}")
    return number


def _text(section: dict[str, Any], key: str, where: str) -> str | None:
    value = section.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise HermesConfigError(f"{where}.{key} must be a string, got {_kind(value)}")
    text = str(value).strip()
    return text or None


def _max_tokens(value: Any, warnings: list[str]) -> int | None:
    """``model.max_tokens`` as Hermes reads it: a positive number; a bool or anything else is ignored."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        warnings.append(f"model.max_tokens must be a positive number of tokens, got {value!r}: ignored (no reserve)")
        return None
    return int(value)


def _string_flag(value: Any) -> bool:
    # Hermes' coercion for abort_on_summary_failure: anything else, None included, is False.
    return str(value).lower() in ("true", "1", "yes")


def _settings_from_document(document: dict[str, Any]) -> HermesSettings:
    settings = HermesSettings()

    model_value = document.get("model")
    if isinstance(model_value, str):
        model_section: dict[str, Any] = {"default": model_value}
    else:
        model_section = _section(document, "model", "model")
    settings.provider = (_text(model_section, "provider", "model") or "auto").lower()
    settings.api_base = _text(model_section, "base_url", "model")
    settings.context_length = _context_length(model_section, "context_length", "model")
    if isinstance(model_value, dict) and "max_tokens" in model_section:
        settings.max_tokens = _max_tokens(model_section.get("max_tokens"), settings.warnings)
    main_name = _text(model_section, "default", "model")
    if main_name is not None:
        settings.model = hermes_model_to_litellm(settings.provider, main_name, settings.api_base)

    compression = _section(document, "compression", "compression")
    settings.threshold_percent = _number(compression, "threshold", "compression", DEFAULTS.threshold_percent)
    settings.protect_first_n = max(0, _integer(compression, "protect_first_n", "compression", DEFAULTS.protect_first_n))
    settings.protect_last_n = _integer(compression, "protect_last_n", "compression", DEFAULTS.protect_last_n)
    settings.summary_target_ratio = _number(compression, "target_ratio", "compression", DEFAULTS.summary_target_ratio)
    settings.abort_on_summary_failure = _string_flag(
        compression.get("abort_on_summary_failure", DEFAULTS.abort_on_summary_failure)
    )
    if "enabled" in compression:
        settings.compression_enabled = _string_flag(compression["enabled"])
    if "codex_gpt55_autoraise" in compression:
        settings.codex_gpt55_autoraise = _string_flag(compression["codex_gpt55_autoraise"])
    if "codex_gpt55_autoraise_notice" in compression:
        settings.codex_gpt55_autoraise_notice = _string_flag(compression["codex_gpt55_autoraise_notice"])
    mode = _text(compression, "codex_app_server_auto", "compression")
    if mode is not None:
        if mode.lower() not in CODEX_APP_SERVER_MODES:
            raise HermesConfigError(f"compression.codex_app_server_auto must be one of "
                                    f"{', '.join(CODEX_APP_SERVER_MODES)}, got {mode!r}")
        settings.codex_app_server_auto = mode.lower()
    timezone = document.get("timezone")
    if timezone is not None and not isinstance(timezone, str):
        raise HermesConfigError(f"timezone must be a time zone name such as Europe/Amsterdam, got {_kind(timezone)}")
    settings.timezone = (timezone or "").strip() or None

    auxiliary = _section(document, "auxiliary", "auxiliary")
    settings.transient_retries = _integer(auxiliary, "transient_retries", "auxiliary", DEFAULT_TRANSIENT_RETRIES)
    if settings.transient_retries < 0:
        raise HermesConfigError(f"auxiliary.transient_retries must be 0 or more, got {auxiliary.get('transient_retries')!r}")
    aux = _section(auxiliary, "compression", "auxiliary.compression")
    where = "auxiliary.compression"
    settings.reasoning_effort = _text(aux, "reasoning_effort", where)
    settings.summary_provider = (_text(aux, "provider", where) or "auto").lower()
    settings.summary_api_base = _text(aux, "base_url", where)
    settings.summary_api_key = _text(aux, "api_key", where)
    settings.timeout = _number(aux, "timeout", where, DEFAULT_AUX_TIMEOUT)
    if settings.timeout <= 0:
        raise HermesConfigError(f"{where}.timeout must be a positive number of seconds, got {aux.get('timeout')!r}")
    extra_body = aux.get("extra_body")
    if extra_body is not None and not isinstance(extra_body, dict):
        raise HermesConfigError(f"{where}.extra_body must be a mapping, got {_kind(extra_body)}")
    settings.extra_body = dict(extra_body or {})
    settings.summary_context_length = _context_length(aux, "context_length", where)
    summary_name = _text(aux, "model", where)
    if summary_name is not None:
        # "auto" for the auxiliary task means: the main provider's routing.
        provider = settings.provider if settings.summary_provider in _AUTO else settings.summary_provider
        base_url = settings.summary_api_base or (settings.api_base if settings.summary_provider in _AUTO else None)
        settings.summary_model = hermes_model_to_litellm(provider, summary_name, base_url)

    for label, provider, base_url in (
        ("model.provider", settings.provider, settings.api_base),
        ("auxiliary.compression.provider", settings.summary_provider, settings.summary_api_base),
    ):
        if provider not in _AUTO and provider not in _LITELLM_PREFIX and not _uses_openai_compatible(provider, base_url):
            settings.warnings.append(
                f"{label} '{provider}' has no litellm equivalent and no base_url: the model name is "
                "passed to litellm unchanged; set base_url for an OpenAI-compatible endpoint"
            )
    return settings


# -- exporting -------------------------------------------------------------------------------


def _implied_provider(model: str, base_url: str | None) -> str | None:
    """The Hermes provider a litellm model string implies, for settings made outside a config.yaml."""
    prefix = model.partition("/")[0].lower() if "/" in model else ""
    if prefix == _OPENAI_COMPATIBLE_PREFIX and base_url:
        return "custom"
    if prefix in ("openrouter", "anthropic"):
        return prefix
    return None


def _round_trips(provider: str, model: str, base_url: str | None) -> bool:
    return hermes_model_to_litellm(provider, litellm_model_to_hermes(provider, model, base_url), base_url) == model


def exported_model(logged: str | None, typed: str | None, sidebar: str | None) -> tuple[str | None, str]:
    """The ``model.default`` an export writes, and where it came from in words.

    A model typed for the summary call wins (the user named it); then the model the transcript was
    written with (the agent's own); the sidebar's model (a default such as gpt-4o) only when the log
    names none.
    """
    for model, source in ((typed, "the model entered for the summary call"),
                          (logged, "the model the transcript was written with"),
                          (sidebar, "the sidebar's model (the transcript names none)")):
        if model and model.strip():
            return model.strip(), source
    return None, "no model: Hermes' own default applies"


def settings_to_yaml(settings: HermesSettings) -> str:
    """A ``config.yaml`` snippet with the same keys the loader reads; API keys are never included.

    Settings whose provider is ``auto`` but whose model string names a route Hermes spells as a
    provider (``openrouter/...``, ``anthropic/...``, ``openai/...`` at a ``base_url``) are written
    with that provider, so Hermes reaches the same model; loading the snippet back gives the
    same litellm model strings.
    """
    main_provider = settings.provider or "auto"
    if main_provider in _AUTO and settings.model:
        main_provider = _implied_provider(settings.model, settings.api_base) or main_provider
    model_section: dict[str, Any] = {}
    if settings.model:
        model_section["default"] = litellm_model_to_hermes(main_provider, settings.model, settings.api_base)
    model_section["provider"] = main_provider
    if settings.api_base:
        model_section["base_url"] = settings.api_base
    if settings.context_length is not None:
        model_section["context_length"] = int(settings.context_length)
    if settings.max_tokens:
        model_section["max_tokens"] = int(settings.max_tokens)

    compression = {
        "enabled": bool(settings.compression_enabled),
        "threshold": float(settings.threshold_percent),
        "target_ratio": float(settings.summary_target_ratio),
        "protect_first_n": int(settings.protect_first_n),
        "protect_last_n": int(settings.protect_last_n),
        "abort_on_summary_failure": bool(settings.abort_on_summary_failure),
    }
    if not settings.codex_gpt55_autoraise:
        compression["codex_gpt55_autoraise"] = False
    if not settings.codex_gpt55_autoraise_notice:
        compression["codex_gpt55_autoraise_notice"] = False
    if settings.codex_app_server_auto != "native":
        compression["codex_app_server_auto"] = settings.codex_app_server_auto

    summary_provider = settings.summary_provider or "auto"
    summary_name = ""
    if settings.summary_model:
        if summary_provider in _AUTO:
            # "auto" routes the summary like the main model; say so explicitly when that would
            # reach a different model than the one configured.
            inherited_base = settings.summary_api_base or settings.api_base
            if not _round_trips(main_provider, settings.summary_model, inherited_base):
                summary_provider = _implied_provider(settings.summary_model, settings.summary_api_base) or summary_provider
        if summary_provider in _AUTO:
            provider, base_url = main_provider, settings.summary_api_base or settings.api_base
        else:
            provider, base_url = summary_provider, settings.summary_api_base
        summary_name = litellm_model_to_hermes(provider, settings.summary_model, base_url)
    aux: dict[str, Any] = {"provider": summary_provider}
    aux["model"] = summary_name
    aux["base_url"] = settings.summary_api_base or ""
    aux["timeout"] = _plain_number(settings.timeout)
    aux["extra_body"] = dict(settings.extra_body)
    if settings.summary_context_length is not None:
        aux["context_length"] = int(settings.summary_context_length)
    if settings.reasoning_effort:
        aux["reasoning_effort"] = settings.reasoning_effort

    auxiliary: dict[str, Any] = {"compression": aux}
    if settings.transient_retries != DEFAULT_TRANSIENT_RETRIES:
        auxiliary["transient_retries"] = int(settings.transient_retries)
    document: dict[str, Any] = {"model": model_section, "compression": compression, "auxiliary": auxiliary}
    if settings.timezone:
        document["timezone"] = settings.timezone
    header = "# Compression settings for Hermes Agent's config.yaml (API keys are not exported).\n"
    return header + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, default_flow_style=False)


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)
