"""The fast paths of Phase 3, the redaction and the rough estimator give exactly the plain results.

Each fast function is compared, on generated and adversarial inputs, with a plain computation of
the same thing written out here: the serializer, the summary search and the prompt as two-pass
code with f-strings, the redaction with the reference's own substring gates, and the estimate as
``len(str(shadow))`` per message.
"""

from __future__ import annotations

import enum
import re
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core import profiles as P
from core.literals import CASE_BLIND_EXTRAS
from core.message_view import content_text
from core.phases.summary import (
    _template,
    build_summary_prompt,
    find_existing_summary,
    serialize_for_summary,
)
from core.profiles import PROFILES
from core.redaction import hermes as H
from core.redaction.hermes import mask_secret, redact_many, redact_sensitive_text
from core.tokens import _ascii_repr_len, _calls_repr_len, estimate_messages_tokens_rough, message_rough_chars
from tests.redaction.test_hermes_redaction import _ungated

from .test_tokens import _reference_estimate

# --- plain versions ---------------------------------------------------------------------------


def _plain_truncate(text: str) -> str:
    if len(text) > P.CONTENT_MAX:
        return text[: P.CONTENT_HEAD] + P.SERIALIZER_TRUNCATION_MARK + text[-P.CONTENT_TAIL :]
    return text


def _items(calls: Any) -> list[Any]:
    """A truthy ``tool_calls`` is looped over as Python loops over it (a dict gives its keys)."""
    try:
        return list(calls)
    except TypeError:
        return [calls]


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _plain_serialize(turns: list[Any], redact) -> str:
    """Spec §4.2 as straight two-pass code: redact every text, then format each block."""
    raw: list[Any] = []
    for message in turns:
        if not isinstance(message, dict):
            raw.append(str(message))
            continue
        content = message.get("content") or ""
        raw.append(content if isinstance(content, str) else str(content))
        if message.get("role") == "assistant":
            calls = message.get("tool_calls")
            if calls:
                for call in _items(calls):
                    if isinstance(call, dict):
                        function = call.get("function", {})
                        args = function.get("arguments", "") if isinstance(function, dict) else ""
                        raw.append(args if isinstance(args, str) else str(args))
    redacted = iter([redact(r) for r in raw])
    blocks = []
    for message in turns:
        if not isinstance(message, dict):
            blocks.append(f"[UNKNOWN]: {_plain_truncate(_as_text(next(redacted)))}")
            continue
        role = message.get("role", "unknown")
        content = _plain_truncate(_as_text(next(redacted)))
        if role == "tool":
            blocks.append(f"[TOOL RESULT {message.get('tool_call_id', '')}]: {content}")
        elif role == "assistant":
            block = f"[ASSISTANT]: {content}"
            tool_calls = message.get("tool_calls")
            if tool_calls:
                lines = []
                for call in _items(tool_calls):
                    if isinstance(call, dict):
                        function = call.get("function", {})
                        if not isinstance(function, dict):
                            function = {}
                        name = function.get("name", "?")
                        args = _as_text(next(redacted))
                        if len(args) > P.TOOL_ARGS_MAX:
                            args = args[: P.TOOL_ARGS_HEAD] + "..."
                        lines.append(f"  {name}({args})")
                    else:
                        function = getattr(call, "function", None)
                        name = getattr(function, "name", "?") if function else "?"
                        lines.append(f"  {name}(...)")
                block += "\n[Tool calls:\n" + "\n".join(lines) + "\n]"
            blocks.append(block)
        else:
            blocks.append(f"[{str(role).upper()}]: {content}")
    return "\n\n".join(blocks)


def _plain_find_existing(messages: list[Any], compress_end: int, profile) -> int | None:
    start = 1 if messages and isinstance(messages[0], dict) and messages[0].get("role") == "system" else 0
    for k in range(min(compress_end, len(messages)) - 1, start - 1, -1):
        message = messages[k]
        if isinstance(message, dict):
            text = content_text(message.get("content")).lstrip()
            if any(text.startswith(prefix) for prefix in profile.recognised_prefixes):
                return k
    return None


# --- generated inputs -------------------------------------------------------------------------

