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


def test_texts_masked_ahead_in_a_worker_are_what_redact_finds_and_equal_a_fresh_masking(monkeypatch) -> None:
    import core.redaction as redaction_module
    from core.redaction import ProfileRedaction, RedactionAhead

    redaction = profile_redaction(get_profile("v0.19.0"), strict=True)
    texts = [f"step {n}: export OPENAI_API_KEY=sk-proj-{n:04d}abcdefghijklmnop1234\n" + "log line\n" * 300
             for n in range(6)] + ["password: hunter2!", "nothing secret here"]
    fresh = [redaction.redact(text) for text in texts]
    masked_here: list[str] = []
    original = ProfileRedaction._redact
    monkeypatch.setattr(ProfileRedaction, "_redact",
                        lambda self, text: (masked_here.append(text), original(self, text))[1])
    monkeypatch.setattr(redaction_module, "AHEAD_MIN_CHARS", 1_000)
    memo = TextMemo()
    with remembering(memo):
        assert redaction.redact(texts[-1]) == fresh[-1]  # one text the scope knows already
        ahead = RedactionAhead(redaction, texts + texts[:2])
        assert ahead.started and ahead.texts == texts[:-1]  # distinct, and only what the scope lacks
        assert ahead.keep()
        masked_here.clear()
        assert [redaction.redact(text) for text in texts] == fresh
    assert masked_here == []  # every answer came from the worker or the scope
    assert fresh[0] != texts[0] and "hunter2" not in fresh[-2]
    with remembering(TextMemo()):
        few = RedactionAhead(redaction, texts[-2:])  # too few characters to be worth a worker
        assert not few.started and not few.keep()


def test_the_caller_masks_from_the_last_piece_what_the_worker_has_not_reached(monkeypatch) -> None:
    """keep() while the worker is on its first piece: the caller masks the others itself (the last
    first), the worker's piece comes from the worker, and every answer is the one a fresh masking gives."""
    import threading

    import core.budget as budget_module
    import core.redaction as redaction_module
    from core.redaction import ProfileRedaction, RedactionAhead, _pieces

    redaction = profile_redaction(get_profile("v0.19.0"), strict=True)
    texts = [f"call {n}: curl -u admin:s3cret-{n:03d}x https://api.example.com/v1\n" + f"row {n}\n" * 200
             for n in range(40)]
    fresh = [redaction.redact(text) for text in texts]
    # The worker is held on its first piece until the caller has masked the three others: released
    # sooner, it could take the next piece itself while the caller masks one (a fresh-clone run did).
    entered, released = threading.Event(), threading.Event()
    run_in_worker = budget_module.run_in_worker

    def held(*args, **kwargs):
        entered.set()
        released.wait(30)
        return run_in_worker(*args, **kwargs)

    masked_here: list[list[str]] = []
    original = ProfileRedaction.redact_many

    def recorded(self, many):
        masked_here.append(list(many))
        if len(masked_here) == 3:
            released.set()
        return original(self, many)

    monkeypatch.setattr(budget_module, "run_in_worker", held)
    monkeypatch.setattr(ProfileRedaction, "redact_many", recorded)
    monkeypatch.setattr(redaction_module, "AHEAD_MIN_CHARS", 1_000)
    monkeypatch.setattr(redaction_module, "AHEAD_PIECES", 4)
    pieces = _pieces(texts, 4)
    assert len(pieces) == 4 and [text for piece in pieces for text in piece] == texts
    with remembering(TextMemo()):
        ahead = RedactionAhead(redaction, texts)
        assert entered.wait(30)  # the worker took the first piece
        assert ahead.keep()
        assert masked_here == [pieces[3], pieces[2], pieces[1]]  # the caller took the rest, the last first
        assert [redaction.redact(text) for text in texts] == fresh
    assert all("s3cret" not in text for text in fresh)


def test_texts_are_cut_into_pieces_of_about_equal_characters() -> None:
    from core.redaction import _pieces

    texts = ["x" * size for size in (5, 100, 3, 3, 3, 50, 50, 1, 1, 200, 7)]
    for count in (1, 2, 3, 5, 20):
        pieces = _pieces(texts, count)
        assert [text for piece in pieces for text in piece] == texts
        assert 1 <= len(pieces) <= count
    assert _pieces([], 4) == []


def test_a_piece_the_worker_failed_is_masked_when_read(monkeypatch) -> None:
    """A worker that fails leaves its piece to the reader: keep() says the answers are not all there,
    and every text still comes out masked as a fresh masking masks it."""
    import core.budget as budget_module
    import core.redaction as redaction_module
    from core.redaction import RedactionAhead

    redaction = profile_redaction(get_profile("v0.19.0"), strict=True)
    texts = [f"export GITHUB_TOKEN=ghp_{n:04d}abcdefghijklmnopqrstuvwxyz0123\n" + "ok\n" * 400 for n in range(12)]
    fresh = [redaction.redact(text) for text in texts]

    def failing(*_args, **_kwargs):
        raise RuntimeError("the worker died")

    monkeypatch.setattr(budget_module, "run_in_worker", failing)
    monkeypatch.setattr(redaction_module, "AHEAD_MIN_CHARS", 1_000)
    with remembering(TextMemo()):
        ahead = RedactionAhead(redaction, texts)
        assert ahead.started
        ahead._worker_done.wait(10)  # the worker's first piece failed, and it took no other
        assert not ahead.keep()
        assert [redaction.redact(text) for text in texts] == fresh
    assert all("ghp_" not in text for text in fresh)
