"""Knowledge bases shaped like real ones, for tests that read a whole folder of notes.

Each generator writes a folder into `root` and returns a `Vault` that says, file by file,
what a careful reader must find. The shapes follow public vaults (the Obsidian help vault,
the Dendron site workspace, personal Obsidian templates and Zettelkasten folders); the
note text is our own.

What a careful reader does, as the `Expected` records assume:

- A note is a ``.md`` file (any case) outside hidden folders, not itself hidden (a name
  starting with '.'), at most `MAX_NOTE_BYTES` long, valid UTF-8 (a leading BOM is
  dropped). Symlinks are followed: a file link to a note already found under its real
  path is a duplicate (listed once, under the real path), a link to a file or folder
  outside the vault brings real notes (listed under the link's path), and a folder link to
  an ancestor is a cycle that must not be walked.
- Front matter opens with a ``---`` line at the very start and closes with a ``---`` or
  ``...`` line. Open but never closed, or not valid YAML (``title: {{title}}``), and the
  file is unreadable. No opening line: no front matter, the whole file is the body.
- Scalars are text, as written: ``publish: yes`` is "yes", ``version: 1.10`` is "1.10",
  ``title: 0.98`` is "0.98" (YAML 1.1 would say True, 1.1 and a float).
- ``title`` (a block scalar folded to one line, stripped) or else the file name without
  ``.md``. ``aliases`` or ``alias``, a list or one string. ``tags``: a list, a "a, b" or
  "a b" string, a leading '#' removed, nested "a/b" kept; ``tags: #a`` unquoted is a YAML
  comment, so no tags. Then the body's inline tags: '#' at the start of a line or after
  white space, then letters, digits, '_', '-' or '/', not digits only; not inside a code
  span or a fenced block; ``# Heading`` (a space after '#') is no tag. All without '#',
  de-duplicated, first seen first.
- ``core_assertions``: the number of list items.

`file_hashes` fingerprints every file, folder and link, so a test can assert that reading
a vault wrote nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import struct
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

MAX_NOTE_BYTES = 1024 * 1024  # the size limit the "too large" hard case assumes
OLD_MTIME = 1_709_251_200  # 2024-03-01: stalled sync temp files are days old, not minutes


@dataclass(frozen=True)
class Expected:
    """What a careful reader of the vault must find, per note file."""

    rel_path: str
    title: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    assertions: int
    has_front_matter: bool


@dataclass(frozen=True)
class Vault:
    root: Path
    notes: tuple[Expected, ...]
    unreadable: tuple[str, ...]
    ignored: tuple[str, ...]
    duplicates_by_link: tuple[str, ...]

    def note(self, rel_path: str) -> Expected:
        for expected in self.notes:
            if expected.rel_path == rel_path:
                return expected
        raise KeyError(rel_path)


# --- our own words ---------------------------------------------------------------------------

_SUBJECTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # subject: (concepts, tags)
    "Biology": (
        (
            "Photosynthesis",
            "Cell membrane",
            "Mitosis",
            "Enzymes",
            "Natural selection",
            "Osmosis",
            "Cellular respiration",
            "Homeostasis",
            "Genetic drift",
            "Symbiosis",
            "DNA replication",
            "Food webs",
        ),
        ("biology", "science/biology", "cells", "evolution"),
    ),
    "Physics": (
        (
            "Inertia",
            "Momentum",
            "Entropy",
            "Wave interference",
            "Ohm's law",
            "Buoyancy",
            "Friction",
            "Kinetic energy",
            "Refraction",
            "Torque",
            "Half-life",
            "Pressure",
        ),
        ("physics", "science/physics", "mechanics", "energy"),
    ),
    "History": (
        (
            "Printing press",
            "Silk Road",
            "Hanseatic League",
            "Industrial revolution",
            "Magna Carta",
            "Bronze Age collapse",
            "Columbian exchange",
            "Meiji restoration",
            "Enclosure movement",
            "Black Death",
        ),
        ("history", "history/medieval", "trade", "empires"),
    ),
    "Economics": (
        (
            "Opportunity cost",
            "Supply and demand",
            "Comparative advantage",
            "Inflation",
            "Marginal utility",
            "Moral hazard",
            "Price elasticity",
            "Public goods",
            "Compound interest",
            "Sunk cost",
        ),
        ("economics", "econ/micro", "econ/macro", "money"),
    ),
    "Music": (
        (
            "Circle of fifths",
            "Syncopation",
            "Counterpoint",
            "Overtones",
            "Modes",
            "Cadence",
            "Voice leading",
            "Tempo rubato",
        ),
        ("music", "music/theory", "harmony", "rhythm"),
    ),
    "Cooking": (
        (
            "Maillard reaction",
            "Emulsions",
            "Brining",
            "Gluten development",
            "Caramelization",
            "Fermentation",
            "Mother sauces",
            "Resting meat",
        ),
        ("cooking", "kitchen/technique", "chemistry", "recipes"),
    ),
}

_SENTENCES = (
    "{c} is easier to remember through one concrete example than through a definition.",
    "The first book on {s} I read explained {c} in a single diagram.",
    "A common mistake is to treat {c} as a rule when it is a tendency.",
    "Think of {c} as a budget: something is always traded for something else.",
    "{c} shows up again whenever {s} deals with change over time.",
    "Try to explain {c} to a friend without using any jargon.",
    "There are two ways to look at {c}, and both are useful.",
    "Small changes in the inputs can make {c} look very different.",
    "Most textbooks introduce {c} early and come back to it later.",
    "The history of the idea is longer than the name {c} suggests.",
    "Ask what would happen without {c}; the answer usually teaches more.",
    "Lorem ipsum dolor sit amet, the margin note says, next to {c}.",
    "Sed do eiusmod tempor, which is to say: revisit this in a week.",
    "Ut enim ad minim veniam; the example below is the one that stuck.",
    "Quis nostrud exercitation, or rather, practise on three new cases.",
)

_ASSERTIONS = (
    "{c} can be stated in one sentence without jargon.",
    "{c} explains an effect that a simpler model misses.",
    "Changing one input of {c} changes its outcome in a predictable direction.",
    "{c} has at least one well-known exception.",
    "The idea of {c} is older than its name.",
    "Without {c}, the usual examples in {s} stop making sense.",
)


def _dedupe(items: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return tuple(seen)


_PLAIN_UNSAFE_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n", "~"}


def _scalar(text: str) -> str:
    """`text` as a YAML scalar: plain when that reads back as the same text, else quoted."""
    plain = (
        text
        and text == text.strip()
        and text[0] not in "-?:,[]{}#&*!|>'\"%@`0123456789+."
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and text.lower() not in _PLAIN_UNSAFE_WORDS
    )
    return text if plain else json.dumps(text, ensure_ascii=False)


def _block_list(key: str, items: Sequence[str]) -> list[str]:
    return [f"{key}:", *(f"  - {_scalar(i)}" for i in items)]


def _png(width: int = 1, height: int = 1) -> bytes:
    """A small valid PNG (grey pixels)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


_PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
    b"trailer << /Root 1 0 R >>\n%%EOF\n"
)


def _canvas(names: Sequence[str]) -> bytes:
    nodes = [
        {"id": f"n{i}", "type": "file", "file": n, "x": i * 300, "y": 0, "width": 250, "height": 60}
        for i, n in enumerate(names)
    ]
    edges = [
        {"id": f"e{i}", "fromNode": f"n{i}", "toNode": f"n{i + 1}"} for i in range(len(nodes) - 1)
    ]
    return json.dumps({"nodes": nodes, "edges": edges}, indent="\t").encode()


def _git_object(text: bytes) -> tuple[str, bytes]:
    """A loose git blob: (its path under .git/objects, its zlib bytes)."""
    store = b"blob %d\x00" % len(text) + text
    sha = hashlib.sha1(store).hexdigest()
    return f"{sha[:2]}/{sha[2:]}", zlib.compress(store)


class _Builder:
    def __init__(self, root: Path) -> None:
        if root.exists() and any(root.iterdir()):
            raise ValueError(f"{root} is not empty; give a vault a folder of its own")
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.notes: list[Expected] = []
        self.unreadable: list[str] = []
        self.ignored: list[str] = []
        self.duplicates: list[str] = []
        self._made: set[Path] = {root}

    def _path(self, rel: str) -> Path:
        path = self.root.joinpath(*rel.split("/"))
        if path.parent not in self._made:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(path.parent)
        return path

    def raw(self, rel: str, data: bytes) -> Path:
        path = self._path(rel)
        path.write_bytes(data)
        return path

    def ignore(self, rel: str, data: bytes | str) -> Path:
        self.ignored.append(rel)
        return self.raw(rel, data.encode() if isinstance(data, str) else data)

    def broken(self, rel: str, data: bytes) -> Path:
        self.unreadable.append(rel)
        return self.raw(rel, data)

    def note(
        self,
        rel: str,
        *,
        front: Sequence[str] | None,
        body: str,
        title: str | None = None,
        aliases: Sequence[str] = (),
        tags: Sequence[str] = (),
        body_tags: Sequence[str] = (),
        assertions: int = 0,
        crlf: bool = False,
        bom: bool = False,
        closer: str = "---",
        target: Path | None = None,
    ) -> None:
        """Write a note (at `target` instead when the vault reaches it through a link) and
        record what a reader must find at `rel`."""
        text = body if front is None else "\n".join(["---", *front, closer, ""]) + body
        if crlf:
            text = text.replace("\n", "\r\n")
        data = ("\ufeff" if bom else "").encode() + text.encode("utf-8")
        if target is None:
            self.raw(rel, data)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        stem = rel.rsplit("/", 1)[-1][:-3]
        self.notes.append(
            Expected(
                rel_path=rel,
                title=stem if title is None else title,
                aliases=tuple(aliases),
                tags=_dedupe([*tags, *body_tags]),
                assertions=assertions,
                has_front_matter=front is not None,
            )
        )

    def link(self, rel: str, target: Path) -> Path:
        """A symlink at `rel` to `target`, written relative to the link's folder."""
        path = self._path(rel)
        os.symlink(os.path.relpath(target, path.parent), path)
        return path

    def done(self) -> Vault:
        rels = [e.rel_path for e in self.notes]
        assert len(set(rels)) == len(rels), "two notes at one path"
        return Vault(
            root=self.root,
            notes=tuple(sorted(self.notes, key=lambda e: e.rel_path)),
            unreadable=tuple(sorted(self.unreadable)),
            ignored=tuple(sorted(self.ignored)),
            duplicates_by_link=tuple(sorted(self.duplicates)),
        )


# --- bodies ------------------------------------------------------------------------------------


@dataclass
class _Body:
    parts: list[str]
    tags: list[str]

    def text(self) -> str:
        return "\n\n".join(self.parts) + "\n"


def _sentences(rng: random.Random, concept: str, subject: str, n: int) -> str:
    picks = rng.sample(_SENTENCES, n)
    return " ".join(s.format(c=concept, s=subject.lower()) for s in picks)


