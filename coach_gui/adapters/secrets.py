"""Keys in the OS keyring (`keyring`, service ``coach``): the Gemini API key, and the key
that signs eval reports and the trace log's head. Never a file, a log line, or an error
message (DESIGN §1.7).

Only a real OS keyring is used. A backend that stores keys in plain text (`keyrings.alt`),
the `fail`/`null` placeholders, or anything keyring itself ranks below 1 is refused with
`KeyringUnavailable`; there is no silent fallback. When keyring chains several backends,
Coach talks to the best one directly, so a plain-text one further down is never touched.
"""

from __future__ import annotations

import logging
import secrets

import keyring
import keyring.backend
import keyring.errors
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from keyring.backends import chainer

from coach_gui.domain.connections import KeyStatus
from coach_gui.domain.eval_traces import key_id_for
from coach_gui.domain.judge_errors import EmptyKey, KeyringUnavailable, checked_key, scrub
from coach_gui.domain.sync import SyncError

SERVICE = "coach"
GEMINI_API_KEY = "gemini_api_key"
LOCAL_SERVER_KEY = "local_server_key"  # a local OpenAI-compatible server's key (Jan wants one)
EVAL_SIGNING_KEY = "eval_signing_key"  # the signing key's username (its first use)
_KEY_BYTES = 32
_MIN_PRIORITY = 1  # keyring's own advice: "a priority of one or greater is recommended"
# Backends that keep keys in the clear, or that only pretend to store them.
_REFUSED_MODULES = ("keyrings.alt",)
_REFUSED_CLASSES = {
    "keyring.backends.fail.Keyring",
    "keyring.backends.null.Keyring",
    "keyrings.alt.file.PlaintextKeyring",
    "keyrings.alt.file.EncryptedKeyring",
}
_NO_OS_KEYRING = "no OS keyring is available (no Secret Service or KWallet on this session)"
log = logging.getLogger(__name__)


def backend_name(backend: keyring.backend.KeyringBackend) -> str:
    """A short name people can search for, e.g. ``SecretService.Keyring``."""
    cls = type(backend)
    module = cls.__module__.removeprefix("keyring.backends.")
    return f"{module}.{cls.__name__}"


def _refusal(backend: keyring.backend.KeyringBackend) -> str | None:
    """Why `backend` may not hold Coach's keys, or None when it may: in the learner's
    words; the backend's name (to search for) goes to the log and `coach key status`."""
    cls = type(backend)
    qualified = f"{cls.__module__}.{cls.__name__}"
    name = backend_name(backend)
    if qualified in _REFUSED_CLASSES or cls.__module__.startswith(_REFUSED_MODULES):
        if qualified in ("keyring.backends.fail.Keyring", "keyring.backends.null.Keyring"):
            return _NO_OS_KEYRING
        log.info("keyring backend %s refused: it keeps keys in a file", name)
        return "the keyring in use keeps keys in a plain file, not in an OS keyring"
    try:
        priority = float(cls.priority)
    except Exception as error:  # a backend reports "not here" by raising from priority
        log.info("keyring backend %s is not available: %s", name, type(error).__name__)
        return "the keyring in use is not available on this computer"
    if priority < _MIN_PRIORITY:
        log.info("keyring backend %s refused: priority %g", name, priority)
        return "the keyring in use is not one keyring itself recommends for keys"
    return None


class KeyStore:
    """One secret (`username`) of service ``coach`` in the OS keyring."""

    def __init__(self, username: str = GEMINI_API_KEY, *, service: str = SERVICE) -> None:
        self.service = service
        self.username = username

    def backend(self) -> keyring.backend.KeyringBackend:
        """The backend to use, or KeyringUnavailable saying why there is none."""
        return self._backend()

    def _backend(self) -> keyring.backend.KeyringBackend:
        """The backend to use, or KeyringUnavailable saying why there is none."""
        try:
            chosen = keyring.get_keyring()
        except Exception as error:
            raise self._unavailable(error, "start", None) from None
        if isinstance(chosen, chainer.ChainerBackend):
            chained = list(chosen.backends)
            if not chained:
                raise KeyringUnavailable(_NO_OS_KEYRING)
            chosen = chained[0]  # the best; never fall through to a weaker one
        why = _refusal(chosen)
        if why is not None:
            raise KeyringUnavailable(why)
        return chosen

    @staticmethod
    def _unavailable(error: Exception, doing: str, key: str | None) -> KeyringUnavailable:
        """Ours for a backend failure; the backend's text is scrubbed of the key."""
        if isinstance(error, keyring.errors.KeyringLocked):
            return KeyringUnavailable(
                f"the keyring is locked, so Coach could not {doing}",
                "Unlock it (log in to the desktop session, or open your keyring app) and try "
                "again.",
            )
        detail = scrub(f"{type(error).__name__}: {error}".rstrip(": "), key)
        log.warning("the keyring could not %s: %s", doing, detail)  # scrubbed of the key
        return KeyringUnavailable(
            f"the keyring could not {doing}",
            "Try again; if it keeps happening, unlock or restart your keyring app (the log "
            "file says what went wrong).",
        )

    def get(self) -> str | None:
        """The stored key, or None when none is set."""
        backend = self._backend()
        try:
            value = backend.get_password(self.service, self.username)
        except Exception as error:
            raise self._unavailable(error, "read the key", None) from None
        return value or None

    def set(self, key: str) -> None:
        """Store `key` (surrounding whitespace, e.g. a pasted newline, is dropped);
        JudgeKeyMalformed for a key with a character no API key has."""
        key = key.strip()
        if not key:
            raise EmptyKey()
        key = checked_key(key)
        backend = self._backend()
        failure: KeyringUnavailable | None = None
        try:
            backend.set_password(self.service, self.username, key)
        except Exception as error:
            failure = self._unavailable(error, "store the key", key)
        if failure is not None:
            raise failure  # outside the except: the backend's error cannot ride along

    def clear(self) -> bool:
        """Remove the key; False when there was none."""
        backend = self._backend()
        try:
            if backend.get_password(self.service, self.username) is None:
                return False
            backend.delete_password(self.service, self.username)
        except keyring.errors.PasswordDeleteError:
            return False  # gone already (another process removed it)
        except Exception as error:
            raise self._unavailable(error, "remove the key", None) from None
        return True

    def status(self) -> KeyStatus:
        """Which backend, whether a key is set, and whether it can be used; never raises."""
        name = "none"
        try:
            name = backend_name(keyring.get_keyring())
            backend = self._backend()
            name = backend_name(backend)
            value = backend.get_password(self.service, self.username)
        except KeyringUnavailable as error:
            return KeyStatus(backend=name, has_key=False, usable=False, detail=str(error))
        except Exception as error:
            detail = str(self._unavailable(error, "read the key", None))
            return KeyStatus(backend=name, has_key=False, usable=False, detail=detail)
        has_key = bool(value)
        detail = "a key is set" if has_key else "no key is set; run `coach key set`"
        return KeyStatus(backend=name, has_key=has_key, usable=True, detail=detail)


