"""Note files: front matter round trips, and bad files give a message saying what to fix."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coach_gui.adapters import front_matter
from coach_gui.adapters.front_matter import NoteFormatError
from coach_gui.domain.notes import Note

SAMPLE = (
    b"---\n"
    b"id: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\n"
    b"title: Natural selection\n"
    b'source: "Darwin, On the Origin of Species (1859), ch. IV"\n'
    b"tags: [evolution, mechanism]\n"
    b"aliases: [selection]\n"
    b"core_assertions:\n"
    b"  - Individuals vary, and some variation is inherited.\n"
    b"  - More are born than can survive.\n"
    b"---\n"
    b"\n# Natural selection\n\nBody text.\n"
)


def test_parse_reads_every_field_and_keeps_unknown_keys() -> None:
    parsed = front_matter.parse(SAMPLE)
    note = parsed.note
    assert note.id == "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
    assert note.title == "Natural selection"
    assert note.source.startswith("Darwin")
    assert note.tags == ("evolution", "mechanism")
    assert note.core_assertions[1] == "More are born than can survive."
    assert note.body == "\n# Natural selection\n\nBody text.\n"
    assert note.aliases == ("selection",) and parsed.extra == {}


def test_unchanged_note_renders_byte_identical() -> None:
    parsed = front_matter.parse(SAMPLE)
    assert front_matter.render(parsed.note, parsed) == SAMPLE


def test_body_edit_keeps_front_matter_text_exactly() -> None:
    parsed = front_matter.parse(SAMPLE)
    edited = parsed.note.model_copy(update={"body": "New body.\n"})
    out = front_matter.render(edited, parsed)
    assert out == SAMPLE.split(b"---\n\n#")[0] + b"---\nNew body.\n"


def test_front_matter_edit_keeps_unknown_keys_and_crlf() -> None:
    crlf = SAMPLE.replace(b"\n", b"\r\n")
    parsed = front_matter.parse(crlf)
    assert parsed.note.body == "\n# Natural selection\n\nBody text.\n"
    edited = parsed.note.model_copy(update={"core_assertions": ("Only one now.",)})
    out = front_matter.render(edited, parsed)
    assert b"\n" not in out.replace(b"\r\n", b"")
    again = front_matter.parse(out)
    assert again.note == edited
    assert again.note.aliases == ("selection",)


def test_bom_is_kept() -> None:
    parsed = front_matter.parse(b"\xef\xbb\xbf" + SAMPLE)
    assert front_matter.render(parsed.note, parsed).startswith(b"\xef\xbb\xbf---")


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"---\ntitle: x\n", "not closed"),
        (b"---\ntitle: [unclosed\n---\n", "not valid YAML (front matter line"),
        (b"---\nsource: x\nid: a1\n---\n", "missing title"),
        (b"---\ntitle: '  '\nid: a1\n---\n", "missing title"),
        (b"---\n- a list\n---\n", "'key: value' lines"),
        (
            b"---\nid: a1\ntitle: T\ncore_assertions: {a: b}\n---\n",
            "'core_assertions' must be a list",
        ),
        (b"---\ntitle: T\xff\n---\n", "not UTF-8"),
        (b"---\ntitle: T\n---\n\x00\x01", "binary file"),
        (b"---\ntitle: T\nid: a\n---\n" + b"x" * 1_000_001, "up to 1 MB"),
    ],
)
def test_broken_files_say_what_is_wrong(raw: bytes, words: str) -> None:
    with pytest.raises(NoteFormatError) as caught:
        front_matter.parse(raw, fallback_id="generated1")
    assert words in str(caught.value)


def test_obsidian_style_comma_tags_and_numeric_values() -> None:
    note = front_matter.parse(b"---\nid: 42\ntitle: 1984\ntags: a, b c\n---\n").note
    assert (note.id, note.title, note.tags) == ("42", "1984", ("a", "b", "c"))


_text = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028\u2029\x85"
    ),
    max_size=40,
)
_line = _text.filter(lambda s: s.strip() != "")
_notes = st.builds(
    Note,
    id=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True),
    title=_line,
    source=_text,
    # Tags as Obsidian has them: no '#' in front, no spaces or commas, each once.
    tags=st.lists(
        st.from_regex(r"[A-Za-z0-9_/-]{1,12}", fullmatch=True).filter(lambda t: t[0] != "/"),
        max_size=4,
        unique=True,
    ).map(tuple),
    core_assertions=st.lists(_line, max_size=6).map(tuple),
    body=st.text(max_size=300).map(lambda s: s.replace("\r", "").replace("\x00", "")),
)


@settings(max_examples=300, deadline=None)
@given(_notes)
def test_any_note_round_trips_through_its_file(note: Note) -> None:
    raw = front_matter.render(note)
    parsed = front_matter.parse(raw)
    assert parsed.note == note
    assert front_matter.render(parsed.note, parsed) == raw


@settings(max_examples=200, deadline=None)
@given(_notes, st.text(max_size=200).map(lambda s: s.replace("\r", "").replace("\x00", "")))
def test_a_body_edit_round_trips(note: Note, body: str) -> None:
    parsed = front_matter.parse(front_matter.render(note))
    edited = parsed.note.model_copy(update={"body": body})
    assert front_matter.parse(front_matter.render(edited, parsed)).note == edited


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_give_a_note_or_our_error(raw: bytes) -> None:
    with contextlib.suppress(NoteFormatError):
        front_matter.parse(b"---\n" + raw, fallback_id="x1")