def _obsidian_body(
    rng: random.Random, concept: str, subject: str, tag_pool: Sequence[str], links: Sequence[str]
) -> _Body:
    body = _Body(parts=[], tags=[])
    if rng.random() < 0.3:
        body.parts.append(f"# {concept}")
    body.parts.append(_sentences(rng, concept, subject, rng.randint(2, 4)))
    if links and rng.random() < 0.7:
        other = rng.choice(links)
        shape = rng.randrange(3)
        if shape == 0:
            body.parts.append(f"See also [[{other}]] and [[{subject} MOC|the {subject} map]].")
        elif shape == 1:
            body.parts.append(f"Compare with [[{other}#Example|the example in {other}]].")
        else:
            body.parts.append(f"Related:\n- [[{other}]]\n- [[{subject} MOC]]")
    if rng.random() < 0.5:
        tag = rng.choice(tag_pool)
        body.parts.append(
            f"## Example\n\n{_sentences(rng, concept, subject, 2)} Filed under #{tag}."
        )
        body.tags.append(tag)
    if rng.random() < 0.25:
        body.parts.append(
            "```python\n# a comment, not a tag: #python\nrate = 0.5  # per hour\nprint(rate)\n```"
        )
    if rng.random() < 0.25:
        body.parts.append(
            f"> [!note] Remember\n> {concept} is worth a second look, see "
            "https://example.org/guide#part-2 for a longer walk through."
        )
    if rng.random() < 0.2:
        body.parts.append("- [ ] Find a second example #todo\n- [x] Write the first draft")
        body.tags.append("todo")
    if rng.random() < 0.15:
        body.parts.append(f"%% private: ask about {concept.lower()} in class %%")
    if rng.random() < 0.15:
        body.parts.append("Source:: [[Reading list]]\nConfidence:: medium ^b1c2d3")
    return body


def _assertion_items(rng: random.Random, concept: str, subject: str, n: int) -> list[str]:
    return [a.format(c=concept, s=subject.lower()) for a in rng.sample(_ASSERTIONS, n)]


# --- Obsidian ---------------------------------------------------------------------------------

_OBSIDIAN_CONFIG = {
    ".obsidian/app.json": {
        "attachmentFolderPath": "Attachments",
        "newFileLocation": "folder",
        "newFileFolderPath": "Inbox",
        "alwaysUpdateLinks": True,
    },
    ".obsidian/appearance.json": {"baseFontSize": 16, "cssTheme": "Minimal"},
    ".obsidian/core-plugins.json": ["file-explorer", "daily-notes", "templates", "canvas"],
    ".obsidian/community-plugins.json": ["dataview"],
    ".obsidian/daily-notes.json": {"folder": "Daily", "template": "Templates/Daily note"},
    ".obsidian/templates.json": {"folder": "Templates"},
    ".obsidian/workspace.json": {"main": {"id": "a1b2", "type": "split", "children": []}},
    ".obsidian/plugins/dataview/manifest.json": {"id": "dataview", "version": "0.5.0"},
    ".obsidian/plugins/dataview/data.json": {"refreshInterval": 2500},
}


def _write_obsidian_config(b: _Builder) -> None:
    for rel, data in _OBSIDIAN_CONFIG.items():
        b.ignore(rel, json.dumps(data, indent=2))
    b.ignore(".obsidian/plugins/dataview/main.js", "module.exports = {};\n")
    b.ignore(".obsidian/snippets/wide.css", ".markdown-preview-view { max-width: 60em; }\n")


