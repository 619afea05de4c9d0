"""Tool output in the shapes real tools print: test runners, compilers, CI logs, package managers, git.

Each function is deterministic for its arguments (a seeded ``random.Random`` where variety helps).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

PYTEST_HEADER = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.12.3, pytest-8.2.1, pluggy-1.5.0{verbose}\n"
    "rootdir: {root}\n"
    "configfile: pyproject.toml\n"
    "plugins: anyio-4.4.0, cov-5.0.0, xdist-3.6.1\n"
    "collected {count} items\n"
)


def pytest_run(
    tests: Sequence[tuple[str, str]],
    failures: dict[str, tuple[str, str]] | None = None,
    *,
    verbose: bool = False,
    root: str = "/home/dev/project",
    seconds: float = 3.21,
    warnings: int = 0,
) -> str:
    """A pytest run. ``tests`` are (node id, outcome) with outcome PASSED/FAILED/SKIPPED/ERROR;
    ``failures`` maps a failing node id to (the source lines of its traceback, the error line)."""
    failures = failures or {}
    out = [PYTEST_HEADER.format(verbose=" -- /usr/bin/python3" if verbose else "", root=root, count=len(tests))]
    total = len(tests)
    if verbose:
        for position, (node, outcome) in enumerate(tests, 1):
            out.append(f"{node} {outcome:<8} [{round(100 * position / total):>3}%]".ljust(70))
    else:
        by_file: dict[str, list[str]] = {}
        for node, outcome in tests:
            letter = {"PASSED": ".", "FAILED": "F", "SKIPPED": "s", "ERROR": "E"}[outcome]
            by_file.setdefault(node.split("::", 1)[0], []).append(letter)
        done = 0
        for path, letters in by_file.items():
            done += len(letters)
            out.append(f"{path} {''.join(letters)}".ljust(72) + f"[{round(100 * done / total):>3}%]")
    failed = [node for node, outcome in tests if outcome == "FAILED"]
    errors = [node for node, outcome in tests if outcome == "ERROR"]
    if failed or errors:
        out.append("\n=================================== FAILURES ===================================")
        for node in failed + errors:
            source, error = failures.get(node, ("    assert result == expected", "AssertionError"))
            name = node.split("::")[-1]
            path = node.split("::", 1)[0]
            out.append(f"_{'_' * 20} {name} {'_' * 20}\n")
            out.append(source)
            out.append(f"E       {error}")
            out.append(f"\n{path}:{17 + len(name)}: {error.split(':', 1)[0]}")
        out.append("=========================== short test summary info ============================")
        for node in failed:
            out.append(f"FAILED {node} - {failures.get(node, ('', 'AssertionError'))[1]}")
        for node in errors:
            out.append(f"ERROR {node} - {failures.get(node, ('', 'Exception'))[1]}")
    counts = []
    for label, outcome in (("failed", "FAILED"), ("passed", "PASSED"), ("skipped", "SKIPPED"), ("errors", "ERROR")):
        number = sum(1 for _node, o in tests if o == outcome)
        if number:
            counts.append(f"{number} {label if number != 1 or label != 'errors' else 'error'}")
    if warnings:
        counts.append(f"{warnings} warnings")
    summary = ", ".join(counts) + f" in {seconds:.2f}s"
    out.append(f"{'=' * 20} {summary} {'=' * 20}")
    return "\n".join(out)


def jest_run(suites: Sequence[tuple[str, Sequence[tuple[str, bool, int]]]], failures: dict[str, str], seconds: float) -> str:
    """A jest run: per suite (file, [(test title, passed, ms)]), with the failure messages by title."""
    out: list[str] = []
    passed = failed = 0
    for suite, cases in suites:
        ok = all(good for _t, good, _ms in cases)
        out.append(f"{'PASS' if ok else 'FAIL'} {suite}")
        for title, good, ms in cases:
            out.append(f"  {'✓' if good else '✕'} {title} ({ms} ms)")
            passed += good
            failed += not good
        for title, good, _ms in cases:
            if not good:
                out.append(f"\n  ● {suite.rsplit('/', 1)[-1].split('.')[0]} › {title}\n")
                out.append("    " + failures.get(title, "expect(received).toBe(expected)").replace("\n", "\n    "))
        out.append("")
    suites_failed = sum(1 for _s, cases in suites if not all(g for _t, g, _m in cases))
    out.append(f"Test Suites: {suites_failed} failed, {len(suites) - suites_failed} passed, {len(suites)} total")
    out.append(f"Tests:       {failed} failed, {passed} passed, {passed + failed} total")
    out.append("Snapshots:   0 total")
    out.append(f"Time:        {seconds:.3f} s")
    out.append("Ran all test suites.")
    return "\n".join(out)


def progress_bar_lines(label: str, total_mb: float, rng: random.Random, steps: int = 6) -> list[str]:
    lines = []
    for step in range(1, steps + 1):
        done = total_mb * step / steps
        filled = round(40 * step / steps)
        lines.append(f"   {'━' * filled}{'╺' if filled < 40 else ''}{' ' * (40 - filled)} "
                     f"{done:.1f}/{total_mb:.1f} MB {rng.uniform(8, 60):.1f} MB/s eta 0:00:{max(0, 12 - 2 * step):02d}")
    return [f"Downloading {label} ({total_mb:.1f} MB)"] + lines


def pip_install(packages: Sequence[tuple[str, str, float]], rng: random.Random, error: str | None = None) -> str:
    """pip install output with download progress bars (package, version, MB)."""
    out = []
    for name, version, size in packages:
        out.append(f"Collecting {name}=={version}")
        out.extend(progress_bar_lines(f"{name}-{version}-py3-none-any.whl", size, rng))
    if error:
        out.append(error)
        return "\n".join(out)
    out.append("Installing collected packages: " + ", ".join(name for name, _v, _s in packages))
    out.append("Successfully installed " + " ".join(f"{n}-{v}" for n, v, _s in packages))
    return "\n".join(out)


def npm_install(rng: random.Random, added: int, warnings: Sequence[str] = (), vulns: int = 0) -> str:
    out = [f"npm WARN deprecated {w}" for w in warnings]
    for step in range(5):
        out.append(f"[{'#' * (step * 4)}{'.' * (18 - step * 4)}] \\ reify:{rng.choice(['typescript', 'esbuild', 'vite', 'react-dom'])}: "
                   f"timing reifyNode:node_modules/{rng.choice(['@babel/core', 'rollup', 'postcss'])} Completed in {rng.randint(10, 900)}ms")
    out.append(f"\nadded {added} packages, and audited {added + 1} packages in {rng.randint(4, 40)}s")
    out.append(f"\n{rng.randint(60, 190)} packages are looking for funding\n  run `npm fund` for details")
    out.append("\nfound 0 vulnerabilities" if not vulns else f"\n{vulns} moderate severity vulnerabilities")
    return "\n".join(out)


def docker_build(steps: Sequence[str], rng: random.Random, error: str | None = None) -> str:
    out = [f"#0 building with \"default\" instance using docker driver\n\n#1 [internal] load build definition from Dockerfile\n"
           f"#1 transferring dockerfile: {rng.randint(400, 2400)}B done\n#1 DONE 0.0s"]
    for number, step in enumerate(steps, 2):
        out.append(f"\n#{number} [{number - 1}/{len(steps)}] {step}")
        if step.startswith("RUN pip") or step.startswith("RUN npm"):
            for tick in range(4):
                out.append(f"#{number} {rng.uniform(1, 40):.3f} Downloading layer {tick + 1}/4 "
                           f"[{'=' * (tick * 6)}>{' ' * (24 - tick * 6)}] {rng.uniform(1, 90):.1f}MB/{rng.uniform(90, 200):.1f}MB")
        if error and number == len(steps) + 1:
            out.append(f"#{number} {rng.uniform(20, 90):.2f} {error}")
            out.append(f"#{number} ERROR: process \"/bin/sh -c {step[4:]}\" did not complete successfully: exit code: 1")
            out.append(f"------\n > [{number - 1}/{len(steps)}] {step}:\n------")
            out.append(f"ERROR: failed to solve: process \"/bin/sh -c {step[4:]}\" did not complete successfully: exit code: 1")
            return "\n".join(out)
        out.append(f"#{number} DONE {rng.uniform(0.1, 30):.1f}s")
    out.append(f"\n#{len(steps) + 2} exporting to image\n#{len(steps) + 2} writing image sha256:{rng.getrandbits(128):032x} done")
    return "\n".join(out)


def ls_long(entries: Sequence[tuple[str, int, bool]], rng: random.Random) -> str:
    """``ls -la`` of (name, size, is_dir)."""
    out = [f"total {sum(size for _n, size, _d in entries) // 1024 + 8}"]
    for name, size, is_dir in [(".", 4096, True), ("..", 4096, True), *entries]:
        mode = "drwxr-xr-x" if is_dir else "-rw-r--r--"
        out.append(f"{mode}  {rng.randint(1, 9)} dev  dev  {size:>7} {rng.choice(['Mar', 'Apr', 'May'])} "
                   f"{rng.randint(1, 28):>2} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {name}")
    return "\n".join(out)


def tree(root: str, paths: Sequence[str]) -> str:
    out = [root]
    for position, path in enumerate(paths):
        depth = path.count("/")
        branch = "└── " if position == len(paths) - 1 else "├── "
        out.append("│   " * depth + branch + path.rsplit("/", 1)[-1])
    out.append(f"\n{len({p.rsplit('/', 1)[0] for p in paths if '/' in p})} directories, {len(paths)} files")
    return "\n".join(out)


def repeated_log(lines: Sequence[str], repeats: int, rng: random.Random, start_hour: int = 9,
                 extra: Sequence[tuple[int, str]] = ()) -> str:
    """A log: ``lines`` (templates with ``{n}`` and ``{ms}``) cycled ``repeats`` times with timestamps;
    ``extra`` inserts (position, line) once."""
    out = []
    inserts = dict(extra)
    for position in range(repeats):
        if position in inserts:
            out.append(f"2025-03-{11 + position // 500:02d}T{start_hour + position // 3600 % 12:02d}:"
                       f"{position // 60 % 60:02d}:{position % 60:02d}.{rng.randint(0, 999):03d}Z {inserts[position]}")
        template = lines[position % len(lines)]
        out.append(f"2025-03-{11 + position // 500:02d}T{start_hour + position // 3600 % 12:02d}:{position // 60 % 60:02d}:"
                   f"{position % 60:02d}.{rng.randint(0, 999):03d}Z "
                   + template.format(n=rng.randint(1, 9999), ms=rng.randint(3, 900)))
    return "\n".join(out)


def git_status_short(changes: Sequence[tuple[str, str]], branch: str = "main", ahead: int = 0) -> str:
    head = f"## {branch}...origin/{branch}" + (f" [ahead {ahead}]" if ahead else "")
    return "\n".join([head] + [f"{code:>2} {path}" for code, path in changes])


def git_log(commits: Sequence[tuple[str, str]], rng: random.Random) -> str:
    return "\n".join(f"{rng.getrandbits(28):07x} {subject}" for subject, _author in commits)


def github_actions_log(job: str, steps: Sequence[tuple[str, Sequence[str]]], rng: random.Random) -> str:
    """A CI job log: timestamped lines, ``##[group]`` blocks per step."""
    out = []
    second = 0
    for name, lines in steps:
        second += rng.randint(1, 20)
        out.append(f"2025-04-02T08:{second // 60 % 60:02d}:{second % 60:02d}.{rng.randint(1000000, 9999999)}Z ##[group]Run {name}")
        for line in lines:
            second += rng.randint(0, 2)
            out.append(f"2025-04-02T08:{second // 60 % 60:02d}:{second % 60:02d}.{rng.randint(1000000, 9999999)}Z {line}")
        out.append(f"2025-04-02T08:{second // 60 % 60:02d}:{second % 60:02d}.{rng.randint(1000000, 9999999)}Z ##[endgroup]")
    return f"{job}\n" + "\n".join(out)


