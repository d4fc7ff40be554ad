"""The tamper sweep of issue 21, with its figures: a journal recorded through the `coach`
command line against loopback fakes (judged answers, a judge error, a malformed reply,
judging later that fails then succeeds, a paired eval with a failed call), then every
single-field edit, every row deletion, whole-session and whole-eval deletions and full
re-seals without the key, each checked by `coach verify`; and the untouched journal after
VACUUM and after `coach backup` + `coach restore`.

    python bench/tamper_sweep.py

Prints figures only (tests/integration/test_tamper_sweep.py asserts on them).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "fakes.keyring_backend.FileKeyring")

from stress import tamper_sweep as sweep


def _fresh(recorded: Path, into: Path) -> Path:
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(recorded, into)
    os.environ["COACH_TEST_KEYRING"] = str(into / "keyring" / "keys.json")
    return into / "coach-home" / "journal.sqlite3"


def _outcome(path: Path) -> str:
    report = sweep.check(path)
    if report.first_failure is None:
        return f"passes ({report.checked} entries checked)"
    return f"caught: {report.first_failure.reason} at {report.first_failure.id[:16]}"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="coach-tamper-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        sweep.record_journal(root / "recorded")
        print(f"recorded through the CLI in {time.perf_counter() - started:.1f} s")
        path = _fresh(root / "recorded", root / "work")
        clean = sweep.check(path)
        assert clean.log is not None
        print(f"untouched: ok={clean.ok}, {clean.checked} entries checked, "
              f"log of {clean.log.size} traces")  # fmt: skip
        started = time.perf_counter()
        result = sweep.sweep(path, root / "work" / "keyring" / "keys.json")
        took = time.perf_counter() - started
        print(f"sweep: {result.rows} rows in {len(sweep.sealed_tables_of(path))} tables, "
              f"{result.edits} single-field edits ({result.edits_refused} more refused by the "
              f"schema itself), {result.deletions} row deletions, {took:.1f} s")  # fmt: skip
        print(f"  missed: {len(result.missed)} {result.missed[:5]}")
        print(f"  first failure by reason: {dict(sorted(result.by_reason.items()))}")
        print(f"  edits the schema refuses: {sorted(result.refused_fields)}")
        print(f"  after the sweep (each change undone): {_outcome(path)}")
        path = _fresh(root / "recorded", root / "work")
        sweep.delete_session(path)
        print(f"whole session deleted: {_outcome(path)}")
        path = _fresh(root / "recorded", root / "work")
        sweep.delete_eval_run(path)
        print(f"whole signed eval run deleted: {_outcome(path)}")
        for head in ("keep", "drop", "own"):
            path = _fresh(root / "recorded", root / "work")
            sweep.reseal_without_key(path, head)
            print(f"full re-seal without the key, head {head!r}: {_outcome(path)}")
        path = _fresh(root / "recorded", root / "work")
        sweep.vacuumed(path)
        print(f"untouched after VACUUM: {_outcome(path)}")
        restored = sweep.backed_up_and_restored(root / "work")
        print(f"untouched after coach backup + coach restore: {_outcome(restored)}")


if __name__ == "__main__":
    main()
