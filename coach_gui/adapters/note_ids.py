"""Which note is which, for notes whose front matter has no id of its own (ADR 0016).

Reading never writes to the knowledge base, so an Obsidian note keeps no Coach id in its
file. Coach keeps one for it instead, in its own data folder: a map from the note's path
in the vault to its id and the digest of its bytes. A note seen for the first time gets an
id derived from the vault's name and its path in the vault (so two Coach processes agree on
it, and so do two computers the vault is synced to, wherever it sits on each: ADR 0027); a
note that appears under a new path with the exact bytes of one that vanished is the same
note, renamed or moved, and keeps its id and so its history.

A map made before issue 20 derived ids from the vault's absolute path (`vault_key`); it
keeps doing so for the notes it meets later, so an installation keeps its scheme.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from coach_gui.files import atomic_write

log = logging.getLogger(__name__)


SCHEME = "vault-name"  # how a map derives ids, written first in its file; absent: `vault_key`
_HEAD = json.dumps({"scheme": SCHEME}, separators=(",", ":"))[:-1].encode()


def vault_key(folder: Path) -> str:
    """A short name for a knowledge base folder (its real path): it names Coach's own files
    for the vault, and derived the ids of maps made before issue 20."""
    real = os.path.realpath(folder)
    return hashlib.blake2b(real.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()


def vault_identity(folder: Path) -> str:
    """What a vault is called wherever it sits: its folder's name, as Obsidian names a vault
    (sync tools keep it), NFC-normalised so macOS and Linux agree. The "/" that starts it no
    folder name holds, so it never equals a `vault_key`."""
    name = os.path.basename(os.path.abspath(folder))
    return "/" + unicodedata.normalize("NFC", name)


def derived_id(key: str, rel_path: str) -> str:
    """The id a note gets the first time Coach sees it at `rel_path`."""
    seed = f"coach note\x00{key}\x00{rel_path}".encode("utf-8", "surrogateescape")
    return hashlib.blake2b(seed, digest_size=16).hexdigest()


class NoteIdentities:
    """The id of every note without one of its own, kept in `file` (None: in memory)."""

    def __init__(self, file: Path | None, identity: str, *, legacy_key: str) -> None:
        """`identity`: the vault's `vault_identity`, which a new map derives ids from;
        `legacy_key`: its `vault_key`, which a map made before issue 20 derived them from
        and goes on deriving them from (the ids it gave are in the journal's history)."""
        self._file = file
        self._legacy = False  # set by _read: this map derives ids from `legacy_key`
        self._unread = False  # set by _read: the file is there but could not be read
        self._claims: dict[str, str] = {}  # a front-matter id -> the path that holds it
        self._entries: dict[str, dict[str, Any]] = self._read()
        self._key = legacy_key if self._legacy else identity
        self._dirty = False

    def first_id(self, path: str) -> str:
        """The id a note gets the first time it is seen at `path` (in this map's scheme)."""
        return derived_id(self._key, self._seed_path(path))

    def _seed_path(self, path: str) -> str:
        # Location-free ids take the path NFC-normalised: a folder named on macOS (NFD
        # on HFS+) and synced to Linux is the same folder. The old scheme used it as read.
        return path if self._legacy else unicodedata.normalize("NFC", path)

    def _read(self) -> dict[str, dict[str, Any]]:
        if self._file is None:
            return {}
        raw = b""
        try:
            raw = self._file.read_bytes()
            data = json.loads(raw)
        except FileNotFoundError:
            return {}  # a new map: location-free ids
        except OSError as exc:
            # There but not readable now (permissions, a lock, an I/O error): its scheme
            # is unknown, so nothing is written over it this run — the next start that
            # reads it carries on with what it holds.
            self._unread = True
            log.warning("note ids not read (%s); deriving them from the paths", exc)
            return {}
        except ValueError as exc:
            # Damaged: ids are derived again from the paths, so only renames made since
            # the last good write lose their history. Its scheme is what it starts with
            # (written first); a file that does not say is a map made before it.
            self._legacy = not raw.startswith(_HEAD)
            log.warning("note ids not read (%s); deriving them from the paths", exc)
            return {}
        self._legacy = not (isinstance(data, dict) and data.get("scheme") == SCHEME)
        notes = data.get("notes") if isinstance(data, dict) else None
        if not isinstance(notes, dict):
            return {}
        claims = data.get("claims")
        if isinstance(claims, dict):
            self._claims = {k: v for k, v in claims.items() if isinstance(v, str)}
        return {
            path: entry
            for path, entry in notes.items()
            if isinstance(entry, dict)
            and isinstance(entry.get("id"), str)
            and isinstance(entry.get("digest"), str)
        }

    def resolve(self, present: Mapping[str, str]) -> dict[str, str]:
        """The id of each note path in `present` (path → digest of its bytes, "" for a file
        too short to recognise). A new path whose bytes are those of a path that is gone
        takes that path's id."""
        found: dict[str, str] = {}
        new: list[str] = []
        for path, digest in present.items():
            entry = self._entries.get(path)
            if entry is None:
                new.append(path)
                continue
            found[path] = entry["id"]
            if entry["digest"] != digest or entry.get("gone"):
                entry["digest"] = digest
                entry.pop("gone", None)
                self._dirty = True
        # What vanished since the last load (not long ago: a note deleted last month is no
        # rename), by its bytes; and the new paths by theirs.
        gone: dict[str, list[str]] = {}
        for path, entry in self._entries.items():
            if path not in present and not entry.get("gone"):
                entry["gone"] = True
                self._dirty = True
                if entry["digest"]:
                    gone.setdefault(entry["digest"], []).append(path)
        arrived: dict[str, list[str]] = {}
        for path in new:
            arrived.setdefault(present[path], []).append(path)
        held = {entry["id"] for entry in self._entries.values()}
        for path in sorted(new):
            digest = present[path]
            was = gone.get(digest, []) if digest else []
            if len(was) == 1 and len(arrived[digest]) == 1:  # one file, renamed or moved
                note_id = self._entries.pop(was[0])["id"]
                log.info("note moved: %s -> %s", was[0], path)
            else:  # new, or ambiguous (copies): no history is given to a guess
                # The id its path derives may be held: a note renamed away from this path,
                # or one Coach restored under another name. That history is not this file's.
                note_id = self._unheld(path, self.first_id(path), held)
            held.add(note_id)
            self._entries[path] = {"id": note_id, "digest": digest}
            found[path] = note_id
            self._dirty = True
        return found

    def claimed(self, own_id: str) -> str | None:
        """The path that held this front-matter id when last listed."""
        return self._claims.get(own_id)

    def claim(self, own_id: str, path: str) -> None:
        if self._claims.get(own_id) != path:
            self._claims[own_id] = path
            self._dirty = True

    def remember(self, path: str, note_id: str, digest: str) -> None:
        """After Coach wrote the note at `path`: its bytes are these now."""
        entry = self._entries.get(path)
        if entry is None or (entry["id"], entry["digest"]) != (note_id, digest):
            self._entries[path] = {"id": note_id, "digest": digest}
            self._dirty = True

    def _unheld(self, path: str, note_id: str, held: set[str]) -> str:
        """`note_id`, or when another entry holds it an id of `path`'s own (the same in
        every Coach process: derived from the path and the id it could not have)."""
        while note_id in held:
            note_id = derived_id(self._key, f"{self._seed_path(path)}\x00after {note_id}")
        return note_id

    def adopt(self, path: str, note_id: str, digest: str, *, vacated: str = "") -> list[str]:
        """A note Coach deleted is back at `path` and takes its id back. Another path given
        the same id meanwhile (a new file at the deleted note's old path derives the same
        one) gets an id of its own; those paths are returned. `vacated`, the path it was
        deleted from, when it comes back elsewhere: a file that appears there later must
        not derive the restored note's id either."""
        others = [p for p, e in self._entries.items() if p != path and e["id"] == note_id]
        held = {e["id"] for e in self._entries.values()} | {note_id}
        for other in others:
            self._entries[other]["id"] = own = self._unheld(other, note_id, held)
            held.add(own)
            log.info("%s gives the id it derived back to the restored %s", other, path)
        if (
            vacated
            and vacated != path
            and vacated not in self._entries
            and self.first_id(vacated) == note_id
        ):  # no file known there yet: the one that comes gets an id of its own
            self._entries[vacated] = {
                "id": self._unheld(vacated, note_id, held),
                "digest": "",
                "gone": True,
            }
        self._entries[path] = {"id": note_id, "digest": digest}
        self._dirty = True
        return others

    def own_id(self, path: str, not_id: str) -> str:
        """The id kept for `path`, which must not be `not_id` (a file that was listed under
        another note's id: it gets one of its own, kept from now on)."""
        entry = self._entries.get(path)
        if entry is not None and entry["id"] != not_id:
            return str(entry["id"])
        held = {e["id"] for e in self._entries.values()} | {not_id}
        own = self._unheld(path, not_id, held)
        if entry is None:
            self._entries[path] = {"id": own, "digest": ""}
        else:
            entry["id"] = own
        self._dirty = True
        return own

    def id_of(self, path: str) -> str | None:
        entry = self._entries.get(path)
        return entry["id"] if entry is not None else None

    def forget(self, path: str) -> None:
        if self._entries.pop(path, None) is not None:
            self._dirty = True

    def flush(self) -> None:
        """Write the map if it changed (never into the knowledge base)."""
        if not self._dirty or self._file is None or self._unread:
            return
        scheme = {} if self._legacy else {"scheme": SCHEME}  # first: read even if torn
        text = json.dumps(
            {
                **scheme,
                "vault": self._key,
                "notes": dict(sorted(self._entries.items())),
                "claims": dict(sorted(self._claims.items())),
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        try:
            atomic_write(self._file, text.encode("utf-8"))
        except OSError as exc:
            log.warning("note ids not written: %s", exc)
            return
        self._dirty = False
