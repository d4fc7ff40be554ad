"""Print the shape of the house: modules per layer, module sizes, the largest functions.

Usage: python bench/house_figures.py [--top N]

Lines are physical lines of each file; a function's size is its span from `def` to its last
line (nested functions counted inside their parent and on their own).
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


if __name__ == "__main__":
    main()
