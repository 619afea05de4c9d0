"""The strict layer's literal look-ups (one Aho-Corasick pass instead of a substring search or a
pattern search per literal) answer as the searches they replaced, which are kept here as oracles."""

from __future__ import annotations

import random
import re

from core.literals import Literals
from core.redaction.strict import command_line, labels, plugins, prose, vendor
from core.redaction.strict.common import ASCII_LOWER

# Pieces that hold the literals, their overlaps (sk- in sk-ant-, pw in pwd), near misses and case variants.
_PIECES = ["sk-ant-", "sk-", "sk_", "_live_", "bb_live_", "A", "AKIA", "gh", "ghp_", "gl", "SK", "SG.", "sg.",
           "_authToken", "https://", "://", "7z", "mysql", "-cli", "login", "LOGIN", "pass", "passed", "passage",
           "pwd", "pw", " ", "pw-", "secret", "tokens", "token", "tokenize", "key", "keys", "keyboard", "auth",
           "author", "authentic", "credential", "creds", "cred", "session", "sessions", "sid", "signature", "sig",
           "bearer", "jwt", "hmac", "passwort", "password", "hasło", "haslo", "пароль", "mot de passe", "mdp",
           "ac", "x", "_", "=", ":", "\n", "é", "ß"]


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12))) for _ in range(count)]


def test_literals_find_what_substring_search_finds() -> None:
    literals = Literals(["sk-ant-", "sk-", "A", "gh", "7z", "https://", "://", "пароль", "sk-"])
    wanted = ("sk-ant-", "sk-", "A", "gh", "7z", "https://", "://", "пароль")
    texts = _texts(5_000, 1)
    assert [t for t in texts if literals.found_in(t) != {w for w in wanted if w in t}] == []
    assert [t for t in texts if literals.any_in(t) != any(w in t for w in wanted)] == []
    assert sum(literals.any_in(t) for t in texts) > 1_000 and sum(not literals.any_in(t) for t in texts) > 100
    assert Literals([]).found_in("abc") == frozenset() and not Literals([]).any_in("abc")


def test_each_family_s_literals_answer_as_its_former_searches() -> None:
    sentence_gate = re.compile(  # the pattern prose's literals replaced
        r"passwort|kennwort|contrase|clave|mot de passe|mdp|senha|wachtwoord|has[łl]o|senord|adgangskode|passord"
        r"|salasana|ifre|parola|heslo|jelsz|пароль|password"
    )
    plugin_gates = {gate for _m, _c, gates, _k in plugins._PLUGINS for gate in gates if isinstance(gate, str)}
    vendor_literals = {*vendor.VENDOR_GATES, "SG.", "_authToken", "https://"}
    for text in _texts(5_000, 2):
        low = text.translate(ASCII_LOWER)
        assert prose._SENTENCE_GATE.any_in(low) == bool(sentence_gate.search(low)), text
        assert command_line._TOOL_LITERALS.any_in(low) == any(g in low for g in command_line._TOOL_GATES), text
        assert plugins._LITERAL_GATES.found_in(low) == {g for g in plugin_gates if g in low}, text
        assert vendor._SCAN_LITERALS.found_in(text) == {g for g in vendor_literals if g in text}, text


def test_label_stems_are_the_pattern_s_own_matches() -> None:
    """Tried only where a stem starts, the stem pattern gives the matches its search gives, overlaps
    (``pwd`` after ``pw``, ``credential`` holding ``cred``) and look-aheads (``passed``, ``keys``) included."""
    texts = [text.translate(ASCII_LOWER) for text in _texts(5_000, 3)]
    found = 0
    for low in texts:
        expected = [m.span() for m in labels._STEM_RE.finditer(low)]
        assert [m.span() for m in labels.stems(low)] == expected, low
        found += len(expected)
    assert found > 10_000
