"""Keys in the OS keyring (DESIGN §1.7): stored, read and cleared through a real keyring
backend (in memory here), never through a plain-text or placeholder one, never echoed."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.backends import chainer, fail, null
from keyring.compat import properties

from coach_gui.adapters.secrets import GEMINI_API_KEY, SERVICE, KeyStore
from coach_gui.domain.errors import CoachError
from coach_gui.domain.judge_errors import EmptyKey, JudgeKeyMalformed, KeyringUnavailable

SECRET = "AIzaSy-test-secret-0000000000000000000"


class InRamKeyring(keyring.backend.KeyringBackend):
    """A real backend that keeps passwords in a dict, recording what was asked of it."""

    @properties.classproperty
    def priority(cls) -> float:
        return 1

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.passwords:
            raise keyring.errors.PasswordDeleteError("not found")
        del self.passwords[(service, username)]


class PlaintextKeyring(InRamKeyring):
    """Stands in for keyrings.alt's file backend (not installed here), by its real name."""

    @properties.classproperty
    def priority(cls) -> float:
        return 0.5


PlaintextKeyring.__module__ = "keyrings.alt.file"


class LowPriorityKeyring(InRamKeyring):
    @properties.classproperty
    def priority(cls) -> float:
        return 0.2


class LockedKeyring(InRamKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")

    set_password = delete_password = get_password  # type: ignore[assignment]


class EchoingKeyring(InRamKeyring):
    """A backend whose error repeats what it was given (the key must not reach us)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError(f"cannot store {password!r} for {username}")


# Defining a backend class registers it with keyring's own discovery; take ours back out,
# so no other test can get one of them as "the system keyring".
for _test_backend in (
    InRamKeyring,
    PlaintextKeyring,
    LowPriorityKeyring,
    LockedKeyring,
    EchoingKeyring,
):
    keyring.backend.KeyringBackend._classes.discard(_test_backend)  # type: ignore[attr-defined]

UseKeyring = Callable[[keyring.backend.KeyringBackend], keyring.backend.KeyringBackend]


@pytest.fixture
def use_keyring() -> Iterator[UseKeyring]:
    """Set a backend for the test (`keyring.set_keyring`); the previous one comes back after."""
    previous = keyring.get_keyring()

    def use(backend: keyring.backend.KeyringBackend) -> keyring.backend.KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield use
    keyring.set_keyring(previous)


@pytest.fixture
def memory(use_keyring: UseKeyring) -> InRamKeyring:
    backend = InRamKeyring()
    use_keyring(backend)
    return backend


def test_a_key_is_stored_read_and_cleared(memory: InRamKeyring) -> None:
    store = KeyStore()
    assert store.get() is None
    store.set(SECRET + "\n")  # pasted with a newline
    assert memory.passwords == {(SERVICE, GEMINI_API_KEY): SECRET}
    assert store.get() == SECRET
    assert store.clear() is True
    assert store.get() is None
    assert store.clear() is False


def test_service_and_username_are_coach_and_gemini_api_key(memory: InRamKeyring) -> None:
    KeyStore().set(SECRET)
    assert list(memory.passwords) == [("coach", "gemini_api_key")]


def test_another_username_holds_another_secret(memory: InRamKeyring) -> None:
    KeyStore().set(SECRET)
    signing = KeyStore(username="eval_signing_key")
    assert signing.get() is None
    signing.set("hmac-secret")
    assert KeyStore().get() == SECRET
    assert memory.passwords[("coach", "eval_signing_key")] == "hmac-secret"


def test_status_says_which_backend_and_whether_a_key_is_set(memory: InRamKeyring) -> None:
    store = KeyStore()
    before = store.status()
    assert (before.has_key, before.usable) == (False, True)
    assert before.backend == "test_secrets.InRamKeyring"
    assert "coach key set" in before.detail
    store.set(SECRET)
    after = store.status()
    assert (after.has_key, after.usable) == (True, True)
    assert SECRET not in repr(after)


@pytest.mark.parametrize("blank", ["", "   ", "\n"])
def test_an_empty_key_is_refused(memory: InRamKeyring, blank: str) -> None:
    with pytest.raises(EmptyKey, match="Paste the whole key"):
        KeyStore().set(blank)
    assert memory.passwords == {}


@pytest.mark.parametrize(
    "bad",
    ["AIzaSy-one\ntwo", "AIzaSy-one\r\ntwo", "AIzaSy-one\x00two", "AIzaSy one", "AIzaSy-clé",
     "AIzaSy\u2028x", "AIzaSy\tx"],
)  # fmt: skip
def test_a_key_no_api_key_could_be_is_refused_with_the_reason(
    memory: InRamKeyring, bad: str
) -> None:
    """Issue 21 item 4: an HTTP library's error once carried an escaped copy of such a key
    past the scrubber. Refused before it is stored, and the message holds no part of it."""
    with pytest.raises(JudgeKeyMalformed) as caught:
        KeyStore().set(bad)
    assert memory.passwords == {}
    message = str(caught.value)
    assert "a line break, a space, a control or a non-ASCII character" in message
    assert "one" not in message and "two" not in message


def test_a_pasted_key_keeps_working_with_its_newline(memory: InRamKeyring) -> None:
    KeyStore().set(SECRET + "\n")
    assert KeyStore().get() == SECRET


@pytest.mark.parametrize(
    ("backend", "why"),
    [
        (fail.Keyring(), "no OS keyring is available"),
        (null.Keyring(), "no OS keyring is available"),
        (PlaintextKeyring(), "the keyring in use keeps keys in a plain file"),
        (LowPriorityKeyring(), "is not one keyring itself recommends for keys"),
    ],
)
def test_plaintext_and_placeholder_backends_are_refused(
    use_keyring: UseKeyring,
    backend: keyring.backend.KeyringBackend,
    why: str,
) -> None:
    use_keyring(backend)
    store = KeyStore()
    for action in (store.get, lambda: store.set(SECRET), store.clear):
        with pytest.raises(KeyringUnavailable) as caught:
            action()
        message = str(caught.value)
        assert why in message
        assert "gnome-keyring" in message and "KWallet" in message
        assert "never keeps keys in a plain-text file" in message
        assert "Keyring" not in message and "keyrings.alt" not in message  # a class name
    assert getattr(backend, "passwords", {}) == {}
    status = store.status()
    assert (status.usable, status.has_key) == (False, False)
    assert why in status.detail


def test_a_chain_uses_only_its_best_backend(
    use_keyring: UseKeyring,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    best, plaintext = InRamKeyring(), PlaintextKeyring()
    plaintext.passwords[(SERVICE, GEMINI_API_KEY)] = "stale-plaintext-key"
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [best, plaintext])
    use_keyring(chainer.ChainerBackend())
    store = KeyStore()
    assert store.get() is None  # never falls through to the plain-text file
    store.set(SECRET)
    assert best.passwords == {(SERVICE, GEMINI_API_KEY): SECRET}
    assert store.status().backend == "test_secrets.InRamKeyring"


def test_an_empty_chain_is_no_keyring(
    use_keyring: UseKeyring,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    use_keyring(chainer.ChainerBackend())
    with pytest.raises(KeyringUnavailable, match="no OS keyring"):
        KeyStore().get()


def test_a_locked_keyring_says_to_unlock_it(use_keyring: UseKeyring) -> None:
    use_keyring(LockedKeyring())
    with pytest.raises(KeyringUnavailable, match="locked") as caught:
        KeyStore().get()
    assert isinstance(caught.value, CoachError)
    assert "Unlock it (log in to the desktop session" in str(caught.value)
    assert "Install" not in str(caught.value)
    status = KeyStore().status()
    assert status.usable is False and "locked" in status.detail


def test_adr0021_d7_a_backend_error_never_carries_the_key(
    use_keyring: UseKeyring, tmp_path: Path
) -> None:
    use_keyring(EchoingKeyring())
    log_file = tmp_path / "coach.log"
    handler = logging.FileHandler(log_file, encoding="utf-8")
    logging.getLogger("coach_gui").addHandler(handler)
    try:
        with pytest.raises(KeyringUnavailable) as caught:
            KeyStore().set(SECRET)
    finally:
        logging.getLogger("coach_gui").removeHandler(handler)
        handler.close()
    error = caught.value
    assert SECRET not in str(error) and "Error" not in str(error)  # in the learner's words
    assert "could not store the key" in str(error)
    logged = log_file.read_text(encoding="utf-8")
    assert "PasswordSetError" in logged and SECRET not in logged  # the log says what, scrubbed
    assert error.__context__ is None and error.__cause__ is None
