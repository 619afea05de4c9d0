"""core.hermes_config: Hermes config.yaml in, compressor and summarizer settings out, and back."""

from __future__ import annotations

import textwrap

import pytest
import yaml

from core.config import CompressorConfig
from core.hermes_config import (
    DEFAULT_FALLBACK_CONTEXT,
    HermesConfigError,
    HermesSettings,
    hermes_model_to_litellm,
    litellm_model_to_hermes,
    load_hermes_config,
    parse_hermes_config,
    settings_to_yaml,
)
from core.models import context_window

FULL_CONFIG = textwrap.dedent(
    """\
    model:
      default: anthropic/claude-sonnet-4
      provider: openrouter
      context_length: 200000
    agent:
      max_turns: 90          # other sections are ignored
    compression:
      enabled: true
      threshold: 0.65
      target_ratio: 0.3
      protect_first_n: 4
      protect_last_n: 12
      abort_on_summary_failure: "yes"
    auxiliary:
      compression:
        provider: openai
        model: gpt-4o-mini
        api_key: sk-secret-value-123
        timeout: 45
        extra_body:
          reasoning: {effort: low}
        context_length: 128000
    """
)


def test_full_config_is_read():
    settings = parse_hermes_config(FULL_CONFIG)
    assert settings.context_length == 200_000
    assert settings.threshold_percent == 0.65
    assert settings.summary_target_ratio == 0.3
    assert settings.protect_first_n == 4
    assert settings.protect_last_n == 12
    assert settings.abort_on_summary_failure is True
    assert settings.compression_enabled is True
    assert settings.model == "openrouter/anthropic/claude-sonnet-4"
    assert settings.summary_model == "openai/gpt-4o-mini"
    assert settings.timeout == 45.0
    assert settings.extra_body == {"reasoning": {"effort": "low"}}
    assert settings.summary_context_length == 128_000
    assert settings.summary_api_key == "sk-secret-value-123"
    assert settings.warnings == []


def test_defaults_match_hermes():
    settings = parse_hermes_config("")
    assert (settings.threshold_percent, settings.protect_first_n, settings.protect_last_n) == (0.50, 3, 20)
    assert settings.summary_target_ratio == 0.20
    assert settings.abort_on_summary_failure is False
    assert settings.compression_enabled is True
    assert settings.timeout == 120.0
    assert settings.model is None and settings.summary_model is None
    assert settings.effective_context_length() == DEFAULT_FALLBACK_CONTEXT == 256_000


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("true", True), ("True", True), ("1", True), ("yes", True), ("YES", True), ("false", False), ("no", False),
     ("0", False), ("null", False), ("'1'", True), ("1.0", False),
     # YAML 1.1 (PyYAML, as Hermes reads it) makes a bare on a boolean; quoted it is just text.
     ("on", True), ("'on'", False)],
)
def test_abort_on_summary_failure_is_string_coerced(raw, expected):
    settings = parse_hermes_config(f"compression:\n  abort_on_summary_failure: {raw}\n")
    assert settings.abort_on_summary_failure is expected


def test_numbers_given_as_strings_are_accepted_like_hermes():
    settings = parse_hermes_config("compression:\n  threshold: '0.7'\n  protect_first_n: '2'\n  protect_last_n: 8.0\n")
    assert settings.threshold_percent == 0.7
    assert settings.protect_first_n == 2
    assert settings.protect_last_n == 8


def test_negative_protect_first_n_is_clamped_to_zero_like_hermes():
    assert parse_hermes_config("compression:\n  protect_first_n: -2\n").protect_first_n == 0


def test_model_as_plain_string():
    settings = parse_hermes_config("model: gpt-4o\n")
    assert settings.model == "gpt-4o"
    assert settings.effective_context_length() == context_window("gpt-4o")


def test_explicit_context_length_wins_over_the_table():
    settings = parse_hermes_config("model:\n  default: gpt-4o\n  context_length: 64000\n")
    assert settings.effective_context_length() == 64_000


