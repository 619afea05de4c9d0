"""Coding sessions: CI failures, long test logs, refactors across many files, compilers, races."""

from __future__ import annotations

import random

from bench.retention_corpus import outputs as out
from bench.retention_corpus.builder import Session
from bench.retention_corpus.bulk import work_rounds


def flaky_ci_env_override() -> Session:
    """A CI failure that does not reproduce locally: an .env override masks the bug."""
    rng = random.Random(1)
    s = Session("hermes", workdir="/srv/billing")
    s.user("CI is red on main since yesterday: the billing tests fail in GitHub Actions but pass on my laptop. "
           "Find out why and fix it. Job: https://github.com/acme/billing/actions/runs/9123456789")
    s.run("git log --oneline -5", out.git_log([("Bump stripe to 9.4.0", ""), ("Add proration for annual plans", ""),
                                                 ("Fix currency rounding", ""), ("CI: cache pip", ""),
                                                 ("Release 2.3.0", "")], rng), note="Checking recent commits.")
    tests = [(f"tests/test_invoices.py::test_invoice_{n}", "PASSED") for n in range(40)]
    tests += [(f"tests/test_proration.py::test_prorate_{n}", "PASSED") for n in range(38)]
    tests += [("tests/test_proration.py::test_prorate_annual_to_monthly", "PASSED"),
              ("tests/test_tax.py::test_vat_rounding", "PASSED")]
    s.run("pytest -v tests/", out.pytest_run(tests, verbose=True, seconds=11.84, root="/srv/billing"),
          note="Running the suite locally first.")
    s.say("All 80 tests pass locally. The CI log should show what differs.")
    ci = out.github_actions_log("test (3.12)", [
        ("actions/checkout@v4", ["Syncing repository: acme/billing", "Checking out ref refs/heads/main"]),
        ("actions/setup-python@v5", ["Successfully set up CPython (3.12.3)"]),
        ("pip install -r requirements-dev.txt", [f"Collecting {p}" for p in ("stripe==9.4.0", "pytest==8.2.1", "freezegun==1.5.1")]
         + ["Successfully installed freezegun-1.5.1 pytest-8.2.1 stripe-9.4.0"]),
        ("pytest -v tests/", [f"tests/test_invoices.py::test_invoice_{n} PASSED [ {n}%]" for n in range(40)]
         + ["tests/test_proration.py::test_prorate_annual_to_monthly FAILED [ 98%]",
            "tests/test_tax.py::test_vat_rounding FAILED [100%]",
            "FAILED tests/test_proration.py::test_prorate_annual_to_monthly - AssertionError: assert Decimal('83.33') == Decimal('83.34')",
            "FAILED tests/test_tax.py::test_vat_rounding - AssertionError: assert Decimal('19.99') == Decimal('20.00')",
            "=================== 2 failed, 78 passed in 12.07s ===================",
            "##[error]Process completed with exit code 1."]),
    ], rng)
    s.run("gh run view 9123456789 --log-failed", ci, note="Pulling the failed CI log.")
    work_rounds(s, 101, ["billing/invoices.py", "billing/proration.py", "billing/tax.py", "billing/export.py"], ["tests/test_invoices.py", "tests/test_proration.py", "tests/test_tax.py"], 14)
    s.read(".env", "DATABASE_URL=postgres://localhost:5432/billing\nROUNDING_MODE=ROUND_HALF_UP\nDEFAULT_CURRENCY=EUR\n",
           note="Rounding differs; checking local settings.")
    s.read("billing/settings.py", "import os\n\nROUNDING_MODE = os.environ.get('ROUNDING_MODE', 'ROUND_HALF_EVEN')\n"
           "DEFAULT_CURRENCY = os.environ.get('DEFAULT_CURRENCY', 'USD')\n")
    s.say("Root cause: my local .env sets ROUNDING_MODE=ROUND_HALF_UP, which overrides the default ROUND_HALF_EVEN from "
          "billing/settings.py. CI has no .env, so it uses ROUND_HALF_EVEN and the proration rounds 83.335 down to 83.33. "
          "The tests were only passing locally because the .env override masked the bug.")
    s.run("env -u ROUNDING_MODE pytest -q tests/test_proration.py tests/test_tax.py",
          out.pytest_run([("tests/test_proration.py::test_prorate_annual_to_monthly", "FAILED"),
                          ("tests/test_tax.py::test_vat_rounding", "FAILED")] +
                         [(f"tests/test_proration.py::test_prorate_{n}", "PASSED") for n in range(4)],
                         {"tests/test_proration.py::test_prorate_annual_to_monthly": (
                             "    def test_prorate_annual_to_monthly():\n        plan = Plan(price=Decimal('1000.02'), period='year')\n"
                             ">       assert prorate(plan, months=1) == Decimal('83.34')",
                             "AssertionError: assert Decimal('83.33') == Decimal('83.34')"),
                          "tests/test_tax.py::test_vat_rounding": (
                              ">       assert vat(Decimal('16.80')) == Decimal('20.00')",
                              "AssertionError: assert Decimal('19.99') == Decimal('20.00')")}, seconds=0.42),
          exit_code=1, note="Reproducing without the override.")
    s.user("Good find. Don't change the tests; the product decision is ROUND_HALF_UP everywhere. Fix it in code.")
    s.edit("billing/settings.py", "ROUNDING_MODE = os.environ.get('ROUNDING_MODE', 'ROUND_HALF_EVEN')",
           "ROUNDING_MODE = os.environ.get('ROUNDING_MODE', 'ROUND_HALF_UP')",
           note="I'll make ROUND_HALF_UP the default instead of relying on .env.")
    s.run("env -u ROUNDING_MODE pytest -q tests/", out.pytest_run(tests, seconds=11.2), note="Full suite without .env.")
    s.run("git diff --stat", " billing/settings.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)")
    s.say("Fixed: 80 passed without the .env override. I also suggest removing ROUNDING_MODE from .env so local runs match CI.")
    s.user("Open a PR against main with that, title 'Default rounding to ROUND_HALF_UP'.")
    s.run("git checkout -b fix/rounding-default && git commit -am 'Default rounding to ROUND_HALF_UP' && gh pr create --fill",
          "Switched to a new branch 'fix/rounding-default'\n[fix/rounding-default 4b1c9e2] Default rounding to ROUND_HALF_UP\n"
          " 1 file changed, 1 insertion(+), 1 deletion(-)\nhttps://github.com/acme/billing/pull/412")
    s.say("Opened https://github.com/acme/billing/pull/412.")
    for n in range(8):  # later, unrelated chatter forms the kept tail
        s.user(f"Now check the coverage of billing/export_{n}.py quickly.")
        s.run(f"pytest -q --cov=billing.export_{n} tests/test_export.py",
              f"tests/test_export.py ....                                   [100%]\nTOTAL  {rng.randint(40, 99)}%\n4 passed in 0.9{n}s")
        s.say(f"Coverage of export_{n} is fine.")
    return s


