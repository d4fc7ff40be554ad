"""A real-shaped vault of 13,000 notes (issue 14): first listing cold and warm, what reading
writes to the vault, and search as you type with aliases and tags.

The vault is `tests/fakes/vaults.py`'s Zettelkasten (notes without front matter, titled by
file name, inline #tags, links) plus an Obsidian-style part (aliases, tags in every form,
assertions, templates, attachments, `.obsidian/`). Side by side in the same run:
- the I/O floor: walking the folder and reading every file's bytes, nothing parsed;
- `coach notes --json` in a fresh process, cold (no front-matter cache, no id map) and
  warm;
- the store's own `load()` inside one process, cold and warm;
- search per keystroke on the real index (`NoteSearchIndex`), plain words, an alias,
  `#tag` and `tag:` queries, typed one letter at a time.

    python bench/bench_vault.py [--notes 13000]

Targets (issue 14): reading writes 0 bytes to the vault; first listing ≤ 2 s cold; search
≤ 30 ms per keystroke. Prints figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from fakes.vaults import file_hashes, obsidian_vault, zettelkasten_vault  # noqa: E402

QUERIES = ("natural sel", "#evol", "tag:phys", "entropy law", "#zz")


def _io_floor(root: Path) -> float:
    started = time.perf_counter()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md"):
                Path(folder, name).read_bytes()
    return time.perf_counter() - started


def _cli_notes(env: dict[str, str]) -> tuple[float, int, int]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "coach_gui", "notes", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    took = time.perf_counter() - started
    data = json.loads(result.stdout)
    return took, len(data["notes"]), len(data["broken"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=13_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coach-vault-") as tmp:
        root = Path(tmp)
        vault = root / "vault"
        started = time.perf_counter()
        zk = zettelkasten_vault(vault, notes=max(args.notes - 60, 10))
        part = obsidian_vault(root / "obsidian-part", notes=60)
        shutil.move(str(part.root), str(vault / "Obsidian part"))
        expected = len(zk.notes) + len(part.notes)
        print(
            f"vault: {expected:,} readable notes generated in {time.perf_counter() - started:.1f} s"
        )
        config = root / "coach.config.json"
        config.write_text(json.dumps({"kb": {"path": str(vault)}}), encoding="utf-8")
        env = dict(os.environ, COACH_HOME=str(root / "home"), COACH_CONFIG=str(config))
        before = file_hashes(vault)

        floors = [_io_floor(vault) for _ in range(3)]
        print(f"I/O floor (walk + read every .md): {min(floors) * 1000:.0f} ms")
        cold, listed, broken = _cli_notes(env)
        warm = min(_cli_notes(env)[0] for _ in range(3))
        print(
            f"`coach notes --json` (fresh process): cold {cold:.2f} s, warm {warm:.2f} s; "
            f"{listed:,} listed of {expected:,}, {broken} unreadable"
        )

        from coach_gui.adapters.notes_fs import MarkdownNoteStore
        from coach_gui.domain.notes import NoteSearchIndex

        def store() -> MarkdownNoteStore:
            return MarkdownNoteStore(
                vault,
                root / "trash",
                cache_file=root / "cache.json",
                ids_file=root / "ids.json",
            )

        for stale in (root / "cache.json", root / "ids.json"):
            stale.unlink(missing_ok=True)
        started = time.perf_counter()
        snapshot = store().load()
        load_cold = time.perf_counter() - started
        loads = []
        for _ in range(3):
            started = time.perf_counter()
            snapshot = store().load()
            loads.append(time.perf_counter() - started)
        print(f"store.load() in process: cold {load_cold:.2f} s, warm {min(loads):.2f} s")

        started = time.perf_counter()
        index = NoteSearchIndex(list(snapshot.notes))
        print(f"search index built in {(time.perf_counter() - started) * 1000:.0f} ms")
        per_key: list[float] = []
        for query in QUERIES:
            for n in range(1, len(query) + 1):
                started = time.perf_counter()
                hits = index.search(query[:n])
                per_key.append((time.perf_counter() - started) * 1000)
            print(f"  {query!r}: {len(hits):,} hits")
        per_key.sort()
        print(
            f"search per keystroke ({len(per_key)} keystrokes): median "
            f"{statistics.median(per_key):.1f} ms, p95 {per_key[int(len(per_key) * 0.95)]:.1f} ms, "
            f"max {per_key[-1]:.1f} ms"
        )
        after = file_hashes(vault)
        changed = [p for p in set(before) | set(after) if before.get(p) != after.get(p)]
        print(f"files of the vault changed by all of the above: {len(changed)} of {len(before):,}")


if __name__ == "__main__":
    main()
