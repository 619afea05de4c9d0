"""Held-out look-alike sessions: shapes learned from real agent logs, written before the summarizer
was changed and never used to tune it.

The real logs (``real/SOURCES.md``) showed what the synthetic corpus lacked: agents that spend most
turns *reading* (specification documents, configuration, decompiler output, data frames) and
whose findings are values inside long outputs, not error lines; errors in shapes other than
Python's (TypeScript's ``error TS2322``, Go's ``undefined:``, ``make: ***``, ``npm ERR!``, a
PostgreSQL ``ERROR:``, a refused connection); Windows line endings breaking shell scripts. Each
session below reproduces one such shape in another harness's tool format.
"""

from __future__ import annotations

import json

from bench.retention_corpus.builder import Session


def codex_spec_documents() -> Session:
    """A Codex session reading a feature's specification documents before planning tasks."""
    s = Session("codex", workdir="/srv/ledger")
    s.user("Generate tasks.md for feature 012-payout-batching from its spec, plan and data model. "
           "Keep task ids stable with the existing T-numbers.")
    s.run("bash .specify/scripts/check-prereqs.sh --json",
          ".specify/scripts/check-prereqs.sh: line 4: $'\\r': command not found\n"
          ".specify/scripts/check-prereqs.sh: line 9: syntax error near unexpected token `$'in\\r''", 2)
    s.run("sed -i 's/\\r$//' .specify/scripts/check-prereqs.sh && bash .specify/scripts/check-prereqs.sh --json",
          '{"FEATURE_DIR":"/srv/ledger/specs/012-payout-batching","AVAILABLE_DOCS":["research.md","data-model.md",'
          '"contracts/","quickstart.md"]}')
    s.run("git checkout -b 012-payout-batching", "fatal: a branch named '012-payout-batching' already exists", 128)
    s.run("git checkout 012-payout-batching", "Switched to branch '012-payout-batching'")
    s.run("cat specs/012-payout-batching/plan.md", """# Implementation Plan: Payout Batching

**Branch**: `012-payout-batching` | **Date**: 2025-10-02 | **Spec**: specs/012-payout-batching/spec.md

## Technical Context
**Language/Version**: Python 3.12
**Primary Dependencies**: FastAPI 0.115, SQLAlchemy 2.0.36, Celery 5.4, httpx 0.27
**Storage**: PostgreSQL 16 (schema `payouts`), Redis 7.2 for the batch lock
**Testing**: pytest 8.3, pytest-asyncio, testcontainers
**Performance Goals**: close a batch of 5,000 payouts within 90 s; p95 API latency under 250 ms
**Constraints**: at most 3 provider retries with backoff 2 s, 8 s, 30 s; idempotency key per payout
**Scale/Scope**: 40k payouts/day, 12 currencies

## Project Structure
services/payouts/batching/scheduler.py
services/payouts/batching/closer.py
services/payouts/api/routes_batches.py
tests/payouts/test_batch_closer.py""")
    s.run("cat specs/012-payout-batching/data-model.md", """# Data Model

## PayoutBatch
- batch_id: UUID (primary key)
- currency: ISO 4217 code, one of the 12 enabled currencies
- status: open | closing | submitted | settled | failed
- cutoff_at: timestamp; a batch closes at cutoff_at or at max_items = 5000
- provider_reference: string, set when status becomes submitted

## PayoutItem
- item_id: UUID
- batch_id: foreign key to PayoutBatch.batch_id
- amount_minor: integer (minor units), must be > 0 and <= 10_000_000
- idempotency_key: string, unique per (merchant_id, idempotency_key)
- retry_count: integer, 0..3

## State transitions
open -> closing when cutoff_at passes or max_items reached
closing -> submitted after ProviderClient.submit_batch returns 202
submitted -> settled on webhook event payout.batch.settled
any -> failed after retry_count reaches 3""")
    s.run("cat specs/012-payout-batching/contracts/batches.openapi.yaml", """openapi: 3.1.0
info:
  title: Payout Batches API
  version: 0.4.0
paths:
  /v1/batches:
    get:
      operationId: listBatches
      parameters:
        - name: status
          in: query
          schema: {$ref: '#/components/schemas/BatchStatus'}
  /v1/batches/{batch_id}/close:
    post:
      operationId: closeBatch
      responses:
        '202': {description: Batch closing started}
        '409': {description: Batch already closing, content: {application/json: {schema: {$ref: '#/components/schemas/ErrorResponse'}}}}
  /v1/batches/{batch_id}/items:
    post:
      operationId: addBatchItem
      responses:
        '201': {description: Item added}
        '422': {description: amount_minor out of range}
components:
  schemas:
    BatchStatus: {type: string, enum: [open, closing, submitted, settled, failed]}
    ErrorResponse: {type: object, properties: {code: {type: string}, detail: {type: string}}}""")
    s.run("sed -n '1,60p' specs/012-payout-batching/spec.md", """# Feature Specification: Payout Batching
## Functional Requirements
- FR-001: The system MUST group payouts per currency into a PayoutBatch.
- FR-002: A batch MUST close at its cutoff (default 17:30 UTC) or when it holds 5000 items.
- FR-003: Closing MUST acquire the Redis lock `payouts:batch-lock:{currency}` with a TTL of 120 s.
- FR-004: Submission MUST send the idempotency key header `Idempotency-Key` to the provider.
- FR-005: Failed submissions MUST be retried at most 3 times (2 s, 8 s, 30 s).
- FR-006: The API MUST return 409 when a batch is already closing.
## Success Criteria
- SC-001: 99.5% of batches submitted within 5 minutes of cutoff.
- SC-002: zero duplicate payouts in the reconciliation report.""")
    s.run("ls specs/012-payout-batching/contracts", "batches.openapi.yaml\nwebhooks.md")
    s.run("cat specs/012-payout-batching/contracts/webhooks.md", """# Provider webhooks
Endpoint: POST /v1/webhooks/provider (signature header X-Provider-Signature, HMAC-SHA256)
Events:
- payout.batch.settled: sets PayoutBatch.status = settled
- payout.batch.rejected: sets status = failed and records rejection_code (e.g. R03, R17)
Retries from the provider: up to 6 over 24 hours; handlers MUST be idempotent.""")
    s.run("python -m pytest tests/payouts -q",
          "bash: line 1: python: command not found", 127)
    s.run("python3 -m pytest tests/payouts -q", """FAILED tests/payouts/test_batch_closer.py::test_close_at_max_items - AssertionError: assert 4999 == 5000
FAILED tests/payouts/test_webhooks.py::test_rejected_sets_failed - KeyError: 'rejection_code'
2 failed, 31 passed in 6.84s""", 1)
    s.run("cat .specify/templates/tasks-template.md", """# Tasks: [FEATURE NAME]
## Phase 3.1: Setup
- [ ] T001 Create project structure per implementation plan
## Phase 3.2: Tests First (TDD)
- [ ] T004 [P] Contract test POST /api/users in tests/contract/test_users_post.py
## Format: [ID] [P?] Description
- [P]: can run in parallel (different files, no dependencies)""")
    s.run("ls .specify.specify/templates/tasks-template.md",
          "ls: cannot access '.specify.specify/templates/tasks-template.md': No such file or directory", 2)
    s.say("Read the plan, data model, both contracts and the spec; two tests already fail (max items off by one, "
          "rejection_code missing). Writing tasks.md next.")
    for step in range(8):
        s.user(f"Continue with phase {step + 1} of the tasks.")
        s.say(f"Phase {step + 1} drafted.")
    return s


