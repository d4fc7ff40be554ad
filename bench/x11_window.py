"""When does a process's first window appear — mapped, and painted? Watches an X server
(Xvfb) over Xlib and the DAMAGE extension through ctypes (no extra package), so the bare
PySide6 window, Coach, its bundle and Anki are timed the same way. "Painted" is the first
drawing into that window's contents: a mapped window that is not painted yet shows
nothing of the app (Qt maps before it paints, and a slow start paints late).

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

_CREATE_NOTIFY = 16
_MAP_NOTIFY = 19
_SUBSTRUCTURE_NOTIFY_MASK = 1 << 19
_DAMAGE_REPORT_NON_EMPTY = 3


class _XCreateWindowEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("parent", ctypes.c_ulong),
        ("window", ctypes.c_ulong),
        ("x", ctypes.c_int),
        ("y", ctypes.c_int),
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("border_width", ctypes.c_int),
        ("override_redirect", ctypes.c_int),
    ]


class _XDamageNotifyEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("drawable", ctypes.c_ulong),
    ]


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
    _fields_ = [
        ("type", ctypes.c_int),
        ("xmap", _XMapEvent),
        ("xcreate", _XCreateWindowEvent),
        ("xdamage", _XDamageNotifyEvent),
        ("pad", ctypes.c_long * 24),
    ]


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


def _xdamage() -> ctypes.CDLL:
    name = ctypes.util.find_library("Xdamage") or "libXdamage.so.1"
    lib = ctypes.CDLL(name)
    lib.XDamageQueryExtension.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_int),
    ]
    lib.XDamageCreate.restype = ctypes.c_ulong
    lib.XDamageCreate.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int]
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
) -> tuple[float, float]:
    """(mapped, painted): seconds from just before `args` is spawned to its first
    top-level window mapped, and to the first drawing into it; the process is then
    killed (with its children)."""
    lib, damage = _xlib(), _xdamage()
    handle = lib.XOpenDisplay(display.encode())
    if not handle:
        raise RuntimeError(f"cannot open X display {display}")
    try:
        event_base, error_base = ctypes.c_int(), ctypes.c_int()
        if not damage.XDamageQueryExtension(handle, event_base, error_base):
            raise RuntimeError(f"the X server on {display} has no DAMAGE extension")
        lib.XSelectInput(handle, lib.XDefaultRootWindow(handle), _SUBSTRUCTURE_NOTIFY_MASK)
        lib.XFlush(handle)
        fd = lib.XConnectionNumber(handle)
        event = _XEvent()
        run_env = {**env, "DISPLAY": display}
        run_env.pop("QT_QPA_PLATFORM", None)
        watched: set[int] = set()
        mapped: dict[int, float] = {}
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
                    now = time.monotonic() - started
                    if event.type == _CREATE_NOTIFY and not event.xcreate.override_redirect:
                        # Watch its contents from its creation, before it can be drawn into.
                        damage.XDamageCreate(handle, event.xcreate.window, _DAMAGE_REPORT_NON_EMPTY)
                        lib.XFlush(handle)
                        watched.add(event.xcreate.window)
                    elif event.type == _MAP_NOTIFY and event.xmap.window in watched:
                        mapped.setdefault(event.xmap.window, now)
                    elif event.type == event_base.value and event.xdamage.drawable in mapped:
                        return mapped[event.xdamage.drawable], now
                left = timeout - (time.monotonic() - started)
                if left <= 0 or process.poll() is not None:
                    name, code = Path(args[0]).name, process.poll()
                    raise RuntimeError(f"no window painted by {name} (exit {code})")
                select.select([fd], [], [], min(left, 0.5))
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
    finally:
        lib.XCloseDisplay(handle)
