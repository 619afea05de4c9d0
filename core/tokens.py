"""Token estimators: the reference's rough heuristics and exact tiktoken counts.

The ``hermes`` estimator reproduces the reference's numbers exactly (it drives every decision by
default so previews match Hermes). The ``tiktoken`` estimator counts exactly with the model's
encoding; its encoding files come from the installed litellm package, so nothing is downloaded.
Exact counts are cached per text, so re-analysing with other parameters never re-tokenizes.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from core import profiles as P
from core.known_counts import add_known_counts, known_counts, text_digest  # noqa: F401  (re-exported)
from core.message_view import IMAGE_PART_TYPES, counted_texts  # noqa: F401  (re-exported)
from core.phases.content import BUDGET_WEIGHTS, message_budget_tokens
from core.repr_length import (  # noqa: F401  (re-exported: the estimators' fast paths)
    _REPR_CACHE_MIN_CHARS,
    _ascii_repr_len,
    _calls_repr_len,
    _str_repr_len,
    repr_len,
)

__all__ = [
    "rough_tokens",
    "estimate_tokens_rough",
    "estimate_messages_tokens_rough",
    "message_rough_chars",
    "message_budget_tokens",
    "TokenCounter",
    "get_counter",
    "encoding_name_for_model",
    "has_public_tokenizer",
    "ensure_tiktoken_cache",
    "add_known_counts",
    "encodings_loaded",
    "text_digest",
]


def rough_tokens(chars: Any, images: Any = 0) -> Any:
    """Hermes' rough estimate from counts: ``(characters + 3) // 4`` plus 1,500 tokens an image.

    The one home of the formula; works on ints and on numpy arrays of running sums alike.
    """
    return (chars + 3) // 4 + P.ROUGH_IMAGE_TOKENS * images


def estimate_tokens_rough(text: str | None) -> int:
    return rough_tokens(len(text)) if text else 0


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
    return rough_tokens(chars, images)


def rough_chars_at_least(messages: Iterable[Any], enough: int | None = None) -> int:
    """A lower bound of the characters ``estimate_messages_tokens_rough`` counts, in one light pass.

    The repr of a plain dict holds the repr of each of its values, and the repr of a plain string
    is at least as long as the string: the plain-string contents, and the plain-string arguments
    of plain tool-call dicts, are all in the measured text. Anything else counts nothing here.
    With ``enough``, counting stops once the bound reaches it.
    """
    total = 0
    limit = enough if enough is not None else float("inf")
    for message in messages:
        if total >= limit:
            break
        if type(message) is not dict:
            continue
        content = message.get("content")
        if type(content) is str:
            total += len(content)
        calls = message.get("tool_calls")
        if type(calls) is list:
            for call in calls:
                if type(call) is dict and call is not message:
                    function = call.get("function")
                    if type(function) is dict and function is not call and function is not message:
                        arguments = function.get("arguments")
                        if type(arguments) is str:
                            total += len(arguments)
    return total


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


# The families OpenAI tokenises with o200k_base: the name, then its end or a separator ("o1" and
# "o4-mini" but not "omni-moderation"; gpt-oss's o200k_harmony counts text as o200k_base does).
_O200K_MODEL = re.compile(r"^(?:chatgpt-4o|gpt-4o|gpt-4\.1|gpt-5|gpt-oss|codex|o\d)(?:$|[-.:_ ])")


def encoding_name_for_model(model: str | None) -> str:
    """The tiktoken encoding that counts tokens for ``model``.

    ``o200k_base`` for gpt-4o, gpt-4.1, gpt-5 (its -codex models too), gpt-oss, codex-mini and the
    o-series; ``cl100k_base`` for everything else, an approximation for models without a public
    tokenizer (Claude, Gemini). A provider prefix ("openrouter/openai/gpt-4o") is ignored.
    """
    name = (model or "").strip().lower().rsplit("/", 1)[-1]
    return "o200k_base" if _O200K_MODEL.match(name) else "cl100k_base"


_PUBLIC_TOKENIZER_MODEL = re.compile(r"^(?:gpt-3\.5|gpt-4|text-embedding|davinci|babbage)")


def has_public_tokenizer(model: str | None) -> bool:
    """Whether ``model``'s own tokenizer is one tiktoken has (OpenAI's families); False for Claude,
    Gemini and the rest, which ``encoding_name_for_model`` only approximates."""
    name = (model or "").strip().lower().rsplit("/", 1)[-1]
    return bool(_O200K_MODEL.match(name) or _PUBLIC_TOKENIZER_MODEL.match(name))


def _encoding(name: str):
    # Read once, also when two sessions' first counts ask at the same time.
    with _ENCODING_LOCK:
        return _read_encoding(name)


@lru_cache(maxsize=4)
def _read_encoding(name: str):
    ensure_tiktoken_cache()
    import tiktoken

    encoding = tiktoken.get_encoding(name)
    _LOADED.add(name)
    return encoding


_ENCODING_LOCK = threading.Lock()
_LOADED: set[str] = set()


# Per-message framing used by OpenAI chat models (role + separators), and a flat image cost
# (litellm's rule for a low-detail image; high-detail images are sized by their tiles).
MESSAGE_FRAME_TOKENS = 3
IMAGE_TOKENS_LOW = 85


# Texts longer than this are counted a chunk at a time (see ``encoded_length``).
CHUNK_CHARS = 1 << 20
# Where both encodings' pre-tokenizers always end a piece and start the next one, so that cutting
# there gives the pieces the whole text gives (and the same tokens):
# * after a letter or digit, before a space: every letter or digit piece stops at a space, and the
#   next piece starts with it;
# * after a newline, before a letter: newline pieces stop there, and letter pieces never take a
#   newline in front;
# * after any letter or digit, before ASCII punctuation other than the apostrophe: a letter piece
#   only goes on past its letters with a contraction ("'s", o200k_base), a digit piece is digits
#   only, and no punctuation piece holds a letter or digit;
# * between an ASCII letter and an ASCII digit, either way: no piece holds both.
# The last two cut text without blanks (a minified bundle, base64, hex, a long URL), which the first
# two never could: a 16 MB line was encoded in one call (927 MB).
_SAFE_CUT_RE = re.compile(
    r" (?<=[A-Za-z0-9] )|(?<=\n)[A-Za-z]|(?<=[^\W_])[!-&(-/:-@\[-`{-~]|(?<=[A-Za-z])[0-9]|(?<=[0-9])[A-Za-z]"
)


def safe_cuts(text: str, chunk_chars: int = CHUNK_CHARS) -> list[int]:
    """Cut positions about ``chunk_chars`` apart at which the pre-tokenizer splits ``text`` anyway."""
    cuts: list[int] = []
    position = chunk_chars
    while position < len(text):
        found = _SAFE_CUT_RE.search(text, position)
        if found is None:
            break
        cuts.append(found.start())
        position = found.start() + chunk_chars
    return cuts


# A piece with no safe cut for this long (a run of one letter, of one punctuation mark) is one
# pre-tokenizer piece: its byte-pair merges can only be made whole, at about 46 bytes of memory per
# character (16 MB of "A": 739 MB and 55 s). It is counted in a child process within a budget, so
# this process never holds that memory.
ISOLATED_PIECE_CHARS = 2 * CHUNK_CHARS


def count_in_child(encoding_name: str, path: str) -> int:
    """The token count of the text in a file, in a child process (a top-level function: it is sent there)."""
    with open(path, encoding="utf-8", errors="surrogatepass") as handle:
        return len(_encoding(encoding_name).encode_ordinary(handle.read()))


def segment_length(encoding: Any, segment: str) -> int:
    """The tokens of a text between two safe cuts: here, or in a child process when it is one huge piece.

    The piece goes to the child through a temporary file, written a megabyte at a time: sent as an
    argument it would be pickled whole, one more copy of it in this process."""
    if len(segment) <= ISOLATED_PIECE_CHARS:
        return len(encoding.encode_ordinary(segment))
    import tempfile

    from core.budget import Budget, run_isolated

    with tempfile.NamedTemporaryFile("w", encoding="utf-8", errors="surrogatepass", suffix=".txt") as handle:
        for start in range(0, len(segment), CHUNK_CHARS):
            handle.write(segment[start:start + CHUNK_CHARS])
        handle.flush()
        return int(run_isolated(count_in_child, encoding.name, handle.name, budget=Budget(scope="the limit of one text")))


def encoded_length(encoding: Any, text: str, chunk_chars: int = CHUNK_CHARS) -> int:
    """``len(encoding.encode_ordinary(text))``, a chunk at a time for long texts.

    Encoding a whole long text builds one Python list of all its tokens (hundreds of megabytes for
    a 50 MB output); chunks cut where the pre-tokenizer splits anyway give the same tokens.
    """
    if len(text) <= chunk_chars:
        return len(encoding.encode_ordinary(text))
    total = start = 0
    for cut in [*safe_cuts(text, chunk_chars), len(text)]:
        total += segment_length(encoding, text[start:cut])
        start = cut
    return total


def encodings_loaded() -> list[str]:
    """The encodings whose files this process has read so far."""
    return sorted(_LOADED)


class TokenCounter:
    """Exact counts with one encoding, cached per distinct text (the encoding is read on first use)."""

    # The cache holds at most this many characters of text: a long-running dashboard sees many
    # transcripts, and each one's texts are only worth keeping while it is being analysed.
    CACHE_MAX_CHARS = 256_000_000

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        self.encoding_name = encoding_name
        self._cache: dict[str, int] = {}
        self._cache_chars = 0
        self._lock = threading.Lock()

    @property
    def _encoding(self) -> Any:
        return _encoding(self.encoding_name)

    def _learn_known(self, texts: Iterable[str]) -> None:
        """Take the counts of ``texts`` (not counted yet) from the known counts, when there are any."""
        known = known_counts(self.encoding_name)
        if not known:
            return
        for text in texts:
            tokens = known.get(text_digest(text)) if text and text not in self._cache else None
            if tokens is not None:
                self._remember(text, tokens)

    def _remember(self, text: str, tokens: int) -> None:
        with self._lock:
            if self._cache_chars + len(text) > self.CACHE_MAX_CHARS:
                self._cache.clear()
                self._cache_chars = 0
            if text not in self._cache:
                self._cache_chars += len(text)
            self._cache[text] = tokens

    def forget(self, text_ids: frozenset[int]) -> None:
        """Drop the counts of the texts with these ids (held as keys, so the ids are theirs)."""
        with self._lock:
            gone = [text for text in self._cache if id(text) in text_ids]
            for text in gone:
                del self._cache[text]
                self._cache_chars -= len(text)

    def counts(self) -> dict[str, int]:
        """A copy of every count this counter holds (text → tokens)."""
        with self._lock:
            return dict(self._cache)

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        cached = self._cache.get(text)
        if cached is None:
            self._learn_known((text,))
            cached = self._cache.get(text)
        if cached is None:
            cached = encoded_length(self._encoding, text)
            self._remember(text, cached)
        return cached

    def count_texts(self, texts: Sequence[str]) -> list[int]:
        """Count many texts at once; only the ones never seen before are encoded (in a batch)."""
        cache = self._cache
        self._learn_known(texts)
        # Long texts are counted alone, a chunk at a time (see ``encoded_length``).
        missing = list({t for t in texts if t and t not in cache and len(t) <= CHUNK_CHARS})
        counted: dict[str, int] = {}
        if missing:
            for text, tokens in zip(
                missing, self._encoding.encode_ordinary_batch(missing, num_threads=os.cpu_count() or 1), strict=True
            ):
                counted[text] = len(tokens)
                self._remember(text, len(tokens))
        return [(counted.get(t) or cache.get(t) or self.count_text(t)) if t else 0 for t in texts]

    def uncounted_chars(self, texts: Iterable[str]) -> int:
        """Characters of the distinct ``texts`` not counted yet (what :meth:`warm` would encode)."""
        cache = self._cache
        missing = {t for t in texts if t and t not in cache}
        self._learn_known(missing)
        return sum(len(t) for t in missing if t not in cache)

    def warm(
        self, texts: Sequence[str], on_progress: Callable[[int, int], None] | None = None,
        batch_chars: int = 4 * CHUNK_CHARS,
    ) -> None:
        """Count every distinct text not counted yet, in batches of about ``batch_chars`` characters.

        ``on_progress(done, total)`` (characters) is called after each batch, so a caller can show
        how far a long count has got; later counts of these texts hit the cache.
        """
        cache = self._cache
        uncounted = {t for t in texts if t and t not in cache}
        self._learn_known(uncounted)
        missing = sorted((t for t in uncounted if t not in cache), key=len)
        total = sum(map(len, missing))
        done = 0
        batch: list[str] = []
        size = 0

        def flush() -> None:
            nonlocal done, batch, size
            if batch:
                self.count_texts(batch)
                done += size
                batch, size = [], 0
                if on_progress is not None:
                    on_progress(done, total)

        for text in missing:
            if len(text) > batch_chars:  # one long text: counted a chunk at a time, each reported
                flush()
                tokens = start = 0
                for cut in [*safe_cuts(text), len(text)]:
                    tokens += segment_length(self._encoding, text[start:cut])
                    done += cut - start
                    start = cut
                    if on_progress is not None:
                        on_progress(done, total)
                self._remember(text, tokens)
                continue
            if size + len(text) > batch_chars:
                flush()
            batch.append(text)
            size += len(text)
        flush()

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


def forget_counted(text_ids: frozenset[int]) -> None:
    """Drop the cached counts of the texts with these ids (from every counter made so far): a
    transcript no longer open takes its texts' memory with it."""
    if not text_ids:
        return
    for counter in _COUNTERS.values():
        counter.forget(text_ids)


