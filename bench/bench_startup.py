"""Cold start: from process start to the main window shown, and to the notes listed.

Each run is a fresh Python process that runs the `coach` command's own code
(`coach_gui.cli.main([])`); the bench only watches the window it opens. Times are measured with
CLOCK_MONOTONIC from just before the process is spawned, so they include interpreter
start-up and every import. The page cache is warm (the files were just written or read),
as it is for a learner who opens Coach again. Runs offscreen (no display here).

    python bench/bench_startup.py [--runs 5] [--notes 10000]

Targets (issue 2): window shown ≤ 0.5 s with the sample notes, ≤ 1.0 s with 10,000; (issue 14)
window shown ≤ 1 s and notes listed ≤ 2 s on a 13,000-note real-shaped vault.
Prints figures only; nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


# --- a realistic knowledge base ------------------------------------------------------
def vocabulary() -> list[str]:
    """Words from the bundled sample notes, so generated notes read like real ones."""
    text = " ".join(
        p.read_text(encoding="utf-8")
        for p in sorted((REPO / "coach_gui" / "resources" / "sample_kb").glob("*.md"))
    )
    words = sorted({w.lower() for w in re.findall(r"[A-Za-z][a-z]{2,}", text)})
    return words or ["variation", "selection", "species", "struggle", "habit", "memory"]


def make_notes(folder: Path, count: int, *, seed: int = 7) -> None:
    """Write `count` notes (title, source, 2–3 tags, 3–5 assertions, ~250-word body)
    in the knowledge base's own file format."""
    from coach_gui.adapters import front_matter
    from coach_gui.domain.notes import Note, new_note_id

    rng = random.Random(seed)
    words = vocabulary()

    def sentence(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n)).capitalize() + "."

    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(2, 5))).capitalize()
        body_paragraphs = [
            " ".join(sentence(rng.randint(8, 18)) for _ in range(4)) for _ in range(4)
        ]
        note = Note(
            id=new_note_id(),
            title=f"{title} {i}",
            source=f"Generated source, ch. {rng.randint(1, 15)}",
            tags=tuple(sorted({rng.choice(words) for _ in range(rng.randint(2, 3))})),
            core_assertions=tuple(sentence(rng.randint(10, 20)) for _ in range(rng.randint(3, 5))),
            body=f"# {title}\n\n" + "\n\n".join(body_paragraphs) + "\n",
        )
        (folder / f"note-{i:05d}.md").write_bytes(front_matter.render(note))


def prepare_home(root: Path, notes: int | None, *, vault: bool = False) -> dict[str, str]:
    """A COACH_HOME with the sample notes (seeded as on first run) or `notes` generated;
    `vault`: a real-shaped Zettelkasten (tests/fakes/vaults.py) as `kb.path` instead."""
    env = dict(os.environ)
    # An installed app has its bytecode compiled; without .pyc files every start compiles
    # Coach's modules again (~0.1 s here), which is not what a learner sees.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        COACH_HOME=str(root / "home"),
        COACH_CONFIG=str(root / "config" / "coach.config.json"),
        XDG_CONFIG_HOME=str(root / "xdg-config"),  # window state (QSettings) stays in here
        QT_QPA_PLATFORM=env.get("QT_QPA_PLATFORM", "offscreen"),
    )
    if notes and vault:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from fakes.vaults import zettelkasten_vault

        zettelkasten_vault(root / "vault", notes=notes)
        config = root / "config" / "coach.config.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"kb": {"path": str(root / "vault")}}), encoding="utf-8")
    elif notes:
        make_notes(root / "home" / "kb", notes)
    # One start-up beforehand: seeds the sample notes, writes the config, as on first run.
    subprocess.run(
        [sys.executable, __file__, "--child", "cli"], env=env, check=True, capture_output=True
    )
    return env