# Secrets and near-misses for every pass, case-folding letters, boundaries and separators.
_PIECES = [
    "sk-", "sk_", "sk_live_", "ghp_", "github_pat_", "xoxb-", "xox", "AIza", "gAAAA", "AKIA", "SG.", "hf_", "am_",
    "retaindb_", "mem0_", "xai-", "pplx-", "task_", "a", "Z", "0", "_", "-", ".", "=", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
    "abcdefghij", "TOKEN", "API_KEY", "APIKEY", "PASSWD", "x_AUTH_y", " = ", "='", "'", '"', "\\",
    "Authorization:", "AUTHORIZATION: ", "authorization:", "AUTHorization:", " Bearer ", "bearer\t",
    "bot", "12345678", "1234567", "１２３４５６７８", ":", "postgres", "PostgreSQL", "mongodb+srv", "REDİS", "ReDıs",
    "mySQL", "amqp", "://", "u", "@", "eyJ", "eyJhbGciOiJIUzI1NiJ9", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "BEGIN", "-----", "&", "token=x", "\n", "\t", " ", "+1415555267", "+1",
    "<@123456789012345678>", "<@!123456789012345678>", "\x00", "—", "é", "🙂", "ſ", "\u212a", '"token"', '"ApiKey"',
    '"ſecret"', '"KEY_material"', '"password": "', "\x1c",
]
texts = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=6)), max_size=24).map("".join)


class _Loud(str):
    """A str subclass that formats and prints differently from its characters."""

    def __format__(self, spec: str) -> str:
        return "FORMATTED"

    def __str__(self) -> str:
        return "STRINGIFIED"


def _long_with_secret(draw) -> str:
    """Longer than the 6,000-character cap, with a secret right around one of the cut points."""
    total = draw(st.integers(6_001, 7_600))
    cut = draw(st.sampled_from([P.CONTENT_HEAD, total - P.CONTENT_TAIL]))
    at = max(0, min(total - 40, cut + draw(st.integers(-40, 40))))
    secret = draw(st.sampled_from(["sk-" + "a" * 30, "API_KEY=" + "b" * 30, "postgres://u:pw@h", "eyJ" + "c" * 30]))
    text = ("word " * 1_600)[:total]
    return text[:at] + " " + secret + " " + text[at + len(secret) + 2 :]


@st.composite
def _contents(draw):
    kind = draw(st.integers(0, 9))
    if kind <= 3:
        return draw(texts)
    if kind == 4:
        return _long_with_secret(draw)
    if kind == 5:
        return draw(st.sampled_from([None, "", 0, 7, [], {}]))
    if kind == 6:
        return [{"type": "text", "text": draw(texts)}, {"type": "image_url", "image_url": {"url": "data:x"}}]
    if kind == 7:
        return {"_multimodal": True, "text_summary": draw(texts)}
    if kind == 8:
        return _Loud(draw(texts))
    return draw(st.text(max_size=40))


@st.composite
def _call(draw):
    kind = draw(st.integers(0, 7))
    name = draw(st.sampled_from(["terminal", None, 3, "read_file"]))
    if kind <= 3:
        args = draw(st.one_of(texts, st.builds(lambda t: t * 80, texts), st.sampled_from([None, {"a": 1}, 5])))
        return {"id": "c1", "type": "function", "function": {"name": name, "arguments": args}}
    if kind == 4:
        return {"id": "c2", "function": {"arguments": draw(texts)}}  # no name: "?"
    if kind == 5:
        return {"id": "c3", "function": draw(st.sampled_from(["not a dict", None, 4]))}
    if kind == 6:
        return SimpleNamespace(function=SimpleNamespace(name=name))
    return draw(st.sampled_from(["a string call", 12, None]))


@st.composite
def _turn(draw):
    if draw(st.integers(0, 15)) == 0:
        return draw(st.sampled_from(["bare string turn", 42, None]))
    message: dict[str, Any] = {}
    role = draw(st.sampled_from(["user", "assistant", "assistant", "tool", "system", None, "Tool", "missing"]))
    if role != "missing":
        message["role"] = role
    message["content"] = draw(_contents())
    if role == "tool" and draw(st.booleans()):
        message["tool_call_id"] = draw(st.sampled_from(["call_1", None, 5, _Loud("id")]))
    if role == "assistant":
        calls = draw(st.integers(0, 4))
        if calls == 1:
            message["tool_calls"] = draw(st.lists(_call(), max_size=3))
        elif calls == 2:
            message["tool_calls"] = draw(_call())  # not a list
        elif calls == 3:
            message["tool_calls"] = draw(st.sampled_from([None, [], ()]))
    return message


