"""Quitting: from the window's close to the process gone (issue 13).

Each run is a fresh process that opens the real main window offscreen on the sample
notes, then closes it: with nothing in flight, with a Tier 1 stream in flight (a fake
Ollama that hangs mid-reply), and with a judge call in flight (a fake Gemini that takes
30 s). A bare PySide6 window, closed the same way, is measured side by side. The time is
from just before `close()` (stamped by the child) to the parent seeing the process exit.

Offscreen first, then (issue 33) the same on a real X server with a window manager: Xvfb
(1440×900) with openbox, the xcb platform, where quitting an idle window had taken 2.3 s.

    python bench/bench_quit.py [--runs 7] [--no-wm]

Targets: ≤ 0.3 s with nothing in flight (offscreen and under the window manager), ≤ 1 s
with a stream or a judge call in flight. Prints figures only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
KEY = "bench-key"


def child(mode: str) -> None:
    from PySide6.QtCore import QTimer

    if mode == "bare":
        from PySide6.QtWidgets import QApplication, QWidget

        app = QApplication([])
        window = QWidget()
        window.show()

        def close_bare() -> None:
            print(f"CLOSE {time.time():.6f}", flush=True)
            window.close()

        QTimer.singleShot(300, close_bare)
        sys.exit(app.exec())

    from coach_gui.adapters.secrets import KeyStore
    from coach_gui.ui.practice.practice_view import Phase
    from coach_gui.ui.shell import app as gui

    KeyStore().set(KEY)
    qapp = gui.create_application([])
    window = gui.open_main_window(ask=False)
    assert window is not None
    pane = window.views.practice
    wanted = {"idle": None, "stream": Phase.STREAMING, "judge": Phase.JUDGING}[mode]

    def close() -> None:
        print(f"CLOSE {time.time():.6f}", flush=True)
        window.close()

    def poll() -> None:
        if pane.phase is Phase.ANSWERING and mode == "judge":
            pane.view.answer_box.setPlainText("Kept differences add up over many generations.")
            pane.submit()
        if pane.phase is wanted:
            QTimer.singleShot(200, close)  # the request is on its way by then
        else:
            QTimer.singleShot(10, poll)

    def listed() -> None:
        if wanted is None:
            QTimer.singleShot(300, close)
            return
        entry = window.note_list.model.entry(0)
        window.views.show_practice()
        pane.start(entry.note)
        poll()

    def never_got_there() -> None:
        print(f"the {mode} state was never reached", file=sys.stderr, flush=True)
        os._exit(3)

    window.notes_listed.connect(listed)
    QTimer.singleShot(30_000, never_got_there)
    window.show()
    sys.exit(gui.leave(qapp.exec()))


def run_once(mode: str, env: dict[str, str]) -> float:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", mode],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    closed_at = None
    for line in proc.stdout:
        if line.startswith("CLOSE "):
            closed_at = float(line.split()[1])
    proc.wait(timeout=60)
    gone = time.time()
    if closed_at is None:
        raise RuntimeError(f"{mode}: the child never closed its window (exit {proc.returncode})")
    return gone - closed_at


@contextlib.contextmanager
def window_manager(number: int = 93) -> Iterator[str]:
    """Xvfb at 1440×900 with openbox managing it; yields the DISPLAY."""
    display = f":{number}"
    server = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1440x900x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wm: subprocess.Popen[bytes] | None = None
    try:
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                break
            time.sleep(0.05)
        wm = subprocess.Popen(
            ["openbox"], env=dict(os.environ, DISPLAY=display),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(0.5)  # openbox takes the screen
        yield display
    finally:
        for process in (wm, server):
            if process is not None:
                process.terminate()
                process.wait(5)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-wm", action="store_true", help="offscreen only")
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    measure(args.runs, "offscreen", None, ("bare", "idle", "stream", "judge"))
    if args.no_wm or not (shutil.which("Xvfb") and shutil.which("openbox")):
        return
    with window_manager() as display:
        measure(args.runs, "Xvfb 1440x900 + openbox", display, ("bare", "idle"))


def measure(runs: int, where: str, display: str | None, modes: tuple[str, ...]) -> None:

    from fakes.gemini_server import FakeGemini
    from fakes.gemini_server import Fault as GeminiFault
    from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, Fault

    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeOllama() as ollama,
        FakeGemini(api_keys={KEY}, slow_seconds=30) as gemini,
    ):
        config = Path(tmp) / "coach.config.json"
        env = dict(
            os.environ, QT_QPA_PLATFORM="offscreen" if display is None else "xcb",
            COACH_CONFIG=str(config),
            PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]),
            PYTHON_KEYRING_BACKEND="fakes.keyring_backend.FileKeyring",
            COACH_TEST_KEYRING=str(Path(tmp) / "keys.json"),
        )  # fmt: skip
        settings = {
            "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": False},
            "judge": {"enabled": True, "baseUrl": gemini.url, "maxRetries": 0,
                      "timeoutSeconds": 60},
        }  # fmt: skip
        if display is not None:
            env["DISPLAY"] = display
        config.write_text(json.dumps(settings), "utf-8")
        results: dict[str, list[float]] = {m: [] for m in modes}
        for i in range(runs):
            for mode in results:  # interleaved, so load hits every mode alike
                env["COACH_HOME"] = str(Path(tmp) / f"home-{mode}-{i}")
                env["XDG_CONFIG_HOME"] = str(Path(tmp) / f"xdg-{mode}-{i}")
                if mode == "stream":
                    ollama.inject(Fault.HANG, after_tokens=3)
                if mode == "judge":
                    gemini.inject(GeminiFault.SLOW)
                results[mode].append(run_once(mode, env))
    labels = {
        "bare": "bare PySide6 window, nothing in flight",
        "idle": "Coach, nothing in flight",
        "stream": "Coach, Tier 1 stream in flight",
        "judge": "Coach, judge call in flight",
    }
    print(where)
    for mode, times in results.items():
        print(
            f"  {labels[mode]:<40} median {statistics.median(times):.3f} s  "
            f"(min {min(times):.3f}, max {max(times):.3f}, {len(times)} runs)"
        )


if __name__ == "__main__":
    main()
