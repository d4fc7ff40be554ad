"""The vault generators themselves (tests/fakes/vaults.py), not the app: every path they
promise exists, fingerprints are stable and sensitive, and what each `Expected` says agrees
with a small reference reading of the bytes on disk, written here independently."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakes.vaults import (
    MAX_NOTE_BYTES,
    Expected,
    Vault,
    dendron_vault,
    file_hashes,
    mixed_vault,
    obsidian_vault,
    zettelkasten_vault,
)

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")

GENERATORS: dict[str, Callable[..., Vault]] = {
    "obsidian": obsidian_vault,
    "dendron": dendron_vault,
    "zettelkasten": zettelkasten_vault,
    "mixed": mixed_vault,
}
SMALL = {"obsidian": {}, "dendron": {}, "zettelkasten": {"notes": 300}, "mixed": {}}


# --- a reference reading, independent of the generator ---------------------------------------

_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")


class Unreadable(Exception):
    pass


def _fold(value: str) -> str:
    return " ".join(part.strip() for part in value.split("\n") if part.strip())


def _front_tags(value: Any) -> list[str]:
    if isinstance(value, list):
        items = [str(v) for v in value]
    elif isinstance(value, str):
        items = re.split(r"[,\s]+", value)
    else:
        items = []
    return [t.lstrip("#") for t in items if t.lstrip("#")]


def _body_tags(body: str) -> list[str]:
    found: list[str] = []
    fenced = False
    for line in body.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        found += [t for t in _TAG.findall(_CODE_SPAN.sub(" ", line)) if not t.isdigit()]
    return found


def read(path: Path, rel: str) -> Expected:
    raw = path.read_bytes()
    if len(raw) > MAX_NOTE_BYTES:
        raise Unreadable("too large")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8") from None
    text = text.replace("\r\n", "\n")
    data: dict[str, Any] = {}
    body = text
    has_front = text.startswith("---\n")
    if has_front:
        lines = text.split("\n")
        end = next((i for i in range(1, len(lines)) if _CLOSE.match(lines[i])), None)
        if end is None:
            raise Unreadable("front matter never closed")
        try:
            loaded = yaml.load("\n".join(lines[1:end]), Loader=yaml.BaseLoader)  # all text
        except yaml.YAMLError:
            raise Unreadable("not YAML") from None
        data = loaded if isinstance(loaded, dict) else {}
        body = "\n".join(lines[end + 1 :])
    title = data.get("title")
    aliases = data.get("aliases", data.get("alias"))
    if isinstance(aliases, str):
        aliases = [aliases] if aliases else []
    assertions = data.get("core_assertions")
    tags = dict.fromkeys([*_front_tags(data.get("tags")), *_body_tags(body)])
    return Expected(
        rel_path=rel,
        title=_fold(title) if isinstance(title, str) and _fold(title) else rel[:-3].split("/")[-1],
        aliases=tuple(aliases or ()),
        tags=tuple(tags),
        assertions=len(assertions) if isinstance(assertions, list) else 0,
        has_front_matter=has_front,
    )


def _walk(root: Path) -> list[str]:
    """Every `.md` path a reader meets walking `root`, following links but not cycles."""
    seen: list[str] = []
    ancestors: list[str] = []

    def visit(folder: Path, prefix: str) -> None:
        real = os.path.realpath(folder)
        if real in ancestors:
            return
        ancestors.append(real)
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            rel = prefix + entry.name
            if entry.is_dir():
                visit(Path(entry.path), rel + "/")
            elif entry.name.lower().endswith(".md"):
                seen.append(rel)
        ancestors.pop()

    visit(root, "")
    return seen


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture(params=sorted(GENERATORS))
def vault(request: pytest.FixtureRequest, tmp_path: Path) -> Vault:
    name = request.param
    return GENERATORS[name](tmp_path / "vault", **SMALL[name])


def _under(rel: str, prefixes: set[str]) -> bool:
    return any(rel == p or rel.startswith(p + "/") for p in prefixes)


# --- tests -----------------------------------------------------------------------------------


def test_every_promised_path_exists(vault: Vault) -> None:
    for rel in (e.rel_path for e in vault.notes):
        assert (vault.root / rel).is_file(), rel
    for rel in (*vault.unreadable, *vault.ignored, *vault.duplicates_by_link):
        assert os.path.lexists(vault.root / rel), rel
    groups = [
        [e.rel_path for e in vault.notes],
        list(vault.unreadable),
        list(vault.ignored),
        list(vault.duplicates_by_link),
    ]
    flat = [rel for group in groups for rel in group]
    assert len(flat) == len(set(flat)), "a path is in two groups"
    for group in groups:
        assert group == sorted(group)


def test_expected_agrees_with_a_reference_reading(vault: Vault) -> None:
    for expected in vault.notes:
        assert read(vault.root / expected.rel_path, expected.rel_path) == expected
    for rel in vault.unreadable:
        with pytest.raises(Unreadable):
            read(vault.root / rel, rel)


def test_every_markdown_file_is_accounted_for(vault: Vault) -> None:
    notes = {e.rel_path for e in vault.notes}
    accounted = notes | set(vault.unreadable) | set(vault.duplicates_by_link)
    hidden_or_ignored = set(vault.ignored)
    for rel in _walk(vault.root):
        if any(part.startswith(".") for part in rel.split("/")) or _under(rel, hidden_or_ignored):
            continue
        assert rel in accounted, rel
    for rel in vault.duplicates_by_link:
        target = os.path.realpath(vault.root / rel)
        assert any(os.path.realpath(vault.root / n) == target for n in notes), rel


def test_hashes_are_stable_and_see_one_byte(vault: Vault) -> None:
    first = file_hashes(vault.root)
    assert first == file_hashes(vault.root)
    victim = vault.root / next(e.rel_path for e in vault.notes if not _is_linked(vault, e))
    data = bytearray(victim.read_bytes() or b" ")
    data[0] ^= 1
    victim.write_bytes(bytes(data))
    assert file_hashes(vault.root) != first
    assert sum(first[k] != v for k, v in file_hashes(vault.root).items()) == 1


def test_hashes_see_dotfiles_folders_and_links(tmp_path: Path) -> None:
    vault = mixed_vault(tmp_path / "vault")
    hashes = file_hashes(vault.root)
    assert ".obsidian/app.json" in hashes and ".hidden-note.md" in hashes
    assert hashes[".stfolder"] == "dir"
    assert hashes["A link to Newton.md"].startswith("link:")
    assert hashes["Shared (linked)"].startswith("link:")
    assert not any(k.startswith("Shared (linked)/") for k in hashes), "followed a link"
    (vault.root / ".stfolder" / "new").mkdir()
    assert file_hashes(vault.root) != hashes


def _is_linked(vault: Vault, e: Expected) -> bool:
    """Whether the note is reached through a symlink (its file or a folder above it)."""
    parts = e.rel_path.split("/")
    return any((vault.root.joinpath(*parts[:i])).is_symlink() for i in range(1, len(parts) + 1))


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    for name, make in GENERATORS.items():
        a = make(tmp_path / name / "a" / "vault", **SMALL[name])
        b = make(tmp_path / name / "b" / "vault", **SMALL[name])
        assert file_hashes(a.root) == file_hashes(b.root), name
        assert a.notes == b.notes, name
        if name != "mixed":
            c = make(tmp_path / name / "c" / "vault", **SMALL[name], seed=1)
            assert file_hashes(c.root) != file_hashes(a.root), name


@pytest.mark.parametrize("name", ["obsidian", "dendron", "zettelkasten"])
@pytest.mark.parametrize("count", [25, 137])
def test_note_counts_are_exact(tmp_path: Path, name: str, count: int) -> None:
    assert len(GENERATORS[name](tmp_path / "vault", notes=count).notes) == count


def test_a_folder_is_not_reused(tmp_path: Path) -> None:
    obsidian_vault(tmp_path / "vault")
    with pytest.raises(ValueError, match="not empty"):
        obsidian_vault(tmp_path / "vault")


def test_mixed_has_every_hard_case(tmp_path: Path) -> None:
    vault = mixed_vault(tmp_path / "vault")
    root = vault.root
    cycle = root / "Science/Physics/Mechanics/Up to Science"
    assert cycle.is_symlink() and cycle.resolve() == (root / "Science").resolve()
    assert cycle.resolve() in (cycle.parent.resolve(), *cycle.parent.resolve().parents)
    assert "Science/Physics/Mechanics/Up to Science" in vault.ignored
    external = root / "Linked/External note.md"
    assert external.is_symlink() and not external.resolve().is_relative_to(root.resolve())
    shared = root / "Shared (linked)"
    assert shared.is_symlink() and shared.is_dir()
    assert (root / "A link to Newton.md").resolve() == (
        root / "Science/Physics/Mechanics/Newton's laws.md"
    ).resolve()
    assert (root / "Physics mirror").is_symlink()

    raw = {e.rel_path: (root / e.rel_path).read_bytes() for e in vault.notes}
    assert b"\r\n" in raw["Encoding/CRLF note.md"]
    assert raw["Encoding/BOM note.md"].startswith(b"\xef\xbb\xbf---")
    assert not raw["Encoding/No final newline.md"].endswith(b"\n")
    odd = raw["Encoding/Odd spaces.md"].decode()
    assert "\u00a0" in odd and "\u2028" in odd
    assert raw["Empty.md"] == b""
    assert (root / "Big export.md").stat().st_size > 2 * MAX_NOTE_BYTES
    assert b"{{date}}" in (root / "Templates/Daily.md").read_bytes()
    assert (root / "Broken/Picture.md").read_bytes().startswith(b"\x89PNG")
    for text in ("time: 12:30", "publish: yes", "zip: 0123", "version: 1.10", "title: |"):
        assert any(text.encode() in r for r in raw.values()), text
    for rel in (".obsidian/app.json", ".trash/Old note.md", ".hidden-note.md", "Board.canvas"):
        assert rel in vault.ignored
    for rel in ("Inbox/.syncthing.Note.md.tmp", "Inbox/~syncthing~Note.md.tmp", "Inbox/Note.md~"):
        assert rel in vault.ignored
    assert (root / "Inbox/.syncthing.Note.md.tmp").stat().st_mtime < time.time() - 86400
    assert any(p.name.startswith("Pasted image") for p in (root / "Attachments").iterdir())
    assert any(part for e in vault.notes for part in [e.rel_path] if part.count("/") == 3)
    names = "".join(e.rel_path for e in vault.notes)
    for piece in ("日本語", "é", "🌱", "My first note", "C# basics"):
        assert piece in names, piece
    counts = [e.assertions for e in vault.notes if e.assertions]
    assert min(counts) == 1 and max(counts) == 5
    assert {"area/sub", "inline-tag", "alpha", "reading"} <= {
        t for e in vault.notes for t in e.tags
    }
    assert not any("not-a-tag" in t for e in vault.notes for t in e.tags)
    assert 40 <= len(file_hashes(root)) <= 80


def test_zettelkasten_of_3000_is_fast(tmp_path: Path) -> None:
    start = time.perf_counter()
    vault = zettelkasten_vault(tmp_path / "vault")
    elapsed = time.perf_counter() - start
    assert len(vault.notes) == 3000
    assert sum(e.has_front_matter for e in vault.notes) < 400
    assert re.match(r"zettel/\d{12} ", vault.notes[-1].rel_path)
    assert elapsed < 3.0, elapsed
