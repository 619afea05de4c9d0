"""Passwords given to a command on its command line.

* a flag of a known tool: ``curl -u user:pw``, ``mysql -p'pw'`` (attached, quoted or not: ``-p pw``
  with a space prompts instead, and ``pw`` is then the database), ``sshpass -p``, ``sqlcmd -P``,
  ``docker login -p`` / ``--password`` (also podman, nerdctl, buildah, skopeo, oras, crane, helm
  registry, ``az login``), ``redis-cli -a``, ``mongosh -p``, ``ldapsearch -w``, ``smbclient -U
  user%pw``, ``zip -P``, ``7z -p``, ``keytool -storepass``, ``mosquitto_pub -P``, ``openssl -pass
  pass:``, ``ssh-keygen -N``; the tool must start the same command (after the last ``|``, ``;`` or
  ``&&`` of the line), so ``docker run -p 8080:80`` keeps its port;
* ``--anything-password=value`` for any command (the ``=`` form always carries the value);
* the value echoed into a ``--password-stdin`` login (``echo 'pw' | docker login --password-stdin``,
  a here-string or a here-document);
* positional passwords: ``htpasswd -b file user pw``, ``rabbitmqctl add_user user pw``, ``net user
  name pw``.

Every pattern starts at a flag's literal dash or a tool's name, and each run it scans is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.literals import Literals
from core.redaction.strict import label_words as W
from core.redaction.strict.common import after_space, is_masked, is_placeholder
from core.redaction.strict.registry import Candidate, TextView, detector

_SPACE_OR_EQUALS = r"(?:[ \t]++|=)"


def _value(group: str = "v") -> str:
    """A value after a flag: quoted (possibly with escaped quotes, inside JSON) or a bare word that is
    not the next flag. Every named group of the patterns below whose name starts with "v" holds the
    value; ``group`` tells the values of two flags of one pattern apart."""
    return rf"(?:\\{{0,7}}[\"'](?P<{group}q>[^\"'\\\r\n]{{1,300}})|(?P<{group}b>(?!-)[^\s\"'\\;&|]{{3,300}}))"


def _flag(flag: str, *, attached: bool = False, spaced: bool = True, group: str = "v") -> str:
    """A flag and its value: ``-fVALUE`` when ``attached``, ``-f VALUE`` / ``-f=VALUE`` when ``spaced``."""
    forms = []
    if spaced:
        forms.append(_SPACE_OR_EQUALS)
    if attached:
        forms.append("")
    return f"{flag}(?:{'|'.join(forms)}){_value(group)}"


# Each tools pattern's names: it can only match where one of them is.
_NAMES: dict[re.Pattern[str], tuple[str, ...]] = {}


def _tools(*names: str) -> re.Pattern[str]:
    pattern = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(name) for name in names) + r")(?![\w-])")
    _NAMES[pattern] = names
    return pattern


_LOGIN_TOOLS = _tools("docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "crane", "finch", "helm", "az",
                      "regctl")
# (tools that must start the command, a word the command must also hold or None, the flag pattern)
_FLAG_TABLE: tuple[tuple[re.Pattern[str], str | None, re.Pattern[str]], ...] = (
    (_tools("mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump",
            "mysqlsh", "mariadb-dump", "mariadb-admin", "mysqlbinlog"), None,
     re.compile(_flag("-p", attached=True, spaced=False))),
    (_tools("sshpass"), None, re.compile(_flag("-p", attached=True))),
    (_tools("sqlcmd", "bcp", "osql", "isql"), None, re.compile(_flag("-P"))),
    (_LOGIN_TOOLS, "login", re.compile(_flag("-p", attached=True) + "|" + _flag("--password", group="v2"))),
    (_tools("redis-cli", "keydb-cli", "valkey-cli"), None,
     re.compile(_flag("-a", attached=True) + "|" + _flag("--pass", group="v2"))),
    (_tools("mongosh", "mongo", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop",
            "mongofiles"), None, re.compile(_flag("-p", attached=True))),
    (_tools("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldappasswd", "ldapwhoami", "ldapcompare",
            "ldapmodrdn", "ldapexop"), None, re.compile(_flag("-w"))),
    (_tools("smbclient", "rpcclient", "smbmap", "smbcacls", "smbget", "net", "nxc", "crackmapexec"), None,
     re.compile(r"(?:-U|--user)(?:[ \t]++|=)\\{0,7}[\"']?[^\s%\"'\\]{1,100}%(?P<vb>[^\s\"'\\]{1,300})")),
    (_tools("zip", "unzip", "zipcloak"), None, re.compile(_flag("-P"))),
    (_tools("7z", "7za", "7zr"), None, re.compile(_flag("-p", attached=True, spaced=False))),
    (_tools("keytool", "jarsigner"), None,
     re.compile(_flag(r"-(?:src|dest|new)?(?:store|key)?pass(?:word)?"))),
    (_tools("apksigner"), None, re.compile(r"--(?:ks|key)-pass[ \t=]++pass:(?P<vb>[^\s\"'\\]{3,300})")),
    (_tools("mosquitto_pub", "mosquitto_sub", "mosquitto_rr"), None, re.compile(_flag("-P"))),
    (_tools("openssl"), None, re.compile(r"-pass(?:in|out)?[ \t]++\\{0,7}[\"']?pass:(?P<vb>[^\s\"'\\]{3,300})")),
    (_tools("ssh-keygen"), None, re.compile(r"-[NP][ \t]++\\{0,7}[\"'](?P<vq>[^\"'\\\r\n]{3,300})")),
)
# Every row's tool names, found in one pass: a row is tried only where one of its names is (its tools
# pattern starts with a look-behind, so a search of its own tries every position of the text).
_TOOL_NAMES = Literals(name for tools, _also, _flags in _FLAG_TABLE for name in _NAMES[tools])

_CURL_USER_RE = re.compile(r"-(?:u|-user)(?:[ \t]++|=)\\{0,7}[\"']?[^\s:\"'\\]{1,100}:([^\s\"'\\]{1,300})")
# --password=..., --db-password=..., --http-password=...: the "=" form always carries the value.
_PASSWORD_FLAG_RE = re.compile(r"--[a-z0-9][a-z0-9-]{0,40}?(?:password|passwd|passphrase)=")  # on the lowered copy
_EQUALS_VALUE_RE = re.compile(_value())
# Where a command starts: the line's start or after a pipe, a ";" or "&&" / "||".
_COMMAND_BREAK_RE = re.compile(r"\|\|?|;|&&|\n|\\n")
_COMMAND_WINDOW = 1000
# What separates two commands (a single "|" does not: it feeds one command into the next).
_SEQUENCE_RE = re.compile(r"\|\||;|&&|\n|\\n")


def audited_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    """The patterns :func:`_tools` and :func:`_flag` build, for ``core.pattern_audit``."""
    for index, (tools, _also, flags) in enumerate(_FLAG_TABLE):
        yield f"{__name__}._FLAG_TABLE[{index}].tools", tools
        yield f"{__name__}._FLAG_TABLE[{index}].flags", flags


def _value_group(match: re.Match[str]) -> tuple[int, int] | None:
    for name, value in match.groupdict().items():
        if value is not None and name.startswith("v"):
            return match.span(name)
    return None


def _command_start(text: str, pos: int) -> int:
    """Where the command holding ``pos`` starts (bounded look back)."""
    window_from = max(0, pos - _COMMAND_WINDOW)
    start = window_from
    for m in _COMMAND_BREAK_RE.finditer(text, window_from, pos):
        start = m.end()
    return start


def _acceptable(value: str) -> bool:
    return (len(value) >= 3 and not is_masked(value) and not is_placeholder(value)
            and value.lower() not in W.STOPWORDS)


def _flag_values(text: str, low: str) -> Iterator[Candidate]:
    starts = _TOOL_NAMES.starts_in(low)
    if not starts:
        return
    for tools, also, pattern in _FLAG_TABLE:
        # A match of ``tools`` starts where one of its names does: tried there only.
        if not any(tools.match(low, start) for name in _NAMES[tools] for start in starts.get(name, ())):
            continue
        for m in pattern.finditer(text):
            if not after_space(text, m.start()):
                continue
            span = _value_group(m)
            if span is None:
                continue
            # The tool is named on the same line before the flag (``docker exec db mysql -p...`` too);
            # a subcommand it needs (docker's "login") is in the same command, after the tool.
            line_from = max(text.rfind("\n", max(0, m.start() - _COMMAND_WINDOW), m.start()) + 1,
                            m.start() - _COMMAND_WINDOW)
            if tools.search(low, line_from, m.start()) is None:
                continue
            if also is not None:
                command = low[_command_start(text, m.start()):m.start()]
                tool = tools.search(command)
                if tool is None or also not in command[tool.end():]:
                    continue
            if _acceptable(text[span[0]:span[1]]):
                yield span[0], span[1], "password"


def _password_flags(text: str, low: str) -> Iterator[Candidate]:
    if "--" not in text or "pass" not in low:
        return
    for m in _PASSWORD_FLAG_RE.finditer(low):
        if not after_space(text, m.start()):
            continue
        value = _EQUALS_VALUE_RE.match(text, m.end())
        span = _value_group(value) if value else None
        if span is not None and _acceptable(text[span[0]:span[1]]):
            yield span[0], span[1], "password"


# echo 'pw' | docker login --password-stdin; printf '%s' "pw" | ...; a here-string or here-document.
_ECHO_RE = re.compile(
    r"(?<![\w-])(?:echo|printf)(?:[ \t]++-[neE]{1,3})*+(?:[ \t]++\\{0,7}([\"'])%s(?:\\\\?n)?\\{0,7}\1)?[ \t]++"
    r"(?:\\{0,7}([\"'])(?P<vq>[^\"'\\\r\n]{1,300})\\{0,7}\2|(?P<vb>[^\s\"'\\|;&]{1,300}))[ \t]*+\|(?!\|)"
)
_STDIN_FLAG = "--password-stdin"
_HERE_STRING_RE = re.compile(r"<<<[ \t]*+(?:\\{0,7}([\"'])(?P<vq>[^\"'\\\r\n]{1,300})\\{0,7}\1|(?P<vb>[^\s\"'\\]{1,300}))")
_HERE_DOC_RE = re.compile(r"<<-?[ \t]*+([\"']?)(?P<tag>[A-Za-z_]\w{0,30})\1[^\n]{0,200}\n(?P<vb>[^\n]{1,300})\n")


def _stdin_values(text: str, low: str) -> Iterator[Candidate]:
    start = low.find(_STDIN_FLAG)
    while start != -1:
        line_from = max(text.rfind("\n", max(0, start - _COMMAND_WINDOW), start) + 1, start - _COMMAND_WINDOW, 0)
        pipe_to = text.rfind("|", line_from, start)
        if pipe_to != -1:
            for m in _ECHO_RE.finditer(text, line_from, pipe_to + 1):
                # the echo feeds the login through pipes only, with no other command in between
                if _SEQUENCE_RE.search(text, m.end(), start) is None:
                    span = _value_group(m)
                    if span is not None and _acceptable(text[span[0]:span[1]]):
                        yield span[0], span[1], "password"
        line_end = text.find("\n", start)
        rest_to = len(text) if line_end == -1 else line_end
        here = _HERE_STRING_RE.search(text, start, rest_to)
        if here is None and "<<" in text[start:rest_to]:
            here = _HERE_DOC_RE.search(text, start, min(len(text), rest_to + 302))
        if here is not None:
            span = _value_group(here)
            if span is not None and _acceptable(text[span[0]:span[1]].strip()):
                yield span[0], span[1], "password"
        start = low.find(_STDIN_FLAG, start + len(_STDIN_FLAG))


# Positional passwords: the tool, its options, then the arguments in a fixed order.
_POSITIONAL_RE = re.compile(
    r"(?<![\w-])(?:"
    r"htpasswd(?P<htflags>(?:[ \t]++-[A-Za-z]{1,6}(?:[ \t]++\d{1,3}(?=[ \t]))?)*+)"
    r"(?P<htargs>(?:[ \t]++(?!-)(?:\\{0,7}[\"'][^\"'\\\r\n]{1,300}\\{0,7}[\"']|[^\s\"'\\|;&]{1,300})){2,3})"
    r"|rabbitmqctl[ \t]++(?:add_user|change_password)[ \t]++[^\s\"'\\]{1,100}[ \t]++"
    r"(?:\\{0,7}[\"'](?P<rq>[^\"'\\\r\n]{1,300})|(?P<rb>[^\s\"'\\|;&]{3,300}))"
    r"|net[ \t]++user[ \t]++[^\s\"'\\/]{1,100}[ \t]++(?:\\{0,7}[\"'](?P<nq>[^\"'\\\r\n]{1,300})"
    r"|(?P<nb>(?![/*])[^\s\"'\\|;&]{3,300}))"
    r")"
)
_ARGUMENT_RE = re.compile(r"(?<![ \t])[ \t]++(\\{0,7}[\"'])?((?(1)[^\"'\\\r\n]{1,300}|[^\s\"'\\|;&]{1,300}))")


def _positional(text: str, low: str) -> Iterator[Candidate]:
    if "htpasswd" not in low and "rabbitmqctl" not in low and "net" not in low:
        return
    for m in _POSITIONAL_RE.finditer(text):
        if m.group("htargs") is not None:
            flags = m.group("htflags").replace(" ", "").replace("\t", "")
            if "b" not in flags:
                continue  # without -b the password is asked for, not given
            arguments = [(a.start(2), a.end(2)) for a in _ARGUMENT_RE.finditer(text, m.start("htargs"), m.end("htargs"))]
            wanted = 2 if "n" in flags else 3  # -n prints to standard output: no file argument
            if len(arguments) < wanted:
                continue
            span = arguments[wanted - 1]
        else:
            names = ("rq", "rb") if m.group("rq") is not None or m.group("rb") is not None else ("nq", "nb")
            group = next(name for name in names if m.group(name) is not None)
            span = m.span(group)
        if _acceptable(text[span[0]:span[1]]):
            yield span[0], span[1], "password"


@detector("command_line", "passwords on command lines (curl -u, mysql -p, docker login, htpasswd -b, ...)")
def scan(view: TextView) -> Iterator[Candidate]:
    text, low = view.text, view.low
    if "-u" in text:
        for m in _CURL_USER_RE.finditer(text):
            if after_space(text, m.start()) and not is_masked(m.group(1)) and not is_placeholder(m.group(1)):
                yield m.start(1), m.end(1), "basic-auth"
    yield from _flag_values(text, low)
    yield from _password_flags(text, low)
    if _STDIN_FLAG in low:
        yield from _stdin_values(text, low)
    yield from _positional(text, low)
