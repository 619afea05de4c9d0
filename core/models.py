"""Model metadata (context windows, prices, tokenizer encodings) without importing litellm.

litellm ships its model table as a JSON file inside the package. Reading that file directly
costs a few milliseconds, whereas ``import litellm`` costs several seconds, so the dashboard
and the CLI use this module for everything that is only a lookup.

A model name may be given the way litellm takes it: either a bare table key (``gpt-4o``,
``claude-sonnet-4-5``) or with a provider prefix (``openai/gpt-4o``,
``anthropic/claude-sonnet-4-5``, ``ollama/llama3``). A prefixed name that is not itself a
table key resolves to the bare key only when that entry belongs to the same provider, so a
self-hosted ``hosted_vllm/gpt-4o`` never inherits OpenAI's prices. OpenRouter names
(``openrouter/anthropic/claude-sonnet-4``) resolve to the vendor's entry, since OpenRouter
passes the vendor's model and list price through; ``ollama_chat/x`` resolves like ``ollama/x``.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

MODEL_TABLE_FILENAME = "model_prices_and_context_window_backup.json"

# Entries in the table that describe its own schema rather than a model.
_NON_MODEL_KEYS = frozenset({"sample_spec"})

# OpenAI families tokenized with o200k_base; every other model falls back to cl100k_base.

# Routers that pass the vendor's own model (and list price) through: "<router>/<vendor>/<model>".
_ROUTERS = frozenset({"openrouter"})
# Prefixes that name the same models as another prefix in the table: litellm's ollama_chat,
# and the vendor names OpenRouter uses where litellm's differ.
_PROVIDER_ALIASES = {"ollama_chat": "ollama", "google": "gemini", "x-ai": "xai", "mistralai": "mistral"}

ModelTable = Mapping[str, Mapping[str, Any]]


class ModelTableError(RuntimeError):
    """litellm's bundled model table could not be found or read."""


def model_table_path() -> Path:
    """Where the installed litellm package keeps its bundled model table."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        raise ModelTableError("litellm is not installed, so its model table is unavailable")
    for location in spec.submodule_search_locations:
        candidate = Path(location) / MODEL_TABLE_FILENAME
        if candidate.is_file():
            return candidate
    raise ModelTableError(f"{MODEL_TABLE_FILENAME} was not found inside the installed litellm package")


def load_model_table(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Read a model table; with no path, litellm's bundled one (read once, then cached)."""
    if path is None:
        return _bundled_table()
    return _read_table(Path(path))


@lru_cache(maxsize=1)
def _bundled_table() -> dict[str, dict[str, Any]]:
    return _read_table(model_table_path())


def _read_table(path: Path) -> dict[str, dict[str, Any]]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelTableError(f"cannot read model table {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ModelTableError(f"model table {path} is not valid JSON (line {exc.lineno}): {exc.msg}") from exc
    if not isinstance(raw, dict):
        raise ModelTableError(f"model table {path} must be a JSON object keyed by model name")
    return {
        name: entry
        for name, entry in raw.items()
        if isinstance(entry, dict) and name not in _NON_MODEL_KEYS
    }


def _table(table: ModelTable | None) -> ModelTable:
    return _bundled_table() if table is None else table


def model_entry(model: str, *, table: ModelTable | None = None) -> dict[str, Any] | None:
    """The table entry for a litellm model name, or None when the table does not know it."""
    if not isinstance(model, str) or not model.strip():
        return None
    entries = _table(table)
    name = model.strip()
    for candidate in (name, name.lower()):
        entry = entries.get(candidate)
        if entry is not None:
            return dict(entry)
    if "/" in name:
        provider, _, bare = name.partition("/")
        for candidate in (bare, bare.lower()):
            entry = entries.get(candidate)
            if entry is not None and _same_provider(provider, entry.get("litellm_provider")):
                return dict(entry)
        provider = provider.lower()
        if provider in _PROVIDER_ALIASES:
            return model_entry(f"{_PROVIDER_ALIASES[provider]}/{bare}", table=table)
        if provider in _ROUTERS:
            # "openrouter/anthropic/claude-sonnet-4" is Anthropic's model at Anthropic's list price.
            return model_entry(bare, table=table)
    return None


def _same_provider(prefix: str, entry_provider: Any) -> bool:
    # The table files Gemini-on-Vertex under "vertex_ai-language-models" and so on, so the
    # prefix only has to match up to the first dash.
    if not isinstance(entry_provider, str):
        return False
    prefix = prefix.lower()
    entry_provider = entry_provider.lower()
    return entry_provider == prefix or entry_provider.startswith(prefix + "-")


def list_chat_models(*, table: ModelTable | None = None, modes: tuple[str, ...] = ("chat",)) -> list[str]:
    """Every chat model in the table (entries of one of ``modes``: ``"responses"`` adds the models
    served only through the Responses API, such as the Codex ones), sorted by name."""
    return sorted(name for name, entry in _table(table).items() if entry.get("mode") in modes)


# Where a table entry names no provider (the table's own entries always do).
UNKNOWN_PROVIDER = "other"


def chat_models_by_provider(*, table: ModelTable | None = None,
                            modes: tuple[str, ...] = ("chat",)) -> dict[str, list[str]]:
    """:func:`list_chat_models` grouped by the provider the table files each under
    (``litellm_provider``: ``openai``, ``azure``, ``bedrock_converse``, ...), providers and models
    sorted by name."""
    entries = _table(table)
    grouped: dict[str, list[str]] = {}
    for name in list_chat_models(table=entries, modes=modes):
        provider = entries[name].get("litellm_provider")
        grouped.setdefault(provider if isinstance(provider, str) and provider else UNKNOWN_PROVIDER, []).append(name)
    return dict(sorted(grouped.items()))


def context_window(model: str, *, table: ModelTable | None = None) -> int | None:
    """The model's input window in tokens (``max_input_tokens``; ``max_tokens`` only when that is absent)."""
    entry = model_entry(model, table=table)
    if entry is None:
        return None
    value = entry.get("max_input_tokens")
    if value is None:
        value = entry.get("max_tokens")
    return _positive_int(value)


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and value > 0 and float(value).is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return None


def model_prices(model: str, *, table: ModelTable | None = None) -> tuple[float, float] | None:
    """``(input_cost_per_token, output_cost_per_token)`` in USD, or None when either is unknown."""
    entry = model_entry(model, table=table)
    if entry is None:
        return None
    input_cost = _price(entry.get("input_cost_per_token"))
    output_cost = _price(entry.get("output_cost_per_token"))
    if input_cost is None or output_cost is None:
        return None
    return input_cost, output_cost


def _price(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)



def output_limit(model: str, *, table: ModelTable | None = None) -> int | None:
    """The model's output-token limit (``max_output_tokens``; the older ``max_tokens`` key when the
    entry also names an input window, since it then means the output)."""
    entry = model_entry(model, table=table)
    if entry is None:
        return None
    value = entry.get("max_output_tokens")
    if value is None and entry.get("max_input_tokens") is not None:
        value = entry.get("max_tokens")
    return _positive_int(value)
