"""Cold start, side by side: from process start to the first window on screen, for a bare
PySide6 window, Coach from source (sample notes, and a 13,000-note vault), the Coach bundle
(`packaging/build`) and Anki, in one interleaved run (issue 16).

Every peer is timed the same way: a fresh process is spawned on a private Xvfb display and
the clock stops when it first draws into its first top-level window (X DAMAGE), i.e. the
window is on screen with something of the app in it; the time it was mapped is printed
too (`bench/x11_window.py`). The page
cache is warm, as it is for a learner who opens Coach again. Runs are interleaved (one of
each peer in turn), so a busy moment of the machine falls on all of them alike; the load
average is printed before and after.

    python bench/bench_startup.py [--runs 7] [--vault-notes 13000]
        [--bundle dist/coach/coach] [--anki /path/to/venv/bin/anki]

Anki: `python3 -m venv ~/anki-venv && ~/anki-venv/bin/pip install aqt`; the bench finds
`anki` on PATH or in ../anki-venv, ~/anki-venv, /work/anki-venv, and prepares a profile of
its own (no language dialog). Without it (or without the bundle) that peer is skipped with
a note. `--listed` also prints when the notes are listed (`coach --smoke`, offscreen).
`--listed-only` (issue 38) times only that, on Xvfb, interleaved with a bare window's
paint, for the sample notes and 3,000- and `--vault-notes`-note vaults.

`--segmentation` prints only what text segmentation (issue 32, ADR 0032) adds to start-up,
with no display: the import of `domain/text_segments.py` and `function_words.py` (self time
from `python -X importtime`, fresh processes) on the way to the first paint, and listing a
3,000-note vault in several scripts (sorting by folded title and building the search
index) with the folding before issue 32 and now.

Targets (issue 16): Coach's window ≤ 0.5 s with the sample notes, ≤ 2.2× a bare PySide6
window and ≤ 0.6× Anki's first window; ≤ 1.0 s with a 13,000-note vault; the bundle within
10% of the source run. Prints figures only; nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from x11_window import Xvfb, time_to_first_window  # noqa: E402

BARE = (
    "from PySide6.QtWidgets import QApplication, QLabel, QMainWindow\n"
    "app = QApplication([])\n"
    "window = QMainWindow()\n"
    "window.setCentralWidget(QLabel('bare'))\n"
    "window.show()\n"
    "app.exec()\n"
)


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
    return env


# --- the peers ---------------------------------------------------------------------
def warm_up(args: list[str], env: dict[str, str]) -> None:
    """One start beforehand: seeds the sample notes and writes the config (first run)."""
    subprocess.run(
        [*args, "--smoke"],
        env={**env, "QT_QPA_PLATFORM": "offscreen"},
        check=True,
        capture_output=True,
        timeout=300,
    )


def find_anki(given: str | None) -> Path | None:
    if given:
        return Path(given)
    found = shutil.which("anki")
    candidates = [Path(found)] if found else []
    for venv in (REPO.parent / "anki-venv", Path.home() / "anki-venv", Path("/work/anki-venv")):
        candidates.append(venv / "bin" / "anki")
    return next((c for c in candidates if c.is_file()), None)


def anki_base(anki: Path, folder: Path) -> Path:
    """A profile folder Anki opens straight into its main window: the language chosen and
    one profile, made with Anki's own profile manager (no dialog on first run)."""
    code = (
        "import sys\n"
        "from aqt.profiles import ProfileManager\n"
        "pm = ProfileManager(ProfileManager.get_created_base_folder(sys.argv[1]))\n"
        "pm.setupMeta()\n"
        "pm.setLang('en_US')\n"
        "pm.profiles() or pm.create('User 1')\n"
    )
    python = anki.parent / "python"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    subprocess.run([str(python), "-c", code, str(folder)], env=env, check=True, timeout=120)
    return folder


def anki_run(anki: Path, pristine: Path, scratch: Path) -> list[str]:
    """A fresh copy of the prepared profile for each run (a killed Anki leaves it open)."""
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(pristine, scratch)
    return [str(anki), "-b", str(scratch)]


