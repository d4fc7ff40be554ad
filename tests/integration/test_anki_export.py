"""Issue 37's export half, accepted by Anki itself: `coach export --anki` writes a package
that Anki's own library imports with every key point a card (its front never giving the
answer away), the tags kept, the review log kept rating for rating, and each reviewed
card due on Coach's due day with Coach's memory state; a second export imported into the
same collection adds nothing twice. `--csv` writes one row per key point."""

from __future__ import annotations

import csv
import json
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from anki.collection import Collection  # Anki's own library: a test dependency, never skipped
from cli_run import coach, practise
from fakes.gemini_server import FakeGemini
from fakes.review_history import History, assertion_text, seed_journal, simulate
from fsrs.scheduler import DEFAULT_PARAMETERS
from test_cli_sessions import ASSERTIONS, KEY, _configure, _set_key
from test_cli_today import START, Judge

from coach_gui.bootstrap import build_context, use_cases
from coach_gui.domain.anki_cards import ExportCancelled, ExportFailed
from coach_gui.domain.memory import MemoryState, assertion_digest
from coach_gui.operations.anki_export import export

REVIEWED = 5  # notes note0..note4, each with one reviewed key point of three
FOLDERS = ["Biology", "Biology/Evolution", "", "History", "History"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _other_points(n: int) -> list[str]:
    return [f"Second point of note {n}: a cause & its effect.", f"Third point of note {n}."]


def _write_notes(folder: Path) -> None:
    """note0..note4 with three key points each (the first one reviewed in the journal),
    tags in Obsidian's forms, in folders; and a note without key points."""
    for n in range(REVIEWED):
        front = {
            "id": f"note{n}", "title": f"Note {n}", "source": "Darwin, Origin, ch. 4",
            "tags": ["biology", "natural selection", "topic/evolution"],
            "core_assertions": [assertion_text(n), *_other_points(n)],
        }  # fmt: skip
        where = folder / FOLDERS[n] if FOLDERS[n] else folder
        where.mkdir(parents=True, exist_ok=True)
        (where / f"note-{n}.md").write_text(
            "---\n" + yaml.safe_dump(front) + "---\nBody with #inline tag.\n", encoding="utf-8"
        )
    (folder / "plain.md").write_text("Just a page, no key points.\n", encoding="utf-8")


@pytest.fixture
def history(coach_home: Path) -> list[History]:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({
        "kb": {"path": str(coach_home / "notes")},
        "tier1": {"ollamaUrl": f"http://127.0.0.1:{_free_port()}"},
        "judge": {"enabled": False},
    }), encoding="utf-8")  # fmt: skip
    _write_notes(coach_home / "notes")
    histories = simulate(REVIEWED, 200, truth=tuple(DEFAULT_PARAMETERS))
    coach_home.mkdir(parents=True, exist_ok=True)
    seed_journal(coach_home / "journal.sqlite3", histories)
    return histories


def _memory() -> dict[str, MemoryState]:
    """Coach's own word on each reviewed key point: the scheduler's memory."""
    context = build_context()
    try:
        scheduler = context.scheduler()
        scheduler.refresh()
        return {s.note_id: s for s in scheduler.memory.due_before("9999-12-31")}
    finally:
        context.close()


@pytest.fixture
def anki(tmp_path: Path) -> Iterator[Any]:
    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    try:
        yield col
    finally:
        col.close()


def _import(col: Any, package: Path) -> Any:
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    return col.import_anki_package(
        ImportAnkiPackageRequest(
            package_path=str(package),
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False),
        )
    )


