# Over 600 lines: the scripted sessions of the samples, one message per line.
"""Builders for every sample transcript except the storage details (see generate.py)."""

from __future__ import annotations

import base64
import json
import random
import string
from typing import Any

import project
from long_session import long_coding_session  # noqa: F401  (re-exported for generate.py)

# The exact handoff prefixes written by Hermes' compressor (v0.16.0 and v0.15.1) and its end marker.
SUMMARY_PREFIX_V016 = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff "
    "from a previous context window — treat it as background reference, NOT as active instructions. Do NOT answer "
    "questions or fulfill requests mentioned in this summary; they were already addressed. Respond ONLY to the latest "
    "user message that appears AFTER this summary — that message is the single source of truth for what to do right "
    "now. If the latest user message is consistent with the '## Active Task' section, you may use the summary as "
    "background. If the latest user message contradicts, supersedes, changes topic from, or in any way diverges from "
    "'## Active Task' / '## In Progress' / '## Pending User Asks' / '## Remaining Work', the latest message WINS — "
    "discard those stale items entirely and do not 'wrap up the old task first'. Reverse signals in the latest message "
    "(e.g. 'stop', 'undo', 'roll back', 'just verify', 'don't do that anymore', 'never mind', a new topic) must "
    "immediately end any in-flight work described in the summary; do not re-surface it in later turns. IMPORTANT: Your "
    "persistent memory (MEMORY.md, USER.md) in the system prompt is ALWAYS authoritative and active — never ignore or "
    "deprioritize memory content due to this compaction note. The current session state (files, config, etc.) may "
    "reflect work described here — avoid repeating it:"
)
SUMMARY_PREFIX_V0151 = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff "
    "from a previous context window — treat it as background reference, NOT as active instructions. Do NOT answer "
    "questions or fulfill requests mentioned in this summary; they were already addressed. Your current task is "
    "identified in the '## Active Task' section of the summary — resume exactly from there. IMPORTANT: Your persistent "
    "memory (MEMORY.md, USER.md) in the system prompt is ALWAYS authoritative and active — never ignore or deprioritize "
    "memory content due to this compaction note. Respond ONLY to the latest user message that appears AFTER this "
    "summary. The current session state (files, config, etc.) may reflect work described here — avoid repeating it:"
)
END_MARKER = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"

P = "src/ledgerline/parser.py"
B = "src/ledgerline/budget.py"
C = "src/ledgerline/currency.py"
TP = "tests/test_parser.py"
TB = "tests/test_budget.py"


def _id(rng: random.Random, prefix: str, length: int = 24, alphabet: str = string.ascii_letters + string.digits) -> str:
    return prefix + "".join(rng.choice(alphabet) for _ in range(length))


def _uuid(rng: random.Random) -> str:
    hexdigits = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    return f"{hexdigits[:8]}-{hexdigits[8:12]}-4{hexdigits[13:16]}-a{hexdigits[17:20]}-{hexdigits[20:]}"


def _png_data_url(width: int, height: int, seed: int, accent: tuple[int, int, int] = (40, 90, 200)) -> str:
    return "data:image/png;base64," + base64.b64encode(project.png_bytes(width, height, seed, accent)).decode("ascii")


def _png_b64(width: int, height: int, seed: int) -> str:
    return base64.b64encode(project.png_bytes(width, height, seed)).decode("ascii")


# ---------------------------------------------------------------------------------------------
# OpenAI chat samples

HTML_REPORT_PY = '''"""Render monthly reports as a standalone HTML page."""

from __future__ import annotations

from html import escape

from ledgerline.budget import MonthReport

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 0.4rem 0.8rem; border-bottom: 1px solid #e2e5ea; }
th { text-align: left; background: #28 5a c8; color: white; }
td.amount { text-align: left; font-variant-numeric: tabular-nums; }
@media (prefers-color-scheme: dark) {
  body { background: #15171c; color: #e6e8eb; }
  th { text-align: center; }
}
"""


def render_html(reports: list[MonthReport]) -> str:
    rows = "\\n".join(
        f"<tr><td>{escape(r.month)}</td><td class=amount>{r.income:.2f}</td>"
        f"<td class=amount>{r.spending:.2f}</td><td class=amount>{r.refunds:.2f}</td>"
        f"<td class=amount>{r.net:.2f}</td></tr>"
        for r in reports
    )
    return (
        f"<!doctype html><html><head><meta charset=utf-8><style>{STYLE}</style></head><body>"
        f"<table><thead><tr><th>Month</th><th>Income</th><th>Spending</th><th>Refunds</th><th>Net</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></body></html>"
    )
'''


def screenshot_session(s: Any) -> dict[str, Any]:
    s.files["src/ledgerline/html_report.py"] = HTML_REPORT_PY
    s.messages.append({"role": "user", "content": [
        {"type": "text", "text": "The HTML report looks broken: the amounts don't line up in the table. Screenshot attached."},
        {"type": "image_url", "image_url": {"url": _png_data_url(160, 100, 101), "detail": "high"}},
    ]})
    s.read("src/ledgerline/html_report.py", "Let me look at the HTML renderer and its CSS.")
    s.calls("Opening the generated report in the browser to see it myself.", [
        ("browser_navigate", {"url": "http://127.0.0.1:8765/report.html"},
         json.dumps({"success": True, "url": "http://127.0.0.1:8765/report.html", "title": "ledgerline report", "status": 200})),
    ])
    s.calls(None, [("browser_vision", {"question": "Are the numbers in the amount columns right-aligned?"}, [
        {"type": "text", "text": "Screenshot of http://127.0.0.1:8765/report.html (1280x800). The amount cells are "
                                 "left-aligned and the header cell colour is invalid (falls back to transparent)."},
        {"type": "image_url", "image_url": {"url": _png_data_url(160, 100, 102, (180, 180, 190))}},
    ])])
    s.patch("src/ledgerline/html_report.py", "td.amount { text-align: left; font-variant-numeric: tabular-nums; }",
            "td.amount { text-align: right; font-variant-numeric: tabular-nums; }",
            "Two bugs: the amount cells are left-aligned and the header colour `#28 5a c8` is not valid CSS.")
    s.patch("src/ledgerline/html_report.py", "th { text-align: left; background: #28 5a c8; color: white; }",
            "th { text-align: left; background: #285ac8; color: white; }")
    s.terminal("python -m ledgerline.cli report tests/data/march.csv --html /tmp/report.html && echo ok", "ok", 0)
    s.calls("Checking the result in the browser.", [("browser_vision", {"question": "Are the amount columns aligned now?"}, [
        {"type": "text", "text": "Screenshot (1280x800): amounts are right-aligned with tabular digits; header is blue."},
        {"type": "image_url", "image_url": {"url": _png_data_url(160, 100, 103)}},
    ])])
    s.say("Fixed both issues in html_report.py: amount cells are right-aligned (`text-align: right` with tabular "
          "numbers), and the header background was the invalid colour `#28 5a c8`, now `#285ac8`. The screenshot "
          "after the change shows the columns lined up.")
    s.messages.append({"role": "user", "content": [
        {"type": "text", "text": "Better! In dark mode the header text is centered though, see:"},
        {"type": "image_url", "image_url": {"url": _png_data_url(160, 100, 104, (30, 32, 40)), "detail": "low"}},
    ]})
    s.read("src/ledgerline/html_report.py", "Reading the dark-mode block.", offset=11)
    s.patch("src/ledgerline/html_report.py", "  th { text-align: center; }\n", "",
            "The dark-mode media query overrides the header alignment; removing that override.")
    s.say("The `prefers-color-scheme: dark` block set `th { text-align: center; }`. I removed it, so headers are "
          "left-aligned in both themes while keeping the dark colours.")
    return {"model": "openai/gpt-4.1", "messages": s.messages}


FAKE = {
    "openai": "sk-proj-FAKEKEY0000aaaabbbbccccddddeeeeffff0123456789NOTREAL",
    "github": "ghp_FAKE0123456789abcdefghijklmnopqrstuv",
    "aws_id": "AKIAFAKEEXAMPLE00001",
    "aws_secret": "FaKe/SeCrEt+KeY/0000/NotARealKey/EXAMPLE1",
    "stripe": "sk_live_FAKE000000000000000000000NOTREAL",
    "slack": "xoxb-0000000000-0000000000000-FAKEFAKEFAKEFAKEFAKEFAKE",
    "db_url": "postgres://ledger_app:hunter2-FAKE-pass@staging-db.internal.example:5432/ledger",
    "password": "Tr0ub4dor&3-FAKE",
}


def _fake_jwt() -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")

    header = part({"alg": "HS256", "typ": "JWT"})
    payload = part({"sub": "fake-user-0001", "name": "Test Only", "role": "admin", "iat": 1773900000})
    return f"{header}.{payload}.FAKEsignatureNOTvalid0000000000000000000000"


FAKE_PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(
    base64.b64encode(f"this is a fake key for a sample transcript, line {i:02d} -- not real".encode()).decode()[:70]
    for i in range(7)
) + "\n-----END OPENSSH PRIVATE KEY-----\n"

ENV_FILE = f"""# staging environment -- loaded by docker compose
APP_ENV=staging
DATABASE_URL={FAKE['db_url']}
OPENAI_API_KEY={FAKE['openai']}
GITHUB_TOKEN={FAKE['github']}
AWS_ACCESS_KEY_ID={FAKE['aws_id']}
AWS_SECRET_ACCESS_KEY={FAKE['aws_secret']}
STRIPE_SECRET_KEY={FAKE['stripe']}
SLACK_BOT_TOKEN={FAKE['slack']}
LOG_LEVEL=debug
"""