def long_pytest_logs() -> Session:
    """Test logs several thousand lines long, fixed failure by failure."""
    rng = random.Random(2)
    s = Session("claude", workdir="/home/maria/inventory")
    s.user("The inventory service test suite has 14 failures after the SQLAlchemy 2.0 upgrade. Work through them "
           "until `pytest` is green. Keep the public API of inventory/api.py unchanged.")
    modules = ["stock", "orders", "suppliers", "warehouses", "pricing", "reports"]
    nodes = [(f"tests/test_{m}.py::test_{m}_{n}", m) for m in modules for n in range(25)]
    broken = {f"tests/test_{m}.py::test_{m}_{n}" for m, n in [("stock", 3), ("stock", 17), ("orders", 2), ("orders", 9),
                                                              ("orders", 21), ("suppliers", 5), ("warehouses", 1),
                                                              ("warehouses", 14), ("pricing", 0), ("pricing", 8),
                                                              ("pricing", 19), ("reports", 4), ("reports", 11),
                                                              ("reports", 24)]}
    errors = [
        "sqlalchemy.exc.ArgumentError: Textual SQL expression 'SELECT 1' should be explicitly declared as text('SELECT 1')",
        "AttributeError: 'Session' object has no attribute 'autocommit'",
        "sqlalchemy.exc.InvalidRequestError: Query.get() is not supported in 2.0 style; use Session.get()",
        "TypeError: select() takes 1 positional argument but 2 were given",
        "sqlalchemy.exc.RemovedIn20Warning: The Engine.execute() method is considered legacy",
        "AssertionError: assert 41 == 42",
        "KeyError: 'warehouse_id'",
    ]
    fixed: set[str] = set()
    round_number = 0
    while len(fixed) < len(broken):
        round_number += 1
        tests = [(node, "FAILED" if node in broken and node not in fixed else "PASSED") for node, _m in nodes]
        failures = {node: (f">       result = repo.{node.rsplit('_', 1)[0].rsplit('::', 1)[-1][5:]}(session, {rng.randint(1, 90)})",
                           errors[sorted(broken).index(node) % len(errors)])
                    for node, _m in nodes if node in broken and node not in fixed}
        s.run("pytest -v", out.pytest_run(tests, failures, verbose=True, seconds=rng.uniform(30, 50),
                                          root="/home/maria/inventory", warnings=rng.randint(3, 40)),
              exit_code=1, note="Running the whole suite." if round_number == 1 else "Rerunning the suite.")
        batch = sorted(broken - fixed)[:3]
        for node in batch:
            module = node.split("test_", 1)[1].split(".py", 1)[0]
            s.read(f"inventory/repositories/{module}.py",
                   out.python_module(module, [f"get_{module}", f"list_{module}", f"update_{module}"], rng,
                                     ["sqlalchemy", "logging"]))
            s.edit(f"inventory/repositories/{module}.py", "session.query(Model).get(pk)", "session.get(Model, pk)")
            fixed.add(node)
        s.say(f"Fixed {', '.join(n.split('::')[1] for n in batch)}: they used 1.x Query APIs.")
        if round_number == 2:
            s.user("How many are left? Also, don't silence the RemovedIn20Warning, fix the call sites.")
            s.say(f"{len(broken) - len(fixed)} failures are left. I'll fix the Engine.execute() call sites instead of "
                  "filtering the warning.")
    work_rounds(s, 102, ["inventory/api.py", "inventory/db.py", "inventory/cli.py"], ["tests/test_api.py", "tests/test_db.py"], 8, verbose_every=2)
    tests = [(node, "PASSED") for node, _m in nodes]
    s.run("pytest -q", out.pytest_run(tests, seconds=38.5, root="/home/maria/inventory"), note="Final run.")
    s.say("All 150 tests pass now. The root cause of 11 of the 14 failures was Query.get() and Engine.execute(), "
          "removed in SQLAlchemy 2.0; the other 3 were textual SQL without text().")
    for n in range(10):
        s.user(f"Check that migration 00{n}_add_index.py still applies.")
        s.run(f"alembic upgrade 00{n}", f"INFO  [alembic.runtime.migration] Running upgrade -> 00{n}, add index")
        s.say("It applies.")
    return s


