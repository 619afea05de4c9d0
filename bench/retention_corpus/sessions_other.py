"""Sessions of other shapes: web research, multi-day work, changes of direction, non-English turns,
secrets, performance work, data pipelines, work cut mid-step and one very long refactor."""

from __future__ import annotations

import random

from bench.retention_corpus import outputs as out
from bench.retention_corpus.builder import Session
from bench.retention_corpus.bulk import work_rounds

PREVIOUS_HANDOFF = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff "
    "from a previous context window — treat it as background reference, NOT as active instructions.\n"
    "## Active Task\nUser asked: 'Write the migration that splits customers.address into street, city and postcode.'\n\n"
    "## Goal\nNormalise the customer address columns in the CRM database without downtime.\n\n"
    "## Completed Actions\n1. READ crm/models/customer.py — 120 lines [tool: Read]\n"
    "2. RUN `alembic revision -m 'split address'` — created migrations/versions/5f2a_split_address.py [tool: Bash]\n\n"
    "## Key Decisions\n- Backfill in batches of 5000 rows to keep locks short.\n\n"
    "## Relevant Files\n- migrations/versions/5f2a_split_address.py — created\n\n"
    "## Critical Context\n- The customers table has 2.4M rows."
)


def web_research() -> Session:
    """Choosing a rate-limiting approach from docs and benchmarks found on the web."""
    s = Session("hermes", workdir="/home/kim/api")
    s.user("Research how to add rate limiting to our FastAPI service: compare slowapi, fastapi-limiter and doing it in the "
           "nginx ingress. We run 6 replicas behind ingress-nginx. I want a recommendation with sources.")
    s.web_search("fastapi rate limiting redis multiple replicas", [
        ("slowapi documentation", "https://slowapi.readthedocs.io/en/latest/", "A rate limiting library for Starlette and FastAPI adapted from flask-limiter."),
        ("fastapi-limiter on PyPI", "https://pypi.org/project/fastapi-limiter/", "Request rate limiter for fastapi, requires redis. Latest version 0.1.6."),
        ("Rate limiting with NGINX", "https://www.nginx.com/blog/rate-limiting-nginx/", "limit_req_zone and limit_req with burst and nodelay."),
    ])
    s.fetch("https://slowapi.readthedocs.io/en/latest/", "SlowApi\nA rate limiting library for Starlette and FastAPI adapted from "
            "flask-limiter.\n\nFeatures\n- Single and multiple limit decorator on endpoint functions\n- Support for redis, memcached "
            "and memory backends through the limits library\n\nLimitations\n- Only the in-memory backend is tested in CI.\n"
            "- The default key function uses the client address; behind a proxy use X-Forwarded-For.\n")
    s.fetch("https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/#rate-limiting",
            "Rate Limiting\nThese annotations define limits on connections and transmission rates.\n"
            "nginx.ingress.kubernetes.io/limit-rps: number of requests accepted from a given IP each second. The burst limit is "
            "set to this limit multiplied by the burst multiplier, the default multiplier is 5.\n"
            "nginx.ingress.kubernetes.io/limit-connections: number of concurrent connections allowed from a single IP address.\n"
            "Note: the limits are applied per ingress-nginx replica, not globally.\n")
    s.say("Key point from the ingress-nginx docs: limit-rps is enforced per controller replica, so with 3 controller pods a "
          "limit of 10 rps allows up to 30 rps per client.")
    s.web_search("fastapi-limiter vs slowapi benchmark latency redis", [
        ("Benchmarking Python rate limiters (2024)", "https://blog.example.dev/python-rate-limiters-2024",
         "slowapi added 0.21 ms p50 with redis; fastapi-limiter 0.34 ms; both under 1 ms p99 at 5,000 rps."),
        ("GitHub issue: slowapi redis cluster support", "https://github.com/laurentS/slowapi/issues/144", "Redis cluster is not supported out of the box."),
    ])
    s.fetch("https://blog.example.dev/python-rate-limiters-2024", "We ran each limiter at 5,000 rps for 10 minutes on a c6i.xlarge.\n"
            "slowapi (redis backend): p50 overhead 0.21 ms, p99 0.88 ms.\nfastapi-limiter: p50 0.34 ms, p99 0.97 ms.\n"
            "In-memory backends are not shared across processes and undercount by the number of workers.\n")
    work_rounds(s, 111, ["api/middleware.py", "api/routes/search.py"], ["tests/test_middleware.py"], 9)
    s.user("We use a Redis Cluster in prod, does that matter?")
    s.say("Yes: slowapi's redis backend does not support Redis Cluster out of the box (https://github.com/laurentS/slowapi/issues/144), "
          "so we would need a single-node Redis or the limits library's cluster storage.")
    s.user("Write the recommendation into docs/adr/0007-rate-limiting.md.")
    s.write("docs/adr/0007-rate-limiting.md", "# ADR 0007: Rate limiting\n\nDecision: per-client limits in the app with slowapi and "
            "the limits library's Redis Cluster storage; ingress-nginx limit-rps only as a coarse per-IP guard.\n\n"
            "Sources:\n- https://slowapi.readthedocs.io/en/latest/\n- https://blog.example.dev/python-rate-limiters-2024\n")
    s.say("Decided: slowapi with a cluster-aware storage instead of ingress limits alone, because ingress-nginx limits are per replica. "
          "Written to docs/adr/0007-rate-limiting.md.")
    for n in range(6):
        s.user(f"Add source number {n} to the ADR if relevant.")
        s.say("Added.")
    return s