@pytest.mark.parametrize(
    ("provider", "name", "base_url", "litellm_name"),
    [
        ("openrouter", "anthropic/claude-sonnet-4", None, "openrouter/anthropic/claude-sonnet-4"),
        ("anthropic", "claude-sonnet-4-5", None, "anthropic/claude-sonnet-4-5"),
        ("anthropic", "anthropic/claude-sonnet-4-5", None, "anthropic/claude-sonnet-4-5"),
        ("openai", "gpt-4o", None, "openai/gpt-4o"),
        ("custom", "qwen3-8b", "http://127.0.0.1:8000/v1", "openai/qwen3-8b"),
        ("custom", "openai/gpt-oss-20b", "http://127.0.0.1:8000/v1", "openai/openai/gpt-oss-20b"),
        ("ollama", "llama3", None, "ollama/llama3"),
        ("ollama", "llama3", "http://localhost:11434/v1", "openai/llama3"),
        ("lmstudio", "local-model", "http://127.0.0.1:1234/v1", "openai/local-model"),
        ("auto", "gpt-4o", None, "gpt-4o"),
        ("auto", "my-model", "http://127.0.0.1:9000/v1", "openai/my-model"),
        ("", "claude-sonnet-4-5", None, "claude-sonnet-4-5"),
    ],
)
def test_provider_mapping(provider, name, base_url, litellm_name):
    assert hermes_model_to_litellm(provider, name, base_url) == litellm_name
    back = litellm_model_to_hermes(provider, litellm_name, base_url)
    assert hermes_model_to_litellm(provider, back, base_url) == litellm_name


def test_custom_endpoint_config():
    settings = parse_hermes_config(
        "model:\n  default: qwen3-8b\n  provider: custom\n  base_url: http://127.0.0.1:8000/v1\n"
    )
    assert settings.model == "openai/qwen3-8b"
    assert settings.api_base == "http://127.0.0.1:8000/v1"
    kwargs = settings.summarizer_kwargs()
    assert kwargs["model"] == "openai/qwen3-8b"
    assert kwargs["api_base"] == "http://127.0.0.1:8000/v1"
    assert kwargs["summary_model"] is None


def test_auto_summary_provider_uses_the_main_routing():
    settings = parse_hermes_config(
        "model:\n  default: anthropic/claude-sonnet-4\n  provider: openrouter\n"
        "auxiliary:\n  compression:\n    model: google/gemini-2.5-flash\n"
    )
    assert settings.summary_model == "openrouter/google/gemini-2.5-flash"
    kwargs = settings.summarizer_kwargs()
    assert kwargs["summary_api_base"] is None  # inherits the main endpoint


def test_separate_summary_provider_does_not_inherit_the_main_endpoint():
    settings = parse_hermes_config(
        "model:\n  default: qwen3\n  provider: custom\n  base_url: http://127.0.0.1:8000/v1\n  api_key: main-key\n"
        "auxiliary:\n  compression:\n    provider: openai\n    model: gpt-4o-mini\n"
    )
    kwargs = settings.summarizer_kwargs()
    assert kwargs["summary_model"] == "openai/gpt-4o-mini"
    assert kwargs["summary_api_base"] == ""
    assert kwargs["summary_api_key"] == ""


def test_unknown_provider_without_base_url_is_warned_about():
    settings = parse_hermes_config("model:\n  default: hermes-4\n  provider: nous\n")
    assert settings.model == "hermes-4"
    assert any("model.provider 'nous'" in warning for warning in settings.warnings)


def test_compressor_kwargs_names_match_the_config_fields():
    settings = parse_hermes_config(FULL_CONFIG)
    assert settings.compressor_kwargs() == {
        "context_length": 200_000,
        "max_tokens": None,
        "threshold_percent": 0.65,
        "protect_first_n": 4,
        "protect_last_n": 12,
        "summary_target_ratio": 0.3,
        "abort_on_summary_failure": True,
    }


def test_compressor_kwargs_are_accepted_by_compressor_config():
    from core import CompressorConfig

    config = CompressorConfig(**parse_hermes_config(FULL_CONFIG).compressor_kwargs())
    assert config.context_length == 200_000
    assert config.threshold_percent == 0.65


