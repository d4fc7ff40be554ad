"""Suite-wide rules: every test gets its own data and config folders, Qt runs offscreen,
and any connection outside loopback fails the test (DESIGN §9)."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Every test, and every `coach` process a test starts, uses a file keyring of its own.
_TESTS = str(Path(__file__).resolve().parent)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_TESTS, os.environ.get("PYTHONPATH")) if p)
os.environ["PYTHON_KEYRING_BACKEND"] = "fakes.keyring_backend.FileKeyring"
# Keep a developer's own keys and Gemini settings out of the tests.
for _name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
    os.environ.pop(_name, None)

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_create_connection = socket.create_connection


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    if not isinstance(host, str):
        return False
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class NonLoopbackConnection(AssertionError):
    pass


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise NonLoopbackConnection(f"test tried to connect outside loopback: {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise NonLoopbackConnection(f"test tried to connect outside loopback: {address!r}")
    return _real_connect_ex(self, address)


def _guarded_create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
    if not _is_local(address):
        raise NonLoopbackConnection(f"test tried to connect outside loopback: {address!r}")
    return _real_create_connection(address, *args, **kwargs)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
socket.create_connection = _guarded_create_connection  # type: ignore[assignment]


_GUI_TESTS = Path(_TESTS) / "gui"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """A window's tests run with the cyclic garbage collector on the GUI thread only, as
    the app does (`tasks.collect_on_gui_thread`); the first test after them that is not a
    window's gets Python's own collector back, after every fixture is torn down."""
    try:
        return (yield)
    finally:
        tasks = sys.modules.get("coach_gui.ui.kit.tasks")
        leaving = nextitem is None or _GUI_TESTS not in nextitem.path.resolve().parents
        if tasks is not None and leaving:
            tasks.collect_automatically()


@pytest.fixture(params=["ollama", "openai"])
def wire(request: pytest.FixtureRequest) -> str:
    """The local model server's wire format (issue 31): every test that asks for it runs
    against Ollama's native API and against the OpenAI-compatible one. A test about one
    format only says so with `pytest.mark.parametrize("wire", [...])`."""
    return str(request.param)


@pytest.fixture(autouse=True)
def contexts_closed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close the journal of every app context a test built (the window leaves its context to
    the app, which tests do not run): each left open kept its connections, and a long run
    reached a thousand open files, past what `select` can watch."""
    from coach_gui import bootstrap

    made: list[bootstrap.AppContext] = []
    original = bootstrap.AppContext.__post_init__

    def tracked(self: bootstrap.AppContext) -> None:
        original(self)
        made.append(self)

    monkeypatch.setattr(bootstrap.AppContext, "__post_init__", tracked)
    yield
    if made and "coach_gui.ui.kit.tasks" in sys.modules:
        # A worker of a closed window may still be reading: its connection must not be
        # closed under it (that crashes), so every worker finishes first.
        sys.modules["coach_gui.ui.kit.tasks"].wait_for_all(10_000)
    for context in made:
        context.close()


@pytest.fixture(autouse=True)
def coach_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh COACH_HOME and COACH_CONFIG per test: nothing shared, nothing of the user's."""
    home = tmp_path / "coach-home"
    monkeypatch.setenv("COACH_HOME", str(home))
    monkeypatch.setenv("COACH_CONFIG", str(tmp_path / "config" / "coach.config.json"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("COACH_TEST_KEYRING", str(tmp_path / "keyring" / "keys.json"))
    _trash_in(tmp_path / "xdg-data", monkeypatch)
    yield home


def _trash_in(data_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """send2trash reads XDG_DATA_HOME once, when imported: point it at this test's folder,
    so no test ever puts a file in a developer's own trash."""
    try:
        from send2trash import plat_other
    except ImportError:  # another platform's implementation
        return
    monkeypatch.setattr(plat_other, "XDG_DATA_HOME", os.fsencode(data_home))
    monkeypatch.setattr(plat_other, "HOMETRASH_B", os.fsencode(data_home / "Trash"))
    monkeypatch.setattr(plat_other, "HOMETRASH", str(data_home / "Trash"))


@pytest.fixture
def in_kathmandu() -> Iterator[None]:
    """The learner at UTC+05:45 (no whole-hour slip hides); the zone put back after."""
    from time_zone import learner_in

    with learner_in("Asia/Kathmandu"):
        yield
