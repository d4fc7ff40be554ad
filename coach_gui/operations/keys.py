"""A key in the OS keyring, and checking that it works — one use case for the Settings
dialog, the Welcome and `coach key` alike (DESIGN §2): `bootstrap` builds it with exactly
the ports it needs, the keyring entry and, for the Gemini key, a way to make the judge
that tests it. The key is never shown or logged."""

from __future__ import annotations

from collections.abc import Callable

from coach_gui.domain.connections import ConnectionCheck, KeyStatus
from coach_gui.services.ports.judge import ConnectionTester, KeyVault


class Keys:
    def __init__(
        self, vault: KeyVault, tester: Callable[[], ConnectionTester] | None = None
    ) -> None:
        self._vault = vault
        self._tester = tester

    @property
    def can_test(self) -> bool:
        """Whether `test_connection` can be asked (the Gemini key, with its judge)."""
        return self._tester is not None

    def status(self) -> KeyStatus:
        """Which keyring is in use and whether a key is stored."""
        return self._vault.status()

    def store(self, key: str) -> None:
        """Store `key` in the OS keyring (EmptyKey, KeyringUnavailable)."""
        self._vault.set(key)

    def clear(self) -> bool:
        """Remove the key; False when none was stored."""
        return self._vault.clear()

    def test_connection(self) -> ConnectionCheck:
        """Check the key and model with a request that sends no learner data; raises the
        same JudgeErrors as judging does (whichever judge grades now: it is the key that
        is tested)."""
        if self._tester is None:
            raise RuntimeError("this key has no connection to test")
        judge = self._tester()
        try:
            return judge.test_connection()
        finally:
            judge.close()