def test_summarizer_kwargs_build_a_summarizer():
    from core.summarizers.llm import LiteLLMSummarizer

    summarizer = LiteLLMSummarizer(**parse_hermes_config(FULL_CONFIG).summarizer_kwargs())
    assert summarizer.model == "openrouter/anthropic/claude-sonnet-4"
    assert summarizer.summary_model == "openai/gpt-4o-mini"
    assert summarizer.timeout == 45.0
    assert summarizer.extra_body == {"reasoning": {"effort": "low"}}


# -- export and round trip ----------------------------------------------------------------


def test_round_trip_keeps_every_setting():
    settings = parse_hermes_config(FULL_CONFIG)
    again = parse_hermes_config(settings_to_yaml(settings))
    assert again == settings


@pytest.mark.parametrize(
    "config",
    [
        "",
        "model: gpt-4o\n",
        "model:\n  default: qwen3\n  provider: custom\n  base_url: http://127.0.0.1:8000/v1\n",
        "model:\n  default: llama3\n  provider: ollama\nauxiliary:\n  compression:\n    model: llama3.1\n    timeout: 2.5\n",
        "model:\n  default: claude-sonnet-4-5\n  provider: anthropic\ncompression:\n  enabled: false\n  threshold: 0.8\n"
        "auxiliary:\n  compression:\n    provider: custom\n    base_url: http://127.0.0.1:1234/v1\n    model: small\n",
    ],
)
def test_round_trip_variants(config):
    settings = parse_hermes_config(config)
    assert parse_hermes_config(settings_to_yaml(settings)) == settings


def test_export_never_contains_an_api_key():
    settings = parse_hermes_config(FULL_CONFIG)
    settings.api_key = "sk-main-secret-456"
    exported = settings_to_yaml(settings)
    assert "sk-secret-value-123" not in exported
    assert "sk-main-secret-456" not in exported
    assert "api_key" not in exported
    assert "sk-secret" not in repr(settings)


def test_export_uses_hermes_names():
    exported = yaml.safe_load(settings_to_yaml(parse_hermes_config(FULL_CONFIG)))
    assert exported["model"] == {"default": "anthropic/claude-sonnet-4", "provider": "openrouter", "context_length": 200000}
    assert exported["compression"] == {
        "enabled": True,
        "threshold": 0.65,
        "target_ratio": 0.3,
        "protect_first_n": 4,
        "protect_last_n": 12,
        "abort_on_summary_failure": True,
    }
    aux = exported["auxiliary"]["compression"]
    assert aux["provider"] == "openai" and aux["model"] == "gpt-4o-mini"
    assert aux["timeout"] == 45 and aux["context_length"] == 128000


def test_edited_settings_export():
    settings = HermesSettings(model="anthropic/claude-sonnet-4-5", provider="anthropic", threshold_percent=0.6)
    exported = yaml.safe_load(settings_to_yaml(settings))
    assert exported["model"]["default"] == "claude-sonnet-4-5"
    assert exported["compression"]["threshold"] == 0.6


def test_load_from_disk(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(FULL_CONFIG, encoding="utf-8")
    assert load_hermes_config(path) == parse_hermes_config(FULL_CONFIG)


def test_bytes_with_bom_are_accepted():
    assert parse_hermes_config(b"\xef\xbb\xbfcompression:\n  threshold: 0.6\n").threshold_percent == 0.6


# -- errors -------------------------------------------------------------------------------


def test_malformed_yaml_reports_the_line():
    text = "compression:\n  threshold: 0.5\n  protect_last_n: [1, 2\nmodel: x\n"
    # The unclosed list on line 3 is detected where the parser trips over it: line 4.
    with pytest.raises(HermesConfigError, match=r"not valid YAML: line 4, column 6: expected ','"):
        parse_hermes_config(text)
    with pytest.raises(HermesConfigError, match="line 1, column 5: mapping values are not allowed"):
        parse_hermes_config("a: b: c\n")


def test_tab_indentation_error_names_line_two():
    with pytest.raises(HermesConfigError, match="line 2"):
        parse_hermes_config("compression:\n\tthreshold: 0.5\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("compression:\n  threshold: high\n", "compression.threshold must be a number, got 'high'"),
        ("compression:\n  threshold: true\n", "compression.threshold must be a number"),
        ("compression:\n  protect_first_n: three\n", "compression.protect_first_n must be an integer"),
        ("compression:\n  protect_last_n: [1]\n", "compression.protect_last_n must be an integer, got list"),
        ("compression: 5\n", "compression must be a mapping"),
        ("auxiliary:\n  compression: yes\n", "auxiliary.compression must be a mapping"),
        ("auxiliary:\n  compression:\n    timeout: soon\n", "auxiliary.compression.timeout must be a number"),
        ("auxiliary:\n  compression:\n    timeout: 0\n", "timeout must be a positive number"),
        ("auxiliary:\n  compression:\n    extra_body: [1]\n", "extra_body must be a mapping"),
        ("model:\n  context_length: -5\n", "model.context_length must be a positive number"),
        ("model:\n  context_length: big\n", "model.context_length must be an integer"),
        ("model:\n  default: {a: 1}\n", "model.default must be a string"),
        ("- just\n- a list\n", "must be a mapping of sections, got list"),
        ("42\n", "must be a mapping of sections"),
    ],
)
def test_wrong_types_are_named(text, message):
    with pytest.raises(HermesConfigError, match=message.replace("[", r"\[")):
        parse_hermes_config(text)


