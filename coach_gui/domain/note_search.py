"""Search as you type over the listed notes, and the rows the note list shows.

The index is built from the notes (`NoteSearchIndex(entries)`, on a worker), or from the
folded parts of one built before (`NoteSearchIndex(rows, folded)`): the listing Coach keeps
on disk holds them, so the notes are listed and searchable as soon as the window is painted,
before the note files are read (issue 38, ADR 0036). Nothing here imports pydantic: the
window's frame lists the kept rows before the rest of Coach is loaded.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar, cast

from coach_gui.domain.text_segments import fold

if TYPE_CHECKING:
    from coach_gui.domain.notes import Note


class ListedNote(Protocol):
    """What the note list shows of a note, and what its search needs at query time."""

    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...

    @property
    def core_assertions(self) -> tuple[str, ...]: ...


class ListedEntry(Protocol):
    """A listed note and its file, relative to the notes folder ('/'-separated)."""

    @property
    def note(self) -> ListedNote: ...

    @property
    def file_name(self) -> str: ...


E = TypeVar("E", bound=ListedEntry)


class ListedBroken(Protocol):
    """A file in the notes folder that could not be read as a note, and why."""

    @property
    def file_name(self) -> str: ...

    @property
    def error(self) -> str: ...


def sort_key(entry: ListedEntry) -> tuple[str, str]:
    """Notes are listed by title, case- and accent-insensitively, then by file name."""
    return (fold(entry.note.title), entry.file_name)


def in_list_order(entries: Iterable[E]) -> list[E]:
    return sorted(entries, key=sort_key)


@dataclass(frozen=True)
class FoldedNotes:
    """An index's folded text, one item per note in list order: title and aliases; every
    tag (front matter and inline); each distinct whitespace-separated token of the whole
    note (a query word never spans whitespace, so this finds the same notes as the full
    text in about half the bytes)."""

    titles: list[str]
    tags: list[tuple[str, ...]]
    texts: list[str]


def _fold_notes(entries: Sequence[ListedEntry]) -> FoldedNotes:
    notes = [cast("Note", e.note) for e in entries]  # read from its file: body, aliases…
    return FoldedNotes(
        titles=[fold(" ".join((n.title, *n.aliases))) for n in notes],
        tags=[tuple(fold(t) for t in n.all_tags) for n in notes],
        texts=[
            " ".join(
                dict.fromkeys(
                    fold(
                        " ".join(
                            (n.title, *n.aliases, *n.tags, n.source, *n.core_assertions, n.body)
                        )
                    ).split()
                )
            )
            for n in notes
        ],
    )


@dataclass(frozen=True, slots=True)
class KeptNote:
    """A note as the listing kept on disk shows it until the note files are read."""

    id: str
    title: str
    tags: tuple[str, ...] = ()
    core_assertions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KeptEntry:
    note: KeptNote
    file_name: str


@dataclass(frozen=True, slots=True)
class KeptBroken:
    """A file the last listing could not read, and why."""

    file_name: str
    error: str


@dataclass(frozen=True)
class KeptListing:
    """The notes as Coach last listed them (`adapters/kept_listing.py`): shown at start,
    searchable at once, until the files are read again and the list corrected in place."""

    location: str
    entries: list[KeptEntry]
    broken: list[KeptBroken]
    index: NoteSearchIndex[KeptEntry]


NO_ASSERTIONS = "no:assertions"  # the search word that keeps notes without assertions


def _tag_query(word: str) -> str | None:
    """The tag prefix a query word asks for (`#evo`, `tag:evo`, `tag:#evo`), or None."""
    if word.startswith("tag:"):
        word = word[4:]
    elif not word.startswith("#"):
        return None
    return word.lstrip("#")


class NoteSearchIndex(Generic[E]):
    """Search as you type: every word of the query must appear in the title, an alias,
    the tags (front matter and inline), source, assertions or body; `#x` or `tag:x` keeps
    the notes with a tag starting with x (`#area` finds `area/sub`, as Obsidian's tag
    search does); `no:assertions` keeps the notes without core assertions. Title and
    alias hits rank first, then tag hits, then the rest, each group in list order.

    The folded text of all notes is kept in one string, so the first word of a query is
    found by C-speed `str.find` jumps rather than a Python loop over every note; and a
    query that only extends the previous one (the learner typing on) searches only the
    previous hits.
    """

    _SEPARATOR = "\x00"  # never in a folded query word

    def __init__(self, entries: Sequence[E], folded: FoldedNotes | None = None) -> None:
        """Built from the notes (folding every text: a while for 10,000 notes, so on a
        worker), or from `folded`, the parts of an index built before and kept with the
        listing (`folded_notes`): then `entries` are in list order already, one per part."""
        if folded is None:
            self._entries = in_list_order(entries)
            folded = _fold_notes(self._entries)
        else:
            self._entries = list(entries)
        self._folded = folded
        self._titles = folded.titles
        self._position = {id(e): i for i, e in enumerate(self._entries)}
        self._tag_pairs = sorted((tag, i) for i, tags in enumerate(folded.tags) for tag in tags)
        self._tags = [" ".join(tags) for tags in folded.tags]
        self._texts = folded.texts
        self._starts: list[int] = []
        position = 0
        for text in self._texts:
            self._starts.append(position)
            position += len(text) + 1
        self._blob = self._SEPARATOR.join(self._texts)
        self._last: tuple[list[str], list[int]] = ([], list(range(len(self._entries))))

    def folded_notes(self) -> FoldedNotes:
        """What this index folded, to be kept with the listing and built from again."""
        return self._folded

    @property
    def entries(self) -> list[E]:
        return list(self._entries)

    def _scan(self, word: str) -> list[int]:
        """Indexes of the notes whose text contains `word`, in order.

        A common word is found early in most texts, so testing each text is cheapest; a
        rare one is cheapest to find by jumping through the joined text. A sample of the
        first notes tells which case this is.
        """
        texts = self._texts
        sample = texts[:200]
        if sample and sum(word in t for t in sample) * 4 > len(sample):
            return [i for i, text in enumerate(texts) if word in text]
        hits: list[int] = []
        starts, find = self._starts, self._blob.find
        position = find(word)
        while position >= 0:
            index = bisect.bisect_right(starts, position) - 1
            hits.append(index)
            if index + 1 >= len(starts):
                break
            position = find(word, starts[index + 1])
        return hits

    def _matching(self, words: list[str]) -> list[int]:
        previous_words, previous_hits = self._last
        narrows = bool(previous_words) and all(
            any(old in new for new in words) for old in previous_words
        )
        if narrows:
            candidates, remaining = previous_hits, words
        else:
            longest = max(words, key=len)
            candidates = self._scan(longest)
            remaining = [w for w in words if w != longest]
        texts = self._texts
        hits = candidates
        for word in remaining:  # one C-level substring test per candidate and word
            hits = [i for i in hits if word in texts[i]]
        self._last = (words, hits)
        return hits

    def _with_tags(self, prefixes: list[str], among: list[E] | None) -> list[E]:
        prefixes = [p for p in prefixes if p]  # a bare '#' (typing on) asks nothing yet
        pool = self._entries if among is None else among
        if not prefixes:
            return list(pool)
        wanted: set[int] | None = None
        for prefix in prefixes:  # each prefix: a bisect into the sorted (tag, note) pairs
            tagged = self._tag_pairs
            found: set[int] = set()
            at = bisect.bisect_left(tagged, (prefix, -1))
            while at < len(tagged) and tagged[at][0].startswith(prefix):
                found.add(tagged[at][1])
                at += 1
            wanted = found if wanted is None else wanted & found
        assert wanted is not None
        if among is None:
            return [self._entries[i] for i in sorted(wanted)]
        position = self._position
        return [e for e in among if position[id(e)] in wanted]

    def search(self, query: str) -> list[E]:
        words = fold(query).split()
        if NO_ASSERTIONS in words:  # the notes still to distil: a filter, then the rest
            rest = " ".join(w for w in words if w != NO_ASSERTIONS)
            pool = self.search(rest) if rest else list(self._entries)
            return [e for e in pool if not e.note.core_assertions]
        prefixes = [_tag_query(w) for w in words if _tag_query(w) is not None]
        if prefixes:
            rest = " ".join(w for w in words if _tag_query(w) is None)
            found = self._search_words(rest.split()) if rest else None
            return self._with_tags([p for p in prefixes if p is not None], found)
        return self._search_words(words)

    def _search_words(self, words: list[str]) -> list[E]:
        if not words:
            return list(self._entries)
        title_hits: list[E] = []
        tag_hits: list[E] = []
        other_hits: list[E] = []
        titles, tags, entries = self._titles, self._tags, self._entries
        hits = self._matching(words)
        if len(words) == 1:  # the common case while typing: no generator per hit
            (word,) = words
            in_title = [i for i in hits if word in titles[i]]
            in_title_set = set(in_title)
            rest = [i for i in hits if i not in in_title_set]
            in_tags = [i for i in rest if word in tags[i]]
            in_tags_set = set(in_tags)
            others = [i for i in rest if i not in in_tags_set]
            return [entries[i] for i in (*in_title, *in_tags, *others)]
        for i in hits:
            title = titles[i]
            if all(w in title for w in words):
                title_hits.append(entries[i])
            elif any(w in tags[i] for w in words):
                tag_hits.append(entries[i])
            else:
                other_hits.append(entries[i])
        return title_hits + tag_hits + other_hits