def test_anki_imports_every_key_point_with_its_history(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, history: list[History], anki: Any
) -> None:
    for hold in (["note3"], ["note1", "--assertion", "2"]):  # held back in Coach
        code, _, err = coach(capsys, "schedule", "suspend", *hold)
        assert code == 0, err
    package = tmp_path / "out" / "coach.apkg"
    package.parent.mkdir()
    code, out, err = coach(capsys, "export", "--anki", str(package), "--json")
    assert code == 0, err
    assert out == {
        "path": str(package), "format": "anki", "notes": REVIEWED, "cards": 3 * REVIEWED,
        "reviews": sum(len(h) for h in history), "notes_without_key_points": 1,
    }  # fmt: skip
    assert "1 note without key points gave no card" in err
    assert [p.name for p in package.parent.iterdir()] == ["coach.apkg"]  # no temp file left

    _import(anki, package)
    memory = _memory()
    assert anki.card_count() == 3 * REVIEWED
    today_utc = datetime.now(UTC).date()
    reviewed, suspended = [], 0
    for card_id in anki.find_cards(""):
        card = anki.get_card(card_id)
        note = card.note()
        note_id = next(f"note{n}" for n in range(REVIEWED) if note["Title"] == f"Note {n}")
        n = int(note_id[4:])
        point = note["KeyPoint"]
        texts = [assertion_text(n), *_other_points(n)]
        assert point in [t.replace("&", "&amp;") for t in texts]
        number = [t.replace("&", "&amp;") for t in texts].index(point) + 1
        assert note["Which"] == f"Key point {number} of 3"
        assert texts[number - 1].split(":")[0] not in card.question()  # the answer hidden
        assert point in card.answer()
        assert sorted(note.tags) == sorted(
            ["biology", "natural_selection", "topic::evolution", "inline"]
        )
        folder = FOLDERS[n].replace("/", "::")
        assert anki.decks.name(card.did) == ("Coach::" + folder if folder else "Coach")
        eases = anki.db.list("SELECT ease FROM revlog WHERE cid = ? ORDER BY id", card_id)
        if n == 3 or (n, number) == (1, 2):
            assert card.queue == -1  # suspended in Coach, suspended in Anki
            suspended += 1
        if number != 1:
            assert card.type == 0 and eases == []  # never reviewed: a new card
            continue
        assert eases == [rating for _, rating in history[n]]
        state = memory[note_id]
        assert state.digest == assertion_digest(texts[0])
        assert card.type == 2 and card.queue == (-1 if n == 3 else 2)
        due_days = (datetime.fromisoformat(state.due).astimezone(UTC).date() - today_utc).days
        assert card.due - anki.sched.today == due_days
        assert card.memory_state.stability == pytest.approx(state.stability, abs=1e-3)
        assert card.memory_state.difficulty == pytest.approx(state.difficulty, abs=1e-3)
        assert card.reps == len(history[n])
        reviewed.append(card_id)
    assert len(reviewed) == REVIEWED and suspended == 4

    # A second export, into the same collection: nothing twice.
    revlog = anki.db.scalar("SELECT count() FROM revlog")
    code, _, err = coach(capsys, "export", "--anki", str(package))
    assert code == 0, err
    _import(anki, package)
    assert anki.card_count() == 3 * REVIEWED
    assert anki.note_count() == 3 * REVIEWED
    assert anki.db.scalar("SELECT count() FROM revlog") == revlog


def test_csv_has_a_row_per_key_point(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, history: list[History]
) -> None:
    path = tmp_path / "coach.csv"
    code, out, err = coach(capsys, "export", "--csv", str(path), "--json")
    assert code == 0, err
    assert (out["cards"], out["notes"], out["reviews"]) == (3 * REVIEWED, REVIEWED, 0)
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")  # Excel reads it as UTF-8
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 * REVIEWED
    memory = _memory()
    for row in rows:
        n = int(row["note_id"][4:])
        texts = [assertion_text(n), *_other_points(n)]
        assert row["key_point_text"] == texts[int(row["key_point"]) - 1]
        assert row["note_title"] == f"Note {n}" and row["key_points"] == "3"
        assert row["tags"] == "biology natural_selection topic::evolution inline"
        if row["key_point"] == "1":
            assert row["due"] == memory[row["note_id"]].due
            assert row["reviews"] == str(len(history[n]))
        else:
            assert (row["due"], row["reviews"]) == ("", "0")


