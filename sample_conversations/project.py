# Over 600 lines: the samples' project: its files and outputs, written out as text.
"""The small Python project the sample agents work on ("ledgerline", a bank-statement budget tool),
plus helpers that render realistic tool outputs (file reads, pytest runs, searches, patches).

Everything is deterministic: randomness comes from ``random.Random`` objects seeded by the caller.
"""

from __future__ import annotations

import difflib
import json
import random
import struct
import zlib

PARSER_PY = '''"""Parse bank statement exports (CSV) into Transaction records."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Iterable, Iterator

DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y", "%d/%m/%Y")
AMOUNT_COLUMNS = ("amount", "betrag", "montant", "value")


class StatementError(ValueError):
    """Raised when a statement row cannot be understood."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass(frozen=True)
class Transaction:
    booked: date
    amount: Decimal
    currency: str
    merchant: str
    memo: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def is_refund(self) -> bool:
        return self.amount > 0 and "refund" in self.memo.lower()


def parse_amount(raw: str) -> Decimal:
    """Turn '1.234,56', '-12.50' or '(3.10)' into a Decimal with two places."""
    text = raw.strip().replace("\\u00a0", "").replace(" ", "")
    negative = text.startswith("(") and text.endswith(")")
    text = text.strip("()")
    if "," in text and "." in text:
        if text.rfind(",") > text.rfind("."):
            text = text.replace(".", "").replace(",", ".")
        else:
            text = text.replace(",", "")
    elif "," in text:
        text = text.replace(",", ".")
    try:
        value = round(float(text), 2)
    except ValueError as exc:
        raise StatementError(f"not an amount: {raw!r}") from exc
    amount = Decimal(str(value))
    return -amount if negative else amount


def parse_date(raw: str) -> date:
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(raw.strip(), fmt).date()
        except ValueError:
            continue
    raise StatementError(f"unknown date format: {raw!r}")


def sniff_dialect(sample: str) -> type[csv.Dialect]:
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\\t")
    except csv.Error:
        return csv.excel


def _amount_column(header: list[str]) -> str:
    lowered = {name.lower().strip(): name for name in header}
    for candidate in AMOUNT_COLUMNS:
        if candidate in lowered:
            return lowered[candidate]
    raise StatementError(f"no amount column in header {header!r}", line=1)


def iter_rows(text: str) -> Iterator[tuple[int, dict[str, str]]]:
    dialect = sniff_dialect(text[:4096])
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    for index, row in enumerate(reader, start=2):
        yield index, row


def parse_statement(text: str, currency: str = "EUR") -> list[Transaction]:
    rows = list(iter_rows(text))
    if not rows:
        return []
    amount_key = _amount_column(list(rows[0][1].keys()))
    result = []
    for line, row in rows:
        try:
            result.append(
                Transaction(
                    booked=parse_date(row.get("date") or row.get("Datum") or ""),
                    amount=parse_amount(row[amount_key]),
                    currency=(row.get("currency") or currency).upper(),
                    merchant=(row.get("merchant") or row.get("payee") or "").strip(),
                    memo=(row.get("memo") or "").strip(),
                )
            )
        except (StatementError, InvalidOperation) as exc:
            raise StatementError(str(exc), line=line) from exc
    return result


def load_statement(path: Path, currency: str = "EUR") -> list[Transaction]:
    return parse_statement(path.read_text(encoding="utf-8-sig"), currency)


def merge_statements(statements: Iterable[list[Transaction]]) -> list[Transaction]:
    seen = set()
    merged = []
    for statement in statements:
        for tx in statement:
            key = (tx.booked, tx.amount, tx.merchant)
            if key in seen:
                continue
            seen.add(key)
            merged.append(tx)
    return sorted(merged, key=lambda tx: (tx.booked, tx.merchant))
'''

BUDGET_PY = '''"""Monthly budget reports built from parsed transactions."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import Iterable

from ledgerline.categorize import Categorizer
from ledgerline.currency import RateTable, convert
from ledgerline.parser import Transaction


@dataclass
class MonthReport:
    month: str
    income: Decimal
    spending: Decimal
    refunds: Decimal
    by_category: dict[str, Decimal]

    @property
    def net(self) -> Decimal:
        return self.income - self.spending + self.refunds


def month_key(tx: Transaction) -> str:
    return f"{tx.booked.year:04d}-{tx.booked.month:02d}"


def build_reports(
    transactions: Iterable[Transaction],
    categorizer: Categorizer,
    rates: RateTable,
    currency: str = "EUR",
) -> list[MonthReport]:
    buckets: dict[str, list[Transaction]] = defaultdict(list)
    for tx in transactions:
        buckets[month_key(tx)].append(tx)
    reports = []
    for month in sorted(buckets):
        income = spending = refunds = Decimal("0")
        by_category: dict[str, Decimal] = defaultdict(Decimal)
        for tx in buckets[month]:
            amount = convert(tx.amount, tx.currency, currency, rates, on=tx.booked)
            if tx.is_refund:
                refunds += amount
            if amount >= 0:
                income += amount
            else:
                spending += -amount
                by_category[categorizer.category_for(tx)] += -amount
        reports.append(MonthReport(month, income, spending, refunds, dict(by_category)))
    return reports


def render_table(reports: list[MonthReport]) -> str:
    lines = [f"{'month':<8} {'income':>10} {'spending':>10} {'refunds':>9} {'net':>10}"]
    for report in reports:
        lines.append(
            f"{report.month:<8} {report.income:>10.2f} {report.spending:>10.2f} "
            f"{report.refunds:>9.2f} {report.net:>10.2f}"
        )
    return "\\n".join(lines)
'''