def _redactors(discord: bool):
    def one(text):
        return redact_sensitive_text(text, release="v0.15.1" if discord else "v0.16.0")

    def many(items):
        return redact_many(items, release="v0.15.1" if discord else "v0.16.0")

    return one, many


# --- serialisation, summary search, prompt ------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.lists(_turn(), max_size=8), st.booleans())
def test_serialization_equals_the_plain_two_pass_code(turns, discord):
    one, many = _redactors(discord)
    expected = _plain_serialize(turns, one)
    assert serialize_for_summary(turns, one, many) == expected
    assert serialize_for_summary(turns, one) == expected


def test_serialization_with_a_loud_str_subclass_formats_like_an_f_string():
    turns = [
        {"role": "user", "content": _Loud("short")},
        {"role": "tool", "tool_call_id": _Loud("x"), "content": _Loud("y" * 7_000)},
        {"role": "assistant", "content": _Loud("z"), "tool_calls": [{"function": {"name": _Loud("n"), "arguments": _Loud("q")}}]},
    ]
    for discord in (False, True):
        one, many = _redactors(discord)
        assert serialize_for_summary(turns, one, many) == _plain_serialize(turns, one)


_WHITESPACE = [" ", "\n", "\t", "\u3000", "\x1c", "\u2028", ""]


@st.composite
def _maybe_summary(draw, profile):
    prefix = draw(st.sampled_from([*profile.recognised_prefixes, "[CONTEXT", "[", "x["]))
    text = draw(st.sampled_from(_WHITESPACE)) + draw(st.sampled_from(_WHITESPACE)) + prefix + draw(texts)
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return {"role": draw(st.sampled_from(["user", "assistant", "system"])), "content": text}
    if shape == 1:
        return {"role": "user", "content": [{"type": "text", "text": text}, "tail", {"type": "text", "text": ""}]}
    if shape == 2:
        return {"role": "user", "content": ["", text]}
    if shape == 3:
        return draw(st.sampled_from([text, None, {"role": "user"}, {"role": "user", "content": 5}]))
    return {"role": "tool", "content": draw(texts)}


@settings(max_examples=400, deadline=None)
@given(st.data(), st.sampled_from(sorted(PROFILES)))
def test_existing_summary_search_equals_the_plain_loop(data, profile_name):
    profile = PROFILES[profile_name]
    messages = data.draw(st.lists(_maybe_summary(profile), max_size=10))
    end = data.draw(st.integers(0, len(messages) + 2))
    assert find_existing_summary(messages, end, profile) == _plain_find_existing(messages, end, profile)


@settings(max_examples=100, deadline=None)
@given(texts, st.sampled_from(sorted(PROFILES)), st.integers(0, 20_000), st.one_of(st.none(), texts), st.one_of(st.none(), texts))
def test_prompt_equals_the_layout_built_in_steps(serialized, profile_name, budget, previous, focus):
    profile = PROFILES[profile_name]
    prompt = build_summary_prompt(
        serialized, profile=profile, summary_budget_tokens=budget, previous_summary=previous, focus_topic=focus
    )
    if previous:
        body = (
            "A previous compaction already produced the summary below. Merge the new turns into it so it stays "
            f"one complete, current record.\n\nPREVIOUS SUMMARY:\n{previous}\n\nNEW TURNS TO INCORPORATE:\n{serialized}\n\n"
        )
        assert body in prompt and prompt.index(body) > 0
        assert f"{profile.iterative_critical_sentence}\n\n{_template(profile)}\n\nTarget ~{budget} tokens." in prompt
    else:
        assert f"TURNS TO SUMMARIZE:\n{serialized}\n\nUse this exact structure:\n\n{_template(profile)}\n\nTarget ~{budget} tokens." in prompt
    assert prompt.endswith("no preamble and no prefix.") != bool(focus)
    if focus:
        assert f'\n\nFOCUS TOPIC: "{focus}"\n' in prompt