def obsidian_vault(root: Path, *, notes: int = 60, seed: int = 0) -> Vault:
    """A personal Obsidian vault: subject folders of concept notes with Properties, maps of
    content, daily notes, an inbox, templates, pasted images, a canvas, a base, an
    Excalidraw drawing, a sync-conflict copy, `.obsidian/` and `.trash/`. Exactly `notes`
    readable notes (at least 20)."""
    if notes < 20:
        raise ValueError("an Obsidian vault here has at least 20 notes")
    rng = random.Random(f"obsidian:{seed}")
    b = _Builder(root)
    _write_obsidian_config(b)
    b.ignore(".trash/Old scratch.md", "Scratch text that was deleted from the vault.\n")
    b.ignore(".gitignore", ".obsidian/workspace.json\n.trash/\n")

    start = datetime(2024, 3, 4, 9, 15)
    images = []
    for i in range(4):
        stamp = (start + timedelta(days=i, minutes=37 * i)).strftime("%Y%m%d%H%M%S")
        images.append(f"Pasted image {stamp}.png")
        b.ignore(f"Attachments/{images[-1]}", _png(2 + i, 2))
    b.ignore("Attachments/Lecture slides.pdf", _PDF)

    subject_names = list(_SUBJECTS)[: min(6, max(2, notes // 12))]
    daily = max(3, notes // 10)
    fixed = 2 + 1 + 1 + 1 + 1 + daily + len(subject_names)  # inbox, home, template, drawing,
    concepts_wanted = notes - fixed  # conflict copy, dailies, maps of content
    base = [(s, c) for s in subject_names for c in _SUBJECTS[s][0]]
    rng.shuffle(base)
    pool = list(base)
    while len(pool) < concepts_wanted:  # large vaults: second takes on the same concepts
        s, c = base[len(pool) % len(base)]
        pool.append((s, f"{c} {len(pool) // len(base) + 1}"))
    chosen = sorted(pool[:concepts_wanted])

    titles_by_subject: dict[str, list[str]] = {s: [] for s in subject_names}
    for s, c in chosen:
        titles_by_subject[s].append(c)

    conflict_of: tuple[str, list[str], str, Expected | None] | None = None
    for subject, concept in chosen:
        tag_pool = _SUBJECTS[subject][1]
        others = [c for c in titles_by_subject[subject] if c != concept]
        body = _obsidian_body(rng, concept, subject, tag_pool, others)
        if rng.random() < 0.2:
            body.parts.insert(1, f"![[{rng.choice(images)}]]")
        rel = f"Areas/{subject}/{concept}.md"
        if rng.random() < 0.2:  # no Properties at all: tags live in the body
            tag = rng.choice(tag_pool)
            body.parts.append(f"#{tag} #{subject.lower()}")
            body.tags += [tag, subject.lower()]
            b.note(rel, front=None, body=body.text(), body_tags=body.tags)
            continue
        front: list[str] = []
        title = None
        if rng.random() < 0.5:
            title = concept
            front.append(f"title: {_scalar(concept)}")
        aliases: list[str] = []
        shape = rng.random()
        if shape < 0.25:
            aliases = [concept.lower(), f"{concept} ({subject})"]
            front += _block_list("aliases", aliases)
        elif shape < 0.35:
            aliases = [f"{concept} basics"]
            front.append(f"aliases: {_scalar(aliases[0])}")
        elif shape < 0.45:
            front.append("aliases:")  # an empty property, as Obsidian leaves it
        tags = rng.sample(tag_pool, rng.randint(1, 3))
        shape = rng.random()
        if shape < 0.6:
            if rng.random() < 0.25:
                tags.append("seed🌱")
            front += _block_list("tags", tags)
        elif shape < 0.8:
            front.append(f"tags: [{', '.join(tags)}]")
        else:
            front.append(f"tags: {', '.join(tags)}")
        day = start + timedelta(days=rng.randint(0, 60))
        front.append(f"created: {day:%Y-%m-%d}")
        if rng.random() < 0.5:
            front.append(f'up: "[[{subject} MOC]]"')
        elif others and rng.random() < 0.3:
            front.append(f"related: [[{rng.choice(others)}]]")  # unquoted: a YAML list of lists
        n_assert = 0
        if rng.random() < 0.4:
            n_assert = rng.randint(1, 4)
            front += _block_list(
                "core_assertions", _assertion_items(rng, concept, subject, n_assert)
            )
        if rng.random() < 0.1:
            front.append("publish: true")
        b.note(
            rel,
            front=front,
            body=body.text(),
            title=title,
            aliases=aliases,
            tags=tags,
            body_tags=body.tags,
            assertions=n_assert,
        )
        if conflict_of is None and title is not None:
            conflict_of = (rel, front, body.text(), b.notes[-1])

    # A Syncthing conflict copy: a real note with the same title as its original.
    if conflict_of is None:  # no concept note had a title: copy one that gets a title here
        subject, concept = chosen[0]
        conflict_of = (f"Areas/{subject}/{concept}.md", [f"title: {_scalar(concept)}"], "", None)
    rel, front, text, original = conflict_of
    b.note(
        rel[:-3] + ".sync-conflict-20240521-070944-WF2RPGC.md",
        front=front,
        body=text.replace(" is ", " was ", 1),
        title=original.title if original else chosen[0][1],
        aliases=original.aliases if original else (),
        tags=original.tags if original else (),
        assertions=original.assertions if original else 0,
    )

    for subject in subject_names:
        listing = "\n".join(f"- [[{c}]]" for c in titles_by_subject[subject])
        b.note(
            f"Maps/{subject} MOC.md",
            front=["tags:", "  - MOC"],
            body=f"# {subject}\n\nEverything filed under {subject.lower()}.\n\n{listing}\n",
            tags=["MOC"],
        )

    for i in range(daily):
        day = start + timedelta(days=i * 2)
        prev, nxt = day - timedelta(days=2), day + timedelta(days=2)
        concept = rng.choice(chosen)[1]
        text = (
            f"[[{prev:%Y-%m-%d}]] - [[{nxt:%Y-%m-%d}]]\n\n# Log\n\n"
            f"- Read about [[{concept}]] for twenty minutes #reading\n"
            "- [ ] Review yesterday's cards\n- [x] Tidy the inbox\n"
        )
        if i % 3 == 0:
            b.note(f"Daily/{day:%Y-%m-%d}.md", front=None, body=text, body_tags=["reading"])
        else:
            b.note(
                f"Daily/{day:%Y-%m-%d}.md",
                front=[f'created: "{day:%Y-%m-%d}"', "tags:", "  - daily"],
                body=text,
                tags=["daily"],
                body_tags=["reading"],
            )

    b.note("Inbox/Untitled.md", front=None, body="")
    b.note(
        "Inbox/Untitled 1.md",
        front=None,
        body="Idea from the bus: link entropy and compound interest?\n",
    )
    b.note(
        "Home.md",
        front=["cssclasses:", "  - wide-page", 'banner: "![[' + images[0] + ']]"', "banner_y: 0.4"],
        body="# Home\n\n"
        + "\n".join(f"- [[{s} MOC]]" for s in subject_names)
        + "\n\n```dataview\nLIST FROM #MOC\n```\n",
    )
    # Templates: the core plugin's unquoted {{date}} is not YAML; a quoted one is.
    b.broken(
        "Templates/Daily note.md",
        b"---\ncreated: {{date}}\ntags:\n  - daily\n---\n# {{title}}\n\n- [ ] \n",
    )
    b.note(
        "Templates/Concept.md",
        front=['title: "{{title}}"', 'created: "{{date}} {{time}}"', "tags:", "  - concept"],
        body="## What it is\n\n## Why it matters\n\n## Example\n",
        title="{{title}}",
        tags=["concept"],
    )
    drawing = {"type": "excalidraw", "version": 2, "elements": [], "appState": {}}
    b.note(
        "Excalidraw/Drawing 2024-03-05 10.11.12.excalidraw.md",
        front=["", "excalidraw-plugin: parsed", "tags: [excalidraw]", ""],
        body="==⚠  Switch to EXCALIDRAW VIEW to see the drawing. ⚠==\n\n\n# Text Elements\n"
        "Cell wall ^k3Jd9aQe\n\nNucleus ^Pq81LmZx\n\n%%\n# Drawing\n```json\n"
        + json.dumps(drawing)
        + "\n```\n%%\n",
        tags=["excalidraw"],
    )
    first = [f"{titles_by_subject[s][0]}.md" for s in subject_names]
    b.ignore(
        "Canvases/Study map.canvas",
        _canvas([f"Areas/{s}/{n}" for s, n in zip(subject_names, first, strict=True)]),
    )
    b.ignore(
        "Bases/Reading list.base",
        'filters:\n  and:\n    - file.hasTag("reading")\nviews:\n  - type: table\n'
        "    name: Table\n",
    )
    vault = b.done()
    assert len(vault.notes) == notes, (len(vault.notes), notes)
    return vault


# --- Dendron ----------------------------------------------------------------------------------

_ID_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _dendron_id(rng: random.Random) -> str:
    return "".join(rng.choice(_ID_CHARS) for _ in range(23))


def _hier(text: str) -> str:
    return text.lower().replace("'", "").replace(" ", "-")


def dendron_vault(root: Path, *, notes: int = 40, seed: int = 0) -> Vault:
    """A Dendron workspace: `dendron.yml` and `.vscode/` at the root, one `vault/` of
    dot-hierarchy notes (`biology.cells.osmosis.md`), every note with `id`, `title`,
    `desc`, `updated`, `created`; some `title: >-` / `title: |` block scalars, quoted and
    unquoted number titles, empty `tags:`, stubs with no body, schemas and images.
    Exactly `notes` readable notes (at least 12)."""
    if notes < 12:
        raise ValueError("a Dendron vault here has at least 12 notes")
    rng = random.Random(f"dendron:{seed}")
    b = _Builder(root)
    b.ignore(
        "dendron.yml",
        "version: 5\nworkspace:\n  vaults:\n    - fsPath: vault\n  journal:\n"
        "    dailyDomain: daily\n    name: journal\n",
    )
    b.ignore("dendron.code-workspace", json.dumps({"folders": [{"path": "vault"}]}, indent=2))
    b.ignore(".vscode/settings.json", json.dumps({"files.autoSave": "onFocusChange"}))
    b.ignore("vault/root.schema.yml", "version: 1\nschemas:\n  - id: root\n    children: []\n")
    b.ignore(
        "vault/daily.schema.yml",
        "version: 1\nschemas:\n  - id: daily\n    children:\n      - pattern: journal\n",
    )
    b.ignore("vault/.dendron.cache.json", json.dumps({"version": 0, "notes": {}}))
    b.ignore("vault/assets/images/2021-06-29-16-56-34.png", _png(3, 2))
    created = 1_595_961_348_801

    def front(title_lines: list[str], extra: Sequence[str] = ()) -> list[str]:
        nonlocal created
        created += rng.randint(10_000_000, 900_000_000)
        updated = created + rng.randint(0, 50_000_000)
        return [
            f"id: {_dendron_id(rng)}",
            *title_lines,
            "desc: ''",
            f"updated: {updated}",
            f"created: {created}",
            *extra,
        ]

    b.note(
        "vault/root.md", front=front(["title: Root"]), body="Start at [[biology]].\n", title="Root"
    )
    fixed: list[tuple[str, list[str], str, str, Sequence[str]]] = [
        # (name, title lines, expected title, body, extra front lines)
        (
            "talks.2022.10k-tables",
            ["title: |", "    Ten Thousand Tables When", "    All You Need Is a Note"],
            "Ten Thousand Tables When All You Need Is a Note",
            "## Summary\n\nA talk about keeping notes small.\n",
            (),
        ),
        (
            "talks.2022.task-workflows",
            ["title: >-", "  Task Workflows, Bullet Journals and Other Ways", "  to Plan a Week"],
            "Task Workflows, Bullet Journals and Other Ways to Plan a Week",
            "",
            ("stub: false",),
        ),
        ("changelog.release.0-41", ["title: '0.41'"], "0.41", "- faster lookups\n", ()),
        ("changelog.release.0-98", ["title: 0.98"], "0.98", "- fewer crashes\n", ()),
        ("daily.journal.2021.09", ["title: 09"], "09", "", ("stub: true",)),
        (
            "daily.journal.2021.09.14",
            ["title: '2021-09-14'"],
            "2021-09-14",
            "## Thoughts\n\n## Tasks\n- [ ] \n",
            ("tags:",),  # an empty property, as Dendron leaves it
        ),
        (
            "talks.2022.learning-in-public",
            ["title: '6 - Learning in Public: Notes That Teach'"],
            "6 - Learning in Public: Notes That Teach",
            "Write for the reader you were a year ago.\n",
            ("nav_order: 3.1",),
        ),
        (
            "tags.stage.seed",
            ["title: Seed"],
            "Seed",
            "Notes that are only a start.\n",
            ("config:", "  global:", "    enableChildLinks: false"),
        ),
    ]
    for name, title_lines, title, body, more in fixed:
        b.note(f"vault/{name}.md", front=front(title_lines, more), body=body, title=title)

    wanted = notes - len(fixed) - 1
    subjects = list(_SUBJECTS)
    made: list[str] = []
    for subject in subjects:
        if len(made) >= wanted:
            break
        made.append(_hier(subject))
        b.note(
            f"vault/{made[-1]}.md",
            front=front([f"title: {subject}"], ("stub: true",) if rng.random() < 0.3 else ()),
            body="",
            title=subject,
        )
    concepts = [(s, c) for s in subjects for c in _SUBJECTS[s][0]]
    rng.shuffle(concepts)
    for i in range(wanted - len(made)):
        subject, concept = concepts[i % len(concepts)]
        name, title = f"{_hier(subject)}.{_hier(concept)}", concept
        if i >= len(concepts):  # large vaults: second takes on the same concepts
            part = i // len(concepts) + 1
            name, title = f"{name}.part-{part}", f"{concept} {part}"
        made.append(name)
        extra: list[str] = []
        tags: list[str] = []
        if rng.random() < 0.3:
            tags = ["stage.seed", "scope." + _hier(subject)]
            extra += _block_list("tags", tags)
        n_assert = 0
        if rng.random() < 0.35:
            n_assert = rng.randint(1, 3)
            extra += _block_list(
                "core_assertions", _assertion_items(rng, concept, subject, n_assert)
            )
        body = ""
        if rng.random() < 0.8:
            body = (
                f"## Summary\n\n{_sentences(rng, concept, subject, 2)}\n\n"
                f"Back to [[{_hier(subject)}]]. ![[{_hier(subject)}#summary]]\n"
            )
        b.note(
            f"vault/{name}.md",
            front=front([f"title: {_scalar(title)}"], extra),
            body=body,
            title=title,
            tags=tags,
            assertions=n_assert,
        )
    vault = b.done()
    assert len(vault.notes) == notes, (len(vault.notes), notes)
    return vault


# --- Zettelkasten -----------------------------------------------------------------------------

_ZK_SHAPES = ("{c}", "Why {c} matters", "{c} in practice", "Questions about {c}", "{c} and {d}")


def zettelkasten_vault(root: Path, *, notes: int = 3000, seed: int = 0) -> Vault:
    """Many small notes named `<YYYYMMDDHHMM> <title>.md` in one folder, most with no front
    matter: an H1 that repeats the title, a paragraph, links by id, a `Tags:` line of
    inline tags. A few literature notes carry front matter with an unquoted numeric `id`
    and an unquoted date. `index.md` at the root is a symlink to the first note (a
    duplicate). Exactly `notes` readable notes (at least 10)."""
    if notes < 10:
        raise ValueError("a Zettelkasten here has at least 10 notes")
    rng = random.Random(f"zettelkasten:{seed}")
    b = _Builder(root)
    b.ignore(".obsidian/app.json", json.dumps({"newFileFolderPath": "zettel"}))
    b.ignore(".obsidian/zk-prefixer.json", json.dumps({"folder": "zettel"}))
    b.ignore("attachments/sketch.png", _png(4, 4))
    concepts = [(s, c) for s in _SUBJECTS for c in _SUBJECTS[s][0]]
    tags_of = {s: list(_dedupe(t.split("/")[-1] for t in _SUBJECTS[s][1])) for s in _SUBJECTS}
    moment = datetime(2019, 1, 7, 8, 0)
    ids: list[str] = []
    first_rel = ""
    for n in range(notes):
        moment += timedelta(minutes=rng.randint(3, 900))
        zid = f"{moment:%Y%m%d%H%M}"
        subject, concept = concepts[rng.randrange(len(concepts))]
        other = concepts[rng.randrange(len(concepts))][1]
        title = rng.choice(_ZK_SHAPES).format(c=concept, d=other.lower())
        lines = [f"# {title}", "", _sentences(rng, concept, subject, rng.randint(1, 3))]
        if ids:
            picks = rng.sample(ids, min(len(ids), rng.randint(1, 3)))
            lines += ["", "Links: " + ", ".join(f"[[{p}]]" for p in picks)]
        body_tags = rng.sample(tags_of[subject], rng.randint(0, 2))
        if body_tags:
            lines += ["", "Tags: " + " ".join(f"#{t}" for t in body_tags)]
        if n % 97 == 5:
            lines += ["", "Quoted from https://example.org/notes#chapter-3 (see #3 there)."]
        body = "\n".join(lines) + "\n"
        if n % 12 == 3:  # a literature note, with front matter
            rel = f"literature/{zid} {title}.md"
            tags = [tags_of[subject][0], "literature"]
            b.note(
                rel,
                front=[
                    f"id: {zid}",
                    f"title: {_scalar(title)}",
                    f"date: {moment:%Y-%m-%d}",
                    f"tags: [{', '.join(tags)}]",
                ],
                body=body,
                title=title,
                tags=tags,
                body_tags=body_tags,
            )
        else:
            rel = f"zettel/{zid} {title}.md"
            b.note(rel, front=None, body=body, body_tags=body_tags)
        ids.append(zid)
        first_rel = first_rel or rel
    b.link("index.md", b.root / first_rel)
    b.duplicates.append("index.md")
    vault = b.done()
    assert len(vault.notes) == notes, (len(vault.notes), notes)
    return vault


# --- every hard case once ---------------------------------------------------------------------


def mixed_vault(root: Path, *, seed: int = 0) -> Vault:
    """Every hard case once, about 50 files. Also writes `<root>.outside/` next to `root`:
    the targets of the links that leave the vault. `seed` only varies some body text."""
    rng = random.Random(f"mixed:{seed}")
    b = _Builder(root)
    outside = root.parent / f"{root.name}.outside"
    if outside.exists() and any(outside.iterdir()):
        raise ValueError(f"{outside} is not empty")

    def words(concept: str, subject: str = "science") -> str:
        return _sentences(rng, concept, subject, 2)

    # Front matter, or none.
    b.note(
        "Plain note.md",
        front=None,
        body=f"# Plain note\n\n{words('Plain text')} It mentions #inline-tag and "
        "#area/sub-topic in passing.\n\n## Details\n\n#Not-a-heading starts this line, "
        "so it is a tag.\n",
        body_tags=["inline-tag", "area/sub-topic", "Not-a-heading"],
    )
    b.note(
        "No title.md",
        front=["tags: [physics, mechanics]  # a flow list", "created: 2024-03-05"],
        body=words("Untitled things") + "\n",
        tags=["physics", "mechanics"],
    )
    b.note(
        "Empty.md",
        front=None,
        body="",
    )
    b.note(
        "Empty front matter.md",
        front=[],
        body="Front matter with nothing in it.\n",
    )
    b.note(
        "Closed by dots.md",
        front=["title: Closed by three dots", "tags:", "  - pandoc"],
        closer="...",
        body="Pandoc and Zettlr may end front matter with '...'.\n",
        title="Closed by three dots",
        tags=["pandoc"],
    )
    # Dendron block-scalar titles.
    b.note(
        "Dendron/project.notes.literal.md",
        front=[
            "id: 4k2v9x1m0q8w7e6r5t3y2u1",
            "title: |",
            "    A title written as a literal block",
            "    over two lines",
            "desc: ''",
            "updated: 1667875428692",
            "created: 1667870506405",
        ],
        body="## Summary\n\n" + words("Block scalars") + "\n",
        title="A title written as a literal block over two lines",
    )
    b.note(
        "Dendron/project.notes.folded.md",
        front=[
            "id: 9z8y7x6w5v4u3t2s1r0q9p8",
            "title: >",
            "  A folded title that the",
            "  editor wrapped",
            "desc: >-",
            "  A description, folded too.",
            "updated: 1646093541108",
            "created: 1646092796099",
        ],
        body="",
        title="A folded title that the editor wrapped",
    )
    # Aliases.
    b.note(
        "Aliases/As a list.md",
        front=["title: Aliases as a list", "aliases:", "  - First alias", "  - Second alias"],
        body="Two other names.\n",
        title="Aliases as a list",
        aliases=["First alias", "Second alias"],
    )
    b.note(
        "Aliases/As a string.md",
        front=["aliases: The only alias"],
        body="One other name.\n",
        aliases=["The only alias"],
    )
    b.note(
        "Aliases/Singular key.md",
        front=["alias: [Old name]"],
        body="The older key, `alias`.\n",
        aliases=["Old name"],
    )
    # Tags in every form.
    b.note(
        "Tags/Comma string.md",
        front=["tags: reading, notes"],
        body="Tags as one string with commas.\n",
        tags=["reading", "notes"],
    )
    b.note(
        "Tags/Hash string.md",
        front=['tags: "#alpha #beta/nested"'],
        body="Tags as a quoted string of hashtags.\n",
        tags=["alpha", "beta/nested"],
    )
    b.note(
        "Tags/Space string.md",
        front=["tags: one two"],
        body="Tags as one string with spaces. #two is seen already; #three is new.\n",
        tags=["one", "two"],
        body_tags=["three"],
    )
    b.note(
        "Tags/Unquoted hash.md",
        front=["title: Unquoted hash tags", "tags: #alpha #beta"],
        body="In YAML an unquoted '#' starts a comment, so these front matter tags are empty.\n",
        title="Unquoted hash tags",
    )
    b.note(
        "Tags/Nested and code.md",
        front=["tags:", "  - area/sub", "  - '#leading-hash'"],
        body="# Heading one\n\n## Heading two\n\nReal: #body-tag, and not in code: "
        "`#not-a-tag` or `x #not-a-tag y`.\n\n```sh\n#not-a-tag\necho '#not-a-tag'\n```\n\n"
        "~~~\n#not-a-tag either\n~~~\n\nNumbers only are no tag: #1984, but #y1984 is. "
        "Neither is a link's heading [[Plain note#Details]] or a URL's "
        "https://example.org/a#fragment.\n",
        tags=["area/sub", "leading-hash"],
        body_tags=["body-tag", "y1984"],
    )
    # YAML 1.1 traps, kept as text.
    b.note(
        "Traps.md",
        front=[
            "# a comment line in front matter",
            'title: "Traps: YAML 1.1 and friends"',
            "time: 12:30      # sexagesimal in YAML 1.1",
            "publish: yes",
            "zip: 0123",
            "version: 1.10",
            "created: 2024-03-05",
            "tags: [yaml, traps]",
            "summary: >",
            "  A folded scalar that",
            "  spans two lines.",
            "quote: 'single ''quoted'' text'",
            'link: "[[Plain note]]"',
            "related: [[No title]]",
        ],
        body="Every value above must stay as written.\n",
        title="Traps: YAML 1.1 and friends",
        tags=["yaml", "traps"],
    )
    # Core assertions, nested folders three deep.
    newton = "Science/Physics/Mechanics/Newton's laws.md"
    b.note(
        newton,
        front=[
            "title: Newton's laws",
            "tags:",
            "  - physics",
            "core_assertions:",
            "  - A body keeps its velocity unless a net force acts on it.",
            '  - "Force: mass times acceleration."',
            "  - Forces come in pairs, in a ratio of 1:1.",
        ],
        body="# Newton's laws\n\n" + words("Newton's laws", "physics") + "\n",
        title="Newton's laws",
        tags=["physics"],
        assertions=3,
    )
    b.note(
        "Science/Physics/Entropy.md",
        front=["title: Entropy", "core_assertions: []"],
        body="No assertions yet.\n",
        title="Entropy",
    )
    # Unicode names.
    b.note(
        "日本語/光合成.md",
        front=[
            "title: 光合成",
            "aliases: [こうごうせい]",
            "core_assertions:",
            "  - 光のエネルギーは化学エネルギーに変わる。",
        ],
        body="植物は光を使って糖を作る。\n\nタグ: #植物 #生物学\n",
        title="光合成",
        aliases=["こうごうせい"],
        body_tags=["植物", "生物学"],
        assertions=1,
    )
    b.note(
        "Cuisine française/Crème brûlée.md",
        front=[
            "core_assertions:",
            "  - Le sucre caramélise vers 170 °C.",
            "  - La crème doit cuire doucement — au bain-marie.",
        ],
        body="Une note en français. #cuisine\n",
        body_tags=["cuisine"],
        assertions=2,
    )
    b.note(
        "🌱 Seeds/Idea 💡.md",
        front=["tags:", "  - seed🌱", "core_assertions:"]
        + [f"  - Seed idea number {i} is worth keeping." for i in range(1, 6)],
        body="Five small claims.\n",
        tags=["seed🌱"],
        assertions=5,
    )
    b.note(
        "Notes with spaces/My first note.md",
        front=["title: My first note"],
        body=words("First notes") + "\n",
        title="My first note",
    )
    b.note(
        "C# basics.md",
        front=None,
        body="```csharp\n#region not-a-tag\nvar x = 1;\n#endregion\n```\n\nA `#pragma` too.\n",
    )
    # Encodings and line ends.
    b.note(
        "Encoding/CRLF note.md",
        front=["title: Written on Windows", "tags:", "  - windows"],
        body="Every line ends in CR LF. #crlf\n\nSecond paragraph.\n",
        title="Written on Windows",
        tags=["windows"],
        body_tags=["crlf"],
        crlf=True,
    )
    b.note(
        "Encoding/BOM note.md",
        front=["title: Starts with a BOM", "aliases: [bom]"],
        body="Notepad adds a byte order mark.\n",
        title="Starts with a BOM",
        aliases=["bom"],
        bom=True,
    )
    b.note(
        "Encoding/No final newline.md",
        front=["title: No final newline"],
        body="The last line has no line end and a tag at the very end #last",
        title="No final newline",
        body_tags=["last"],
    )
    b.note(
        "Encoding/Odd spaces.md",
        front=["title: Odd spaces"],
        body="A no-break space sits here:\u00a0between words.\n\nA line separator "
        "\u2028 sits inside this paragraph, and a paragraph separator \u2029 too.\n",
        title="Odd spaces",
    )
    # Next to a note that Syncthing is updating.
    b.note("Inbox/Note.md", front=["title: Inbox note"], body="Synced.\n", title="Inbox note")
    for name in (".syncthing.Note.md.tmp", "~syncthing~Note.md.tmp"):
        temp = b.ignore(f"Inbox/{name}", b"---\ntitle: Inbox no")
        os.utime(temp, (OLD_MTIME, OLD_MTIME))  # a stalled transfer, days old
    b.ignore("Inbox/Note.md~", "---\ntitle: Inbox note\n---\nAn editor's backup.\n")
    b.ignore(".hidden-note.md", "---\ntitle: Hidden\n---\nA dotfile note.\n")

    # Unreadable.
    b.broken(
        "Templates/Daily.md",
        b"---\ndate: {{date}}\ntitle: {{title}}\ntags:\n  - daily\n---\n# {{title}}\n",
    )
    b.broken(
        "Broken/Latin-1.md",
        "---\ntitle: Café au lait\n---\nCrème brûlée, saved as Latin-1.\n".encode("latin-1"),
    )
    b.broken("Broken/Picture.md", _png(8, 8))
    b.broken("Broken/Unclosed.md", b"---\ntitle: Never closed\n\nThe body starts here.\n")
    line = b"An exported chat log line that goes on, and on, and on.\n"
    b.broken(
        "Big export.md",
        b"---\ntitle: Big export\n---\n" + line * (2 * MAX_NOTE_BYTES // len(line) + 1),
    )

    # Not notes.
    b.ignore(".obsidian/app.json", json.dumps({"attachmentFolderPath": "Attachments"}))
    b.ignore(".obsidian/workspace.json", json.dumps({"main": {"type": "split"}}))
    b.ignore(".trash/Old note.md", "---\ntitle: Old note\n---\nDeleted last year.\n")
    b.ignore(".git/HEAD", "ref: refs/heads/main\n")
    obj_path, obj = _git_object(b"---\ntitle: Plain note\n---\n")
    b.ignore(f".git/objects/{obj_path}", obj)
    b.ignore("Attachments/Pasted image 20240305101112.png", _png(2, 2))
    b.ignore("Attachments/Paper.pdf", _PDF)
    b.ignore("Attachments/data.json", json.dumps({"values": [1, 2, 3]}))
    b.ignore("Board.canvas", _canvas(["Plain note.md", newton]))
    (root / ".stfolder").mkdir()
    b.ignored.append(".stfolder")

    # Links.
    b.link("A link to Newton.md", root / newton)  # sorts before its target: keep the real path
    b.duplicates.append("A link to Newton.md")
    b.link("Physics mirror", root / "Science" / "Physics")  # a folder link inside the vault
    b.duplicates += ["Physics mirror/Entropy.md", "Physics mirror/Mechanics/Newton's laws.md"]
    b.link("Science/Physics/Mechanics/Up to Science", root / "Science")  # a cycle
    b.ignored.append("Science/Physics/Mechanics/Up to Science")
    b.note(
        "Linked/External note.md",
        front=["title: Lives outside the vault"],
        body="A symlinked file; its target is outside.\n",
        title="Lives outside the vault",
        target=outside / "External note.md",
    )
    b.link("Linked/External note.md", outside / "External note.md")
    b.note(
        "Shared (linked)/Outside idea.md",
        front=None,
        body="A note in a folder that is a symlink to outside the vault. #shared\n",
        body_tags=["shared"],
        target=outside / "shared" / "Outside idea.md",
    )
    b.note(
        "Shared (linked)/Deeper/Outside detail.md",
        front=["title: Outside detail"],
        body="One folder further down.\n",
        title="Outside detail",
        target=outside / "shared" / "Deeper" / "Outside detail.md",
    )
    b.link("Shared (linked)", outside / "shared")
    return b.done()


# --- fingerprints -----------------------------------------------------------------------------


def file_hashes(root: Path) -> dict[str, str]:
    """Every file, folder and symlink under `root` by '/'-separated path: a file's sha256,
    'dir' for a folder, 'link:<target>' for a symlink (never followed)."""
    out: dict[str, str] = {}
    top = os.fspath(root)
    for here, dirs, files in os.walk(top):
        prefix = os.path.relpath(here, top).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        for name in dirs + files:
            path = os.path.join(here, name)
            rel = prefix + name
            if os.path.islink(path):
                out[rel] = "link:" + os.readlink(path)
            elif os.path.isdir(path):
                out[rel] = "dir"
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
            else:
                out[rel] = "other"
    return dict(sorted(out.items()))