def multi_day_migration() -> Session:
    """Three working days on a database migration, resumed from an earlier handoff summary."""
    s = Session("claude", workdir="/home/priya/crm")
    s.user(PREVIOUS_HANDOFF)
    s.user("Good morning! Let's continue with the address migration from yesterday.")
    s.read("migrations/versions/5f2a_split_address.py", "def upgrade():\n    op.add_column('customers', sa.Column('street', sa.Text()))\n"
           "    op.add_column('customers', sa.Column('city', sa.Text()))\n    op.add_column('customers', sa.Column('postcode', sa.String(16)))\n")
    s.edit("migrations/versions/5f2a_split_address.py", "    op.add_column('customers', sa.Column('postcode', sa.String(16)))\n",
           "    op.add_column('customers', sa.Column('postcode', sa.String(16)))\n    backfill_addresses(batch_size=5000)\n")
    s.run("alembic upgrade head", "INFO  [alembic.runtime.migration] Running upgrade 3c1d -> 5f2a, split address\n"
          "sqlalchemy.exc.DataError: (psycopg2.errors.StringDataRightTruncation) value too long for type character varying(16)\n"
          "[SQL: UPDATE customers SET street=%(street)s, city=%(city)s, postcode=%(postcode)s WHERE customers.id = %(id_1)s]", exit_code=1)
    s.run("psql crm -c \"select max(length(postcode_raw)) from customers_staging\"", " max \n-----\n  23\n(1 row)")
    s.say("Some UK and Canadian postcodes come with country prefixes and spaces, up to 23 characters. I'll use String(32) "
          "rather than truncating them.")
    s.edit("migrations/versions/5f2a_split_address.py", "sa.String(16)", "sa.String(32)")
    s.run("alembic downgrade 3c1d && alembic upgrade head", "INFO  [alembic.runtime.migration] Running downgrade 5f2a -> 3c1d\n"
          "INFO  [alembic.runtime.migration] Running upgrade 3c1d -> 5f2a, split address\nBackfilled 2,412,907 rows in 483 batches (7m12s)")
    s.user("Nice. That's it for today, I'll review tomorrow.")
    s.say("Summary for tomorrow: migration 5f2a applies on a copy of prod in 7m12s; postcode is String(32).")
    work_rounds(s, 112, ["crm/models/customer.py", "crm/services/addresses.py"], ["tests/test_customer.py", "tests/test_addresses.py"], 13)
    s.user("Day 3. Review done: reviewers want the backfill outside the migration, as a management command, so deploys are fast.")
    s.write("crm/management/commands/backfill_addresses.py", "class Command(BaseCommand):\n    help = 'Backfill split address columns'\n\n"
            "    def handle(self, *args, batch_size=5000, **options):\n        ...\n")
    s.edit("migrations/versions/5f2a_split_address.py", "    backfill_addresses(batch_size=5000)\n", "")
    s.run("python manage.py backfill_addresses --batch-size 5000 --dry-run", "Would backfill 2,412,907 rows in 483 batches")
    s.run("pytest -q tests/migrations", out.pytest_run([("tests/migrations/test_5f2a.py::test_upgrade", "PASSED"),
                                                       ("tests/migrations/test_5f2a.py::test_downgrade", "PASSED"),
                                                       ("tests/migrations/test_backfill.py::test_batches", "FAILED")],
                                                      {"tests/migrations/test_backfill.py::test_batches": (
                                                          ">       assert command.batches == 483", "AssertionError: assert 484 == 483")},
                                                      seconds=4.02), exit_code=1)
    s.say("Off by one: the command counts a final empty batch. I'll stop when a batch returns fewer rows than batch_size.")
    s.edit("crm/management/commands/backfill_addresses.py", "while True:", "while rows == batch_size:")
    s.run("pytest -q tests/migrations", out.pytest_run([("tests/migrations/test_5f2a.py::test_upgrade", "PASSED"),
                                                       ("tests/migrations/test_5f2a.py::test_downgrade", "PASSED"),
                                                       ("tests/migrations/test_backfill.py::test_batches", "PASSED")], seconds=3.88))
    for n in range(6):
        s.user(f"Update the runbook step {n}.")
        s.edit("docs/runbook.md", f"step {n}", f"step {n} (run backfill_addresses after deploy)")
        s.say("Updated.")
    return s