# --- redaction ----------------------------------------------------------------------------------


@settings(max_examples=1500, deadline=None)
@given(texts, st.booleans())
def test_redaction_with_the_new_gates_equals_the_reference_gates(text, discord):
    assert redact_sensitive_text(text, release="v0.15.1" if discord else "v0.16.0") == _ungated(text, discord)


@settings(max_examples=600, deadline=None)
@given(st.lists(texts, max_size=8), st.booleans())
def test_redact_many_equals_redacting_each_text(items, discord):
    expected = [_ungated(t, discord) for t in items]
    assert redact_many(items, release="v0.15.1" if discord else "v0.16.0") == expected
    assert [redact_sensitive_text(t, release="v0.15.1" if discord else "v0.16.0") for t in items] == expected


# The v0.18.0 passes' words, schemes and separators, with the letters IGNORECASE folds onto ASCII ones.
_CONFIG_PIECES = [
    "api", "key", "Api-Key", "api key", "api.key", "apİ_key", "APIKEY", "token", "TOKEN", "ToKen", "secret", "ſecret",
    "passwd", "password", "PASSW", "credential", "credentıal", "auth", "AUTH", "\u212aey", "db.", "x.", ".y", "export ",
    "=", "='", '="', "'", '"', "os.getenv(", "process.env.X", "$ENV{", "&", " ", "\n", "\t", "://", "https://",
    "postgres://", "mysql://", "REDİS://", "ſsh://", "user", ":", "@", "abcdefghijklmnop", "v4lu3", "é", "—",
    "\r\n", "self.config.", "os.environ.", "a.b.c.d", "$", ";",
]
config_texts = st.lists(st.one_of(st.sampled_from(_CONFIG_PIECES), st.sampled_from(_PIECES), st.text(max_size=4)),
                        max_size=20).map("".join)


# The spec's own pre-checks of the passes whose gates look further (for a key word, a scheme, an "@").
_SPEC_PRE_CHECKS = {"config-key": lambda t: "=" in t and "://" not in t, "database-url": lambda t: "://" in t,
                    "url-userinfo": lambda t: "://" in t}


def _spec_redaction(text: str, release: str) -> str:
    """A release's passes behind the spec's pre-checks for the passes above (their own gates for the rest)."""
    for redaction_pass in H.passes_for(release):
        if _SPEC_PRE_CHECKS.get(redaction_pass.kind, redaction_pass.gate)(text):
            text = redaction_pass.apply(text)
    return text


@settings(max_examples=1500, deadline=None)
@given(config_texts, st.sampled_from(sorted(H.REDACTIONS)))
def test_the_narrower_gates_skip_only_passes_that_change_nothing(text, release):
    """The config keys' gate (a key word first), the database URL's (a scheme) and the URL userinfo's
    (an "@") are false only where the spec's pre-check lets the pass run for nothing, in every
    release, text by text and in a batch."""
    expected = _spec_redaction(text, release)
    assert redact_sensitive_text(text, release=release) == expected
    assert redact_many([text, "token=", text], release=release) == [expected, _spec_redaction("token=", release),
                                                                     expected]


@settings(max_examples=1500, deadline=None)
@given(config_texts)
def test_the_dotted_config_key_is_substituted_line_by_line_as_in_the_whole_text(text):
    """The dotted config key's pass substitutes only the lines with an "=" and a key word: the same
    text as the pattern's substitution over the whole text, in v0.18.0 and from v0.18.1 on."""
    whole_v0_18_0 = H._DOTTED_KEY_RE.sub(
        lambda m: f"{m.group(1)}={m.group(2)}{mask_secret(m.group(3))}{m.group(2)}", text)
    whole_v0_18_1 = H._DOTTED_KEY_RE.sub(H._ENV_KEEP_LOOKUPS, text)
    dotted = [p for release in ("v0.18.0", "v0.18.1") for p in H.passes_for(release) if p.pattern is H._DOTTED_KEY_RE]
    assert [p.apply(text) for p in dotted] == [whole_v0_18_0, whole_v0_18_1]