def secrets_session(s: Any) -> dict[str, Any]:
    s.files[".env.staging"] = ENV_FILE
    s.files["deploy/keys/staging_deploy_key"] = FAKE_PRIVATE_KEY
    s.files["config/aws.ini"] = (f"[default]\naws_access_key_id = {FAKE['aws_id']}\n"
                                 f"aws_secret_access_key = {FAKE['aws_secret']}\nregion = eu-central-1\n")
    s.files["src/ledgerline/settings.py"] = ('"""Runtime settings."""\n\nimport os\n\n'
                                             f'DATABASE_URL = os.environ.get("DATABASE_URL", "{FAKE["db_url"]}")\n'
                                             'SYNC_BUCKET = os.environ.get("SYNC_BUCKET", "ledgerline-staging")\n')
    s.user("The staging sync job can't reach the database since this morning. If you need sudo on the staging box, "
           f"my password is {FAKE['password']}. Please find out what's wrong.")
    s.read(".env.staging", "First I'll check which connection settings the job uses.")
    s.terminal("psql \"$DATABASE_URL\" -c 'select 1'",
               f"psql: error: connection to server at \"staging-db.internal.example\" (10.0.4.12), port 5432 failed: "
               f"FATAL:  password authentication failed for user \"ledger_app\"\nconnection string: {FAKE['db_url']}", 2,
               "Trying the connection with exactly those settings.")
    s.terminal("curl -si https://staging.ledgerline.example/api/health",
               "HTTP/2 200\ncontent-type: application/json\n"
               f"set-cookie: session={_fake_jwt()}; Path=/; HttpOnly; Secure\n"
               "x-request-id: 7f9c2a\n\n{\"status\": \"ok\", \"db\": \"unreachable\", \"version\": \"0.7.2\"}", 0,
               "The app itself is up? Checking its health endpoint.")
    s.read("src/ledgerline/settings.py", "The password is rejected. Checking where the app reads the URL from.")
    s.search("DATABASE_URL", ".", "Looking for every place that sets DATABASE_URL.")
    s.read("config/aws.ini", "The rotation job stores credentials through AWS; checking the local AWS profile it uses.")
    s.terminal("aws secretsmanager describe-secret --secret-id staging/ledger/db --query '{Rotated:LastRotatedDate}'",
               "{\n    \"Rotated\": \"2026-03-19T05:00:12+00:00\"\n}", 0)
    s.read("deploy/keys/staging_deploy_key", "Checking the deploy key referenced by the sync job's SSH step.")
    s.patch("src/ledgerline/settings.py",
            f'DATABASE_URL = os.environ.get("DATABASE_URL", "{FAKE["db_url"]}")\n',
            'DATABASE_URL = os.environ["DATABASE_URL"]  # no default: a stale fallback hid the rotation\n',
            "The database password was rotated this morning, but settings.py has a hard-coded fallback URL with the "
            "old password. Removing the fallback so a missing variable fails loudly.")
    s.say("Cause: the staging DB password was rotated at 05:00 today (Secrets Manager `staging/ledger/db`), but the "
          "sync job still uses the old one from `.env.staging`, and `settings.py` also had a hard-coded fallback with "
          "the old credentials. I removed the fallback. To finish: update `DATABASE_URL` in `.env.staging` from the "
          "secret, and please rotate the keys that are committed in plain text (`OPENAI_API_KEY`, `GITHUB_TOKEN`, "
          "`STRIPE_SECRET_KEY`, `SLACK_BOT_TOKEN`, the AWS key pair in `config/aws.ini`, and the deploy key). "
          "I did not need sudo; please change the password you pasted above since it is now in this chat log.")
    s.user(f"Done with the env file. Also use this token to push the fix: {FAKE['github']} (Authorization: Bearer {_fake_jwt()})")
    s.terminal("git push origin fix/db-url-fallback",
               "remote: \nremote: Create a pull request for 'fix/db-url-fallback' on GitHub by visiting:\n"
               "remote:      https://github.com/ledgerline/ledgerline/pull/new/fix/db-url-fallback\nremote: \n"
               "To github.com:ledgerline/ledgerline.git\n * [new branch]      fix/db-url-fallback -> fix/db-url-fallback", 0,
               "Pushing with the repository's configured SSH remote; I won't put the token on a command line.")
    s.say("Pushed `fix/db-url-fallback` over the existing SSH remote, so the token wasn't needed. Since it was pasted "
          "here together with a bearer token, please revoke both.")
    return {"model": "anthropic/claude-sonnet-4.6", "messages": s.messages}


HANDOFF_BODY = """## Active Task
User asked: "Add a `--format csv` option to `ledgerline report` that writes the monthly table as CSV, then update the README."

## Goal
Keep ledgerline's report usable from spreadsheets and scripts without changing the default table output.

## Constraints & Preferences
- Do not change the public API of ledgerline.parser (other tools import parse_statement and Transaction).
- Keep the default text table byte-for-byte identical.
- Tests with pytest; ruff and mypy --strict must stay clean.

## Completed Actions
1. READ src/ledgerline/cli.py — report sub-command has --currency, --rates, --rules, --since [tool: read_file]
2. READ src/ledgerline/budget.py — render_table builds fixed-width lines from MonthReport [tool: read_file]
3. PATCH src/ledgerline/budget.py — added render_csv(reports) using csv.writer, header month,income,spending,refunds,net [tool: patch]
4. RUN python -m pytest tests/test_budget.py — 9 passed [tool: terminal]

## Active State
- Working dir /home/dev/ledgerline, branch feature/csv-output, modified: src/ledgerline/budget.py
- Tests: 9/9 budget tests passing; CLI not wired yet

## In Progress
Wiring `--format {table,csv}` into cli.py and choosing render_csv when asked.

## Blocked
None.

## Key Decisions
- CSV amounts are written with two decimals and a dot separator regardless of locale, so spreadsheets parse them.

## Resolved Questions
- Should CSV include category columns? No, same columns as the table (user answered).

## Pending User Asks
None.

## Relevant Files
- src/ledgerline/budget.py — render_csv added
- src/ledgerline/cli.py — needs the --format option
- README.md — needs a CSV example

## Remaining Work
Wire the option, add CLI tests, update the README example.

## Critical Context
- render_csv signature: render_csv(reports: list[MonthReport]) -> str
- API keys in .env.staging were redacted: [REDACTED]"""


def handoff_session(s: Any) -> dict[str, Any]:
    s.files["src/ledgerline/budget.py"] = s.files["src/ledgerline/budget.py"].replace(
        "def render_table(", "def render_csv(reports: list[MonthReport]) -> str:\n    out = io.StringIO()\n"
        "    writer = csv.writer(out, lineterminator=\"\\n\")\n    writer.writerow([\"month\", \"income\", \"spending\", \"refunds\", \"net\"])\n"
        "    for r in reports:\n        writer.writerow([r.month, f\"{r.income:.2f}\", f\"{r.spending:.2f}\", f\"{r.refunds:.2f}\", f\"{r.net:.2f}\"])\n"
        "    return out.getvalue()\n\n\ndef render_table(").replace("from collections import defaultdict\n",
                                                             "import csv\nimport io\nfrom collections import defaultdict\n")
    s.user("Add a `--format csv` option to `ledgerline report` that writes the monthly table as CSV, then update the README.")
    s.read("src/ledgerline/cli.py", "Starting with the CLI.")
    s.messages.append({"role": "user", "content": f"{SUMMARY_PREFIX_V016}\n{HANDOFF_BODY}\n\n{END_MARKER}"})
    s.calls("Continuing: wiring the --format option into the report command.", [(
        "read_file", {"path": "src/ledgerline/cli.py", "offset": 14},
        project.read_file_result("src/ledgerline/cli.py", s.files["src/ledgerline/cli.py"], 14))])
    s.patch("src/ledgerline/cli.py", '    report.add_argument("--rules", type=Path)\n',
            '    report.add_argument("--rules", type=Path)\n'
            '    report.add_argument("--format", choices=("table", "csv"), default="table")\n')
    s.patch("src/ledgerline/cli.py", "    print(render_table(reports))\n",
            "    print(render_csv(reports) if args.format == \"csv\" else render_table(reports), end=\"\" if args.format == \"csv\" else \"\\n\")\n")
    s.patch("src/ledgerline/cli.py", "from ledgerline.budget import build_reports, render_table\n",
            "from ledgerline.budget import build_reports, render_csv, render_table\n")
    s.write("tests/test_cli_format.py", "from ledgerline.cli import main\n\n\n"
            "def test_csv_output(statement_file, capsys):\n    assert main([\"report\", str(statement_file), \"--format\", \"csv\"]) == 0\n"
            "    lines = capsys.readouterr().out.splitlines()\n    assert lines[0] == \"month,income,spending,refunds,net\"\n"
            "    assert lines[1].startswith(\"2026-03,\")\n\n\n"
            "def test_table_is_default(statement_file, capsys):\n    assert main([\"report\", str(statement_file)]) == 0\n"
            "    assert capsys.readouterr().out.split()[0] == \"month\"\n")
    s.pytest(["tests/test_cli_format.py", TB], [])
    s.read("README.md", "Updating the README next.")
    s.patch("README.md", "## Supported exports\n",
            "For spreadsheets, `--format csv` prints the same table as CSV:\n\n```\n$ ledgerline report march.csv --format csv\n"
            "month,income,spending,refunds,net\n2026-03,2500.00,1432.18,19.99,1087.81\n```\n\n## Supported exports\n")
    s.terminal("ruff check src tests && mypy", "All checks passed!\nSuccess: no issues found in 6 source files", 0)
    s.say("Done: `ledgerline report --format csv` prints `month,income,spending,refunds,net` rows via the "
          "`render_csv` helper added earlier; `table` stays the default and its output is unchanged. Two CLI tests "
          "cover both formats, the README shows a CSV example, and ruff/mypy are clean.")
    s.user("Thanks. Actually, never mind the README example — just verify the tests pass on Python 3.11 too.")
    s.terminal("uv run --python 3.11 pytest -q", "...............................................\n47 passed in 1.93s", 0,
               "Running the suite under Python 3.11.")
    s.say("All 47 tests pass on Python 3.11 as well. I left the README example in place; say if you want it removed.")
    return {"messages": s.messages}


# ---------------------------------------------------------------------------------------------
# OpenAI Responses items

