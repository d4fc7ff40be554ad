"""`coach import` (issue 37): packages made by Anki's own library — the current and the
legacy `.apkg` and a `.colpkg` — become notes with key points, tags and media, and their
review history comes along, so each key point falls due on the day Anki has its card due
(not tomorrow). Importing into a real-shaped vault changes no existing byte; a second
import adds nothing; a damaged, unknown or hostile file is a sentence and exit 2; an
edited imported review fails `coach verify`."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import zipfile
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from anki_packages import Packages, make_packages
from cli_run import coach
from fakes.vaults import obsidian_vault

from coach_gui.bootstrap import build_context
from coach_gui.domain.memory import MemoryState, assertion_digest
from coach_gui.domain.notes import Note

pytest.importorskip("anki")


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Packages:
    return make_packages(tmp_path_factory.mktemp("anki"))


def _kb(coach_home: Path, folder: Path) -> Path:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps({"kb": {"path": str(folder)}, "judge": {"enabled": False}}), encoding="utf-8"
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def kb(coach_home: Path, tmp_path: Path) -> Path:
    return _kb(coach_home, tmp_path / "notes")


def _notes() -> dict[str, tuple[Note, str]]:
    """Every note in the knowledge base by id, with its file name."""
    context = build_context(seed=False)
    try:
        snapshot = context.notes.load(fresh=True)
        return {e.note.id: (e.note, e.file_name) for e in snapshot.notes}
    finally:
        context.close()


def _memory() -> dict[tuple[str, str], MemoryState]:
    context = build_context(seed=False)
    try:
        scheduler = context.scheduler()
        scheduler.refresh()
        return {(m.note_id, m.digest): m for m in scheduler.memory.due_before("9999")}
    finally:
        context.close()


def _by_title(created: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(c["title"]): c for c in created}


def _anki2_only(packages: Packages, folder: Path) -> Path:
    """The legacy package as Anki 2.0 wrote one: its collection as `collection.anki2`
    alone, with no `meta`."""
    path = folder / "anki20.apkg"
    with zipfile.ZipFile(packages.legacy) as source, zipfile.ZipFile(path, "w") as target:
        target.writestr("collection.anki2", source.read("collection.anki21"))
        for name in source.namelist():
            if name not in ("meta", "collection.anki2", "collection.anki21"):
                target.writestr(name, source.read(name))
    return path


@pytest.mark.parametrize("which", ["current", "legacy", "colpkg", "anki2"])
def test_a_package_made_by_anki_becomes_notes_whose_key_points_fall_due_as_anki_has_them(
    which: str, packages: Packages, kb: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _anki2_only(packages, tmp_path) if which == "anki2" else getattr(packages, which)
    code, data, err = coach(capsys, "import", str(path), "--json")
    assert code == 0, err
    created = _by_title(data["created"])
    assert set(created) == {
        "What does the mitochondrion do?",
        "[…] is the capital of [country]. It lies on the Seine.",
        "Who wrote On the Origin of Species?",
    }
    assert data["reviews_imported"] == packages.expected.reviews
    assert data["media_copied"] == 1
    reasons = {s["reason"] for s in data["skipped"]}
    assert any("image occlusion" in r for r in reasons)
    assert any("manual changes" in r for r in reasons)
    notes = _notes()
    basic, basic_file = notes[str(created["What does the mitochondrion do?"]["note_id"])]
    assert basic_file == "Biology/Cells/What does the mitochondrion do.md"
    assert basic.core_assertions == ("It makes *ATP* for the cell", "It has its own DNA")
    assert basic.tags == ("biology", "cell/organelles")  # Anki's a::b is a nested tag
    assert "![](<attachments/mito chondrion.png>)" in basic.body
    assert (kb / "Biology/Cells/attachments/mito chondrion.png").read_bytes()[:4] == b"\x89PNG"
    cloze, cloze_file = notes[
        str(created["[…] is the capital of [country]. It lies on the Seine."]["note_id"])
    ]
    assert cloze_file.startswith("Geography/")
    assert cloze.core_assertions == (
        "**Paris** is the capital of France.",
        "Paris is the capital of **France**.",
    )
    assert "Seen from the Eiffel tower." in cloze.body  # Back Extra: in the body
    sourced, _ = notes[str(created["Who wrote On the Origin of Species?"]["note_id"])]
    assert sourced.core_assertions == ("Charles Darwin", "in 1859")
    assert "## Source\n\nA history of **biology**, p. 12" in sourced.body
    raw = (kb / basic_file).read_text("utf-8")
    assert f"anki_guid: {packages.expected.guids['basic']}" in raw or "anki_guid: '" in raw

    # The reviews came along: each reviewed key point is due on Anki's day, not tomorrow.
    memory = _memory()
    expected = packages.expected
    for note, guid, ords in (
        (basic, expected.guids["basic"], {0: 0, 1: 0}),  # both key points: the one card
        (cloze, expected.guids["cloze"], {0: 0}),  # cloze 1's key point: card 1
    ):
        for index, card_ord in ords.items():
            state = memory[(note.id, assertion_digest(note.core_assertions[index]))]
            due = datetime.fromisoformat(state.due)
            assert due.date() == expected.due_days[guid][card_ord]
            shown = expected.shown_due[guid][card_ord]  # Anki's card info, from "now"
            assert abs(due.timestamp() - shown) <= 86_400
    basic_due = memory[(basic.id, assertion_digest(basic.core_assertions[0]))]
    assert basic_due.reviews == 3 and basic_due.stability == 41.5
    assert datetime.fromisoformat(basic_due.due).date() > date.today().replace(day=1)
    assert (datetime.fromisoformat(basic_due.due) - datetime.now(UTC)).days >= 30
    assert (cloze.id, assertion_digest(cloze.core_assertions[1])) not in memory  # never seen
    code, today, err = coach(capsys, "today", "--json")
    assert code == 0, err
    assert basic.id not in {n["note_id"] for n in today["notes"]}


def test_a_second_import_adds_nothing_and_says_so(
    packages: Packages, kb: Path, capsys: pytest.CaptureFixture[str], coach_home: Path
) -> None:
    code, first, err = coach(capsys, "import", str(packages.current), "--json")
    assert code == 0, err
    files = sorted(p.relative_to(kb).as_posix() for p in kb.rglob("*") if p.is_file())
    journal = coach_home / "journal.sqlite3"
    with sqlite3.connect(journal) as conn:
        rows = conn.execute("SELECT count(*) FROM imported_reviews").fetchone()[0]
    assert rows == 3  # two key points from the basic card, one from cloze 1
    for package in (packages.current, packages.legacy, packages.colpkg):
        code, again, err = coach(capsys, "import", str(package), "--json")
        assert code == 0, err
        assert again["created"] == [] and again["reviews_imported"] == 0
        already = [s for s in again["skipped"] if s["reason"] == "already imported"]
        assert len(already) == len(first["created"])
    assert sorted(p.relative_to(kb).as_posix() for p in kb.rglob("*") if p.is_file()) == files
    with sqlite3.connect(journal) as conn:
        assert conn.execute("SELECT count(*) FROM imported_reviews").fetchone()[0] == rows
    code, _, err = coach(capsys, "import", str(packages.current))
    assert code == 0 and "already imported" in err and "Nothing new to import" in err


def _hashes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink()
    }


def test_importing_into_a_real_shaped_vault_changes_no_existing_byte(
    packages: Packages, coach_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = obsidian_vault(tmp_path / "vault", notes=40)
    (vault.root / "Biology" / "Cells").mkdir(parents=True, exist_ok=True)
    taken = vault.root / "Biology" / "Cells" / "What does the mitochondrion do.md"
    taken.write_text("The learner's own note of the same name.\n", encoding="utf-8")
    (vault.root / "Biology/Cells/attachments").mkdir()
    (vault.root / "Biology/Cells/attachments/mito chondrion.png").write_bytes(b"not the same")
    _kb(coach_home, vault.root)
    before = _hashes(vault.root)
    code, data, err = coach(capsys, "import", str(packages.current), "--json")
    assert code == 0, err
    after = _hashes(vault.root)
    assert {name: after[name] for name in before} == before  # every old byte kept
    new = set(after) - set(before)
    assert new == {
        "Biology/Cells/What does the mitochondrion do 2.md",
        "Biology/Cells/Who wrote On the Origin of Species.md",
        "Biology/Cells/attachments/mito chondrion (2).png",
        f"Geography/{_by_title(data['created'])['[…] is the capital of [country]. It lies on the Seine.']['file'].split('/')[-1]}",  # noqa: E501
    }
    body = (vault.root / "Biology/Cells/What does the mitochondrion do 2.md").read_text("utf-8")
    assert "![](<attachments/mito chondrion (2).png>)" in body


def test_the_imported_reviews_verify_and_an_edited_one_is_caught(
    packages: Packages, kb: Path, capsys: pytest.CaptureFixture[str], coach_home: Path
) -> None:
    code, _, err = coach(capsys, "import", str(packages.current), "--json")
    assert code == 0, err
    code, data, err = coach(capsys, "verify", "--json")
    assert code == 0 and data["ok"], err
    journal = coach_home / "journal.sqlite3"
    for tamper in (
        "UPDATE imported_reviews SET due = '2026-12-07T04:00:00.000000+00:00'",
        "UPDATE imported_reviews SET reviews = '[[\"2026-11-01T00:00:00.000000+00:00\",4]]'",
        "DELETE FROM imported_reviews",
    ):
        copy = journal.with_name("tampered.sqlite3")
        copy.write_bytes(journal.read_bytes())
        conn = sqlite3.connect(copy, isolation_level=None)
        try:
            for event in ("update", "delete"):  # what someone with the file can do
                conn.execute(f"DROP TRIGGER imported_reviews_no_{event}")
            conn.execute(tamper)
        finally:
            conn.close()
        journal.rename(journal.with_name("kept.sqlite3"))
        copy.rename(journal)
        try:
            code, data, _ = coach(capsys, "verify", "--json")
            assert code == 1 and not data["ok"], tamper
        finally:
            journal.unlink()
            journal.with_name("kept.sqlite3").rename(journal)
    code, data, err = coach(capsys, "verify", "--json")
    assert code == 0 and data["ok"], err


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_a_damaged_unknown_or_hostile_file_is_a_sentence_and_exit_2(
    packages: Packages, kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import zstandard

    whole = packages.current.read_bytes()
    bomb = zstandard.ZstdCompressor(level=1).compress(b"\0" * (600 * 2**20))
    cases = {
        "truncated.apkg": whole[: len(whole) // 2],
        "notes.apkg": b"These are my notes, not a package.\n",
        "empty.apkg": b"",
        "photos.apkg": _zip(tmp_path / "p.zip", {"photo.jpg": b"\xff\xd8"}).read_bytes(),
        "garbage.apkg": _zip(
            tmp_path / "g.zip", {"collection.anki2": b"SQLite? no" * 99}
        ).read_bytes(),
        "bomb.apkg": _zip(tmp_path / "b.zip", {"collection.anki21b": bomb}).read_bytes(),
        "badzstd.apkg": _zip(
            tmp_path / "z.zip", {"collection.anki21b": b"\x28\xb5\x2f\xfd" + b"\x07" * 64}
        ).read_bytes(),
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        code, out, err = coach(capsys, "import", str(path), "--json")
        assert code == 2, (name, err)
        assert out == "" and "Traceback" not in err, name
        message = err.strip().splitlines()[-1]
        assert message.startswith("coach: ") and message.endswith("."), (name, message)
    assert "larger than Coach reads" in _last(capsys, tmp_path / "bomb.apkg")
    assert "not an Anki package" in _last(capsys, tmp_path / "notes.apkg")
    assert "holds no Anki collection" in _last(capsys, tmp_path / "photos.apkg")
    assert "damaged" in _last(capsys, tmp_path / "garbage.apkg")
    assert "There is no file" in _last(capsys, tmp_path / "missing.apkg")
    assert list(kb.rglob("*.md")) == []


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def test_a_media_list_that_names_one_file_many_times_is_refused(
    packages: Packages, kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tiny package whose media list names one huge file under many names would be
    copied once per name (1 KB in, gigabytes out): refused before anything is written."""
    import zstandard

    entries = b"".join(
        _field(1, _field(1, f"p{n}.png".encode()) + _varint(255 << 3) + _varint(0))
        for n in range(20)
    )
    hostile = tmp_path / "many-names.apkg"
    with zipfile.ZipFile(packages.current) as source, zipfile.ZipFile(hostile, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name == "media":
                data = zstandard.ZstdCompressor().compress(entries)
            target.writestr(name, data)
    code, out, err = coach(capsys, "import", str(hostile), "--json")
    assert code == 2 and out == "", err
    assert "names one file under several names" in err
    assert list(kb.rglob("*")) == []


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("UPDATE cards SET due = 900000000 WHERE type = 2", "dates"),
        ("UPDATE revlog SET id = id + 100000000000000000", "dates"),
        ('UPDATE cards SET data = \'{"s": Infinity, "d": 5}\' WHERE type = 2', None),
    ],
)
def test_a_package_with_values_anki_never_writes_is_a_sentence_or_is_read_without_them(
    change: str,
    why: str | None,
    packages: Packages,
    kb: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found by review: a due day or review time out of any calendar was a crash, and an
    infinite FSRS memory wrote a note without its history."""
    legacy = tmp_path / "changed.apkg"
    with zipfile.ZipFile(packages.legacy) as source, zipfile.ZipFile(legacy, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name == "collection.anki21":
                db = tmp_path / "c.sqlite"
                db.write_bytes(data)
                with sqlite3.connect(db) as conn:
                    conn.execute(change)
                data = db.read_bytes()
            target.writestr(name, data)
    code, data, err = coach(capsys, "import", str(legacy), "--json")
    if why is not None:
        assert code == 2 and "never writes" in err and "Traceback" not in err, err
        assert list(kb.rglob("*.md")) == []
        return
    assert code == 0, err  # the memory Anki would not have is left out, the history kept
    assert data["reviews_imported"] == packages.expected.reviews
    assert len(data["created"]) == 3


def _last(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, _, err = coach(capsys, "import", str(path))
    assert code == 2
    return err.strip().splitlines()[-1]


def test_a_csv_becomes_notes_and_a_second_import_adds_nothing(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "Capitals.csv"
    path.write_text(
        "question,answer,tags\n"
        '"Capital of France?","Paris",geo europe\n'
        '"Capital of Japan?","<b>Tokyo</b><br>since 1869",geo asia\n'
        '"No answer here?","",\n',
        encoding="utf-8",
    )
    code, data, err = coach(capsys, "import", str(path), "--json")
    assert code == 0, err
    assert [c["file"] for c in data["created"]] == [
        "Capitals/Capital of France.md",
        "Capitals/Capital of Japan.md",
    ]
    assert data["skipped"] == [
        {"item": "No answer here?", "reason": "the answer side has no text to make a key point of"}
    ]
    notes = {n.title: n for n, _ in _notes().values()}
    assert notes["Capital of Japan?"].core_assertions == ("**Tokyo**", "since 1869")
    assert notes["Capital of Japan?"].tags == ("geo", "asia")
    code, again, err = coach(capsys, "import", str(path), "--json")
    assert code == 0 and again["created"] == [], err


def test_the_window_can_preview_show_progress_and_cancel(packages: Packages, kb: Path) -> None:
    """What File › Import… will call: a preview that writes nothing, then the import with
    progress, stopped by its cancel check after the first note (that note is kept)."""
    from coach_gui.bootstrap import use_cases

    cases = use_cases(build_context(seed=False))
    try:
        preview = cases.imports.preview(packages.legacy)
        assert preview.notes[0].title == "What does the mitochondrion do?"
        assert preview.reviews == packages.expected.reviews and preview.media == 1
        assert preview.folders == ("Biology/Cells", "Geography")
        assert list(kb.rglob("*")) == []  # a preview writes nothing
        seen: list[tuple[int, int]] = []
        report = cases.imports.apply(
            preview, progress=lambda done, total: seen.append((done, total)),
            cancelled=lambda: len(seen) >= 1,
        )  # fmt: skip
        assert report.cancelled and seen == [(1, 3)] and len(report.created) == 1
        assert report.changes.notes and report.changes.reviews
        rest = cases.imports.apply(cases.imports.preview(packages.legacy))
        assert len(rest.created) == 2 and not rest.cancelled
        assert "already imported" in {s.reason for s in rest.skipped}
    finally:
        cases.close()


def test_a_notes_folder_that_cannot_be_written_is_a_sentence(
    packages: Packages, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file where the deck's folder would go (as a read-only or full disk would): one
    sentence, the file untouched, what was written before kept with its history."""
    (kb / "Geography").write_text("a file, not a folder\n", encoding="utf-8")
    code, _, err = coach(capsys, "import", str(packages.current))
    assert code == 1 and "Traceback" not in err
    assert "Check that the notes folder is writable" in err.strip().splitlines()[-1]
    assert (kb / "Geography").read_text("utf-8") == "a file, not a folder\n"
    written = [p.relative_to(kb).as_posix() for p in kb.rglob("*.md")]
    assert written == ["Biology/Cells/What does the mitochondrion do.md"]  # before the cloze
    with sqlite3.connect(kb.parent / "coach-home" / "journal.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM imported_reviews").fetchone()[0] == 2


def _anki_import(folder: Path, package: Path) -> Any:
    """A fresh collection of Anki's own, with `package` imported with its scheduling."""
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    folder.mkdir(parents=True)
    col = Collection(str(folder / "collection.anki2"))
    col.import_anki_package(
        ImportAnkiPackageRequest(
            package_path=str(package),
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False),
        )
    )
    return col