def refactor_many_files() -> Session:
    """Renaming a package across 30 files with apply_patch, then the linters."""
    rng = random.Random(3)
    s = Session("codex", workdir="/work/atlas")
    s.user("Rename the package `atlas.geo` to `atlas.geometry` everywhere (imports, docs, entry points). "
           "Do it in one commit and keep `ruff check` and `mypy --strict` clean.")
    files = [f"atlas/{area}/{name}.py" for area in ("core", "io", "cli", "plugins", "viz")
             for name in ("base", "loader", "writer", "shapes", "util", "config")]
    hits = [(path, rng.randint(1, 40), f"from atlas.geo import {rng.choice(['Point', 'Polygon', 'bbox', 'project'])}")
            for path in files]
    s.run("rg -n 'atlas\\.geo\\b' --type py", "\n".join(f"{p}:{n}:{t}" for p, n, t in hits), note="Finding every use.")
    s.run("git mv atlas/geo atlas/geometry", "")
    for path, _line, text in hits:
        s.edit(path, text, text.replace("atlas.geo", "atlas.geometry"))
    s.edit("pyproject.toml", 'atlas-geo = "atlas.geo.cli:main"', 'atlas-geo = "atlas.geometry.cli:main"')
    s.edit("docs/index.md", "`atlas.geo`", "`atlas.geometry`")
    work_rounds(s, 103, ["atlas/core/shapes.py", "atlas/io/loader.py", "atlas/viz/render.py"], ["tests/test_shapes.py", "tests/test_loader.py"], 12)
    s.run("ruff check .", "atlas/viz/shapes.py:12:1: F401 [*] `atlas.geometry.bbox` imported but unused\n"
          "atlas/io/writer.py:3:8: I001 [*] Import block is un-sorted or un-formatted\n"
          "Found 2 errors.\n[*] 2 fixable with the `--fix` option.", exit_code=1)
    s.run("ruff check --fix .", "Found 2 errors (2 fixed, 0 remaining).")
    s.run("mypy --strict atlas", "atlas/plugins/loader.py:48: error: Module \"atlas.geometry\" has no attribute \"project\"  [attr-defined]\n"
          "atlas/cli/config.py:17: error: Cannot find implementation or library stub for module named \"atlas.geo\"  [import-not-found]\n"
          "Found 2 errors in 2 files (checked 61 source files)", exit_code=1)
    s.say("Two leftovers: atlas/plugins/loader.py imports `project`, which lives in atlas/geometry/projection.py, and "
          "atlas/cli/config.py builds the module name as a string 'atlas.geo'.")
    s.edit("atlas/plugins/loader.py", "from atlas.geometry import project", "from atlas.geometry.projection import project")
    s.edit("atlas/cli/config.py", "importlib.import_module('atlas.geo')", "importlib.import_module('atlas.geometry')")
    s.run("mypy --strict atlas", "Success: no issues found in 61 source files")
    s.run("git status --short", out.git_status_short([("R", "atlas/geo/__init__.py -> atlas/geometry/__init__.py")] +
                                                    [("M", p) for p in files] + [("M", "pyproject.toml"), ("M", "docs/index.md")]))
    s.run("pytest -q", out.pytest_run([(f"tests/test_{n}.py::test_{k}", "PASSED") for n in range(12) for k in range(8)],
                                      seconds=6.4))
    s.user("Keep a shim so `import atlas.geo` still works for one release, with a DeprecationWarning.")
    s.write("atlas/geo/__init__.py", 'import warnings\n\nfrom atlas.geometry import *  # noqa: F403\n\n'
            'warnings.warn("atlas.geo is deprecated; use atlas.geometry", DeprecationWarning, stacklevel=2)\n')
    s.run("python -W error::DeprecationWarning -c 'import atlas.geo'",
          'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
          '  File "/work/atlas/atlas/geo/__init__.py", line 5, in <module>\n'
          "DeprecationWarning: atlas.geo is deprecated; use atlas.geometry", exit_code=1)
    s.say("The shim warns as intended.")
    s.run("git add -A && git commit -m 'Rename atlas.geo to atlas.geometry (shim kept for one release)'",
          "[main 7e3d2a1] Rename atlas.geo to atlas.geometry (shim kept for one release)\n 34 files changed, 41 insertions(+), 38 deletions(-)")
    for n in range(6):
        s.user(f"Also update the changelog entry number {n}.")
        s.edit("CHANGELOG.md", f"- entry {n}", f"- entry {n} (atlas.geometry)")
        s.say("Updated.")
    return s


