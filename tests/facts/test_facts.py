"""Fact extraction and retention on small hand-built conversations."""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest

from core.facts import (
    FACT_KINDS,
    MAX_FACT_CHARS,
    error_lines,
    extract_facts,
    fact_rows,
    find_paths,
    retention,
    retention_by_kind,
    retention_score,
    searchable_text,
    sift,
)


def _call(call_id: str, name: str, **arguments: object) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


LOGIN_FIX = [
    {"role": "system", "content": "You are a coding agent."},
    {
        "role": "user",
        "content": "The login endpoint returns 500. Fix src/auth/login.py and keep the tests in "
        "tests/test_login.py green. Don't touch the public API; see #42.",
    },
    {
        "role": "assistant",
        "content": "Running the failing test first.",
        "tool_calls": [
            _call(
                "call_1",
                "terminal",
                command="pytest -q tests/test_login.py::test_ok",
                workdir="/home/dev/app",
            )
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": json.dumps(
            {
                "output": "FAILED tests/test_login.py::test_ok - KeyError: 'session_id'\n1 failed, 4 passed in 0.31s",
                "exit_code": 1,
            }
        ),
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [_call("call_2", "read_file", path="src/auth/login.py")],
    },
    {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "def login(request):\n    token = request.cookies['session_id']\n    return SessionStore.lookup(token)\n",
    },
    {
        "role": "assistant",
        "content": "I'll use request.cookies.get() instead of indexing, so a missing cookie gives 401. "
        "Docs: https://docs.example.com/auth#cookies.",
    },
    {"role": "user", "content": "Also add a test. Run `ruff check src/` before you finish."},
]

LOGIN_FIX_FACTS = [
    (1, "path", "src/auth/login.py"),
    (1, "path", "tests/test_login.py"),
    (1, "issue", "#42"),
    (2, "path", "/home/dev/app"),
    (2, "path", "tests/test_login.py::test_ok"),
    (2, "command", "pytest -q tests/test_login.py::test_ok"),
    (3, "error", "FAILED tests/test_login.py::test_ok - KeyError: 'session_id'"),
    (3, "quantity", "1 failed"),
    (3, "quantity", "4 passed"),
    (3, "quantity", "0.31s"),
    (3, "identifier", "KeyError"),
    (5, "identifier", "login"),
    (5, "identifier", "SessionStore.lookup"),
    (5, "identifier", "SessionStore"),
    (6, "url", "https://docs.example.com/auth#cookies"),
    (6, "identifier", "request.cookies.get"),
    (7, "user_request", "Also add a test. Run `ruff check src/` before you finish."),
    (7, "path", "src/"),
    (7, "command", "ruff check src/"),
]


def _rows(df: pd.DataFrame) -> list[tuple[int, str, str]]:
    return [(int(index), kind, value) for kind, value, index in df.itertuples(index=False, name=None)]


def _values(messages: list[dict], kind: str) -> list[str]:
    df = extract_facts(messages)
    return df.loc[df["kind"] == kind, "value"].tolist()


def test_extracts_the_expected_facts_in_order() -> None:
    df = extract_facts(LOGIN_FIX)
    assert list(df.columns) == ["kind", "value", "message_index"]
    assert _rows(df) == LOGIN_FIX_FACTS


def test_input_is_not_mutated_and_result_is_deterministic() -> None:
    before = copy.deepcopy(LOGIN_FIX)
    first = extract_facts(LOGIN_FIX)
    second = extract_facts(LOGIN_FIX)
    assert LOGIN_FIX == before
    pd.testing.assert_frame_equal(first, second)