def python_module(name: str, functions: Sequence[str], rng: random.Random, imports: Sequence[str] = ()) -> str:
    """Plausible Python source: imports, a class, some functions."""
    out = ['"""' + name.replace("_", " ").capitalize() + '."""', "", "from __future__ import annotations", ""]
    out += [f"import {module}" for module in imports] + [""]
    for function in functions:
        args = rng.choice(["self, request", "config: dict", "items: list[str]", "path: str, *, strict: bool = False"])
        out.append(f"def {function}({args}):")
        out.append(f'    """{function.replace("_", " ").capitalize()}."""')
        for _ in range(rng.randint(2, 6)):
            out.append("    " + rng.choice([
                "value = config.get('timeout', 30)",
                "if not items:\n        return []",
                "result = {k: v for k, v in sorted(request.items())}",
                "logger.debug('processing %s', path)",
                "return result",
                "for item in items:\n        yield item.strip()",
            ]))
        out.append("")
    return "\n".join(out)


def traceback(frames: Sequence[tuple[str, int, str, str]], error: str) -> str:
    """A Python traceback: frames of (file, line, function, source)."""
    out = ["Traceback (most recent call last):"]
    for file, line, function, source in frames:
        out.append(f'  File "{file}", line {line}, in {function}')
        out.append(f"    {source}")
    out.append(error)
    return "\n".join(out)
