"""Print the shape of the house: modules per layer, module sizes, the largest functions,
and the figures issue 35 holds the top floor to (functions over 120 lines, classes over 35
methods, import circles, modules imported by nothing, faces reaching past operations).

Usage: python bench/house_figures.py [--top N]

Lines are physical lines of each file; a function's size is its span from `def` to its last
line (nested functions counted inside their parent and on their own). Imports are the
runtime ones (those under `if TYPE_CHECKING:` left out), at any depth of the module.
"""

from __future__ import annotations

import argparse
import ast
import statistics
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "coach_gui"


def layer_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def functions(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    owner: dict[ast.AST, str] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                prefix = owner.get(node, "")
                owner[child] = f"{prefix}{child.name}."
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            found.append((size, f"{path.relative_to(PACKAGE.parent)}:{owner[node][:-1]}"))
    return found


ENTRY_POINTS = {"coach_gui.__main__", "coach_gui.cli", "coach_gui.ui.app", "coach_gui"}
FACES = ("coach_gui.ui", "coach_gui.commands")
PAST_OPERATIONS = ("coach_gui.services", "coach_gui.adapters", "coach_gui.bootstrap")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(path: Path, known: set[str]) -> set[str]:
    """The package's modules `path` imports when it runs."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name in known)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                if base in known:
                    found.add(base)
                for alias in child.names:
                    if f"{base}.{alias.name}" in known:
                        found.add(f"{base}.{alias.name}")
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups


def methods_per_class(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (
            sum(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in node.body),
            f"{path.relative_to(PACKAGE.parent)}:{node.name}",
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    ]


def _cli_commands() -> list[str]:
    tree = ast.parse((PACKAGE / "cli.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "COMMANDS" for t in targets):
                return list(ast.literal_eval(node.value)) if node.value is not None else []
    return []


def print_top_floor(modules: list[Path], spans: list[tuple[int, str]]) -> None:
    names = {module_name(p): p for p in modules}
    known = set(names)
    graph = {name: runtime_imports(path, known) for name, path in names.items()}
    imported = {target for targets in graph.values() for target in targets}
    # The sub-commands are imported by name (cli.COMMANDS, importlib).
    imported |= {f"coach_gui.commands.{c}" for c in _cli_commands()}
    # A package's __init__ runs when any module in it is imported.
    imported |= {n.rpartition(".")[0] for n in imported if "." in n}
    over_120 = [(size, name) for size, name in spans if size > 120]
    classes = sorted(
        (c for path in modules for c in methods_per_class(path) if c[0] > 35), reverse=True
    )
    groups = circles(graph)
    orphans = sorted(known - imported - ENTRY_POINTS)
    past = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if name.startswith(FACES) and name not in ENTRY_POINTS
        for target in targets
        if target.startswith(PAST_OPERATIONS)
    )
    print("issue 35's figures (runtime imports):")
    print(f"  functions over 120 lines: {len(over_120)}")
    for size, name in over_120:
        print(f"    {size:>4}  {name}")
    print(f"  classes over 35 methods: {len(classes)}")
    for count, name in classes:
        print(f"    {count:>4}  {name}")
    print(f"  import circles: {len(groups)} ({sum(len(g) for g in groups)} modules)")
    for group in groups:
        print(f"    {len(group):>4}  {', '.join(g.removeprefix('coach_gui.') for g in group)}")
    print(f"  modules imported by nothing: {len(orphans)}")
    for name in orphans:
        print(f"          {name}")
    print(f"  face imports past operations: {len(past)} "
          f"(from {len({p.split(' -> ')[0] for p in past})} modules)")  # fmt: skip
    for line in past:
        print(f"          {line.replace('coach_gui.', '')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10, help="how many largest functions")
    args = parser.parse_args()
    modules = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in modules}
    by_layer: dict[str, list[int]] = {}
    for path, size in sizes.items():
        by_layer.setdefault(layer_of(path), []).append(size)
    print(f"{'layer':<12}{'modules':>8}{'lines':>8}{'median':>8}{'max':>6}")
    for layer, layer_sizes in sorted(by_layer.items()):
        print(
            f"{layer:<12}{len(layer_sizes):>8}{sum(layer_sizes):>8}"
            f"{statistics.median(layer_sizes):>8.0f}{max(layer_sizes):>6}"
        )
    all_sizes = list(sizes.values())
    print(
        f"{'all':<12}{len(all_sizes):>8}{sum(all_sizes):>8}"
        f"{statistics.median(all_sizes):>8.0f}{max(all_sizes):>6}"
    )
    largest = max(sizes, key=sizes.__getitem__)
    print(f"largest module: {largest.relative_to(PACKAGE.parent)} ({sizes[largest]} lines)")
    spans = sorted((span for path in modules for span in functions(path)), reverse=True)
    print("largest functions (lines):")
    for size, name in spans[: args.top]:
        print(f"  {size:>4}  {name}")
    print_top_floor(modules, spans)


if __name__ == "__main__":
    main()