CURRENCY_PY = '''"""Currency conversion with daily reference rates."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

CENT = Decimal("0.01")


class MissingRate(LookupError):
    pass


@dataclass
class RateTable:
    base: str = "EUR"
    rates: dict[tuple[str, date], Decimal] = field(default_factory=dict)

    def rate(self, currency: str, on: date) -> Decimal:
        if currency == self.base:
            return Decimal("1")
        candidates = [d for (cur, d) in self.rates if cur == currency and d <= on]
        if not candidates:
            raise MissingRate(f"no {currency} rate on or before {on.isoformat()}")
        return self.rates[(currency, max(candidates))]

    @classmethod
    def from_json(cls, path: Path) -> "RateTable":
        data = json.loads(path.read_text())
        table = cls(base=data.get("base", "EUR"))
        for day, values in data["rates"].items():
            for currency, value in values.items():
                table.rates[(currency, date.fromisoformat(day))] = Decimal(str(value))
        return table


def convert(amount: Decimal, source: str, target: str, rates: RateTable, on: date) -> Decimal:
    if source == target:
        return amount
    in_base = amount / rates.rate(source, on)
    result = in_base * rates.rate(target, on)
    return result.quantize(CENT, rounding=ROUND_HALF_EVEN)
'''

CATEGORIZE_PY = '''"""Map merchants to budget categories with ordered regex rules."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ledgerline.parser import Transaction

DEFAULT_RULES = {
    "groceries": [r"rewe", r"edeka", r"lidl", r"aldi", r"whole ?foods"],
    "transport": [r"\\bdb\\b", r"uber", r"bvg", r"shell", r"aral"],
    "eating out": [r"restaurant", r"cafe", r"pizza", r"deliveroo", r"lieferando"],
    "subscriptions": [r"spotify", r"netflix", r"github", r"icloud"],
    "rent": [r"miete", r"rent"],
}


@dataclass
class Rule:
    category: str
    pattern: re.Pattern[str]


class Categorizer:
    def __init__(self, rules: dict[str, list[str]] | None = None, default: str = "other") -> None:
        self.default = default
        self.rules = [
            Rule(category, re.compile(pattern, re.IGNORECASE))
            for category, patterns in (rules or DEFAULT_RULES).items()
            for pattern in patterns
        ]

    def category_for(self, tx: Transaction) -> str:
        haystack = f"{tx.merchant} {tx.memo}"
        for rule in self.rules:
            if rule.pattern.search(haystack):
                return rule.category
        return self.default

    @classmethod
    def from_toml(cls, path: Path) -> "Categorizer":
        data = tomllib.loads(path.read_text())
        return cls(rules=data.get("rules"), default=data.get("default", "other"))
'''

CLI_PY = '''"""Command line: ledgerline report statement.csv [more.csv ...]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ledgerline.budget import build_reports, render_table
from ledgerline.categorize import Categorizer
from ledgerline.currency import RateTable
from ledgerline.parser import StatementError, load_statement, merge_statements


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ledgerline")
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser("report", help="monthly income/spending table")
    report.add_argument("statements", nargs="+", type=Path)
    report.add_argument("--currency", default="EUR")
    report.add_argument("--rates", type=Path, default=Path("rates.json"))
    report.add_argument("--rules", type=Path)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        statements = [load_statement(path, args.currency) for path in args.statements]
    except StatementError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    categorizer = Categorizer.from_toml(args.rules) if args.rules else Categorizer()
    rates = RateTable.from_json(args.rates) if args.rates.exists() else RateTable(base=args.currency)
    reports = build_reports(merge_statements(statements), categorizer, rates, args.currency)
    print(render_table(reports))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
'''

