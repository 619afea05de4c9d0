"""Token estimators: the reference's rough heuristics and exact tiktoken counts.

The ``hermes`` estimator reproduces the reference's numbers exactly (it drives every decision by
default so previews match Hermes). The ``tiktoken`` estimator counts exactly with the model's
encoding; its encoding files come from the installed litellm package, so nothing is downloaded.
Exact counts are cached per text, so re-analysing with other parameters never re-tokenizes.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from core import profiles as P
from core.message_view import IMAGE_PART_TYPES
from core.phases.content import message_budget_tokens

__all__ = [
    "estimate_tokens_rough",
    "estimate_messages_tokens_rough",
    "message_rough_chars",
    "message_budget_tokens",
    "TokenCounter",
    "get_counter",
    "encoding_name_for_model",
    "ensure_tiktoken_cache",
]


def estimate_tokens_rough(text: str | None) -> int:
    return (len(text) + 3) // 4 if text else 0


def _shadow(message: dict[str, Any]) -> dict[str, Any]:
    shadow: dict[str, Any] = {}
    for key, value in message.items():
        if key == "_anthropic_content_blocks":
            continue
        if key == "content":
            if isinstance(value, list):
                value = [
                    {"type": part.get("type"), "image": "[stripped]"}
                    if isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES
                    else part
                    for part in value
                ]
            elif isinstance(value, dict) and value.get("_multimodal"):
                value = value.get("text_summary", "")
        shadow[key] = value
    return shadow


def _image_count(message: dict[str, Any]) -> int:
    count = 0
    content = message.get("content")
    if isinstance(content, list):
        count += sum(1 for p in content if isinstance(p, dict) and p.get("type") in IMAGE_PART_TYPES)
    blocks = message.get("_anthropic_content_blocks")
    if isinstance(blocks, list):
        count += sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "image")
    if isinstance(content, dict) and content.get("_multimodal"):
        inner = content.get("content")
        if isinstance(inner, list):
            count += sum(1 for p in inner if isinstance(p, dict) and p.get("type") in ("image", "image_url"))
    return count


# ``len(repr(s))`` of long strings, remembered per string: strings are immutable, and the same
# content objects are estimated again and again (original list, turns, output, every re-analysis).
_REPR_LEN_CACHE: dict[str, int] = {}
_REPR_CACHE_MIN_CHARS = 256
_REPR_CACHE_MAX_CHARS = 64_000_000
_repr_cache_chars = 0

# Printable ASCII except the two quotes and the backslash: the characters ``repr`` writes as
# themselves without affecting the choice of quotes.
_REPR_PLAIN_BYTES = bytes(c for c in range(0x20, 0x7F) if c not in b"'\"\\")


def _ascii_repr_len(value: str) -> int:
    r"""``len(repr(value))`` of an ASCII string, counted from its few special characters.

    Python's rules: the string is wrapped in two quotes; ``\\``, ``\n``, ``\r`` and ``\t`` take two
    characters, other control characters and DEL four (``\xhh``); single quotes are used unless
    the text has ``'`` and no ``"``, and only when it has both is each ``'`` escaped. Dropping
    the plain characters leaves a short byte string to count them in, which is several times
    faster than building the repr.
    """
    special = value.encode("ascii").translate(None, _REPR_PLAIN_BYTES)
    length = len(value) + 2
    if not special:
        return length
    squote = special.count(39)  # '
    dquote = special.count(34)  # "
    two = special.count(92) + special.count(10) + special.count(13) + special.count(9)  # \ \n \r \t
    length += two + 3 * (len(special) - squote - dquote - two)
    if squote and dquote:
        length += squote
    return length


def _str_repr_len(value: str) -> int:
    global _repr_cache_chars
    if len(value) < _REPR_CACHE_MIN_CHARS:
        return len(repr(value))
    cached = _REPR_LEN_CACHE.get(value)
    if cached is None:
        cached = _ascii_repr_len(value) if value.isascii() else len(repr(value))
        if _repr_cache_chars + len(value) > _REPR_CACHE_MAX_CHARS:
            _REPR_LEN_CACHE.clear()
            _repr_cache_chars = 0
        _REPR_LEN_CACHE[value] = cached
        _repr_cache_chars += len(value)
    return cached


def repr_len(value: Any, _depth: int = 0) -> int:
    """``len(repr(value))`` for plain JSON-like data, without building the whole repr.

    Exactly Python's container repr rules (``{k: v, ...}``, ``[a, b]``, ``(a,)``); any other
    type, or a subclass with its own repr, falls back to ``len(repr(value))``.
    """
    kind = type(value)
    if kind is str:
        return _str_repr_len(value)
    if _depth > 500 or kind not in (dict, list, tuple):
        return len(repr(value))
    if kind is list and len(value) < 8 and _depth > 0:
        # Small nested containers: one C-level repr beats walking them in Python.
        return len(repr(value))
    if kind is dict:
        if not value:
            return 2
        return 2 * len(value) + sum(repr_len(k, _depth + 1) + 2 + repr_len(v, _depth + 1) for k, v in value.items())
    if kind is list:
        if not value:
            return 2
        return 2 * len(value) + sum(repr_len(v, _depth + 1) for v in value)
    if kind is tuple:
        if len(value) == 1:
            return 3 + repr_len(value[0], _depth + 1)
        if not value:
            return 2
        return 2 * len(value) + sum(repr_len(v, _depth + 1) for v in value)
    if value is None:
        return 4
    return len(repr(value))


def message_rough_chars(message: Any) -> tuple[int, int]:
    """``(len(str(shadow)), image_parts)`` of one message, as the rough estimator sees it."""
    if not isinstance(message, dict):
        return len(str(message)), 0
    if type(message) is dict and "_anthropic_content_blocks" not in message:
        content = message.get("content")
        if type(content) is str or not isinstance(content, (list, dict)):
            # Fast path: the shadow is an identical copy of the message.
            light, chars = _light(message)
            return len(repr(light)) + chars, 0
    return _dict_repr_len(_shadow(message)), _image_count(message)


def _light(message: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """``(light, chars)`` with ``len(repr(message)) == len(repr(light)) + chars``.

    ``light`` is ``message`` itself, or a copy (same keys, same order) in which a long content is
    replaced by ``""`` and a list of plain tool calls by ``None``, their repr lengths being
    counted apart: long strings from their remembered length, tool calls without building the
    repr of every small dict (much of the cost of a whole-message repr).
    """
    light = message
    chars = 0
    content = message.get("content")
    if type(content) is str and len(content) >= _REPR_CACHE_MIN_CHARS:
        light = message.copy()
        light["content"] = ""
        chars += _str_repr_len(content) - 2
    calls = message.get("tool_calls")
    if type(calls) is list and calls:
        calls_chars = _calls_repr_len(calls)
        if calls_chars is not None:
            if light is message:
                light = message.copy()
            light["tool_calls"] = None
            chars += calls_chars - 4
    return light, chars


# Values whose repr cannot contain another object's (no recursion guard is involved).
_LEAVES = frozenset({str, int, float, bool, type(None)})
# ``len(repr(key))`` of the few dict keys tool calls use ("id", "type", "function", ...).
_KEY_REPR_LEN: dict[str, int] = {}


def _key_repr_len(key: Any) -> int | None:
    if type(key) is str:
        known = _KEY_REPR_LEN.get(key)
        if known is None:
            known = len(repr(key))
            if len(_KEY_REPR_LEN) < 1_000:
                _KEY_REPR_LEN[key] = known
        return known
    return len(repr(key)) if type(key) in _LEAVES else None


def _calls_repr_len(calls: list[Any]) -> int | None:
    """``len(repr(calls))`` for a list of dicts whose values are leaves or dicts of leaves; else None.

    Python's rules: ``[a, b]`` and ``{k: v, ...}``, so a list of n items adds 2n characters to
    its items' reprs and a dict of n items 4n to its keys' and values' (2 for an empty one).
    """
    leaves = _LEAVES
    total = 2 * len(calls) if calls else 2
    for call in calls:
        if type(call) is not dict:
            return None
        total += 4 * len(call) if call else 2
        for key, value in call.items():
            key_len = _key_repr_len(key)
            if key_len is None:
                return None
            total += key_len
            kind = type(value)
            if kind is str:
                total += len(repr(value)) if len(value) < _REPR_CACHE_MIN_CHARS else _str_repr_len(value)
            elif kind is dict:
                total += 4 * len(value) if value else 2
                for inner_key, inner in value.items():
                    key_len = _key_repr_len(inner_key)
                    if key_len is None:
                        return None
                    total += key_len
                    if type(inner) is str:
                        total += len(repr(inner)) if len(inner) < _REPR_CACHE_MIN_CHARS else _str_repr_len(inner)
                    elif type(inner) in leaves:
                        total += len(repr(inner))
                    else:
                        return None
            elif kind in leaves:
                total += len(repr(value))
            else:
                return None
    return total


def _dict_repr_len(message: dict[str, Any]) -> int:
    content = message.get("content")
    if type(content) is str and len(content) >= _REPR_CACHE_MIN_CHARS:
        # One C-level repr of the message without its (long) content, plus the remembered
        # length of the content's repr: same key order, same separators, same total.
        light = message.copy()
        light["content"] = ""
        return len(repr(light)) - 2 + _str_repr_len(content)
    if type(content) is list:
        return repr_len(message)
    return len(repr(message))


# Messages whose shadow is the message itself are measured together: ``repr`` of a list is its
# items' reprs joined by ", " inside "[]", so one C-level call (per chunk, to bound the
# temporary string) replaces a Python call per message.
_CHUNK = 256


def estimate_messages_tokens_rough(messages: Iterable[Any]) -> int:
    """``(sum of len(str(message)) + 3) // 4 + 1500 per image``: the ceiling applies once, to the sum."""
    chars = 0
    images = 0
    chunk: list[Any] = []
    for message in messages:
        if type(message) is dict and "_anthropic_content_blocks" not in message:
            content = message.get("content")
            if type(content) is str or not isinstance(content, (list, dict)):
                light, extra = _light(message)
                chars += extra
                chunk.append(light)
                if len(chunk) == _CHUNK:
                    chars += len(repr(chunk)) - 2 * _CHUNK
                    chunk = []
                continue
        c, i = message_rough_chars(message)
        chars += c
        images += i
    if chunk:
        chars += len(repr(chunk)) - 2 * len(chunk)
    return (chars + 3) // 4 + P.ROUGH_IMAGE_TOKENS * images


