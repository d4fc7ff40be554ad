"""When does a process's first window appear? Watches an X server (Xvfb) for the first
top-level window mapped after a process starts, over Xlib through ctypes (no extra
package), so the bare PySide6 window, Coach, its bundle and Anki are timed the same way.

    with Xvfb() as display:
        seconds = time_to_first_window(["python", "-m", "coach_gui"], env, display)
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

_MAP_NOTIFY = 19
_SUBSTRUCTURE_NOTIFY_MASK = 1 << 19


class _XMapEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("event", ctypes.c_ulong),
        ("window", ctypes.c_ulong),
        ("override_redirect", ctypes.c_int),
    ]


class _XEvent(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("xmap", _XMapEvent), ("pad", ctypes.c_long * 24)]


def _xlib() -> ctypes.CDLL:
    name = ctypes.util.find_library("X11") or "libX11.so.6"
    lib = ctypes.CDLL(name)
    lib.XOpenDisplay.restype = ctypes.c_void_p
    lib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    lib.XDefaultRootWindow.restype = ctypes.c_ulong
    lib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    lib.XSelectInput.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_long]
    lib.XConnectionNumber.argtypes = [ctypes.c_void_p]
    lib.XPending.argtypes = [ctypes.c_void_p]
    lib.XNextEvent.argtypes = [ctypes.c_void_p, ctypes.POINTER(_XEvent)]
    lib.XFlush.argtypes = [ctypes.c_void_p]
    lib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    return lib


class Xvfb:
    """A private X server for the bench (no window manager: a client's top-level window is
    mapped on the root itself)."""

    def __init__(self, number: int = 87) -> None:
        self.display = f":{number}"
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> str:
        if shutil.which("Xvfb") is None:
            raise RuntimeError("Xvfb is not installed (apt-get install xvfb)")
        self._process = subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        lib = _xlib()
        for _ in range(100):
            handle = lib.XOpenDisplay(self.display.encode())
            if handle:
                lib.XCloseDisplay(handle)
                return self.display
            time.sleep(0.05)
        raise RuntimeError(f"Xvfb did not start on {self.display}")

    def __exit__(self, *_exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(5)


def time_to_first_window(
    args: list[str], env: dict[str, str], display: str, *, timeout: float = 60.0
) -> float:
    """Seconds from just before `args` is spawned to the first top-level window it maps;
    the process is then killed (with its children)."""
    lib = _xlib()
    handle = lib.XOpenDisplay(display.encode())
    if not handle:
        raise RuntimeError(f"cannot open X display {display}")
    try:
        lib.XSelectInput(handle, lib.XDefaultRootWindow(handle), _SUBSTRUCTURE_NOTIFY_MASK)
        lib.XFlush(handle)
        fd = lib.XConnectionNumber(handle)
        event = _XEvent()
        run_env = {**env, "DISPLAY": display}
        run_env.pop("QT_QPA_PLATFORM", None)
        started = time.monotonic()
        process = subprocess.Popen(
            args,
            env=run_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            while True:
                while lib.XPending(handle):
                    lib.XNextEvent(handle, ctypes.byref(event))
                    if event.type == _MAP_NOTIFY and not event.xmap.override_redirect:
                        return time.monotonic() - started
                left = timeout - (time.monotonic() - started)
                if left <= 0 or process.poll() is not None:
                    raise RuntimeError(
                        f"no window from {Path(args[0]).name} (exit {process.poll()})"
                    )
                select.select([fd], [], [], min(left, 0.5))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
    finally:
        lib.XCloseDisplay(handle)