TEST_PARSER_PY = '''from datetime import date
from decimal import Decimal

import pytest

from ledgerline.parser import StatementError, Transaction, merge_statements, parse_amount, parse_date, parse_statement

GERMAN_EXPORT = """Datum;Betrag;merchant;memo
01.03.2026;-12,50;REWE Markt;Einkauf
02.03.2026;1.234,56;ACME GmbH;Gehalt
05.03.2026;19,99;Zalando;Refund order 5521
"""


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("12.50", Decimal("12.50")),
        ("-3.10", Decimal("-3.10")),
        ("(3.10)", Decimal("-3.10")),
        ("1.234,56", Decimal("1234.56")),
        ("1,234.56", Decimal("1234.56")),
        ("1.005", Decimal("1.01")),
        ("2.675", Decimal("2.68")),
    ],
)
def test_parse_amount(raw, expected):
    assert parse_amount(raw) == expected


def test_parse_amount_rejects_garbage():
    with pytest.raises(StatementError, match="not an amount"):
        parse_amount("twelve")


@pytest.mark.parametrize("raw", ["2026-03-01", "01.03.2026", "03/01/2026"])
def test_parse_date_formats(raw):
    assert parse_date(raw) == date(2026, 3, 1)


def test_parse_german_export():
    rows = parse_statement(GERMAN_EXPORT)
    assert [tx.amount for tx in rows] == [Decimal("-12.50"), Decimal("1234.56"), Decimal("19.99")]
    assert rows[2].is_refund


def test_error_names_line():
    with pytest.raises(StatementError, match="line 3"):
        parse_statement("date,amount,merchant\\n2026-03-01,1.00,A\\nnot-a-date,2.00,B\\n")


def test_merge_drops_duplicates():
    tx = Transaction(date(2026, 3, 1), Decimal("-1.00"), "EUR", "A")
    assert merge_statements([[tx], [tx]]) == [tx]
'''

TEST_BUDGET_PY = '''from datetime import date
from decimal import Decimal

from ledgerline.budget import build_reports, render_table
from ledgerline.categorize import Categorizer
from ledgerline.currency import RateTable
from ledgerline.parser import Transaction


def tx(day, amount, merchant, memo=""):
    return Transaction(date(2026, 3, day), Decimal(amount), "EUR", merchant, memo)


def test_refund_counted_once():
    reports = build_reports(
        [tx(1, "-50.00", "Zalando"), tx(9, "50.00", "Zalando", "Refund order 5521")],
        Categorizer(),
        RateTable(),
    )
    (march,) = reports
    assert march.spending == Decimal("50.00")
    assert march.refunds == Decimal("50.00")
    assert march.income == Decimal("0")
    assert march.net == Decimal("0")


def test_categories():
    reports = build_reports([tx(2, "-20.00", "REWE Markt"), tx(3, "-9.99", "Spotify")], Categorizer(), RateTable())
    assert reports[0].by_category == {"groceries": Decimal("20.00"), "subscriptions": Decimal("9.99")}


def test_render_table_has_header_and_rows():
    table = render_table(build_reports([tx(2, "-20.00", "REWE")], Categorizer(), RateTable()))
    assert table.splitlines()[0].split() == ["month", "income", "spending", "refunds", "net"]
    assert "2026-03" in table
'''

CONFTEST_PY = '''import json
from pathlib import Path

import pytest


@pytest.fixture
def rates_file(tmp_path: Path) -> Path:
    path = tmp_path / "rates.json"
    path.write_text(json.dumps({"base": "EUR", "rates": {"2026-03-01": {"USD": "1.0832", "GBP": "0.8571"}}}))
    return path


@pytest.fixture
def statement_file(tmp_path: Path) -> Path:
    path = tmp_path / "march.csv"
    path.write_text("date,amount,merchant,memo\\n2026-03-01,-12.50,REWE,\\n2026-03-02,2500.00,ACME,salary\\n")
    return path
'''

PYPROJECT_TOML = '''[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "ledgerline"
version = "0.7.2"
description = "Turn bank statement exports into monthly budget reports."
readme = "README.md"
requires-python = ">=3.11"
license = "MIT"
dependencies = []

[project.optional-dependencies]
dev = ["pytest>=8.2", "pytest-cov>=5.0", "ruff>=0.5", "mypy>=1.10", "hypothesis>=6.100"]

[project.scripts]
ledgerline = "ledgerline.cli:main"

[tool.pytest.ini_options]
addopts = "-q --strict-markers"
testpaths = ["tests"]

[tool.ruff]
line-length = 100
target-version = "py311"

[tool.mypy]
strict = true
packages = ["ledgerline"]
'''

README_MD = '''# ledgerline

Turn CSV exports from your bank into a monthly budget table.

```
$ ledgerline report march.csv april.csv --currency EUR --rules rules.toml
month        income   spending   refunds        net
2026-03     2500.00    1432.18     19.99    1087.81
2026-04     2500.00    1611.40      0.00     888.60
```

## Supported exports

| bank | delimiter | amount format | notes |
|---|---|---|---|
| N26 | `,` | `-12.50` | UTF-8 with BOM |
| DKB | `;` | `-12,50` | German headers (`Datum`, `Betrag`) |
| Revolut | `,` | `-12.50` | one currency column per row |
| Wise | `,` | `(12.50)` | parentheses for debits |

## Categories

Rules are regular expressions matched against the merchant and memo, first match wins.
Put your own in `rules.toml`:

```toml
default = "other"

[rules]
groceries = ["rewe", "edeka"]
pets = ["fressnapf", "zooplus"]
```

## Currency conversion

Amounts in other currencies are converted with the reference rate of the booking day (or the
closest earlier day) from `rates.json`. Results are rounded to cents with banker's rounding.

## Development

```
python -m venv .venv && . .venv/bin/activate
pip install -e '.[dev]'
pytest
ruff check src tests
mypy
```
'''