# --- exact counting -----------------------------------------------------------------------------


def ensure_tiktoken_cache() -> str | None:
    """Point tiktoken at the encoding files shipped inside litellm, without importing litellm."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return os.environ["TIKTOKEN_CACHE_DIR"]
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "litellm_core_utils" / "tokenizers"
        if candidate.is_dir():
            os.environ["TIKTOKEN_CACHE_DIR"] = str(candidate)
            return str(candidate)
    return None


_O200K_MARKERS = ("gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4", "chatgpt-4o", "gpt-oss")


def encoding_name_for_model(model: str | None) -> str:
    """``o200k_base`` for gpt-4o / 4.1 / 5 / o-series, ``cl100k_base`` otherwise."""
    name = (model or "").lower().rsplit("/", 1)[-1]
    if any(name.startswith(marker) for marker in _O200K_MARKERS):
        return "o200k_base"
    return "cl100k_base"


@lru_cache(maxsize=4)
def _encoding(name: str):
    ensure_tiktoken_cache()
    import tiktoken

    return tiktoken.get_encoding(name)


# Per-message framing used by OpenAI chat models (role + separators), and a flat image cost
# (litellm's rule for a low-detail image; high-detail images are sized by their tiles).
MESSAGE_FRAME_TOKENS = 3
IMAGE_TOKENS_LOW = 85


class TokenCounter:
    """Exact counts with one encoding, cached per distinct text."""

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        self.encoding_name = encoding_name
        self._encoding = _encoding(encoding_name)
        self._cache: dict[str, int] = {}

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        cached = self._cache.get(text)
        if cached is None:
            cached = len(self._encoding.encode_ordinary(text))
            self._cache[text] = cached
        return cached

    def count_texts(self, texts: Sequence[str]) -> list[int]:
        """Count many texts at once; only the ones never seen before are encoded (in a batch)."""
        cache = self._cache
        missing = list({t for t in texts if t and t not in cache})
        if missing:
            for text, tokens in zip(
                missing, self._encoding.encode_ordinary_batch(missing, num_threads=os.cpu_count() or 1), strict=True
            ):
                cache[text] = len(tokens)
        return [cache[t] if t else 0 for t in texts]

    def message_parts(self, message: Any) -> dict[str, int]:
        """Tokens of one message split into categories (text, tool calls, images, overhead)."""
        parts = {"text": 0, "tool_calls": 0, "images": 0, "overhead": MESSAGE_FRAME_TOKENS}
        if not isinstance(message, dict):
            parts["text"] = self.count_text(str(message))
            return parts
        content = message.get("content")
        if isinstance(content, str):
            parts["text"] += self.count_text(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    parts["text"] += self.count_text(part)
                elif isinstance(part, dict):
                    if part.get("type") in IMAGE_PART_TYPES:
                        parts["images"] += IMAGE_TOKENS_LOW
                    else:
                        text = part.get("text")
                        parts["text"] += self.count_text(text if isinstance(text, str) else "")
        elif content is not None:
            parts["text"] += self.count_text(str(content))
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                function = call.get("function") or {}
                if isinstance(function, dict):
                    args = function.get("arguments", "")
                    parts["tool_calls"] += self.count_text(args if isinstance(args, str) else str(args))
                    parts["tool_calls"] += self.count_text(str(function.get("name") or ""))
        return parts

    def count_message(self, message: Any) -> int:
        return sum(self.message_parts(message).values())

    def count_messages(self, messages: Iterable[Any]) -> int:
        return sum(self.count_message(m) for m in messages)


@lru_cache(maxsize=8)
def get_counter(encoding_name: str = "cl100k_base") -> TokenCounter:
    """A shared counter per encoding, so its cache lives as long as the process."""
    return TokenCounter(encoding_name)


class RoughEstimator:
    """The reference heuristics (decisions match Hermes exactly)."""

    name = "hermes"

    def message_tokens(self, message: Any) -> int:
        return message_budget_tokens(message)

    def messages_tokens(self, messages: Sequence[Any]) -> int:
        return estimate_messages_tokens_rough(messages)


class ExactEstimator:
    """Decide with exact tiktoken counts instead of the heuristics."""

    name = "tiktoken"

    def __init__(self, model: str | None = None) -> None:
        self.counter = get_counter(encoding_name_for_model(model))

    def message_tokens(self, message: Any) -> int:
        return self.counter.count_message(message)

    def messages_tokens(self, messages: Sequence[Any]) -> int:
        return self.counter.count_messages(messages)


def make_estimator(name: str, model: str | None = None) -> RoughEstimator | ExactEstimator:
    if name == "hermes":
        return RoughEstimator()
    if name == "tiktoken":
        return ExactEstimator(model)
    raise ValueError(f"unknown token_estimator {name!r}; expected 'hermes' or 'tiktoken'")
