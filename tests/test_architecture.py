"""The layers hold: import-linter's contracts, no import cycle, every core module placed, no long file
without its reason, and no reader above the engine reaching into private state or comparing names."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import grimp
from importlinter import configuration
from importlinter.application.use_cases import lint_imports

ROOT = Path(__file__).resolve().parents[1]
UPPER = ("core/views", "core/inspections", "core/render", "dashboard", "pages")
APPLICATIONS = {"core.cli", "core.cli_args", "core.cli_output", "core.batch", "core.batch_engines",
                "core.batch_files", "core.batch_report", "core.live",
                "core.hermes_plugin", "core.__main__"}
MAX_LINES = 600
# A file may be longer when its first lines say why: "# Over 600 lines: <reason>".
REASON = re.compile(r"^# Over 600 lines: \S", re.MULTILINE)


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_the_import_contracts_are_kept(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    configuration.configure()  # what the lint-imports command does first
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), cache_dir=None, no_logo=True) is True


def test_every_core_module_has_a_floor() -> None:
    engine = set(next(c for c in _contracts() if c["type"] == "forbidden" and "core.views" in c["forbidden_modules"])
                 ["source_modules"])
    upper = {"core.views", "core.inspections", "core.render"}
    modules = {f"core.{path.stem if path.is_file() else path.name}" for path in (ROOT / "core").iterdir()
               if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()}
    unplaced = modules - engine - upper - APPLICATIONS
    assert not unplaced, f"add these to a contract in pyproject.toml: {sorted(unplaced)}"


def _cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_there_is_no_import_cycle() -> None:
    graph = grimp.build_graph("core", "dashboard")
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    class Graph:
        modules = {"a", "b", "c", "d"}
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return self.edges[module]

    assert _cycles(Graph()) == [["a", "b", "c"]]


def _sources() -> list[Path]:
    found = [ROOT / "app.py"]
    for folder in ("core", "dashboard", "pages", "tests", "bench", "scripts"):
        found += [path for path in (ROOT / folder).rglob("*.py") if "__pycache__" not in path.parts]
    return found


def test_no_file_is_longer_than_600_lines_without_its_reason() -> None:
    long = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_LINES and not REASON.search("\n".join(text.splitlines()[:30])):
            long.append(f"{path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    assert long == []


def test_no_reader_above_the_engine_reads_private_state_or_compares_names() -> None:
    found = []
    for folder in UPPER:
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                    if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                        found.append(f"{where} reads {ast.unparse(node)}")
                if isinstance(node, ast.Compare):
                    operands = [node.left, *node.comparators]
                    text = ast.unparse(node)
                    constants = [item for operand in operands
                                 for item in (operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set))
                                              else [operand])
                                 if isinstance(item, ast.Constant) and isinstance(item.value, str)]
                    if any(re.fullmatch(r"v0\.\d+\.\d+", item.value) for item in constants):
                        found.append(f"{where} compares a release name: {text}")
                    if constants and re.search(r"\w*_rule\b|\bprofile\b", text):
                        found.append(f"{where} compares a rule or profile by name: {text}")
    assert found == []


def test_the_dashboards_parts_draw_nothing_when_imported() -> None:
    """Only a page draws at its top level: a part in dashboard/ that did would draw once per process,
    on whichever page imported it first (a page's title once ended up in a parts module that way)."""
    found = []
    for path in (ROOT / "dashboard").rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            call = node.value if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) else None
            if call is not None and ast.unparse(call.func).startswith("st."):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(call)[:60]}")
    assert found == []


def test_every_page_has_its_title() -> None:
    from dashboard.sections import SECTIONS

    missing = []
    for pages in SECTIONS.values():
        for name, title, _icon in pages:
            tree = ast.parse((ROOT / "pages" / f"{name}.py").read_text(encoding="utf-8"))
            titles = [ast.literal_eval(node.value.args[0]) for node in tree.body
                      if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                      and ast.unparse(node.value.func) == "st.title" and node.value.args]
            if titles != [title]:
                missing.append(f"pages/{name}.py: {titles} instead of [{title!r}]")
    assert missing == []