BASE_FILES: dict[str, str] = {
    "src/ledgerline/parser.py": PARSER_PY,
    "src/ledgerline/budget.py": BUDGET_PY,
    "src/ledgerline/currency.py": CURRENCY_PY,
    "src/ledgerline/categorize.py": CATEGORIZE_PY,
    "src/ledgerline/cli.py": CLI_PY,
    "tests/test_parser.py": TEST_PARSER_PY,
    "tests/test_budget.py": TEST_BUDGET_PY,
    "tests/conftest.py": CONFTEST_PY,
    "pyproject.toml": PYPROJECT_TOML,
    "README.md": README_MD,
}

TEST_FILES = ("tests/test_parser.py", "tests/test_budget.py", "tests/test_currency.py", "tests/test_cli.py",
              "tests/test_categorize.py")

# ---------------------------------------------------------------------------------------------
# Tool output renderers


def numbered(text: str, offset: int = 1, limit: int | None = None) -> str:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines = lines[:-1]
    chosen = lines[offset - 1 : (offset - 1 + limit) if limit else None]
    return "\n".join(f"{offset + i:6d}|{line}" for i, line in enumerate(chosen))


def read_file_result(path: str, text: str, offset: int = 1, limit: int | None = None) -> str:
    total = text.count("\n") + (0 if text.endswith("\n") else 1)
    return json.dumps(
        {"path": path, "content": numbered(text, offset, limit), "total_lines": total, "offset": offset},
        ensure_ascii=False,
    )


def terminal_result(output: str, exit_code: int) -> str:
    return json.dumps({"output": output, "exit_code": exit_code, "error": None}, ensure_ascii=False)


def search_result(matches: list[tuple[str, int, str, str, str]]) -> str:
    return json.dumps(
        {
            "total_count": len(matches),
            "matches": [
                {"path": p, "line": n, "content": c, "context_before": b, "context_after": a} for p, n, c, b, a in matches
            ],
            "truncated": False,
        },
        ensure_ascii=False,
    )


def grep(files: dict[str, str], needle: str, under: str = "") -> list[tuple[str, int, str, str, str]]:
    """Case-insensitive substring search with one line of context on each side."""
    found = []
    for path in sorted(files):
        if not path.startswith(under):
            continue
        lines = files[path].split("\n")
        for number, line in enumerate(lines, start=1):
            if needle.lower() in line.lower():
                before = lines[number - 2].strip() if number > 1 else ""
                after = lines[number].strip() if number < len(lines) else ""
                found.append((path, number, line.strip(), before, after))
    return found


def patch_result(path: str, old: str, new: str, start_line: int, before: str = "", after: str = "") -> str:
    """A unified diff like the patch tool returns, with up to seven lines of context on each side."""
    context_before = before.split("\n")[-8:-1] if before else []
    context_after = after.split("\n")[1:8] if after else []
    removed = [f"-{line}" for line in old.rstrip("\n").split("\n")]
    added = [f"+{line}" for line in new.rstrip("\n").split("\n")] if new.strip() else []
    first = max(1, start_line - len(context_before))
    header = (f"--- a/{path}\n+++ b/{path}\n@@ -{first},{len(removed) + len(context_before) + len(context_after)} "
              f"+{first},{len(added) + len(context_before) + len(context_after)} @@")
    body = [f" {line}" for line in context_before] + removed + added + [f" {line}" for line in context_after]
    total_lines = (before + new + after).count("\n") + 1
    message = (f"Applied 1 replacement in {path} at line {start_line}: removed {len(removed)} line(s), added "
               f"{len(added)} line(s); the file now has {total_lines} lines.")
    return json.dumps(
        {"success": True, "message": message, "diff": "\n".join([header, *body]), "files_modified": [path],
         "lint": {"checked": path.endswith(".py"), "errors": []}},
        ensure_ascii=False,
    )


def write_file_result(path: str, content: str, existed: bool = False) -> str:
    lines = content.rstrip("\n").split("\n")
    diff = [f"--- {'a/' + path if existed else '/dev/null'}", f"+++ b/{path}", f"@@ -0,0 +1,{len(lines)} @@"]
    diff += [f"+{line}" for line in lines[:60]]
    if len(lines) > 60:
        diff.append(f"... ({len(lines) - 60} more lines)")
    return json.dumps(
        {"success": True, "path": path, "bytes_written": len(content.encode("utf-8")), "created": not existed,
         "diff": "\n".join(diff)},
        ensure_ascii=False,
    )


def web_search_result(query: str, results: list[tuple[str, str, str]]) -> str:
    return json.dumps(
        {"success": True, "query": query,
         "data": {"web": [{"position": i + 1, "title": t, "url": u, "description": d} for i, (t, u, d) in enumerate(results)]}},
        ensure_ascii=False,
    )


