"""Reading an Anki package with SQLite and the published format (issue 37, ADR 0038).

An `.apkg`/`.colpkg` is a zip: `meta` (a protobuf: the format's version), the collection
— `collection.anki21b` (zstd-compressed SQLite, schema 18: `notetypes`, `fields`,
`templates`, `decks` tables holding protobuf configs), else `collection.anki21` or
`collection.anki2` (plain SQLite, schema 11: note types and decks as JSON in `col`) — and
the media: `media` (zstd protobuf `MediaEntries` in the current format, a JSON map in the
legacy one) naming the members `0`, `1`, … (zstd-compressed in the current format).

A package is outside data: every member is read with a size limit whatever its header
claims, so a zip bomb or a hostile package is refused with a sentence; a damaged one says
what is wrong (`PackageUnreadable`). The media are read only when copied (`media_bytes`).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sqlite3
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import zstandard

from coach_gui.adapters.anki_proto import fields_of, text_field, varint_field
from coach_gui.domain.anki_package import (
    Memory,
    NoteType,
    Package,
    PackageCard,
    PackageNote,
    PackageReview,
    PackageUnreadable,
)

MAX_COLLECTION = 512 * 2**20  # the largest shared decks' collections are near 100 MB
MAX_MEDIA_FILE = 128 * 2**20
MAX_MEDIA_FILES = 100_000
MAX_META = 2**20
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_FIELD_REF = re.compile(r"\{\{([^}]+)\}\}")
_SPECIAL = {"FrontSide", "Tags", "Deck", "Subdeck", "Card", "Type", "CardFlag"}


def _read_member(zf: zipfile.ZipFile, name: str, limit: int, what: str) -> bytes:
    """A member's bytes, never more than `limit` (its header may lie), unzstd'ed when it
    is zstd-compressed."""
    try:
        with zf.open(name) as handle:
            data = _bounded(handle, limit, what)
    except (
        zipfile.BadZipFile,
        OSError,
        EOFError,
        RuntimeError,
        NotImplementedError,
        zlib.error,
    ) as exc:
        raise PackageUnreadable(
            f"The package is damaged: its {what} cannot be read ({_reason(exc)}). "
            "Export it from Anki again."
        ) from None
    if data.startswith(_ZSTD_MAGIC):
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(data)
            data = _bounded(reader, limit, what)
        except zstandard.ZstdError:
            raise PackageUnreadable(
                f"The package is damaged: its {what} does not decompress. Export it from "
                "Anki again."
            ) from None
    return data


def _bounded(handle: IO[bytes] | Any, limit: int, what: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = handle.read(min(2**20, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        chunks.append(chunk)
        if size > limit:
            raise PackageUnreadable(
                f"The package's {what} is larger than Coach reads ({limit // 2**20} MB): "
                "it was refused, as it may be built to fill the disk. Import a smaller "
                "package, or split the deck in Anki."
            )


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text else "it ends too soon"


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[zipfile.ZipFile]:
    try:
        zf = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise PackageUnreadable(f"There is no file {path}. Check the name and try again.") from None
    except IsADirectoryError:
        raise PackageUnreadable(
            f"{path} is a folder; give an .apkg, .colpkg or .csv file."
        ) from None
    except (zipfile.BadZipFile, OSError, ValueError):
        raise PackageUnreadable(
            f"{path.name} is not an Anki package: it is not a zip file, or it is damaged. "
            "Export the deck from Anki again (File › Export…, “Anki Deck Package”)."
        ) from None
    with zf:
        yield zf


def read_package(path: Path) -> Package:
    """The package at `path`, or PackageUnreadable saying why not."""
    with _opened(path) as zf:
        names = set(zf.namelist())
        kind = "colpkg" if path.suffix.lower() == ".colpkg" else "apkg"
        if "collection.anki21b" in names:
            member, current = "collection.anki21b", True
        elif "collection.anki21" in names:
            member, current = "collection.anki21", False
        elif "collection.anki2" in names:
            member, current = "collection.anki2", False
        else:
            raise PackageUnreadable(
                f"{path.name} is a zip file but holds no Anki collection. Export the deck "
                "from Anki again (File › Export…, “Anki Deck Package”)."
            )
        data = _read_member(zf, member, MAX_COLLECTION, "collection")
        media_raw = (
            _read_member(zf, "media", MAX_COLLECTION, "media list") if "media" in names else b""
        )
        media = _media_map(media_raw, current)
        label = f"{kind} ({'current' if current else 'legacy'} format)"
        package = _read_collection(data, current, label)
        package.media.update({n: m for n, m in media.items() if m in names})
        return package


def media_bytes(path: Path, member: str) -> bytes:
    """One media file of the package, within the size limit."""
    with _opened(path) as zf:
        return _read_member(zf, member, MAX_MEDIA_FILE, f"media file {member}")


def _media_map(raw: bytes, current: bool) -> dict[str, str]:
    """Media name -> zip member."""
    if not raw:
        return {}
    if raw.lstrip()[:1] == b"{":
        try:
            found = json.loads(raw)
        except ValueError:
            raise PackageUnreadable("The package's media list is damaged.") from None
        if not isinstance(found, dict):
            raise PackageUnreadable("The package's media list is damaged.")
        return _one_file_each({str(name): str(member) for member, name in found.items()})
    try:
        entries = fields_of(raw).get(1, [])
        found = {}
        for n, entry in enumerate(entries):
            if not isinstance(entry, bytes):
                raise ValueError
            fields = fields_of(entry)
            member = varint_field(fields, 255)
            found[text_field(fields, 1)] = str(n if member is None else member)
    except ValueError:
        raise PackageUnreadable("The package's media list is damaged.") from None
    return _one_file_each(found)


def _one_file_each(found: dict[str, str]) -> dict[str, str]:
    """A media list naming each file of the package once: a file named twice or more
    would be copied once per name (a tiny package filling the disk), so it is refused."""
    if len(set(found.values())) != len(found):
        raise PackageUnreadable(
            "The package's media list names one file under several names, which Anki never "
            "does. Export the deck from Anki again."
        )
    if len(found) > MAX_MEDIA_FILES:
        raise PackageUnreadable(
            f"The package holds more than {MAX_MEDIA_FILES:,} pictures and sounds, more than "
            "Coach copies in one import."
        )
    return found


def _read_collection(data: bytes, current: bool, kind: str) -> Package:
    if data[:16] == b"SQLite format 3\x00" and data[18:20] == b"\x02\x02":
        data = data[:18] + b"\x01\x01" + data[20:]  # a WAL file: read it in memory all the same
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        if current:
            notetypes, decks = _schema18(conn)
        else:
            notetypes, decks = _schema11(conn)
        return _contents(conn, kind, notetypes, decks)
    except sqlite3.DatabaseError as exc:
        raise PackageUnreadable(
            f"The package's collection is damaged ({_reason(exc)}). Export it from Anki again."
        ) from None
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError):
        raise PackageUnreadable(
            "The package's collection does not read as Anki writes it (a note type or deck "
            "is damaged). Export it from Anki again."
        ) from None
    finally:
        conn.close()


def _sides(
    qfmt: str, afmt: str, fields: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    def named(template: str) -> list[str]:
        found = []
        for ref in _FIELD_REF.findall(template):
            name = ref.strip().lstrip("#^/").split(":")[-1].strip()
            if name in fields and name not in _SPECIAL:
                found.append(name)
        return list(dict.fromkeys(found))

    question = named(qfmt)
    answer = [f for f in named(afmt) if f not in question]
    if not question and fields:
        question = [fields[0]]
    if not answer:
        answer = [f for f in fields[1:2] if f not in question]
    return tuple(question), tuple(answer)


def _schema18(conn: sqlite3.Connection) -> tuple[dict[int, NoteType], dict[int, str]]:
    fields: dict[int, list[str]] = {}
    for ntid, _ord, name in conn.execute("SELECT ntid, ord, name FROM fields ORDER BY ntid, ord"):
        fields.setdefault(ntid, []).append(name)
    templates: dict[int, tuple[str, str]] = {}
    for ntid, config in conn.execute("SELECT ntid, config FROM templates ORDER BY ntid, ord"):
        if ntid not in templates:
            found = fields_of(config)
            templates[ntid] = (text_field(found, 1), text_field(found, 2))
    notetypes = {}
    for ntid, name, config in conn.execute("SELECT id, name, config FROM notetypes"):
        found = fields_of(config)
        names = tuple(fields.get(ntid, ()))
        qfmt, afmt = templates.get(ntid, ("", ""))
        question, answer = _sides(qfmt, afmt, names)
        notetypes[ntid] = NoteType(
            id=ntid, name=name, cloze=varint_field(found, 1) == 1, fields=names,
            question_fields=question, answer_fields=answer,
            image_occlusion=varint_field(found, 9) == 6,
        )  # fmt: skip
    decks = {
        did: name.replace("\x1f", "::") for did, name in conn.execute("SELECT id, name FROM decks")
    }
    return notetypes, decks


def _schema11(conn: sqlite3.Connection) -> tuple[dict[int, NoteType], dict[int, str]]:
    models_json, decks_json = conn.execute("SELECT models, decks FROM col").fetchone()
    notetypes = {}
    for model in json.loads(models_json).values():
        names = tuple(str(f["name"]) for f in sorted(model["flds"], key=lambda f: f["ord"]))
        tmpl = sorted(model["tmpls"], key=lambda t: t["ord"])[0] if model["tmpls"] else {}
        question, answer = _sides(tmpl.get("qfmt", ""), tmpl.get("afmt", ""), names)
        notetypes[int(model["id"])] = NoteType(
            id=int(model["id"]), name=str(model["name"]), cloze=model.get("type") == 1,
            fields=names, question_fields=question, answer_fields=answer,
            image_occlusion=model.get("originalStockKind") == 6,
        )  # fmt: skip
    decks = {int(d["id"]): str(d["name"]) for d in json.loads(decks_json).values()}
    return notetypes, decks


def _memory(data: str) -> Memory | None:
    if not data or "s" not in data:
        return None
    try:
        found = json.loads(data)
        s, d = found.get("s"), found.get("d")
    except (ValueError, AttributeError):
        return None
    numbers = isinstance(s, int | float) and isinstance(d, int | float)
    # (Python's JSON reads Infinity and NaN: no memory of Anki's)
    if numbers and s > 0 and math.isfinite(s) and math.isfinite(d):
        return Memory(float(s), float(d))
    return None


def _first_scheduler(conn: sqlite3.Connection) -> bool:
    """Whether the collection was scheduled by Anki's first scheduler (a legacy collection
    whose settings say no `schedVer`, or 1); Anki 2.1.50 and later write only later ones."""
    try:
        (conf,) = conn.execute("SELECT conf FROM col").fetchone()
        if not conf:
            return False  # schema 18 keeps its settings elsewhere
        version = json.loads(conf).get("schedVer", 1)
    except (sqlite3.DatabaseError, ValueError, TypeError, AttributeError):
        return False
    return bool(version == 1)


def _contents(
    conn: sqlite3.Connection, kind: str, notetypes: dict[int, NoteType], decks: dict[int, str]
) -> Package:
    (created,) = conn.execute("SELECT crt FROM col").fetchone()
    notes = tuple(
        PackageNote(id=nid, guid=str(guid), notetype_id=mid, fields=tuple(str(flds).split("\x1f")),
                    tags=tuple(str(tags).split()))
        for nid, guid, mid, tags, flds in conn.execute(
            "SELECT id, guid, mid, tags, flds FROM notes ORDER BY id"
        )
    )  # fmt: skip
    # A card in a filtered deck keeps its own deck and due date in odid and odue.
    cards = tuple(
        PackageCard(id=r[0], note_id=r[1], deck_id=r[10] or r[2], ord=r[3], type=r[4],
                    queue=r[5], due=r[11] if r[10] and r[11] else r[6], interval=r[7],
                    factor=r[8], memory=_memory(r[9] or ""))
        for r in conn.execute(
            "SELECT id, nid, did, ord, type, queue, due, ivl, factor, data, odid, odue"
            " FROM cards ORDER BY id"
        )
    )  # fmt: skip
    reviews: dict[int, list[PackageReview]] = {}
    three_buttons = _first_scheduler(conn)
    for rid, cid, ease, ivl, kind_ in conn.execute(
        "SELECT id, cid, ease, ivl, type FROM revlog ORDER BY id"
    ):
        if three_buttons and kind_ in (0, 2) and ease in (2, 3):
            ease += 1  # Anki's first scheduler learned with three buttons: 2 good, 3 easy
        reviews.setdefault(cid, []).append(PackageReview(rid, cid, ease, ivl, kind_))
    return Package(
        kind=kind, created=int(created), notetypes=notetypes, decks=decks, notes=notes,
        cards=cards, reviews={c: tuple(r) for c, r in reviews.items()},
    )  # fmt: skip
