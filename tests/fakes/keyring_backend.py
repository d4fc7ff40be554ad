"""A real `keyring` backend for tests: keys in a JSON file named by COACH_TEST_KEYRING.

Set for every test (tests/conftest.py), and inherited by the `coach` processes tests
start, so no test ever reads or writes a developer's own OS keyring.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1

    @staticmethod
    def _path() -> Path:
        return Path(os.environ["COACH_TEST_KEYRING"])

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self._path().read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return dict(data)

    def _save(self, data: dict[str, str]) -> None:
        self._path().parent.mkdir(parents=True, exist_ok=True)
        self._path().write_text(json.dumps(data), encoding="utf-8")

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError("no such password")
        self._save(data)
