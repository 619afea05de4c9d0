"""Answers about a text remembered within one scope (a transcript's analyses), so each is found once.

Every compression of a transcript masks its turns before the summary reads them and reads their
facts; the releases of Release comparison, the cells of the sweep and the strategies do so for the
same turns again and again (on a 2.6 MB log that was half of each page's time). Within
:func:`remembering`, :func:`recall` keeps each (rule, text) answer of a pure function of the text;
the scope is whoever opens it (the dashboard: one per transcript, freed with it), never the module,
so one upload's texts are never held for another's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from typing import Any

# A scope stops remembering new texts past this many characters (what it holds stays valid).
DEFAULT_CHAR_LIMIT = 64_000_000


class TextMemo:
    """(rule, text) → answer, bounded by the characters of the texts it holds."""

    def __init__(self, char_limit: int = DEFAULT_CHAR_LIMIT) -> None:
        self._answers: dict[tuple[Hashable, str], Any] = {}
        self._chars = 0
        self._limit = char_limit
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._answers)

    def knows(self, rule: Hashable, text: str) -> bool:
        """Whether an answer of ``rule`` for ``text`` is held."""
        return (rule, text) in self._answers

    def recall(self, rule: Hashable, text: str, compute: Callable[[str], Any]) -> Any:
        found = self._answers.get((rule, text), _MISSING)
        if found is not _MISSING:
            return found
        answer = compute(text)
        self.keep(rule, text, answer)
        return answer

    def recall_many(self, rule: Hashable, texts: list[Any], compute: Callable[[list[Any]], list[Any]]) -> list[Any]:
        answers = [self._answers.get((rule, t), _MISSING) if isinstance(t, str) and t else _MISSING for t in texts]
        missing = [index for index, answer in enumerate(answers) if answer is _MISSING]
        if missing:
            computed = compute([texts[index] for index in missing])
            for index, answer in zip(missing, computed, strict=True):
                answers[index] = answer
                if isinstance(texts[index], str) and texts[index]:
                    self.keep(rule, texts[index], answer)
        return answers

    def keep(self, rule: Hashable, text: str, answer: Any) -> None:
        """Hold ``answer`` for ``(rule, text)`` (not past the memo's character limit)."""
        with self._lock:
            if self._chars + len(text) <= self._limit:
                # An unchanged text is the same object: holding it costs only the entry.
                self._answers[(rule, text)] = text if answer == text else answer
                self._chars += len(text)


_MISSING = object()
_SCOPE: ContextVar[TextMemo | None] = ContextVar("context_lens_text_memo", default=None)


@contextlib.contextmanager
def remembering(memo: TextMemo | None) -> Iterator[None]:
    """Within this block, :func:`recall` keeps its answers in ``memo`` (None: it keeps nothing)."""
    token = _SCOPE.set(memo)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def in_scope() -> bool:
    """Whether a scope with a memo is open here."""
    return _SCOPE.get() is not None


def recall(rule: Hashable, text: Any, compute: Callable[[Any], Any]) -> Any:
    """``compute(text)``, answered from the open scope's memo when it has seen ``(rule, text)``."""
    memo = _SCOPE.get()
    if memo is None or not isinstance(text, str) or not text:
        return compute(text)
    return memo.recall(rule, text, compute)


def recall_many(rule: Hashable, texts: list[Any], compute: Callable[[list[Any]], list[Any]]) -> list[Any]:
    """``compute(texts)`` (one answer per text, in order) for the texts the open scope has not seen."""
    memo = _SCOPE.get()
    return compute(texts) if memo is None else memo.recall_many(rule, texts, compute)


def remember_many(rule: Hashable, texts: list[Any], answers: list[Any]) -> None:
    """Keep answers computed elsewhere (another process) in the open scope, as :func:`recall` would
    have kept them; nothing outside a scope. ``answers`` must be what the rule gives for ``texts``."""
    memo = _SCOPE.get()
    if memo is None:
        return
    for text, answer in zip(texts, answers, strict=True):
        if isinstance(text, str) and text:
            memo.keep(rule, text, answer)


def unknown(rule: Hashable, texts: list[Any]) -> list[str]:
    """The distinct non-empty texts of ``texts`` the open scope holds no answer of ``rule`` for (all
    of them outside a scope)."""
    memo = _SCOPE.get()
    distinct = [text for text in dict.fromkeys(texts) if isinstance(text, str) and text]
    return distinct if memo is None else [text for text in distinct if not memo.knows(rule, text)]