def test_empty_conversation_gives_an_empty_table_with_columns() -> None:
    df = extract_facts([])
    assert list(df.columns) == ["kind", "value", "message_index"]
    assert df.empty


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("edit /etc/nginx/nginx.conf now", ["/etc/nginx/nginx.conf"]),
        ("see ~/app/settings.py:45.", ["~/app/settings.py"]),
        ("run ./scripts/build.sh and ../lib/util.js", ["./scripts/build.sh", "../lib/util.js"]),
        (
            "tests/test_api.py::TestUsers::test_create[admin] fails",
            ["tests/test_api.py::TestUsers::test_create[admin]"],
        ),
        (r"open C:\Users\dev\notes.txt", [r"C:\Users\dev\notes.txt"]),
        ("update README.md and pyproject.toml", ["README.md", "pyproject.toml"]),
        ("the docs/ folder", ["docs/"]),
        # fractions, alternatives, dates, plain words and URL parts are not paths
        ("3/4 of runs, and/or TCP/IP on 2024/05/01", []),
        ("fetch https://example.com/a/b.json", []),
        ("close the </div> tag", []),
    ],
)
def test_paths(text: str, expected: list[str]) -> None:
    assert _values([{"role": "assistant", "content": text}], "path") == expected


def test_commands_come_from_tool_arguments_and_known_backticked_commands() -> None:
    messages = [
        {
            "role": "user",
            "content": "Try `git status`, then `$ npm run build`; `foo()` is code and `x = 1` too.",
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call("c1", "terminal", command="make test\nmake lint"),
                _call("c2", "shell", cmd="ls -la"),
            ],
        },
    ]
    assert _values(messages, "command") == ["git status", "npm run build", "make test", "ls -la"]


def test_long_command_is_capped_to_a_prefix() -> None:
    command = "echo " + "x" * 400
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "terminal", command=command)]}
    ]
    [value] = _values(messages, "command")
    assert len(value) == MAX_FACT_CHARS
    assert command.startswith(value)


def test_error_lines_are_exact_trimmed_lines_of_tool_output() -> None:
    output = (
        "collected 3 items\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/app/main.py", line 3, in <module>\n'
        "    raise ValueError('bad port')\n"
        "  ValueError: bad port  \n"
        "  12|    except OSError:\n"
        "npm ERR! missing script: start\n"
        "fatal: not a git repository\n"
        "error[E0308]: mismatched types\n"
        "all good here"
    )
    messages = [
        {"role": "tool", "tool_call_id": "c1", "content": output},
        # assistant prose that names an error is not a tool error line
        {"role": "assistant", "content": "The ValueError comes from parse_port."},
    ]
    assert _values(messages, "error") == [
        "Traceback (most recent call last):",
        "ValueError: bad port",
        "npm ERR! missing script: start",
        "fatal: not a git repository",
        "error[E0308]: mismatched types",
    ]


def test_code_that_names_an_error_is_not_an_error_line() -> None:
    output = (
        '  31|        print(f"error: {exc}", file=sys.stderr)\n'
        "-    except StatementError as exc:\n"
        '+        raise StatementError(f"bad amount: {raw!r}") from exc\n'
        "-from ledgerline.parser import StatementError, parse_amount\n"
        "   7|    StatementError,\n"
        "What does the StatementError exit path print?\n"
        "tests/test_parser.py:29: AssertionError\n"
        "thread 'main' panicked at src/main.rs:4:5"
    )
    assert _values([{"role": "tool", "tool_call_id": "c", "content": output}], "error") == [
        "tests/test_parser.py:29: AssertionError",
        "thread 'main' panicked at src/main.rs:4:5",
    ]


def test_test_runner_progress_is_not_a_value() -> None:
    output = "tests/test_a.py::test_x PASSED [ 50%]\ntests/test_a.py::test_y PASSED [100%]\ncoverage 87%"
    assert _values([{"role": "tool", "tool_call_id": "c", "content": output}], "quantity") == ["87%"]


def test_error_lines_are_read_from_json_encoded_output() -> None:
    content = json.dumps({"output": "ok\nModuleNotFoundError: No module named 'redis'", "exit_code": 1})
    assert _values([{"role": "tool", "tool_call_id": "c", "content": content}], "error") == [
        "ModuleNotFoundError: No module named 'redis'"
    ]