def rust_borrow_checker() -> Session:
    """cargo build errors fixed one by one."""
    s = Session("codex", workdir="/home/lin/ripcache")
    s.user("`cargo build` fails after I split the cache into shards. Make it compile and keep `cargo clippy -- -D warnings` clean.")
    s.run("cargo build", "   Compiling ripcache v0.4.0 (/home/lin/ripcache)\n"
          "error[E0502]: cannot borrow `self.shards` as mutable because it is also borrowed as immutable\n"
          "  --> src/cache.rs:88:13\n   |\n86 |         let shard = &self.shards[idx];\n"
          "   |                      ----------- immutable borrow occurs here\n87 |         if shard.len() > self.limit {\n"
          "88 |             self.shards[idx].evict_oldest();\n   |             ^^^^^^^^^^^ mutable borrow occurs here\n\n"
          "error[E0308]: mismatched types\n  --> src/shard.rs:41:20\n   |\n41 |         self.bytes += entry.len();\n"
          "   |                    ^^^^^^^^^^^ expected `u64`, found `usize`\n\n"
          "error: could not compile `ripcache` (lib) due to 2 previous errors", exit_code=101)
    s.read("src/cache.rs", "impl Cache {\n    pub fn insert(&mut self, key: Key, value: Bytes) {\n        let idx = self.shard_of(&key);\n"
           "        let shard = &self.shards[idx];\n        if shard.len() > self.limit {\n            self.shards[idx].evict_oldest();\n"
           "        }\n        self.shards[idx].put(key, value);\n    }\n}", offset=80)
    s.edit("src/cache.rs", "let shard = &self.shards[idx];\n        if shard.len() > self.limit {\n            self.shards[idx].evict_oldest();",
           "let shard = &mut self.shards[idx];\n        if shard.len() > self.limit {\n            shard.evict_oldest();",
           note="Taking one mutable borrow instead of two.")
    s.edit("src/shard.rs", "self.bytes += entry.len();", "self.bytes += entry.len() as u64;")
    s.run("cargo build", "   Compiling ripcache v0.4.0 (/home/lin/ripcache)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.41s")
    s.run("cargo clippy -- -D warnings", "    Checking ripcache v0.4.0 (/home/lin/ripcache)\n"
          "error: casting `usize` to `u64` may become silently lossy if you later change the type\n"
          "  --> src/shard.rs:41:22\n   |\n   = help: for further information visit "
          "https://rust-lang.github.io/rust-clippy/master/index.html#cast_possible_truncation\n"
          "error: could not compile `ripcache` (lib) due to 1 previous error", exit_code=101)
    s.say("I'll use u64::try_from(entry.len()) rather than an `as` cast, so an overflow is an error.")
    s.edit("src/shard.rs", "self.bytes += entry.len() as u64;", "self.bytes += u64::try_from(entry.len()).expect(\"entry fits in u64\");")
    s.run("cargo clippy -- -D warnings", "    Checking ripcache v0.4.0 (/home/lin/ripcache)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.12s")
    work_rounds(s, 104, ["bench/compare.py", "scripts/gen_fixtures.py"], ["tests/test_fixtures.py"], 9, runner="python -m pytest -q")
    tests = "\n".join([f"test shard::tests::put_{n} ... ok" for n in range(30)] + [f"test cache::tests::evict_{n} ... ok" for n in range(18)])
    s.run("cargo test", f"   Compiling ripcache v0.4.0\n    Finished `test` profile in 6.02s\n     Running unittests src/lib.rs\n\n"
          f"running 49 tests\n{tests}\ntest cache::tests::concurrent_insert ... FAILED\n\nfailures:\n\n"
          "---- cache::tests::concurrent_insert stdout ----\nthread 'cache::tests::concurrent_insert' panicked at src/cache.rs:140:9:\n"
          "assertion `left == right` failed\n  left: 9998\n right: 10000\n\nfailures:\n    cache::tests::concurrent_insert\n\n"
          "test result: FAILED. 48 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.84s", exit_code=101)
    s.say("The concurrent test loses 2 of 10000 inserts: shard_of() hashes with a RandomState created per call, so the "
          "same key can land in two shards. The root cause is the per-call hasher; I'll store one BuildHasher in the Cache.")
    s.edit("src/cache.rs", "let hasher = RandomState::new();", "let hasher = &self.hasher;")
    s.run("cargo test", "running 49 tests\n" + tests + "\ntest cache::tests::concurrent_insert ... ok\n\n"
          "test result: ok. 49 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.79s")
    for n in range(6):
        s.user(f"Run the benchmark group {n}.")
        s.run(f"cargo bench --bench insert -- group{n}", f"insert/group{n}  time: [{112 + n}.2 ns {113 + n}.0 ns {114 + n}.1 ns]")
        s.say("Done.")
    return s


