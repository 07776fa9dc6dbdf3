"""No import circle anywhere in the four top folders: a module that imports another (at any
depth, inside a function too) is never imported back by it, directly or through others."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flows", "sources", "warehouse", "reports")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imported_by(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project's modules that `name` imports, by any import statement in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    wanted = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            wanted |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # `from pkg import mod` depends on pkg.mod; `from mod import name` on mod
            submodules = {f"{base}.{alias.name}" for alias in node.names} & known.keys()
            wanted |= submodules or {base}
    return (wanted & known.keys()) - {name}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other (strongly connected, more than one)."""
    order, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return groups


def test_no_module_is_imported_back_by_what_it_imports():
    known = modules()
    graph = {name: imported_by(name, path, known) for name, path in known.items()}
    assert circles(graph) == []


def test_a_circle_is_found_when_there_is_one():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_flows_hold_no_sql_and_run_none():
    """flows/ is Prefect and the command line: the warehouse's SQL and its writes live in warehouse/."""
    import re

    sql = re.compile(r"\b(select|insert into|delete from|create (or replace )?(table|view|macro))\b|\.execute\(", re.I)
    found = [f"{path.name}:{number}" for path in sorted((ROOT / "flows").glob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1) if sql.search(line)]
    assert found == []


# The one-way order of the four folders: each may import only those before it.
LAYERS = ("sources", "warehouse", "reports", "flows")


def test_no_arrow_points_back_up():
    known = modules()
    back = sorted(f"{name} imports {target}" for name, path in known.items()
                  for target in imported_by(name, path, known)
                  if LAYERS.index(target.split(".")[0]) > LAYERS.index(name.split(".")[0]))
    assert back == []
