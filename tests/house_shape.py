"""The shape of the house as issue 35 holds it (DESIGN §2), read from the source with `ast`:
runtime imports between the package's modules (those under `if TYPE_CHECKING:` left out,
at any depth of a module), import circles, modules imported by nothing, the faces' imports
that reach past operations, and the longest functions and the largest classes. Used by
tests/unit/test_architecture.py and printed by bench/house_figures.py."""

from __future__ import annotations

import ast
from pathlib import Path

# Only these build the app (DESIGN §2); the package and its `__main__` are its doors.
ENTRY_POINTS = ("cli", "ui.shell.app", "__main__", "")
FACES = ("ui", "commands")
PAST_OPERATIONS = ("services", "adapters", "bootstrap")
# The window is given the use cases (operations/cases.py) and nothing else: no module of it
# names the app context or the ports' protocols, not even for its types.
WINDOW = "ui"
THE_APP = ("bootstrap", "operations.app")


def module_name(package: Path, path: Path) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: Path) -> dict[str, Path]:
    return {
        module_name(package, p): p
        for p in sorted(package.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(package: Path, path: Path, known: set[str]) -> set[str]:
    """The package's modules `path` imports when it runs."""
    name = module_name(package, path)
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                visit(ast.Module(body=child.orelse, type_ignores=[]))  # `else:` runs
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name in known)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = here.split(".")
                    anchor = anchor[: len(anchor) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                if base in known:
                    found.add(base)
                found.update(f"{base}.{a.name}" for a in child.names if f"{base}.{a.name}" in known)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    found = modules(package)
    known = set(found)
    return {name: runtime_imports(package, path, known) for name, path in found.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of more than one module that import each other (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
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


def imported_by_nothing(
    package: Path, graph: dict[str, set[str]], by_name: frozenset[str] = frozenset()
) -> list[str]:
    """Modules no other module imports when it runs; `by_name`: those imported by name
    (the sub-commands, through importlib)."""
    doors = {".".join(filter(None, (package.name, e))) for e in ENTRY_POINTS}
    imported = {target for targets in graph.values() for target in targets} | set(by_name)
    for name in imported | doors:  # a package's `__init__` runs with any of its modules
        while "." in name:
            name = name.rpartition(".")[0]
            imported.add(name)
    return sorted(set(graph) - imported - doors)


def past_operations(package: Path, graph: dict[str, set[str]]) -> list[str]:
    """`face -> module` for each runtime import of a face that reaches past operations."""
    prefix = package.name + "."
    faces = tuple(prefix + f for f in FACES)
    past = tuple(prefix + p for p in PAST_OPERATIONS)
    doors = {prefix + e for e in ENTRY_POINTS if e}
    return sorted(
        f"{name.removeprefix(prefix)} -> {target.removeprefix(prefix)}"
        for name, targets in graph.items()
        if name.startswith(faces) and name not in doors
        for target in targets
        if target.startswith(past)
    )


def every_import(package: Path, path: Path) -> set[str]:
    """Every module name `path` imports, at run time or for its types."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def window_reaching_for_the_app(package: Path) -> list[str]:
    """`window module -> module` for each import, even a type-only one, of the app
    context or of the ports by a module of the window (its entry point aside)."""
    prefix = package.name + "."
    doors = {prefix + e for e in ENTRY_POINTS if e}
    the_app = tuple(prefix + a for a in THE_APP)
    return sorted(
        f"{name.removeprefix(prefix)} -> {target.removeprefix(prefix)}"
        for name, path in modules(package).items()
        if name.startswith(prefix + WINDOW + ".") and name not in doors
        for target in every_import(package, path)
        if target in the_app
    )


def function_sizes(package: Path) -> list[tuple[int, str]]:
    """(lines from `def` to its last line, `file:Class.function`), largest first; nested
    functions are counted inside their parent and on their own."""
    found: list[tuple[int, str]] = []
    for path in modules(package).values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        owner: dict[ast.AST, str] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    owner[child] = f"{owner.get(node, '')}{child.name}."
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                found.append((size, f"{path.relative_to(package.parent)}:{owner[node][:-1]}"))
    return sorted(found, reverse=True)


def methods_per_class(package: Path) -> list[tuple[int, str]]:
    """(methods defined in the class body, `file:Class`), most first."""
    found: list[tuple[int, str]] = []
    for path in modules(package).values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                count = sum(
                    isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in node.body
                )
                found.append((count, f"{path.relative_to(package.parent)}:{node.name}"))
    return sorted(found, reverse=True)


def cli_commands(package: Path) -> frozenset[str]:
    """The sub-commands `cli.COMMANDS` imports by name, as module names."""
    tree = ast.parse((package / "cli.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign | ast.Assign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "COMMANDS" for t in targets):
                names = ast.literal_eval(node.value)
                return frozenset(f"{package.name}.commands.{n}" for n in names)
    return frozenset()