def test_ids(files: dict[str, str], path: str) -> list[str]:
    """Test ids as pytest -v prints them, read from the test module's source (parametrized cases expanded)."""
    text = files.get(path)
    if text is None:
        return [f"test_{name}" for name in ("roundtrip", "empty_input", "unicode_merchant", "large_amounts", "ordering")]
    ids: list[str] = []
    cases = 0
    lines = text.split("\n")
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("@pytest.mark.parametrize"):
            cases = 0
            for follow in lines[index + 1 : index + 30]:
                if follow.strip().startswith("def test_"):
                    break
                if follow.strip().startswith(("(\"", "(\'", "\"", "\'")) and follow.strip().endswith(","):
                    cases += 1
            cases = cases or 2
        elif stripped.startswith("def test_"):
            name = stripped[4 : stripped.index("(")]
            if cases:
                ids += [f"{name}[case{k}]" for k in range(cases)]
                cases = 0
            else:
                ids.append(name)
    return ids


def pytest_run(
    rng: random.Random,
    test_files: list[str],
    failures: list[tuple[str, str, str, str]],
    extra_passed: int = 0,
    files: dict[str, str] | None = None,
) -> tuple[str, int]:
    """A realistic ``pytest -v`` transcript: one line per test, then the failure sections.

    ``failures`` holds ``(test_file, test_name, source_line, error_line)``; failing names replace
    the first ids of their file.
    """
    files = files or BASE_FILES
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0 -- /home/dev/ledgerline/.venv/bin/python",
        "cachedir: .pytest_cache",
        "hypothesis profile 'default' -> database=DirectoryBasedExampleDatabase(PosixPath('/home/dev/ledgerline/.hypothesis/examples'))",
        "rootdir: /home/dev/ledgerline",
        "configfile: pyproject.toml",
        "plugins: cov-5.0.0, hypothesis-6.108.5",
    ]
    planned: list[tuple[str, str]] = []
    for path in test_files:
        names = test_ids(files, path)
        failing = [name for fpath, name, _s, _e in failures if fpath == path]
        names = failing + [name for name in names if name not in failing]
        planned += [(path, name) for name in names]
    planned += [("tests/test_properties.py", f"test_amount_roundtrip[example{k}]") for k in range(extra_passed)]
    failing_set = {(fpath, name) for fpath, name, _s, _e in failures}
    lines.append(f"collecting ... collected {len(planned)} items")
    lines.append("")
    for done, (path, name) in enumerate(planned, start=1):
        status = "FAILED" if (path, name) in failing_set else "PASSED"
        lines.append(f"{path}::{name} {status:<6} [{int(100 * done / max(len(planned), 1)):3d}%]")
    if failures:
        lines += ["", "=================================== FAILURES ==================================="]
        for path, name, source_line, error in failures:
            function = name.split("[")[0]
            amount_case = name.startswith("test_parse_amount[")
            raw_value = name.split("[", 1)[1].split("-")[0] if amount_case else ""
            lines += [f"_{'_' * 20} {name} {'_' * 20}", ""]
            if amount_case:
                lines += [f"raw = '{raw_value}', expected = Decimal('{error.split(chr(39))[-2]}')", ""]
            lines += [
                f"    def {function}({'raw, expected' if amount_case else ''}):",
                f">       {source_line}",
                f"E       {error}",
            ]
            if amount_case:
                lines.append(f"E        +  where {error.split('assert ')[-1].split(' == ')[0]} = parse_amount('{raw_value}')")
            lines += [
                "",
                f"{path}:{rng.randint(14, 80)}: AssertionError",
                "------------------------------ Captured log call -------------------------------",
                f"DEBUG    ledgerline.parser:parser.py:{rng.randint(40, 90)} parsing row {rng.randint(2, 30)} with dialect excel",
                f"DEBUG    ledgerline.currency:currency.py:{rng.randint(20, 45)} rate lookup USD on 2026-03-0{rng.randint(1, 9)}",
            ]
    lines += [
        "",
        "=============================== warnings summary ===============================",
        ".venv/lib/python3.12/site-packages/hypothesis/entry_points.py:21",
        "  /home/dev/ledgerline/.venv/lib/python3.12/site-packages/hypothesis/entry_points.py:21: DeprecationWarning: "
        "SelectableGroups dict interface is deprecated. Use select.",
        "",
        "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html",
    ]
    if failures:
        lines += ["=========================== short test summary info ============================"]
        lines += [f"FAILED {path}::{name} - {error.split(':')[0]}" for path, name, _s, error in failures]
    passed = len(planned) - len(failures)
    seconds = rng.uniform(0.4, 3.9)
    summary = f"{len(failures)} failed, {passed} passed, 1 warning" if failures else f"{passed} passed, 1 warning"
    lines.append(f"{'=' * 22} {summary} in {seconds:.2f}s {'=' * 22}")
    return "\n".join(lines), (1 if failures else 0)


def git_log(rng: random.Random, count: int) -> str:
    subjects = [
        "parser: accept parentheses for negative amounts",
        "budget: render net column",
        "cli: add --rules option",
        "currency: use banker's rounding",
        "tests: cover German exports",
        "ci: run mypy in strict mode",
        "categorize: load rules from TOML",
        "parser: sniff semicolon dialect",
        "docs: supported exports table",
        "budget: group by booking month",
        "build: switch to hatchling",
        "parser: strip non-breaking spaces in amounts",
    ]
    authors = ["Mara Lindqvist <mara@ledgerline.dev>", "Tobias Kern <tobi@ledgerline.dev>", "dependabot[bot] <bot@github>"]
    out = []
    for i in range(count):
        sha = "".join(rng.choice("0123456789abcdef") for _ in range(40))
        out += [
            f"commit {sha}",
            f"Author: {rng.choice(authors)}",
            f"Date:   Mon Mar {30 - i % 28:02d} {rng.randint(8, 19):02d}:{rng.randint(0, 59):02d}:11 2026 +0100",
            "",
            f"    {subjects[(i * 7) % len(subjects)]}",
            "",
        ]
    return "\n".join(out)