def test_urls_numbers_with_units_issues_and_identifiers() -> None:
    text = (
        "Latency is 42 ms (was 1,200 ms), memory 3.5 MB, CPU 85%, timeout 120 s, served on port 8080 "
        "and localhost:5173. See https://github.com/acme/api/pull/7, (https://example.org/x). "
        "Fixes #123 but not &#38; or version 3.11. class RetryPolicy: def backoff_delay(attempt): "
        "calls compute_jitter(attempt) and print(x); the file(s) changed. HTTPServer and JSONDecodeError. "
        "Signature AbCdEfSignature0123456789 is a token."
    )
    messages = [{"role": "assistant", "content": text}]
    assert _values(messages, "quantity") == [
        "42 ms",
        "1,200 ms",
        "3.5 MB",
        "85%",
        "120 s",
        "port 8080",
        "localhost:5173",
    ]
    assert _values(messages, "url") == ["https://github.com/acme/api/pull/7", "https://example.org/x"]
    assert _values(messages, "issue") == ["#123"]
    assert _values(messages, "identifier") == [
        "RetryPolicy",
        "backoff_delay",
        "compute_jitter",
        "HTTPServer",
        "JSONDecodeError",
    ]


def test_latest_user_request_skips_handoff_summaries_and_is_capped() -> None:
    long_request = "Please " + "refactor the parser " * 40
    messages = [
        {"role": "user", "content": long_request},
        {"role": "assistant", "content": "On it."},
        {"role": "user", "content": "[CONTEXT SUMMARY]: ## Active Task\nsomething older"},
    ]
    [value] = _values(messages, "user_request")
    # cut to 300 characters, then the trailing space of the cut is trimmed
    assert value == long_request[:300].rstrip()
    assert len(value) == 299
    assert extract_facts(messages).loc[0, "message_index"] == 0


def test_user_request_reads_text_parts_of_multimodal_content() -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is wrong in this screenshot?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        }
    ]
    assert _values(messages, "user_request") == ["What is wrong in this screenshot?"]


def test_duplicates_keep_their_first_message() -> None:
    messages = [
        {"role": "user", "content": "look at app.py"},
        {"role": "assistant", "content": "app.py again, and app.py"},
    ]
    df = extract_facts(messages)
    paths = df[df["kind"] == "path"]
    assert paths["value"].tolist() == ["app.py"]
    assert paths["message_index"].tolist() == [0]


@pytest.mark.parametrize("bad", [None, "text", 42, {"role": "user"}])
def test_rejects_what_is_not_a_message_list(bad: object) -> None:
    with pytest.raises(TypeError, match="messages must be a list"):
        extract_facts(bad)  # type: ignore[arg-type]


def test_rejects_a_non_dict_message_with_its_index() -> None:
    with pytest.raises(TypeError, match="message 1 must be a dict"):
        extract_facts([{"role": "user", "content": "hi"}, "oops"])  # type: ignore[list-item]


# --- retention -----------------------------------------------------------------------------


def test_retention_against_text() -> None:
    facts = extract_facts(LOGIN_FIX)
    summary = (
        "Fixed src/auth/login.py: FAILED tests/test_login.py::test_ok - KeyError: 'session_id'. "
        "Ran pytest -q tests/test_login.py::test_ok."
    )
    scored = retention(facts, summary)
    kept = scored.loc[scored["kept"], "value"].tolist()
    assert kept == [
        "src/auth/login.py",
        "tests/test_login.py",
        "tests/test_login.py::test_ok",
        "pytest -q tests/test_login.py::test_ok",
        "FAILED tests/test_login.py::test_ok - KeyError: 'session_id'",
        "KeyError",
        # plain substring matching: "login" is inside "login.py", "src/" inside "src/auth"
        "login",
        "src/",
    ]
    assert scored["kept"].dtype == bool
    assert retention_score(scored) == pytest.approx(8 / 19)
    assert "kept" not in facts.columns  # the input table is not modified