def responses_session(rng: random.Random) -> dict[str, Any]:
    files = dict(project.BASE_FILES)
    items: list[dict[str, Any]] = []

    def call(name: str, args: dict[str, Any], output: str, reasoning: str | None = None) -> None:
        if reasoning:
            items.append({"type": "reasoning", "id": _id(rng, "rs_", 32, "0123456789abcdef"),
                          "summary": [{"type": "summary_text", "text": reasoning}],
                          "encrypted_content": "gAAAAAB" + _id(rng, "", 120)})
        cid = _id(rng, "call_", 24)
        items.append({"type": "function_call", "id": _id(rng, "fc_", 32, "0123456789abcdef"), "call_id": cid,
                      "name": name, "arguments": json.dumps(args)})
        items.append({"type": "function_call_output", "call_id": cid, "output": output})

    items.append({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "Wise exports with amounts like '(12.50)' show up as positive income. Fix it and add a test."}]})
    call("search_files", {"pattern": "negative", "path": "src/"},
         project.search_result(project.grep(files, "negative", "src/")),
         "**Locating sign handling**\n\nThe user says parenthesised amounts come out positive; find the sign logic.")
    call("read_file", {"path": P, "offset": 36, "limit": 24}, project.read_file_result(P, files[P], 36, 24))
    call("terminal", {"command": "python -c \"from ledgerline.parser import parse_amount; print(parse_amount('(12.50)'))\""},
         project.terminal_result("-12.5", 0),
         "**Checking current behaviour**\n\nparse_amount itself handles parentheses; the bug must be elsewhere.")
    items.append({"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "`parse_amount('(12.50)')` already returns -12.5, so the sign is lost later. "
                                        "Checking how Wise rows reach it."}]})
    call("read_file", {"path": "tests/data/wise_march.csv", "offset": 1},
         json.dumps({"path": "tests/data/wise_march.csv", "content": "     1|Date,Amount,Currency,Description,Payee\n"
                     "     2|2026-03-02,(12.50),EUR,Card payment,Cafe Luna\n     3|2026-03-03,2500.00,EUR,Salary,ACME GmbH\n"
                     "     4|2026-03-04,( 7.90 ),EUR,Card payment,BVG", "total_lines": 4}))
    call("terminal", {"command": "python -c \"from ledgerline.parser import parse_amount; print(parse_amount('( 7.90 )'))\""},
         project.terminal_result("7.90", 0),
         "**Spaces inside parentheses**\n\nWise pads the number; the negative check runs before spaces are removed?")
    # A parallel pair of calls in one assistant turn.
    cid_a, cid_b = _id(rng, "call_", 24), _id(rng, "call_", 24)
    items.append({"type": "function_call", "call_id": cid_a, "name": "read_file", "arguments": json.dumps({"path": P, "offset": 40, "limit": 6})})
    items.append({"type": "function_call", "call_id": cid_b, "name": "read_file", "arguments": json.dumps({"path": TP, "offset": 12, "limit": 14})})
    items.append({"type": "function_call_output", "call_id": cid_a, "output": project.read_file_result(P, files[P], 40, 6)})
    items.append({"type": "function_call_output", "call_id": cid_b, "output": project.read_file_result(TP, files[TP], 12, 14)})
    call("patch", {"path": P, "old_string": '    text = raw.strip().replace("\\u00a0", "").replace(" ", "")\n',
                   "new_string": '    text = raw.strip().replace("\\u00a0", "").replace(" ", "")  # before the sign check\n'},
         project.patch_result(P, "    text = raw.strip()", "    text = raw.strip()  # before the sign check", 37),
         "**Root cause**\n\nThe real export has '( 7.90 )': strip() keeps inner spaces only if replace runs after; confirm order.")
    call("terminal", {"command": "python -m pytest tests/test_parser.py -q"},
         project.terminal_result(project.pytest_run(rng, [TP], [])[0], 0))
    items.append({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "Here's how the imported rows look in the app now:"},
        {"type": "input_image", "image_url": _png_data_url(128, 80, 201), "detail": "auto"}]})
    items.append({"type": "reasoning", "id": _id(rng, "rs_", 32, "0123456789abcdef"),
                  "summary": [{"type": "summary_text", "text": "**Reading the screenshot**\n\nBoth Wise debits now show as negative."}],
                  "encrypted_content": "gAAAAAB" + _id(rng, "", 96)})
    items.append({"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "The screenshot shows both Wise card payments as debits now (-12.50 and -7.90). "
                                        "The fix normalises spaces before the sign check, and the parser tests pass."}]})
    return {
        "model": "gpt-5-codex",
        "instructions": "You are a coding agent in the ledgerline repository. Use the tools to inspect and change files; "
                        "run the tests after each change.",
        "tools": [
            {"type": "function", "name": name, "description": desc, "parameters": {"type": "object", "properties": props}}
            for name, desc, props in [
                ("read_file", "Read a file with line numbers.", {"path": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}}),
                ("search_files", "Search file contents.", {"pattern": {"type": "string"}, "path": {"type": "string"}}),
                ("terminal", "Run a shell command.", {"command": {"type": "string"}}),
                ("patch", "Replace one exact occurrence.", {"path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}}),
            ]
        ],
        "input": items,
    }


# ---------------------------------------------------------------------------------------------
# Anthropic Messages

def anthropic_session(rng: random.Random) -> dict[str, Any]:
    files = dict(project.BASE_FILES)
    messages: list[dict[str, Any]] = []

    def tool_id() -> str:
        return _id(rng, "toolu_01", 22)

    messages.append({"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _png_b64(144, 90, 301)}},
        {"type": "text", "text": "This is the budget table from yesterday's run. March net should be 1087.81, not 1107.80. "
                                 "Can you find the bug?"}]})
    t1 = tool_id()
    messages.append({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "The difference is 19.99, which matches the Zalando refund in the screenshot. "
                                         "Likely the refund is counted twice. Run the budget tests first.",
         "signature": "EqQBCkgIBxABGAIiQL" + _id(rng, "", 60)},
        {"type": "text", "text": "The gap is exactly 19.99, the refund amount. Let me run the budget tests."},
        {"type": "tool_use", "id": t1, "name": "bash", "input": {"command": "python -m pytest tests/test_budget.py -q"}}]})
    output, _ = project.pytest_run(rng, [TB], [(TB, "test_refund_counted_once", "assert march.income == Decimal('0')",
                                                "AssertionError: assert Decimal('50.00') == Decimal('0')")])
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": t1, "is_error": True, "content": [{"type": "text", "text": output}]}]})
    t2 = tool_id()
    messages.append({"role": "assistant", "content": [
        {"type": "tool_use", "id": t2, "name": "str_replace_based_edit_tool",
         "input": {"command": "view", "path": "/home/dev/ledgerline/" + B, "view_range": [30, 60]}}]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": t2, "content": project.numbered(files[B], 30, 31)}]})
    t3, t4 = tool_id(), tool_id()
    messages.append({"role": "assistant", "content": [
        {"type": "text", "text": "A refund is positive, so it is added to both `refunds` and `income`. Fixing the branch "
                                 "and checking git blame for when it changed."},
        {"type": "tool_use", "id": t3, "name": "str_replace_based_edit_tool",
         "input": {"command": "str_replace", "path": "/home/dev/ledgerline/" + B,
                   "old_str": "                refunds += amount\n            if amount >= 0:",
                   "new_str": "                refunds += amount\n            elif amount >= 0:"}},
        {"type": "tool_use", "id": t4, "name": "bash", "input": {"command": "git log -L 44,48:src/ledgerline/budget.py --oneline | head -20"}}]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": t3, "content": "The file /home/dev/ledgerline/src/ledgerline/budget.py has been edited."},
        {"type": "tool_result", "tool_use_id": t4, "content": "3f9a2c1 budget: track refunds separately\n"
         "diff --git a/src/ledgerline/budget.py b/src/ledgerline/budget.py\n@@ -44,3 +44,5 @@\n+            if tx.is_refund:\n"
         "+                refunds += amount\n             if amount >= 0:\n                 income += amount"},
        {"type": "text", "text": "(I'm heading out in 10 minutes, keep it short.)"}]})
    t5 = tool_id()
    messages.append({"role": "assistant", "content": [
        {"type": "tool_use", "id": t5, "name": "bash", "input": {"command": "python -m pytest tests/test_budget.py -q"}}]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": t5, "content": project.pytest_run(rng, [TB], [])[0]}]})
    messages.append({"role": "assistant", "content": [
        {"type": "text", "text": "Fixed: since commit 3f9a2c1 refunds were added to both `refunds` and `income`, so March "
                                 "net was 19.99 too high. The branch is exclusive now and the budget tests pass."}]})
    return {
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": "You are a careful coding agent working in /home/dev/ledgerline. "
                                           "Run tests before and after changes. Keep answers short.",
                    "cache_control": {"type": "ephemeral"}}],
        "max_tokens": 8192,
        "tools": [
            {"name": "bash", "description": "Run a shell command.",
             "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
            {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
        ],
        "messages": messages,
    }


# ---------------------------------------------------------------------------------------------
# ShareGPT (Hermes trajectory export)

def sharegpt_session(s: Any) -> dict[str, Any]:
    s.messages = []
    s.user("Add a `ledgerline categories` command that lists the configured categories and their patterns.")
    s.read("src/ledgerline/categorize.py", "Reading the categorizer to see how rules are stored.")
    s.read_many(["src/ledgerline/cli.py", "tests/conftest.py"], "Now the CLI and the test fixtures.")
    s.patch("src/ledgerline/cli.py", '    report.add_argument("--rules", type=Path)\n',
            '    report.add_argument("--rules", type=Path)\n'
            '    categories = sub.add_parser("categories", help="list categories and their patterns")\n'
            '    categories.add_argument("--rules", type=Path)\n')
    s.pytest(["tests/test_cli.py"], [])
    s.say("Added the `categories` sub-command skeleton; it accepts `--rules` like `report`. Want the output as a table?")
    s.user("Yes, one line per category with its patterns comma-separated.")
    s.pytest(["tests/test_cli.py"], [("tests/test_cli.py", "test_categories_lists_rules",
                                      "assert 'groceries: rewe, edeka' in out", "AssertionError: assert 'groceries: rewe, edeka' in ''")])
    s.say("The new test fails as expected because `main` does not handle `categories` yet; I'll implement it next.")
    turns: list[dict[str, str]] = [{"from": "system", "value": (
        "You are a function calling AI model. You are provided with function signatures within <tools></tools> XML "
        "tags. You may call one or more functions to assist with the user query. Don't make assumptions about what "
        "values to plug into functions. For each function call return a json object with function name and arguments "
        "within <tool_call></tool_call> XML tags.\n<tools>\n"
        + json.dumps([{"name": n} for n in ("read_file", "patch", "terminal")]) + "\n</tools>")}]
    names: dict[str, str] = {}
    thoughts = iter([
        "The categorizer keeps compiled Rule objects; the raw patterns are only in DEFAULT_RULES or the TOML.",
        "I need both the CLI wiring and the fixtures for a test.",
        "Add a sub-parser; the handler comes later.",
        "Run the CLI tests to make sure nothing broke.",
        None, None, None, None,
    ])
    for message in s.messages:
        role = message["role"]
        if role == "user":
            turns.append({"from": "human", "value": message["content"]})
        elif role == "assistant":
            pieces = []
            if message.get("tool_calls"):
                thought = next(thoughts, None)
                if thought:
                    pieces.append(f"<think>\n{thought}\n</think>")
            if message.get("content"):
                pieces.append(message["content"])
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["function"]["name"]
                body = {"name": call["function"]["name"], "arguments": json.loads(call["function"]["arguments"])}
                pieces.append(f"<tool_call>\n{json.dumps(body, ensure_ascii=False)}\n</tool_call>")
            turns.append({"from": "gpt", "value": "\n".join(pieces)})
        elif role == "tool":
            content: Any = message["content"]
            try:
                content = json.loads(content)
            except ValueError:
                pass
            body = {"tool_call_id": message["tool_call_id"], "name": names[message["tool_call_id"]], "content": content}
            response = f"<tool_response>\n{json.dumps(body, ensure_ascii=False)}\n</tool_response>"
            if turns[-1]["from"] == "tool":
                turns[-1]["value"] += "\n" + response
            else:
                turns.append({"from": "tool", "value": response})
    return {"conversations": turns, "timestamp": "2026-03-20T14:02:11.512044", "model": "anthropic/claude-sonnet-4.6",
            "completed": True, "partial": False}


# ---------------------------------------------------------------------------------------------
# Claude Code session log

class _ClaudeLog:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[dict[str, Any]] = []
        self.session_id = _uuid(rng)
        self.clock = 0
        self.last: str | None = None

    def stamp(self) -> str:
        self.clock += self.rng.randint(2, 40)
        minutes, seconds = divmod(self.clock, 60)
        hours, minutes = divmod(minutes, 60)
        return f"2026-03-21T{9 + hours:02d}:{minutes:02d}:{seconds:02d}.{self.rng.randint(0, 999):03d}Z"

    def event(self, kind: str, parent: str | None, **extra: Any) -> str:
        uuid = _uuid(self.rng)
        record = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/ledgerline",
                  "sessionId": self.session_id, "version": "2.0.75", "gitBranch": "main", "type": kind,
                  "uuid": uuid, "timestamp": self.stamp()}
        record.update(extra)
        self.lines.append(record)
        return uuid

    def user(self, content: Any, parent: str | None = "last", **extra: Any) -> str:
        parent_id = self.last if parent == "last" else parent
        self.last = self.event("user", parent_id, message={"role": "user", "content": content}, **extra)
        return self.last

    def assistant(self, blocks: list[dict[str, Any]], parent: str | None = "last", split: bool = False, **extra: Any) -> str:
        """One API response; ``split`` logs each block as its own event, as Claude Code does."""
        message_id = _id(self.rng, "msg_01", 22)
        request_id = _id(self.rng, "req_011C", 18)
        parent_id = self.last if parent == "last" else parent
        groups = [[block] for block in blocks] if split else [blocks]
        for index, group in enumerate(groups):
            usage = {"input_tokens": self.rng.randint(3, 12), "cache_creation_input_tokens": self.rng.randint(200, 4000),
                     "cache_read_input_tokens": 12000 + 900 * len(self.lines),
                     "output_tokens": self.rng.randint(20, 60) if index < len(groups) - 1 else self.rng.randint(80, 700),
                     "service_tier": "standard"}
            message = {"id": message_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                       "content": group, "stop_reason": "tool_use" if group[-1]["type"] == "tool_use" else None,
                       "stop_sequence": None, "usage": usage}
            parent_id = self.event("assistant", parent_id, requestId=request_id, message=message, **extra)
        self.last = parent_id
        return parent_id

    def tool_result(self, tool_use_id: str, content: Any, **extra: Any) -> str:
        return self.user([{"tool_use_id": tool_use_id, "type": "tool_result", "content": content}], **extra)


def claude_code_session(rng: random.Random) -> list[dict[str, Any]]:
    files = dict(project.BASE_FILES)
    log = _ClaudeLog(rng)
    log.lines.append({"type": "file-history-snapshot", "messageId": _uuid(rng),
                      "snapshot": {"messageId": _uuid(rng), "trackedFileBackups": {}, "timestamp": "2026-03-21T09:00:00.000Z"},
                      "isSnapshotUpdate": False})
    log.user("The DKB import fails with 'unknown date format'. Can you fix the parser?")
    t = _id(rng, "toolu_01", 22)
    log.assistant([{"type": "thinking", "thinking": "Start by reading the parser; the date column name is probably hard-coded.",
                    "signature": _id(rng, "Eq", 80)},
                   {"type": "text", "text": "I'll read the parser first."},
                   {"type": "tool_use", "id": t, "name": "Read", "input": {"file_path": "/home/dev/ledgerline/" + P}}], split=True)
    log.tool_result(t, project.numbered(files[P]), toolUseResult={"type": "text", "file": {"filePath": "/home/dev/ledgerline/" + P}})
    t = _id(rng, "toolu_01", 22)
    log.assistant([{"type": "tool_use", "id": t, "name": "Task", "input": {
        "description": "Find date column names", "subagent_type": "Explore",
        "prompt": "Search tests/ and docs for every bank export header that holds the booking date and report them."}}])
    task_parent = log.last
    # The subagent's own conversation (a sidechain) in the same file.
    agent_id = "a7f3c2e1"
    side_user = log.event("user", None, isSidechain=True, agentId=agent_id, message={"role": "user", "content":
                              "Search tests/ and docs for every bank export header that holds the booking date and report them."})
    g = _id(rng, "toolu_01", 22)
    side_a = log.event("assistant", side_user, isSidechain=True, agentId=agent_id, message={
        "id": _id(rng, "msg_01", 22), "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "tool_use", "id": g, "name": "Grep", "input": {"pattern": "Datum|Buchungstag|date", "path": "tests"}}],
        "usage": {"input_tokens": 9, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 4100, "output_tokens": 61}})
    side_r = log.event("user", side_a, isSidechain=True, agentId=agent_id, message={"role": "user", "content": [
        {"tool_use_id": g, "type": "tool_result", "content": "tests/test_parser.py:9:GERMAN_EXPORT = \"\"\"Datum;Betrag;merchant;memo\n"
                                                            "tests/data/dkb_march.csv:1:Buchungstag;Wertstellung;Betrag (EUR);Empfänger;Verwendungszweck"}]})
    report = "Found two date headers: `Datum` (tests/test_parser.py) and `Buchungstag` (tests/data/dkb_march.csv, DKB export)."
    log.event("assistant", side_r, isSidechain=True, agentId=agent_id, message={
        "id": _id(rng, "msg_01", 22), "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": report}],
        "usage": {"input_tokens": 7, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 4400, "output_tokens": 38}})
    log.last = task_parent
    log.tool_result(t, [{"type": "text", "text": report}])
    t = _id(rng, "toolu_01", 22)
    log.assistant([{"type": "text", "text": "DKB uses `Buchungstag`. Adding it to the accepted date columns."},
                   {"type": "tool_use", "id": t, "name": "Edit", "input": {
                       "file_path": "/home/dev/ledgerline/" + P,
                       "old_string": 'row.get("date") or row.get("Datum") or ""',
                       "new_string": 'row.get("date") or row.get("Datum") or row.get("Buchungstag") or ""'}}], split=True)
    log.tool_result(t, "The file /home/dev/ledgerline/src/ledgerline/parser.py has been updated.")
    fork = log.last
    # An abandoned branch: the user message was edited (rewound) and sent again.
    log.user("run all tests")
    t_abandoned = _id(rng, "toolu_01", 22)
    log.assistant([{"type": "tool_use", "id": t_abandoned, "name": "Bash", "input": {"command": "python -m pytest"}}])
    log.user("run only the parser tests please", parent=fork)
    t = _id(rng, "toolu_01", 22)
    log.assistant([{"type": "tool_use", "id": t, "name": "Bash", "input": {"command": "python -m pytest tests/test_parser.py -q",
                                                                          "description": "Run parser tests"}}])
    log.tool_result(t, project.pytest_run(rng, [TP], [])[0])
    log.assistant([{"type": "text", "text": "Parser tests pass. DKB files with a `Buchungstag` column load now."}])
    for ask in ("Also check the budget module for the refund double counting Mara mentioned.",
                "Read it again, I pushed a change from my laptop.", "Once more please, CI says it still fails."):
        log.user(ask)
        t = _id(rng, "toolu_01", 22)
        log.assistant([{"type": "tool_use", "id": t, "name": "Read", "input": {"file_path": "/home/dev/ledgerline/" + B}}])
        log.tool_result(t, project.numbered(files[B]))
        t = _id(rng, "toolu_01", 22)
        log.assistant([{"type": "tool_use", "id": t, "name": "Bash", "input": {"command": "python -m pytest tests/test_budget.py -q"}}])
        log.tool_result(t, project.pytest_run(rng, [TB], [(TB, "test_refund_counted_once", "assert march.income == Decimal('0')",
                                                          "AssertionError: assert Decimal('50.00') == Decimal('0')")])[0])
        log.assistant([{"type": "text", "text": "The refund test still fails: refunds are counted as income too."}])
    boundary_parent = log.last
    boundary = log.event("system", None, subtype="compact_boundary", content="Conversation compacted", isMeta=False,
                         level="info", logicalParentUuid=boundary_parent,
                         compactMetadata={"trigger": "auto", "preTokens": 155116})
    log.last = boundary
    log.user("This session is being continued from a previous conversation that ran out of context. The conversation "
             "is summarized below:\nAnalysis:\nThe user asked to fix DKB date parsing (done: `Buchungstag` accepted, parser "
             "tests pass) and then to check refund double counting in budget.py.\n\nSummary:\n1. Primary Request: fix the "
             "DKB import; then fix refunds counted twice.\n2. Files: src/ledgerline/parser.py (edited), src/ledgerline/budget.py "
             "(read; refund branch adds to income as well).\n3. Current Work: test_refund_counted_once fails with "
             "Decimal('50.00') != Decimal('0').\n4. Next Step: make the refund/income branches exclusive and rerun the "
             "budget tests.", isCompactSummary=True, isVisibleInTranscriptOnly=True)
    t = _id(rng, "toolu_01", 22)
    log.assistant([{"type": "text", "text": "Continuing with the refund fix."},
                   {"type": "tool_use", "id": t, "name": "Edit", "input": {
                       "file_path": "/home/dev/ledgerline/" + B, "old_string": "            if amount >= 0:\n",
                       "new_string": "            elif amount >= 0:\n"}}], split=True)
    log.tool_result(t, "The file /home/dev/ledgerline/src/ledgerline/budget.py has been updated.")
    t = _id(rng, "toolu_01", 22)
    log.assistant([{"type": "tool_use", "id": t, "name": "Bash", "input": {"command": "python -m pytest tests/test_budget.py -q"}}])
    log.tool_result(t, project.pytest_run(rng, [TB], [])[0])
    log.assistant([{"type": "text", "text": "Budget tests pass: refunds are no longer counted as income."}])
    log.lines.append({"type": "summary", "summary": "Fix DKB import and refund double counting", "leafUuid": log.last})
    return log.lines