def test_cli_says_what_to_do_on_a_missing_flag_or_an_unwritable_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, history: list[History]
) -> None:
    code, _, err = coach(capsys, "export")
    assert code == 2 and "--anki FILE.apkg" in err and "Traceback" not in err
    missing = tmp_path / "no such folder" / "coach.apkg"
    code, _, err = coach(capsys, "export", "--anki", str(missing))
    assert code == 2 and "its folder does not exist" in err and "Traceback" not in err
    folder = tmp_path / "a folder.csv"
    folder.mkdir()
    code, _, err = coach(capsys, "export", "--csv", str(folder))
    assert code == 2 and "it is a folder" in err


def test_a_folder_without_write_permission_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, history: list[History]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who may write anywhere")
        code, _, err = coach(capsys, "export", "--anki", str(locked / "coach.apkg"))
        assert code == 2 and "you may not write there" in err
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("format", ["anki", "csv"])
def test_a_cancelled_export_leaves_the_old_file(
    tmp_path: Path, history: list[History], format: str
) -> None:
    path = tmp_path / f"coach.{format}"
    path.write_bytes(b"the learner's earlier export")
    seen: list[tuple[int, int]] = []
    context = build_context()
    try:
        with pytest.raises(ExportCancelled):
            export(context, path, format, progress=lambda d, t: seen.append((d, t)),  # type: ignore[arg-type]
                   cancelled=lambda: bool(seen))  # fmt: skip
        result = export(context, path, format, progress=lambda d, t: seen.append((d, t)))  # type: ignore[arg-type]
    finally:
        context.close()
    assert seen[0] == (0, 3 * REVIEWED) and seen[-1] == (3 * REVIEWED, 3 * REVIEWED)
    assert result.cards == 3 * REVIEWED
    assert path.read_bytes() != b"the learner's earlier export"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_failed_write_is_a_sentence(tmp_path: Path, history: list[History]) -> None:
    context = build_context()
    try:
        with pytest.raises(ExportFailed, match="Choose another file name or folder"):
            export(context, tmp_path / "gone" / "x.apkg", "anki")
    finally:
        context.close()


def test_the_window_exports_through_its_use_case(tmp_path: Path, history: list[History]) -> None:
    cases = use_cases(build_context())
    seen: list[tuple[int, int]] = []
    try:
        result = cases.exports.anki(tmp_path / "a.apkg", progress=lambda d, t: seen.append((d, t)))
        assert (result.cards, result.notes) == (3 * REVIEWED, REVIEWED)
        assert result.reviews == sum(len(h) for h in history)
        with pytest.raises(ExportCancelled):
            cases.exports.csv(tmp_path / "a.csv", cancelled=lambda: True)
    finally:
        cases.close()
    assert seen[-1] == (3 * REVIEWED, 3 * REVIEWED)
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".apkg", ".csv")) == ["a.apkg"]


def test_sessions_practised_and_judged_go_to_anki_rating_for_rating(
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    anki: Any,
) -> None:
    """Four sessions judged by the fake Gemini over loopback: the second key point missed
    twice (Again), then explained (Good); Anki gets each rating as the review's ease."""
    judge = Judge()
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = judge
        _configure(coach_home, gemini.url)
        _set_key(monkeypatch, capsys)
        for n in range(4):
            judge.learned = n >= 2
            monkeypatch.setenv("COACH_NOW", (START + timedelta(days=n)).isoformat())
            data = practise(capsys, tmp_path, "Selection keeps inherited differences.")
            assert data["items"][0]["status"] == "judged"
    monkeypatch.delenv("COACH_NOW")
    package = tmp_path / "practised.apkg"
    code, out, err = coach(capsys, "export", "--anki", str(package), "--json")
    assert code == 0, err
    assert (out["cards"], out["reviews"]) == (2, 8)
    _import(anki, package)
    eases = {}
    for card_id in anki.find_cards(""):
        card = anki.get_card(card_id)
        assert card.note()["Title"] == "Natural selection"
        assert card.note()["KeyPoint"] not in card.question()
        eases[card.note()["KeyPoint"]] = anki.db.list(
            "SELECT ease FROM revlog WHERE cid = ? ORDER BY id", card_id
        )
    assert eases == {ASSERTIONS[0]: [3, 3, 3, 3], ASSERTIONS[1]: [1, 1, 3, 3]}