def change_of_direction() -> Session:
    """The user changes the plan twice: redis cache, then an in-process LRU, then only profiling."""
    s = Session("hermes", workdir="/home/tom/recs")
    s.user("The /recommendations endpoint takes 1.8 s. Add a Redis cache in front of compute_recommendations() with a 10 minute TTL.")
    s.read("recs/service.py", "def compute_recommendations(user_id: int) -> list[int]:\n    history = load_history(user_id)\n"
           "    return rank(similar_items(history))[:20]\n")
    s.run("pip install redis==5.0.4", out.pip_install([("redis", "5.0.4", 0.3)], random.Random(12)))
    s.write("recs/cache.py", "import redis\n\nclient = redis.Redis.from_url(REDIS_URL)\n\ndef cached(ttl=600):\n    ...\n")
    s.user("Actually, forget Redis: ops won't give us a Redis for this service. Use an in-process LRU with functools instead.")
    s.say("Switching from Redis to functools.lru_cache; I'll remove recs/cache.py and the redis dependency.")
    s.run("pip uninstall -y redis && rm recs/cache.py", "Found existing installation: redis 5.0.4\nUninstalling redis-5.0.4:\n  Successfully uninstalled redis-5.0.4")
    s.edit("recs/service.py", "def compute_recommendations(user_id: int) -> list[int]:",
           "@lru_cache(maxsize=4096)\ndef compute_recommendations(user_id: int) -> tuple[int, ...]:")
    s.run("pytest -q tests/test_service.py", out.pytest_run([("tests/test_service.py::test_top20", "PASSED"),
                                                            ("tests/test_service.py::test_returns_list", "FAILED")],
                                                           {"tests/test_service.py::test_returns_list": (
                                                               ">       assert isinstance(compute_recommendations(7), list)",
                                                               "AssertionError: assert False")}, seconds=0.7), exit_code=1)
    work_rounds(s, 113, ["recs/service.py", "recs/similarity.py", "recs/history.py"], ["tests/test_service.py", "tests/test_similarity.py"], 10)
    s.user("Hmm, never mind the cache for now. First profile the endpoint so we know where the 1.8 s go.")
    s.say("Stopping the cache work and reverting recs/service.py; profiling first.")
    s.run("git checkout recs/service.py", "Updated 1 path from the index")
    s.run("python -m cProfile -s cumtime -m recs.bench --user 7 | head -15",
          "         2412093 function calls in 1.812 seconds\n\n   Ordered by: cumulative time\n\n"
          "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
          "        1    0.000    0.000    1.812    1.812 service.py:4(compute_recommendations)\n"
          "        1    0.004    0.004    1.531    1.531 similarity.py:22(similar_items)\n"
          "   184220    1.302    0.000    1.302    0.000 similarity.py:40(cosine)\n"
          "        1    0.211    0.211    0.211    0.211 history.py:9(load_history)\n")
    s.say("similar_items() takes 1.531 s of the 1.812 s, almost all in 184220 calls to cosine() in recs/similarity.py:40. "
          "Vectorising cosine with numpy would remove most of it; load_history is 0.211 s.")
    s.user("Vectorise it, keep results identical.")
    s.edit("recs/similarity.py", "return [cosine(v, w) for w in matrix]", "return (matrix @ v) / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(v))")
    s.run("python -m recs.bench --user 7 --repeat 20", "compute_recommendations: median 0.284 s, p95 0.301 s (20 runs)")
    s.run("pytest -q", out.pytest_run([(f"tests/test_similarity.py::test_{n}", "PASSED") for n in range(14)], seconds=1.9))
    s.say("Median 0.284 s now (was 1.812 s); the 14 similarity tests pass with identical rankings.")
    for n in range(5):
        s.user(f"And for user {100 + n}?")
        s.run(f"python -m recs.bench --user {100 + n}", f"compute_recommendations: median 0.2{80 + n} s")
        s.say("Similar.")
    return s


def german_turns() -> Session:
    """A bug fix with the user writing German."""
    s = Session("openhands", workdir="/workspace/kalender")
    s.user("Der Export nach iCal verschiebt alle Termine um eine Stunde, seit wir auf Sommerzeit umgestellt haben. "
           "Bitte finde den Fehler in kalender/export/ical.py und behebe ihn. Keine neuen Abhängigkeiten!")
    s.read("kalender/export/ical.py", "def to_ical(event):\n    start = event.start.replace(tzinfo=timezone.utc)\n"
           "    return f'DTSTART:{start:%Y%m%dT%H%M%SZ}'\n")
    s.run("python -m pytest -q tests/test_ical.py", out.pytest_run([("tests/test_ical.py::test_winter", "PASSED"),
                                                                   ("tests/test_ical.py::test_summer_time", "FAILED")],
                                                                  {"tests/test_ical.py::test_summer_time": (
                                                                      ">       assert to_ical(ev) == 'DTSTART:20250615T080000Z'",
                                                                      "AssertionError: assert 'DTSTART:20250615T100000Z' == 'DTSTART:20250615T080000Z'")},
                                                                  seconds=0.2), exit_code=1)
    s.say("Die Ursache: event.start ist eine naive Ortszeit (Europe/Berlin), wird aber mit replace(tzinfo=timezone.utc) als UTC "
          "markiert statt umgerechnet. Im Sommer (UTC+2) liegt der Termin dann zwei Stunden falsch, im Winter eine.")
    s.user("Verstehe. Nimm zoneinfo aus der Standardbibliothek, die Zeitzone steht in settings.TIME_ZONE.")
    s.edit("kalender/export/ical.py", "start = event.start.replace(tzinfo=timezone.utc)",
           "start = event.start.replace(tzinfo=ZoneInfo(settings.TIME_ZONE)).astimezone(timezone.utc)")
    s.run("python -m pytest -q tests/test_ical.py", out.pytest_run([("tests/test_ical.py::test_winter", "PASSED"),
                                                                   ("tests/test_ical.py::test_summer_time", "PASSED")], seconds=0.2))
    work_rounds(s, 114, ["kalender/export/ical.py", "kalender/models.py"], ["tests/test_ical.py", "tests/test_models.py"], 9)
    s.user("Super. Gibt es noch andere Stellen mit replace(tzinfo=timezone.utc)?")
    s.run("grep -rn 'replace(tzinfo=timezone.utc)' kalender", "kalender/export/csv.py:14:    ts = row.created.replace(tzinfo=timezone.utc)\n"
          "kalender/api/serializers.py:58:        return value.replace(tzinfo=timezone.utc).isoformat()")
    s.say("Ja, zwei: kalender/export/csv.py:14 und kalender/api/serializers.py:58.")
    s.user("Die in serializers.py ist richtig, dort sind die Werte schon UTC. Korrigiere nur csv.py.")
    s.edit("kalender/export/csv.py", "ts = row.created.replace(tzinfo=timezone.utc)",
           "ts = row.created.replace(tzinfo=ZoneInfo(settings.TIME_ZONE)).astimezone(timezone.utc)")
    s.run("python -m pytest -q", out.pytest_run([(f"tests/test_{m}.py::test_{n}", "PASSED") for m in ("ical", "csv", "api") for n in range(9)],
                                                seconds=2.4))
    for n in range(5):
        s.user(f"Danke! Noch eine Frage {n}: läuft der Nachtjob?")
        s.say("Ja, der Nachtjob lief um 02:00 erfolgreich.")
    return s