def _reviewed(col: Any, question_has: str) -> list[tuple[list[int], int]]:
    """Each card whose question holds `question_has`: its counted eases and days to due."""
    found = []
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        if question_has not in card.question():
            continue
        eases = col.db.list(
            "SELECT ease FROM revlog WHERE cid = ? AND ease > 0 AND type < 4 ORDER BY id", card_id
        )
        found.append((eases, card.due - col.sched.today if card.type == 2 else -1))
    return found


def test_a_deck_goes_from_anki_through_coach_back_to_anki_with_its_history(
    packages: Packages, kb: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The round trip: Anki's package imported, Coach's export imported by Anki again.
    Every key point is a card, and a key point taken from a reviewed card comes back with
    that card's reviews and falls due on Anki's day (within a day: Anki's rollover)."""
    code, data, err = coach(capsys, "import", str(packages.current), "--json")
    assert code == 0, err
    key_points = sum(int(c["key_points"]) for c in data["created"])
    out = tmp_path / "back.apkg"
    code, exported, err = coach(capsys, "export", "--anki", str(out), "--json")
    assert code == 0, err
    assert exported["cards"] == key_points == 6
    original = _anki_import(tmp_path / "original", packages.current)
    back = _anki_import(tmp_path / "back", out)
    try:
        assert back.card_count() == key_points
        fields = {back.get_note(n)["KeyPoint"] for n in back.find_notes("")}
        assert "It makes *ATP* for the cell" in fields and "It has its own DNA" in fields
        (before,) = _reviewed(original, "mitochondrion")  # one card, its answer two points
        assert len(before[0]) == 3 and before[1] > 1  # reviewed three times, not due soon
        after = _reviewed(back, "mitochondrion")
        assert len(after) == 2
        for eases, due_in in after:
            assert eases == before[0]  # the card's reviews, each key point's now
            assert abs(due_in - before[1]) <= 1
    finally:
        original.close()
        back.close()


def test_importing_again_gives_notes_the_history_they_never_got(
    packages: Packages,
    kb: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Notes on disk without their history (an import stopped between a note and its
    batch of histories; here, a journal started afresh): importing the deck again adds
    no note and gives each its history."""
    code, first, err = coach(capsys, "import", str(packages.current), "--json")
    assert code == 0, err
    monkeypatch.setenv("COACH_HOME", str(tmp_path / "another-journal"))
    assert _memory() == {}
    code, again, err = coach(capsys, "import", str(packages.current), "--json")
    assert code == 0, err
    assert again["created"] == []
    assert again["reviews_imported"] == first["reviews_imported"] > 0
    assert {m.due for m in _memory().values()}  # the schedule goes on where Anki left it
    code, third, err = coach(capsys, "import", str(packages.current), "--json")
    assert code == 0 and third["reviews_imported"] == 0, err  # and only once