class KeyringSigningKeys:
    """`SigningKeys`: one random key, generated on first use and kept in the OS keyring
    (service ``coach``, username ``eval_signing_key``), stored as hex. Its id is a digest.
    It signs eval reports and the trace log's head."""

    def __init__(self, store: KeyStore | None = None) -> None:
        self._store = store or KeyStore(EVAL_SIGNING_KEY)

    def _stored(self) -> bytes | None:
        text = self._store.get()
        if text is None:
            return None
        try:
            return bytes.fromhex(text)
        except ValueError:
            return None  # not a key Coach wrote: treated as absent for checking

    def signing_key(self) -> tuple[str, bytes]:
        key = self._stored()
        if key is None:
            key = secrets.token_bytes(_KEY_BYTES)
            self._store.set(key.hex())
        return key_id_for(key), key

    def key_for(self, key_id: str) -> bytes | None:
        key = self._stored()
        return key if key is not None and key_id_for(key) == key_id else None

    def has_key(self) -> bool:
        return self._stored() is not None

    def existing_key(self) -> tuple[str, bytes] | None:
        """The key if one is stored (never creates one)."""
        key = self._stored()
        return None if key is None else (key_id_for(key), key)

    def has_keyring(self) -> bool:
        """Whether this computer has an OS keyring Coach would use at all (a locked one
        counts: it exists, it just did not answer)."""
        try:
            self._store.backend()
        except KeyringUnavailable:
            return False
        return True


SYNC_SIGNING_KEY = "sync_signing_key"  # this computer's Ed25519 private key, as hex
UNREADABLE_SYNC_KEY = (
    "Coach did not sync: your keyring holds a sync key for this computer that Coach cannot "
    "read, and replacing it would make your other computers refuse everything this "
    "computer has synced. If you restored or edited your keyring, put the original entry "
    "back and sync again. If that key is lost for good, delete the entry "
    '"sync_signing_key" of "coach" in your keyring app, sync again, and pair this '
    "computer again on each of your other computers."
)


class KeyringSyncKey:
    """`SyncKey`: this computer's Ed25519 key pair for sync (issue 34, ADR 0033), the
    private half in the OS keyring (service ``coach``, username ``sync_signing_key``),
    made on first use. The private half never leaves the keyring but to sign."""

    def __init__(self, store: KeyStore | None = None) -> None:
        self._store = store or KeyStore(SYNC_SIGNING_KEY)
        self._key: Ed25519PrivateKey | None = None

    def _private(self) -> Ed25519PrivateKey:
        """The key the keyring holds; made and stored only when it holds none. A value
        that is there but not a key Coach can read is never replaced (every segment it
        signed would become refused on the other computers): SyncError says what to do.
        After storing a new key, what the keyring holds is read back and used, so two
        processes making one at the same moment end up signing with the same key."""
        if self._key is not None:
            return self._key
        key = self._read()
        if key is None:
            made = Ed25519PrivateKey.generate()
            raw = made.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
            if self._read() is None:  # another process may have stored one meanwhile
                self._store.set(raw.hex())
            key = self._read()
            if key is None:  # stored, yet not there: a keyring that drops what it is given
                raise KeyringUnavailable(
                    "the keyring did not keep this computer's sync key",
                    "Unlock or restart your keyring app and try again.",
                )
        self._key = key
        return key

    def _read(self) -> Ed25519PrivateKey | None:
        """The stored key; None when nothing is stored; SyncError when something is stored
        that is not a key Coach wrote."""
        text = self._store.get()
        if text is None:
            return None
        try:
            return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(text.strip()))
        except ValueError as error:
            log.error(
                "the keyring's %s/%s is not an Ed25519 key Coach wrote (%d characters: %s); "
                "left as it is",
                self._store.service,
                self._store.username,
                len(text),
                type(error).__name__,
            )
            raise SyncError(UNREADABLE_SYNC_KEY) from None

    def public_key(self) -> bytes:
        return self._private().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, data: bytes) -> bytes:
        return self._private().sign(data)