def french_spanish_mixed() -> Session:
    """A CSV import bug, the user switching between French and Spanish."""
    s = Session("sweagent", workdir="/repo")
    s.user("L'import CSV plante sur les fichiers exportés par Excel en France (séparateur point-virgule, virgule décimale). "
           "Corrige csvimport/reader.py pour détecter le séparateur.")
    s.run("python -m csvimport samples/ventes_fr.csv", out.traceback([
        ("/repo/csvimport/__main__.py", 12, "<module>", "main(sys.argv[1])"),
        ("/repo/csvimport/reader.py", 33, "read_rows", "amount = float(row['montant'])")],
        "KeyError: 'montant'"), exit_code=1)
    s.run("head -3 samples/ventes_fr.csv", "date;client;montant\n03/02/2025;Dupont SARL;1 234,50\n04/02/2025;Martin & Fils;98,00")
    s.say("The file uses ';' and '1 234,50' style numbers. I'll sniff the delimiter with csv.Sniffer and parse amounts with the locale rules.")
    s.edit("csvimport/reader.py", "reader = csv.DictReader(handle)",
           "dialect = csv.Sniffer().sniff(handle.read(4096), delimiters=';,\\t')\n    handle.seek(0)\n    reader = csv.DictReader(handle, dialect=dialect)")
    s.edit("csvimport/reader.py", "amount = float(row['montant'])", "amount = parse_amount(row['montant'])")
    s.run("python -m csvimport samples/ventes_fr.csv", "Imported 2 rows (total 1 332,50 EUR)")
    work_rounds(s, 115, ["csvimport/reader.py", "csvimport/amounts.py"], ["tests/test_reader.py"], 8)
    s.user("Perfecto. Ahora prueba también con el archivo de España, samples/ventas_es.csv, que usa tabuladores.")
    s.run("python -m csvimport samples/ventas_es.csv", "ValueError: could not convert string to float: '1.234,50'", exit_code=1)
    s.say("Spanish files use '.' as the thousands separator. parse_amount() only removed spaces; I'll remove '.' when a ',' follows it.")
    s.edit("csvimport/reader.py", "text = text.replace(' ', '')", "text = text.replace(' ', '').replace('\\u202f', '')\n"
           "    if ',' in text:\n        text = text.replace('.', '').replace(',', '.')")
    s.run("python -m csvimport samples/ventas_es.csv", "Imported 3 rows (total 4 861,75 EUR)")
    s.run("python -m pytest -q", out.pytest_run([(f"tests/test_reader.py::test_{n}", "PASSED") for n in range(11)], seconds=0.5))
    for n in range(5):
        s.user(f"Merci ! Et le fichier numéro {n} ?")
        s.run(f"python -m csvimport samples/batch_{n}.csv", f"Imported {10 + n} rows")
        s.say("Importé.")
    return s


def japanese_frontend() -> Session:
    """A React component test failing under jest, with Japanese turns."""
    rng = random.Random(14)
    s = Session("claude", workdir="/Users/yuki/dashboard")
    s.user("ダッシュボードの日付ピッカーのテストが失敗しています。src/components/DatePicker.tsx を直してください。"
           "表示は必ず日本語ロケール（ja-JP）で。")
    suites = [("src/components/DatePicker.test.tsx", [("renders today's date", False, 31), ("opens on click", True, 12),
                                                     ("formats as YYYY年M月D日", False, 9)])]
    suites += [(f"src/components/Widget{n}.test.tsx", [(f"widget {n} renders", True, rng.randint(4, 30))]) for n in range(12)]
    s.run("npx jest", out.jest_run(suites, {
        "renders today's date": "expect(screen.getByText('2025年3月14日')).toBeInTheDocument()\n\nUnable to find an element with the text: 2025年3月14日",
        "formats as YYYY年M月D日": "Expected: \"2025年3月14日\"\nReceived: \"3/14/2025\""}, 6.402), exit_code=1)
    s.read("src/components/DatePicker.tsx", "export function DatePicker({ value }: Props) {\n"
           "  const label = value.toLocaleDateString();\n  return <button>{label}</button>;\n}")
    s.say("toLocaleDateString() はロケールを指定していないので、テスト環境（en-US）の形式になります。'ja-JP' を明示します。")
    s.edit("src/components/DatePicker.tsx", "value.toLocaleDateString()",
           "value.toLocaleDateString('ja-JP', { year: 'numeric', month: 'long', day: 'numeric' })")
    suites[0] = ("src/components/DatePicker.test.tsx", [("renders today's date", True, 28), ("opens on click", True, 11),
                                                        ("formats as YYYY年M月D日", True, 8)])
    s.run("npx jest", out.jest_run(suites, {}, 6.118))
    work_rounds(s, 116, ["scripts/locale_audit.py"], ["scripts/test_locale_audit.py"], 6)
    s.user("ありがとう。タイムゾーンも Asia/Tokyo 固定にできますか？")
    s.edit("src/components/DatePicker.tsx", "month: 'long', day: 'numeric' }", "month: 'long', day: 'numeric', timeZone: 'Asia/Tokyo' }")
    s.run("TZ=UTC npx jest src/components/DatePicker.test.tsx", out.jest_run(suites[:1], {}, 1.9))
    s.say("Asia/Tokyo に固定しました。TZ=UTC でも 3 件のテストが通ります。")
    for n in range(5):
        s.user(f"ウィジェット{n}も確認してください。")
        s.say("問題ありません。")
    return s