def claude_typescript_monorepo() -> Session:
    """A Claude Code session in a pnpm monorepo: grep hits, config reads, TypeScript and make errors."""
    s = Session("claude", workdir="/Users/dana/code/acme")
    s.user("The web build broke after the shared package moved to ESM. Get `make build` green again.")
    s.run("make build", """pnpm -r build
packages/shared build$ tsc -p tsconfig.build.json
packages/api build$ tsc -p tsconfig.json
packages/api build: src/routes/users.ts(42,7): error TS2322: Type 'string | undefined' is not assignable to type 'string'.
packages/api build: src/routes/users.ts(57,19): error TS2339: Property 'tenantId' does not exist on type 'SessionClaims'.
packages/web build: Error: Cannot find module '@acme/shared/dist/index.js' imported from /Users/dana/code/acme/packages/web/vite.config.ts
 ELIFECYCLE  Command failed with exit code 2.
make: *** [Makefile:23: build] Error 2""", 2)
    s._call("Grep", {"pattern": "SessionClaims", "path": "packages", "output_mode": "content", "-n": True},
            """packages/shared/src/auth/claims.ts:3:export interface SessionClaims {
packages/shared/src/auth/claims.ts:4:  sub: string;
packages/shared/src/auth/claims.ts:5:  orgId: string;
packages/shared/src/auth/claims.ts:6:  roles: Role[];
packages/shared/src/auth/claims.ts:7:  exp: number;
packages/api/src/routes/users.ts:12:import type { SessionClaims } from '@acme/shared';
packages/api/src/middleware/auth.ts:8:export function readClaims(token: string): SessionClaims {""", None)
    s.read("packages/shared/package.json", """{
  "name": "@acme/shared",
  "version": "2.3.0",
  "type": "module",
  "exports": {
    ".": { "import": "./dist/index.mjs", "types": "./dist/index.d.ts" },
    "./auth": { "import": "./dist/auth/index.mjs" }
  },
  "scripts": { "build": "tsup src/index.ts src/auth/index.ts --format esm --dts" }
}""")
    s.read("packages/web/vite.config.ts", """import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { apiBase } from '@acme/shared/dist/index.js';

export default defineConfig({
  plugins: [react()],
  server: { port: 5173, proxy: { '/api': { target: apiBase, changeOrigin: true } } },
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 900 },
});""")
    s.read("packages/api/src/routes/users.ts", """  const claims = readClaims(req.headers.authorization);
  const email: string = req.query.email;
  ...
  const tenant = claims.tenantId;""", offset=40)
    s.say("The claims type renamed tenantId to orgId, and vite imports the old CommonJS entry point.")
    s.edit("packages/api/src/routes/users.ts", "const tenant = claims.tenantId;", "const tenant = claims.orgId;")
    s.edit("packages/api/src/routes/users.ts", "const email: string = req.query.email;",
           "const email = String(req.query.email ?? '');")
    s.edit("packages/web/vite.config.ts", "import { apiBase } from '@acme/shared/dist/index.js';",
           "import { apiBase } from '@acme/shared';")
    s.run("pnpm install --frozen-lockfile", """ ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date with packages/shared/package.json
npm ERR! code ELIFECYCLE""", 1)
    s.run("pnpm install", "Lockfile is up to date, resolution step is skipped\nPackages: +4 -2\nDone in 3.1s")
    s.run("make build", """pnpm -r build
packages/shared build: ESM dist/index.mjs 14.21 KB
packages/shared build: DTS dist/index.d.ts 6.02 KB
packages/api build$ tsc -p tsconfig.json
packages/web build: vite v5.4.8 building for production...
packages/web build: dist/assets/index-4f9c2a1b.js 912.44 kB │ gzip: 281.03 kB
packages/web build: (!) Some chunks are larger than 900 kB after minification.""")
    s.run("pnpm -r test", """packages/web test:  FAIL  src/hooks/useSession.test.ts > refreshes the token 60 s before expiry
packages/web test: AssertionError: expected 2 to be 1 // Object.is equality
packages/web test:  Test Files  1 failed | 23 passed (24)
packages/web test:       Tests  1 failed | 187 passed (188)""", 1)
    s.read("packages/web/src/hooks/useSession.ts", """const REFRESH_MARGIN_MS = 60_000;
export function scheduleRefresh(exp: number, now = Date.now()) {
  const delay = exp * 1000 - now - REFRESH_MARGIN_MS;
  return setTimeout(refresh, Math.max(delay, 0));
}""")
    s.say("The hook schedules a second refresh when the timer fires late; next I will guard with a pending flag.")
    for step in range(6):
        s.user(f"Also check package {step} for ESM leftovers.")
        s.say(f"Package {step} has none.")
    return s