def test_retention_against_messages_searches_content_arguments_and_decoded_json() -> None:
    facts = extract_facts(LOGIN_FIX)
    scored = retention(facts, LOGIN_FIX)
    assert retention_score(scored) == 1.0
    # A value that only exists JSON-escaped in the raw text is still found.
    escaped_only = [{"role": "tool", "tool_call_id": "x", "content": json.dumps({"o": 'say "hi"\nnow'})}]
    assert 'say "hi"' in searchable_text(escaped_only)


def test_retention_by_kind_and_empty_scores() -> None:
    facts = extract_facts(LOGIN_FIX)
    scored = retention(facts, "/home/dev/app #42 0.31s")
    by_kind = retention_by_kind(scored)
    assert list(by_kind.columns) == ["kind", "total", "kept", "score"]
    assert by_kind["kind"].tolist() == [kind for kind in FACT_KINDS if kind in set(facts["kind"])]
    as_dict = {row.kind: (row.total, row.kept) for row in by_kind.itertuples()}
    assert as_dict == {
        "user_request": (1, 0),
        "path": (5, 1),
        "command": (2, 0),
        "error": (1, 0),
        "url": (1, 0),
        "quantity": (3, 1),
        "identifier": (5, 0),
        "issue": (1, 1),
    }
    empty = retention(extract_facts([]), "anything")
    assert retention_score(empty) == 1.0
    assert retention_by_kind(empty).empty


def test_retention_rejects_bad_tables() -> None:
    with pytest.raises(TypeError, match="'value' column"):
        retention(pd.DataFrame({"x": [1]}), "text")
    with pytest.raises(TypeError, match="'kept' column"):
        retention_score(extract_facts(LOGIN_FIX))
    with pytest.raises(TypeError, match="'kept' column"):
        retention_by_kind("nope")  # type: ignore[arg-type]


# --- noise: counted, not read ------------------------------------------------------------------

PYTEST_VERBOSE = "\n".join(
    ["============================= test session starts =============================="]
    + [f"tests/test_x.py::test_x_{n} PASSED                                   [{n:3d}%]" for n in range(80)]
    + [
        "tests/test_x.py::test_y FAILED                                      [ 99%]",
        "FAILED tests/test_x.py::test_y - AssertionError: assert 3 == 4",
        "========================= 1 failed, 80 passed in 2.31s =========================",
    ]
)


def test_a_listing_of_passing_tests_is_counted_not_read() -> None:
    sifted = sift(PYTEST_VERBOSE)
    assert sifted.counts["passing tests"] == 80
    paths = _values([{"role": "tool", "tool_call_id": "c", "content": PYTEST_VERBOSE}], "path")
    assert "tests/test_x.py::test_x_17" not in paths
    assert "tests/test_x.py::test_y" in paths
    errors = _values([{"role": "tool", "tool_call_id": "c", "content": PYTEST_VERBOSE}], "error")
    assert "FAILED tests/test_x.py::test_y - AssertionError: assert 3 == 4" in errors
    quantities = _values([{"role": "tool", "tool_call_id": "c", "content": PYTEST_VERBOSE}], "quantity")
    assert quantities == ["1 failed", "80 passed", "2.31s"]