def test_the_key_words_fold_every_letter_ignorecase_matches():
    """``Literals.any_in_ignorecase`` (the config keys' and the error words' check) lowers the text after
    folding ``CASE_BLIND_EXTRAS``: every character IGNORECASE matches to an ASCII letter becomes that
    letter (the four non-ASCII ones included)."""
    ascii_letter = re.compile("[a-z]", re.IGNORECASE)
    for code in range(0x110000):
        char = chr(code)
        if ascii_letter.fullmatch(char):
            folded = CASE_BLIND_EXTRAS.get(char, char).lower()
            assert re.fullmatch(folded, char, re.IGNORECASE) and folded.isascii(), hex(code)


# Every alternative of the spec's key word, in a few spellings the patterns accept.
_KEY_WORD_SPELLINGS = ["apikey", "api key", "api_key", "api.key", "api-key", "API-KEY", "token", "Token", "secret",
                       "passwd", "password", "PASSWORD", "credential", "auth", "Auth", "apİ_key", "ſecret",
                       "\u212aEY_token", "credentıal", "passworD"]


def test_config_keys_with_every_key_word_are_still_masked():
    texts = [f"{prefix}{word}{suffix}=v4lu3" for word in _KEY_WORD_SPELLINGS
             for prefix, suffix in (("db.", ""), ("", ".x"), ("export ", ""), ("", ""), ("  x_", "_y"))]
    for text in texts:
        for release in ("v0.18.0", "v0.18.1"):
            assert redact_sensitive_text(text, release=release) == _spec_redaction(text, release), (text, release)
            assert redact_many([text], release=release) == [_spec_redaction(text, release)]
            if " " not in text.strip():
                assert "v4lu3" not in redact_sensitive_text(text, release=release), (text, release)


def test_redact_many_keeps_every_text_apart():
    # A value ending one text and one opening the next must not be joined into a match.
    items = ["export API_TOKEN=", "abcdefghijklmnopqrstu", "bot12345678", ":" + "x" * 40, "postgres://u:", "pw@h", ""]
    assert redact_many(items) == [_ungated(t) for t in items]
    assert redact_many(["sk-", "abcdefghijklmnop"]) == ["sk-", "abcdefghijklmnop"]


@settings(max_examples=1500, deadline=None)
@given(texts)
def test_each_probe_finds_a_match_exactly_where_its_pattern_does(text):
    assert (H._ENV_PROBE_RE.search(text) is None) == (H._ENV_RE.search(text) is None)
    assert (H._AUTH_PROBE_RE.search(text) is None) == (H._AUTH_HEADER_RE.search(text) is None)
    assert (H._TELEGRAM_PROBE_RE.search(text) is None) == (H._TELEGRAM_RE.search(text) is None)
    assert (H._JSON_PROBE_RE.search(text) is None) == (H._JSON_FIELD_RE.search(text) is None)
    if H._DB_URL_RE.search(text):
        assert H._DB_SCHEME_RE.search(text)
    if H._VENDOR_RE.search(text):
        assert H._has_vendor_start(text)


@settings(max_examples=800, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([*H._VENDOR_STARTS, "xoxp-", "xoxs-", "fw-", "fpk_"]), st.text(alphabet="aZ09_-.=@ \x00é", max_size=30)), max_size=10).map("".join))
def test_vendor_gate_never_misses_a_vendor_key(text):
    for pattern in (H._VENDOR_RE, H._VENDOR_RE_V0_17_0, H._VENDOR_RE_V0_18_0, H._VENDOR_RE_V0_18_1):
        if pattern.search(text):
            assert H._has_vendor_start(text)
            assert H._has_vendor_start("—" + text + "—")


def test_vendor_gate_finds_every_literal_after_a_boundary_only():
    for literal in H._VENDOR_STARTS:
        filler = {"xox": "b-", "xapp-": "1-"}.get(literal, "")
        key = literal + filler + "A" * (16 if literal == "AKIA" else 40)
        for before in ("", " ", "\x00", "(", "—", "\n"):
            assert H._has_vendor_start(before + key), (before, literal)
            assert H._VENDOR_RE_V0_18_1.search(before + key), (before, literal)
        for before in ("a", "Z", "0", "_", "-"):
            assert not H._VENDOR_RE_V0_18_1.search(before + key)