def pip_install_log(rng: random.Random) -> str:
    packages = [
        ("pytest", "8.3.2"), ("pluggy", "1.5.0"), ("iniconfig", "2.0.0"), ("packaging", "24.1"),
        ("pytest-cov", "5.0.0"), ("coverage", "7.6.0"), ("ruff", "0.5.5"), ("mypy", "1.11.1"),
        ("mypy-extensions", "1.0.0"), ("typing-extensions", "4.12.2"), ("hypothesis", "6.108.5"),
        ("attrs", "23.2.0"), ("sortedcontainers", "2.4.0"),
    ]
    lines = ["Obtaining file:///home/dev/ledgerline", "  Installing build dependencies ... done",
             "  Checking if build backend supports build_editable ... done", "  Getting requirements to build editable ... done",
             "  Preparing editable metadata (pyproject.toml) ... done"]
    for name, version in packages:
        lines.append(f"Collecting {name}>={version.rsplit('.', 1)[0]} (from ledgerline==0.7.2)")
        lines.append(f"  Using cached {name.replace('-', '_')}-{version}-py3-none-any.whl.metadata ({rng.randint(2, 9)}.{rng.randint(0, 9)} kB)")
    lines.append("Building wheels for collected packages: ledgerline")
    lines.append("  Building editable for ledgerline (pyproject.toml) ... done")
    lines.append("Successfully installed " + " ".join(f"{n}-{v}" for n, v in packages) + " ledgerline-0.7.2")
    return "\n".join(lines)


def tree_listing(files: dict[str, str]) -> str:
    lines = ["."]
    for path in sorted(files):
        depth = path.count("/")
        lines.append(f"{'│   ' * depth}├── {path.rsplit('/', 1)[-1]}  ({len(files[path].encode())} bytes)")
    lines.append(f"\n{len({p.rsplit('/', 1)[0] for p in files if '/' in p})} directories, {len(files)} files")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Images


