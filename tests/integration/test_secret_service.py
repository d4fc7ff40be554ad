"""The key store against a real Secret Service (gnome-keyring over D-Bus), as CI runs it:

    dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets;
                               pytest -m secret_service'

Skipped, with the reason, where no D-Bus session or Secret Service is available.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import NoReturn

import keyring
import keyring.backend
import pytest

from coach_gui.adapters.secrets import KeyStore

pytestmark = pytest.mark.secret_service


def _unavailable(reason: str) -> NoReturn:
    """Skip where no Secret Service can run; fail in CI, which promises one."""
    if os.environ.get("COACH_REQUIRE_SECRET_SERVICE"):
        pytest.fail(f"CI promised a Secret Service, but {reason}")
    pytest.skip(reason)


@pytest.fixture
def secret_service() -> Iterator[keyring.backend.KeyringBackend]:
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        _unavailable("no D-Bus session bus; run under dbus-run-session with gnome-keyring-daemon")
    try:
        from keyring.backends import SecretService

        SecretService.Keyring.priority  # noqa: B018 - raises when no Secret Service answers
        backend = SecretService.Keyring()
        backend.get_password("coach-test", "probe")  # a locked or absent collection fails here
    except Exception as error:
        _unavailable(f"no usable Secret Service ({type(error).__name__}: {error})")
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_a_key_round_trips_through_the_secret_service(
    secret_service: keyring.backend.KeyringBackend,
) -> None:
    store = KeyStore(username=f"test_{uuid.uuid4().hex}")
    secret = f"AIza-{uuid.uuid4().hex}"
    try:
        assert store.get() is None
        store.set(secret)
        assert store.get() == secret
        assert secret_service.get_password("coach", store.username) == secret
        status = store.status()
        assert status.backend == "SecretService.Keyring"
        assert (status.has_key, status.usable) == (True, True)
        assert secret not in repr(status)
        assert store.clear() is True
        assert store.get() is None
    finally:
        store.clear()
