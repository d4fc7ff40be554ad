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
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "coach_gui"
sys.path.insert(0, str(REPO / "tests"))
import house_shape  # noqa: E402  (tests/house_shape.py: the same reading the tests hold)


def layer_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def print_top_floor(spans: list[tuple[int, str]]) -> None:
    graph = house_shape.import_graph(PACKAGE)
    over_120 = [(size, name) for size, name in spans if size > 120]
    classes = [c for c in house_shape.methods_per_class(PACKAGE) if c[0] > 35]
    groups = house_shape.circles(graph)
    orphans = house_shape.imported_by_nothing(PACKAGE, graph, house_shape.cli_commands(PACKAGE))
    past = house_shape.past_operations(PACKAGE, graph)
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
        print(f"          {line}")
    reaching = house_shape.window_reaching_for_the_app(PACKAGE)
    print(f"  window modules naming the app context or the ports (types too): {len(reaching)}")
    for line in reaching:
        print(f"          {line}")


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
    spans = house_shape.function_sizes(PACKAGE)
    print("largest functions (lines):")
    for size, name in spans[: args.top]:
        print(f"  {size:>4}  {name}")
    print_top_floor(spans)


if __name__ == "__main__":
    main()
