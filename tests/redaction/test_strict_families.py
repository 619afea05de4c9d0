"""The strict layer's families of credentials: each shape in several forms, and its look-alikes.

Every case of a family is masked in every placement an agent transcript gives it (a user's text, a
tool argument, a JSON string escaped inside another), and every look-alike survives unchanged. The
families are registered one per module (``core.redaction.strict.registry``).
"""

from __future__ import annotations

import json

import pytest

from core.redaction.strict import detectors, find_secrets, strict_redact

# (text, the secret in it): several forms of each shape, not one literal string.
COMMAND_LINE = [
    ("mysql -u root -p'S3cr3t!Pass' shop", "S3cr3t!Pass"),
    ('mysql -uadmin -p"Tr0ub4dor&3" -h db.internal', "Tr0ub4dor&3"),
    ("mysqldump -u backup -p'N0t-Safe_2024' shop > dump.sql", "N0t-Safe_2024"),
    ("docker exec -it db mysql -uroot -pPlainMysqlPw42 -e 'select 1'", "PlainMysqlPw42"),
    ("docker login -u deploy -p dckrSecretPass42 registry.example.com", "dckrSecretPass42"),
    ("docker login --password 'Sup3r S3cret' ghcr.io", "Sup3r S3cret"),
    ("podman login quay.io -u bot --password=QuayPass2024", "QuayPass2024"),
    ("helm registry login registry.acme.io --username ci -p HelmP4ss", "HelmP4ss"),
    ("echo 'EchoedSecret77' | docker login -u bot --password-stdin registry.io", "EchoedSecret77"),
    ('echo -n "Another#Secret" | podman login --username me --password-stdin quay.io', "Another#Secret"),
    ("printf '%s' 'Printf_Pass9' | nerdctl login --password-stdin -u ci reg.example", "Printf_Pass9"),
    ("docker login ghcr.io -u me --password-stdin <<< 'HereString5'", "HereString5"),
    ("htpasswd -b -c /etc/nginx/.htpasswd admin Adm1n!2024", "Adm1n!2024"),
    ("htpasswd -bB .htpasswd alice s3cretPW", "s3cretPW"),
    ("sudo htpasswd -nb webuser plainpassword", "plainpassword"),
    ("redis-cli -h cache -a 'R3dis!pass' ping", "R3dis!pass"),
    ("mongosh --host db -u root -p Mongo#Pass1 --authenticationDatabase admin", "Mongo#Pass1"),
    ("ldapsearch -x -D cn=admin,dc=example,dc=org -w LdapPass123 -b dc=example,dc=org", "LdapPass123"),
    ("smbclient //fs/share -U alice%Smb-Pass-99", "Smb-Pass-99"),
    ("zip -r -P ZipSecret42 backup.zip data/", "ZipSecret42"),
    ("7z a -pSevenZipPw1 archive.7z files/", "SevenZipPw1"),
    ("keytool -importkeystore -srcstorepass Changeit99 -deststorepass Newpass77", "Changeit99"),
    ("rabbitmqctl add_user ops Rabbit-Pw-3", "Rabbit-Pw-3"),
    ("net user backup Bkp!Pass2024 /add", "Bkp!Pass2024"),
    ("wget --user=ci --password=WgetPw2024 https://files.example.com/x.tgz", "WgetPw2024"),
    ("deploy.sh --db-password=plainword --verbose", "plainword"),
]
COMMAND_LINE_LOOK_ALIKES = [
    "mysql -u root -p shop",  # -p with a space prompts; "shop" is the database
    "mysql -u root -p",
    "docker run -p 8080:80 nginx",
    "docker login -u deploy registry.example.com",
    "cat token.txt | docker login --password-stdin -u bot",
    'echo "$REGISTRY_TOKEN" | docker login --password-stdin -u bot',
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "ssh -p 2222 deploy@host",
    "ls -p /tmp && grep -p pattern file",
    "docker login -p $DOCKER_PASSWORD registry.io",
    "deploy.sh --password-file=/run/secrets/db --password-stdin",
    "redis-cli -h cache ping",
    "net user /domain",
]

CREDENTIAL_FILES = [
    ("db.internal:5432:shop:app_user:Pg$ecret2024", "Pg$ecret2024"),
    ("*:*:*:postgres:pgpass123", "pgpass123"),
    ("cat ~/.pgpass\nlocalhost:5432:*:replicator:R3pl!ca\n", "R3pl!ca"),
    ("machine ftp.example.com login alice password ftpsecret", "ftpsecret"),
    ("machine api.example.com\n  login bot\n  password Netrc-Pw-8", "Netrc-Pw-8"),
    ("    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB",
     "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB"),
]
CREDENTIAL_FILE_LOOK_ALIKES = [
    "INFO:12:app:user:started",
    "12:30:45:100:200",
    "host:5432:db:user",
    "fe80::1:2:3:4",
    "machine learning login flow and password reset",
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURkekNDQWwrZ0F3SUJBZ0lFQWdBQUF1",  # a certificate, not a key
]