def listed_seconds(
    args: list[str], env: dict[str, str], display: str | None = None
) -> tuple[float, float, float] | None:
    """(window shown, notes listed, every file read and the list corrected) as `coach
    --smoke` reports them: on `display` (Xvfb) when given, else offscreen."""
    run_env = {**env, "QT_QPA_PLATFORM": "offscreen"}
    if display is not None:
        run_env.pop("QT_QPA_PLATFORM")
        run_env["DISPLAY"] = display
    done = subprocess.run(
        [*args, "--smoke"],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = re.search(
        r"shown ([0-9.]+) s after process start; .*?listed at ([0-9.]+) s"
        r".*?read from the files at ([0-9.]+) s",
        done.stdout,
    )
    return (float(found[1]), float(found[2]), float(found[3])) if found else None


def listed_side_by_side(runs: int, sizes: tuple[int, ...]) -> None:
    """Issue 38: the notes listed (`coach --smoke`'s own figure, on Xvfb) against a bare
    PySide6 window's first paint, one of each in turn; targets ≤ 2.5× with the sample
    notes, ≤ 4× with 3,000 notes, ≤ 6× with 13,000."""
    python = [sys.executable, "-m", "coach_gui"]
    targets = {3000: 4.0, 13000: 6.0}
    load_before = os.getloadavg()
    print(
        f"notes listed against a bare window's paint (Xvfb, interleaved, {runs} runs each), "
        f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} {load_before[1]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="coach-bench-") as tmp_name:
        tmp = Path(tmp_name)
        homes = {"sample notes": prepare_home(tmp / "sample", None)}
        for size in sizes:
            homes[f"{size:,}-note vault"] = prepare_home(tmp / f"v{size}", size, vault=True)
        for env in homes.values():
            warm_up(python, env)  # seeds, writes the config and the kept listing
        bare: list[float] = []
        shown: dict[str, list[float]] = {name: [] for name in homes}
        listed: dict[str, list[float]] = {name: [] for name in homes}
        read: dict[str, list[float]] = {name: [] for name in homes}
        with Xvfb() as display:
            for _ in range(runs):
                bare.append(
                    time_to_first_window(
                        [sys.executable, "-c", BARE], homes["sample notes"], display
                    )[1]
                )
                for name, env in homes.items():
                    found = listed_seconds(python, env, display)
                    if found:
                        shown[name].append(found[0])
                        listed[name].append(found[1])
                        read[name].append(found[2])
        bare_median = statistics.median(bare)
        print(f"{'bare PySide6 window':<22} painted: median {bare_median:.3f} s")
        for name in homes:
            if not listed[name]:
                print(f"{name:<22} never listed")
                continue
            median = statistics.median(listed[name])
            size = next((s for s in sizes if name.startswith(f"{s:,}")), 0)
            target = targets.get(size, 6.0 if size > 3000 else 4.0) if size else 2.5
            print(
                f"{name:<22} shown: median {statistics.median(shown[name]):.3f} s; listed: "
                f"median {median:.3f} s (min {min(listed[name]):.3f}, max "
                f"{max(listed[name]):.3f}) = {median / bare_median:.2f}× the bare window "
                f"(target ≤ {target:g}×); every file read and the list corrected at "
                f"{statistics.median(read[name]):.3f} s"
            )
        load_after = os.getloadavg()
        print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f}")


_SCRIPTS_SAMPLE = (
    "Natural selection and the division of labour",
    "自然选择与劳动分工的关系",
    "光合成と忘却曲線のはなし",
    "การแบ่งงานกันทำและวัฏจักรของน้ำ",
    "الجاذبية وقانون الطلب",
    "Kategorischer Imperativ und Закон спроса",
)


