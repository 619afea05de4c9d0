"""The long middle of a real session: rounds of reading, searching, testing and editing.

Real sessions reach a compaction after tens of thousands of tokens, most of them tool output: file
contents, test logs, search hits. ``work_rounds`` appends such rounds to a session, around the
modules of its own story, so each session is long enough to be compacted for real and the facts a
summary must keep are spread over a long middle, early diagnosis included.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bench.retention_corpus import outputs as out
from bench.retention_corpus.builder import Session

_ASSERTIONS = (
    "AssertionError: assert {a} == {b}",
    "AssertionError: expected status 200, got {a}",
    "KeyError: '{name}_id'",
    "TypeError: {name}() got an unexpected keyword argument 'timeout'",
    "ValueError: invalid literal for int() with base 10: '{a}x'",
    "AttributeError: 'NoneType' object has no attribute '{name}'",
)
_REMARKS = (
    "The {name} path looks fine; the failure is elsewhere.",
    "{module} only reads the config once at import time.",
    "Nothing in {module} touches the cache directly.",
    "This matches what the traceback showed for {name}.",
)


def _source(module: str, rng: random.Random, lines: int) -> str:
    functions = [f"{verb}_{module.rsplit('/', 1)[-1].split('.')[0]}_{n}" for n, verb in
                 enumerate(rng.sample(["load", "save", "parse", "render", "check", "merge", "split", "sync",
                                       "build", "apply", "fetch", "emit"], 8))]
    text = out.python_module(module.rsplit("/", 1)[-1].split(".")[0], functions, rng, ["logging", "json", "pathlib"])
    filler = [f"    # {rng.choice(['keep', 'note', 'see'])}: {rng.choice(functions)} handles the {rng.choice(['empty', 'legacy', 'bulk'])} case"
              for _ in range(max(0, lines - text.count(chr(10))))]
    return text + "\n" + "\n".join(filler)


def work_rounds(s: Session, seed: int, modules: Sequence[str], tests: Sequence[str], rounds: int,
                *, runner: str = "pytest -q", verbose_every: int = 4, source_lines: int = 220) -> Session:
    """Append ``rounds`` rounds of work over ``modules`` (source paths) and ``tests`` (test files)."""
    rng = random.Random(seed)
    for number in range(rounds):
        module = modules[number % len(modules)]
        test = tests[number % len(tests)]
        name = module.rsplit("/", 1)[-1].split(".")[0]
        s.read(module, _source(module, rng, source_lines + rng.randint(-60, 120)))
        hits = [(rng.choice(modules), rng.randint(1, 400), f"    result = {name}_{rng.randint(0, 7)}(config)")
                for _ in range(rng.randint(3, 14))]
        s.search(f"{name}_", hits)
        count = rng.randint(20, 90)
        nodes = [f"{test}::test_{name}_{k}" for k in range(count)]
        failing = rng.sample(nodes, rng.choice([0, 0, 1, 2]))  # a list: its order draws the assertions
        failures = {
            node: (f">       assert {name}.{rng.choice(['load', 'merge', 'sync'])}(case) == expected",
                   rng.choice(_ASSERTIONS).format(a=rng.randint(1, 500), b=rng.randint(1, 500), name=name))
            for node in failing
        }
        verbose = number % verbose_every == 0
        command = f"{runner} {test}" + (" -v" if verbose and runner.startswith("pytest") else "")
        s.run(command, out.pytest_run([(node, "FAILED" if node in failing else "PASSED") for node in nodes], failures,
                                      verbose=verbose, seconds=rng.uniform(0.5, 30)),
              exit_code=1 if failing else 0)
        if failing:
            s.say(rng.choice(_REMARKS).format(name=name, module=module))
            s.edit(module, f"return {name}_{rng.randint(0, 7)}(config)", f"return {name}_{rng.randint(0, 7)}(config, strict=True)")
            s.run(command.replace(" -v", ""), out.pytest_run([(node, "PASSED") for node in nodes], seconds=rng.uniform(0.5, 30)))
        elif rng.random() < 0.3:
            s.say(rng.choice(_REMARKS).format(name=name, module=module))
    return s