PROSE = [
    ("Log in with admin / P@ssw0rd123 on the staging box.", "P@ssw0rd123"),
    ("login: root / Toor!2023", "Toor!2023"),
    ("You can sign in as alice | Wonderland#42 for now.", "Wonderland#42"),
    ("The staging password (Staging!Pw9) expires on Friday.", "Staging!Pw9"),
    ("Use the pwd (hunter2Q!) for the VPN.", "hunter2Q!"),
    ("Das Passwort lautet Sommer2024! und gilt bis Montag.", "Sommer2024!"),
    ("Das Passwort für den Server ist: Geheim#123", "Geheim#123"),
    ("Kennwort: Kw-9981x", "Kw-9981x"),
    ("La contraseña es Verano2024! para todos.", "Verano2024!"),
    ("la clave de acceso es «Acc3so!»", "Acc3so!"),
    ("Le mot de passe est Soleil2024! pour le wifi.", "Soleil2024!"),
    ("mot de passe : Mdp#4567", "Mdp#4567"),
    ("La password è Estate2024! per tutti.", "Estate2024!"),
    ("A senha é Verao#2024 agora.", "Verao#2024"),
    ("Het wachtwoord is Zomer2024! vanaf vandaag.", "Zomer2024!"),
    ("the secret word is swordfish", "swordfish"),
    ("The magic word is 'xyzzy'.", "xyzzy"),
    ("Code word: bluebird", "bluebird"),
    ("Your PIN is 4711.", "4711"),
    ("pin code: 908172", "908172"),
]
PROSE_LOOK_ALIKES = [
    "Log in with Google / GitHub or your email.",
    "sign in via SSO / SAML2 only",
    "login with email / password",
    "The password (optional) is asked for later.",
    "The password (see vault) rotates weekly.",
    "password (sha256) hashes are stored",
    "password = request.POST.get(\"password\")",
    "Das Passwort ist falsch.",
    "La contraseña es incorrecta.",
    "Le mot de passe est trop court.",
    "the secret word is that nobody knows",
    "The PIN is required before checkout.",
    "The secret code is in the vault.",
]

ZERO_WIDTH = "\u200b"
OBFUSCATED = [
    (f"key: sk-proj-Ab3dE{ZERO_WIDTH}fGh1jK2lMn3oPq4rSt5uVw6", f"sk-proj-Ab3dE{ZERO_WIDTH}fGh1jK2lMn3oPq4rSt5uVw6"),
    (f"AKIA{ZERO_WIDTH}IOSFODNN7EXAMPLE in the env", f"AKIA{ZERO_WIDTH}IOSFODNN7EXAMPLE"),
    ("ｓｋ－ｐｒｏｊ－Ａｂ３ｄＥｆＧｈ１ｊＫ２ｌＭｎ３ｏＰｑ４ｒ", "ｓｋ－ｐｒｏｊ－Ａｂ３ｄＥｆＧｈ１ｊＫ２ｌＭｎ３ｏＰｑ４ｒ"),
    ("token ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ", "ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ"),
    (f"password=hun{ZERO_WIDTH}ter2!Go", f"hun{ZERO_WIDTH}ter2!Go"),
    ("ghp_\u200d1234567890abcdefghijABCDEFGHIJ123456", "ghp_\u200d1234567890abcdefghijABCDEFGHIJ123456"),
    ("𝐬𝐤-𝐩𝐫𝐨𝐣-𝐀𝐛𝟑𝐝𝐄𝐟𝐆𝐡𝟏𝐣𝐊𝟐𝐥𝐌𝐧𝟑𝐨𝐏", "𝐬𝐤-𝐩𝐫𝐨𝐣-𝐀𝐛𝟑𝐝𝐄𝐟𝐆𝐡𝟏𝐣𝐊𝟐𝐥𝐌𝐧𝟑𝐨𝐏"),
]
OBFUSCATED_LOOK_ALIKES = [
    "family emoji 👨\u200d👩\u200d👧 in a commit message",
    "ＡＢＣ社の会議は明日です",
    "word\u200bjoiner in prose",
]

CASES = [*COMMAND_LINE, *CREDENTIAL_FILES, *PROSE, *OBFUSCATED]
LOOK_ALIKES = [*COMMAND_LINE_LOOK_ALIKES, *CREDENTIAL_FILE_LOOK_ALIKES, *PROSE_LOOK_ALIKES, *OBFUSCATED_LOOK_ALIKES]


