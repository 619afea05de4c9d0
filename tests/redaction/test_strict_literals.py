"""The strict layer's literal look-ups (one Aho-Corasick pass instead of a substring search or a
pattern search per literal) answer as the searches they replaced, which are kept here as oracles."""

from __future__ import annotations

import random
import re

from core.literals import Literals, matches_at
from core.redaction.strict import command_line, labels, plugins, prose, vendor
from core.redaction.strict.common import ASCII_LOWER

# Pieces that hold the literals, their overlaps (sk- in sk-ant-, pw in pwd), near misses and case variants.
_PIECES = ["sk-ant-", "sk-", "sk_", "_live_", "bb_live_", "A", "AKIA", "gh", "ghp_", "gl", "SK", "SG.", "sg.",
           "_authToken", "https://", "://", "7z", "mysql", "-cli", "login", "LOGIN", "pass", "passed", "passage",
           "pwd", "pw", " ", "pw-", "secret", "tokens", "token", "tokenize", "key", "keys", "keyboard", "auth",
           "author", "authentic", "credential", "creds", "cred", "session", "sessions", "sid", "signature", "sig",
           "bearer", "jwt", "hmac", "passwort", "password", "hasło", "haslo", "пароль", "mot de passe", "mdp",
           "ac", "x", "_", "=", ":", "\n", "é", "ß", "docker", "az", "7za", "mongosh", "redis-cli", "smbclient",
           "ssh-keygen", "mosquitto_pub", "zipcloak", "-"]


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
        names = {name for tools, _also, _flags in command_line._FLAG_TABLE for name in command_line._NAMES[tools]}
        assert command_line._TOOL_NAMES.found_in(low) == {name for name in names if name in low}, text
        starts = command_line._TOOL_NAMES.starts_in(low)
        assert starts == {name: [m.start() for m in re.finditer(f"(?={re.escape(name)})", low)]
                          for name in names if name in low}, text
        for tools, _also, _flags in command_line._FLAG_TABLE:  # a row's match starts where one of its names does
            tried = any(tools.match(low, start) for name in command_line._NAMES[tools] for start in starts.get(name, ()))
            assert tried == (tools.search(low) is not None), text
        assert plugins._LITERAL_GATES.found_in(low) == {g for g in plugin_gates if g in low}, text
        assert vendor._SCAN_LITERALS.found_in(text) == {g for g in vendor_literals if g in text}, text


def test_patterns_tried_where_their_words_start_give_their_own_matches() -> None:
    """Tried only where one of its words starts, each pattern gives the matches its search gives:
    overlaps (``pwd`` after ``pw``, ``credential`` holding ``cred``) and look-aheads (``passed``,
    ``keys``) included."""
    rows = [(labels._STEM_RE, labels._STEMS), (prose._LOGIN_RE, prose._LOGIN_STARTS),
            (prose._BRACKETED_RE, prose._BRACKETED_STARTS), (prose._SECRET_WORD_RE, prose._SECRET_WORD_STARTS)]
    texts = [text.translate(ASCII_LOWER) for text in _texts(5_000, 3)]
    texts += [text.translate(ASCII_LOWER) for text in _sentences(3_000, 4)]
    found = [0] * len(rows)
    for low in texts:
        for index, (pattern, words) in enumerate(rows):
            expected = [m.span() for m in pattern.finditer(low)]
            assert [m.span() for m in matches_at(pattern, low, words)] == expected, (pattern.pattern[:40], low)
            found[index] += len(expected)
    assert found[0] > 5_000 and min(found[1:]) > 50  # every pattern had matches to give


def _sentences(count: int, seed: int) -> list[str]:
    """Lines in the shapes the prose patterns read: log-in pairs, bracketed and secret-word values."""
    rng = random.Random(seed)
    heads = ["login with", "log in as", "Sign-in:", "credentials:", "creds =", "password (", "pwd is (",
             "Kennwort ist (", "mot de passe (", "secret word is", "magic phrase:", "PIN:", "pin code is",
             "passcode =", "safe code:", "logon to", "x-login with"]
    values = ["admin/S3cr3t!x", "root|hunter2?", "Tr0ub4dor&3)", "1234", "827364 ", "'quoted-value'", "abc)"]
    return [" ".join(rng.choice(heads) + " " + rng.choice(values) for _ in range(rng.randint(1, 4)))
            for _ in range(count)]
