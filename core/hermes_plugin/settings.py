"""The settings file the Hermes plugin reads: which release, parameters and summary to use in the agent.

Written by the dashboard and by ``context-lens hermes-settings``; read by the ``context-lens`` engine
when Hermes starts a session. It lives beside Hermes' own configuration::

    $HERMES_HOME/context-lens/settings.json      (HERMES_HOME defaults to ~/.hermes)

A JSON object; every key is optional and a missing or null one falls back to Hermes' own
``config.yaml`` (``compression.*``) and then to Hermes' defaults (``core.config.DEFAULTS``)::

    {
      "version": 1,
      "profile": "v0.19.0",              # the Hermes release whose compressor runs
      "threshold_percent": 0.6,           # compression.threshold
      "protect_first_n": 3,
      "protect_last_n": 20,
      "summary_target_ratio": 0.2,        # compression.target_ratio
      "abort_on_summary_failure": false,
      "token_estimator": "hermes",        # or "tiktoken"
      "strict_redaction": true,           # mask secrets before anything reaches the summary model
      "context_length": null,             # null: the window Hermes reports for its model
      "max_tokens": null,                 # the output reserve v0.18.0+ takes off the window
      "summarizer": "auto",               # auto | hermes-model | extractive | none
      "summary_timeout": null,            # seconds; null: auxiliary.compression.timeout (120)
      "record_message_text": false,       # put the messages' raw text into the compaction log
      "log": true                         # write $HERMES_HOME/context-lens/compactions.jsonl
    }

``summarizer``: ``hermes-model`` asks the model Hermes is configured with (its
``auxiliary.compression`` model when one is set, else the main model, with the key and endpoint the
agent uses) through litellm, within ``summary_timeout``; ``extractive`` writes the offline extractive
summary; ``none`` leaves the release's own fallback summary; ``auto`` is ``hermes-model`` when the
agent reports a model and ``extractive`` when it does not.

This module imports nothing heavy: the plugin reads it inside Hermes' process.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from core import profiles as P
from core.atomic_files import write_text_atomically
from core.config import TOKEN_ESTIMATORS, CompressorConfig

SETTINGS_VERSION = 1
SUMMARIZERS: tuple[str, ...] = ("auto", "hermes-model", "extractive", "none")
PLUGIN_DIR = "context-lens"
SETTINGS_FILE = "settings.json"
LOG_FILE = "compactions.jsonl"


class SettingsError(ValueError):
    """A settings file or value that cannot be used; the message names the key."""


def hermes_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Hermes' home: ``explicit``, else ``$HERMES_HOME``, else ``~/.hermes`` (as Hermes resolves it)."""
    if explicit:
        return Path(explicit).expanduser()
    configured = os.environ.get("HERMES_HOME", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".hermes"


def plugin_dir(home: str | os.PathLike[str] | None = None) -> Path:
    return hermes_home(home) / PLUGIN_DIR


def settings_path(home: str | os.PathLike[str] | None = None) -> Path:
    """Where the plugin reads its settings: ``$HERMES_HOME/context-lens/settings.json``."""
    return plugin_dir(home) / SETTINGS_FILE


def log_path(home: str | os.PathLike[str] | None = None) -> Path:
    """Where the plugin appends one JSON line per compaction: ``$HERMES_HOME/context-lens/compactions.jsonl``."""
    return plugin_dir(home) / LOG_FILE


@dataclass(frozen=True)
class PluginSettings:
    """What the plugin runs with; None means "as Hermes' config.yaml says, else Hermes' default"."""

    profile: str = P.DEFAULT_PROFILE
    threshold_percent: float | None = None
    protect_first_n: int | None = None
    protect_last_n: int | None = None
    summary_target_ratio: float | None = None
    abort_on_summary_failure: bool | None = None
    token_estimator: str = "hermes"
    strict_redaction: bool = True
    context_length: int | None = None
    max_tokens: int | None = None
    summarizer: str = "auto"
    summary_timeout: float | None = None
    record_message_text: bool = False
    log: bool = True

    def __post_init__(self) -> None:
        try:
            P.get_profile(self.profile)
        except (KeyError, ValueError) as exc:
            raise SettingsError(f"profile: {exc}") from None
        if self.summarizer not in SUMMARIZERS:
            raise SettingsError(f"summarizer must be one of {', '.join(SUMMARIZERS)}, got {self.summarizer!r}")
        if self.token_estimator not in TOKEN_ESTIMATORS:
            raise SettingsError(f"token_estimator must be one of {', '.join(TOKEN_ESTIMATORS)}, got {self.token_estimator!r}")
        _check_number("threshold_percent", self.threshold_percent, low=0.0, high=1.0)
        _check_number("summary_target_ratio", self.summary_target_ratio, low=0.0, high=1.0)
        _check_number("summary_timeout", self.summary_timeout, low=0.0)
        for name in ("protect_first_n", "protect_last_n", "context_length", "max_tokens"):
            _check_int(name, getattr(self, name))
        for name in ("abort_on_summary_failure", "strict_redaction", "record_message_text", "log"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, bool):
                raise SettingsError(f"{name} must be true or false, got {value!r}")

    @classmethod
    def from_config(cls, config: CompressorConfig, *, pin_context_length: bool = False, **options: Any) -> PluginSettings:
        """The settings for a ``CompressorConfig`` tuned in the dashboard or on the command line.

        ``context_length`` and ``model`` describe the transcript being studied, not the agent's
        model: the plugin uses the window Hermes reports unless ``pin_context_length``. ``options``
        are the plugin's own keys (``summarizer``, ``summary_timeout``, ``record_message_text``, ``log``).
        """
        return cls(
            profile=config.profile,
            threshold_percent=config.threshold_percent,
            protect_first_n=config.protect_first_n,
            protect_last_n=config.protect_last_n,
            summary_target_ratio=config.summary_target_ratio,
            abort_on_summary_failure=config.abort_on_summary_failure,
            token_estimator=config.token_estimator,
            strict_redaction=config.strict_redaction,
            context_length=config.context_length if pin_context_length else None,
            max_tokens=config.output_reserve,
            **options,
        )

    @classmethod
    def from_dict(cls, data: Any) -> PluginSettings:
        if not isinstance(data, dict):
            raise SettingsError(f"expected a JSON object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        version = data.get("version", SETTINGS_VERSION)
        if version != SETTINGS_VERSION:
            raise SettingsError(f"version {version!r} is not supported (this Context Lens reads {SETTINGS_VERSION})")
        unknown = sorted(set(data) - known - {"version"})
        if unknown:
            raise SettingsError(f"unknown key(s): {', '.join(unknown)}")
        values = {key: value for key, value in data.items() if key in known and value is not None}
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {"version": SETTINGS_VERSION, **asdict(self)}

    def with_changes(self, **changes: Any) -> PluginSettings:
        return replace(self, **changes)


def _check_number(name: str, value: Any, *, low: float, high: float | None = None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise SettingsError(f"{name} must be a number, got {value!r}")
    if value <= low or (high is not None and value > high):
        bound = f"in ({low}, {high}]" if high is not None else f"above {low}"
        raise SettingsError(f"{name} must be {bound}, got {value!r}")


def _check_int(name: str, value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SettingsError(f"{name} must be a non-negative integer, got {value!r}")


def write_settings(settings: PluginSettings, *, hermes_home: str | os.PathLike[str] | None = None) -> Path:
    """Write ``settings`` where the plugin reads them (atomically) and return the path.

    The dashboard's "Use in Hermes" button and ``context-lens hermes-settings`` both call this::

        from core.hermes_plugin.settings import PluginSettings, write_settings
        path = write_settings(PluginSettings.from_config(config, summarizer="auto"), hermes_home=None)

    ``hermes_home`` None means ``$HERMES_HOME`` or ``~/.hermes``. The folder is created when missing.
    The next Hermes session picks the file up (a running one at its next session start).
    """
    target = settings_path(hermes_home)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(target, json.dumps(settings.to_dict(), indent=2) + "\n")
    return target


def read_settings(home: str | os.PathLike[str] | None = None) -> tuple[PluginSettings, str | None]:
    """The settings in ``home`` and a warning: defaults (and why) when the file is missing or unusable.

    Never raises: a broken settings file must not stop the agent, so its problem is returned as a
    warning for the plugin to log, and the defaults apply.
    """
    path = settings_path(home)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return PluginSettings(), None
    except OSError as exc:
        return PluginSettings(), f"{path}: cannot be read ({exc}); using the defaults"
    try:
        return PluginSettings.from_dict(json.loads(text)), None
    except (ValueError, TypeError) as exc:  # json.JSONDecodeError and SettingsError are ValueErrors
        return PluginSettings(), f"{path}: {exc}; using the defaults"
