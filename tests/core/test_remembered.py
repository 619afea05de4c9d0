"""Answers about a text are remembered only within an open scope, and equal what the function gives."""

from __future__ import annotations

from pathlib import Path

from core.profiles import get_profile
from core.redaction import profile_redaction
from core.remembered import TextMemo, recall, recall_many, remembering


class Counting:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, text: str) -> str:
        self.calls.append(text)
        return text.upper()

    def many(self, texts: list[str]) -> list[str]:
        return [self(text) for text in texts]


def test_outside_a_scope_nothing_is_remembered() -> None:
    compute = Counting()
    assert recall("rule", "abc", compute) == "ABC"
    assert recall("rule", "abc", compute) == "ABC"
    assert compute.calls == ["abc", "abc"]


def test_within_a_scope_each_rule_and_text_is_computed_once() -> None:
    compute = Counting()
    memo = TextMemo()
    with remembering(memo):
        assert [recall("rule", text, compute) for text in ("a", "b", "a", "a")] == ["A", "B", "A", "A"]
        assert recall("other rule", "a", compute) == "A"
        assert recall_many("rule", ["b", "c", "a", "c"], compute.many) == ["B", "C", "A", "C"]
    assert compute.calls == ["a", "b", "a", "c", "c"]
    assert len(memo) == 4
    with remembering(None):  # a scope of its own without a memo: nothing kept
        recall("rule", "a", compute)
    assert compute.calls[-1] == "a" and len(memo) == 4


def test_a_full_memo_still_answers_but_keeps_no_more() -> None:
    compute = Counting()
    memo = TextMemo(char_limit=5)
    with remembering(memo):
        assert recall("rule", "abcd", compute) == "ABCD"
        assert recall("rule", "efgh", compute) == "EFGH"  # over the limit: answered, not kept
        assert recall("rule", "efgh", compute) == "EFGH"
    assert compute.calls == ["abcd", "efgh", "efgh"] and len(memo) == 1


def test_remembered_redaction_equals_a_fresh_one() -> None:
    redaction = profile_redaction(get_profile("v0.19.0"), strict=True)
    texts = ["export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234", "nothing secret here", "password: hunter2!"]
    fresh = [redaction.redact(text) for text in texts]
    memo = TextMemo()
    with remembering(memo):
        first = redaction.redact_many(texts)
        again = [redaction.redact(text) for text in texts]
    assert first == again == fresh
    assert fresh[0] != texts[0] and fresh[1] == texts[1]
    # Each text's profile redaction, and the strict layer of what the reference passes left (which
    # every other reader of the strict layer in the scope then shares).
    assert len(memo) == 2 * len(texts)


def test_the_strict_layer_is_searched_once_per_text_within_a_scope() -> None:
    from core.redaction.strict import strict_redact

    text = "password: hunter2! and the rest of a long output line\n" * 50
    memo = TextMemo()
    with remembering(memo):
        first = strict_redact(text)
        assert len(memo) == 1
        assert strict_redact(text) is first
    assert first == strict_redact(text) != text
    assert len(memo) == 1  # outside the scope nothing is kept


def test_long_strings_repr_lengths_are_kept_by_the_open_scope_not_the_process() -> None:
    from core import repr_length

    text = "it's a \"quoted\" line\n" * 40
    memo = TextMemo()
    before = dict(repr_length._REPR_LEN_CACHE)
    with remembering(memo):
        assert repr_length.repr_len({"content": text}) == len(repr({"content": text}))
    assert len(memo) == 1 and text not in repr_length._REPR_LEN_CACHE
    assert repr_length._REPR_LEN_CACHE == before
    assert repr_length.repr_len(text) == len(repr(text))  # outside a scope: the process's cache
    assert text in repr_length._REPR_LEN_CACHE


def test_compressions_in_one_scope_read_each_output_and_reply_once_and_write_the_same_summary(monkeypatch) -> None:
    """Every release of Release comparison (and every strategy, sweep cell) summarises the same turns:
    within a transcript's scope the extractive summary's per-text readings (an output's value lines, a
    reply's decisions, a line's tokens) are made once, and the summaries are those made without one."""
    from core import CompressorConfig, ContextCompressor
    from core.formats import load
    from core.summarizers.extractive import findings
    from core.summarizers.extractive.sections import decisions
    from core.summarizers.factory import make_summarizer
    sample = Path(__file__).resolve().parents[2] / "sample_conversations" / "long_coding_session.json"
    messages = load(sample.read_bytes(), filename=sample.name).messages
    read: list[str] = []
    monkeypatch.setattr(findings, "line_values", _counting(findings.line_values, read))
    stated: list[str] = []
    monkeypatch.setattr(decisions, "sentences", _counting(decisions.sentences, stated))

    def summaries() -> list[str]:
        out = []
        for profile in ("v0.18.0", "v0.19.0"):
            config = CompressorConfig(context_length=8_000, profile=profile)
            result = ContextCompressor(config, summarizer=make_summarizer("extractive")).compress(messages)
            assert result.assembly is not None, profile
            out.append(result.assembly.summary_text)
        return out

    unscoped = summaries()
    assert all(unscoped) and read and stated
    read.clear(), stated.clear()
    with remembering(TextMemo()):
        first = summaries()
        once = (len(read), len(stated))
        again = summaries()
    assert first == again == unscoped
    assert once[0] > 0 and once[1] > 0
    assert (len(read), len(stated)) == once  # the second pass over the same turns read nothing again


def _counting(function, calls: list):
    def wrapped(text, *args, **kwargs):
        calls.append(text)
        return function(text, *args, **kwargs)

    return wrapped
