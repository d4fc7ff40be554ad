"""The readers an import is given (issue 37): an Anki package, or a CSV read as one."""

from __future__ import annotations

from pathlib import Path

from coach_gui.adapters.anki_csv import read_csv
from coach_gui.adapters.anki_package import media_bytes, read_package
from coach_gui.domain.anki_package import Package, PackageUnreadable


class AnkiPackageSource:
    def read(self, path: Path) -> Package:
        return read_package(path)

    def media(self, path: Path, member: str) -> bytes:
        return media_bytes(path, member)


class CsvSource:
    def read(self, path: Path) -> Package:
        return read_csv(path)

    def media(self, path: Path, member: str) -> bytes:
        raise PackageUnreadable("A CSV file holds no media.")