def test_json_probe_letters_fold_like_the_key_alternatives():
    """``(?i)[atsprbk]`` matches exactly the characters one of the keys' first letters matches."""
    klass = re.compile("[atsprbk]", re.IGNORECASE)
    letters = re.compile("a|t|s|p|r|b|k", re.IGNORECASE)
    for code in range(0x110000):
        char = chr(code)
        assert (klass.match(char) is None) == (letters.match(char) is None), hex(code)


# --- rough estimates ----------------------------------------------------------------------------


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=[chr(c) for c in range(128)], max_size=700))
def test_ascii_repr_length_equals_python_repr(text):
    assert _ascii_repr_len(text) == len(repr(text))
    assert _ascii_repr_len(text * 3) == len(repr(text * 3))


class _Color(enum.IntEnum):
    RED = 1


class _Tagged(dict):
    def __repr__(self) -> str:
        return "tagged"


_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=40),
    st.text(min_size=256, max_size=400), st.text(alphabet=[chr(c) for c in range(128)], min_size=250, max_size=600),
    st.just(_Color.RED), st.builds(_Loud, st.text(max_size=5)),
)
_value = st.recursive(_leaf, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=4), c, max_size=3), st.tuples(c)), max_leaves=6)


@st.composite
def _estimated_message(draw):
    kind = draw(st.integers(0, 12))
    if kind == 0:
        return draw(st.sampled_from(["plain string", 5, None]))
    message: dict[str, Any] = {"role": draw(st.sampled_from(["user", "assistant", "tool"]))}
    message["content"] = draw(st.one_of(_leaf, st.just([{"type": "image_url", "image_url": {"url": "u"}}, "t"]),
                                        st.just({"_multimodal": True, "text_summary": "s"})))
    if kind <= 6:
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            function = draw(st.one_of(
                st.fixed_dictionaries({"name": _leaf, "arguments": _leaf}),
                st.dictionaries(st.sampled_from(["name", "arguments", 3, None]), _value, max_size=3),
                _value,
            ))
            calls.append(draw(st.one_of(
                st.fixed_dictionaries({"id": _leaf, "type": st.just("function"), "function": st.just(function)}),
                st.just(function), st.just(_Tagged(a=1)),
            )))
        message["tool_calls"] = calls if draw(st.integers(0, 5)) else tuple(calls)
    if kind == 7:
        message["_anthropic_content_blocks"] = [{"type": "image"}]
    if kind == 8:
        message[draw(st.sampled_from(["name", "x", 3]))] = draw(_value)
    if kind == 9:
        return _Tagged(message)
    return message


@settings(max_examples=250, deadline=None)
@given(st.lists(_estimated_message(), max_size=12), st.booleans())
def test_rough_estimate_equals_str_of_the_shadow(messages, repeat):
    # Repeating the list crosses the batch size, and the second pass meets remembered lengths.
    if repeat:
        messages = messages * (300 // max(1, len(messages)))
    assert estimate_messages_tokens_rough(messages) == _reference_estimate(messages)
    assert estimate_messages_tokens_rough(messages) == _reference_estimate(messages)
    for message in messages[:12]:
        chars, _images = message_rough_chars(message)
        if isinstance(message, dict) and type(message) is dict and "_anthropic_content_blocks" not in message:
            if not isinstance(message.get("content"), (list, dict)):
                assert chars == len(str(message))


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(_value, st.dictionaries(st.one_of(st.text(max_size=4), st.integers()), st.one_of(_leaf, st.dictionaries(st.text(max_size=4), _value, max_size=3)), max_size=4)), max_size=4))
def test_tool_call_lengths_are_exact_or_left_to_repr(calls):
    got = _calls_repr_len(calls)
    assert got is None or got == len(repr(calls))


def test_a_self_referencing_tool_call_is_left_to_repr():
    call: dict[str, Any] = {"id": "1"}
    call["function"] = {"name": "x", "arguments": "y" * 300, "me": call}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    assert _calls_repr_len([call]) is None
    assert estimate_messages_tokens_rough([message]) == (len(str(message)) + 3) // 4