_COUNTERS: dict[str, TokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


@lru_cache(maxsize=8)
def get_counter(encoding_name: str = "cl100k_base") -> TokenCounter:
    """A shared counter per encoding, so its cache lives as long as the process (made once, also
    when two threads ask at the same time: two dashboard sessions opening their first page)."""
    with _COUNTERS_LOCK:
        counter = _COUNTERS.get(encoding_name)
        if counter is None:
            counter = _COUNTERS[encoding_name] = TokenCounter(encoding_name)
    return counter


class RoughEstimator:
    """The reference heuristics (decisions match Hermes exactly).

    ``budget_weight`` names the release's per-message weight in the budget walks
    (``core.phases.content.BUDGET_WEIGHTS``: tool-call arguments up to v0.17.0, the whole
    tool-call envelope from v0.18.0).
    """

    name = "hermes"

    def __init__(self, budget_weight: str = "arguments") -> None:
        self.budget_weight = budget_weight
        self.message_tokens = BUDGET_WEIGHTS[budget_weight]

    def messages_tokens(self, messages: Sequence[Any]) -> int:
        return estimate_messages_tokens_rough(messages)

    def messages_tokens_at_least(self, messages: Sequence[Any], enough: int | None = None) -> int:
        """A lower bound of ``messages_tokens(messages)``, much cheaper to take (it may stop at ``enough``)."""
        return rough_tokens(rough_chars_at_least(messages, None if enough is None else 4 * enough))


class ExactEstimator:
    """Decide with exact tiktoken counts instead of the heuristics."""

    name = "tiktoken"

    def __init__(self, model: str | None = None) -> None:
        self.counter = get_counter(encoding_name_for_model(model))

    def message_tokens(self, message: Any) -> int:
        return self.counter.count_message(message)

    def messages_tokens(self, messages: Sequence[Any]) -> int:
        return self.counter.count_messages(messages)

    def messages_tokens_at_least(self, messages: Sequence[Any], enough: int | None = None) -> int:
        """A lower bound of ``messages_tokens(messages)``: none cheaper than counting."""
        return 0


def make_estimator(
    name: str, model: str | None = None, budget_weight: str = "arguments"
) -> RoughEstimator | ExactEstimator:
    """The estimator called ``name``: ``hermes`` (with the release's ``budget_weight``) or ``tiktoken``."""
    if name == "hermes":
        return RoughEstimator(budget_weight)
    if name == "tiktoken":
        return ExactEstimator(model)
    raise ValueError(f"unknown token_estimator {name!r}; expected 'hermes' or 'tiktoken'")