def _fold_before(text: str) -> str:
    """`notes.fold` as it was before issue 32 (every combining mark dropped)."""
    import unicodedata

    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def segmentation_cost(notes: int = 3000, runs: int = 7) -> None:
    imports: dict[str, list[int]] = {"text_segments": [], "function_words": []}
    # Byte code cached (in a folder of its own), as an installed app has it; the first run
    # writes it and is not counted.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="coach-bench-pyc-")
    for run in range(runs + 1):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import coach_gui.domain.no_quote"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        for line in done.stderr.splitlines() if run else ():
            for name, values in imports.items():
                if line.rstrip().endswith(f"coach_gui.domain.{name}"):
                    values.append(int(line.split("|")[0].split(":")[1]))
    for name, values in imports.items():
        print(f"import coach_gui.domain.{name}: median self {statistics.median(values)} µs")

    from coach_gui.domain import notes as notes_module
    from coach_gui.domain.notes import Note, NoteEntry, NoteSearchIndex

    rng = random.Random(5)
    entries = []
    for n in range(notes):
        title = f"{rng.choice(_SCRIPTS_SAMPLE)} {n}"
        body = " ".join(rng.choice(_SCRIPTS_SAMPLE) for _ in range(60))
        entries.append(
            NoteEntry(note=Note(id=f"n{n}", title=title, body=body), file_name=f"{n}.md")
        )

    def listing() -> float:
        started = time.perf_counter()
        NoteSearchIndex(entries).search("选择")
        return (time.perf_counter() - started) * 1000

    now = statistics.median(listing() for _ in range(runs))
    current = notes_module.fold
    notes_module.fold = _fold_before  # type: ignore[assignment]
    try:
        before = statistics.median(listing() for _ in range(runs))
    finally:
        notes_module.fold = current
    print(
        f"listing {notes:,} notes in six scripts (sort + search index + one search): "
        f"{now:.0f} ms now, {before:.0f} ms with the folding before issue 32 "
        f"({now - before:+.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--vault-notes", type=int, default=13_000)
    parser.add_argument("--bundle", default=str(REPO / "dist" / "coach" / "coach"))
    parser.add_argument("--anki", help="Anki's launcher (default: found on PATH or a venv)")
    parser.add_argument("--listed", action="store_true", help="also time the notes listed")
    parser.add_argument(
        "--listed-only",
        action="store_true",
        help="only the notes listed against a bare window, sample/3,000/13,000 notes (issue 38)",
    )
    parser.add_argument(
        "--segmentation", action="store_true", help="only what text segmentation adds"
    )
    args = parser.parse_args()
    if args.segmentation:
        segmentation_cost()
        return
    if args.listed_only:
        listed_side_by_side(args.runs, (3000, args.vault_notes))
        return
    python = [sys.executable, "-m", "coach_gui"]
    bundle = Path(args.bundle)
    anki = find_anki(args.anki)
    load_before = os.getloadavg()
    print(
        f"first window painted on screen (Xvfb, interleaved, {args.runs} runs each), "
        f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} {load_before[1]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="coach-bench-") as tmp_name:
        tmp = Path(tmp_name)
        sample = prepare_home(tmp / "sample", None)
        warm_up(python, sample)
        started = time.monotonic()
        vault = prepare_home(tmp / "vault", args.vault_notes, vault=True)
        warm_up(python, vault)
        print(f"(made a {args.vault_notes}-note vault in {time.monotonic() - started:.1f} s)")
        peers: dict[str, tuple[list[str], dict[str, str]] | None] = {
            "bare PySide6 window": ([sys.executable, "-c", BARE], sample),
            "Coach, sample notes": (python, sample),
            "Coach bundle, sample": ([str(bundle)], sample) if bundle.is_file() else None,
            f"Coach, {args.vault_notes:,}-note vault": (python, vault),
        }
        if peers["Coach bundle, sample"] is None:
            print(f"(no bundle at {bundle}: build it with packaging/build; skipped)")
        else:
            warm_up([str(bundle)], sample)
        pristine = None
        if anki is not None:
            pristine = anki_base(anki, tmp / "anki-pristine")
            peers["Anki, first window"] = ([str(anki)], dict(os.environ))
        else:
            print("(Anki not found: pip install aqt into a venv, or pass --anki; skipped)")
        times: dict[str, list[float]] = {name: [] for name, peer in peers.items() if peer}
        maps: dict[str, list[float]] = {name: [] for name in times}
        with Xvfb() as display:
            for _ in range(args.runs):
                for name, peer in peers.items():
                    if peer is None:
                        continue
                    command, env = peer
                    if name.startswith("Anki") and pristine is not None and anki is not None:
                        command = anki_run(anki, pristine, tmp / "anki-run")
                        env = {**env, "QTWEBENGINE_CHROMIUM_FLAGS": "--no-sandbox"}
                    mapped, painted = time_to_first_window(command, env, display)
                    maps[name].append(mapped)
                    times[name].append(painted)
        load_after = os.getloadavg()
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, values in times.items():
            print(
                f"{name:<30} painted: median {medians[name]:.3f} s "
                f"(min {min(values):.3f}, max {max(values):.3f}); "
                f"mapped: median {statistics.median(maps[name]):.3f} s"
            )
        bare, coach = medians["bare PySide6 window"], medians["Coach, sample notes"]
        print(f"Coach / bare PySide6 window: {coach / bare:.2f}× (target ≤ 2.2×)")
        if "Anki, first window" in medians:
            print(f"Coach / Anki: {coach / medians['Anki, first window']:.2f}× (target ≤ 0.6×)")
        if "Coach bundle, sample" in medians:
            ratio = medians["Coach bundle, sample"] / coach
            print(f"bundle / source: {ratio:.2f}× (target within 10%)")
        print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f}")
        if args.listed:
            for label, env in (("sample notes", sample), (f"{args.vault_notes:,} notes", vault)):
                found = [listed_seconds(python, env) for _ in range(3)]
                listed = sorted(f[1] for f in found if f)
                if listed:
                    print(
                        f"notes listed ({label}, --smoke): median {statistics.median(listed):.3f} s"
                    )


if __name__ == "__main__":
    main()