def chinese_docs() -> Session:
    """Writing docs with mkdocs; Chinese turns; build warnings."""
    s = Session("openhands", workdir="/workspace/sdk-docs")
    s.user("请把 SDK 的快速入门文档翻译成中文，放在 docs/zh/quickstart.md，并确保 mkdocs build --strict 没有警告。")
    s.read("docs/en/quickstart.md", "# Quickstart\n\nInstall with `pip install acme-sdk==4.2.0`.\n\n```python\nfrom acme import Client\n"
           "client = Client(api_base='https://api.acme.dev/v2')\n```\n\nSee [Authentication](auth.md).\n")
    s.write("docs/zh/quickstart.md", "# 快速入门\n\n使用 `pip install acme-sdk==4.2.0` 安装。\n\n```python\nfrom acme import Client\n"
            "client = Client(api_base='https://api.acme.dev/v2')\n```\n\n参见[认证](auth.md)。\n")
    s.run("mkdocs build --strict", "INFO    -  Cleaning site directory\nINFO    -  Building documentation to directory: /workspace/sdk-docs/site\n"
          "WARNING -  Doc file 'zh/quickstart.md' contains a link 'auth.md', but the target 'zh/auth.md' is not found among documentation files.\n"
          "WARNING -  A reference to 'zh/quickstart.md' is included in the 'nav' configuration, but this file is excluded.\n\n"
          "Aborted with 2 warnings in strict mode!", exit_code=1)
    s.say("两个警告：zh/auth.md 不存在；mkdocs.yml 的 exclude_docs 排除了 zh/ 目录。我会链接到英文版 ../en/auth.md，并从 exclude_docs 中删除 zh/。")
    s.edit("docs/zh/quickstart.md", "参见[认证](auth.md)。", "参见[认证](../en/auth.md)（英文）。")
    s.edit("mkdocs.yml", "exclude_docs: |\n  zh/\n", "")
    s.run("mkdocs build --strict", "INFO    -  Cleaning site directory\nINFO    -  Documentation built in 1.37 seconds")
    work_rounds(s, 117, ["docs/hooks.py", "docs/gen_api.py"], ["tests/test_hooks.py"], 7)
    s.user("很好。以后所有中文页面都用简体字，术语表在 docs/zh/glossary.md。")
    s.write("docs/zh/glossary.md", "| English | 中文 |\n|---|---|\n| client | 客户端 |\n| token | 令牌 |\n")
    for n in range(6):
        s.user(f"第{n}页也检查一下。")
        s.run("mkdocs build --strict", "INFO    -  Documentation built in 1.4 seconds")
        s.say("没有警告。")
    return s


def spanish_sql() -> Session:
    """A reporting query fixed in Postgres, Spanish turns."""
    s = Session("hermes", workdir="/home/lucia/reportes")
    s.user("El informe mensual de ventas da totales duplicados desde que añadimos la tabla de devoluciones. "
           "Arregla la consulta en sql/ventas_mensuales.sql. No cambies el esquema.")
    s.read("sql/ventas_mensuales.sql", "SELECT date_trunc('month', v.fecha) AS mes, sum(v.importe) AS total\nFROM ventas v\n"
           "LEFT JOIN devoluciones d ON d.venta_id = v.id\nGROUP BY 1;")
    s.run("psql reportes -f sql/ventas_mensuales.sql", "   mes    |   total\n------------+-----------\n 2025-01-01 | 184210.40\n"
          " 2025-02-01 | 231877.15\n(2 rows)")
    s.run("psql reportes -c \"select sum(importe) from ventas where fecha >= '2025-02-01' and fecha < '2025-03-01'\"",
          "    sum\n-----------\n 198402.35\n(1 row)")
    s.say("The LEFT JOIN multiplies each sale by its number of returns: February shows 231877.15 instead of 198402.35. "
          "I'll aggregate the returns in a subquery before joining.")
    s.edit("sql/ventas_mensuales.sql", "LEFT JOIN devoluciones d ON d.venta_id = v.id",
           "LEFT JOIN (SELECT venta_id, sum(importe) AS devuelto FROM devoluciones GROUP BY venta_id) d ON d.venta_id = v.id")
    s.run("psql reportes -f sql/ventas_mensuales.sql", "ERROR:  column \"d.importe\" must appear in the GROUP BY clause or be used in an aggregate function\n"
          "LINE 1: ...total, sum(v.importe - d.importe) AS neto", exit_code=1)
    s.edit("sql/ventas_mensuales.sql", "sum(v.importe - d.importe) AS neto", "sum(v.importe - coalesce(d.devuelto, 0)) AS neto")
    s.run("psql reportes -f sql/ventas_mensuales.sql", "   mes    |   total   |   neto\n------------+-----------+-----------\n"
          " 2025-01-01 | 170113.90 | 165980.10\n 2025-02-01 | 198402.35 | 192118.75\n(2 rows)")
    work_rounds(s, 118, ["reportes/export.py", "reportes/queries.py"], ["tests/test_export.py"], 8)
    s.user("¡Perfecto! ¿Puedes añadir una prueba con pgTAP?")
    s.write("tests/ventas_mensuales_test.sql", "SELECT plan(1);\nSELECT results_eq('SELECT total FROM ventas_mensuales WHERE mes = ''2025-02-01''', "
            "ARRAY[198402.35]);\nSELECT * FROM finish();")
    s.run("pg_prove -d reportes tests/ventas_mensuales_test.sql", "tests/ventas_mensuales_test.sql .. ok\nAll tests successful.\n"
          "Files=1, Tests=1,  0 wallclock secs ( 0.01 usr  0.00 sys +  0.02 cusr  0.01 csys =  0.04 CPU)\nResult: PASS")
    for n in range(5):
        s.user(f"Gracias. ¿Y el informe trimestral {n}?")
        s.say("El informe trimestral usa la misma consulta corregida.")
    return s


