"""Whether this Qt binding leaks references to None and True (issue 13, ADR 0011).

Prints, for this interpreter and its PySide6, how far `sys.getrefcount` of None and True
moves over N void calls and N emits; `--check` exits 1 when it moves (packaging/build
uses it, so no bundle is built on a broken pair). Any interpreter with PySide6 will do:

    python bench/bench_qt_refcounts.py [--calls 100000] [--check]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # coach_gui, installed or not


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--check", action="store_true", help="exit 1 if a count moves")
    args = parser.parse_args()

    import PySide6
    from PySide6.QtWidgets import QApplication

    from coach_gui.ui.kit.qt_health import probe

    app = QApplication.instance() or QApplication([])
    drift = probe(args.calls)
    print(
        f"python {platform.python_version()} + PySide6 {PySide6.__version__}: over "
        f"{args.calls:,} void calls and {args.calls:,} emits, {drift.describe()}",
        flush=True,
    )
    del app
    return 1 if args.check and not drift.ok and not drift.moot else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # no teardown: a leaking binding may still be short of references