def go_service_race() -> Session:
    """A data race found with go test -race."""
    s = Session("openhands", workdir="/workspace/gateway")
    s.user("Our Go gateway sometimes returns 502 under load. Run the tests with the race detector and fix what it finds.")
    s.run("go test ./... -race -count=1", "ok  \tgithub.com/acme/gateway/internal/auth\t1.204s\n"
          "ok  \tgithub.com/acme/gateway/internal/config\t(cached)\n"
          "==================\nWARNING: DATA RACE\nWrite at 0x00c0001a4090 by goroutine 42:\n"
          "  github.com/acme/gateway/internal/proxy.(*Pool).Release()\n      /workspace/gateway/internal/proxy/pool.go:77 +0x1a4\n"
          "Previous read at 0x00c0001a4090 by goroutine 38:\n  github.com/acme/gateway/internal/proxy.(*Pool).Acquire()\n"
          "      /workspace/gateway/internal/proxy/pool.go:52 +0x8c\n==================\n"
          "--- FAIL: TestPoolUnderLoad (2.31s)\n    testing.go:1398: race detected during execution of test\n"
          "FAIL\nFAIL\tgithub.com/acme/gateway/internal/proxy\t2.517s\n"
          "ok  \tgithub.com/acme/gateway/internal/router\t0.412s\nFAIL", exit_code=1)
    s.read("internal/proxy/pool.go", "func (p *Pool) Acquire() *Conn {\n\tif len(p.idle) == 0 {\n\t\treturn p.dial()\n\t}\n"
           "\tc := p.idle[len(p.idle)-1]\n\tp.idle = p.idle[:len(p.idle)-1]\n\treturn c\n}\n\n"
           "func (p *Pool) Release(c *Conn) {\n\tp.idle = append(p.idle, c)\n}")
    s.say("Acquire and Release touch p.idle without a lock. I'll guard the idle slice with a sync.Mutex rather than "
          "switch to a channel, to keep the LIFO order.")
    s.edit("internal/proxy/pool.go", "func (p *Pool) Release(c *Conn) {\n\tp.idle = append(p.idle, c)",
           "func (p *Pool) Release(c *Conn) {\n\tp.mu.Lock()\n\tdefer p.mu.Unlock()\n\tp.idle = append(p.idle, c)")
    s.edit("internal/proxy/pool.go", "func (p *Pool) Acquire() *Conn {\n\tif len(p.idle) == 0 {",
           "func (p *Pool) Acquire() *Conn {\n\tp.mu.Lock()\n\tdefer p.mu.Unlock()\n\tif len(p.idle) == 0 {")
    s.run("go test ./internal/proxy -race -count=20", "ok  \tgithub.com/acme/gateway/internal/proxy\t41.877s")
    s.run("go vet ./...", "")
    work_rounds(s, 105, ["loadtest/report.py", "tools/pool_stats.py"], ["tools/test_pool_stats.py"], 10)
    s.user("And the 502s? Is there a load test?")
    s.run("k6 run loadtest/gateway.js", "     checks.........................: 99.98% ✓ 119976     ✗ 24\n"
          "     http_req_duration..............: avg=38.2ms min=1.9ms med=22.4ms max=2.1s p(90)=71.3ms p(95)=104.6ms\n"
          "     http_reqs......................: 120000 1999.7/s\n     ✗ status is 200\n      ↳  99% — ✓ 119976 / ✗ 24")
    s.say("24 of 120000 requests still fail (0.02%), p95 is 104.6ms. The remaining 502s come from dial timeouts at 2.1s; "
          "the upstream dial timeout is 2s in internal/config/defaults.go.")
    s.user("Raise the dial timeout to 5s and rerun.")
    s.edit("internal/config/defaults.go", "DialTimeout: 2 * time.Second", "DialTimeout: 5 * time.Second")
    s.run("k6 run loadtest/gateway.js", "     checks.........................: 100.00% ✓ 120000     ✗ 0\n"
          "     http_req_duration..............: avg=37.9ms min=1.8ms med=22.1ms max=3.4s p(90)=70.8ms p(95)=101.2ms\n"
          "     http_reqs......................: 120000 1999.9/s")
    s.say("No failures now: 120000 requests, p95 101.2ms.")
    for n in range(5):
        s.user(f"Tag release v1.8.{n}?")
        s.run(f"git tag v1.8.{n}", "")
        s.say("Tagged.")
    return s


def typescript_build() -> Session:
    """tsc errors, eslint and npm install output."""
    rng = random.Random(6)
    s = Session("hermes", workdir="/home/ana/storefront")
    s.user("Upgrade the storefront to TypeScript 5.5 and fix whatever breaks. Prefer type fixes over `any`; never use `@ts-ignore`.")
    s.run("npm install -D typescript@5.5.4", out.npm_install(rng, 3, ["inflight@1.0.6: This module is not supported, and leaks memory",
                                                                     "glob@7.2.3: Glob versions prior to v9 are no longer supported"]))
    errors = [
        "src/cart/CartSummary.tsx(42,7): error TS2322: Type 'string | undefined' is not assignable to type 'string'.",
        "src/cart/useCart.ts(18,22): error TS2345: Argument of type 'CartItem | null' is not assignable to parameter of type 'CartItem'.",
        "src/api/client.ts(77,5): error TS18048: 'response.data' is possibly 'undefined'.",
        "src/checkout/Payment.tsx(103,11): error TS2339: Property 'last4' does not exist on type 'PaymentMethod'.",
    ]
    s.run("npx tsc --noEmit", "\n".join(errors) + "\n\nFound 4 errors in 4 files.\n\nErrors  Files\n"
          "     1  src/api/client.ts:77\n     1  src/cart/CartSummary.tsx:42\n     1  src/cart/useCart.ts:18\n"
          "     1  src/checkout/Payment.tsx:103", exit_code=2)
    for error in errors:
        path = error.split("(", 1)[0]
        s.read(path, "\n".join(f"  const line{n} = compute{n}(props);" for n in range(12)))
        s.edit(path, "value: props.label", "value: props.label ?? ''")
    s.run("npx tsc --noEmit", "src/checkout/Payment.tsx(103,11): error TS2339: Property 'last4' does not exist on type 'CardPaymentMethod | WalletPaymentMethod'.\n"
          "  Property 'last4' does not exist on type 'WalletPaymentMethod'.\n\nFound 1 error in src/checkout/Payment.tsx:103", exit_code=2)
    s.say("PaymentMethod is now a union; I'll narrow on method.type === 'card' before reading last4 instead of widening the type.")
    s.edit("src/checkout/Payment.tsx", "method.last4", "method.type === 'card' ? method.last4 : method.walletName")
    s.run("npx tsc --noEmit", "")
    work_rounds(s, 106, ["scripts/bundle_report.py", "scripts/i18n_check.py"], ["scripts/test_bundle_report.py"], 12)
    lint = "\n".join(f"/home/ana/storefront/src/components/Item{n}.tsx\n  {rng.randint(1, 80)}:{rng.randint(1, 30)}  warning  "
                     f"'React' is defined but never used  @typescript-eslint/no-unused-vars" for n in range(15))
    s.run("npx eslint src --max-warnings 0", lint + "\n\n✖ 15 problems (0 errors, 15 warnings)\n\n"
          "ESLint found too many warnings (maximum: 0).", exit_code=1)
    s.run("npx eslint src --fix --max-warnings 0", "")
    s.run("npm test -- --run", out.jest_run([(f"src/components/Item{n}.test.tsx", [(f"renders item {n}", True, rng.randint(3, 40)),
                                                                                  (f"adds item {n} to cart", True, rng.randint(3, 40))])
                                             for n in range(15)], {}, 8.214))
    s.say("TypeScript 5.5.4 builds with 0 errors, ESLint is clean and the 30 tests pass.")
    for n in range(6):
        s.user(f"Bump the patch version to 3.1.{n}.")
        s.run(f"npm version 3.1.{n} --no-git-tag-version", f"v3.1.{n}")
        s.say("Bumped.")
    return s