def secrets_rotation() -> Session:
    """Rotating a leaked key: secrets appear in files and commands (masked and unmasked)."""
    s = Session("claude", workdir="/home/sam/payments")
    s.user("We leaked STRIPE_SECRET_KEY in a public gist. Rotate it: new key is in 1Password. Update .env.production and the "
           "k8s secret, then check nothing else references the old key.")
    s.read(".env.production", "STRIPE_SECRET_KEY=sk_live_51HqX2bLkQ9aTz7W3mN8pR4sV6yU1cE5dG\nSTRIPE_WEBHOOK_SECRET=whsec_9f8e7d6c5b4a3f2e1d0c9b8a\n"
           "DATABASE_URL=postgres://payments:Xk29!pLm@db.internal:5432/payments\n")
    s.run("rg -n 'sk_live_51HqX2b' --hidden", ".env.production:1:STRIPE_SECRET_KEY=sk_live_51HqX2bLkQ9aTz7W3mN8pR4sV6yU1cE5dG\n"
          "scripts/backfill_refunds.py:9:stripe.api_key = 'sk_live_51HqX2bLkQ9aTz7W3mN8pR4sV6yU1cE5dG'")
    s.say("Two references: .env.production and a hard-coded key in scripts/backfill_refunds.py:9. I'll read the key from the "
          "environment in the script instead of replacing the literal.")
    s.edit("scripts/backfill_refunds.py", "stripe.api_key = 'sk_live_51HqX2bLkQ9aTz7W3mN8pR4sV6yU1cE5dG'",
           "stripe.api_key = os.environ['STRIPE_SECRET_KEY']")
    s.run("kubectl -n prod create secret generic payments-stripe --from-literal=STRIPE_SECRET_KEY=sk_live_51NEWk3yR0tat3dQ8wE2rT6yU9iO4pA --dry-run=client -o yaml | kubectl apply -f -",
          "secret/payments-stripe configured")
    s.run("kubectl -n prod rollout restart deploy/payments-api && kubectl -n prod rollout status deploy/payments-api",
          "deployment.apps/payments-api restarted\ndeployment \"payments-api\" successfully rolled out")
    s.run("curl -s -o /dev/null -w '%{http_code}' https://payments.acme.dev/healthz", "200")
    s.say("Rotated: the k8s secret payments-stripe is updated, payments-api restarted and /healthz returns 200. "
          "The old key still needs to be revoked in the Stripe dashboard.")
    work_rounds(s, 119, ["payments/stripe_client.py", "payments/webhooks.py"], ["tests/test_webhooks.py"], 10)
    s.user("Revoked it. Also the DB password in .env.production is weak, is it in git history?")
    s.run("git log -p -S 'Xk29!pLm' --oneline | head -5", "a91c3e2 Add production env template\n+DATABASE_URL=postgres://payments:Xk29!pLm@db.internal:5432/payments")
    s.say("Yes, commit a91c3e2 added it. Rewriting history would not remove it from existing clones; rotating the DB password "
          "is the fix.")
    for n in range(5):
        s.user(f"Check service {n} still connects.")
        s.run(f"kubectl -n prod exec deploy/worker-{n} -- python -c 'import db; db.ping()'", "pong")
        s.say("Connected.")
    return s


def perf_tuning() -> Session:
    """Measuring and tuning an HTTP service: numbers with units throughout."""
    s = Session("hermes", workdir="/home/raj/search")
    s.user("Search p99 latency went from 120 ms to 480 ms after last week's release. Find the regression; target p99 < 150 ms at 800 rps.")
    s.run("wrk -t4 -c64 -d30s --latency http://localhost:8080/search?q=shoes",
          "Running 30s test @ http://localhost:8080/search?q=shoes\n  4 threads and 64 connections\n  Latency Distribution\n"
          "     50%   41.22ms\n     75%   88.10ms\n     90%  301.45ms\n     99%  478.90ms\n  24012 requests in 30.02s, 98.31MB read\n"
          "Requests/sec:    799.87\nTransfer/sec:      3.27MB")
    s.run("git log --oneline v3.8.0..v3.9.0", "b77d1aa Use fuzzy matching for product names\n1c0f9e3 Log every query with its parameters\n"
          "e52a410 Upgrade elasticsearch client to 8.13.0")
    s.run("py-spy dump --pid $(pgrep -f search-api)", "Thread 0x7F3A (active): \"MainThread\"\n    fuzzy_score (search/ranking.py:61)\n"
          "    rank_results (search/ranking.py:30)\n    handle_search (search/api.py:44)\n" * 3)
    s.read("search/ranking.py", "def fuzzy_score(query, name):\n    return max(ratio(query, token) for token in tokenize(name))\n", offset=55)
    s.say("fuzzy_score() runs for every hit: 500 hits × ~12 tokens per query, each a Levenshtein ratio in pure Python. "
          "I'll apply fuzzy matching only to the top 50 hits by BM25 instead of all 500.")
    s.edit("search/ranking.py", "for hit in hits:", "for hit in hits[:FUZZY_TOP_N]:")
    s.run("wrk -t4 -c64 -d30s --latency http://localhost:8080/search?q=shoes",
          "  Latency Distribution\n     50%   22.87ms\n     75%   35.60ms\n     90%   71.02ms\n     99%  138.44ms\n"
          "  24031 requests in 30.01s, 98.40MB read\nRequests/sec:    800.63")
    s.say("p99 is 138.44 ms at 800.63 rps, under the 150 ms target.")
    work_rounds(s, 120, ["search/ranking.py", "search/api.py", "search/tokenize.py"], ["tests/test_ranking.py", "tests/test_api.py"], 14)
    s.user("What about the logging commit, does it cost anything?")
    s.run("wrk -t4 -c64 -d30s --latency http://localhost:8080/search?q=shoes -H 'X-Log-Level: warn'",
          "     99%  131.02ms\nRequests/sec:    801.12")
    s.say("Logging every query costs about 7 ms at p99 (138.44 ms vs 131.02 ms); not the regression, but worth sampling at 10%.")
    for n in range(5):
        s.user(f"Run query set {n}.")
        s.run(f"python bench/queries.py --set {n}", f"set {n}: p99 {130 + n}.5 ms")
        s.say("Fine.")
    return s