# ---------------------------------------------------------------------------------------------
# Codex rollout

AGENTS_MD = """# AGENTS.md

## Project
ledgerline: bank statement CSV → monthly budget table. Python 3.11+, src layout.

## Commands
- Tests: `python -m pytest -q`
- Lint: `ruff check src tests`
- Types: `mypy`

## Rules
- Keep `ledgerline.parser` API stable.
- Amounts are Decimal with two places; never use float for money.
"""


def codex_rollout(rng: random.Random) -> list[dict[str, Any]]:
    files = dict(project.BASE_FILES)
    lines: list[dict[str, Any]] = []
    clock = [0]
    session = _uuid(rng)

    def stamp() -> str:
        clock[0] += rng.randint(1, 20)
        minutes, seconds = divmod(clock[0], 60)
        return f"2026-03-22T10:{minutes:02d}:{seconds:02d}.{rng.randint(0, 999):03d}Z"

    def emit(kind: str, payload: dict[str, Any]) -> None:
        lines.append({"timestamp": stamp(), "type": kind, "payload": payload})

    totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}

    def token_count(prompt: int) -> None:
        last = {"input_tokens": prompt, "cached_input_tokens": prompt - rng.randint(300, 2000),
                "output_tokens": rng.randint(40, 600), "reasoning_output_tokens": rng.randint(0, 300)}
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for key in totals:
            totals[key] += last[key]
        emit("event_msg", {"type": "token_count", "info": {"total_token_usage": dict(totals), "last_token_usage": last,
                                                           "model_context_window": 272000}, "rate_limits": None})

    def shell(command: list[str], output: str, exit_code: int = 0, reasoning: str | None = None, prompt: int = 9000) -> None:
        if reasoning:
            emit("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}],
                                   "content": None, "encrypted_content": "gAAAAAB" + _id(rng, "", 160)})
        cid = _id(rng, "call_", 24)
        emit("response_item", {"type": "function_call", "name": "shell",
                               "arguments": json.dumps({"command": command, "workdir": "/home/dev/ledgerline", "timeout_ms": 120000}),
                               "call_id": cid})
        emit("response_item", {"type": "function_call_output", "call_id": cid, "output": json.dumps(
            {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": round(rng.uniform(0.05, 3.5), 1)}})})
        token_count(prompt)

    emit("session_meta", {"id": session, "timestamp": "2026-03-22T10:00:00.000Z", "cwd": "/home/dev/ledgerline",
                          "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": None, "source": "cli",
                          "model_provider": "openai", "git": {"commit_hash": _id(rng, "", 40, "0123456789abcdef"),
                                                               "branch": "main", "repository_url": "git@github.com:ledgerline/ledgerline.git"}})
    emit("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": f"<user_instructions>\n\n{AGENTS_MD}\n</user_instructions>"}]})
    emit("response_item", {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<environment_context>\n  <cwd>/home/dev/ledgerline</cwd>\n  <approval_policy>on-request</approval_policy>\n"
                                       "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"
                                       "  <shell>bash</shell>\n</environment_context>"}]})
    emit("turn_context", {"cwd": "/home/dev/ledgerline", "approval_policy": "on-request",
                          "sandbox_policy": {"mode": "workspace-write", "network_access": False}, "model": "gpt-5-codex",
                          "effort": "medium", "summary": "auto"})
    ask = "Amounts like 1.005 round to 1.00 but should be 1.01. Fix parse_amount and make sure the tests pass."
    emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ask}]})
    emit("event_msg", {"type": "user_message", "message": ask, "images": []})
    shell(["bash", "-lc", "rg -n \"def parse_amount\" -A 22 src/ledgerline/parser.py"],
          "\n".join(f"{n}:{line}" for n, line in enumerate(files[P].split("\n")[36:60], start=37)), 0,
          "**Inspecting parse_amount**\n\nLook at how the amount string is converted.", 8200)
    shell(["bash", "-lc", "python -m pytest tests/test_parser.py -q"],
          project.pytest_run(rng, [TP], [(TP, "test_parse_amount[1.005-expected5]", "assert parse_amount(raw) == expected",
                                           "AssertionError: assert Decimal('1.0') == Decimal('1.01')")])[0], 1,
          "**Reproducing**\n\nRun the parser tests to see the failure.", 11400)
    emit("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text":
         "**Planning the fix**\n\nfloat + round() loses x.xx5; quantize a Decimal built from the string instead."}],
         "content": None, "encrypted_content": "gAAAAAB" + _id(rng, "", 160)})
    patch_id = _id(rng, "call_", 24)
    emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": patch_id, "name": "apply_patch",
                           "input": "*** Begin Patch\n*** Update File: src/ledgerline/parser.py\n@@\n-        value = round(float(text), 2)\n"
                                    "-    except ValueError as exc:\n+        amount = Decimal(text).quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)\n"
                                    "+    except InvalidOperation as exc:\n*** End Patch\n"})
    emit("response_item", {"type": "custom_tool_call_output", "call_id": patch_id,
                           "output": json.dumps({"output": "Success. Updated the following files:\nM src/ledgerline/parser.py\n",
                                                 "metadata": {"exit_code": 0, "duration_seconds": 0.0}})})
    token_count(12900)
    shell(["bash", "-lc", "python -m pytest tests/test_parser.py -q"], project.pytest_run(rng, [TP], [])[0], 0, None, 14100)
    answer = ("Fixed `parse_amount`: it now quantizes a `Decimal` built from the original string with `ROUND_HALF_UP` "
              "instead of going through `float`, so 1.005 → 1.01 and 2.675 → 2.68. Parser tests pass.")
    emit("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]})
    emit("event_msg", {"type": "agent_message", "message": answer})
    token_count(14800)
    for round_no in range(4):
        ask = ["Now run the whole suite.", "Run ruff too.", "And mypy.", "Show me git status."][round_no]
        emit("turn_context", {"cwd": "/home/dev/ledgerline", "approval_policy": "on-request",
                              "sandbox_policy": {"mode": "workspace-write", "network_access": False}, "model": "gpt-5-codex",
                              "effort": "medium", "summary": "auto"})
        emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ask}]})
        emit("event_msg", {"type": "user_message", "message": ask, "images": []})
        outputs = [
            (["bash", "-lc", "python -m pytest -q"], project.pytest_run(rng, [TP, TB, "tests/test_currency.py"], [])[0], 0),
            (["bash", "-lc", "ruff check src tests"], "All checks passed!", 0),
            (["bash", "-lc", "mypy"], "Success: no issues found in 6 source files", 0),
            (["bash", "-lc", "git status --short"], " M src/ledgerline/parser.py", 0),
        ]
        command, output, code = outputs[round_no]
        shell(command, output, code, None, 15500 + 2600 * round_no)
        reply = ["Whole suite passes.", "ruff is clean.", "mypy is clean.", "Only src/ledgerline/parser.py is modified."][round_no]
        emit("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": reply}]})
        emit("event_msg", {"type": "agent_message", "message": reply})
    emit("compacted", {"message": "Summary of the session so far: the user asked to fix rounding of half-cent amounts in "
                                  "ledgerline's parse_amount. Done: parse_amount quantizes a Decimal built from the string "
                                  "with ROUND_HALF_UP (src/ledgerline/parser.py). The full test suite, ruff and mypy pass; "
                                  "only parser.py is modified and not committed yet.",
                       "replacement_history": [
                           {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ask}]},
                           {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Summary of the session so far: ..."}]}]})
    emit("turn_context", {"cwd": "/home/dev/ledgerline", "approval_policy": "on-request",
                          "sandbox_policy": {"mode": "workspace-write", "network_access": False}, "model": "gpt-5-codex",
                          "effort": "medium", "summary": "auto"})
    ask = "Commit it with a good message."
    emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ask}]})
    emit("event_msg", {"type": "user_message", "message": ask, "images": []})
    shell(["bash", "-lc", "git commit -am 'parser: round half-cent amounts from the exact decimal value'"],
          "[main 5be21d9] parser: round half-cent amounts from the exact decimal value\n 1 file changed, 3 insertions(+), 3 deletions(-)",
          0, "**Committing**\n\nOne file changed; write a descriptive subject.", 3900)
    reply = "Committed as 5be21d9: \"parser: round half-cent amounts from the exact decimal value\"."
    emit("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": reply}]})
    emit("event_msg", {"type": "agent_message", "message": reply})
    token_count(4300)
    return lines