def openhands_go_service() -> Session:
    """An OpenHands session on a Go service: compiler errors, a failing test, health output, config values."""
    s = Session("openhands", workdir="/workspace/ratelimiter")
    s.user("Upgrade the service to pgx v5 and fix whatever breaks. The burst test has been flaky too.")
    s.run("go build ./...", """# github.com/acme/ratelimiter/internal/store
internal/store/postgres.go:88:15: undefined: pgxpool.Config
internal/store/postgres.go:97:9: cannot use cfg (variable of type *pgxpool.Config) as *pgxpool.Config value in argument to pgxpool.NewWithConfig
internal/store/postgres.go:112:3: pool.Close undefined (type *Pool has no field or method Close)""", 1)
    s.read("internal/store/postgres.go", """func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse dsn: %w", err)
	}
	cfg.MaxConns = 40
	cfg.MinConns = 4
	cfg.MaxConnIdleTime = 5 * time.Minute
	cfg.HealthCheckPeriod = 30 * time.Second""")
    s.read("config/service.yaml", """listen_addr: ":8080"
database:
  dsn_env: RATELIMITER_DSN
  max_conns: 40
  statement_timeout_ms: 2500
limits:
  default_rps: 10
  burst: 10
  window: 1s
  redis_key_prefix: "rl:v2:"
metrics:
  namespace: ratelimiter
  histogram_buckets_ms: [5, 10, 25, 50, 100, 250, 500]""")
    s.edit("go.mod", "github.com/jackc/pgx/v4 v4.18.1", "github.com/jackc/pgx/v5 v5.6.0")
    s.run("go mod tidy && go build ./...", "go: downloading github.com/jackc/pgx/v5 v5.6.0\ngo: downloading github.com/jackc/puddle/v2 v2.2.1")
    s.run("go test ./...", """ok  	github.com/acme/ratelimiter/internal/store	0.412s
--- FAIL: TestLimiter_Burst (0.02s)
    limiter_test.go:57: got 11 allowed, want 10
    limiter_test.go:61: window reset at 999.6ms, expected >= 1s
FAIL
FAIL	github.com/acme/ratelimiter/internal/limiter	0.031s
FAIL""", 1)
    s.read("internal/limiter/limiter.go", """func (l *Limiter) Allow(key string, now time.Time) bool {
	w := l.windows[key]
	if now.Sub(w.start) > l.window {
		w = window{start: now.Truncate(time.Millisecond)}
	}
	if w.count > l.burst {
		return false
	}
	w.count++
	l.windows[key] = w
	return true
}""")
    s.say("Off by one: `w.count > l.burst` admits burst+1 requests, and truncating the start shortens the window.")
    s.edit("internal/limiter/limiter.go", "if w.count > l.burst {", "if w.count >= l.burst {")
    s.edit("internal/limiter/limiter.go", "w = window{start: now.Truncate(time.Millisecond)}", "w = window{start: now}")
    s.run("go test ./... -count=20", """ok  	github.com/acme/ratelimiter/internal/limiter	0.588s
ok  	github.com/acme/ratelimiter/internal/store	0.409s""")
    s.run("docker compose up -d && sleep 3 && curl -s localhost:8080/healthz", """Container ratelimiter-db-1  Started
Container ratelimiter-app-1  Started
{"status":"degraded","db_latency_ms":412,"queue_depth":1893,"pgx_pool":{"total_conns":4,"idle_conns":0,"max_conns":40}}""")
    s.run("docker compose logs app | tail -5", """app-1  | 2025-09-14T08:12:40Z WARN slow acquire pool=main wait_ms=388
app-1  | 2025-09-14T08:12:41Z ERROR store: dial tcp 172.19.0.2:5432: connect: connection refused
app-1  | 2025-09-14T08:12:43Z INFO listening addr=:8080 version=1.9.0-rc.2""")
    s.say("Health is degraded: the app started before Postgres accepted connections; the pool recovers after 3 s.")
    for step in range(6):
        s.user(f"Check the metrics dashboard panel {step}.")
        s.say(f"Panel {step} looks fine.")
    return s