@pytest.mark.parametrize(
    ("lines", "kind"),
    [
        ([f"   {'━' * n}{' ' * (40 - n)} {n}.0/40.0 MB 12.1 MB/s eta 0:00:0{n % 10}" for n in range(1, 40, 4)], "progress"),
        ([f"Receiving objects: {n}% ({n}/100), 1.{n} MiB | 3.2 MiB/s" for n in range(0, 100, 9)], "progress"),
        (["total 48"] + [f"-rw-r--r--  1 dev dev  {n * 100:>5} May  1 12:00 file_{n}.py" for n in range(6)], "listing"),
        ([f"src/pkg/module_{n}.py" for n in range(30)], "listing"),
        ([f" M src/app/view_{n}.py" for n in range(20)], "listing"),
        ([f"M\tsrc/app/view_{n}.py" for n in range(20)], "listing"),
        (["├── core", "│   ├── app.py", "│   └── util.py", "└── tests"], "listing"),
        ([f"2025-03-11T09:00:{n:02d}.123Z INFO served GET /api/items 200 in {n + 3}ms" for n in range(30)], "repeated"),
        ([f"2025-04-02T08:00:{n:02d}.1234567Z tests/test_a.py::test_{n} PASSED [{n:3d}%]" for n in range(12)], "passing tests"),
        ([f"test cache::tests::evict_{n} ... ok" for n in range(10)], "passing tests"),
        ([f"  ✓ renders item {n} ({n + 3} ms)" for n in range(10)], "passing tests"),
    ],
)
def test_noise_shapes(lines: list[str], kind: str) -> None:
    sifted = sift("\n".join(lines))
    assert sifted.counts.get(kind, 0) >= len(lines) - 1, sifted.counts
    # what is left holds no fact from the noise
    if kind != "repeated":
        assert _values([{"role": "tool", "tool_call_id": "c", "content": "\n".join(lines)}], "path") == []


def test_a_short_list_of_files_and_every_failure_stay_facts() -> None:
    short = "src/app.py\nsrc/util.py\nREADME.md"
    assert not sift(short).counts
    failures = "\n".join(f"FAILED tests/test_a.py::test_{n} - AssertionError: assert {n} == {n + 1}" for n in range(15))
    assert not sift(failures).counts  # distinct failing tests are not repeats, even when shaped alike
    timeouts = "\n".join(f"ERROR smtp: timed out after {n}s (attempt {n})" for n in range(1, 30))
    sifted = sift(timeouts)
    assert sifted.counts == {"repeated": 28}
    assert sifted.text == "ERROR smtp: timed out after 1s (attempt 1)"
    assert sifted.repeats == {"ERROR smtp: timed out after 1s (attempt 1)": 28}


# --- credentials: never facts -------------------------------------------------------------------

SECRETS = [
    {"role": "user", "content": "Use the key sk-proj-ABCDEFGHIJ0123456789abcd for staging, see src/api/client.py."},
    {"role": "assistant", "content": None, "tool_calls": [
        _call("s1", "terminal", command="psql postgres://app:S3cr3tPassw0rd@db.internal:5432/app -c 'select 1'")]},
    {"role": "tool", "tool_call_id": "s1", "content": "ERROR: password authentication failed for user \"app\""},
    {"role": "assistant", "content": None, "tool_calls": [_call("s2", "read_file", path=".env")]},
    {"role": "tool", "tool_call_id": "s2", "content": "API_TOKEN=Zq8xK2pLm9Vt4Rw7Yb3NcD5f\n"
     "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nTIMEOUT_S=30 s"},
]
RAW_SECRETS = ("sk-proj-ABCDEFGHIJ0123456789abcd", "S3cr3tPassw0rd", "Zq8xK2pLm9Vt4Rw7Yb3NcD5f",
               "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")


def test_values_a_redaction_would_mask_are_not_facts() -> None:
    facts = extract_facts(SECRETS)
    shown = "\n".join(facts["value"])
    for secret in RAW_SECRETS:
        assert secret not in shown
    values = set(facts["value"])
    assert "src/api/client.py" in values and ".env" in values and "30 s" in values
    # the request is a fact, with its secret masked the way the profile masks it
    assert "Use the key sk-pro...abcd for staging, see src/api/client.py." in values
    # without the exclusion the same values are read (the summarizer reads turns already redacted)
    raw = "\n".join(extract_facts(SECRETS, exclude_credentials=False)["value"])
    assert "S3cr3tPassw0rd" in raw