def png_bytes(width: int, height: int, seed: int, accent: tuple[int, int, int] = (40, 90, 200)) -> bytes:
    """A small valid PNG that looks like a dashboard screenshot: a header bar and table rows with 'text'."""
    rng = random.Random(seed)
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter type 0 for every scanline
        for x in range(width):
            if y < height // 8:
                pixel = accent
            elif (y // 6) % 2 == 0:
                pixel = (246, 247, 249)
            else:
                pixel = (234, 237, 241)
            if y >= height // 8 and 4 < x < width - 4 and (y % 6) in (2, 3) and rng.random() < 0.35:
                shade = rng.randint(30, 90)
                pixel = (shade, shade, shade + 10)
            row += bytes(pixel)
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


# ---------------------------------------------------------------------------------------------
# Bank-specific importers (one module per bank, same shape, different column maps)

BANKS = {
    "n26": {"title": "N26", "delimiter": ",", "encoding": "utf-8-sig", "date": ("Date", "%Y-%m-%d"),
            "amount": "Amount (EUR)", "payee": "Payee", "memo": "Payment reference", "currency": None,
            "skip": 0, "note": "N26 writes a BOM and always books in EUR; foreign amounts are in 'Amount (Foreign Currency)'."},
    "dkb": {"title": "DKB", "delimiter": ";", "encoding": "cp1252", "date": ("Buchungstag", "%d.%m.%Y"),
            "amount": "Betrag (EUR)", "payee": "Empfänger", "memo": "Verwendungszweck", "currency": None,
            "skip": 4, "note": "DKB prefixes the CSV with four lines of account metadata and uses decimal commas."},
    "revolut": {"title": "Revolut", "delimiter": ",", "encoding": "utf-8", "date": ("Completed Date", "%Y-%m-%d %H:%M:%S"),
                "amount": "Amount", "payee": "Description", "memo": "Type", "currency": "Currency",
                "skip": 0, "note": "Revolut has one currency column per row and a separate Fee column that is booked on top."},
    "wise": {"title": "Wise", "delimiter": ",", "encoding": "utf-8", "date": ("Date", "%d-%m-%Y"),
             "amount": "Amount", "payee": "Payee Name", "memo": "Description", "currency": "Currency",
             "skip": 0, "note": "Wise writes debits in parentheses and pads them with spaces: '( 7.90 )'."},
}


def importer_module(bank: str) -> str:
    spec = BANKS[bank]
    date_col, date_fmt = spec["date"]
    currency_expr = f'(row.get("{spec["currency"]}") or default_currency).upper()' if spec["currency"] else "default_currency"
    return f'''"""Importer for {spec["title"]} CSV exports.

{spec["note"]}
"""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from ledgerline.parser import StatementError, Transaction, parse_amount

log = logging.getLogger(__name__)

BANK = "{bank}"
DELIMITER = "{spec["delimiter"]}"
ENCODING = "{spec["encoding"]}"
DATE_COLUMN = "{date_col}"
DATE_FORMAT = "{date_fmt}"
AMOUNT_COLUMN = "{spec["amount"]}"
PAYEE_COLUMN = "{spec["payee"]}"
MEMO_COLUMN = "{spec["memo"]}"
METADATA_LINES = {spec["skip"]}
REQUIRED_COLUMNS = (DATE_COLUMN, AMOUNT_COLUMN, PAYEE_COLUMN)


@dataclass(frozen=True)
class ImportReport:
    """What happened while importing one file."""

    path: Path
    rows: int
    skipped: int
    first_day: str | None
    last_day: str | None

    def describe(self) -> str:
        span = f"{{self.first_day}} .. {{self.last_day}}" if self.first_day else "no rows"
        return f"{{self.path.name}}: {{self.rows}} rows ({{self.skipped}} skipped), {{span}}"


def sniff(header_line: str) -> bool:
    """True when the header line looks like a {spec["title"]} export."""
    columns = [c.strip().strip('"') for c in header_line.split(DELIMITER)]
    return all(required in columns for required in REQUIRED_COLUMNS)


def _strip_metadata(text: str) -> str:
    if not METADATA_LINES:
        return text
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines[: METADATA_LINES + 3]):
        if sniff(line):
            return "".join(lines[index:])
    raise StatementError(f"no {spec["title"]} header found in the first {{METADATA_LINES + 3}} lines")


def _booked(raw: str, line: int):
    try:
        return datetime.strptime(raw.strip(), DATE_FORMAT).date()
    except ValueError:
        raise StatementError(f"expected a date like {{DATE_FORMAT!r}} in {{DATE_COLUMN!r}}, got {{raw!r}}", line=line) from None


def read_rows(text: str) -> list[tuple[int, dict[str, str]]]:
    body = _strip_metadata(text)
    reader = csv.DictReader(io.StringIO(body), delimiter=DELIMITER)
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise StatementError(f"{spec["title"]} export without columns {{missing}}", line=1)
    return [(index, row) for index, row in enumerate(reader, start=2 + METADATA_LINES)]


def to_transactions(rows: list[tuple[int, dict[str, str]]], default_currency: str = "EUR") -> tuple[list[Transaction], int]:
    result: list[Transaction] = []
    skipped = 0
    for line, row in rows:
        raw_amount = (row.get(AMOUNT_COLUMN) or "").strip()
        if not raw_amount:
            log.debug("line %d: empty amount, skipped", line)
            skipped += 1
            continue
        amount = parse_amount(raw_amount)
        if amount == Decimal("0"):
            skipped += 1
            continue
        result.append(
            Transaction(
                booked=_booked(row.get(DATE_COLUMN, ""), line),
                amount=amount,
                currency={currency_expr},
                merchant=(row.get(PAYEE_COLUMN) or "").strip(),
                memo=(row.get(MEMO_COLUMN) or "").strip(),
                tags=(BANK,),
            )
        )
    return result, skipped


def import_file(path: Path, default_currency: str = "EUR") -> tuple[list[Transaction], ImportReport]:
    text = path.read_text(encoding=ENCODING)
    rows = read_rows(text)
    transactions, skipped = to_transactions(rows, default_currency)
    days = sorted(tx.booked.isoformat() for tx in transactions)
    report = ImportReport(path, len(transactions), skipped, days[0] if days else None, days[-1] if days else None)
    log.info("%s", report.describe())
    return transactions, report
'''


STORAGE_PY = '''"""A small SQLite cache of imported transactions, so repeated reports skip re-parsing."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import date
from decimal import Decimal
from pathlib import Path

from ledgerline.parser import Transaction

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    digest TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    imported_at TEXT NOT NULL DEFAULT (datetime('now')),
    rows INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS transactions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest TEXT NOT NULL REFERENCES files(digest) ON DELETE CASCADE,
    booked TEXT NOT NULL,
    amount TEXT NOT NULL,
    currency TEXT NOT NULL,
    merchant TEXT NOT NULL,
    memo TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS idx_transactions_booked ON transactions(booked);
"""


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


class Cache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = sqlite3.connect(path)
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._conn.executescript(SCHEMA)

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            yield self._conn
            self._conn.commit()
        except Exception:
            self._conn.rollback()
            raise

    def has(self, digest: str) -> bool:
        row = self._conn.execute("SELECT 1 FROM files WHERE digest = ?", (digest,)).fetchone()
        return row is not None

    def store(self, digest: str, path: Path, transactions: Iterable[Transaction]) -> int:
        rows = [
            (digest, tx.booked.isoformat(), str(tx.amount), tx.currency, tx.merchant, tx.memo, ",".join(tx.tags))
            for tx in transactions
        ]
        with self.transaction() as conn:
            conn.execute("DELETE FROM files WHERE digest = ?", (digest,))
            conn.execute("INSERT INTO files (digest, path, rows) VALUES (?, ?, ?)", (digest, str(path), len(rows)))
            conn.executemany(
                "INSERT INTO transactions (digest, booked, amount, currency, merchant, memo, tags) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        return len(rows)

    def load(self, digest: str) -> list[Transaction]:
        cursor = self._conn.execute(
            "SELECT booked, amount, currency, merchant, memo, tags FROM transactions WHERE digest = ? ORDER BY id",
            (digest,),
        )
        return [
            Transaction(
                booked=date.fromisoformat(booked),
                amount=Decimal(amount),
                currency=currency,
                merchant=merchant,
                memo=memo,
                tags=tuple(t for t in tags.split(",") if t),
            )
            for booked, amount, currency, merchant, memo, tags in cursor
        ]

    def forget(self, older_than_days: int) -> int:
        with self.transaction() as conn:
            cursor = conn.execute(
                "DELETE FROM files WHERE imported_at < datetime('now', ?)", (f"-{older_than_days} days",)
            )
        return cursor.rowcount

    def stats(self) -> dict[str, int]:
        files = self._conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        rows = self._conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0]
        return {"files": files, "transactions": rows}
'''

TEST_IMPORTERS_PY = '''from datetime import date
from decimal import Decimal

import pytest

from ledgerline.importers import dkb, n26, revolut, wise
from ledgerline.parser import StatementError

N26_CSV = "\\ufeffDate,Payee,Account number,Transaction type,Payment reference,Amount (EUR)\\n2026-03-01,REWE,,MasterCard Payment,,-12.50\\n"
DKB_CSV = (
    "Kontonummer:;DE00 1203 0000 0000 0000 00;\\n\\nVon:;01.03.2026;\\nBis:;31.03.2026;\\n"
    "Buchungstag;Wertstellung;Buchungstext;Empfänger;Verwendungszweck;Betrag (EUR)\\n"
    "03.03.2026;03.03.2026;Lastschrift;EDEKA Center;Kartenzahlung;-42,10\\n"
)
REVOLUT_CSV = (
    "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance\\n"
    "CARD_PAYMENT,Current,2026-03-01 10:12:03,2026-03-02 08:00:11,Cafe Luna,-3.20,0.00,EUR,COMPLETED,412.18\\n"
)
WISE_CSV = "Date,Amount,Currency,Description,Payee Name\\n02-03-2026,( 7.90 ),EUR,Card payment,BVG\\n"


@pytest.mark.parametrize(
    ("module", "text", "expected"),
    [
        (n26, N26_CSV, (date(2026, 3, 1), Decimal("-12.50"), "REWE")),
        (dkb, DKB_CSV, (date(2026, 3, 3), Decimal("-42.10"), "EDEKA Center")),
        (revolut, REVOLUT_CSV, (date(2026, 3, 2), Decimal("-3.20"), "Cafe Luna")),
        (wise, WISE_CSV, (date(2026, 3, 2), Decimal("-7.90"), "BVG")),
    ],
)
def test_each_bank(module, text, expected, tmp_path):
    path = tmp_path / f"{module.BANK}.csv"
    path.write_text(text, encoding=module.ENCODING)
    (tx,), report = module.import_file(path)
    assert (tx.booked, tx.amount, tx.merchant) == expected
    assert report.rows == 1


def test_sniff_picks_the_right_bank():
    header = DKB_CSV.splitlines()[5]
    assert dkb.sniff(header)
    assert not n26.sniff(header)


def test_missing_columns_are_reported():
    with pytest.raises(StatementError, match="without columns"):
        wise.read_rows("Date,Amount\\n")
'''

BASE_FILES.update({f"src/ledgerline/importers/{bank}.py": importer_module(bank) for bank in BANKS})
BASE_FILES["src/ledgerline/importers/__init__.py"] = (
    '"""Bank-specific importers; ``detect`` picks one from the header line."""\n\n'
    "from ledgerline.importers import dkb, n26, revolut, wise\n\nIMPORTERS = (n26, dkb, revolut, wise)\n\n\n"
    "def detect(header_line: str):\n    for module in IMPORTERS:\n        if module.sniff(header_line):\n"
    "            return module\n    return None\n"
)
BASE_FILES["src/ledgerline/storage.py"] = STORAGE_PY
BASE_FILES["tests/test_importers.py"] = TEST_IMPORTERS_PY


def git_diff(original: dict[str, str], current: dict[str, str], paths: list[str] | None = None, max_lines: int = 160) -> str:
    """``git diff`` of the working tree against the original files (new files included)."""
    out: list[str] = []
    for path in sorted(paths or current):
        before = original.get(path, "")
        after = current.get(path, "")
        if before == after:
            continue
        out.append(f"diff --git a/{path} b/{path}")
        if not before:
            out.append("new file mode 100644")
        out += list(difflib.unified_diff(before.splitlines(), after.splitlines(),
                                         "/dev/null" if not before else f"a/{path}", f"b/{path}", lineterm=""))
    if len(out) > max_lines:
        out = out[:max_lines] + [f"... ({len(out) - max_lines} more diff lines)"]
    return "\n".join(out) or "(no changes)"