# ---------------------------------------------------------------------------------------------
# codex exec --json event stream

def codex_exec_run(rng: random.Random) -> list[dict[str, Any]]:
    """The events ``codex exec --json "..."`` prints for one coding task (the prompt itself is an argument)."""
    files = dict(project.BASE_FILES)
    events: list[dict[str, Any]] = []
    counter = [0]

    def new_id() -> str:
        counter[0] += 1
        return f"item_{counter[0] - 1}"

    def item(event: str, body: dict[str, Any]) -> None:
        events.append({"type": f"item.{event}", "item": body})

    def command(text: str, output: str, exit_code: int, streamed: bool = True) -> None:
        item_id = new_id()
        if streamed:
            item("started", {"id": item_id, "type": "command_execution", "command": text, "aggregated_output": "",
                             "exit_code": None, "status": "in_progress"})
        item("completed", {"id": item_id, "type": "command_execution", "command": text, "aggregated_output": output,
                           "exit_code": exit_code, "status": "completed" if exit_code == 0 else "failed"})

    def todo(item_id: str, event: str, done: int) -> None:
        steps = ["Reproduce the same-currency rounding bug", "Quantize same-currency amounts in convert()",
                 "Run the currency tests and ruff"]
        item(event, {"id": item_id, "type": "todo_list", "items": [{"text": step, "completed": k < done} for k, step in enumerate(steps)]})

    events.append({"type": "thread.started", "thread_id": _uuid(rng)})
    events.append({"type": "turn.started"})
    item("completed", {"id": new_id(), "type": "reasoning",
                       "text": "**Locating convert()**\n\nThe same-currency branch returns early; check whether it skips rounding."})
    plan_id = new_id()
    todo(plan_id, "started", 0)
    lines = files[C].split("\n")
    start = next(n for n, line in enumerate(lines) if line.startswith("def convert"))
    command("bash -lc 'rg -n \"def convert\" -A 6 src/ledgerline/currency.py'",
            "\n".join(f"{n}:{line}" for n, line in enumerate(lines[start:start + 7], start=start + 1)), 0)
    item("completed", {"id": new_id(), "type": "reasoning",
                       "text": "**Reproducing**\n\nAdd a test for EUR→EUR with three decimals and run the currency tests."})
    item("completed", {"id": new_id(), "type": "file_change", "changes": [{"path": "tests/test_currency.py", "kind": "update"}],
                       "status": "completed"})
    failing = ("tests/test_currency.py", "test_convert_same_currency_rounds",
               "assert convert(Decimal(\"12.345\"), \"EUR\", \"EUR\", table, day) == Decimal(\"12.34\")",
               "AssertionError: assert Decimal('12.345') == Decimal('12.34')")
    command("bash -lc 'python -m pytest tests/test_currency.py -q'",
            project.pytest_run(rng, ["tests/test_currency.py"], [failing])[0], 1)
    todo(plan_id, "updated", 1)
    item("completed", {"id": new_id(), "type": "agent_message",
                       "text": "The new test fails: `convert()` returns the amount unchanged when source and target match, "
                               "so 12.345 EUR stays 12.345 instead of 12.34. I'll quantize that branch like the others."})
    item("completed", {"id": new_id(), "type": "file_change", "changes": [{"path": C, "kind": "update"}], "status": "completed"})
    todo(plan_id, "updated", 2)
    command("bash -lc 'python -m pytest tests/test_currency.py -q'", project.pytest_run(rng, ["tests/test_currency.py"], [])[0], 0)
    command("bash -lc 'ruff check src tests'", "All checks passed!", 0, streamed=False)
    todo(plan_id, "completed", 3)
    item("completed", {"id": new_id(), "type": "agent_message",
                       "text": "Fixed `convert()` in `src/ledgerline/currency.py`: same-currency amounts are now quantized to "
                               "cents with `ROUND_HALF_EVEN`, like converted ones. Added "
                               "`test_convert_same_currency_rounds`; the currency tests and ruff pass."})
    events.append({"type": "turn.completed", "usage": {"input_tokens": 48210 + rng.randint(0, 999),
                                                       "cached_input_tokens": 41216, "output_tokens": 1830 + rng.randint(0, 99)}})
    return events