def sweagent_ctf_reversing() -> Session:
    """A SWE-agent style reversing challenge: binary inspection, disassembly values, a solve script."""
    s = Session("sweagent", workdir="/home/ctf")
    s.user("We're solving a reversing challenge: the binary `vault` checks a password. Find the flag.")
    s.run("file ./vault", "./vault: ELF 64-bit LSB pie executable, x86-64, version 1 (SYSV), dynamically linked, "
          "interpreter /lib64/ld-linux-x86-64.so.2, BuildID[sha1]=9c1e55b04a3f, for GNU/Linux 3.2.0, stripped")
    s.run("./vault", "bash: ./vault: Permission denied", 126)
    s.run("chmod +x ./vault && ./vault AAAA", "Wrong password. Attempts left: 2")
    s.run("strings -n 8 ./vault", """/lib64/ld-linux-x86-64.so.2
Enter password:
Wrong password. Attempts left: %d
Correct! Here is your flag: %s
check_password
derive_key
GLIBC_2.34""")
    s.run("objdump -d ./vault --start-address=0x1189 --stop-address=0x1220 -M intel", """0000000000001189 <check_password>:
    1189:	55                   	push   rbp
    1195:	c7 45 ec 1f 00 00 00 	mov    DWORD PTR [rbp-0x14],0x1f
    119c:	48 8d 05 5d 0e 00 00 	lea    rax,[rip+0xe5d]        # 2000 <encoded>
    11b2:	0f b6 04 10          	movzx  eax,BYTE PTR [rax+rdx*1]
    11b6:	34 5a                	xor    al,0x5a
    11c8:	83 c0 07             	add    eax,0x7
    11d9:	3c 7e                	cmp    al,0x7e
    1201:	b8 00 00 00 00       	mov    eax,0x0""")
    s.run("xxd -s 0x2000 -l 31 ./vault", """00002000: 3b3c 3631 2e05 6e22 1f6b 3a05 6a3b 3405  ;<61..n".k:.j;4.
00002010: 2d6a 2b3f 2c35 3f05 2d2c 6f3c 3d6e 27    -j+?,5?.-,o<=n'""")
    s.write("solve.py", "data = open('vault','rb').read()[0x2000:0x201f]\n"
            "print(''.join(chr(((b ^ 0x5a) + 7) & 0xff) for b in data))\n")
    s.run("python3 solve.py", "hmm: the +7 is applied before the xor in the binary\nZ]WRO&M;@L[&K]U&N?J@V@&NM.]^M?")
    s.say("The add happens on the decoded byte before the compare; reversing the order: subtract 7 after the xor "
          "is wrong, the check is ((input + 7) ^ 0x5a) == encoded.")
    s.edit("solve.py", "chr(((b ^ 0x5a) + 7) & 0xff)", "chr(((b ^ 0x5a) - 7) & 0xff)")
    s.run("python3 solve.py", "flag{x0r_and_4dd_are_n0t_crypt0}")
    s.run("./vault 'flag{x0r_and_4dd_are_n0t_crypt0}'", "Correct! Here is your flag: flag{x0r_and_4dd_are_n0t_crypt0}")
    for step in range(6):
        s.user(f"Document step {step} of the solution.")
        s.say(f"Step {step} documented.")
    return s