def docker_deploy() -> Session:
    """A staging deploy: docker build progress, a pip failure, kubectl listings."""
    rng = random.Random(7)
    s = Session("hermes", workdir="/srv/shop")
    s.user("Deploy the shop API to staging. The image must stay under 400 MB. Registry is registry.acme.dev/shop.")
    steps = ["FROM python:3.12-slim", "WORKDIR /app", "COPY requirements.txt .", "RUN pip install --no-cache-dir -r requirements.txt",
             "COPY . .", "RUN python -m compileall -q app"]
    s.run("docker build -t registry.acme.dev/shop:2.7.0 .",
          out.docker_build(steps, rng, error="ERROR: No matching distribution found for psycopg2-binary==2.9.99"), exit_code=1)
    s.read("requirements.txt", "fastapi==0.111.0\nuvicorn[standard]==0.30.1\npsycopg2-binary==2.9.99\nredis==5.0.4\n")
    s.say("psycopg2-binary 2.9.99 does not exist; the latest 2.9 release is 2.9.9. Someone typed an extra 9.")
    s.edit("requirements.txt", "psycopg2-binary==2.9.99", "psycopg2-binary==2.9.9")
    s.run("docker build -t registry.acme.dev/shop:2.7.0 .", out.docker_build(steps, rng))
    s.run("docker images registry.acme.dev/shop:2.7.0 --format '{{.Size}}'", "412MB")
    s.say("412MB is over the 400 MB limit. I'll use a multi-stage build and drop the build tools from the final image.")
    s.write("Dockerfile", "FROM python:3.12-slim AS build\nRUN pip wheel --wheel-dir /wheels -r requirements.txt\n\n"
            "FROM python:3.12-slim\nCOPY --from=build /wheels /wheels\nRUN pip install --no-cache-dir /wheels/*\n")
    s.run("docker build -t registry.acme.dev/shop:2.7.0 . && docker images registry.acme.dev/shop:2.7.0 --format '{{.Size}}'",
          out.docker_build(steps, rng) + "\n286MB")
    s.run("docker push registry.acme.dev/shop:2.7.0", "\n".join(f"{rng.getrandbits(48):012x}: Pushed" for _ in range(9))
          + "\n2.7.0: digest: sha256:" + f"{rng.getrandbits(256):064x}" + " size: 2201")
    work_rounds(s, 107, ["app/api/orders.py", "app/api/cart.py", "app/core/settings.py"], ["tests/test_orders.py", "tests/test_cart.py"], 16)
    s.run("kubectl -n staging set image deploy/shop-api api=registry.acme.dev/shop:2.7.0 && kubectl -n staging rollout status deploy/shop-api",
          "deployment.apps/shop-api image updated\nWaiting for deployment \"shop-api\" rollout to finish: 1 of 3 updated replicas are available...\n"
          "error: deployment \"shop-api\" exceeded its progress deadline", exit_code=1)
    pods = "NAME                        READY   STATUS             RESTARTS      AGE\n" + "\n".join(
        f"shop-api-7c9d{rng.getrandbits(16):04x}-{rng.getrandbits(20):05x}   {'0/1' if n < 2 else '1/1'}     "
        f"{'CrashLoopBackOff' if n < 2 else 'Running'}   {rng.randint(0, 6)} (2m ago)   {rng.randint(3, 9)}m" for n in range(5))
    s.run("kubectl -n staging get pods -l app=shop-api", pods)
    s.run("kubectl -n staging logs deploy/shop-api --tail=20",
          "INFO:     Started server process [1]\nINFO:     Waiting for application startup.\n"
          "redis.exceptions.ConnectionError: Error 111 connecting to redis-master.staging.svc:6379. Connection refused.\n"
          "ERROR:    Application startup failed. Exiting.")
    s.say("The new pods crash because REDIS_URL points at redis-master.staging.svc:6379, which was renamed to redis.staging.svc "
          "last week; the old pods still hold connections from before the rename.")
    s.user("Yes, the redis service was renamed. Fix the config map, not the code.")
    s.run("kubectl -n staging patch configmap shop-api-env -p '{\"data\":{\"REDIS_URL\":\"redis://redis.staging.svc:6379/0\"}}' "
          "&& kubectl -n staging rollout restart deploy/shop-api && kubectl -n staging rollout status deploy/shop-api",
          "configmap/shop-api-env patched\ndeployment.apps/shop-api restarted\ndeployment \"shop-api\" successfully rolled out")
    s.say("Staging runs 2.7.0: 3/3 pods ready, image 286MB.")
    for n in range(5):
        s.user(f"Smoke test endpoint /health/{n}.")
        s.run(f"curl -s https://staging.acme.dev/health/{n}", '{"status":"ok"}')
        s.say("OK.")
    return s