# ---------------------------------------------------------------------------------------------
# OpenHands trajectory

def openhands_trajectory(rng: random.Random) -> list[dict[str, Any]]:
    files = dict(project.BASE_FILES)
    events: list[dict[str, Any]] = []
    cost = [0.0]

    def add(event: dict[str, Any]) -> int:
        event_id = len(events)
        base = {"id": event_id, "timestamp": f"2026-03-23T11:{event_id // 2:02d}:{(event_id * 7) % 60:02d}.{rng.randint(100000, 999999)}"}
        base.update(event)
        events.append(base)
        return event_id

    def metrics() -> dict[str, Any]:
        cost[0] += rng.uniform(0.004, 0.03)
        return {"accumulated_cost": round(cost[0], 6), "max_budget_per_task": 4.0,
                "accumulated_token_usage": {"model": "litellm_proxy/claude-sonnet-4-5", "prompt_tokens": rng.randint(8000, 40000),
                                            "completion_tokens": rng.randint(50, 900), "cache_read_tokens": rng.randint(5000, 30000),
                                            "cache_write_tokens": rng.randint(0, 4000), "context_window": 200000, "per_turn_token": 0},
                "model_name": "litellm_proxy/claude-sonnet-4-5"}

    def act(action: str, function: str, args: dict[str, Any], message: str, observation: str | None, content: str,
            extras: dict[str, Any] | None = None) -> None:
        call = _id(rng, "toolu_01", 22)
        meta = {"function_name": function, "tool_call_id": call,
                "model_response": {"id": _id(rng, "chatcmpl-", 29), "model": "claude-sonnet-4-5", "object": "chat.completion"},
                "total_calls_in_response": 1}
        action_id = add({"source": "agent", "message": message, "action": action, "tool_call_metadata": meta, "args": args,
                         "llm_metrics": metrics(), "timeout": 120})
        if observation is not None:
            add({"source": "agent", "message": f"{observation} observation", "cause": action_id, "observation": observation,
                 "tool_call_metadata": meta, "content": content, "extras": extras or {}, "success": True})

    add({"source": "agent", "message": "", "action": "system", "args": {
        "content": "You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.\n"
                   "<ROLE>Your primary role is to assist users by executing commands, modifying code, and solving "
                   "technical problems effectively.</ROLE>\n<EFFICIENCY>Combine multiple bash commands where possible.</EFFICIENCY>",
        "tools": [{"type": "function", "function": {"name": n, "description": d}} for n, d in [
            ("execute_bash", "Execute a bash command in the terminal."),
            ("str_replace_editor", "Custom editing tool for viewing, creating and editing files."),
            ("think", "Use the tool to think about something."), ("finish", "Finish the interaction.")]],
        "openhands_version": "0.59.0", "agent_class": "CodeActAgent"}})
    task = ("Fix issue #41: `ledgerline report` crashes with KeyError: 'amount' on Revolut exports whose header says "
            "'Amount' with a capital A and trailing spaces ('Amount  ').")
    add({"source": "user", "message": task, "action": "message",
         "args": {"content": task, "file_urls": None, "image_urls": None, "wait_for_response": False}})
    add({"source": "environment", "message": "", "observation": "agent_state_changed", "content": "",
         "extras": {"agent_state": "running", "reason": ""}})
    add({"source": "user", "message": "Retrieving content for: Fix issue #41", "action": "recall",
         "args": {"recall_type": "workspace_context", "query": task, "thought": ""}})
    act("run", "execute_bash", {"command": "cd /workspace/ledgerline && git log --oneline -3 && ls tests/data",
                                "is_input": False, "thought": "Let me look around the repository first.", "blocking": False,
                                "hidden": False, "confirmation_state": "confirmed"},
        "Running command: cd /workspace/ledgerline && git log --oneline -3 && ls tests/data", "run",
        "5be21d9 parser: round half-cent amounts\n3f9a2c1 budget: track refunds separately\n0c1d2e3 release 0.7.2\n"
        "dkb_march.csv\nrevolut_march.csv\nwise_march.csv", {"command": "git log", "metadata": {"exit_code": 0, "pid": -1}})
    act("read", "str_replace_editor", {"path": "/workspace/ledgerline/" + P, "start": 0, "end": -1,
                                       "thought": "The KeyError comes from the amount column lookup.", "impl_source": "oh_aci",
                                       "view_range": None},
        "Reading file: /workspace/ledgerline/" + P, "read", project.numbered(files[P]),
        {"path": "/workspace/ledgerline/" + P, "impl_source": "oh_aci"})
    act("run", "execute_bash", {"command": "head -2 tests/data/revolut_march.csv | cat -A", "is_input": False, "thought": "",
                                "blocking": False, "hidden": False, "confirmation_state": "confirmed"},
        "Running command: head -2 tests/data/revolut_march.csv | cat -A", "run",
        "Type,Product,Started Date,Completed Date,Description,Amount  ,Fee,Currency,State,Balance$\n"
        "CARD_PAYMENT,Current,2026-03-01 10:12:03,2026-03-02 08:00:11,Cafe Luna,-3.20,0.00,EUR,COMPLETED,412.18$",
        {"command": "head", "metadata": {"exit_code": 0}})
    act("think", "think", {"thought": "_amount_column lowercases and strips names for the lookup but returns the "
                                      "original header, so 'Amount  ' is found; the KeyError must come from the date: "
                                      "Revolut uses 'Completed Date'. I should check the traceback instead of guessing."},
        "I am thinking...", "think", "Your thought has been logged.", {})
    act("run", "execute_bash", {"command": "python -m ledgerline.cli report tests/data/revolut_march.csv 2>&1 | tail -5",
                                "is_input": False, "thought": "", "blocking": False, "hidden": False, "confirmation_state": "confirmed"},
        "Running command: python -m ledgerline.cli report tests/data/revolut_march.csv 2>&1 | tail -5", "run",
        "  File \"/workspace/ledgerline/src/ledgerline/parser.py\", line 91, in parse_statement\n"
        "    booked=parse_date(row.get(\"date\") or row.get(\"Datum\") or \"\"),\n"
        "  File \"/workspace/ledgerline/src/ledgerline/parser.py\", line 63, in parse_date\n"
        "    raise StatementError(f\"unknown date format: {raw!r}\")\nledgerline.parser.StatementError: line 2: unknown date format: ''",
        {"command": "python", "metadata": {"exit_code": 0}})
    add({"source": "agent", "message": "Summary: Agent is fixing Revolut imports.", "action": "condensation", "args": {
        "forgotten_event_ids": None, "forgotten_events_start_id": 4, "forgotten_events_end_id": 13,
        "summary": "USER_CONTEXT: Fix issue #41, Revolut exports crash on import.\nCOMPLETED: Read parser.py; the "
                   "amount header lookup already strips and lowercases. Reproduced: the real error is 'unknown date "
                   "format' because Revolut's date column is 'Completed Date'.\nPENDING: accept 'Completed Date' "
                   "(datetime with time) and add a regression test.\nCODE_STATE: src/ledgerline/parser.py unchanged.",
        "summary_offset": 2}, "llm_metrics": metrics()})
    act("edit", "str_replace_editor", {"path": "/workspace/ledgerline/" + P, "command": "str_replace",
                                       "old_str": 'booked=parse_date(row.get("date") or row.get("Datum") or ""),',
                                       "new_str": 'booked=parse_date((row.get("date") or row.get("Datum") or row.get("Completed Date") or "")[:10]),',
                                       "file_text": None, "insert_line": None, "thought": "Accept Revolut's completion date; it has a time part.",
                                       "impl_source": "oh_aci"},
        "Editing file: /workspace/ledgerline/" + P, "edit",
        "The file /workspace/ledgerline/src/ledgerline/parser.py has been edited. Here's the result of running `cat -n` "
        "on a snippet:\n    89\t            result.append(\n    90\t                Transaction(\n    91\t                    "
        "booked=parse_date((row.get(\"date\") or row.get(\"Datum\") or row.get(\"Completed Date\") or \"\")[:10]),\n"
        "Review the changes and make sure they are as expected.", {"path": "/workspace/ledgerline/" + P})
    act("run", "execute_bash", {"command": "python -m pytest tests/test_parser.py -q", "is_input": False, "thought": "",
                                "blocking": False, "hidden": False, "confirmation_state": "confirmed"},
        "Running command: python -m pytest tests/test_parser.py -q", "run", project.pytest_run(rng, [TP], [])[0],
        {"command": "pytest", "metadata": {"exit_code": 0}})
    add({"source": "agent", "message": "Revolut exports load again.", "action": "message",
         "args": {"content": "Revolut exports load again: the date now falls back to 'Completed Date' (date part only). "
                             "Parser tests pass.", "file_urls": None, "image_urls": None, "wait_for_response": False},
         "llm_metrics": metrics()})
    call = _id(rng, "toolu_01", 22)
    add({"source": "agent", "message": "All done! Issue #41 is fixed.", "action": "finish", "tool_call_metadata": {
        "function_name": "finish", "tool_call_id": call, "model_response": {"id": _id(rng, "chatcmpl-", 29)},
        "total_calls_in_response": 1},
        "args": {"final_thought": "Issue #41 fixed: Revolut's 'Completed Date' column is accepted as the booking date.",
                 "task_completed": "true", "outputs": {}, "thought": ""}, "llm_metrics": metrics()})
    add({"source": "environment", "message": "", "observation": "agent_state_changed", "content": "",
         "extras": {"agent_state": "finished", "reason": ""}})
    return events