# --- one measured start-up (runs in the child process) -------------------------------
def child(mode: str) -> None:
    t0 = float(os.environ.get("BENCH_T0", "nan"))
    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks.setdefault(name, time.monotonic() - t0)

    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    class Watch(QObject):
        """Marks the window's Show event, then the first paint before and after listing."""

        def __init__(self, window: QWidget) -> None:
            super().__init__()
            self.window = window

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            kind = event.type()
            if kind == QEvent.Type.Show and obj is self.window:
                mark("shown")
            elif kind == QEvent.Type.Paint and "shown" in marks:
                mark("first_paint")
                if "listed" in marks:
                    mark("listed_painted")
                    rows = [w.note_list.model.rowCount() for w in opened]
                    if rows:
                        mark(f"rows_{rows[0]}")
                    # Printed now: quitting with the search index still being built may
                    # end the process at once (ADR 0012), before anything after exec().
                    if mode != "bare":
                        print(json.dumps(marks), flush=True)
                    QTimer.singleShot(0, QApplication.quit)
            return False

    watches: list[Watch] = []
    opened: list[Any] = []  # the main window, once open

    def watch(window: QWidget) -> None:
        watches.append(Watch(window))
        app = QApplication.instance()
        assert app is not None
        app.installEventFilter(watches[-1])

    if mode == "bare":
        from PySide6.QtWidgets import QLabel, QMainWindow

        app = QApplication([])
        window = QMainWindow()
        window.setCentralWidget(QLabel("bare"))
        watch(window)
        marks["listed"] = 0.0
        window.show()
        app.exec()
        print(json.dumps(marks))
    else:
        # "cli": exactly what the `coach` command runs; "gui": only its GUI branch (what
        # start-up would cost if the CLI imported its sub-commands lazily).
        import coach_gui.ui.app as gui

        if mode == "cli":
            import coach_gui.cli

        real_open = gui.open_main_window

        def open_and_watch(**options):  # type: ignore[no-untyped-def]
            main = real_open(**options)
            assert main is not None, "the config is bad; start-up stopped at its dialog"
            watch(main)

            def listed() -> None:
                mark("listed")
                main.update()  # the next paint shows the list

            main.notes_listed.connect(listed)
            opened.append(main)
            return main

        gui.open_main_window = open_and_watch
        if mode == "cli":
            coach_gui.cli.main([])
        else:
            gui.run_gui([])


def measure(env: dict[str, str], runs: int, mode: str = "cli") -> list[dict[str, float]]:
    results = []
    for _ in range(runs):
        run_env = dict(env, BENCH_T0=repr(time.monotonic()))
        args = [sys.executable, __file__, "--child", mode]
        done = subprocess.run(args, env=run_env, check=True, capture_output=True, text=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def report(label: str, results: list[dict[str, float]], keys: list[str]) -> None:
    parts = []
    for key in keys:
        values = [r[key] for r in results if key in r]
        if values:
            parts.append(
                f"{key} median {statistics.median(values):.3f} s "
                f"(min {min(values):.3f}, max {max(values):.3f})"
            )
    rows = next((k for k in results[0] if k.startswith("rows_")), "")
    print(f"{label:<24} " + "; ".join(parts) + (f"; {rows[5:]} notes listed" if rows else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--vault-notes", type=int, default=13_000)
    parser.add_argument("--child", choices=("bare", "cli", "gui"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    print(f"cold start, {args.runs} fresh processes each, {os.cpu_count()} CPUs, offscreen Qt")
    keys = ["shown", "first_paint", "listed", "listed_painted"]
    with tempfile.TemporaryDirectory(prefix="coach-bench-") as tmp:
        env = prepare_home(Path(tmp) / "bare", None)
        report("bare PySide6 window", measure(env, args.runs, "bare"), ["shown", "first_paint"])
        env = prepare_home(Path(tmp) / "sample", None)
        report("sample notes, `coach`", measure(env, args.runs), keys)
        report("sample notes, GUI path", measure(env, args.runs, "gui"), keys)
        started = time.monotonic()
        env = prepare_home(Path(tmp) / "big", args.notes)
        print(f"(generated {args.notes} notes in {time.monotonic() - started:.1f} s)")
        report(f"{args.notes} notes, `coach`", measure(env, args.runs), keys)
        started = time.monotonic()
        env = prepare_home(Path(tmp) / "vault", args.vault_notes, vault=True)
        print(f"(generated a {args.vault_notes}-note vault in {time.monotonic() - started:.1f} s)")
        report(f"{args.vault_notes}-note vault, `coach`", measure(env, args.runs), keys)


if __name__ == "__main__":
    main()
