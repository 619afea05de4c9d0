"""core.models: lookups in litellm's bundled model table, read without importing litellm."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core import models
from core.models import (
    ModelTableError,
    context_window,
    list_chat_models,
    load_model_table,
    model_entry,
    model_prices,
    model_table_path,
)
from core.tokens import encoding_name_for_model


@pytest.fixture(scope="module")
def raw_table() -> dict:
    # The test's own independent read of the same file, to check the module's arithmetic against.
    return json.loads(model_table_path().read_text(encoding="utf-8"))


def test_table_path_is_inside_the_installed_litellm_package():
    path = model_table_path()
    assert path.name == "model_prices_and_context_window_backup.json"
    assert path.parent.name == "litellm"
    assert path.is_file()


def test_reading_the_table_does_not_import_litellm():
    code = (
        "import sys; from core.models import list_chat_models, context_window; "
        "assert len(list_chat_models()) > 1000; context_window('gpt-4o'); "
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bundled_table_is_read_once_and_cached():
    assert load_model_table() is load_model_table()


def test_list_chat_models_is_exactly_the_chat_entries(raw_table):
    expected = sorted(k for k, v in raw_table.items() if isinstance(v, dict) and v.get("mode") == "chat")
    listed = list_chat_models()
    assert listed == expected
    assert "gpt-4o" in listed
    assert "text-embedding-3-small" not in listed  # an embedding model
    assert "sample_spec" not in listed


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4o-mini", "claude-sonnet-4-5", "ollama/llama3", "gpt-4.1"])
def test_context_window_is_max_input_tokens(raw_table, model):
    assert context_window(model) == raw_table[model]["max_input_tokens"]


def test_context_window_is_not_the_output_limit(raw_table):
    entry = raw_table["gpt-4o"]
    assert entry["max_output_tokens"] != entry["max_input_tokens"]
    assert context_window("gpt-4o") == entry["max_input_tokens"]


@pytest.mark.parametrize(
    ("prefixed", "bare"),
    [("openai/gpt-4o", "gpt-4o"), ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"), ("OpenAI/GPT-4o", "gpt-4o")],
)
def test_provider_prefix_resolves_to_the_same_providers_entry(raw_table, prefixed, bare):
    assert context_window(prefixed) == raw_table[bare]["max_input_tokens"]
    assert model_prices(prefixed) == (raw_table[bare]["input_cost_per_token"], raw_table[bare]["output_cost_per_token"])


def test_prefix_of_another_provider_does_not_borrow_prices():
    # A self-hosted server that calls its model "gpt-4o" is not billed at OpenAI's prices.
    assert model_prices("hosted_vllm/gpt-4o") is None
    assert context_window("hosted_vllm/gpt-4o") is None


@pytest.mark.parametrize("model", ["no-such-model-xyz", "openai/no-such-model", "", "   "])
def test_unknown_models_give_none(model):
    assert context_window(model) is None
    assert model_prices(model) is None
    assert model_entry(model) is None


def test_model_prices_are_the_json_values(raw_table):
    for name in ("gpt-4o", "gpt-4o-mini", "claude-sonnet-4-5", "gpt-5"):
        entry = raw_table[name]
        assert model_prices(name) == (entry["input_cost_per_token"], entry["output_cost_per_token"])


def test_free_models_have_price_zero_not_none(raw_table):
    assert raw_table["ollama/llama3"]["input_cost_per_token"] == 0
    assert model_prices("ollama/llama3") == (0.0, 0.0)


def _write_table(tmp_path: Path, table: dict) -> dict:
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    return load_model_table(path)


def test_max_tokens_is_used_only_when_max_input_tokens_is_absent(tmp_path):
    table = _write_table(
        tmp_path,
        {
            "old-model": {"max_tokens": 4096, "mode": "chat"},
            "both": {"max_tokens": 4096, "max_input_tokens": 32000, "mode": "chat"},
            "neither": {"mode": "chat"},
            "sample_spec": {"mode": "chat", "max_input_tokens": "docs"},
        },
    )
    assert context_window("old-model", table=table) == 4096
    assert context_window("both", table=table) == 32000
    assert context_window("neither", table=table) is None
    assert list_chat_models(table=table) == ["both", "neither", "old-model"]


def test_incomplete_prices_are_unknown(tmp_path):
    table = _write_table(
        tmp_path,
        {
            "in-only": {"input_cost_per_token": 1e-6, "mode": "chat"},
            "bad": {"input_cost_per_token": "cheap", "output_cost_per_token": 1e-6, "mode": "chat"},
        },
    )
    assert model_prices("in-only", table=table) is None
    assert model_prices("bad", table=table) is None


def test_broken_table_file_gives_a_clear_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelTableError, match="not valid JSON"):
        load_model_table(path)
    with pytest.raises(ModelTableError, match="cannot read"):
        load_model_table(tmp_path / "missing.json")
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ModelTableError, match="JSON object"):
        load_model_table(path)


def test_missing_litellm_gives_a_clear_error(monkeypatch):
    monkeypatch.setattr(models.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelTableError, match="litellm is not installed"):
        model_table_path()


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("openai/gpt-4o-2024-08-06", "o200k_base"),
        ("azure/gpt-4.1-nano", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5-mini", "o200k_base"),
        ("openrouter/openai/gpt-5.1", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini-2025-04-16", "o200k_base"),
        ("chatgpt-4o-latest", "o200k_base"),
        ("gpt-5-codex", "o200k_base"),
        ("gpt-5.2-codex", "o200k_base"),
        ("codex-mini-latest", "o200k_base"),
        ("gpt-oss-120b", "o200k_base"),
        ("openai/gpt-oss-20b", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("claude-sonnet-4-5", "cl100k_base"),
        ("ollama/llama3", "cl100k_base"),
        ("omni-moderation-latest", "cl100k_base"),
        ("", "cl100k_base"),
    ],
)
def test_tokenizer_encoding(model, encoding):
    assert encoding_name_for_model(model) == encoding


@pytest.mark.parametrize(
    ("routed", "vendor_key"),
    [
        ("openrouter/anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
        ("openrouter/openai/gpt-4o", "gpt-4o"),
        ("openrouter/google/gemini-2.5-flash", "gemini/gemini-2.5-flash"),
        ("ollama_chat/llama3.1", "ollama/llama3.1"),
    ],
)
def test_router_and_alias_names_resolve_to_the_vendor_entry(raw_table, routed, vendor_key):
    entry = raw_table[vendor_key]
    assert context_window(routed) == entry["max_input_tokens"]
    assert model_prices(routed) == (entry["input_cost_per_token"], entry["output_cost_per_token"])


def test_router_with_an_unknown_vendor_model_is_unknown():
    assert model_prices("openrouter/nobody/nothing-1") is None
    assert context_window("openrouter/anthropic/gpt-4o") is None  # wrong vendor for that model


def test_responses_only_models_are_listed_when_asked(tmp_path):
    table = _write_table(
        tmp_path,
        {"chat-model": {"mode": "chat"}, "codex-model": {"mode": "responses"}, "embedder": {"mode": "embedding"}},
    )
    assert list_chat_models(table=table) == ["chat-model"]
    assert list_chat_models(table=table, modes=("chat", "responses")) == ["chat-model", "codex-model"]


def test_chat_models_are_grouped_under_the_provider_the_table_names(tmp_path):
    table = _write_table(
        tmp_path,
        {
            "b-model": {"mode": "chat", "litellm_provider": "zeta"},
            "azure/a-model": {"mode": "chat", "litellm_provider": "azure"},
            "a-model": {"mode": "responses", "litellm_provider": "zeta"},
            "nameless": {"mode": "chat"},
            "embedder": {"mode": "embedding", "litellm_provider": "zeta"},
        },
    )
    assert models.chat_models_by_provider(table=table) == {
        "azure": ["azure/a-model"], models.UNKNOWN_PROVIDER: ["nameless"], "zeta": ["b-model"]}
    grouped = models.chat_models_by_provider(table=table, modes=("chat", "responses"))
    assert list(grouped) == ["azure", "other", "zeta"] and grouped["zeta"] == ["a-model", "b-model"]
