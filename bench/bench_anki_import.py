"""Import of a large Anki deck (issue 37): time and peak memory.

    python bench/bench_anki_import.py [--cards 20000] [--reviews 200000] [--folder DIR]

Builds a legacy-format `.apkg` (schema 11, written with sqlite3 directly, for speed) of
`--cards` Basic notes in nested decks, each answer a two-item list, every card reviewed
(`--reviews` entries in all, a tenth of them manual ones that are skipped) with half the
cards carrying FSRS memory; then imports it into an empty knowledge base and journal in
this process (`operations.anki_import`, as `coach import` does), and replays the imported
histories (the first Today after an import). Prints the wall time of each step and the
process's peak resident memory (ru_maxrss) before and after, and Python's own peak
allocation during the import (tracemalloc, in a second run so it does not slow the first).
Prints figures only; nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import sys
import tempfile
import time
import tracemalloc
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DAY = 86_400


def build_package(path: Path, cards: int, reviews: int) -> None:
    rng = random.Random(37)
    db_path = path.with_suffix(".anki21")
    db_path.unlink(missing_ok=True)
    conn = sqlite3.connect(db_path)
    now = int(time.time())
    crt = now - 400 * DAY
    models = {"1": {"id": 1, "name": "Basic", "type": 0,
                    "flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}],
                    "tmpls": [{"ord": 0, "qfmt": "{{Front}}",
                               "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}]}}  # fmt: skip
    decks = {str(d): {"id": d, "name": f"Bench::Part {d}"} for d in range(1, 21)}
    conn.executescript(
        "CREATE TABLE col (id INTEGER PRIMARY KEY, crt INTEGER, mod INTEGER, scm INTEGER,"
        " ver INTEGER, dty INTEGER, usn INTEGER, ls INTEGER, conf TEXT, models TEXT,"
        " decks TEXT, dconf TEXT, tags TEXT);"
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, guid TEXT, mid INTEGER, mod INTEGER,"
        " usn INTEGER, tags TEXT, flds TEXT, sfld TEXT, csum INTEGER, flags INTEGER, data TEXT);"
        "CREATE TABLE cards (id INTEGER PRIMARY KEY, nid INTEGER, did INTEGER, ord INTEGER,"
        " mod INTEGER, usn INTEGER, type INTEGER, queue INTEGER, due INTEGER, ivl INTEGER,"
        " factor INTEGER, reps INTEGER, lapses INTEGER, left INTEGER, odue INTEGER,"
        " odid INTEGER, flags INTEGER, data TEXT);"
        "CREATE TABLE revlog (id INTEGER PRIMARY KEY, cid INTEGER, usn INTEGER, ease INTEGER,"
        " ivl INTEGER, lastIvl INTEGER, factor INTEGER, time INTEGER, type INTEGER);"
    )
    conn.execute(
        "INSERT INTO col VALUES (1, ?, ?, 0, 11, 0, 0, 0, ?, ?, ?, '{}', '{}')",
        (crt, now, json.dumps({"schedVer": 2}), json.dumps(models), json.dumps(decks)),
    )
    per_card = max(1, reviews // cards)
    notes, card_rows, log = [], [], []
    for n in range(cards):
        nid = cid = 1_500_000_000_000 + n
        front = f"What is fact <b>{n}</b> of topic {n % 97}?"
        back = f"<ul><li>Fact {n} holds</li><li>because of reason {n * 7 % 1000}</li></ul>"
        notes.append((nid, f"g{n:07d}", 1, now, -1, f" topic{n % 97} ", f"{front}\x1f{back}",
                      front, 0, 0, ""))  # fmt: skip
        ivl = rng.randint(1, 120)
        data = json.dumps({"s": ivl * 1.1, "d": rng.uniform(2, 8)}) if n % 2 else ""
        due = (now - crt) // DAY + rng.randint(-10, ivl)
        card_rows.append((cid, nid, 1 + n % 20, 0, now, -1, 2, 2, due, ivl, 2500, per_card, 0,
                          0, 0, 0, 0, data))  # fmt: skip
        start = now - 300 * DAY
        for k in range(per_card):
            at = (start + k * 25 * DAY + rng.randint(0, DAY)) * 1000 + n % 1000
            kind = 4 if k == per_card - 1 and n % 10 == 0 else 1
            log.append((at, cid, -1, 0 if kind == 4 else rng.choice((1, 3, 3, 3, 4)), ivl, 0,
                        2500, 6000, kind))  # fmt: skip
    conn.executemany(f"INSERT INTO notes VALUES ({','.join('?' * 11)})", notes)
    conn.executemany(f"INSERT INTO cards VALUES ({','.join('?' * 18)})", card_rows)
    conn.executemany(f"INSERT OR IGNORE INTO revlog VALUES ({','.join('?' * 9)})", log)
    conn.commit()
    conn.close()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(db_path, "collection.anki21")
        zf.writestr("media", "{}")
    db_path.unlink()


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_import(package: Path, home: Path, *, traced: bool) -> dict[str, float]:
    os.environ["COACH_HOME"] = str(home)
    os.environ["COACH_CONFIG"] = str(home / "coach.config.json")
    home.mkdir(parents=True, exist_ok=True)
    (home / "coach.config.json").write_text(
        json.dumps({"kb": {"path": str(home / "kb")}, "judge": {"enabled": False}})
    )
    from coach_gui.bootstrap import build_context
    from coach_gui.operations import anki_import

    context = build_context(seed=False)
    figures: dict[str, float] = {}
    try:
        if traced:
            tracemalloc.start()
        started = time.perf_counter()
        plan = anki_import.preview(context, package)
        figures["preview_s"] = time.perf_counter() - started
        report = anki_import.apply(context, plan)
        figures["import_s"] = time.perf_counter() - started
        if traced:
            figures["python_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        figures["notes"] = len(report.created)
        figures["reviews"] = report.reviews_imported
        if not traced:
            started = time.perf_counter()
            context.scheduler().refresh()
            figures["replay_s"] = time.perf_counter() - started
    finally:
        context.close()
    return figures


def anki_import_seconds(package: Path, folder: Path) -> float | None:
    """The same package imported by Anki's own library (a test dependency), for scale."""
    try:
        from anki.collection import (
            Collection,
            ImportAnkiPackageOptions,
            ImportAnkiPackageRequest,
        )
    except ImportError:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    col = Collection(str(folder / "collection.anki2"))
    try:
        started = time.perf_counter()
        col.import_anki_package(
            ImportAnkiPackageRequest(
                package_path=str(package),
                options=ImportAnkiPackageOptions(with_scheduling=True),
            )
        )
        return time.perf_counter() - started
    except Exception as exc:  # a bench says why it has no figure
        print(f"side by side: Anki's own importer refuses this synthetic package ({exc})"[:200])
        return None
    finally:
        col.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=20_000)
    parser.add_argument("--reviews", type=int, default=200_000)
    parser.add_argument("--folder", type=Path, default=None)
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="coach-anki-bench-"))
    package = folder / "big.apkg"
    started = time.perf_counter()
    build_package(package, args.cards, args.reviews)
    built = time.perf_counter() - started
    size = package.stat().st_size / 2**20
    print(f"package: {args.cards:,} cards, {args.reviews:,} review-log entries, "
          f"{size:.1f} MiB, built in {built:.1f} s")  # fmt: skip
    before = peak_mib()
    figures = run_import(package, folder / "home", traced=False)
    print(f"import: {figures['notes']:,.0f} notes, {figures['reviews']:,.0f} reviews; "
          f"preview {figures['preview_s']:.1f} s, preview + import {figures['import_s']:.1f} s; "
          f"first replay of the histories {figures['replay_s']:.1f} s")  # fmt: skip
    print(f"peak resident memory: {before:.0f} MiB before, {peak_mib():.0f} MiB after")
    anki = anki_import_seconds(package, folder / "anki")
    if anki is not None:
        print(f"side by side: Anki's own library imports the same package in {anki:.1f} s")
    traced = run_import(package, folder / "home-traced", traced=True)
    print(f"Python's peak allocation during preview + import: {traced['python_peak_mib']:.0f} MiB "
          f"(tracemalloc run: {traced['import_s']:.1f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