def test_missing_file(tmp_path):
    with pytest.raises(HermesConfigError, match="config file not found"):
        load_hermes_config(tmp_path / "nope.yaml")


def test_non_utf8_bytes():
    with pytest.raises(HermesConfigError, match="not UTF-8"):
        parse_hermes_config(b"compression:\n  threshold: \xff\n")


@pytest.mark.parametrize(
    ("settings", "provider", "default", "summary_provider", "summary_name"),
    [
        # Settings made in the dashboard: litellm strings, provider left at "auto".
        (HermesSettings(model="openrouter/anthropic/claude-sonnet-4-5"), "openrouter", "anthropic/claude-sonnet-4-5",
         "auto", ""),
        (HermesSettings(model="anthropic/claude-sonnet-4-5", summary_model="anthropic/claude-haiku-4-5"),
         "anthropic", "claude-sonnet-4-5", "auto", "claude-haiku-4-5"),
        (HermesSettings(model="openai/qwen3", api_base="http://127.0.0.1:8000/v1"), "custom", "qwen3", "auto", ""),
        (HermesSettings(model="gpt-4o", summary_model="gpt-4o-mini"), "auto", "gpt-4o", "auto", "gpt-4o-mini"),
        # A summary model on another route than the main model gets its own provider.
        (HermesSettings(model="anthropic/claude-sonnet-4-5", summary_model="openrouter/google/gemini-2.5-flash"),
         "anthropic", "claude-sonnet-4-5", "openrouter", "google/gemini-2.5-flash"),
    ],
)
def test_export_of_litellm_settings_names_the_hermes_provider(settings, provider, default, summary_provider, summary_name):
    exported = yaml.safe_load(settings_to_yaml(settings))
    assert exported["model"]["provider"] == provider
    assert exported["model"]["default"] == default
    aux = exported["auxiliary"]["compression"]
    assert (aux["provider"], aux["model"]) == (summary_provider, summary_name)
    loaded = parse_hermes_config(settings_to_yaml(settings))
    assert loaded.model == settings.model
    assert loaded.summary_model == settings.summary_model
    assert loaded.api_base == settings.api_base


def test_v0_17_and_v0_18_keys_round_trip():
    settings = parse_hermes_config(
        "model:\n  default: gpt-5.5\n  provider: openai-codex\n  max_tokens: 32768\n"
        "compression:\n  threshold: 0.6\n  codex_gpt55_autoraise: false\ntimezone: Europe/Amsterdam\n"
    )
    assert settings.max_tokens == 32_768 and settings.timezone == "Europe/Amsterdam"
    assert settings.compressor_kwargs()["max_tokens"] == 32_768
    assert settings.effective_threshold_percent() == 0.6  # the autoraise is off
    assert settings.wall_clock()().utcoffset() is not None
    again = parse_hermes_config(settings_to_yaml(settings))
    assert (again.max_tokens, again.timezone, again.codex_gpt55_autoraise) == (32_768, "Europe/Amsterdam", False)