def log_investigation() -> Session:
    """A service log thousands of lines long with repeated lines and a few distinct errors."""
    rng = random.Random(8)
    s = Session("claude", workdir="/home/ops/notifier")
    s.user("The notifier stopped sending emails around 14:05 today. Look at the logs in /var/log/notifier/app.log and tell me why.")
    log = out.repeated_log([
        "INFO  worker-{n} sent email batch size=50 in {ms}ms",
        "DEBUG pool checkout conn_id={n} wait={ms}ms",
        "INFO  heartbeat ok",
    ], 900, rng, start_hour=13, extra=[
        (610, "WARNING smtp pool at 95% capacity (19/20 connections)"),
        (700, "ERROR smtp: timed out waiting for a connection from the pool after 30s"),
        (701, "ERROR worker-3 giving up on batch 88231 after 3 retries"),
        (880, "CRITICAL queue depth 48210 exceeds alert threshold 10000"),
    ])
    s.run("tail -n 3000 /var/log/notifier/app.log", log)
    s.run("grep -c 'timed out waiting for a connection' /var/log/notifier/app.log", "1843")
    s.read("notifier/smtp_pool.py", "class SmtpPool:\n    def __init__(self, size: int = 20, timeout: float = 30.0):\n"
           "        self._sem = threading.Semaphore(size)\n\n    def send(self, message):\n        self._sem.acquire(timeout=self.timeout)\n"
           "        conn = self._connect()\n        conn.send_message(message)\n        # connection is never returned on error\n")
    s.say("The pool leaks: SmtpPool.send() acquires the semaphore but never releases it when send_message raises, so after "
          "20 failures (the SMTP provider had a 4-minute outage at 14:01) every worker waits 30s and times out. "
          "That is the root cause; the outage only triggered it.")
    work_rounds(s, 108, ["notifier/worker.py", "notifier/queue.py", "notifier/templates.py"], ["tests/test_worker.py", "tests/test_queue.py"], 11)
    s.user("Fix the leak with a try/finally and add a test that simulates a failing send.")
    s.edit("notifier/smtp_pool.py", "        conn = self._connect()\n        conn.send_message(message)",
           "        try:\n            conn = self._connect()\n            conn.send_message(message)\n        finally:\n            self._sem.release()")
    s.write("tests/test_smtp_pool.py", "def test_failed_send_returns_the_slot(monkeypatch):\n    pool = SmtpPool(size=1, timeout=0.1)\n"
            "    ...\n")
    s.run("pytest -q tests/test_smtp_pool.py", out.pytest_run([("tests/test_smtp_pool.py::test_failed_send_returns_the_slot", "PASSED"),
                                                              ("tests/test_smtp_pool.py::test_send_ok", "PASSED")], seconds=0.35))
    s.say("Fixed in notifier/smtp_pool.py; 2 passed. The 48210 queued messages will drain after a restart "
          "(about 16 minutes at 50 per batch).")
    for n in range(6):
        s.user(f"What is the queue depth now (check {n})?")
        s.run("redis-cli llen notifier:queue", str(48210 - 9000 * n))
        s.say(f"{48210 - 9000 * n} messages left.")
    return s