def _placements(text: str) -> list[tuple[str, str]]:
    """The text as a user writes it, as a tool argument, and as JSON escaped inside another string."""
    argument = json.dumps({"command": text})
    return [("plain", text), ("argument", argument), ("escaped", json.dumps({"arguments": argument}))]


def _in(secret: str, placement: str) -> str:
    """The secret as it appears in a placement (escaped like the text around it)."""
    if placement == "plain":
        return secret
    escaped = json.dumps(secret)[1:-1]
    return escaped if placement == "argument" else json.dumps(escaped)[1:-1]


@pytest.mark.parametrize(("text", "secret"), CASES, ids=[text[:40] for text, _ in CASES])
def test_each_shape_is_masked_in_every_placement(text: str, secret: str) -> None:
    for placement, placed in _placements(text):
        hidden = _in(secret, placement)
        assert hidden in placed
        redacted = strict_redact(placed)
        assert hidden not in redacted, f"{placement}: {redacted!r}"
        assert len(redacted) < len(placed) or "***" in redacted


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[text[:40] for text in LOOK_ALIKES])
def test_look_alikes_stay_untouched(text: str) -> None:
    for placement, placed in _placements(text):
        assert strict_redact(placed) == placed, (placement, find_secrets(placed))


def test_a_folded_key_masks_the_original_characters_and_keeps_the_text_around_it() -> None:
    text = f"before sk-proj-Ab3dE{ZERO_WIDTH}fGh1jK2lMn3oPq4rSt5uVw6 after"
    spans = find_secrets(text)
    assert len(spans) == 1
    span = spans[0]
    assert text[span.start:span.end] == f"sk-proj-Ab3dE{ZERO_WIDTH}fGh1jK2lMn3oPq4rSt5uVw6"
    assert span.masked == "sk-pro...uVw6"  # the mask is shaped from the folded key
    assert strict_redact(text) == "before sk-pro...uVw6 after"


def test_every_family_is_registered_once_and_says_what_it_catches() -> None:
    names = [family.name for family in detectors()]
    assert len(names) == len(set(names))
    assert {"command_line", "credential_files", "prose", "labels", "vendor", "private_keys"} <= set(names)
    assert all(family.catches for family in detectors())


def test_the_foldable_pattern_finds_what_its_two_part_form_found() -> None:
    """The class and the escape are one scan now; the class-or-look-behind alternation it replaced
    is the oracle, on runs of backslashes, escapes, surrogate halves and folded characters."""
    import random
    import re

    from core.redaction.strict.folding import _ESCAPE_REST, _foldable

    pattern = _foldable()
    spans = pattern.pattern[1 : pattern.pattern.index("\\\\](?:")]
    oracle = re.compile(f"[{spans}]|(?<!\\\\)\\\\++u" + _ESCAPE_REST.split("\\\\*+u", 1)[1])
    pieces = ["\\", "\\\\", "u", "d83d", "\\ude00", "D800", "dc00", "0041", "0007", "00", "ＡＢ", "x", " ", "\u200b",
              "ff", "\\u", "\\\\u0041", "𝐀"]
    rng = random.Random(3)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(40_000)]
    differ = [text for text in texts
              if [m.span() for m in pattern.finditer(text)] != [m.span() for m in oracle.finditer(text)]]
    assert differ == []
    assert sum(1 for text in texts if pattern.search(text)) > 1_000


def test_ascii_text_is_folded_only_for_its_escapes() -> None:
    """Only an escape folds in ASCII text: the quick answer for ASCII text without one agrees with
    the pattern's scan, and an ASCII escape of a disguised key is still folded."""
    import random

    from core.redaction.strict.folding import fold

    pieces = ["\\", "u", "\\u", "0041", "ff21", "d83d", "\\\\", "x", "key", " ", "\n", "uFF21", "\\U0041"]
    rng = random.Random(5)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert (fold(text) is None) == _folds_nothing(text), text
    escaped = "sk-proj-\\uff21b3dEfGh1jK2lMn3oPq4rSt5uVw6"  # a full-width A written as a JSON escape
    assert fold(escaped) is not None and fold(escaped).text == "sk-proj-Ab3dEfGh1jK2lMn3oPq4rSt5uVw6"


def _folds_nothing(text: str) -> bool:
    """What the fold's scan says, without its quick answer for ASCII text."""
    from core.redaction.strict.folding import _decoded, _foldable, _table

    table = _table()
    for match in _foldable().finditer(text):
        found = match.group()
        if found[0] != "\\":
            return False
        char = _decoded(found)
        if char is not None and table.get(char, char) != found:
            return False
    return True