def test_gpt_5_5_on_codex_compresses_at_0_85_unless_turned_off():
    on = parse_hermes_config("model:\n  default: gpt-5.5-mini\n  provider: openai-codex\ncompression:\n  threshold: 0.5\n")
    assert on.effective_threshold_percent() == 0.85
    other = parse_hermes_config("model:\n  default: gpt-5.5\n  provider: openai\ncompression:\n  threshold: 0.5\n")
    assert other.effective_threshold_percent() == 0.5


@pytest.mark.parametrize("value", [True, 0, -4, "n/a"])
def test_a_bad_max_tokens_is_ignored_with_a_warning(value):
    settings = parse_hermes_config(f"model:\n  default: gpt-4o\n  max_tokens: {value!r}\n".replace("'", ""))
    assert settings.max_tokens is None
    assert any("model.max_tokens" in warning for warning in settings.warnings)


def test_a_plain_string_model_has_no_reserve_and_a_bad_timezone_is_refused():
    assert parse_hermes_config("model: gpt-4o\n").max_tokens is None
    with pytest.raises(HermesConfigError, match="timezone"):
        parse_hermes_config("timezone: [1, 2]\n")


# --- keys of v0.18.1 and v0.19.0 ----------------------------------------------------------------------


def test_the_v0_18_1_and_v0_19_0_keys_are_read_and_written_back():
    text = (
        "model:\n  default: gpt-4o\n  provider: openai\n"
        "compression:\n  threshold: 0.5\n  codex_app_server_auto: hermes\n  codex_gpt55_autoraise_notice: false\n"
        "auxiliary:\n  transient_retries: 4\n  compression:\n    reasoning_effort: low\n"
    )
    settings = parse_hermes_config(text)
    assert settings.transient_retries == 4 and settings.reasoning_effort == "low"
    assert settings.codex_app_server_auto == "hermes" and settings.codex_gpt55_autoraise_notice is False
    kwargs = settings.summarizer_kwargs()
    assert kwargs["max_retries"] == 4 and kwargs["extra_body"] == {"reasoning_effort": "low"}
    again = parse_hermes_config(settings_to_yaml(settings))
    assert (again.transient_retries, again.reasoning_effort, again.codex_app_server_auto,
            again.codex_gpt55_autoraise_notice) == (4, "low", "hermes", False)
    # The defaults stay out of the snippet.
    plain = settings_to_yaml(parse_hermes_config("model: gpt-4o\n"))
    assert "transient_retries" not in plain and "codex_app_server_auto" not in plain and "reasoning_effort" not in plain
    assert parse_hermes_config("model: gpt-4o\n").summarizer_kwargs()["max_retries"] == 2


@pytest.mark.parametrize(("text", "fragment"), [
    ("compression:\n  codex_app_server_auto: sometimes\n", "codex_app_server_auto must be one of native, hermes, off"),
    ("auxiliary:\n  transient_retries: -1\n", "auxiliary.transient_retries must be 0 or more"),
    ("auxiliary:\n  transient_retries: many\n", "auxiliary.transient_retries must be an integer"),
])
def test_bad_new_keys_are_named(text, fragment):
    with pytest.raises(HermesConfigError, match=fragment):
        parse_hermes_config(text)


def test_a_low_threshold_is_raised_by_v0_19_0_below_512k():
    settings = parse_hermes_config("model:\n  default: gpt-4o\n  context_length: 128000\ncompression:\n  threshold: 0.5\n")
    assert settings.threshold_percent == 0.5  # read as written
    config = CompressorConfig(**settings.compressor_kwargs())
    assert (config.effective_threshold_percent, config.threshold_tokens) == (0.75, 96_000)
    older = CompressorConfig(**settings.compressor_kwargs(), profile="v0.18.1")
    assert (older.effective_threshold_percent, older.threshold_tokens) == (0.5, 64_000)


def test_the_exported_model_prefers_what_was_typed_then_the_log_then_the_sidebar():
    from core.hermes_config import exported_model

    assert exported_model("gpt-5.2-codex", "", "gpt-4o") == ("gpt-5.2-codex",
                                                            "the model the transcript was written with")
    assert exported_model("gpt-5.2-codex", " openai/gpt-5 ", "gpt-4o")[0] == "openai/gpt-5"
    assert exported_model("", None, "gpt-4o")[0] == "gpt-4o"
    assert exported_model(None, None, "")[0] is None