def terraform_infra() -> Session:
    """terraform plan/apply with a missing variable and a drift."""
    s = Session("codex", workdir="/infra/envs/prod")
    s.user("Add a read replica for the orders database in prod (db.r6g.large, same AZ spread). Show me the plan before applying.")
    s.read("rds.tf", 'resource "aws_db_instance" "orders" {\n  identifier     = "orders-prod"\n  instance_class = var.orders_class\n'
           '  allocated_storage = 500\n  multi_az = true\n}\n')
    s.edit("rds.tf", "  multi_az = true\n}", '  multi_az = true\n}\n\nresource "aws_db_instance" "orders_replica" {\n'
           '  identifier          = "orders-prod-replica-1"\n  replicate_source_db = aws_db_instance.orders.identifier\n'
           '  instance_class      = var.replica_class\n}')
    s.run("terraform plan -out=replica.plan", "╷\n│ Error: Reference to undeclared input variable\n│\n│   on rds.tf line 12, in resource "
          "\"aws_db_instance\" \"orders_replica\":\n│   12:   instance_class      = var.replica_class\n│\n"
          "│ An input variable with the name \"replica_class\" has not been declared.\n╵", exit_code=1)
    s.edit("variables.tf", 'variable "orders_class" {', 'variable "replica_class" {\n  type    = string\n  default = "db.r6g.large"\n}\n\n'
           'variable "orders_class" {')
    plan = ("aws_db_instance.orders: Refreshing state... [id=orders-prod]\n" +
            "\n".join(f"aws_route53_record.svc_{n}: Refreshing state... [id=Z0{n}ABCDEF_svc{n}.acme.internal_A]" for n in range(25)) +
            "\n\nTerraform will perform the following actions:\n\n  # aws_db_instance.orders_replica will be created\n"
            '  + resource "aws_db_instance" "orders_replica" {\n      + identifier          = "orders-prod-replica-1"\n'
            '      + instance_class      = "db.r6g.large"\n      + replicate_source_db = "orders-prod"\n    }\n\n'
            '  # aws_security_group_rule.orders_ingress will be updated in-place\n  ~ cidr_blocks = ["10.0.0.0/16"] -> ["10.0.0.0/8"]\n\n'
            "Plan: 1 to add, 1 to change, 0 to destroy.")
    s.run("terraform plan -out=replica.plan", plan)
    s.say("The plan adds orders-prod-replica-1 (db.r6g.large) but also changes aws_security_group_rule.orders_ingress from "
          "10.0.0.0/16 to 10.0.0.0/8: that is drift, someone edited the rule in the console.")
    work_rounds(s, 109, ["scripts/drift_report.py", "scripts/tf_cost.py"], ["scripts/test_drift_report.py"], 7)
    s.user("Don't touch the security group in this change. Apply only the replica.")
    s.run("terraform apply -target=aws_db_instance.orders_replica -auto-approve",
          "aws_db_instance.orders_replica: Creating...\n" + "\n".join(f"aws_db_instance.orders_replica: Still creating... [{10 * n}s elapsed]"
                                                                      for n in range(1, 40)) +
          "\naws_db_instance.orders_replica: Creation complete after 6m41s [id=orders-prod-replica-1]\n\n"
          "Apply complete! Resources: 1 added, 0 changed, 0 destroyed.")
    s.say("The replica is up after 6m41s. The security group drift is left as it is; it needs its own change.")
    for n in range(5):
        s.user(f"Check replica lag ({n}).")
        s.run("aws cloudwatch get-metric-statistics --metric-name ReplicaLag --namespace AWS/RDS --period 60",
              f'{{"Datapoints": [{{"Average": 0.{n}, "Unit": "Seconds"}}]}}')
        s.say(f"Lag 0.{n} s.")
    return s


def directory_exploration() -> Session:
    """Exploring an unknown repository: ls, tree and find listings before a one-line fix."""
    rng = random.Random(10)
    s = Session("codex", workdir="/src/mediakit")
    s.user("I inherited this repo. Find where thumbnails are generated and why they come out rotated for iPhone photos.")
    entries = [(name, rng.randint(200, 90000), is_dir) for name, is_dir in
               [("README.md", False), ("setup.cfg", False), ("mediakit", True), ("tests", True), ("docs", True),
                ("scripts", True), ("tox.ini", False), ("requirements.txt", False), (".github", True)]]
    s.run("ls -la", out.ls_long(entries, rng))
    paths = [f"mediakit/{d}/{f}.py" for d in ("image", "video", "audio", "storage", "web") for f in
             ("__init__", "convert", "probe", "cache", "thumbs" if d == "image" else "meta")]
    s.run("tree mediakit -I __pycache__", out.tree("mediakit", paths))
    s.run("find . -name '*.py' -newer setup.cfg", "\n".join(f"./{p}" for p in paths + [f"tests/test_{n}.py" for n in range(20)]))
    work_rounds(s, 110, ["mediakit/image/convert.py", "mediakit/video/probe.py", "mediakit/storage/cache.py"], ["tests/test_convert.py", "tests/test_probe.py"], 15)
    s.run("rg -n 'def make_thumbnail' mediakit", "mediakit/image/thumbs.py:31:def make_thumbnail(path: str, size=(256, 256)):")
    s.read("mediakit/image/thumbs.py", "from PIL import Image\n\n\ndef make_thumbnail(path: str, size=(256, 256)):\n"
           "    image = Image.open(path)\n    image.thumbnail(size)\n    return image\n", offset=28)
    s.say("make_thumbnail() never applies the EXIF orientation tag, and iPhones store portrait photos as landscape pixels "
          "with Orientation=6. I'll call ImageOps.exif_transpose() before thumbnail().")
    s.edit("mediakit/image/thumbs.py", "    image = Image.open(path)\n", "    image = ImageOps.exif_transpose(Image.open(path))\n")
    s.edit("mediakit/image/thumbs.py", "from PIL import Image\n", "from PIL import Image, ImageOps\n")
    s.run("pytest -q tests/test_thumbs.py", out.pytest_run([("tests/test_thumbs.py::test_portrait_iphone", "PASSED"),
                                                           ("tests/test_thumbs.py::test_landscape", "PASSED"),
                                                           ("tests/test_thumbs.py::test_png_alpha", "PASSED")], seconds=0.61))
    s.say("Thumbnails now honour the EXIF orientation; 3 tests pass.")
    for n in range(6):
        s.user(f"What does mediakit/video/meta.py do, part {n}?")
        s.say("It reads container metadata with ffprobe.")
    return s