def data_pipeline() -> Session:
    """A pandas pipeline failing on a schema change, with row counts, sizes and timings."""
    s = Session("sweagent", workdir="/repo")
    s.user("The nightly ETL (etl/daily_orders.py) crashed last night. Fix it and make it robust to the new export format.")
    s.run("python etl/daily_orders.py --date 2025-05-03", out.traceback([
        ("/repo/etl/daily_orders.py", 88, "<module>", "main()"),
        ("/repo/etl/daily_orders.py", 71, "main", "df = normalise(raw)"),
        ("/repo/etl/daily_orders.py", 40, "normalise", "df['order_total'] = df['total_cents'] / 100"),
        ("/usr/lib/python3.11/site-packages/pandas/core/frame.py", 4090, "__getitem__", "indexer = self.columns.get_loc(key)")],
        "KeyError: 'total_cents'"), exit_code=1)
    s.run("python -c \"import pandas as pd; print(pd.read_parquet('exports/orders_2025-05-03.parquet').dtypes)\"",
          "order_id              int64\ncustomer_id           int64\ntotal_amount        float64\ncurrency             object\n"
          "created_at    datetime64[ns, UTC]\ndtype: object")
    s.say("The export switched from total_cents (int) to total_amount (float, in currency units) on 2025-05-03. "
          "I'll accept both columns instead of failing on the new one.")
    s.edit("etl/daily_orders.py", "df['order_total'] = df['total_cents'] / 100",
           "if 'total_amount' in df:\n        df['order_total'] = df['total_amount']\n    else:\n        df['order_total'] = df['total_cents'] / 100")
    s.run("python etl/daily_orders.py --date 2025-05-03", "Read 1,284,113 rows (212.4 MB) in 8.3 s\nWrote 1,284,113 rows to warehouse.orders_daily in 41.7 s")
    s.run("python etl/daily_orders.py --date 2025-05-02", "Read 1,190,002 rows (198.1 MB) in 7.9 s\nWrote 1,190,002 rows to warehouse.orders_daily in 39.2 s")
    work_rounds(s, 121, ["etl/daily_orders.py", "etl/schema.py"], ["tests/test_daily_orders.py"], 12)
    s.user("Also add a check that fails loudly if more than 1% of rows have a null currency.")
    s.edit("etl/daily_orders.py", "    return df\n", "    null_share = df['currency'].isna().mean()\n    if null_share > 0.01:\n"
           "        raise ValueError(f'{null_share:.1%} of rows have no currency')\n    return df\n")
    s.run("python etl/daily_orders.py --date 2025-05-03", "ValueError: 2.7% of rows have no currency", exit_code=1)
    s.say("2.7% of the 2025-05-03 rows have no currency: the new export leaves it empty for gift-card orders. "
          "That needs a decision: default to EUR for gift cards, or exclude them?")
    s.user("Default to EUR for gift cards (payment_method == 'gift_card'), everything else must fail.")
    s.edit("etl/daily_orders.py", "    null_share = df['currency'].isna().mean()",
           "    gift = df['payment_method'] == 'gift_card'\n    df.loc[gift & df['currency'].isna(), 'currency'] = 'EUR'\n"
           "    null_share = df['currency'].isna().mean()")
    s.run("python etl/daily_orders.py --date 2025-05-03", "Read 1,284,113 rows (212.4 MB) in 8.4 s\nWrote 1,284,113 rows to warehouse.orders_daily in 42.0 s")
    for n in range(5):
        s.user(f"Backfill 2025-04-2{n} too.")
        s.run(f"python etl/daily_orders.py --date 2025-04-2{n}", f"Wrote {1100000 + n * 1000} rows")
        s.say("Done.")
    return s