# ---------------------------------------------------------------------------------------------
# LangChain messages_to_dict

def langchain_messages(rng: random.Random) -> list[dict[str, Any]]:
    files = dict(project.BASE_FILES)

    def ai(content: str, calls: list[tuple[str, dict[str, Any]]], prompt: int) -> tuple[dict[str, Any], list[str]]:
        ids = [_id(rng, "call_", 24) for _ in calls]
        output = rng.randint(30, 400)
        return {"type": "ai", "data": {
            "content": content, "additional_kwargs": {}, "response_metadata": {
                "token_usage": {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output},
                "model_name": "gpt-4o-2024-08-06", "finish_reason": "tool_calls" if calls else "stop"},
            "type": "ai", "name": None, "id": f"run-{_uuid(rng)}-0", "example": False,
            "tool_calls": [{"name": n, "args": a, "id": i, "type": "tool_call"} for i, (n, a) in zip(ids, calls, strict=True)],
            "invalid_tool_calls": [],
            "usage_metadata": {"input_tokens": prompt, "output_tokens": output, "total_tokens": prompt + output,
                               "input_token_details": {"cache_read": max(0, prompt - 1200)}, "output_token_details": {}}}}, ids

    def tool(call_id: str, name: str, content: str) -> dict[str, Any]:
        return {"type": "tool", "data": {"content": content, "additional_kwargs": {}, "response_metadata": {}, "type": "tool",
                                         "name": name, "id": _uuid(rng), "tool_call_id": call_id, "artifact": None, "status": "success"}}

    messages: list[dict[str, Any]] = [
        {"type": "system", "data": {"content": "You are a coding assistant for the ledgerline repository. Use the tools.",
                                    "additional_kwargs": {}, "response_metadata": {}, "type": "system", "name": None, "id": None}},
        {"type": "human", "data": {"content": "Does the currency module handle a missing rate gracefully?", "additional_kwargs": {},
                                   "response_metadata": {}, "type": "human", "name": None, "id": _uuid(rng), "example": False}},
    ]
    message, ids = ai("", [("read_file", {"path": C})], 1450)
    messages += [message, tool(ids[0], "read_file", project.numbered(files[C]))]
    message, ids = ai("It raises MissingRate; let me check how callers deal with it.",
                      [("search_files", {"pattern": "MissingRate", "path": "src/"}), ("search_files", {"pattern": "MissingRate", "path": "tests/"})], 2380)
    messages += [message, tool(ids[0], "search_files", project.search_result(project.grep(files, "MissingRate", "src/"))),
                 tool(ids[1], "search_files", project.search_result(project.grep(files, "MissingRate", "tests/")))]
    message, _ = ai("`RateTable.rate` raises `MissingRate` (a `LookupError`) when no rate exists on or before the booking "
                    "day. Nothing catches it: `build_reports` lets it propagate and the CLI does not handle it, so a "
                    "statement with a foreign-currency row older than the first rate ends in a traceback. Catching it in "
                    "`cli.main` next to `StatementError` would give a clean error.", [], 2710)
    messages.append(message)
    messages.append({"type": "human", "data": {"content": "ok do that", "additional_kwargs": {}, "response_metadata": {},
                                               "type": "human", "name": None, "id": _uuid(rng), "example": False}})
    message, ids = ai("", [("patch", {"path": "src/ledgerline/cli.py", "old_string": "    reports = build_reports(",
                                      "new_string": "    try:\n        reports = build_reports("})], 2950)
    messages += [message, tool(ids[0], "patch", project.patch_result("src/ledgerline/cli.py", "    reports = build_reports(",
                                                                     "    try:\n        reports = build_reports(", 38))]
    message, _ = ai("Done: the CLI now catches `MissingRate` and prints `error: no USD rate on or before 2026-02-28`.", [], 3200)
    messages.append(message)
    return messages


# ---------------------------------------------------------------------------------------------
# SWE-agent trajectory

def swe_agent_trajectory(rng: random.Random) -> dict[str, Any]:
    files = dict(project.BASE_FILES)
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "SETTING: You are an autonomous programmer, and you're working directly in the "
                                      "command line with a special interface.\n\nThe special interface consists of a file "
                                      "editor that shows you 100 lines of a file at a time. You can use bash commands too.",
         "agent": "main", "message_type": "system"},
        {"role": "user", "content": [{"type": "text", "text": "<uploaded_files>\n/ledgerline\n</uploaded_files>\nI've uploaded a "
                                      "python code repository in the directory /ledgerline. Consider the following issue:\n\n"
                                      "<issue>\nparse_amount('1.005') returns 1.0 instead of 1.01\n</issue>\n\nImplement the "
                                      "necessary changes so that the issue is resolved.", "cache_control": {"type": "ephemeral"}}],
         "agent": "main", "message_type": "observation"},
    ]
    trajectory: list[dict[str, Any]] = []

    def step(thought: str, command: str, observation: str) -> None:
        call = _id(rng, "call_", 24)
        history.append({"role": "assistant", "content": thought, "thought": thought, "action": command, "agent": "main",
                        "tool_calls": [{"function": {"arguments": json.dumps({"command": command}), "name": "bash"},
                                        "id": call, "type": "function"}], "message_type": "action"})
        history.append({"role": "tool", "content": [{"type": "text", "text": f"OBSERVATION:\n{observation}"}],
                        "agent": "main", "message_type": "observation", "tool_call_ids": [call]})
        trajectory.append({"action": command, "observation": observation, "response": thought, "thought": thought,
                           "execution_time": round(rng.uniform(0.05, 4.0), 3), "state": "{\"working_dir\": \"/ledgerline\"}",
                           "query": [{"role": "system", "content": "..."}], "extra_info": {}})

    step("Let me find parse_amount first.", "grep -n 'def parse_amount' -r /ledgerline/src",
         "/ledgerline/src/ledgerline/parser.py:36:def parse_amount(raw: str) -> Decimal:")
    step("I'll open the file around that line.", "sed -n '30,62p' /ledgerline/src/ledgerline/parser.py",
         "\n".join(files[P].split("\n")[29:62]))
    step("Reproduce the bug.", "cd /ledgerline && python -c \"from ledgerline.parser import parse_amount; print(parse_amount('1.005'))\"",
         "1.0")
    step("The float round trip loses the half cent. Replace it with a Decimal quantize.",
         "cd /ledgerline && python - <<'EOF'\nimport re, pathlib\np = pathlib.Path('src/ledgerline/parser.py')\ns = p.read_text()\n"
         "s = s.replace('value = round(float(text), 2)', 'value = Decimal(text).quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)')\n"
         "s = s.replace('from decimal import Decimal', 'from decimal import ROUND_HALF_UP, Decimal')\np.write_text(s)\nEOF",
         "Your command ran successfully and did not produce any output.")
    step("Check it now.", "cd /ledgerline && python -c \"from ledgerline.parser import parse_amount; print(parse_amount('1.005'))\" "
         "&& python -m pytest tests/test_parser.py -q 2>&1 | tail -3", "1.01\n" + project.pytest_run(rng, [TP], [])[0].split("\n")[-1])
    step("The fix works and tests pass. Submitting.", "submit",
         "diff --git a/src/ledgerline/parser.py b/src/ledgerline/parser.py\n--- a/src/ledgerline/parser.py\n+++ b/src/ledgerline/parser.py\n"
         "@@ -5 +5 @@\n-from decimal import Decimal, InvalidOperation\n+from decimal import ROUND_HALF_UP, Decimal, InvalidOperation\n"
         "@@ -48 +48 @@\n-        value = round(float(text), 2)\n+        value = Decimal(text).quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)")
    return {
        "environment": "swe_main",
        "trajectory": trajectory,
        "history": history,
        "info": {"swe_agent_hash": _id(rng, "", 40, "0123456789abcdef"), "swe_agent_version": "1.1.0",
                 "swe_rex_version": "1.2.1", "exit_status": "submitted",
                 "submission": "diff --git a/src/ledgerline/parser.py b/src/ledgerline/parser.py\n...",
                 "model_stats": {"instance_cost": 0.0731, "tokens_sent": 41230, "tokens_received": 1022, "api_calls": 6}},
        "replay_config": json.dumps({"agent": {"model": {"name": "claude-sonnet-4-5-20250929", "per_instance_cost_limit": 3.0}}}),
    }