def test_the_fact_index_never_holds_a_secret() -> None:
    from core.views.retention import FactIndex, lost_facts

    index = FactIndex(SECRETS)
    scored = index.retention_of(range(len(SECRETS)), "nothing kept")
    lost = "\n".join(lost_facts(scored)["value"])
    for secret in RAW_SECRETS:
        assert secret not in lost
    assert "src/api/client.py" in lost


# --- the fast paths find what the plain patterns find --------------------------------------------


def _plain_paths(text: str) -> list[str]:
    from core.facts.extract import _PATH_RE

    return [v.rstrip(".,;:") for v in _PATH_RE.findall(text) if len(v.rstrip(".,;:")) > 1]


def _plain_errors(text: str) -> list[str]:
    from core.facts.extract import _CODE_LINE_RE, _ERROR_LINE_RE

    return [line.strip()[:200].rstrip() for line in text.splitlines()
            if _ERROR_LINE_RE.search(line) and not _CODE_LINE_RE.match(line) and line.strip()]


@pytest.mark.parametrize("seed", range(12))
def test_whole_text_scans_equal_line_by_line_reading(seed: int) -> None:
    import random

    rng = random.Random(seed)
    words = ["src/a.py", "./run.sh", "C:\\x\\y.txt", "Error:", "error: bad", "FAILED", "ok", "x.py::t[1]", "docs/",
             "(src/b.js)", "'tests/c.py',", "raise ValueError", "  12|    except OSError:", "Traceback (most recent call last):",
             "KeyError", "npm ERR!", "Makefile", "v1.2", "e.g.", "\t", "\r", "•", "~/.cfg", "../up/z.toml",
             "panicked at", "failed to", "ERROR", "xERROR", "Exception", "error[E0432]:", "Segmentation fault",
             "Permission denied", "fatal", "Panic", "\x0b", "\u2028", "error", "Error", ":"]
    text = "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 60)))
    assert find_paths(text) == _plain_paths(text)
    assert list(error_lines(text)) == _plain_errors(text)


@pytest.mark.parametrize("seed", range(12))
def test_the_whole_text_noise_gate_lets_every_line_with_a_hint_through(seed: int) -> None:
    import random

    from core.facts.noise import _MAYBE_NOISE_RE, _may_hold_noise

    rng = random.Random(seed)
    # Pieces of every alternative of the line hint, near misses and plain words.
    pieces = ["PASS", "SKIP", "XFAIL", "XPASS", "... ", "..", ".", "=== ", "--- ", "ok", "token", "book", "✓", "│",
              "├", "└", "━", "█", "──", "─", "\r", "[========]", "[==", "FEs", "xX", "sss", "drwxr-xr-x", "-rw-",
              "total 4", "total", "objects:", "deltas:", "Download", "Extract", "Pull", "Waiting", "Verifying",
              "exists", "50%|", "%", "|", "word", "src/a.py", " ", "\n", "\n", "d", "-", "r", "w", "x", "t"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        lines = text.split("\n")
        if any(_MAYBE_NOISE_RE.search(line) for line in lines):
            assert _may_hold_noise(text, lines), text


def test_a_value_that_is_a_secret_where_it_first_appears_is_a_fact_where_it_is_plain() -> None:
    # Only values not seen yet are checked for credentials: a value masked at its first
    # occurrence must still count from the first message where no redaction hides it.
    secret_first = [
        {"role": "user", "content": "Deploy it."},
        {"role": "assistant", "content": "Setting it.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": json.dumps(
                {"command": "export API_TOKEN=Zq8xK2pLm9Vt4Rw7Yb3NcD5f"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
        {"role": "assistant", "content": "The build id is Zq8xK2pLm9Vt4Rw7Yb3NcD5f, see src/app/main.py."},
    ]
    rows = fact_rows(secret_first)
    at = {(kind, value): index for kind, value, index in rows}
    plain = [index for (kind, value), index in at.items() if "Zq8xK2pLm9Vt4Rw7Yb3NcD5f" in value]
    assert plain and min(plain) == 3
    assert at[("path", "src/app/main.py")] == 3