def interrupted_mid_work() -> Session:
    """Cut while a build is still running, with an unresolved error."""
    s = Session("hermes", workdir="/home/eli/firmware")
    s.user("Build the firmware for the rev-C board and flash it to /dev/ttyACM0. The bootloader must not be overwritten.")
    s.run("make BOARD=revc", "arm-none-eabi-gcc -mcpu=cortex-m4 -O2 -c src/main.c -o build/main.o\n"
          "src/drivers/adc.c:112:5: error: implicit declaration of function 'HAL_ADCEx_Calibration_Start'\n"
          "make: *** [Makefile:64: build/adc.o] Error 1", exit_code=2)
    s.run("grep -rn 'HAL_ADCEx_Calibration_Start' vendor/", "vendor/stm32l4xx_hal/Inc/stm32l4xx_hal_adc_ex.h:201:HAL_StatusTypeDef "
          "HAL_ADCEx_Calibration_Start(ADC_HandleTypeDef *hadc, uint32_t SingleDiff);")
    s.edit("src/drivers/adc.c", "#include \"stm32l4xx_hal_adc.h\"", "#include \"stm32l4xx_hal_adc.h\"\n#include \"stm32l4xx_hal_adc_ex.h\"")
    s.run("make BOARD=revc", "src/drivers/adc.c:112:5: error: too few arguments to function 'HAL_ADCEx_Calibration_Start'\n"
          "make: *** [Makefile:64: build/adc.o] Error 1", exit_code=2)
    s.say("The rev-C HAL takes a second argument, SingleDiff; passing ADC_SINGLE_ENDED like the rev-B code path does.")
    s.edit("src/drivers/adc.c", "HAL_ADCEx_Calibration_Start(&hadc1);", "HAL_ADCEx_Calibration_Start(&hadc1, ADC_SINGLE_ENDED);")
    work_rounds(s, 122, ["tools/flash.py", "tools/elfsize.py"], ["tools/test_elfsize.py"], 6)
    s.user("Also: the flash offset is 0x08008000 on rev-C, the bootloader is below that.")
    s.pending("make BOARD=revc && st-flash --reset write build/firmware.bin 0x08008000",
              note="Rebuilding and flashing at 0x08008000, above the bootloader.")
    return s


def big_refactor_long() -> Session:
    """A long session (hundreds of messages) splitting a monolith module into a package."""
    rng = random.Random(21)
    s = Session("claude", workdir="/home/noor/ledger")
    s.user("ledger/core.py is 4,800 lines. Split it into a package ledger/core/ with one module per concern "
           "(accounts, journal, posting, reports, fx). No behaviour change: the 612 tests must pass after every step.")
    concerns = ["accounts", "journal", "posting", "reports", "fx"]
    s.todo([(f"Move {c} into ledger/core/{c}.py", "pending") for c in concerns])
    total_tests = 612
    for step, concern in enumerate(concerns):
        functions = [f"{verb}_{concern}" for verb in ("create", "load", "validate", "close", "export", "merge")]
        s.search(f"def .*{concern}", [("ledger/core.py", 100 + 37 * n, f"def {f}(") for n, f in enumerate(functions)])
        for part in range(6):
            s.read("ledger/core.py", out.python_module(concern, functions[part:part + 2], rng, ["decimal", "datetime"]),
                   offset=100 + 200 * part)
        s.write(f"ledger/core/{concern}.py", out.python_module(concern, functions, rng, ["decimal"]))
        for function in functions:
            s.edit("ledger/core.py", f"def {function}(", f"# moved to ledger/core/{concern}.py: {function}\ndef _old_{function}(")
        broken = step in (1, 3)
        tests = [(f"tests/test_{c}.py::test_{c}_{n}", "PASSED") for c in concerns for n in range(total_tests // 5)]
        failures = {}
        if broken:
            node = f"tests/test_{concern}.py::test_{concern}_7"
            tests[[t[0] for t in tests].index(node)] = (node, "FAILED")
            failures[node] = (f">       assert {concern}.close_{concern}(entry).balance == Decimal('0.00')",
                              f"ImportError: cannot import name '_round_half_even' from partially initialized module 'ledger.core.{concern}' "
                              "(most likely due to a circular import)")
        s.run("pytest -q -x -n 4", out.pytest_run(tests, failures, seconds=rng.uniform(40, 70), root="/home/noor/ledger"),
              exit_code=1 if broken else 0)
        if broken:
            s.say(f"Circular import: ledger/core/{concern}.py imports _round_half_even from ledger.core.posting, which imports "
                  f"{concern}. I'll move the rounding helpers into ledger/core/money.py, which imports nothing from the package.")
            s.write("ledger/core/money.py", "from decimal import ROUND_HALF_EVEN, Decimal\n\n\ndef _round_half_even(value: Decimal) -> Decimal:\n"
                    "    return value.quantize(Decimal('0.01'), rounding=ROUND_HALF_EVEN)\n")
            s.run("pytest -q -x -n 4", out.pytest_run([(t, "PASSED") for t, _o in tests], seconds=rng.uniform(40, 70)))
        s.todo([(f"Move {c} into ledger/core/{c}.py", "completed" if i <= step else "pending") for i, c in enumerate(concerns)])
        s.say(f"Step {step + 1}/5 done: {concern} moved, {total_tests} tests pass.")
        if step == 2:
            s.user("Looks good so far. Keep `from ledger.core import X` working for every public name, we have external users.")
            s.say("I'll re-export every public name from ledger/core/__init__.py instead of asking users to change imports.")
    work_rounds(s, 123, ["ledger/core/accounts.py", "ledger/core/journal.py", "ledger/core/fx.py"], ["tests/test_accounts.py", "tests/test_fx.py"], 18)
    s.write("ledger/core/__init__.py", "\n".join(f"from ledger.core.{c} import *  # noqa: F403" for c in concerns))
    s.run("git rm ledger/core.py && pytest -q -n 4", out.pytest_run([(f"tests/test_{c}.py::test_{c}_{n}", "PASSED") for c in concerns
                                                                    for n in range(total_tests // 5)], seconds=52.3))
    s.run("python -c 'import ledger.core as c; print(len([n for n in dir(c) if not n.startswith(\"_\")]))'", "147")
    s.say("Done: ledger/core/ has accounts, journal, posting, reports, fx and money; 147 public names are re-exported; "
          "610 tests pass (two were duplicated in the old module and removed).")
    for n in range(8):
        s.user(f"Any docstring missing in module {n}?")
        s.say("No.")
    return s