# ---------------------------------------------------------------------------------------------
# Hermes sessions (state.db rows and the export JSONL)

ROOT_ID = "20260315_101502_4be1c9"
CHILD_ID = "20260315_114233_9d02fa"
GATEWAY_ID = "20260314_083011_7a1c44e2"
TODO_NOTE = ("[Your active task list was preserved across context compression]\n"
             "- [x] 1. Fix half-cent rounding (completed)\n- [>] 2. Fix refund double counting (in_progress)\n"
             "- [ ] 3. Support DKB headers (pending)")

HERMES_SUMMARY_BODY = """## Active Task
User asked: "Next: refunds are counted as income too; fix the budget report."

## Goal
Get ledgerline's monthly report numbers right before the 0.8.0 release.

## Constraints & Preferences
- Do not change the public API of ledgerline.parser.

## Completed Actions
1. READ src/ledgerline/parser.py — parse_amount used float + round() [tool: read_file]
2. PATCH src/ledgerline/parser.py — Decimal(text).quantize(CENT, ROUND_HALF_UP) [tool: patch]
3. RUN python -m pytest tests/test_parser.py — all passed [tool: terminal]
4. READ src/ledgerline/budget.py — refund branch also adds to income [tool: read_file]

## Active State
Branch main; modified: src/ledgerline/parser.py. Budget test test_refund_counted_once failing.

## In Progress
Making the refund/income branches exclusive in build_reports.

## Blocked
None.

## Key Decisions
- Round statement lines half-up (bank convention); conversions stay half-even.

## Resolved Questions
None.

## Pending User Asks
None.

## Relevant Files
- src/ledgerline/parser.py — rounding fixed
- src/ledgerline/budget.py — refund bug
- tests/test_budget.py — test_refund_counted_once

## Remaining Work
Fix the refund branch, rerun the budget tests, then DKB headers.

## Critical Context
- Failure: AssertionError: assert Decimal('50.00') == Decimal('0')"""


def _hermes_rows(messages: list[dict[str, Any]], start_time: float, rng: random.Random, for_db: bool) -> list[dict[str, Any]]:
    rows = []
    for offset, message in enumerate(messages):
        content = message.get("content")
        if for_db and isinstance(content, list):
            content = "\x00json:" + json.dumps(content, ensure_ascii=False)
        tool_calls = message.get("tool_calls")
        if tool_calls is not None and for_db:
            tool_calls = json.dumps(tool_calls, ensure_ascii=False)
        row = {
            "role": message["role"],
            "content": content,
            "tool_call_id": message.get("tool_call_id"),
            "tool_calls": tool_calls,
            "tool_name": message.get("_tool_name"),
            "timestamp": round(start_time + offset * 3.7, 3),
            "token_count": rng.randint(20, 3000) if message["role"] == "assistant" else None,
            "finish_reason": ("tool_calls" if message.get("tool_calls") else "stop") if message["role"] == "assistant" else None,
            "reasoning": message.get("_reasoning"),
            "reasoning_content": None,
            "reasoning_details": None,
            "codex_reasoning_items": None,
            "codex_message_items": None,
            "platform_message_id": message.get("_platform_id"),
            "observed": 0,
        }
        rows.append(row)
    return rows


def _with_tool_names(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = {}
    out = []
    for message in messages:
        message = dict(message)
        for call in message.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
        if message["role"] == "tool":
            message["_tool_name"] = names.get(message["tool_call_id"])
        out.append(message)
    return out


def hermes_sessions(s: Any) -> list[dict[str, Any]]:
    system_prompt = s.messages[0]["content"]
    s.messages = []
    # Root session: the work before compaction.
    s.user("Amounts like 1.005 round down. Fix parse_amount, then we'll look at the budget report.")
    s.read(P, "Reading the parser.")
    s.pytest([TP], [(TP, "test_parse_amount[1.005-expected5]", "assert parse_amount(raw) == expected",
                     "AssertionError: assert Decimal('1.0') == Decimal('1.01')")], "Reproducing.")
    s.patch(P, "        value = round(float(text), 2)\n", "        value = Decimal(text).quantize(CENT, rounding=ROUND_HALF_UP)\n",
            "float + round() can't represent 1.005; quantizing the Decimal instead.")
    s.pytest([TP], [])
    s.say("parse_amount now rounds half-up from the exact Decimal; parser tests pass.")
    s.user("Next: refunds are counted as income too; fix the budget report.")
    s.read(B, "Reading build_reports.")
    s.read(TB, "And the failing test.")
    s.pytest([TB], [(TB, "test_refund_counted_once", "assert march.income == Decimal('0')",
                     "AssertionError: assert Decimal('50.00') == Decimal('0')")])
    root_messages = _with_tool_names(s.messages)
    root_messages[5]["_reasoning"] = "The test passes now; summarise briefly."
    # Child session: starts with the compressed list (head, summary, tail, todo), then continues.
    head = root_messages[:3]
    tail = root_messages[-6:]
    summary = {"role": "user", "content": f"{SUMMARY_PREFIX_V0151}\n{HERMES_SUMMARY_BODY}\n\n{END_MARKER}"}
    s.messages = []
    s.patch(B, "            if amount >= 0:\n", "            elif amount >= 0:\n", "Making the refund branch exclusive.")
    s.pytest([TB], [])
    s.say("Refunds are no longer counted as income; the budget tests pass.")
    child_messages = head + [summary] + tail + [{"role": "user", "content": TODO_NOTE}] + _with_tool_names(s.messages)
    # A gateway session from a chat platform: session_meta first, structured content, string tool calls with call_id.
    gateway_messages = [
        {"role": "session_meta", "content": None},
        {"role": "user", "content": [{"type": "text", "text": "what's my spending on groceries in march?"},
                                     {"type": "text", "text": "[screenshot]"}], "_platform_id": "tg-88412"},
        {"role": "assistant", "content": "", "tool_calls": [{
            "id": "call_Gk2", "call_id": "call_Gk2", "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": "ledgerline report ~/bank/march.csv --rules ~/bank/rules.toml"})}}]},
        {"role": "tool", "tool_call_id": "call_Gk2", "_tool_name": "terminal", "content": project.terminal_result(
            "month        income   spending   refunds        net\n2026-03     2500.00    1432.18     19.99    1087.81\n"
            "  groceries   412.77\n  transport   96.40\n  eating out  181.25", 0)},
        {"role": "assistant", "content": "You spent 412.77 EUR on groceries in March 2026.", "_platform_id": "tg-88413"},
    ]
    base = {"user_id": None, "model_config": json.dumps({"temperature": 0.2}), "billing_provider": "openrouter",
            "billing_base_url": "https://openrouter.ai/api/v1", "billing_mode": "api", "actual_cost_usd": None,
            "cost_status": "estimated", "cost_source": "pricing_table", "pricing_version": "2026-03-01",
            "handoff_state": None, "handoff_platform": None, "handoff_error": None, "reasoning_tokens": 0}
    sessions = [
        {"row": {**base, "id": GATEWAY_ID, "source": "telegram", "model": "openai/gpt-4.1-mini", "system_prompt": system_prompt,
                 "parent_session_id": None, "started_at": 1773477011.0, "ended_at": 1773477102.5, "end_reason": "idle",
                 "message_count": 4, "tool_call_count": 1, "input_tokens": 6100, "output_tokens": 140, "cache_read_tokens": 0,
                 "cache_write_tokens": 0, "estimated_cost_usd": 0.0031, "title": "Groceries in March", "api_call_count": 2},
         "messages": gateway_messages, "start": 1773477011.2},
        {"row": {**base, "id": ROOT_ID, "source": "cli", "model": "anthropic/claude-sonnet-4.6", "system_prompt": system_prompt,
                 "parent_session_id": None, "started_at": 1773569702.0, "ended_at": 1773574953.1, "end_reason": "compression",
                 "message_count": len(root_messages), "tool_call_count": 7, "input_tokens": 182400, "output_tokens": 5210,
                 "cache_read_tokens": 150200, "cache_write_tokens": 22100, "estimated_cost_usd": 0.4127,
                 "title": "Fix rounding and refunds", "api_call_count": 9},
         "messages": root_messages, "start": 1773569702.4},
        {"row": {**base, "id": CHILD_ID, "source": "cli", "model": "anthropic/claude-sonnet-4.6", "system_prompt": system_prompt,
                 "parent_session_id": ROOT_ID, "started_at": 1773574953.2, "ended_at": None, "end_reason": None,
                 "message_count": len(child_messages), "tool_call_count": 2, "input_tokens": 21800, "output_tokens": 610,
                 "cache_read_tokens": 17400, "cache_write_tokens": 3900, "estimated_cost_usd": 0.0611,
                 "title": "Fix rounding and refunds #2", "api_call_count": 3},
         "messages": child_messages, "start": 1773574953.3},
    ]
    next_id = 1
    for session in sessions:
        db_rows = _hermes_rows(session["messages"], session["start"], random.Random(session["row"]["id"]), for_db=True)
        export_rows = _hermes_rows(session["messages"], session["start"], random.Random(session["row"]["id"]), for_db=False)
        for db_row, export_row in zip(db_rows, export_rows, strict=True):
            db_row["id"] = export_row["id"] = next_id
            next_id += 1
        session["db_messages"] = db_rows
        session["export_messages"] = export_rows
    return sessions


def hermes_export_record(session: dict[str, Any]) -> dict[str, Any]:
    """One `hermes sessions export` line: the session row plus its decoded messages."""
    row = dict(session["row"])
    messages = []
    for message in session["export_messages"]:
        exported = {"id": message["id"], "session_id": row["id"], **{k: v for k, v in message.items() if k != "id"}}
        messages.append(exported)
    return {**row, "messages": messages}
