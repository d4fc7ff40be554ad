"""Two defects the Qt code must not have, found by reading the source (issue 13).

- A slot with a defaulted positional parameter connected directly to a signal that
  sends arguments gets them in that parameter: `clicked(bool)` arrived as the path of
  Export gaps, and the export always failed. Connect a lambda instead.
- The GUI thread never waits on a worker without a bound: every wait in `ui/` names its
  timeout, so quitting or closing can never hang on a blocked thread.
"""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "coach_gui" / "ui"
# Signals that carry no argument: a defaulted parameter is safe behind them.
NO_ARGUMENT_SIGNALS = {"aboutToQuit", "timeout", "destroyed_", "finished_"}
WAITS = {"waitForDone", "wait_for_all", "wait_for_writes", "wait", "quiesce", "shutdown"}


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text("utf-8"))) for p in sorted(UI.rglob("*.py"))]


def _methods(tree: ast.Module) -> dict[str, list[ast.FunctionDef]]:
    found: dict[str, list[ast.FunctionDef]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found.setdefault(item.name, []).append(item)
    return found


def _defaulted_slots(tree: ast.Module) -> list[str]:
    """`signal.connect(self.method)` where `method` has a defaulted positional parameter."""
    methods = _methods(tree)
    bad = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "connect"
            and node.args
            and isinstance(node.args[0], ast.Attribute)
            and isinstance(node.args[0].value, ast.Name)
            and node.args[0].value.id == "self"
        ):
            continue
        signal = node.func.value
        name = signal.attr if isinstance(signal, ast.Attribute) else ""
        if name in NO_ARGUMENT_SIGNALS:
            continue
        for method in methods.get(node.args[0].attr, []):
            positional = [*method.args.posonlyargs, *method.args.args][1:]
            if positional and method.args.defaults:
                bad.append(f"{node.lineno}: {name} -> {method.name}")
    return bad


def test_no_slot_with_a_defaulted_parameter_is_connected_directly() -> None:
    bad = [f"{path.name}:{found}" for path, tree in _modules() for found in _defaulted_slots(tree)]
    assert bad == [], "signal arguments would land in a defaulted parameter: " + ", ".join(bad)


def test_the_check_finds_the_export_gaps_defect() -> None:
    """The shape of the defect as it was in session_detail.py."""
    tree = ast.parse(
        "class SessionDetail:\n"
        "    def __init__(self):\n"
        "        self.export_button.clicked.connect(self.export)\n"
        "        self.other.clicked.connect(lambda: self.export())\n"
        "    def export(self, path=None): ...\n"
    )
    assert _defaulted_slots(tree) == ["3: clicked -> export"]


def test_every_wait_on_a_worker_in_the_gui_names_its_timeout() -> None:
    unbounded = []
    for path, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in WAITS or (name == "shutdown" and path.name != "main_views.py"):
                continue
            if name == "wait" and not (
                isinstance(func, ast.Attribute) and "worker" in ast.unparse(func.value)
            ):
                continue  # threading.Event.wait on a worker thread, not the GUI's
            if not node.args and not node.keywords:
                unbounded.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert unbounded == [], "waits without a timeout: " + ", ".join(unbounded)
