"""Print the import graph of seams' packages, and check it runs one way.

    python scripts/import_graph.py            # the package graph, as docs/architecture.md shows it
    python scripts/import_graph.py --modules  # every module and what it imports

Every import counts: top-level, inside functions (lazy), and under
``if TYPE_CHECKING:``. The layers, lowest first, are ``LAYERS``; a module may
import its own layer and those below it, never one above, and no chain of
imports may lead back to where it started. ``tests/test_architecture.py``
runs :func:`problems` so a wrong-way import or a cycle fails the suite.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LAYERS = ("seams", "seams_edit", "seams_runtime", "pytest_seams", "seams_cli")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> Iterator[Path]:
    for package in LAYERS:
        for path in sorted((REPO / package).rglob("*.py")):
            if "prompts" not in path.relative_to(REPO).parts:
                yield path


def imports_of(path: Path, modules: set[str], name: str | None = None) -> set[str]:
    """The seams modules ``path`` (the module ``name``) imports, each resolved to the
    longest known module name."""
    name = module_name(path) if name is None else name
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    files = list(source_files())
    modules = {module_name(path) for path in files}
    return {module_name(path): imports_of(path, modules) for path in files}


def layer_of(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def _is_parent_package(module: str, target: str) -> bool:
    return module.startswith(target + ".")


def problems(edges: dict[str, set[str]] | None = None) -> list[str]:
    """Every import against the layers, and every cycle, as one line each."""
    edges = graph() if edges is None else edges
    out = [f"{module} imports {target}: {LAYERS[layer_of(target)]} is above {LAYERS[layer_of(module)]}"
           for module, targets in sorted(edges.items()) for target in sorted(targets)
           if layer_of(target) > layer_of(module)]
    # a package's __init__ re-exporting its own submodules is not a cycle of design
    inner = {m: {t for t in ts if not _is_parent_package(m, t)} for m, ts in edges.items()}
    out += [f"import cycle: {' -> '.join(cycle)}" for cycle in _cycles(inner)]
    return out


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [[*component, component[0]] for component in sorted(components)]


def package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Sub-package to sub-package edges (``seams.lang``, ``seams_cli.commands`` ...)."""
    def unit(module: str) -> str:
        parts = module.split(".")
        return ".".join(parts[:2]) if len(parts) > 1 else parts[0]

    out: dict[str, set[str]] = {}
    for module, targets in edges.items():
        out.setdefault(unit(module), set()).update(unit(t) for t in targets if unit(t) != unit(module))
    return out


def _update_doc(block: str) -> None:
    import re

    doc = REPO / "docs" / "architecture.md"
    text = doc.read_text(encoding="utf-8")
    pattern = re.compile(r"(<!-- import-graph:[^\n]*-->\n```\n)(.*?)(```\n<!-- /import-graph -->)", re.S)
    if not pattern.search(text):
        raise SystemExit("docs/architecture.md has no import-graph markers")
    doc.write_text(pattern.sub(lambda m: m.group(1) + block + m.group(3), text), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", action="store_true", help="one line per module instead of per sub-package")
    parser.add_argument("--update-doc", action="store_true",
                        help="write the sub-package graph into docs/architecture.md between its markers")
    args = parser.parse_args(argv)
    edges = graph()
    shown = edges if args.modules else package_graph(edges)
    lines = [f"{unit} -> {', '.join(sorted(shown[unit])) or '(nothing of seams)'}"
             for layer in LAYERS for unit in sorted(u for u in shown if u.split(".")[0] == layer)]
    if args.update_doc:
        _update_doc("".join(f"{line}\n" for line in lines))
    else:
        for line in lines:
            print(line)
    found = problems(edges)
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
