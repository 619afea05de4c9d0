"""Long texts are counted a chunk at a time, cut where the pre-tokenizer splits anyway: same counts.

Each encoding's count of a text cut at ``safe_cuts`` (with tiny chunks, so every text here is cut
many times) equals the count of the whole text, on text built from the characters the
pre-tokenizers treat specially: letters of every case and script, digits, contractions, spaces,
newlines, punctuation, combining marks.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import tokens as T

_PIECES = [
    "a", "Z", "word", "Word", "WORD", "0", "7", "123", "12345", "'s", "'S", "'ll", "'t", "’s", " ", "  ", "\t", "\n",
    "\r\n", "\n\n", " \n", "\n ", "!", "?!", "...", "/", "-", "_", "(", ")", "{", "}", '"', "'", "é", "É", "ß", "ﬁ",
    "\u0301", "日本語", "한국어", "Ωμέγα", "١٢٣", "\u00a0", "\u2003", "🙂", "\x00", "hello world", "x=1;", "://",
]
_texts = st.lists(st.sampled_from(_PIECES), max_size=60).map("".join)


@pytest.fixture(scope="module")
def encodings():
    return {name: T._encoding(name) for name in ("cl100k_base", "o200k_base")}


@settings(max_examples=1500, deadline=None)
@given(_texts, st.integers(1, 12))
def test_counting_in_chunks_equals_counting_the_whole_text(encodings, text, chunk_chars):
    for encoding in encodings.values():
        assert T.encoded_length(encoding, text, chunk_chars) == len(encoding.encode_ordinary(text))


@settings(max_examples=300, deadline=None)
@given(_texts, st.integers(1, 12))
def test_the_cuts_split_the_text_into_pieces_of_the_whole_texts_tokens(encodings, text, chunk_chars):
    # Stronger than equal counts: the chunks' tokens are the whole text's tokens, in order.
    cuts = [0, *T.safe_cuts(text, chunk_chars), len(text)]
    assert cuts == sorted(set(cuts)) or text == ""
    for encoding in encodings.values():
        joined = [token for a, b in zip(cuts, cuts[1:], strict=False) for token in encoding.encode_ordinary(text[a:b])]
        assert joined == encoding.encode_ordinary(text)


def test_a_long_output_is_counted_in_chunks_of_about_the_chunk_size():
    text = "lorem ipsum dolor sit amet\n" * 200_000  # 5.4 MB
    cuts = T.safe_cuts(text)
    assert len(cuts) == len(text) // T.CHUNK_CHARS
    assert all(T.CHUNK_CHARS <= b - a <= T.CHUNK_CHARS + 8 for a, b in zip([0, *cuts], cuts, strict=False))
    counter = T.TokenCounter("cl100k_base")
    assert counter.count_text(text) == len(counter._encoding.encode_ordinary(text))
    assert counter.count_texts([text, "short"]) == [counter.count_text(text), counter.count_text("short")]


def test_text_without_a_safe_cut_is_counted_whole():
    assert T.safe_cuts("a" * 50, 10) == []
    assert T.safe_cuts("a" * 20 + " b", 10) == [20]


def test_warming_counts_every_text_once_and_reports_progress_to_the_end():
    counter = T.TokenCounter("o200k_base")
    long_text = "status: all green for module alpha\n" * 120_000  # 4.2 MB: counted in chunks
    texts = ["short one", "short two", "short one", long_text, "x" * 3_000, ""]
    assert counter.uncounted_chars(texts) == len("short one") + len("short two") + len(long_text) + 3_000
    seen: list[tuple[int, int]] = []
    counter.warm(texts, lambda done, total: seen.append((done, total)), batch_chars=1_000_000)
    total = len("short one") + len("short two") + len(long_text) + 3_000
    assert seen and seen[-1] == (total, total)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert len(seen) >= 5  # the long text reported chunk by chunk
    assert counter.uncounted_chars(texts) == 0
    fresh = T.TokenCounter("o200k_base")
    encoding = fresh._encoding
    assert [counter.count_text(t) for t in texts] == [len(encoding.encode_ordinary(t)) for t in texts]


def test_the_transcript_table_is_the_message_frame_and_its_count_is_followed():
    from core.inspections.overview import message_frame
    from dashboard.memo import Transcript

    messages = [{"role": "user", "content": "word " * 50_000}, {"role": "assistant", "content": "ok"}]
    transcript = Transcript(key="k", filename="f.json", conversation=None, messages=messages)
    encoding = "cl100k_base"
    T.get_counter(encoding)._cache.clear()
    assert transcript.uncounted_chars(encoding) == len(messages[0]["content"]) + 2
    progress: list[tuple[int, int]] = []
    table = transcript.message_table(encoding, lambda done, total: progress.append((done, total)))
    assert progress[-1][0] == progress[-1][1] == len(messages[0]["content"]) + 2
    assert transcript.has_message_table(encoding) and transcript.uncounted_chars(encoding) == 0
    assert table.equals(message_frame(messages, T.get_counter(encoding)))


# --- text without blanks: a minified bundle, base64, hex, a long URL, one line of JSON ---------------

_UNBROKEN_PIECES = [
    "a", "Z", "q", "0", "9", "12", "1234", "+", "/", "=", "==", "-", "_", ".", ",", ":", ";", '"', "'", "`", "(", ")",
    "[", "]", "{", "}", "<", ">", "!", "?", "@", "#", "$", "%", "&", "*", "\\", "|", "~", "^", "'s", "'ll", "'T",
    "é", "É", "ß", "e\u0301", "\u0301", "日本", "Ω", "١٢", "²", "½", "Ⅻ", "\u00a0", "🙂", "\x00", "0x1F", "abc123",
    "A1b2", "k1", "x=1;", "://", "%2F", "\\u00e9", "\\n", "—", "“", "’s",
]
_unbroken = st.lists(st.sampled_from(_UNBROKEN_PIECES), min_size=1, max_size=80).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_unbroken, st.integers(1, 16))
def test_text_without_blanks_is_cut_into_the_whole_texts_tokens(encodings, text, chunk_chars):
    cuts = [0, *T.safe_cuts(text, chunk_chars), len(text)]
    for encoding in encodings.values():
        joined = [token for a, b in zip(cuts, cuts[1:], strict=False) for token in encoding.encode_ordinary(text[a:b])]
        assert joined == encoding.encode_ordinary(text)


def _random_text(alphabet: str, size: int, seed: int) -> str:
    import random

    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(size))


@pytest.mark.parametrize(
    "alphabet",
    [
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=",  # base64
        "0123456789abcdef",  # hex
        'abcxyz019{}[]":,._-',  # minified JSON
        "abcXYZ019%/?&=:.-_~#",  # a long URL
        "aA1'’sé\u0301日!?()",  # apostrophes, accents, marks, other scripts
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",  # punctuation only: one piece, never cut
    ],
    ids=["base64", "hex", "json", "url", "mixed", "punctuation"],
)
def test_random_unbroken_text_counts_exactly_as_a_whole(encodings, alphabet):
    for seed in range(3):
        text = _random_text(alphabet, 40_000, seed)
        for encoding in encodings.values():
            assert T.encoded_length(encoding, text, chunk_chars=997) == len(encoding.encode_ordinary(text))


def test_an_unbroken_line_is_cut_about_every_chunk():
    text = _random_text("0123456789abcdef", 3_000_000, 7)  # a 3 MB hex dump on one line
    cuts = T.safe_cuts(text)
    assert len(cuts) == len(text) // T.CHUNK_CHARS
    assert all(T.CHUNK_CHARS <= b - a <= T.CHUNK_CHARS + 16 for a, b in zip([0, *cuts], cuts, strict=False))


def test_a_run_of_one_letter_has_no_cut_and_is_counted_whole():
    # One pre-tokenizer piece: there is no place where cutting keeps the tokens, so it is encoded whole.
    assert T.safe_cuts("A" * 5_000, 100) == []
