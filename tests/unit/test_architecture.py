"""The house rules of DESIGN §2, checked by tools rather than memory."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import house_shape

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "coach_gui"


def test_import_contracts_hold() -> None:
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports, "import-linter is a test dependency: pip install -e '.[test]'"
    result = subprocess.run(
        [lint_imports, "--no-cache"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_only_the_gemini_adapter_may_import_google_genai() -> None:
    """ADR-0021 decision 3; counts imports anywhere in a module, not just at the top."""
    importers = sorted(
        str(path.relative_to(REPO))
        for path in PACKAGE.rglob("*.py")
        if any(
            m == "google.genai" or m.startswith("google.genai.") for m in _imported_modules(path)
        )
    )
    assert importers in ([], ["coach_gui/adapters/gemini.py"])


def test_nothing_connects_or_builds_adapters_at_import() -> None:
    code = (
        "import socket, sys\n"
        "def refuse(*a, **k): raise SystemExit('connected at import')\n"
        "socket.socket.connect = refuse\n"
        "import coach_gui.cli, coach_gui.bootstrap, coach_gui.config\n"
        "print('PySide6' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"  # the CLI does not load Qt until the GUI opens


def test_the_window_loads_the_preview_renderer_and_the_watcher_only_when_needed() -> None:
    """markdown-it (~75 ms) and watchfiles (~35 ms) load when a preview is first shown and
    after the first listing, not before the window's first paint (issue 14)."""
    code = (
        "import sys\n"
        "import coach_gui.ui.shell.main_window\n"
        "print(sorted(m for m in ('markdown_it', 'watchfiles', 'anyio') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_contracts_catch_a_violation(tmp_path: Path) -> None:
    """A guard that cannot fail guards nothing: plant a Qt import in services and a
    google.genai import in the domain, and expect both contracts to break."""
    _copy_of_the_package(tmp_path)
    (tmp_path / "coach_gui" / "services" / "planted_qt.py").write_text(
        "from PySide6 import QtCore\n", encoding="utf-8"
    )
    (tmp_path / "coach_gui" / "domain" / "planted_genai.py").write_text(
        "from google import genai\n", encoding="utf-8"
    )
    result = _lint(tmp_path)
    assert result.returncode == 1
    assert "coach_gui.services.planted_qt -> PySide6" in result.stdout
    assert "coach_gui.domain.planted_genai -> google" in result.stdout


def _copy_of_the_package(tree: Path) -> None:
    shutil.copytree(PACKAGE, tree / "coach_gui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tree / "pyproject.toml")


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports
    return subprocess.run(
        [lint_imports, "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(tree), "PATH": str(Path(sys.executable).parent)},
    )


def test_the_layers_and_the_adapter_rule_catch_a_violation(tmp_path: Path) -> None:
    """DESIGN §2, ADR 0018: plant an import up the layers (services -> operations,
    operations -> ui), one across (commands -> ui) and an adapter reached from the window,
    and expect each to be named."""
    _copy_of_the_package(tmp_path)
    planted = {
        "services/planted_up.py": "import coach_gui.operations.practice\n",
        "operations/planted_ui.py": "import coach_gui.ui.kit.tasks\n",
        "commands/planted_across.py": "import coach_gui.ui.kit.failures\n",
        "ui/planted_adapter.py": "from coach_gui.adapters.ollama import OllamaClient\n",
    }
    for name, text in planted.items():
        (tmp_path / "coach_gui" / name).write_text(text, encoding="utf-8")
    result = _lint(tmp_path)
    assert result.returncode == 1
    out = " ".join(result.stdout.split())  # import-linter folds long lines
    assert "coach_gui.services.planted_up -> coach_gui.operations.practice" in out
    assert "coach_gui.operations.planted_ui -> coach_gui.ui.kit.tasks" in out
    assert "coach_gui.commands.planted_across -> coach_gui.ui.kit.failures" in out
    assert "coach_gui.ui.planted_adapter -> coach_gui.adapters.ollama" in out


def _adapter_classes() -> set[str]:
    return {
        node.name
        for path in (PACKAGE / "adapters").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    }


def _constructions(source: str, classes: set[str]) -> list[str]:
    """Calls that build an adapter: `Adapter(...)` or `Adapter.factory(...)`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        while isinstance(func, ast.Attribute):
            func = func.value
        if isinstance(func, ast.Name) and func.id in classes:
            found.append(f"{func.id} (line {node.lineno})")
    return found


def test_no_module_outside_bootstrap_builds_an_adapter() -> None:
    """bootstrap is the composition root (ADR 0018): everything else asks it for ports."""
    classes = _adapter_classes()
    assert {"SqliteTraceJournal", "GeminiJudge", "OllamaClient", "KeyStore", "Journal"} <= classes
    builders = {
        str(path.relative_to(REPO)): found
        for path in PACKAGE.rglob("*.py")
        if "adapters" not in path.relative_to(PACKAGE).parts and path.name != "bootstrap.py"
        if (found := _constructions(path.read_text(encoding="utf-8"), classes))
    }
    assert builders == {}
    # The scan finds what it looks for: a planted construction is named.
    planted = "def f(j):\n    return SqliteTraceJournal(j), GeminiJudge.from_config(1, 2, 3)\n"
    assert _constructions(planted, classes) == [
        "SqliteTraceJournal (line 2)",
        "GeminiJudge (line 2)",
    ]


# --- issue 35: the top floor (tests/house_shape.py reads the runtime imports) -------------
def test_the_faces_reach_nothing_past_operations_when_they_run() -> None:
    """DESIGN §2: the window and the terminal use operations; only the entry points
    (`cli.py`, `ui/shell/app.py`) build the app. Type-only imports are left to mypy."""
    graph = house_shape.import_graph(PACKAGE)
    assert house_shape.past_operations(PACKAGE, graph) == []


def test_the_window_is_given_use_cases_and_nothing_else() -> None:
    """Issue 35: no module of the window names the app context (`bootstrap`) or the ports
    (`operations.app`), not even for its types: it is given `operations.cases.UseCases`."""
    assert house_shape.window_reaching_for_the_app(PACKAGE) == []


def test_no_import_circle_and_no_module_imported_by_nothing() -> None:
    graph = house_shape.import_graph(PACKAGE)
    assert house_shape.circles(graph) == []
    by_name = house_shape.cli_commands(PACKAGE)
    assert house_shape.imported_by_nothing(PACKAGE, graph, by_name) == []


def test_no_function_over_120_lines() -> None:
    assert [f for f in house_shape.function_sizes(PACKAGE) if f[0] > 120] == []


def test_the_house_checks_catch_a_violation(tmp_path: Path) -> None:
    """A face importing a service at run time, a circle and a lone module are found; a
    type-only import and the entry point's import of bootstrap are not faults."""
    package = tmp_path / "coach_gui"
    files = {
        "__init__.py": "",
        "cli.py": "COMMANDS = ('hello',)\nfrom coach_gui import bootstrap\n",
        "bootstrap.py": "",
        "services/__init__.py": "",
        "services/review.py": "",
        "ui/__init__.py": "",
        "ui/shell/__init__.py": "",
        "ui/shell/app.py": "from coach_gui.bootstrap import *\n"
        "from coach_gui.ui import a, c, d, lone_ok\n",
        "ui/a.py": "from coach_gui.ui import b\n"
        "def f():\n    from coach_gui.services.review import x\n",
        "ui/b.py": "from typing import TYPE_CHECKING\nfrom . import a\n"
        "if TYPE_CHECKING:\n    from coach_gui.services import review\n",
        "ui/c.py": "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    pass\nelse:\n    from coach_gui import bootstrap\n",
        "ui/lone_ok.py": "",
        "ui/d.py": "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from coach_gui.bootstrap import AppContext\n"
        "    from coach_gui.operations.cases import UseCases\n",
        "ui/lone.py": "",
        "commands/__init__.py": "",
        "commands/hello.py": "",
    }
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text, encoding="utf-8")
    graph = house_shape.import_graph(package)
    assert house_shape.past_operations(package, graph) == [
        "ui.a -> services.review",
        "ui.c -> bootstrap",  # in the `else:` of `if TYPE_CHECKING:`, it runs
    ]
    assert house_shape.circles(graph) == [["coach_gui.ui.a", "coach_gui.ui.b"]]
    # The window names the app context, for a type only: found; its entry point may.
    assert house_shape.window_reaching_for_the_app(package) == [
        "ui.c -> bootstrap",
        "ui.d -> bootstrap",
    ]
    by_name = house_shape.cli_commands(package)
    assert house_shape.imported_by_nothing(package, graph, by_name) == ["coach_gui.ui.lone"]