def hermes_data_pipeline() -> Session:
    """A Hermes session on a pandas/PostgreSQL pipeline: data-frame summaries, SQL errors, row counts."""
    s = Session("hermes", workdir="/home/ana/etl")
    s.user("The nightly orders load dropped rows yesterday. Find out where and fix the join.")
    s.run("python3 scripts/profile_orders.py --date 2025-08-03", """rows read: 48213
rows after dedupe: 47990 (223 duplicates on order_id)
rows after join with customers: 44102
             amount      items
count  47990.000000  47990.000
mean      37.420118      2.113
std       51.083337      1.402
min        0.010000      1.000
max     4120.000000     38.000
null customer_id: 3888""")
    s.read("data/samples/orders_2025-08-03.csv", """order_id,customer_id,created_at,amount,currency,channel
A-1029384,C-00912,2025-08-03T00:00:41Z,12.90,EUR,web
A-1029385,,2025-08-03T00:00:44Z,7.50,EUR,kiosk
A-1029386,C-77120,2025-08-03T00:01:02Z,129.00,USD,app""")
    s.run("python3 -c \"import pandas as pd; df = pd.read_parquet('out/orders.parquet'); print(df['customer_id'].head())\"",
          """Traceback (most recent call last):
  File "/home/ana/etl/.venv/lib/python3.11/site-packages/pandas/core/indexes/base.py", line 3805, in get_loc
KeyError: 'customer_id'""", 1)
    s.run("psql \"$ETL_DSN\" -c 'select count(*) from staging.orders_v2'",
          'ERROR:  relation "staging.orders_v2" does not exist\nLINE 1: select count(*) from staging.orders_v2', 1)
    s.run("psql \"$ETL_DSN\" -c '\\dt staging.*'", """         List of relations
 Schema  |      Name       | Type  | Owner
---------+-----------------+-------+-------
 staging | orders          | table | etl
 staging | orders_kiosk    | table | etl
 staging | customers_dim   | table | etl""")
    s.read("etl/jobs/load_orders.py", """def load(day):
    orders = read_orders(day)
    customers = read_customers()
    merged = orders.merge(customers, on="customer_id", how="inner")
    merged = merged.rename(columns={"customer_id": "cust_id"})
    write_parquet(merged, f"out/orders.parquet")""")
    s.say("The inner join drops the 3,888 kiosk orders without a customer_id, and the rename explains the KeyError.")
    s.edit("etl/jobs/load_orders.py", 'merged = orders.merge(customers, on="customer_id", how="inner")',
           'merged = orders.merge(customers, on="customer_id", how="left", validate="many_to_one")')
    s.run("python3 -m etl.jobs.load_orders --date 2025-08-03 && python3 scripts/profile_orders.py --date 2025-08-03 --out",
          "rows written: 47990\nnull customer_id: 3888 (kept, channel=kiosk)\nduration: 41.7s")
    s.run("aws s3 ls s3://acme-etl-prod/orders/2025/08/ --human-readable", """2025-08-02 02:14:09   61.2 MiB orders_2025-08-01.parquet
2025-08-03 02:13:55   60.8 MiB orders_2025-08-02.parquet
2025-08-04 02:15:31   55.9 MiB orders_2025-08-03.parquet""")
    s.say("The 2025-08-03 file is 4.9 MiB smaller than the day before, matching the dropped rows.")
    for step in range(6):
        s.user(f"Backfill day {step + 1} as well.")
        s.say(json.dumps({"backfilled": f"2025-08-0{step + 1}"}))
    return s


LOOKALIKES = (
    codex_spec_documents,
    claude_typescript_monorepo,
    openhands_go_service,
    sweagent_ctf_reversing,
    hermes_data_pipeline,
)
